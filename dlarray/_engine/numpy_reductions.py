"""NumPy's reductions with the standard's signatures, at the speed of its
ufunc methods (entries of ``numpy_engine.FIXES``).

The chapters reduce through the standard on every engine:
``xp.sum(a, axis=..., dtype=..., keepdims=...)``.  NumPy's ``sum``,
``max``, ``all`` and ``argmax`` are Python wrappers (``_wrapreduction``)
around a ufunc's ``reduce`` or an array method, costing more than the
reduction of a small array, and a reduction over every axis returns a
NumPy scalar, which costs more to adopt than a 0-d array.  The functions
here call the ufunc method directly and write a reduction over every axis
into a 0-d array; their results are NumPy's own.

Except in one respect, accuracy: ``sum``, ``prod``, ``cumulative_sum`` and
``cumulative_prod`` of ``float32`` and ``complex64`` (the *single* dtypes)
meet the bounds that ``docs/guide/arrays.md`` states ("Accuracy of sums and
scans") in the dtype itself, so the chapters need not accumulate those in
double precision on this engine (``_dlarray_accurate_accumulation`` in
``numpy_engine.FIXES`` tells them).  Small or strided inputs accumulate in
double precision and round once; a large contiguous run takes a blocked
path at NumPy's own speed:

* ``sum``: the columns of a reshape ``(SUM_ROWS, n // SUM_ROWS)`` summed
  in single precision (elementwise adds of its rows, faster than NumPy's
  pairwise loop), the column sums added in double precision, rounded once;
* ``cumulative_sum``: a log-step (Hillis-Steele) scan inside each block,
  built from elementwise adds of shifted views, the blocks' totals scanned
  in double precision and added as carries before the last step.

Single-precision partial sums can overflow where the exact result does
not (+inf in one column, -inf in another, NaN in the total).  So a blocked
result is kept only where its error bound proves it finite and on the
right side of float32's overflow threshold (``_OVERFLOW``); otherwise the
double-precision path decides, which cannot overflow for float32 values.
Rounding a double-precision result to float32 can still misplace that
threshold, so results within their error bound of it are formed exactly
(integer limbs): a result is infinite exactly where the exact one rounds
to infinity.

``prod`` of ``float32`` keeps exponents apart from mantissas
(:func:`_row_products`), so no partial product overflows, underflows or
turns subnormal where the exact product does not, on every path; a cheap
range test lets small inputs (and long runs of factors very near 1) take
the direct double-precision product, in columns (``PROD_COLUMNS``) for a
large contiguous run.  ``cumulative_prod`` of ``float32`` keeps NumPy's
double-precision running product where its results prove it right, and
keeps exponents apart elsewhere (:func:`_running_products`).

``prod`` and ``cumulative_prod`` of ``complex64`` keep exponents apart the
same way (the section "complex64 prod and cumulative_prod"): each part of
the result is within ``(2**-24 + 3 * n * 2**-53) * abs(p)`` of the exact
part (``p`` the exact product, ``abs`` its modulus), and infinite exactly
where the exact part rounds to infinity, for finite factors; a row (or,
for the running products, a prefix) with an infinity or NaN keeps NumPy's
own order in complex128, whose result depends on it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

Kernel = Callable[..., Any]

_empty = np.empty
_bool = np.dtype(np.bool_)
_intp = np.dtype(np.intp)


def _named(function: Kernel, name: str) -> Kernel:
    function.__name__ = function.__qualname__ = name
    return function


def _kept_by(reduce: Kernel) -> frozenset[Any]:
    """The dtypes that ``reduce`` keeps when given no dtype (``add`` and
    ``multiply`` widen bool and narrow integers, as the standard's ``sum``
    and ``prod`` do)."""
    dtypes = (np.dtype(c) for c in "?bhilqpBHILQPefdgFDG")
    return frozenset(d for d in dtypes if reduce(np.zeros(1, d)).dtype == d)


def accumulation(ufunc: Any) -> Kernel:
    """The standard's ``sum`` or ``prod`` over ``ufunc.reduce`` (the single
    dtypes accurate, as the module docstring says)."""
    reduce = ufunc.reduce  # (a, axis, dtype, out, keepdims)
    keeps = _kept_by(reduce) - _DOUBLE.keys()
    single = _single_sum if ufunc is np.add else _single_prod

    def reduction(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        if x.dtype in _DOUBLE and (dtype is None or dtype == x.dtype):
            return single(x, axis, keepdims)
        if dtype is not None and np.dtype(dtype) in _DOUBLE:  # (the standard casts first)
            return single(x.astype(dtype), axis, keepdims)
        if axis is None and not keepdims:
            if dtype is None:
                kept = x.dtype
                if kept in keeps:
                    return reduce(x, None, None, _empty((), kept))
            else:
                return reduce(x, None, dtype, _empty((), dtype))
        return reduce(x, axis, dtype, None, keepdims)

    return _named(reduction, {"add": "sum", "multiply": "prod"}[ufunc.__name__])


def extreme(ufunc: Any) -> Kernel:
    """The standard's ``max`` or ``min`` over ``ufunc.reduce`` (NaNs
    propagate; zero elements raise ``ValueError``, as in NumPy)."""
    reduce = ufunc.reduce

    def reduction(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
        if axis is None and not keepdims:
            return reduce(x, None, None, _empty((), x.dtype))
        return reduce(x, axis, None, None, keepdims)

    return _named(reduction, {"maximum": "max", "minimum": "min"}[ufunc.__name__])


def truth(ufunc: Any) -> Kernel:
    """The standard's ``all`` or ``any``: ``ufunc.reduce`` in bool, as
    NumPy's own ``all`` and ``any`` do (any dtype; NaN is true)."""
    reduce = ufunc.reduce

    def reduction(x: Any, /, *, axis: Any = None, keepdims: bool = False) -> Any:
        if axis is None and not keepdims:
            return reduce(x, None, _bool, _empty((), _bool))
        return reduce(x, axis, _bool, None, keepdims)

    return _named(reduction, {"logical_and": "all", "logical_or": "any"}[ufunc.__name__])


def arg_extreme(method: str) -> Kernel:
    """The standard's ``argmax`` or ``argmin``: the array's own method."""

    def reduction(x: Any, /, *, axis: int | None = None, keepdims: bool = False) -> Any:
        if axis is None and not keepdims:
            return getattr(x, method)(None, _empty((), _intp))
        return getattr(x, method)(axis, None, keepdims=keepdims)

    return _named(reduction, method)


