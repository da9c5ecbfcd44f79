"""The array object's operators and protocols that are more than a
namespace call.

Binary operators call the namespace function of the same meaning directly
(``dlarray._array._forward``); the in-place forms, the conversions to
Python scalars, ``round``/``format``, NumPy's ``__array__``, copying and
pickling have rules of their own, kept here (``repr`` and ``str`` are
dlarray._api.printing's).  The array object reaches them
through ``dlarray._array.DELEGATES``, which dlarray/__init__.py fills.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np

import dlarray._float_formats as float_formats
from dlarray import subbyte
from dlarray._api._operands import binary
from dlarray._api.elementwise import BINARY_CATEGORIES, FUNCTIONS, KERNELS
from dlarray._array import DELEGATES, DLArray, retag
from dlarray._creation import empty
from dlarray._device import CPU, Device
from dlarray._dtypes import DTYPES_BY_NAME, DType
from dlarray._engine import numpy_engine
from dlarray._engine.routing import call, engine_view
from dlarray._rules import CATEGORIES, DEFAULT_DTYPES, check_dtype, common_device
from dlarray._storage.family import prepare_host_access
from dlarray._transfer import copy_to_device

_INTEGER = CATEGORIES["integer"]
_EXTENDED = frozenset(float_formats.FORMATS)
# bfloat16 and the fp8/fp6/fp4 formats are real numbers outside the Array
# API's dtypes: they convert with int(), float(), complex() and bool().
_CONVERSION_CATEGORY = {
    "all": CATEGORIES["all"] | _EXTENDED,
    "integer": CATEGORIES["integer"],
    "real-valued or bool": CATEGORIES["real-valued"] | CATEGORIES["bool"] | _EXTENDED,
}


def check_writable(x: DLArray, what: str) -> None:
    """``ValueError`` when ``x`` is read-only."""
    if x._readonly:
        raise ValueError(
            f"{what}: the array is read-only (memory its producer marked READ_ONLY, or a "
            f"broadcast view whose elements repeat); make a writable copy with "
            f"dlarray.asarray(x, copy=True)"
        )


def inplace(name: str, x: DLArray, other: Any) -> DLArray:
    """``x <op>= other``: ``name(x, other)`` written straight into ``x``.

    The standard forbids an in-place operation from changing ``x``'s dtype
    or shape: a result of another dtype raises ``TypeError``, one of another
    shape (``other`` broadcasting ``x`` up) raises ``ValueError``.  Both are
    checked before anything is written.  Where the kernel is a ufunc, the
    engine writes its result into ``x``'s memory (``out=``), as NumPy's own
    ``x += y`` does; the few kernels that are not (``@``, and floor division,
    which fixes NumPy's special cases afterwards) compute a result and copy
    it in.
    """
    check_writable(x, f"in-place {name}")
    if name == "matmul":
        return _assign(name, x, DELEGATES[name](x, other))
    kernel, allowed = KERNELS[name]
    dtype = x.dtype
    if name == "divide" and dtype in _INTEGER:
        # The one operator whose result dtype is not its operands' promoted
        # one: integer true division gives the default float.
        raise _dtype_change(name, x, DEFAULT_DTYPES["real floating"])
    if type(other) is DLArray and other.dtype is dtype and dtype in allowed:
        # The common case, kept short: it is the whole cost on small arrays.
        if other.device != x.device:
            common_device((x, other), name)
        a1, a2 = engine_view(x), engine_view(other)
    else:
        a1, a2, result_dtype = binary(x, other, allowed, BINARY_CATEGORIES[name], name)
        if result_dtype is not dtype:
            raise _dtype_change(name, x, result_dtype)
    other_shape = np.shape(a2)
    if other_shape != x.shape and other_shape != ():
        _check_broadcast(name, x, other_shape)
    if not isinstance(kernel, np.ufunc) or type(a1) is not np.ndarray:
        # CuPy and dpnp results come back through the general path until
        # their engines take out= (issue 19: the engine contract).
        return _assign(name, x, call(kernel, a1, a2))
    # The ufunc writes into x (its third argument is out=), in the engine
    # call's quiet floating-point context: the standard's special values
    # (1/0 = inf) are results, not warnings.
    call(kernel, a1, a2, a1)
    return x


def _check_broadcast(name: str, x: DLArray, other_shape: tuple[int, ...]) -> None:
    try:
        shape = np.broadcast_shapes(x.shape, other_shape)
    except ValueError:
        raise ValueError(
            f"in-place {name}: shapes {x.shape} and {other_shape} do not broadcast"
        ) from None
    if shape != x.shape:
        raise _shape_change(name, x, shape)


def _assign(name: str, x: DLArray, result: DLArray) -> DLArray:
    if result.dtype is not x.dtype:
        raise _dtype_change(name, x, result.dtype)
    if result.shape != x.shape:
        raise _shape_change(name, x, result.shape)
    engine_view(x)[...] = engine_view(result)
    return x


def _dtype_change(name: str, x: DLArray, dtype: DType) -> TypeError:
    return TypeError(
        f"in-place {name}: the result has dtype {dtype.name}, but x is {x.dtype.name} and "
        f"an in-place operation cannot change it; use x = dlarray.{name}(x, other) instead"
    )


def _shape_change(name: str, x: DLArray, shape: tuple[int, ...]) -> ValueError:
    return ValueError(
        f"in-place {name}: the result has shape {shape}, but x has shape {x.shape}; an "
        f"in-place operation cannot broadcast x"
    )


def to_scalar(x: DLArray, method: str, category: str) -> Any:
    """The Python scalar held by a 0-d array, for ``bool(x)``, ``int(x)``...

    Arrays with other than zero axes raise ``TypeError``, as do dtypes the
    conversion does not accept (``int()`` of a complex array, ``__index__``
    of a float array).
    """
    if x.ndim != 0:
        raise TypeError(
            f"{method}: only a 0-d array converts to a Python scalar; this one has shape {x.shape}"
        )
    if x.dtype not in _CONVERSION_CATEGORY[category]:
        raise TypeError(f"{method}: needs a {category} array, got dtype {x.dtype.name}")
    return _python_value(x)


def _python_value(x: DLArray) -> Any:
    """The Python number a 0-d array holds (bool, int, float or complex;
    float for the extended floating formats)."""
    if x.dtype in _EXTENDED:
        # Decoded from the storage bits by dlarray's own table of the
        # formats: no ml_dtypes needed.
        code = engine_view(storage_codes(x)).item()
        return float_formats.decode(int(code), x.dtype)
    return engine_view(x).item()


def round_to(x: DLArray, ndigits: int | None) -> DLArray:
    """``round(x)`` and ``round(x, ndigits)`` (see ``DLArray.__round__``)."""
    if ndigits is None:
        return FUNCTIONS["round"](x)
    if not isinstance(ndigits, int) or isinstance(ndigits, bool):
        raise TypeError(f"round(x, ndigits): ndigits must be an int, got {ndigits!r}")
    if not isinstance(x, DLArray):
        raise TypeError(f"round: expected a dlarray array, got {type(x).__name__}")
    check_dtype(x.dtype, "numeric", "round")
    # NumPy's round with decimals: scale, round half to even, scale back
    # (integers with negative ndigits round to tens, hundreds, exactly).
    return call(np.round, engine_view(x), ndigits)


def format_with(x: DLArray, spec: str) -> str:
    """``format(x, spec)`` (see ``DLArray.__format__``)."""
    if not spec:
        return str(x)
    if x.ndim != 0:
        raise TypeError(
            f"format spec {spec!r} given for an array of shape {x.shape}: only a 0-d array "
            f"formats as a number; format its elements, e.g. f'{{x[0]:{spec}}}'"
        )
    return format(_python_value(x), spec)


# ---- NumPy's conversion protocol ----


def to_numpy(x: DLArray, dtype: Any, copy: bool | None) -> Any:
    """``x.__array__(dtype, copy)``: an ndarray over ``x``'s memory, or a copy.

    NumPy 2's rules: ``copy=None`` copies only when needed (a dtype
    conversion), ``copy=True`` always, ``copy=False`` never (``ValueError``
    when needed).  The ndarray is a new object each call (a view of the
    engine's cached one), so a caller reshaping it in place cannot disturb
    dlarray's own view.
    """
    prepare_host_access(x, "__array__")
    base = _host_ndarray(x)
    if dtype is not None and np.dtype(dtype) != base.dtype:
        if copy is False:
            raise ValueError(
                f"__array__(dtype={np.dtype(dtype)}, copy=False): converting "
                f"{x.dtype.name} to {np.dtype(dtype)} needs a copy, and copy=False forbids one"
            )
        return base.astype(dtype)
    if copy:
        return base.copy()
    return base.view()


def _host_ndarray(x: DLArray) -> Any:
    """NumPy's view of memory the host can read.  Pinned, managed and SYCL
    shared/host memory are viewed through a twin of ``x`` labelled as host
    memory: NumPy reads them through the same addresses."""
    if x._dl_device == _HOST:
        return engine_view(x)
    return numpy_engine.to_numpy(retag(x, x.dtype, dl_device=_HOST))


_HOST = CPU.dlpack


# ---- copying and pickling ----


def copy_of(x: DLArray) -> DLArray:
    """``copy.copy(x)``: new memory of the same kind, C-contiguous, writable."""
    return copy_to_device(x, x.device)


# The pickle's format version: unpickle reads every version it was given.
_PICKLE_VERSION = 1


def reduce(x: DLArray, protocol: int) -> tuple[Any, ...]:
    """``x.__reduce_ex__(protocol)``: rebuild with :func:`unpickle` from the
    elements' bits, C-ordered, and where the array lived.

    The bits are those NumPy holds without ml_dtypes: the dtype's own for
    the standard's dtypes, unsigned integers of the same width for bfloat16
    and fp8, one byte per element for fp6/fp4 (with whether the array was
    padded), so every dtype pickles with NumPy alone.
    """
    host = x if x._dl_device == _HOST else copy_to_device(x, CPU)
    bits = numpy_engine.to_numpy(storage_codes(host))
    if not bits.flags.c_contiguous:
        bits = bits.copy()
    payload = pickle.PickleBuffer(bits) if protocol >= 5 else bits.tobytes()
    device = x.device
    state = (x.dtype.name, x.shape, x._padded, device.kind, device.index, payload)
    return (unpickle, (_PICKLE_VERSION, *state))


def storage_codes(x: DLArray) -> DLArray:
    """The elements of an extended floating array as the unsigned integers
    they are stored as: a view for bfloat16, fp8 and padded fp6/fp4, a new
    uint8 array for packed fp6/fp4 (whose elements have no byte of their
    own).  Arrays of the standard's dtypes come back as they are: NumPy
    holds those itself."""
    dtype = x.dtype
    if dtype not in _EXTENDED:
        return x
    if dtype.is_subbyte and not x._padded:
        return subbyte.to_codes(x)
    return retag(x, DTYPES_BY_NAME[f"uint{max(8, dtype.bits)}"], padded=False)


def unpickle(
    version: int,
    dtype_name: str,
    shape: tuple[int, ...],
    padded: bool,
    kind: str,
    index: int,
    payload: Any,
) -> DLArray:
    """Rebuild a pickled array (the inverse of :func:`reduce`), on the
    memory kind and index it was pickled from."""
    if version != _PICKLE_VERSION:
        raise ValueError(
            f"this pickle holds a dlarray array in format {version}; this dlarray reads "
            f"format {_PICKLE_VERSION}: unpickle it with the dlarray release that wrote it"
        )
    dtype = DTYPES_BY_NAME[dtype_name]
    if dtype.is_subbyte:
        codes = np.frombuffer(payload, dtype=np.uint8).reshape(shape)
        out = subbyte.from_codes(codes, dtype, padded=padded)
    else:
        out = empty(shape, dtype=dtype)
        target = numpy_engine.to_numpy(storage_codes(out))
        target[...] = np.frombuffer(payload, dtype=target.dtype).reshape(shape)
    if kind == CPU.kind:
        return out
    device = Device(kind, index)
    try:
        return copy_to_device(out, device)
    except BufferError as exc:  # CUDA or SYCL missing: the message says what to install
        raise type(exc)(
            f"pickle.loads: this array was pickled from {device}, and dlarray restores it "
            f"onto the same memory kind, which it cannot reach here: {exc}"
        ) from exc


# Pickles name the function that rebuilds an array; they outlive releases,
# so that name is a stable one (dlarray._unpickle, set in dlarray/__init__.py)
# rather than this module's place in the layers.
unpickle.__module__ = "dlarray"
unpickle.__qualname__ = unpickle.__name__ = "_unpickle"
