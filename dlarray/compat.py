"""``dlarray.compat``: dlarray's namespace with NumPy's mixed-kind promotions.

``dlarray`` follows the Array API standard strictly: it refuses the type
promotions the standard leaves out (an integer array with a floating one,
``int64`` with ``uint64``, a bool array in arithmetic), so that library
authors learn when their code is not portable.  Engines written against
NumPy rely on some of them: Cubed's ``mean`` divides a ``float64`` total by
an ``int64`` count (cubed/array_api/statistical_functions.py, ``nxp.divide(
a["total"], a["n"])``).  Point such an engine at this module instead
(``CUBED_BACKEND_ARRAY_API_MODULE=dlarray.compat``).

Everything here is ``dlarray``'s, with these departures, each NumPy's rule:

1. **Mixed kinds in the two-operand elementwise functions** (:data:`BINARY`)
   and in ``where``: where the standard defines no promotion, both arrays
   are cast to ``numpy.result_type`` of their dtypes (``int64`` with
   ``float32`` gives ``float64``; ``int64`` with ``uint64`` gives
   ``float64``; ``bool`` with ``int8`` gives ``int8``), then dlarray's
   function runs.  Where the function takes no such dtype (the bitwise
   functions of ``int64`` and ``uint64`` would meet in ``float64``), NumPy
   refuses and so does dlarray's own ``TypeError``.  A signed integer with
   ``uint64`` meets in ``float64`` as in NumPy, each operand rounded to
   ``float64`` first: arithmetic gives NumPy's numbers (past 2**53, those of
   the rounded operands), ``maximum``, ``minimum`` and ``where`` the exact
   answer rounded once.
2. **Comparisons of integers are exact**, as NumPy's are: ``equal``,
   ``not_equal``, ``less``, ``less_equal``, ``greater`` and ``greater_equal``
   of a signed integer array with a ``uint64`` one compare the integers,
   not their ``float64`` roundings (which make 2**63 - 1 equal 2**63); and
   an integer array compared with a Python ``int`` outside its dtype's range
   (2**63 with ``int64``, -1 with ``uint64``, 300 with ``uint8``) gives the
   answer for every element, where dlarray raises ``OverflowError``.  An
   integer with a floating operand compares in the floating dtype, as in
   NumPy (``equal(int64 2**53 + 1, float64 2**53)`` is True in both).
3. **Python scalars of a higher kind** in those functions: a ``float``
   with an integer or bool array gives ``float64``, a ``complex`` with a
   real array ``complex128``, an ``int`` with a bool array ``int64`` (NumPy
   2's rules for Python scalars, NEP 50).
4. **mean(x, dtype=...)** computes in ``dtype`` (``x`` cast first), as
   NumPy's ``mean`` does; the standard's ``mean`` has no ``dtype`` (Cubed's
   ``var`` passes one).  In an integer ``dtype`` the result is the mean
   truncated towards zero, in ``dtype`` (``mean([1, 2], dtype=int64)`` is
   ``1``), computed exactly: NumPy sums in ``dtype`` (wrapping on overflow)
   and divides in ``float64`` (rounding past 2**53), so its answer agrees
   where those are exact and is wrong elsewhere (``mean([2**53 + 1])`` is
   2**53 in NumPy).  ``dtype=bool`` raises ``TypeError`` (NumPy answers
   whether any element is nonzero), and an integer mean of no elements
   ``ValueError`` (NumPy warns and returns an arbitrary integer).
5. **take(x, i, axis=...)** with a Python ``int`` index takes that one
   element along ``axis`` and drops the axis, as ``numpy.take`` does; the
   standard's ``take`` wants an array of indices (Cubed's ``var`` passes an
   ``int``).  As in NumPy, a 0-d ``x`` counts as one element, and an axis
   outside ``-ndim <= axis < ndim`` raises dlarray's ``AxisError`` (a
   ``ValueError`` and an ``IndexError``, as NumPy's is).
6. **result_type** and **can_cast** follow the same promotions: ``result_type``
   answers NumPy's promotion where the standard has none, and
   ``can_cast(from_, to)`` answers NumPy's ``can_cast(..., casting="safe")``.

Where NumPy's promotion gives a dtype dlarray lacks, or an extended float
(float16, bfloat16, fp8, fp6, fp4) takes part, the standard's ``TypeError``
stands: dlarray mixes those with no other dtype.
Arrays keep ``dlarray`` as their ``__array_namespace__()``: this module is
for engines that are handed a namespace, not a replacement of it.

Examples
--------
>>> import dlarray, dlarray.compat as xp
>>> total = dlarray.asarray([3.0, 5.0])
>>> count = dlarray.asarray([2, 2])
>>> xp.divide(total, count)
dlarray.asarray([1.5, 2.5], dtype=dlarray.float64)
>>> xp.add(count, 0.5).dtype, xp.result_type(dlarray.int64, dlarray.float32)
(dlarray.float64, dlarray.float64)
>>> big = dlarray.asarray([2**63], dtype=dlarray.uint64)
>>> xp.less(dlarray.asarray([2**63 - 1]), big), xp.equal(dlarray.asarray([-1]), 2**64 - 1)
(dlarray.asarray([True], dtype=dlarray.bool), dlarray.asarray([False], dtype=dlarray.bool))
>>> xp.mean(dlarray.asarray([1, 2]), dtype=dlarray.int64)
dlarray.asarray(1, dtype=dlarray.int64)
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

import dlarray
from dlarray._core import ArrayBase
from dlarray._dtypes import DType, dtype_argument
from dlarray._rules import (
    BINARY_INPUTS,
    CATEGORIES,
    NUMPY_PROMOTING,
    allowed_dtypes,
    normalize_axes,
    normalize_axis,
    numpy_promotion,
)

# Everything of dlarray's namespace, then the departures over it (dlarray.bool
# and its kin shadow the builtins here: this module writes builtins.bool).
globals().update({name: getattr(dlarray, name) for name in dlarray.__all__})

__all__ = [*dlarray.__all__]

#: The two-operand elementwise functions that take NumPy's mixed-kind
#: promotions: those the refusals name (``_rules.NUMPY_PROMOTING``) but
#: ``where`` and ``result_type``, which this module defines below.
BINARY: tuple[str, ...] = tuple(sorted(NUMPY_PROMOTING - {"where", "result_type"}))

#: Each comparison's answer where its first operand is the smaller, and where
#: it is the larger: what the exact comparisons of integers of two signs need.
_ANSWER_BELOW_ABOVE: dict[str, tuple[builtins.bool, builtins.bool]] = {
    "equal": (False, False),
    "not_equal": (True, True),
    "less": (True, False),
    "less_equal": (True, False),
    "greater": (False, True),
    "greater_equal": (False, True),
}

_INTEGER = CATEGORIES["integer"]
_SIGNED = CATEGORIES["signed integer"]

# The exact integer mean sums remainders below its count in int64: at most
# count * (count - 1), which fits for counts up to this one.
_EXACT_MEAN_MOST = math.isqrt(2**63 - 1)


def _promoted(name: str, category: str, *operands: Any) -> tuple[Any, ...]:
    """The operands, arrays cast to NumPy's promotion where the standard has
    none (and unchanged where it has one, or NumPy's gives no dlarray dtype,
    or one outside ``name``'s ``category``: then dlarray's own error stands,
    as NumPy refuses too)."""
    try:
        dlarray.result_type(*operands)
        return operands
    except (TypeError, ValueError):
        pass
    target = numpy_promotion(*operands)
    if target is None or target not in allowed_dtypes(category, name):
        return operands
    return tuple(
        dlarray.astype(o, target) if isinstance(o, ArrayBase) and o.dtype is not target else o
        for o in operands
    )


def _is_python_int(value: Any) -> builtins.bool:
    return isinstance(value, builtins.int) and not isinstance(value, builtins.bool)


def _exact_comparison(name: str, x1: Any, x2: Any) -> Any:
    """``name(x1, x2)`` of integers NumPy compares exactly and that dlarray
    either refuses or NumPy's promotion would round; None for any other pair."""
    below, above = _ANSWER_BELOW_ABOVE[name]
    for array, other in ((x1, x2), (x2, x1)):
        # An integer array and a Python int beyond its dtype: every element
        # lies on the same side of it.
        if isinstance(array, ArrayBase) and array.dtype in _INTEGER and _is_python_int(other):
            limits = np.iinfo(array.dtype.dtype)
            if limits.min <= other <= limits.max:
                return None
            x1_below = (other > limits.max) == (array is x1)
            return dlarray.full_like(array, below if x1_below else above, dtype=dlarray.bool)
    if not (isinstance(x1, ArrayBase) and isinstance(x2, ArrayBase)):
        return None
    if not (x1.dtype in _INTEGER and x2.dtype in _INTEGER) or (
        (x1.dtype in _SIGNED) == (x2.dtype in _SIGNED)
    ):
        return None
    if x1.dtype is not dlarray.uint64 and x2.dtype is not dlarray.uint64:
        return None  # the standard's promotion holds both exactly
    # A signed integer with uint64: where the signed one is negative the answer
    # is known; elsewhere it converts to uint64 exactly (the cast wraps the
    # negatives, whose answers the mask gives).
    strict = getattr(dlarray, name)
    signed = x1 if x1.dtype in _SIGNED else x2
    negative = dlarray.less(signed, 0)
    unsigned = dlarray.astype(signed, dlarray.uint64)
    if signed is x1:
        compared, answer = strict(unsigned, x2), below
    else:
        compared, answer = strict(x1, unsigned), above
    if answer:
        return dlarray.logical_or(negative, compared)
    return dlarray.logical_and(dlarray.logical_not(negative), compared)