def as_array(function: Kernel) -> Kernel:
    """``function`` returning an array where NumPy returns a Python number."""

    def returning_an_array(*args: Any, **kwargs: Any) -> Any:
        result = function(*args, **kwargs)
        return result if type(result) is np.ndarray else np.asarray(result)

    return _named(returning_an_array, function.__name__)


# ---- accurate single precision (see the module docstring) ----

_add: Any = np.add
_multiply: Any = np.multiply
_maximum: Any = np.maximum
_minimum: Any = np.minimum
_float32 = np.dtype(np.float32)
_float64 = np.dtype(np.float64)
_int32 = np.dtype(np.int32)
_int64 = np.dtype(np.int64)
#: The double-precision dtype each single dtype accumulates in.
_DOUBLE = {
    np.dtype(np.float32): np.dtype(np.float64),
    np.dtype(np.complex64): np.dtype(np.complex128),
}
#: Elements per block of the scan: a power of two, so that its steps fill
#: a block exactly; long enough that NumPy's per-row cost over a reshape
#: (m, SCAN_BLOCK) stays small against a row's work.
SCAN_BLOCK = 4096
#: The fewest elements that take a blocked path; smaller inputs (the
#: conformance suite's adversarial arrays among them) accumulate in double
#: precision, which costs little at their size.
LARGE = 1 << 16
#: sum's rows: a large run is summed as a reshape (SUM_ROWS, n // SUM_ROWS)
#: down its columns, elementwise in single precision (each column's sum
#: rounds SUM_ROWS - 1 times), then the columns' sums in double precision.
SUM_ROWS = 16
#: The most float32 factors whose product is formed directly in double
#: precision: any 6 lie within [2**-894, 2**768], inside double's normal
#: range, so nothing overflows, underflows or loses bits to a subnormal.
PROD_DIRECT = 6
#: A longer float32 product multiplies groups of PROD_GROUP factors (at
#: most PROD_DIRECT) in double precision, then keeps the groups' exponents
#: apart from their mantissas (``np.frexp``: mantissas in [0.5, 1)).  The
#: most factors make the fewest groups for frexp to split (a sixth of the
#: time of 1M factors goes there with groups of 4).
PROD_GROUP = PROD_DIRECT
#: The most mantissas multiplied into one block product: at least
#: 2**-PROD_BLOCK, far inside double's normal range.
PROD_BLOCK = 512
#: Products of fewer elements than this first try a cheap test (_in_range)
#: that may prove the direct double-precision product safe; beyond it, the
#: test costs a quarter of the product and passes only for factors within
#: about 2**(1020 / n) of 1.
PROD_CHECKED = 1 << 18
#: A large contiguous run whose product the test proves safe is multiplied
#: as a reshape (n // PROD_COLUMNS, PROD_COLUMNS) down its columns.
PROD_COLUMNS = 1024

_U32, _U64 = 2.0**-24, 2.0**-53
_MAX32 = float(np.finfo(np.float32).max)  # 2**128 - 2**104
#: float32's overflow threshold: an exact value at least this large in
#: magnitude rounds to infinity (it is halfway between _MAX32 and 2**128).
_OVERFLOW = 2.0**128 - 2.0**103
# Slack on every error bound below, for the factors (1 + u)**k that the
# bounds leave out (k u far below 2**-10 at any array size).
_SLACK = 1 + 2.0**-10


def _run(x: Any, axis: Any) -> Any:
    """``x`` as one contiguous 1-d run when a reduction over ``axis``
    reduces every element of a large contiguous ``x`` into one; else None."""
    if x.size < LARGE or not (x.flags.c_contiguous or x.flags.f_contiguous):
        return None
    if axis is not None:
        axes = (axis,) if type(axis) is int else tuple(axis)
        if sorted(a % x.ndim for a in axes) != list(range(x.ndim)):
            return None
    return x.ravel("K")  # a view: the memory's own order


def _axes(x: Any, axis: Any) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(x.ndim))
    return tuple(sorted(a % x.ndim for a in ((axis,) if type(axis) is int else axis)))


def _parts(a: Any) -> tuple[Any, ...]:
    """The real arrays that a (complex) array is checked in, part by part
    (views: writing them writes ``a``)."""
    return (a.real, a.imag) if a.dtype.kind == "c" else (a,)


def _peak(a: Any) -> float:
    """The largest magnitude among the parts of ``a``'s elements (NaN if
    any is NaN; ``a`` not empty)."""
    if a.ndim == 0:
        value = a.item()
        extremes = [abs(value.real), abs(value.imag)]
    else:
        extremes = [
            e
            for p in _parts(a)
            for e in (float(_maximum.reduce(p, None)), -float(_minimum.reduce(p, None)))
        ]
    return math.nan if any(e != e for e in extremes) else max(extremes)


def _rounded_total(x: Any, axis: Any, keepdims: bool, total: Any) -> Any:
    """The 0-d double ``total`` of every element of ``x``, rounded to ``x``'s dtype."""
    result = total.astype(x.dtype)
    return result.reshape((1,) * x.ndim) if keepdims else result


def _in_double(reduce: Kernel, x: Any, axis: Any, keepdims: bool) -> Any:
    """``reduce`` over ``axis`` in double precision (not rounded)."""
    double = _DOUBLE[x.dtype]
    if axis is None and not keepdims:
        return reduce(x, None, double, _empty((), double))
    return reduce(x, axis, double, None, keepdims)


# ---- overflow: exactly where the exact result rounds to infinity ----
#
# A double-precision sum of float32 values cannot overflow, but its
# rounding to float32 can misplace the overflow threshold: an exact sum
# just below _OVERFLOW must give float32's largest value, one at or above
# it infinity.  Where a double result lies within its error bound of the
# threshold, the exact result is formed with integers instead.


