"""NumPy as the engine for host memory.

``to_numpy`` views a DLArray as an ``ndarray`` and ``from_numpy`` views an
``ndarray`` as a DLArray, both zero-copy through DLPack.  NumPy's DLPack code
knows only its own dtypes, so bfloat16 and the fp8/fp6/fp4 formats travel as
unsigned integers of the same width and are re-labelled on the other side
(as ``ml_dtypes`` types in NumPy, as the real dtype in dlarray).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from dlarray import _core
from dlarray._array import DLArray, retag
from dlarray._device import DLDeviceType
from dlarray._dtypes import DTYPES_BY_NAME, DType
from dlarray._engine import cupy_engine, sycl_engine

# Memory NumPy computes on (managed and pinned memory are exchanged and
# copied, but not computed on: see docs/cuda.md), CuPy's, and dpnp's.
_HOST_DEVICE_TYPES = frozenset({int(DLDeviceType.kDLCPU)})
_CUDA = int(DLDeviceType.kDLCUDA)
_ONEAPI = int(DLDeviceType.kDLOneAPI)
_NUMPY_NATIVE = frozenset(
    name for name, d in DTYPES_BY_NAME.items() if d.kind != "extended floating"
)


def _ml_dtypes() -> ModuleType:
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(
            "bfloat16 and the fp8/fp6/fp4 dtypes need the ml_dtypes package for NumPy "
            "to hold them; pip install ml_dtypes"
        ) from None
    return ml_dtypes


def _bits_dtype(width: int) -> DType:
    return DTYPES_BY_NAME[f"uint{width}"]


def can_view(x: DLArray) -> bool:
    """True if :func:`to_numpy` can view ``x`` without raising."""
    if x._dl_device[0] not in _HOST_DEVICE_TYPES:
        return False
    name = x.dtype.name
    if name in _NUMPY_NATIVE:
        return True
    if x.dtype.is_subbyte and not x._padded:
        return False
    try:
        _ml_dtypes()
    except TypeError:
        return False
    return True


def to_numpy(x: DLArray) -> Any:
    """A zero-copy ``ndarray`` view of a host DLArray, made once and cached.

    The view is made through DLPack from a *twin* of ``x`` (a second array
    object over the same memory and owner), not from ``x`` itself: the view
    keeps its exporter alive, so exporting ``x`` and caching the view on ``x``
    would make a reference cycle through the capsule that the garbage
    collector cannot see.
    """
    view = x._engine_view
    if view is not None:
        return view
    view = _make_view(x._view(x.shape, x._strides, x._byte_offset))
    x._engine_view = view
    return view


def _make_view(x: DLArray) -> Any:
    device_type = x._dl_device[0]
    if device_type not in _HOST_DEVICE_TYPES:
        if device_type == _CUDA:
            return cupy_engine.to_cupy(x)
        if device_type == _ONEAPI:
            return sycl_engine.to_dpnp(x)
        raise BufferError(
            f"dlarray computes on host memory (with NumPy), on CUDA device memory (with "
            f"CuPy) and on SYCL USM (with dpnp), and this array lives on {x.device}; "
            f"view it zero-copy with "
            f"numpy.from_dlpack(x) (managed and pinned memory), or copy it with "
            f"x.to_device('cpu') or x.to_device('cuda')"
        )
    dtype = x.dtype
    if dtype.name in _NUMPY_NATIVE:
        return np.from_dlpack(x)
    if dtype.is_subbyte and not x._padded:
        raise TypeError(
            f"a packed {dtype.name} array has no per-element bytes for NumPy to view; "
            f"use dlarray.subbyte.to_codes(x) or dlarray.subbyte.pad(x) first"
        )
    ml_dtype = getattr(_ml_dtypes(), dtype.name)
    width = 8 if dtype.is_subbyte else dtype.bits
    return np.from_dlpack(retag(x, _bits_dtype(width), padded=False)).view(ml_dtype)


def from_numpy(a: Any) -> DLArray:
    """A zero-copy DLArray view of an ``ndarray`` (ml_dtypes arrays included)."""
    from dlarray._consumer import from_dlpack

    name = a.dtype.name
    if name in _NUMPY_NATIVE or name not in DTYPES_BY_NAME:
        return from_dlpack(a)
    dtype = DTYPES_BY_NAME[name]
    bits = from_dlpack(a.view(f"u{a.dtype.itemsize}"))
    return retag(bits, dtype, padded=dtype.is_subbyte)


_ndarray = np.ndarray
# NumPy's type characters of the dtypes its DLPack export knows (all of
# _NUMPY_NATIVE, in every integer spelling NumPy uses).
_NATIVE_CHARS = frozenset("?bhilqpBHILQPefdFD")
_fast_from_dlpack = _core.from_dlpack


def wrap(a: Any) -> DLArray:
    """A NumPy result brought back as a DLArray, zero-copy through DLPack.

    ``a`` may be a NumPy scalar (ufuncs return those for 0-d inputs).  The
    DLArray keeps ``a`` as its cached engine view: ``a`` does not refer back
    to the DLArray, so this makes no cycle.
    """
    if type(a) is not _ndarray:
        if cupy_engine.is_cupy_array(a):
            return cupy_engine.wrap(a)
        if sycl_engine.is_dpnp_array(a):
            return sycl_engine.wrap(a)
        a = np.asarray(a)
    if a.dtype.char in _NATIVE_CHARS:  # .char is a C attribute; .name is slow Python
        x = _fast_from_dlpack(a)
    else:
        x = from_numpy(a)
    x._engine_view = a
    return x


_NUMPY_DTYPES: dict[DType, Any] = {}


def numpy_dtype(dtype: DType) -> Any:
    """The NumPy dtype holding ``dtype`` (padded for sub-byte types)."""
    try:
        return _NUMPY_DTYPES[dtype]
    except KeyError:
        pass
    if dtype.name in _NUMPY_NATIVE:
        result = np.dtype(dtype.name)
    else:
        result = np.dtype(getattr(_ml_dtypes(), dtype.name))
    _NUMPY_DTYPES[dtype] = result
    return result


# The Array API's default dtype per Python kind, for asarray of Python data.
_DEFAULTS = {"b": "bool", "i": "int64", "u": "int64", "f": "float64", "c": "complex128"}


def from_python(obj: Any, dtype: DType | None) -> DLArray:
    """A new host array holding a Python scalar or nested sequence."""
    from dlarray._creation import empty

    if dtype is None:
        parsed = np.asarray(obj)
        if parsed.dtype.kind not in _DEFAULTS:
            raise TypeError(
                f"asarray: cannot make an array from {type(obj).__name__} data "
                f"(NumPy read it as {parsed.dtype}); pass numbers, bools or nested "
                f"sequences of them"
            )
        dtype = DTYPES_BY_NAME[_DEFAULTS[parsed.dtype.kind]]
    parsed = np.asarray(obj, dtype=numpy_dtype(dtype))
    out = empty(parsed.shape, dtype=dtype, padded=dtype.is_subbyte)
    if out.size:
        to_numpy(out)[...] = parsed
    return out


def cast(x: DLArray, dtype: DType) -> DLArray:
    """A new array with ``x``'s values converted to ``dtype``, on ``x``'s
    device (CuPy converts GPU arrays)."""
    from dlarray._creation import empty

    if x._dl_device[0] in (_CUDA, _ONEAPI):
        return wrap(to_numpy(x).astype(numpy_dtype(dtype)))

    out = empty(x.shape, dtype=dtype, padded=dtype.is_subbyte)
    if out.size:
        to_numpy(out)[...] = to_numpy(x)
    return out


# ---- running kernels ----
#
# The Array API defines the results of 1/0, log(0), inf - inf and the like;
# they are values, not errors.  NumPy reports them as RuntimeWarnings, which
# would leak out of dlarray as noise about NumPy internals, so kernels run
# with NumPy's error reporting off.  np.errstate costs ~1 us a call, several
# times a small op; NumPy 2 keeps its error state in a context variable, and
# the C core (engine_call.c) sets and resets that variable around the kernel
# for a few tens of ns, then adopts the result.  Without that variable (a
# NumPy layout we do not know) the Python fallback uses np.errstate.
try:
    from numpy._core._ufunc_config import (  # type: ignore[attr-defined]
        _extobj_contextvar,
    )

    with np.errstate(all="ignore"):
        _QUIET = _extobj_contextvar.get()
except (ImportError, AttributeError):  # pragma: no cover - other NumPy layouts
    _extobj_contextvar = None


def _call_with_errstate(kernel: Any, *args: Any) -> DLArray:  # pragma: no cover
    with np.errstate(all="ignore"):
        return wrap(kernel(*args))


if _extobj_contextvar is not None:
    _core.register_engine(np.ndarray, _extobj_contextvar, _QUIET, wrap)
    #: call(kernel, *arrays) -> the kernel's result as a DLArray, computed quietly.
    call = _core.engine_call
else:  # pragma: no cover
    call = _call_with_errstate


def quiet(kernel: Any) -> Any:
    """``kernel`` wrapped to run with NumPy's floating-point warnings off
    (for kernels whose result is not a single array for :func:`call`)."""

    def quiet_kernel(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):
            return kernel(*args, **kwargs)

    quiet_kernel.__name__ = getattr(kernel, "__name__", "kernel")
    return quiet_kernel
