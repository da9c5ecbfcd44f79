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
    """The standard's ``sum`` or ``prod`` over ``ufunc.reduce``."""
    reduce = ufunc.reduce  # (a, axis, dtype, out, keepdims)
    keeps = _kept_by(reduce)

    def reduction(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
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