def _single_of(wide: Any, x: Any, count: int, reduce: Kernel) -> Any:
    """``wide``, sums or running sums of ``count`` values of ``x`` in
    double precision, rounded once to ``x``'s dtype: infinite exactly where
    the exact result rounds to infinity.  ``reduce(a, dtype)`` forms them
    from an array of ``x``'s shape (int64 for the exact ones).

    Each result is ``count`` roundings or fewer away from the exact one,
    each at most ``2**-53`` times a partial sum: first bounded by ``count``
    times float32's largest value, then, where that is not enough, by the
    (running) sum of the magnitudes.
    """
    result = wide.astype(x.dtype)
    if wide.size == 0:
        return result
    error = _SLACK * _U64 * count * count * _MAX32
    if wide.ndim == 0 and wide.dtype == _float64:  # the common case, at a glance
        if abs(float(wide)) + error < _OVERFLOW:
            return result
    elif _peak(wide) + error < _OVERFLOW:
        return result
    for part, wide_part, values in zip(_parts(result), _parts(wide), _parts(x), strict=True):
        distance = np.abs(np.abs(wide_part) - _OVERFLOW)
        near = distance <= error
        if near.any():
            magnitudes = reduce(np.abs(values), _float64)  # (rounded: hence the slack squared)
            near &= distance <= _SLACK * _SLACK * _U64 * count * magnitudes
        if near.any():
            part[near] = _exact_sums(values, reduce, near)
    return result


def _exact_sums(values: Any, reduce: Kernel, where: Any) -> list[float]:
    """The exact sums that ``reduce`` forms of the real float32 array
    ``values``, at the positions ``where`` of its result, each rounded once
    to float32.

    Every float32 value is an integer number of units of 2**-149, of at
    most 277 bits: nine 32-bit limbs, each of which int64 sums exactly
    (for fewer than 2**31 terms).  The limbs' sums are joined in Python
    integers only where asked.
    """
    bits = values.view(np.uint32)
    exponent = (bits >> 23) & 0xFF
    significand = (bits & 0x7FFFFF).astype(_int64)
    significand[exponent > 0] |= 1 << 23  # the implicit bit of normal numbers
    shift = np.maximum(exponent.astype(_int64) - 1, 0)  # value = significand << shift units
    sign = np.where(bits >> 31, -1, 1)
    units = [0] * int(np.count_nonzero(where))
    for limb in range(9):
        s = shift - 32 * limb
        part = ((significand << np.clip(s, 0, 32)) >> np.clip(-s, 0, 31)) & 0xFFFFFFFF
        sums = np.asarray(reduce(part * sign, None))[where]
        units = [u + (int(v) << 32 * limb) for u, v in zip(units, sums.tolist(), strict=True)]
    return [_float32_of(u, -149) for u in units]


def _float32_of(integer: int, exponent: int) -> float:
    """``integer * 2**exponent`` rounded once to float32 (ties to even), as
    a Python float: infinite from _OVERFLOW up."""
    magnitude = abs(integer)
    step = max(magnitude.bit_length() - 24 + exponent, -149)  # float32's spacing there
    if step > exponent:
        quotient, remainder = divmod(magnitude, 1 << (step - exponent))
        half = 1 << (step - exponent - 1)
        quotient += remainder > half or (remainder == half and quotient & 1)
        magnitude, exponent = quotient, step
    if magnitude and magnitude.bit_length() + exponent > 129:
        value = math.inf  # (at least 2**129: math.ldexp would raise)
    else:
        value = math.ldexp(magnitude, exponent) if magnitude else 0.0
        value = math.inf if value >= 2.0**128 else value
    return -value if integer < 0 else value


# ---- sum ----


def _single_sum(x: Any, axis: Any, keepdims: bool) -> Any:
    run = _run(x, axis)
    if run is not None:
        total = _blocked_sum(run)
        if run.dtype == _float32 and _clear_of_overflow(total, run.size):
            return _rounded_total(x, axis, keepdims, total)  # the common case, at a glance
        if np.isfinite(total):
            return _rounded_total(x, axis, keepdims, _checked_blocked_sum(run, total))
        # A column overflowed (or x holds infinities or NaN): the double
        # path below, which cannot overflow, decides.
    count = x.size if axis is None else math.prod(x.shape[a] for a in _axes(x, axis))
    return _single_of(
        _in_double(_add.reduce, x, axis, keepdims),
        x,
        count,
        lambda values, dtype: _add.reduce(values, axis, dtype, None, keepdims),
    )


def sum_of_squares(x: Any, axes: tuple[int, ...], keepdims: bool) -> Any | None:
    """``sum(x * x)`` over ``axes`` for a large contiguous float32 ``x``
    reduced to one value (``var``'s second pass; entry
    ``_dlarray_sum_of_squares`` of ``numpy_engine.FIXES``), or None where
    this has no faster way and the caller squares and sums.

    The blocked sum of the squares (:func:`_blocked_sum`), kept only where
    its error bound proves it finite and clear of float32's overflow
    threshold; elsewhere None, and the caller's path decides.
    """
    run = _run(x, None if len(axes) == x.ndim else axes)
    if run is None or run.dtype != _float32:
        return None
    total = _blocked_sum(run, squared=True)
    if not _clear_of_overflow(total, run.size):  # (NaN too)
        return None
    return _rounded_total(x, None, keepdims, total)


def _blocked_sum(run: Any, squared: bool = False) -> Any:
    """The sum of a large contiguous run (the module docstring's blocked
    path), in double precision, not rounded.  ``squared``: the sum of its
    squares, each rounded to the run's dtype and added down its column as
    there, but formed in the same pass as the sum (``np.einsum``), so the
    squares are never written out."""
    double = _DOUBLE[run.dtype]
    n = run.size
    body = n - n % SUM_ROWS
    rows = run[:body].reshape(SUM_ROWS, -1)
    if squared:
        columns = np.einsum("ij,ij->j", rows, rows)  # single, elementwise down each column
    else:
        columns = _add.reduce(rows, 0)  # single, elementwise
    total = _add.reduce(columns, None, double, _empty((), double))
    if body < n:
        tail = run[body:]
        total += _add.reduce(tail * tail if squared else tail, None, double)
    return total


def _clear_of_overflow(total: Any, n: int) -> bool:
    """Whether the float32 blocked sum ``total`` of ``n`` values is proved
    finite and on the finite side of float32's overflow threshold by its
    error bound (false for NaN and infinities)."""
    return abs(float(total)) + _blocked_error(n) < _OVERFLOW


