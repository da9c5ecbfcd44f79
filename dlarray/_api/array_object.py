"""The array object's operators and protocols that are more than a
namespace call.

Binary operators call the namespace function of the same meaning directly
(``dlarray._array._forward``); the in-place forms, the conversions to
Python scalars, ``round``/``format``, NumPy's ``__array__``, copying and
pickling have rules of their own, kept here (``repr`` and ``str`` are
dlarray._api.printing's).  The array object reaches them
through ``dlarray._array.DELEGATES``, which dlarray/__init__.py fills.

What computes here computes through the engine's standard namespace, on
any engine; NumPy's ``__array__``, pickling and unpickling read and write
host memory (or a host copy) with NumPy itself.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np

import dlarray._core as _core
import dlarray._float_formats as float_formats
from dlarray import subbyte
from dlarray._api._operands import binary
from dlarray._api.elementwise import BINARY_CATEGORIES, FUNCTIONS, KERNELS
from dlarray._array import DELEGATES, DLArray, retag
from dlarray._creation import empty
from dlarray._device import CPU, Device
from dlarray._dtypes import DTYPES_BY_NAME, DType
from dlarray._engine import numpy_engine
from dlarray._engine.routing import call, engine_view, namespace_of, wrap, write
from dlarray._rules import (
    CATEGORIES,
    DEFAULT_DTYPES,
    EXTENDED_FLOATS,
    REAL_OF,
    check_dtype,
    common_device,
)
from dlarray._storage.family import prepare_host_access
from dlarray._transfer import copy_to_device

_INTEGER = CATEGORIES["integer"]
_REAL_FLOATING = CATEGORIES["real floating"]
_INT_MAX = {
    d: (1 << (d.bits - 1)) - 1 if d.kind == "signed integer" else (1 << d.bits) - 1
    for d in _INTEGER
}
_EXTENDED = frozenset(float_formats.FORMATS)
# float16, bfloat16 and the fp8/fp6/fp4 formats are real numbers outside the
# Array API's dtypes: they convert with int(), float(), complex() and bool().
_CONVERSION_CATEGORY = {
    "all": CATEGORIES["all"] | EXTENDED_FLOATS,
    "integer": CATEGORIES["integer"],
    "real-valued or bool": CATEGORIES["real-valued"] | CATEGORIES["bool"] | EXTENDED_FLOATS,
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
    checked before anything is written.  The engine then computes
    ``name(x, other)`` and writes it into ``x``'s memory with the standard's
    ``__setitem__``; the NumPy engine writes a ufunc's result there directly
    (its ``out=``, as NumPy's own ``x += y`` does: see :func:`_in_place_kernel`).
    """
    check_writable(x, f"in-place {name}")
    if name == "matmul":
        return _assign(name, x, DELEGATES[name](x, other))
    allowed = KERNELS[name][1]
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
    other_shape = a2.shape
    if other_shape != x.shape and other_shape != ():
        _check_broadcast(name, x, other_shape)
    # In the engine call's quiet floating-point context: the standard's
    # special values (1/0 = inf) are results, not warnings.
    call(_in_place_kernel(a1, name), a1, a2, a1)
    return x


# (engine array type, function name) -> the kernel that writes the function's
# result into its third argument.
_IN_PLACE: dict[tuple[type, str], Any] = {}


def _in_place_kernel(a: Any, name: str) -> Any:
    """The kernel ``kernel(x1, x2, out)`` that writes ``name(x1, x2)`` into
    ``out`` (and returns it), for engine arrays like ``a``: the engine's
    own where its namespace has one (``_dlarray_in_place``, a NumPy engine
    fix that writes a ufunc's result straight into ``out``), else the
    standard's: compute, then ``out[...] = result``."""
    key = (type(a), name)
    try:
        return _IN_PLACE[key]
    except KeyError:
        pass
    xp = namespace_of(a)
    make = getattr(xp, "_dlarray_in_place", _computed_then_written)
    kernel = _IN_PLACE[key] = make(getattr(xp, name))
    return kernel


def _computed_then_written(function: Any) -> Any:
    def kernel(x1: Any, x2: Any, out: Any) -> Any:
        write(out, Ellipsis, function(x1, x2))
        return out

    return kernel


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
    write(engine_view(x), Ellipsis, engine_view(result))  # the standard's __setitem__
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
    """What ``bool(x)``, ``int(x)``... convert: the 0-d engine array itself
    (the standard's ``__bool__``, ``__int__``... convert it, on any engine,
    without NumPy's ``item()``), or the Python float an extended floating
    array holds.

    Arrays with other than zero axes raise ``TypeError``, as do dtypes the
    conversion does not accept (``int()`` of a complex array, ``__index__``
    of a float array).
    """
    if x.ndim != 0:
        raise TypeError(
            f"{method}: only a 0-d array converts to a Python scalar; this one has shape {x.shape}"
        )
    dtype = x.dtype
    if dtype not in _CONVERSION_CATEGORY[category]:
        raise TypeError(f"{method}: needs a {category} array, got dtype {dtype.name}")
    if dtype in _EXTENDED:
        return _extended_value(x)
    return engine_view(x)


