"""CuPy as the engine for CUDA device memory (kDLCUDA).

The chapters compute through CuPy's standard namespace, array-api-compat's
``cupy`` wrapper (:func:`namespace`), on zero-copy CuPy views of dlarray
memory (:func:`to_cupy`); results come back as DLArrays through DLPack,
zero-copy (:func:`wrap`).

Where CuPy departs from dlarray's contract, this module mends it once, for
every chapter:

* **Compute runs on the array's own GPU.**  CuPy launches kernels and
  allocates on the *current* device, whatever GPU the arrays live on, so
  every function of the namespace (``linalg.`` and ``fft.`` ones too) first
  enters the GPU of its first CuPy array argument, or of its ``device=``
  (:func:`on_device`; nothing is switched when that GPU is already current).
  A creation function called with neither is a chapter's mistake: on a
  second GPU it would allocate on the first.
* **Linear algebra reports failure.**  CuPy ignores cuSOLVER's status by
  default and returns NaN/inf for a singular or non-positive-definite
  matrix; the ``linalg.`` functions run under ``cupyx.errstate(linalg=
  "raise")``, where CuPy raises ``LinAlgError`` (a ``ValueError``, as NumPy's
  is) for what LAPACK reports: a singular ``inv``/``solve`` and a
  ``cholesky`` of a matrix that is not positive definite (reworded as NumPy
  words them), an eigen- or singular-value solver that does not converge.
  Checking costs one device-to-host copy of the status, the synchronisation
  CuPy avoids by default.
* :data:`FIXES`: the functions where array-api-compat's CuPy wrapper
  departs from the standard, rewritten in terms of it.

Not mended here: CuPy's ``take`` and ``take_along_axis`` wrap out-of-range
indices (its ``take`` has no ``mode=``); dlarray checks the bounds itself,
for every engine.

Views and results cross on dlarray's work stream (see
:mod:`dlarray._cuda.streams`), which is CuPy's current stream, so no
synchronisation is needed between them.

Nothing here imports CuPy until a CUDA array is computed on; without CuPy,
CUDA arrays can still be made, copied and exchanged, and computing raises
``BufferError`` saying what to install.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import operator
from collections.abc import Callable
from contextlib import AbstractContextManager
from types import ModuleType
from typing import Any

import numpy as np
from numpy.linalg import LinAlgError

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._cuda import runtime as cuda_runtime
from dlarray._engine import special_values
from dlarray._engine.namespaces import Namespace
from dlarray._install import pip_install


def _cupy() -> ModuleType | None:
    try:
        return importlib.import_module("cupy")
    except ImportError:
        return None


def available() -> bool:
    """Whether CuPy can be imported."""
    return _cupy() is not None


def is_cupy_array(a: Any) -> bool:
    """True for a ``cupy.ndarray`` (checked without importing CuPy)."""
    # On the type: the instance's __cuda_array_interface__ is a property
    # that builds a dict and asks the driver for the current stream.
    t = type(a)
    return t.__module__.startswith("cupy") and hasattr(t, "__cuda_array_interface__")


def to_cupy(x: ArrayBase) -> Any:
    """A zero-copy ``cupy.ndarray`` view of a CUDA DLArray, through DLPack.

    Like the NumPy engine, it views a twin of ``x`` so that caching the view
    on ``x`` makes no reference cycle through the capsule.
    """
    cupy = _cupy()
    if cupy is None:
        raise BufferError(
            f"computing on {x.device} memory needs CuPy, which is not installed; install "
            f"it ({pip_install('cupy')}, or {pip_install('cupy12')} on a CUDA 12 driver), or "
            f"copy the array to the host with x.to_device('cpu')"
        )
    cuda_runtime.runtime()  # dlarray orders its GPU work through it; says what is missing
    twin = x._view(x.shape, x._strides, x._byte_offset)
    return cupy.from_dlpack(twin)


def wrap(a: Any) -> ArrayBase:
    """A CuPy result brought back as a DLArray, zero-copy, keeping ``a`` as
    its engine view."""
    # On a's GPU: CuPy's __dlpack__ orders the export after the current
    # device's current stream, which must be a's.
    with on_device(a.data.device_id):
        x = _core.from_dlpack(a)  # dlarray.from_dlpack: picks the stream
    x._engine_view = a
    return x


def compact_copy(a: Any) -> ArrayBase:
    """A C-contiguous copy of CuPy array ``a`` (a CUDA DLArray's engine
    view), made by CuPy on a's GPU (for copies of strided arrays between
    GPUs and memory kinds; the standard has no memory order to ask for)."""
    with on_device(a.data.device_id):
        return wrap(a.copy(order="C"))


# ---- compute on the array's own GPU ----

_STAY: AbstractContextManager[Any] = contextlib.nullcontext()


def on_device(index: int | None) -> AbstractContextManager[Any]:
    """The context that makes GPU ``index`` CuPy's current device for one
    call (``None``: stay on the current one).  When ``index`` is current
    already, it costs one ``cudaGetDevice`` and switches nothing.

    Looked up at each call, so tests without a GPU replace it (with a
    recorder of the indices entered)."""
    if index is None:
        return _STAY
    cuda = _cupy_cuda()
    if cuda.runtime.getDevice() == index:
        return _STAY
    device: AbstractContextManager[Any] = cuda.Device(index)
    return device


@functools.cache
def _cupy_cuda() -> Any:
    """``cupy.cuda`` (imported by then: the namespace that calls this is CuPy's)."""
    return importlib.import_module("cupy.cuda")


# The functions that make an array from no array: they name their GPU with
# device=, and on_device(None) marks a call that does not.
_CREATION = frozenset(
    {"arange", "asarray", "empty", "eye", "full", "linspace", "ones", "zeros"}
    | {"fftfreq", "rfftfreq"}
)


def _device_index(args: tuple[Any, ...], kwargs: dict[str, Any], ndarray: Any) -> int | None:
    """The GPU a call computes on: its ``device=``, else its first CuPy
    array argument's (sequences of arrays, as ``concat`` takes, included)."""
    device = kwargs.get("device")
    if device is not None:
        index = getattr(device, "id", device)  # a cupy.cuda.Device, or its index
        return index if type(index) is int else None
    for group in (args, kwargs.values()):
        for a in group:
            if isinstance(a, ndarray):
                return int(a.data.device_id)
            if type(a) in (list, tuple):
                for b in a:
                    if isinstance(b, ndarray):
                        return int(b.data.device_id)
    return None


def _on_the_arrays_device(
    name: str, kernel: Callable[..., Any], ndarray: Any, linalg_errors: Any
) -> Callable[..., Any]:
    """``kernel`` run on the GPU of its arrays (see the module docstring);
    ``linalg_errors``, when given, makes a context that raises CuPy's linear
    algebra failures."""
    creates = name.rpartition(".")[2] in _CREATION

    @functools.wraps(kernel)
    def on_their_device(*args: Any, **kwargs: Any) -> Any:
        first = args[0] if args else None
        if isinstance(first, ndarray) and "device" not in kwargs:  # the common call
            index = first.data.device_id
        else:
            index = _device_index(args, kwargs, ndarray)
        if linalg_errors is not None:
            try:
                with on_device(index), linalg_errors(linalg="raise"):
                    return kernel(*args, **kwargs)
            except LinAlgError as exc:
                words = _in_numpys_words(exc)
                if words is None:
                    raise
                raise LinAlgError(words) from exc
        if index is None and not creates:
            return kernel(*args, **kwargs)
        with on_device(index):
            return kernel(*args, **kwargs)

    return on_their_device


# What LAPACK's status means, in NumPy's words, for the routines whose
# failure is the input's fault (CuPy names the routine: "dgetrf",
# "spotrfBatched", ...); other failures (a solver that does not converge)
# keep CuPy's message.
_LAPACK_FAILURES = {"getrf": "Singular matrix", "potrf": "Matrix is not positive definite"}


def _in_numpys_words(exc: LinAlgError) -> str | None:
    """NumPy's message for the failure CuPy reports ("Error reported by
    dgetrf in cuSOLVER. devInfo = ..."), so that dlarray says the same on
    every engine; None when it is not the input's fault."""
    routine = str(exc).partition("reported by ")[2].partition(" ")[0]
    for name, words in _LAPACK_FAILURES.items():
        if name in routine:
            return words
    return None


class _OnTheArraysDevice:
    """A CuPy namespace module (array-api-compat's ``cupy``, or its
    ``linalg``/``fft``) whose functions run on their arrays' GPU.  Classes
    (the dtypes) and constants are passed through as they are."""

    def __init__(self, module: Any, name: str, linalg_errors: Any = None) -> None:
        self.__name__ = module.__name__
        self._module = module
        self._name = name
        self._linalg_errors = linalg_errors
        self._ndarray = importlib.import_module("cupy").ndarray

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = getattr(self._module, attr)
        if attr in ("linalg", "fft") and self._name == "":  # (fft.fft is a function)
            errors = importlib.import_module("cupyx").errstate if attr == "linalg" else None
            value = _OnTheArraysDevice(value, attr, errors)
        elif callable(value) and not isinstance(value, type):
            name = attr if self._name == "" else f"{self._name}.{attr}"
            value = _on_the_arrays_device(name, value, self._ndarray, self._linalg_errors)
        self.__dict__[attr] = value
        return value


# ---- the departures from the standard ----


def _frequencies(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``fft.fftfreq``/``fft.rfftfreq`` that take a CuPy ``device=``:
    array-api-compat refuses every device but ``"cpu"`` and ``None`` there.
    The namespace has entered the device already, so CuPy's own function
    computes on it."""

    def fixed(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Any:
        result = kernel(n, d=d)
        return result if dtype is None else result.astype(dtype, copy=False)

    fixed.__name__ = kernel.__name__
    return fixed


# CuPy's departures from the standard that need no CuPy to be written, fixed
# once for every chapter (see dlarray._engine.namespaces).
FIXES: dict[str, Any] = {}


def _fixes(compat: Any) -> dict[str, Any]:
    """The fixes that need CuPy's namespace to be made."""
    cupy: Any = _cupy()
    return {
        # CuPy's kernels are NumPy's, special values included.
        "floor_divide": special_values.floor_divide(compat, np.dtype),
        "expm1": special_values.expm1(compat, np.dtype),
        "tanh": special_values.tanh(compat, np.dtype),
        "sign": special_values.sign(compat, np.dtype),
        # A write through the standard's __setitem__ runs a kernel: the
        # chapters ask for it by this name, so it runs on the array's GPU.
        "_dlarray_write": operator.setitem,
        "fft.fftfreq": _frequencies(cupy.fft.fftfreq),
        "fft.rfftfreq": _frequencies(cupy.fft.rfftfreq),
    }


def namespace() -> Namespace:
    """CuPy's standard namespace (array-api-compat's ``cupy`` wrapper), with
    :data:`FIXES` in place, every function running on its arrays' GPU."""
    try:
        compat = importlib.import_module("array_api_compat.cupy")
    except ImportError:
        raise BufferError(
            "computing on CUDA memory needs array-api-compat, CuPy's standard namespace; "
            f"pip install array-api-compat (or {pip_install('cupy')})"
        ) from None
    ndarray = importlib.import_module("cupy").ndarray
    errstate = importlib.import_module("cupyx").errstate
    fixes = {}
    for name, fix in {**_fixes(compat), **FIXES}.items():
        errors = errstate if name.startswith("linalg.") else None
        fixes[name] = _on_the_arrays_device(name, fix, ndarray, errors)
    return Namespace("cupy", _OnTheArraysDevice(compat, ""), fixes)