def _blocked_error(n: int, magnitude: float = math.inf) -> float:
    """A bound on the error of :func:`_blocked_sum` of ``n`` values whose
    magnitudes sum to at most ``magnitude``, given that every column stayed
    finite: each rounding is at most ``u`` of its partial sum; a float32
    partial is at most float32's largest value and at most its column's
    magnitudes; a double partial (of at most n // SUM_ROWS + SUM_ROWS
    terms) at most all of those."""
    columns = n // SUM_ROWS
    adds = columns + SUM_ROWS
    single = (SUM_ROWS - 1) * min(columns * _MAX32, magnitude)
    double = adds * min(adds * _MAX32, magnitude)
    return _SLACK * (_U32 * single + _U64 * double)


def _checked_blocked_sum(run: Any, total: Any) -> Any:
    """``total``, the finite blocked sum of ``run``, or the exact sum where
    ``total`` lies within its error bound of float32's overflow threshold.

    The bound needs the run's magnitude; the cheapest sufficient bound is
    found first: none (each value at most float32's largest), ``n`` times
    the largest magnitude, their sum; then the exact sum."""
    n = run.size
    distance = min(abs(abs(float(p)) - _OVERFLOW) for p in _parts(total))
    magnitudes = (
        lambda: math.inf,
        lambda: n * _peak(run),
        lambda: (
            (1 + (n + 1) * 2 * _U64)
            * sum(float(_add.reduce(np.abs(p), None, np.float64)) for p in _parts(run))
        ),
    )
    for magnitude in magnitudes:
        if distance > _blocked_error(n, magnitude()):
            return total
    exact = total.astype(run.dtype)
    reduce = lambda units, dtype: _add.reduce(units, None, dtype)  # noqa: E731
    for part, values in zip(_parts(exact), _parts(run), strict=True):
        part[...] = _exact_sums(values, reduce, np.True_)[0]
    return exact


# ---- prod ----


def _single_prod(x: Any, axis: Any, keepdims: bool) -> Any:
    if x.dtype != _float32:
        return _complex_prod(x, axis, keepdims)
    axes = _axes(x, axis)
    count = math.prod(x.shape[a] for a in axes)
    run = _run(x, axis)
    if count <= PROD_DIRECT or x.size == 0 or (x.size < PROD_CHECKED and _in_range(x, count)):
        if run is None:
            wide = _in_double(_multiply.reduce, x, axis, keepdims)
        else:
            wide = _column_product(run).reshape((1,) * x.ndim if keepdims else ())
    else:
        wide = _row_products(_rows(x, axes, count, run))
        kept = (1 if i in axes else n for i, n in enumerate(x.shape) if keepdims or i not in axes)
        wide = wide.reshape(tuple(kept))
    result = wide.astype(_float32)
    # Within its relative error (count - 1 roundings) of float32's overflow
    # threshold, the exact product decides.
    near = np.abs(np.abs(wide) - _OVERFLOW) <= _SLACK * count * _U64 * _OVERFLOW
    if near.any():
        rows, flat = _rows(x, axes, count, run), result.reshape(-1)  # (a view)
        for i in np.flatnonzero(near):
            flat[i] = _exact_product(rows[i])
    return result


def _rows(x: Any, axes: tuple[int, ...], count: int, run: Any) -> Any:
    """``x`` as a 2-d array, one row of ``count`` factors per result element
    (in the result's order): the reduced axes last."""
    if run is None:
        run = np.moveaxis(x, axes, range(x.ndim - len(axes), x.ndim))
    kept = math.prod(n for i, n in enumerate(x.shape) if i not in axes)
    return run.reshape(kept, count)  # (-1 cannot stand for kept when count is 0)


def _column_product(run: Any) -> Any:
    """The product of a large contiguous run whose partial products all lie
    in double precision's normal range, in double precision: the products
    of a reshape's columns (elementwise over rows, not NumPy's
    latency-bound scalar loop), then of those."""
    double = _float64
    n = run.size
    body = n - n % PROD_COLUMNS
    columns = _multiply.reduce(run[:body].reshape(-1, PROD_COLUMNS), 0, double)
    total = _multiply.reduce(columns, None, None, _empty((), double))
    if body < n:
        total *= _multiply.reduce(run[body:], None, double)
    return total


def _in_range(x: Any, count: int) -> bool:
    """Whether every partial product of ``count`` elements of the float32
    ``x``, in any order, lies in double precision's normal range: each
    within [smallest, largest] in magnitude, ``count`` of them within
    [smallest**count, largest**count].  (A cheap test for small inputs.)"""
    magnitudes = np.abs(x)
    smallest = float(_minimum.reduce(magnitudes, None))
    largest = float(_maximum.reduce(magnitudes, None))
    return (
        0 < smallest
        and largest < math.inf  # (NaN fails both)
        and count * math.log2(largest) < 1020
        and count * math.log2(smallest) > -1020
    )


def _row_products(rows: Any) -> Any:
    """The product of each row of the 2-d float32 ``rows`` (more than
    PROD_DIRECT columns), in double precision.

    No partial product leaves double precision's normal range: groups of
    PROD_GROUP factors lie within [2**-894, 2**768] (or are 0, infinite or
    NaN, which propagate as in any order); then :func:`_fold` keeps
    exponents apart.  The mantissa's relative error is at most
    (count - 1) * 2**-53 (one rounding per multiplication); ``ldexp`` is
    exact down to double's normal range, far below float32's, so rounding
    the result to float32 rounds once.
    """
    double = _float64
    count = rows.shape[1]
    width = count // PROD_GROUP
    # Elementwise over columns, faster than a reduce along rows; each column
    # block is cast to double on its own (exactly: every float32 is a
    # double) into one buffer, faster than a multiply that casts through
    # its buffers.  Two buffers of rows.size / PROD_GROUP doubles each.
    groups = rows[:, :width].astype(double)
    factor = np.empty_like(groups)
    for i in range(1, PROD_GROUP):
        np.copyto(factor, rows[:, i * width : (i + 1) * width])
        _multiply(groups, factor, out=groups)
    del factor
    rest = _multiply.reduce(rows[:, PROD_GROUP * width :], 1, double)  # (fewer than PROD_GROUP)
    rest_mantissa, rest_exponent = np.frexp(rest)
    mantissa, exponent = _fold(rest_mantissa, rest_exponent, groups)
    # (Clipped: beyond +-1100 the result is infinite or zero all the same.)
    return np.ldexp(mantissa, _maximum(_minimum(exponent, 1100), -1100))