def _binary(name: str) -> Any:
    strict = getattr(dlarray, name)
    category = BINARY_INPUTS[name]

    def function(x1: Any, x2: Any, /) -> Any:
        return strict(*_promoted(name, category, x1, x2))

    def comparison(x1: Any, x2: Any, /) -> Any:
        exact = _exact_comparison(name, x1, x2)
        return function(x1, x2) if exact is None else exact

    made = comparison if name in _ANSWER_BELOW_ABOVE else function
    made.__name__ = made.__qualname__ = name
    made.__doc__ = f"``dlarray.{name}`` with NumPy's mixed-kind promotions (see dlarray.compat)."
    return made


for _name in BINARY:
    globals()[_name] = _binary(_name)


def where(condition: Any, x1: Any, x2: Any, /) -> Any:
    """``dlarray.where`` with NumPy's mixed-kind promotions of ``x1`` and ``x2``."""
    return dlarray.where(condition, *_promoted("where", "all", x1, x2))


def mean(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False, dtype: Any = None) -> Any:
    """``dlarray.mean``, computed in ``dtype`` when one is given (NumPy's
    ``mean``); in an integer ``dtype``, the exact mean truncated towards zero."""
    if dtype is None:
        return dlarray.mean(x, axis=axis, keepdims=keepdims)
    if not isinstance(x, ArrayBase):
        raise TypeError(f"mean: x must be a dlarray array, got {type(x).__name__}")
    wanted = dtype_argument(dtype)
    if wanted is dlarray.bool:
        raise TypeError(
            "mean: dtype=bool has no mean (NumPy's answers whether any element is nonzero); "
            "pass a numeric dtype, or use dlarray.any"
        )
    if wanted in _INTEGER:
        return _integer_mean(x, wanted, axis, keepdims)
    return dlarray.mean(dlarray.astype(x, dtype, copy=False), axis=axis, keepdims=keepdims)


