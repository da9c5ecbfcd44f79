"""Data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type.

``astype`` converts through the engine's standard ``astype`` on the array's
device; the others answer from dlarray's own dtype rules
(:mod:`dlarray._rules`) and, for ``finfo``/``iinfo``, NumPy's description of
the host dtypes (for bfloat16 and the fp8/fp6/fp4 formats, dlarray's own
table of their bit layouts, :mod:`dlarray._float_formats`): metadata, with no
array involved.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

import dlarray._float_formats as float_formats
from dlarray._api._operands import readable
from dlarray._core import ArrayBase
from dlarray._creation import cast
from dlarray._device import as_device
from dlarray._dtypes import DType, dtype_argument
from dlarray._engine.numpy_engine import numpy_dtype
from dlarray._rules import CATEGORIES, EXTENDED_FLOATS, KINDS, REAL_OF, promote
from dlarray._rules import result_type as _result_type
from dlarray._storage.allocation import check_allocatable
from dlarray._transfer import copy_array, copy_to_device

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]


def astype(x: ArrayBase, dtype: DType, /, *, copy: bool = True, device: Any = None) -> ArrayBase:
    """``x`` converted to ``dtype``.

    ``copy=False`` returns ``x`` itself when no conversion (and no device
    move) is needed.  Casting a complex array to a real or integer dtype is
    refused with ``TypeError``: the standard leaves it unspecified and it
    would silently drop the imaginary part.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, ``dtype`` is not a dlarray dtype (names are
        not accepted here, as in the standard), ``device`` is not a device, or
        the cast would drop an imaginary part (complex to real or integer).
    ValueError
        If ``device`` names an unknown kind.
    BufferError
        If the array cannot be moved to ``device``
        (:class:`dlarray.CUDAUnavailableError`,
        :class:`dlarray.SYCLUnavailableError`).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.astype(xp.asarray([1.7, -1.7]), xp.int32)
    dlarray.asarray([1, -1], dtype=dlarray.int32)
    """
    if not isinstance(x, ArrayBase):
        raise TypeError(f"astype: expected a dlarray array, got {type(x).__name__}")
    if (wanted := dtype_argument(dtype)) is None:
        raise TypeError(f"astype: dtype must be a dlarray dtype, got {dtype!r}")
    dtype = wanted
    if x.dtype in CATEGORIES["complex floating"] and dtype not in CATEGORIES["complex floating"]:
        raise TypeError(
            f"astype: casting {x.dtype.name} to {dtype.name} would drop the imaginary part; "
            f"take dlarray.real(x) or dlarray.abs(x) first"
        )
    target = x.device if device is None else as_device(device)
    if target != x.device:
        check_allocatable(target)
    if dtype is not x.dtype:
        # The engine's astype, on x's device (float -> int of NaN or inf is
        # unspecified there, and converts without a warning); a packed
        # fp6/fp4 array is read padded, and an fp6/fp4 result is padded.
        x = cast(readable(x), dtype)
    elif copy and target == x.device:
        return copy_array(x)
    return x if target == x.device else copy_to_device(x, target)


def _dtype_of(value: Any, func: str) -> DType:
    if isinstance(value, ArrayBase):
        return value.dtype
    if (dtype := dtype_argument(value)) is not None:
        return dtype
    raise TypeError(f"{func}: expected a dlarray dtype or array, got {value!r}")


def can_cast(from_: DType | ArrayBase, to: DType, /) -> bool:
    """Whether the standard's promotion rules can turn ``from_`` into ``to``.

    Raises
    ------
    TypeError
        If ``from_`` is neither a dlarray dtype nor a DLArray, or ``to`` is
        not a dlarray dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.can_cast(xp.int8, xp.int32), xp.can_cast(xp.int32, xp.float64)
    (True, False)
    """
    source, target = _dtype_of(from_, "can_cast"), _dtype_of(to, "can_cast")
    try:
        return promote(source, target) is target
    except TypeError:
        return False


@dataclass(frozen=True)
class finfo_object:
    """Machine limits of a floating-point dtype (what :func:`finfo` returns).

    A frozen dataclass.  For a complex dtype the fields describe its real
    component dtype, which ``dtype`` names.

    Examples
    --------
    >>> import dlarray as xp
    >>> fi = xp.finfo(xp.float32)
    >>> fi.bits, fi.dtype
    (32, dlarray.float32)
    >>> fi.eps == 2.0**-23, fi.smallest_normal == 2.0**-126, fi.min == -fi.max
    (True, True, True)
    >>> xp.finfo(xp.complex64).dtype
    dlarray.float32
    """

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclass(frozen=True)
class iinfo_object:
    """Machine limits of an integer dtype (what :func:`iinfo` returns).

    A frozen dataclass.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.iinfo(xp.int8)
    iinfo_object(bits=8, max=127, min=-128, dtype=dlarray.int8)
    >>> xp.iinfo(xp.uint16).max
    65535
    """

    bits: int
    max: int
    min: int
    dtype: DType


def finfo(type: DType | ArrayBase, /) -> finfo_object:
    """Limits of a floating-point dtype (or of an array's dtype).

    For a complex dtype the limits are those of its real component dtype.
    float16, bfloat16 and the fp8/fp6/fp4 formats, which the standard does
    not define, have theirs too (the values ``ml_dtypes.finfo`` gives; for
    the unsigned float8_e8m0fnu, ``min`` is its smallest value).

    Raises
    ------
    TypeError
        If the argument is neither a dlarray dtype nor a DLArray, or its dtype
        is not a floating dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.finfo(xp.float32).bits, xp.finfo(xp.complex128).dtype
    (32, dlarray.float64)
    >>> fi = xp.finfo(xp.float8_e4m3fn)
    >>> fi.bits, fi.max, fi.min, fi.eps, fi.smallest_normal
    (8, 448.0, -448.0, 0.125, 0.015625)
    """
    d = _dtype_of(type, "finfo")
    if d in float_formats.FORMATS:
        return _format_finfo(float_formats.FORMATS[d])
    if d not in CATEGORIES["floating-point"] and d not in EXTENDED_FLOATS:
        raise TypeError(f"finfo: {d.name} is not a floating-point dtype; use iinfo for integers")
    real = REAL_OF.get(d, d)
    info = np.finfo(numpy_dtype(real))
    return finfo_object(
        bits=real.bits,
        eps=float(info.eps),
        max=float(info.max),
        min=float(info.min),
        smallest_normal=float(info.smallest_normal),
        dtype=real,
    )


def _format_finfo(f: float_formats.FloatFormat) -> finfo_object:
    """The limits of bfloat16 or an fp8/fp6/fp4 format, from its bit layout
    (the values ``ml_dtypes.finfo`` gives): ``min`` is ``-max``, or for the
    unsigned float8_e8m0fnu its smallest value."""
    codes = range(1 << f.bits)
    finite = [v for v in float_formats.decode_all(codes, f.dtype) if math.isfinite(v)]
    largest = max(finite)
    # The smallest normal number has exponent field 1 where exponent 0 holds
    # the subnormals, else exponent field 0.
    lowest_normal_exponent = 1 if f.convention.subnormals else 0
    return finfo_object(
        bits=f.bits,
        eps=math.ldexp(1.0, -f.mantissa_bits),
        max=largest,
        min=-largest if f.convention.signed else min(finite),
        smallest_normal=math.ldexp(1.0, lowest_normal_exponent - f.bias),
        dtype=f.dtype,
    )


def iinfo(type: DType | ArrayBase, /) -> iinfo_object:
    """Limits of an integer dtype (or of an array's dtype).

    Raises
    ------
    TypeError
        If the argument is neither a dlarray dtype nor a DLArray, or its dtype
        is not an integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.iinfo(xp.int8).min, xp.iinfo(xp.uint16).max
    (-128, 65535)
    """
    d = _dtype_of(type, "iinfo")
    if d not in CATEGORIES["integer"]:
        raise TypeError(f"iinfo: {d.name} is not an integer dtype; use finfo for floats")
    info = np.iinfo(numpy_dtype(d))
    return iinfo_object(bits=d.bits, max=int(info.max), min=int(info.min), dtype=d)


def isdtype(dtype: DType, kind: DType | str | tuple[DType | str, ...]) -> bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name ("bool",
    "signed integer", "unsigned integer", "integral", "real floating",
    "complex floating", "numeric"), or a tuple of those.

    Raises
    ------
    TypeError
        If ``dtype`` is not a dlarray dtype, or ``kind`` is neither a dtype, a
        kind name nor a tuple of them.
    ValueError
        If ``kind`` is an unknown kind name.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.isdtype(xp.int8, "integral"), xp.isdtype(xp.float32, ("bool", xp.float64))
    (True, False)
    """
    if (checked := dtype_argument(dtype)) is None:
        raise TypeError(f"isdtype: dtype must be a dlarray dtype, got {dtype!r}")
    dtype = checked
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if (kind_dtype := dtype_argument(kind)) is not None:
        return dtype is kind_dtype
    if isinstance(kind, str):
        try:
            return dtype in KINDS[kind]
        except KeyError:
            raise ValueError(
                f"isdtype: unknown kind {kind!r}; known kinds: {', '.join(KINDS)}"
            ) from None
    raise TypeError(f"isdtype: kind must be a dtype, a kind name or a tuple, got {kind!r}")


def result_type(*arrays_and_dtypes: Any) -> DType:
    """The dtype the standard's promotion rules give for arrays, dtypes and
    Python scalars together.

    Python scalars count only after all arrays and dtypes, and at least one
    array or dtype must be given (``ValueError`` otherwise).  Dtypes that
    the promotion table does not join (a signed integer and a float, say)
    raise ``TypeError``.  The rules themselves are in ``dlarray/_rules.py``
    (``result_type``, ``promote``).

    A dtype with itself is itself, for every dtype; float16, bfloat16 and
    the fp8/fp6/fp4 formats, outside the standard, promote with no other
    dtype and take no Python scalar (see docs/api/dtypes.md).

    Raises
    ------
    TypeError
        If an argument is not an array, a dtype or a Python scalar, two dtypes
        have no promotion (no mixing of kinds, and none between a dtype outside
        the Array API and another), or a scalar does not fit the result's kind.
    ValueError
        If no array or dtype is given.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.result_type(xp.int8, xp.uint8)
    dlarray.int16
    >>> xp.result_type(xp.asarray([1.0], dtype=xp.float32), 2.5)  # a scalar keeps float32
    dlarray.float32
    """
    return _result_type(*arrays_and_dtypes)