def _fold(mantissa: Any, exponent: Any, values: Any) -> tuple[Any, Any]:
    """``mantissa * 2**exponent`` (one per row, ``mantissa`` in [0.5, 1) or
    0, infinite, NaN) times the product of each row of ``values`` (doubles),
    as a mantissa and an int64 exponent.

    The values' mantissas (``frexp``: in [0.5, 1)) are multiplied in blocks
    of PROD_BLOCK, each block's product at least 2**-PROD_BLOCK, their
    exponents summed apart, and the blocks' products folded in again, until
    fewer than PROD_BLOCK remain, whose product joins ``mantissa``.
    """
    exponent = exponent.astype(_int64)
    m = values.shape[0]
    while values.shape[1]:
        mantissas, exponents = np.frexp(values)
        width = values.shape[1]
        # Each exponent is at most 1075 in magnitude: int32 holds 2**20 of them.
        exponent += _add.reduce(exponents, 1, _int32 if width <= 1 << 20 else _int64)
        body = width - width % PROD_BLOCK
        last = _multiply.reduce(mantissas[:, body:], 1)  # at least 2**-(PROD_BLOCK - 1)
        mantissa, shift = np.frexp(mantissa * last)
        exponent += shift
        values = _multiply.reduce(mantissas[:, :body].reshape(m, PROD_BLOCK, -1), 1)
    return mantissa, exponent