def _integer_mean(x: Any, dtype: DType, axis: Any, keepdims: builtins.bool) -> Any:
    """The mean of ``x`` cast to the integer ``dtype`` along ``axis``,
    truncated towards zero, exactly, in ``dtype`` (it lies between the
    smallest and the largest element, so it fits)."""
    axes = normalize_axes(axis, x.ndim, "mean")
    count = math.prod(x.shape[a] for a in axes)
    # Both refusals come before the cast, which copies x.
    means = math.prod(x.shape[a] for a in range(x.ndim) if a not in axes)
    if count == 0 and means:
        raise ValueError(
            f"mean: the mean of no elements (axis {axis!r} of shape {x.shape}) has no value "
            f"in {dtype.name}; compute in a floating dtype for NaN"
        )
    if count == 0:  # and no means to compute: an empty result
        return dlarray.sum(dlarray.astype(x, dtype), axis=axes, keepdims=keepdims, dtype=dtype)
    if count > _EXACT_MEAN_MOST:
        raise ValueError(
            f"mean: an exact {dtype.name} mean of {count} elements is not implemented "
            f"(at most {_EXACT_MEAN_MOST}); compute in a floating dtype"
        )
    # Each element is count * quotient + remainder (0 <= remainder < count),
    # so floor(mean) = sum(quotients) + sum(remainders) // count.  The sums
    # may wrap on the way, harmlessly (integer sums are modular and the
    # result is in range); the remainders' sum is below count**2.
    wide = dlarray.int64 if dtype in _SIGNED else dlarray.uint64
    values = dlarray.astype(dlarray.astype(x, dtype, copy=False), wide, copy=False)

    def total(part: Any) -> Any:
        return dlarray.sum(part, axis=axes, keepdims=keepdims, dtype=wide)

    remainders = total(dlarray.remainder(values, count))
    floor = dlarray.add(
        total(dlarray.floor_divide(values, count)), dlarray.floor_divide(remainders, count)
    )
    # Truncation towards zero moves an inexact negative mean up by one.
    inexact_negative = dlarray.logical_and(
        dlarray.less(floor, 0), dlarray.not_equal(dlarray.remainder(remainders, count), 0)
    )
    truncated = dlarray.add(floor, dlarray.astype(inexact_negative, wide))
    return dlarray.astype(truncated, dtype, copy=False)


