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
* ``prod`` (``float32``): the products of a reshape's columns in double precision
  (elementwise over rows, not NumPy's latency-bound scalar loop), then of
  those, rounded once;
* ``cumulative_sum``: a log-step (Hillis-Steele) scan inside each block,
  built from elementwise adds of shifted views, the blocks' totals scanned
  in double precision and added as carries before the last step.
"""

from __future__ import annotations

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
_float32 = np.dtype(np.float32)
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
# prod's columns: a large run is multiplied as a reshape (n // _PROD_COLUMNS,
# _PROD_COLUMNS) down its columns, elementwise in double precision.
_PROD_COLUMNS = 1024


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


def _rounded_total(x: Any, axis: Any, keepdims: bool, total: Any) -> Any:
    """The 0-d double ``total`` of every element of ``x``, rounded to ``x``'s dtype."""
    result = total.astype(x.dtype)
    return result.reshape((1,) * x.ndim) if keepdims else result


def _in_double(reduce: Kernel, x: Any, axis: Any, keepdims: bool) -> Any:
    """``reduce`` over ``axis`` in double precision, rounded once."""
    double = _DOUBLE[x.dtype]
    if axis is None and not keepdims:
        return reduce(x, None, double, _empty((), double)).astype(x.dtype)
    return reduce(x, axis, double, None, keepdims).astype(x.dtype)


def _single_sum(x: Any, axis: Any, keepdims: bool) -> Any:
    run = _run(x, axis)
    if run is None:
        return _in_double(_add.reduce, x, axis, keepdims)
    double = _DOUBLE[x.dtype]
    n = run.size
    body = n - n % SUM_ROWS
    columns = _add.reduce(run[:body].reshape(SUM_ROWS, -1), 0)  # single, elementwise
    total = _add.reduce(columns, None, double, _empty((), double))
    if body < n:
        total += _add.reduce(run[body:], None, double)
    return _rounded_total(x, axis, keepdims, total)


def _single_prod(x: Any, axis: Any, keepdims: bool) -> Any:
    # (complex64 keeps NumPy's order: a complex product with an infinite
    # factor is NaN or infinite depending on the order of the factors.)
    run = _run(x, axis) if x.dtype == _float32 else None
    if run is None:
        return _in_double(_multiply.reduce, x, axis, keepdims)
    double = _DOUBLE[x.dtype]
    n = run.size
    body = n - n % _PROD_COLUMNS
    columns = _multiply.reduce(run[:body].reshape(-1, _PROD_COLUMNS), 0, double)
    total = _multiply.reduce(columns, None, None, _empty((), double))
    if body < n:
        total *= _multiply.reduce(run[body:], None, double)
    return _rounded_total(x, axis, keepdims, total)


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
        if (
            ufunc is np.add
            and x.ndim == 1
            and axis in (None, 0, -1)
            and x.size >= LARGE
            and x.strides[0] == x.itemsize
        ):
            result = _empty(x.size + include_initial, x.dtype)
            if include_initial:
                result[0] = 0
            _blocked_scan(x, result[include_initial:])
            return result
        double = _DOUBLE[x.dtype]
        return own(x, axis=axis, dtype=double, include_initial=include_initial).astype(x.dtype)

    return _named(
        cumulative, {"add": "cumulative_sum", "multiply": "cumulative_prod"}[ufunc.__name__]
    )


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
