"""Turning namespace arguments into engine arrays, with the standard's checks.

Every elementwise function goes through :func:`unary` or :func:`binary`
here: they check types and dtype categories, apply the promotion and
Python-scalar rules of :mod:`dlarray._rules`, check devices, and return the
zero-copy engine views the engine computes on (converted to the result
dtype through the engine's standard namespace).  The common case (arrays of
one dtype on one device) takes a short path; everything else goes through
the general one, which also writes the error messages.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dlarray import subbyte
from dlarray._core import ArrayBase
from dlarray._dtypes import SCALAR_TYPES, DType, as_python_scalar
from dlarray._engine.numpy_engine import numpy_dtype
from dlarray._engine.routing import engine_dtype, engine_view, namespace_of
from dlarray._rules import (
    CATEGORIES,
    EXTENDED_FLOATS,
    check_dtype,
    common_device,
    promote,
    scalar_dtype,
)

# NumPy's scalar type per standard dtype: the cheapest 0-d operand to build
# for a NumPy array.
_SCALAR_TYPES = {d: numpy_dtype(d).type for d in CATEGORIES["all"]}
_ndarray = np.ndarray
_SUBBYTE = frozenset(d for d in EXTENDED_FLOATS if d.is_subbyte)


def readable(x: ArrayBase) -> ArrayBase:
    """``x``, or for a packed sub-byte (fp6/fp4) array a padded copy: packed
    elements have no bytes of their own for an engine to read, so functions
    that only read their arguments read them padded."""
    if x.dtype in _SUBBYTE and not x._padded:
        return subbyte.pad(x)
    return x


def unary(x: Any, allowed: frozenset[DType], category: str, func: str) -> Any:
    """The engine view of ``x`` after checking it is an array of ``category``."""
    if not isinstance(x, ArrayBase):
        raise TypeError(f"{func}: expected a dlarray array, got {type(x).__name__}")
    dtype = x.dtype
    if dtype not in allowed:
        check_dtype(dtype, category, func)
    if dtype in _SUBBYTE and not x._padded:
        x = subbyte.pad(x)  # readable(x), inline: this is every function's path
    return engine_view(x)


def scalar_array(value: Any, dtype: DType, func: str, like: Any) -> Any:
    """A Python scalar as a 0-d array of ``dtype`` (the standard's rule: the
    scalar takes the array's dtype), of the engine and on the device of the
    engine array ``like``."""
    try:
        if isinstance(value, int):  # an int out of range raises OverflowError
            return _engine_scalar(value, dtype, like)
        # A float beyond the dtype's range rounds to inf, as IEEE 754 says and
        # the host's fast path does quietly; NumPy's cast warns (through any
        # engine built on it), so it is silenced here.
        with np.errstate(over="ignore", invalid="ignore"):
            return _engine_scalar(value, dtype, like)
    except OverflowError:
        raise OverflowError(
            f"{func}: the Python int {value} does not fit in {dtype.name}; the Array API "
            f"leaves out-of-range scalars undefined, and dlarray refuses them"
        ) from None


def _engine_scalar(value: Any, dtype: DType, like: Any) -> Any:
    if type(like) is _ndarray:
        try:
            return _SCALAR_TYPES[dtype](value)
        except KeyError:
            pass
    xp = namespace_of(like)
    return xp.asarray(value, dtype=engine_dtype(xp, dtype), device=like.device)


def _array_and_scalar(
    x: ArrayBase,
    value: Any,
    allowed: frozenset[DType],
    category: str,
    func: str,
    scalar_first: bool = False,
) -> tuple[Any, Any, DType]:
    """Engine operands for an array and a Python scalar (in that order) and
    their result dtype, by the standard's scalar rules (``scalar_first``:
    the call had the scalar first, for the refusal's fix)."""
    dtype = scalar_dtype(value, x.dtype, func, scalar_first, category)
    if dtype not in allowed:
        check_dtype(x.dtype, category, func)
    a = engine_view(readable(x))
    if dtype is not x.dtype:
        a = astype(a, dtype)
    return a, scalar_array(value, dtype, func, a), dtype


def astype(a: Any, dtype: DType) -> Any:
    """Engine array ``a`` converted to dlarray's ``dtype`` (a new array)."""
    xp = namespace_of(a)
    return xp.astype(a, engine_dtype(xp, dtype))


def binary(
    x1: Any, x2: Any, allowed: frozenset[DType], category: str, func: str
) -> tuple[Any, Any, DType]:
    """Engine views of two operands and the dtype of their result.

    One of ``x1``, ``x2`` may be a Python scalar; it takes the dtype of the
    other operand (or the complex type of its precision, for a ``complex``
    with a real floating array).
    """
    t1, t2 = type(x1), type(x2)
    if isinstance(x1, ArrayBase) and isinstance(x2, ArrayBase):
        d1, d2 = x1.dtype, x2.dtype
        dtype = d1 if d1 is d2 else promote(d1, d2, func, category)
        if dtype not in allowed:
            # Name the operand that is outside the category, not the result.
            check_dtype(d1 if d1 not in allowed else d2, category, func)
        dev1, dev2 = x1.device, x2.device
        if dev1 is not dev2 and dev1 != dev2:
            common_device((x1, x2), func)
        if dtype in _SUBBYTE:
            x1, x2 = readable(x1), readable(x2)
        a1, a2 = engine_view(x1), engine_view(x2)
        if d1 is not dtype:
            a1 = astype(a1, dtype)
        if d2 is not dtype:
            a2 = astype(a2, dtype)
        return a1, a2, dtype
    if isinstance(x1, ArrayBase) and t2 in SCALAR_TYPES:
        a1, a2, dtype = _array_and_scalar(x1, x2, allowed, category, func)
        return a1, a2, dtype
    if isinstance(x2, ArrayBase) and t1 in SCALAR_TYPES:
        a2, a1, dtype = _array_and_scalar(x2, x1, allowed, category, func, scalar_first=True)
        return a1, a2, dtype
    if t1 in SCALAR_TYPES and t2 in SCALAR_TYPES:
        raise TypeError(f"{func}: at least one argument must be a dlarray array, got two scalars")
    # Instances of subclasses of Python's scalar types (numpy.float64 is a
    # float) are the Python scalars they subclass.
    s1, s2 = as_python_scalar(x1), as_python_scalar(x2)
    if (s1 is not None and t1 not in SCALAR_TYPES) or (s2 is not None and t2 not in SCALAR_TYPES):
        return binary(x1 if s1 is None else s1, x2 if s2 is None else s2, allowed, category, func)
    bad = x2 if isinstance(x1, ArrayBase) or t1 in SCALAR_TYPES else x1
    raise TypeError(
        f"{func}: expected dlarray arrays or Python scalars, got {type(bad).__name__}; "
        f"convert it with dlarray.asarray first"
    )