def take(x: Any, indices: Any, /, *, axis: Any = None) -> Any:
    """``dlarray.take``; a Python ``int`` index takes one element along
    ``axis`` and drops the axis (``numpy.take``, which counts a 0-d ``x`` as
    one element)."""
    if _is_python_int(indices):
        if axis is None or x.ndim == 0:
            flat = dlarray.reshape(x, (-1,))
            if axis is not None:
                normalize_axis(axis, 1, "take")
            return flat[indices]
        position = normalize_axis(axis, x.ndim, "take")
        return x[(slice(None),) * position + (indices, Ellipsis)]
    return dlarray.take(x, indices) if axis is None else dlarray.take(x, indices, axis=axis)


def result_type(*arrays_and_dtypes: Any) -> DType:
    """``dlarray.result_type``, or NumPy's promotion where the standard has none."""
    try:
        return dlarray.result_type(*arrays_and_dtypes)
    except TypeError:
        found = numpy_promotion(*arrays_and_dtypes)
        if found is None:
            raise
        return found


def can_cast(from_: Any, to: Any, /) -> bool:
    """NumPy's ``can_cast(from_, to, casting="safe")``, for dlarray dtypes and arrays."""
    source = from_.dtype if isinstance(from_, ArrayBase) else dtype_argument(from_)
    target = dtype_argument(to)
    if source is None or target is None:
        return builtins.bool(dlarray.can_cast(from_, to))  # dlarray's own TypeError
    if "extended floating" in (source.kind, target.kind):
        return builtins.bool(dlarray.can_cast(source, target))
    return builtins.bool(np.can_cast(source.dtype, target.dtype, casting="safe"))