def _extended_value(x: DLArray) -> float:
    """The number a 0-d extended floating array holds, decoded from its
    storage bits by dlarray's own table of the formats (no ml_dtypes, and
    the same on every engine)."""
    code = int(engine_view(storage_codes(x)))
    return float_formats.decode(code, x.dtype)


# The Python type of the numbers of each dtype kind.
_PYTHON_TYPES: dict[str, Any] = {
    "bool": bool,
    "signed integer": int,
    "unsigned integer": int,
    "real floating": float,
    "complex floating": complex,
}


def _python_value(x: DLArray) -> Any:
    """The Python number a 0-d array holds (bool, int, float or complex;
    float for the extended floating formats)."""
    if x.dtype in _EXTENDED:
        return _extended_value(x)
    return _PYTHON_TYPES[x.dtype.kind](engine_view(x))


def round_to(x: DLArray, ndigits: int | None) -> DLArray:
    """``round(x)`` and ``round(x, ndigits)`` (see ``DLArray.__round__``)."""
    if ndigits is None:
        return FUNCTIONS["round"](x)
    if not isinstance(ndigits, int) or isinstance(ndigits, bool):
        raise TypeError(f"round(x, ndigits): ndigits must be an int, got {ndigits!r}")
    if not isinstance(x, DLArray):
        raise TypeError(f"round: expected a dlarray array, got {type(x).__name__}")
    check_dtype(x.dtype, "numeric", "round")
    a = engine_view(x)
    xp = namespace_of(a)
    if x.dtype in _INTEGER:
        if ndigits >= 0:  # integers have no decimals to round
            return wrap(xp.asarray(a, copy=True))
        return wrap(_round_integers(xp, a, _INT_MAX[x.dtype], 10**-ndigits))
    if x.dtype in _REAL_FLOATING:
        # In the engine call's quiet context: a scaled value may overflow.
        return call(_round_floats, xp, a, ndigits)
    # Complex: each part rounds on its own in real arithmetic, as NumPy's
    # round does, through views of the numbers as (real, imaginary) pairs.
    # (A complex division by the scale multiplies by its reciprocal, an ulp
    # off, and a complex product makes an infinite part's partner NaN.)
    parts = call(_round_floats, xp, engine_view(_as_pairs(x)), ndigits)
    out = empty(x.shape, dtype=x.dtype, device=x.device)
    write(engine_view(_as_pairs(out)), Ellipsis, engine_view(parts))
    return out


def _as_pairs(x: DLArray) -> DLArray:
    """A complex array's memory viewed as real numbers with one more axis,
    of length 2: each number's real and imaginary parts."""
    strides = (*(2 * s for s in x._strides), 1)
    flags = _core.ARRAY_READONLY if x._readonly else 0
    real = REAL_OF[x.dtype].dlpack
    return _core.new_array(
        x._owner, x._data, x._byte_offset, (*x.shape, 2), strides, real, x._dl_device, flags
    )


def _round_floats(xp: Any, a: Any, ndigits: int) -> Any:
    """NumPy's rounding of real floats to decimals, in the standard: scale
    by a power of ten, round half to even, scale back."""
    try:
        scale = 10.0 ** abs(ndigits)
    except OverflowError:  # more decimals than a float has: nothing to round
        if ndigits > 0:
            return xp.asarray(a, copy=True)
        return xp.where(xp.isfinite(a), a * 0.0, a)  # every finite value rounds to 0
    if ndigits >= 0:
        return xp.round(a * scale) / scale
    return xp.round(a / scale) * scale


def _round_integers(xp: Any, a: Any, largest: int, p: int) -> Any:
    """Integers rounded to a multiple of ``p`` (a power of ten), half to
    even, exactly: no trip through floats."""
    if p > largest:  # every value is nearer 0 than p, or its multiple does not fit
        return xp.zeros_like(a)
    # a = toward_zero + rest, with rest of a's sign and |rest| < p; no step
    # can overflow (a floor towards -inf could: -128 // 100 * 100 in int8).
    rest = xp.remainder(a, p)  # 0 <= rest < p
    negative = a < 0
    rest = xp.where(negative & (rest != 0), rest - p, rest)
    toward_zero = a - rest
    size = xp.abs(rest)
    odd = xp.remainder(xp.floor_divide(toward_zero, p), 2) != 0
    away = (size > p - size) | ((size == p - size) & odd)
    return xp.where(away, xp.where(negative, toward_zero - p, toward_zero + p), toward_zero)


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
    """NumPy's view of memory the host can read (a NumPy view whatever the
    host engine: this is NumPy's protocol).  Pinned, managed and SYCL
    shared/host memory are viewed through a twin of ``x`` labelled as host
    memory: NumPy reads them through the same addresses."""
    if x._dl_device == _HOST:
        return numpy_engine.to_numpy(x)
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