def _exact_product(values: Any) -> float:
    """The exact product of the nonzero finite float32 ``values``, rounded
    once to float32: integer significands multiplied in a balanced tree."""
    _, exponents = np.frexp(values)  # (only near the threshold: speed matters little)
    significands = np.ldexp(values, 24 - exponents).astype(_int64)  # values = s * 2**(e - 24)
    integers = [int(s) for s in significands.tolist()]
    while len(integers) > 1:
        pairs = zip(integers[::2], integers[1::2], strict=False)
        integers = [a * b for a, b in pairs] + integers[len(integers) // 2 * 2 :]
    return _float32_of(integers[0], int(_add.reduce(exponents, None, _int64)) - 24 * values.size)


# ---- complex64 prod and cumulative_prod ----
#
# The same idea as float32's, for complex factors: z = m * 2**e with e the
# exponent of max(|Re z|, |Im z|) (np.frexp's), so that max(|Re m|, |Im m|)
# lies in [0.5, 1) and |m| in [0.5, sqrt 2), or m = 0.  The modulus of a
# product is the product of the moduli, so a product of at most PROD_BLOCK
# mantissas lies within [2**-512, 2**256] (or is 0): no part of it, nor of
# the four real products that form each complex product, overflows, and
# what underflows is below 2**-1074, a relative 2**-562 of the product.
# Each complex multiplication in double precision is then within
# sqrt(5) * 2**-53 of the exact product, relative to its modulus (Brent,
# Percival and Zimmermann, 2007).  Rows that hold an infinity or NaN keep
# NumPy's own order (the complex product with an infinite factor is NaN or
# infinite depending on it).
#
# The bound is on the modulus: a part much smaller than the product's
# modulus (cancellation, or a product along an axis) is known only to
# within that bound, so where it may lie on either side of float32's
# overflow threshold, the exact product decides (Gaussian integers).

_complex128 = np.dtype(np.complex128)
#: Modulus limits inside which double-precision complex products are kept
#: as formed: far inside double's normal range (2**-1022, 2**1024), so the
#: four real products of each stay finite and their underflow costs at most
#: a relative 2**-74.
_COMPLEX_RANGE = 1000


def _complex_prod(x: Any, axis: Any, keepdims: bool) -> Any:
    """``prod`` of the complex64 ``x`` (the section's comment says how)."""
    axes = _axes(x, axis)
    count = math.prod(x.shape[a] for a in axes)
    run = _run(x, axis)
    kept = tuple(1 if i in axes else n for i, n in enumerate(x.shape) if keepdims or i not in axes)
    if (
        count <= PROD_DIRECT
        or x.size == 0
        or (x.size < PROD_CHECKED and _complex_in_range(x, count))
    ):
        # Any 6 nonzero complex64 factors multiply to within [2**-894, 2**771].
        mantissa, exponent = _in_double(_multiply.reduce, x, axis, keepdims), 0
        wide = mantissa
    else:
        rows = _rows(x, axes, count, run)
        mantissa, exponent = _complex_products(rows.astype(_complex128))
        wide = _scaled(mantissa, exponent)
        if not math.isfinite(_peak(x)):  # some row holds an infinity or NaN
            finite = np.isfinite(rows).all(1)
            wide[~finite] = _multiply.reduce(rows[~finite], 1, _complex128)
        wide = wide.reshape(kept)
    result = wide.astype(x.dtype)
    rows = _rows(x, axes, count, run)
    near = _near_overflow(
        mantissa, exponent, count, lambda: ((rows.real == 0) | (rows.imag == 0)).all(1)
    )
    if near is not None:
        flat = result.reshape(-1)  # (a view)
        for i in np.flatnonzero(near):
            if np.isfinite(rows[i]).all():
                flat[i] = _exact_complex_products(rows[i], [count - 1])[0]
    return result


def _complex_in_range(x: Any, count: int) -> bool:
    """Whether every partial product of ``count`` elements of the complex64
    ``x``, in any order, is 0 or has its modulus within
    [2**-_COMPLEX_RANGE, 2**_COMPLEX_RANGE]: each nonzero modulus within
    [smallest, largest] (float32's ``abs``, within a relative 2**-23 of
    the modulus: the range's margin to double's covers it), a partial
    product of k of them within their k-th powers; a zero factor makes every
    later partial product 0 (they are all finite).  (A cheap test for small
    inputs.)"""
    moduli = np.abs(x)
    largest = float(_maximum.reduce(moduli, None))
    if not largest < math.inf:  # (NaN too)
        return False
    smallest = float(_minimum.reduce(moduli, None))
    if smallest == 0:
        nonzero = moduli[moduli > 0]
        smallest = float(_minimum.reduce(nonzero, None)) if nonzero.size else 1.0
    return (
        count * math.log2(largest or 1.0) < _COMPLEX_RANGE
        and count * math.log2(smallest) > -_COMPLEX_RANGE
    )


def _split(values: Any) -> tuple[Any, Any]:
    """The complex128 ``values`` as mantissas and exponents (int32): values
    = mantissas * 2**exponents, the larger part of each mantissa in
    [0.5, 1), or 0.  (Exact: scaling by a power of two; a smaller part
    that falls below double's normal range loses less than 2**-1074 of a
    mantissa of modulus 0.5 or more.)"""
    _, exponents = np.frexp(_maximum(np.abs(values.real), np.abs(values.imag)))
    # 2**-exponent is a normal double for every exponent here (within
    # +-1100 of 0 only for values within double's range, which these are:
    # complex64 values, block products, their renormalised products).
    scales = np.ldexp(1.0, np.negative(exponents))
    return _multiply(values, scales), exponents


def _complex_products(values: Any) -> tuple[Any, Any]:
    """The product of each row of the 2-d complex128 ``values`` (finite
    rows: others give anything) as a mantissa (larger part in [0.5, 1), or
    0) and an int64 exponent.

    The values' mantissas are multiplied in blocks of PROD_BLOCK, each
    block's product within [2**-512, 2**256], their exponents summed apart,
    and the blocks' products split and multiplied again, until fewer than
    PROD_BLOCK remain, whose product joins the mantissa.  Every factor
    takes part in one multiplication per level, so a row of ``n`` factors
    costs fewer than ``n + log_PROD_BLOCK(n) + 1`` roundings.
    """
    m = values.shape[0]
    mantissa = np.ones(m, _complex128)
    exponent = np.zeros(m, _int64)
    while values.shape[1]:
        mantissas, exponents = _split(values)
        width = values.shape[1]
        exponent += _add.reduce(exponents, 1, _int64)
        body = width - width % PROD_BLOCK
        last = _multiply.reduce(mantissas[:, body:], 1)  # fewer than PROD_BLOCK
        mantissa, shift = _split(mantissa * last)
        exponent += shift
        values = _multiply.reduce(mantissas[:, :body].reshape(m, PROD_BLOCK, -1), 1)
    return mantissa, exponent


def _scaled(mantissa: Any, exponent: Any) -> Any:
    """``mantissa * 2**exponent``, part by part, in complex128 (exact in
    double's normal range; beyond +-1100 the result is infinite or zero
    all the same, so the exponent is clipped there)."""
    exponent = _maximum(_minimum(exponent, 1100), -1100).astype(_int32)  # (ldexp: faster)
    wide = _empty(mantissa.shape, _complex128)
    np.ldexp(mantissa.real, exponent, out=wide.real)
    np.ldexp(mantissa.imag, exponent, out=wide.imag)
    return wide


def _near_overflow(mantissa: Any, exponent: Any, count: int, aligned: Kernel) -> Any:
    """Where a part of ``mantissa * 2**exponent`` (complex128 products of
    ``count`` complex64 factors, each part within 3 * (count + 2) * 2**-53
    of the modulus of the exact product) may lie on the other side of
    float32's overflow threshold from the exact part (or NaN); None where
    nowhere.  Compared at the mantissa's scale: the threshold times
    2**-exponent.

    ``aligned()`` tells (in ``mantissa``'s order) which products have only
    real or imaginary factors: their products are formed with one part
    exactly 0 (0 * x and 0 + 0 are exact), which is then the exact part.
    """
    if mantissa.size == 0:
        return None
    error = _SLACK * 3 * (count + 2) * _U64
    if type(exponent) is int:
        if _peak(mantissa) * (1 + 1.5 * error) < _OVERFLOW:  # (|m| <= sqrt(2) * its larger part)
            return None
        threshold: Any = _OVERFLOW
    else:
        if int(_maximum.reduce(exponent, None)) <= 126:  # (every part below 2**126)
            return None
        threshold = np.ldexp(_OVERFLOW, -_maximum(_minimum(exponent, 1100), -1100))
    reach = np.abs(mantissa) * error
    near = [np.abs(np.abs(part) - threshold) <= reach for part in (mantissa.real, mantissa.imag)]
    if not (near[0].any() or near[1].any()):
        return None
    along = aligned().reshape(mantissa.shape)
    for part, n in zip((mantissa.real, mantissa.imag), near, strict=True):
        n &= (part != 0) | ~along
    near = near[0] | near[1]
    return near.reshape(-1) if near.any() else None


def _exact_complex_products(values: Any, ends: list[int]) -> list[complex]:
    """The exact products of ``values[: k + 1]`` (complex64, finite) for each
    ``k`` in the increasing ``ends``, each part rounded once to float32.

    Each factor is a Gaussian integer times a power of two (its parts'
    significands shifted to the smaller part's exponent); the products
    are formed in Python integers, running along ``values`` (a factor of
    1 costs little), or in a balanced tree for one product of all.
    """
    values = values[: ends[-1] + 1]
    re, im = values.real, values.imag
    if len(ends) == 1 and ((re == 0) | (im == 0)).all():
        # Every factor real or imaginary: the product is (+-1 or +-i) times
        # the product of the nonzero parts, float32's (right at every edge).
        reals = np.where(im == 0, re, im)
        turns = np.count_nonzero(im) % 4
        value = float(_single_prod(reals, None, False))
        rotated = (
            lambda v: complex(v, 0.0),
            lambda v: complex(0.0, v),
            lambda v: complex(-v, 0.0),
            lambda v: complex(0.0, -v),
        )
        return [rotated[turns](value)]
    factors = []
    for z in values.tolist():
        parts = []
        for part in (z.real, z.imag):
            numerator, denominator = part.as_integer_ratio()
            zeros = (numerator & -numerator).bit_length() - 1 if numerator else 0
            parts.append((numerator >> zeros, zeros - denominator.bit_length() + 1))
        (a, p), (b, q) = parts
        shift = min(p if a else q, q if b else p)
        factors.append((a << (p - shift) if a else 0, b << (q - shift) if b else 0, shift))
    if ends == [len(factors) - 1]:
        while len(factors) > 1:
            pairs = zip(factors[::2], factors[1::2], strict=False)
            factors = [
                (a * c - b * d, a * d + b * c, p + q) for (a, b, p), (c, d, q) in pairs
            ] + factors[len(factors) // 2 * 2 :]
        running, wanted = iter(factors), set(ends)
    else:
        re, im, exponent = 1, 0, 0
        products = []
        wanted = set(ends)
        for k, (c, d, q) in enumerate(factors):
            if c != 1 or d or q:
                re, im, exponent = re * c - im * d, re * d + im * c, exponent + q
            if k in wanted:
                products.append((re, im, exponent))
        running = iter(products)
    return [complex(_float32_of(a, e), _float32_of(b, e)) for a, b, e in running]


def _complex_running_products(x: Any, axis: int, include_initial: bool) -> Any:
    """The running products of the complex64 ``x`` along ``axis``.

    NumPy's sequential running product in complex128 is kept where every
    result's larger part lies within [2**-_COMPLEX_RANGE, 2**_COMPLEX_RANGE]:
    its partial products are its results, and each of the four real products
    that form one is at most the modulus of the next result, so none
    overflowed and what underflowed is a relative 2**-74 at most.  Elsewhere
    (zeros among them) the exponents are kept apart (:func:`_complex_running`);
    running products after an infinity or NaN are NumPy's own.
    """
    rows = np.moveaxis(x, axis, -1)
    shape = (*rows.shape[:-1], rows.shape[-1] + include_initial)
    rows = rows.reshape(math.prod(rows.shape[:-1]), rows.shape[-1])  # (-1: not when empty)
    count = rows.shape[1]
    wide = np.cumulative_prod(rows, axis=1, dtype=_complex128)
    mantissa, exponent = wide, 0
    if wide.size:
        peaks = _maximum(np.abs(wide.real), np.abs(wide.imag))
        smallest = float(_minimum.reduce(peaks, None))
        largest = float(_maximum.reduce(peaks, None))
        if not (2.0**-_COMPLEX_RANGE <= smallest and largest <= 2.0**_COMPLEX_RANGE):
            own = wide
            mantissa, exponent = _complex_running(rows.astype(_complex128))
            wide = _scaled(mantissa, exponent)
            if not math.isfinite(_peak(rows)):  # NumPy's own from the first infinity or NaN
                after = ~np.logical_and.accumulate(np.isfinite(rows), axis=1)
                wide[after] = own[after]
                mantissa[after], exponent[after] = own[after], 0
    result = wide.astype(x.dtype)
    near = _near_overflow(
        mantissa,
        exponent,
        count,
        lambda: np.logical_and.accumulate((rows.real == 0) | (rows.imag == 0), axis=1),
    )
    if near is not None:
        near = near.reshape(rows.shape) & np.logical_and.accumulate(np.isfinite(rows), axis=1)
        for row in np.flatnonzero(near.any(1)):
            ends = np.flatnonzero(near[row]).tolist()
            result[row, ends] = _exact_complex_products(rows[row], ends)
    if include_initial:
        result = np.concatenate((np.ones((result.shape[0], 1), x.dtype), result), 1)
    return np.moveaxis(result.reshape(shape), -1, axis)


def _complex_running(values: Any) -> tuple[Any, Any]:
    """The running products along the last axis of the 2-d complex128
    ``values`` (finite: others give anything), as mantissas (larger part in
    [0.5, 1), or 0) and int64 exponents: running products of mantissas
    inside blocks of PROD_BLOCK (within [2**-512, 2**256]), each block's
    product carried into the blocks after it (their running products
    formed the same way)."""
    m, n = values.shape
    mantissas, exponents = _split(values)
    exponent = np.cumsum(exponents, 1, _int64)
    blocks = -(-n // PROD_BLOCK)
    padded = np.ones((m, blocks * PROD_BLOCK), _complex128)
    padded[:, :n] = mantissas
    within = np.cumprod(padded.reshape(m, blocks, PROD_BLOCK), 2)
    if blocks > 1:
        carried, carried_exponents = _complex_running(within[:, :-1, -1])
        within[:, 1:] *= carried[:, :, None]
        exponent[:, PROD_BLOCK:] += np.repeat(carried_exponents, PROD_BLOCK, 1)[:, : n - PROD_BLOCK]
    mantissa, shift = _split(within.reshape(m, -1)[:, :n])
    return mantissa, exponent + shift


# ---- cumulative_sum and cumulative_prod ----


def scan(ufunc: Any) -> Kernel:
    """The standard's ``cumulative_sum`` or ``cumulative_prod``: NumPy's
    own, the single dtypes accurate (as the module docstring says)."""
    own = np.cumulative_sum if ufunc is np.add else np.cumulative_prod

    def cumulative(
        x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
    ) -> Any:
        if dtype is not None and dtype != x.dtype:
            if np.dtype(dtype) not in _DOUBLE:
                return own(x, axis=axis, dtype=dtype, include_initial=include_initial)
            x = x.astype(dtype)  # (the standard casts first)
        elif x.dtype not in _DOUBLE:
            return own(x, axis=axis, include_initial=include_initial)
        double = _DOUBLE[x.dtype]
        if ufunc is np.multiply:
            if x.dtype == _float32 and x.ndim:
                return _running_products(x, 0 if axis is None else axis % x.ndim, include_initial)
            if x.ndim:
                return _complex_running_products(
                    x, 0 if axis is None else axis % x.ndim, include_initial
                )
            return own(x, axis=axis, dtype=double, include_initial=include_initial).astype(x.dtype)
        if x.ndim == 1 and axis in (None, 0, -1) and x.size >= LARGE and x.strides[0] == x.itemsize:
            result = _empty(x.size + include_initial, x.dtype)
            if include_initial:
                result[0] = 0
            _blocked_scan(x, result[include_initial:])
            if _scan_is_clear(x, result):
                return result
            # Some running sum lies near float32's overflow threshold, or
            # is not finite: the double-precision scan below decides.
        count = x.shape[0 if axis is None else axis]
        return _single_of(
            own(x, axis=axis, dtype=double, include_initial=include_initial),
            x,
            count,
            lambda values, dtype: own(
                values, axis=axis, dtype=dtype, include_initial=include_initial
            ),
        )

    return _named(
        cumulative, {"add": "cumulative_sum", "multiply": "cumulative_prod"}[ufunc.__name__]
    )


def _running_products(x: Any, axis: int, include_initial: bool) -> Any:
    """The running products of the float32 ``x`` along ``axis``, each
    rounded once to float32; within its error of float32's overflow
    threshold, the exact running product decides.

    NumPy's sequential running product in double precision is kept where
    it is right: its partial products are its results, so where every
    result lies in double's normal range, no partial product overflowed,
    underflowed or turned subnormal.  Elsewhere (or with zeros, infinities,
    NaN in ``x``) the exponents are kept apart (:func:`_running`).
    """
    rows = np.moveaxis(x, axis, -1)
    shape = (*rows.shape[:-1], rows.shape[-1] + include_initial)
    rows = rows.reshape(math.prod(rows.shape[:-1]), rows.shape[-1])  # (-1: not when empty)
    count = rows.shape[1]
    wide = np.cumulative_prod(rows, axis=1, dtype=_float64)
    peak = 0.0
    if wide.size:
        magnitudes = np.abs(wide)
        smallest = float(_minimum.reduce(magnitudes, None))
        peak = float(_maximum.reduce(magnitudes, None))
        if not (2.0**-1022 <= smallest and peak < math.inf):
            mantissas, exponents = np.frexp(rows)
            # A float32's exponent is at most 149 in magnitude: int32 holds
            # the running sums of 2**23 of them (ldexp is fast with int32).
            if count > 1 << 23:
                exponents = exponents.astype(_int64)
            mantissa, exponent = _running(mantissas, exponents)
            # (Clipped: beyond +-1100 the result is infinite or zero all the same.)
            wide = np.ldexp(mantissa, _maximum(_minimum(exponent, 1100), -1100))
            peak = _peak(wide)
    result = wide.astype(_float32)
    error = _SLACK * (count + 2) * _U64 * _OVERFLOW  # (count + 2 roundings at most)
    if not peak + error < _OVERFLOW:  # (NaN too)
        near = np.abs(np.abs(wide) - _OVERFLOW) <= error
        for row, k in zip(*np.nonzero(near), strict=True):
            result[row, k] = _exact_product(rows[row, : k + 1])
    if include_initial:
        result = np.concatenate((np.ones((result.shape[0], 1), _float32), result), 1)
    return np.moveaxis(result.reshape(shape), -1, axis)


def _running(mantissas: Any, exponents: Any) -> tuple[Any, Any]:
    """The running products along the last axis of ``mantissas * 2**exponents``
    (mantissas in [0.5, 1), or 0, infinite, NaN), as mantissas in [0.5, 1)
    and exponents (of ``exponents``' integer dtype)."""
    m, n = mantissas.shape
    exponent = np.cumsum(exponents, 1, exponents.dtype)
    blocks = -(-n // PROD_BLOCK)
    padded = np.ones((m, blocks * PROD_BLOCK), _float64)
    padded[:, :n] = mantissas
    within = np.cumprod(padded.reshape(m, blocks, PROD_BLOCK), 2)  # each >= 2**-PROD_BLOCK
    if blocks > 1:
        # Each block's product, carried into the blocks after it.
        totals, shifts = np.frexp(within[:, :, -1])
        carried, carried_exponents = _running(totals, shifts.astype(exponent.dtype))
        within[:, 1:] *= carried[:, :-1, None]
        exponent[:, PROD_BLOCK:] += np.repeat(carried_exponents[:, :-1], PROD_BLOCK, 1)[
            :, : n - PROD_BLOCK
        ]
    mantissa, shift = np.frexp(within.reshape(m, -1)[:, :n])
    return mantissa, exponent + shift


def _scan_is_clear(x: Any, out: Any) -> bool:
    """Whether every running sum ``out`` of ``x`` (from :func:`_blocked_scan`)
    is finite and so far below float32's overflow threshold that the exact
    one is too.

    Each running sum is formed by at most ``SCAN_BLOCK + 1`` float32
    additions inside its block plus its carry: the double sum of the
    earlier blocks' totals (each from at most ``SCAN_BLOCK`` float32
    additions), rounded to float32.  A finite result had finite partial
    sums (an infinite one would have stayed infinite or become NaN), so each
    rounding is at most ``u`` times float32's largest value, and at most
    ``u`` times ``n`` times the largest magnitude in ``x``: the error is at
    most ``partial * (2**-24 * (n + SCAN_BLOCK + 3) + 2**-53 * 2 * (blocks + 2)**2)``.
    """
    peak = _peak(out)
    if not peak < _OVERFLOW:  # (NaN too)
        return False
    n = x.size
    blocks = n // SCAN_BLOCK
    per_partial = _SLACK * (_U32 * (n + SCAN_BLOCK + 3) + _U64 * 2 * (blocks + 2) ** 2)
    if peak + per_partial * _MAX32 < _OVERFLOW:
        return True
    return peak + per_partial * min(_MAX32, _SLACK * n * _peak(x)) < _OVERFLOW


def _blocked_scan(x: Any, out: Any) -> None:
    """The running sums of the contiguous 1-d ``x`` (``x.size >= SCAN_BLOCK``)
    written into ``out``.

    Inside each block of ``SCAN_BLOCK`` elements, step ``s`` (1, 2, 4, ...) adds
    to each element the one ``s`` before it in the block, ping-ponging
    between ``out`` and a scratch array so that no ufunc's output overlaps
    its input (NumPy would copy); the last step lands in ``out``.  Before
    it, the blocks' totals are scanned in double precision and each block's
    carry, rounded once, is added to its first half.  The elements after
    the last whole block are scanned in double precision from the total
    before them.
    """
    double = _DOUBLE[x.dtype]
    n = x.size
    body = n - n % SCAN_BLOCK
    rows = body // SCAN_BLOCK
    half = SCAN_BLOCK // 2
    steps = half.bit_length()  # log2(SCAN_BLOCK)
    buffers = (out[:body].reshape(rows, SCAN_BLOCK), _empty((rows, SCAN_BLOCK), x.dtype))
    current = x[:body].reshape(rows, SCAN_BLOCK)
    shift = 1
    for step in range(steps):
        target = buffers[(steps - 1 - step) % 2]  # the last step writes into out
        if shift == half:  # the last step: carries first
            totals = _add(current[:, -1], current[:, half - 1], dtype=double)
            carries = _empty(rows, double)
            carries[0] = 0
            np.cumsum(totals[:-1], out=carries[1:])
            current[:, :half] += carries.astype(x.dtype)[:, None]
        _add(current[:, shift:], current[:, :-shift], out=target[:, shift:])
        # Columns below shift/2 were final in target two steps ago (except
        # in the first two steps and the last, whose carries are new).
        done = shift // 2 if 2 <= step < steps - 1 else 0
        target[:, done:shift] = current[:, done:shift]
        current = target
        shift *= 2
    if body < n:
        tail = np.cumsum(x[body:], dtype=double)
        tail += carries[-1] + totals[-1]
        out[body:] = tail
