"""The standard's searching functions.

Indices come back in the default index dtype, ``int64``.  For ordering,
NaN counts as greater than every number (as in :func:`dlarray.sort`):
``argmax`` finds the first NaN, and ``searchsorted`` places NaNs after
``+inf``.  Everything computes through the standard namespace of the
array's engine (``namespace_of(a)``).
"""

from __future__ import annotations

from typing import Any, Literal

from dlarray._api._operands import binary, scalar_array, unary
from dlarray._core import ArrayBase
from dlarray._creation import cast
from dlarray._dtypes import DType, scalar_or_itself
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of, wrap
from dlarray._rules import (
    CATEGORIES,
    DEFAULT_DTYPES,
    allowed_dtypes,
    check_dtype,
    common_device,
    normalize_axes,
    normalize_axis,
    promote,
    refuse_unbroadcastable,
    scalar_dtype,
)

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]

_INDEX = DEFAULT_DTYPES["indexing"]
_REAL = CATEGORIES["real-valued"]
_BOOL = CATEGORIES["bool"]
# Every dtype, the extended floats too (dlarray._rules.EXTENDED_FUNCTIONS).
_WHERE = allowed_dtypes("all", "where")
_NONZERO = allowed_dtypes("all", "nonzero") | allowed_dtypes("all", "count_nonzero")


def _keepdims(value: Any, func: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{func}: keepdims must be True or False, got {value!r}")
    return value


def _indices(out: ArrayBase) -> ArrayBase:
    """An engine's indices in the index dtype (every engine dlarray knows
    gives them in it already)."""
    return out if out.dtype is _INDEX else cast(out, _INDEX)


def _arg_reduce(x: Any, axis: Any, keepdims: Any, func: str) -> ArrayBase:
    a = unary(x, allowed_dtypes("real-valued", func), "real-valued", func)
    keep = _keepdims(keepdims, func)
    ax = None if axis is None else normalize_axis(axis, x.ndim, func)
    if a.size == 0 and (ax is None or a.shape[ax] == 0):
        raise ValueError(f"{func}: the array has no elements along the searched axis")
    return _indices(call(getattr(namespace_of(a), func), a, axis=ax, keepdims=keep))


def argmax(x: ArrayBase, /, *, axis: int | None = None, keepdims: bool = False) -> ArrayBase:
    """Index of the first maximum of ``x`` (flattened when ``axis`` is None).

    ``x`` must be real-valued, or of one of the floating formats outside
    the standard (float16, bfloat16, fp8/fp6/fp4: docs/api/dtypes.md).
    ``ValueError`` when there is no element to search.  With ``keepdims=True``
    the searched axes stay, with extent 1.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not real-valued, or ``axis`` is not None or an
        int.
    ValueError
        If the searched axis has no elements, or ``axis`` is out of range (also an ``IndexError``).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.argmax(xp.asarray([[1, 5, 5], [7, 0, 2]]), axis=1)
    dlarray.asarray([1, 0], dtype=dlarray.int64)
    """
    return _arg_reduce(x, axis, keepdims, "argmax")


def argmin(x: ArrayBase, /, *, axis: int | None = None, keepdims: bool = False) -> ArrayBase:
    """Index of the first minimum of ``x`` (flattened when ``axis`` is None).

    ``x`` must be real-valued, or of one of the floating formats outside
    the standard (float16, bfloat16, fp8/fp6/fp4: docs/api/dtypes.md).
    ``ValueError`` when there is no element to search.  With ``keepdims=True``
    the searched axes stay, with extent 1.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not real-valued, or ``axis`` is not None or an
        int.
    ValueError
        If the searched axis has no elements, or ``axis`` is out of range (also an ``IndexError``).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.argmin(xp.asarray([3.0, 1.0, 1.0]))
    dlarray.asarray(1, dtype=dlarray.int64)
    """
    return _arg_reduce(x, axis, keepdims, "argmin")


def count_nonzero(
    x: ArrayBase, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> ArrayBase:
    """Number of non-zero elements of ``x`` over ``axis`` (all axes if None).

    A complex element is non-zero when either part is; a bool one when it
    is ``True``; NaN is non-zero.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``keepdims`` is not a bool.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.count_nonzero(xp.asarray([[0, 1, 2], [3, 0, 0]]), axis=1)
    dlarray.asarray([2, 1], dtype=dlarray.int64)
    """
    a = unary(x, _NONZERO, "all", "count_nonzero")
    keep = _keepdims(keepdims, "count_nonzero")
    axes = None if axis is None else normalize_axes(axis, x.ndim, "count_nonzero")
    return _indices(call(namespace_of(a).count_nonzero, a, axis=axes, keepdims=keep))


def nonzero(x: ArrayBase, /) -> tuple[ArrayBase, ...]:
    """The indices of the non-zero elements of ``x``, one array per axis.

    Indices are in C (row-major) order.  ``x`` must have at least one axis
    (``ValueError`` otherwise, as the standard requires).

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray.
    ValueError
        If ``x`` is 0-d (the standard does not define it).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.nonzero(xp.asarray([[0, 1], [2, 0]]))
    (dlarray.asarray([0, 1], dtype=dlarray.int64), dlarray.asarray([1, 0], dtype=dlarray.int64))
    """
    a = unary(x, _NONZERO, "all", "nonzero")
    if a.ndim == 0:
        raise ValueError(
            "nonzero: the Array API does not define nonzero for a zero-dimensional array; "
            "use dlarray.reshape(x, (1,)) or x != 0"
        )
    xp = namespace_of(a)
    index = engine_dtype(xp, _INDEX)
    # astype copies: NumPy returns views of one (n, ndim) block, and each
    # result gets its own memory.
    return tuple(wrap(xp.astype(i, index)) for i in xp.nonzero(a))


def _search_operands(x1: Any, x2: Any) -> tuple[Any, Any]:
    """Engine arrays of ``x1`` and ``x2`` in their common real dtype."""
    a1 = unary(x1, _REAL, "real-valued", "searchsorted")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be one-dimensional, got shape {x1.shape}")
    x2 = scalar_or_itself(x2)  # numpy.float64 is a float
    if isinstance(x2, ArrayBase):
        check_dtype(x2.dtype, "real-valued", "searchsorted")
        common_device((x1, x2), "searchsorted")
        dtype = promote(x1.dtype, x2.dtype, "searchsorted")
        a2 = _in_dtype(engine_view(x2), x2.dtype, dtype)
    elif type(x2) in (int, float):
        dtype = scalar_dtype(x2, x1.dtype, "searchsorted")
        a2 = scalar_array(x2, dtype, "searchsorted", a1)  # already in dtype
    else:
        raise TypeError(
            f"searchsorted: x2 must be a dlarray array or a Python int or float, got "
            f"{type(x2).__name__}"
        )
    return _in_dtype(a1, x1.dtype, dtype), a2


def _in_dtype(a: Any, dtype: DType, target: DType) -> Any:
    """Engine array ``a`` of dlarray dtype ``dtype`` as ``target``."""
    if dtype is target:
        return a
    xp = namespace_of(a)
    return xp.astype(a, engine_dtype(xp, target))


def _sorter(sorter: Any, x1: ArrayBase) -> Any:
    if sorter is None:
        return None
    if not isinstance(sorter, ArrayBase):
        raise TypeError(
            f"searchsorted: sorter must be a dlarray array, got {type(sorter).__name__}"
        )
    check_dtype(sorter.dtype, "integer", "searchsorted (sorter)")
    common_device((x1, sorter), "searchsorted")
    if sorter.shape != x1.shape:
        raise ValueError(
            f"searchsorted: sorter has shape {sorter.shape}, x1 has {x1.shape}; they must match"
        )
    order = engine_view(sorter)
    xp = namespace_of(order)
    n = x1.shape[0]
    if order.size and (bool(xp.min(order) < 0) or bool(xp.max(order) >= n)):
        raise ValueError(f"searchsorted: sorter holds an index outside [0, {n})")
    # In the index dtype: engines need not take every integer dtype (NumPy
    # refuses uint64).
    return _in_dtype(order, sorter.dtype, _INDEX)


def searchsorted(
    x1: ArrayBase,
    x2: ArrayBase | int | float,
    /,
    *,
    side: Literal["left", "right"] = "left",
    sorter: ArrayBase | None = None,
) -> ArrayBase:
    """Where the elements of ``x2`` would go in the sorted one-dimensional ``x1``.

    ``side="left"`` gives the first suitable position, ``"right"`` the last.
    ``sorter`` holds indices that sort ``x1`` when ``x1`` is not sorted.
    ``x2`` may be a Python int or float (the standard's scalar rules); the
    result has ``x2``'s shape and the default index dtype.

    Raises
    ------
    TypeError
        If ``x1`` or ``x2`` is not a DLArray, a dtype is not real-valued, or
        the dtypes have no promotion.
    ValueError
        If ``x1`` is not 1-d, ``side`` is neither ``'left'`` nor ``'right'``,
        or the arrays are on different devices.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.searchsorted(xp.asarray([1.0, 2.0, 2.0, 3.0]), xp.asarray([2.0, 5.0]))
    dlarray.asarray([1, 4], dtype=dlarray.int64)
    >>> xp.searchsorted(xp.asarray([1, 2, 2, 3]), 2, side="right")
    dlarray.asarray(3, dtype=dlarray.int64)
    """
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    a1, a2 = _search_operands(x1, x2)
    order = _sorter(sorter, x1)
    return _indices(call(namespace_of(a1).searchsorted, a1, a2, side=side, sorter=order))


def where(
    condition: ArrayBase,
    x1: ArrayBase | bool | int | float | complex,
    x2: ArrayBase | bool | int | float | complex,
    /,
) -> ArrayBase:
    """Elements of ``x1`` where ``condition`` is true, of ``x2`` elsewhere.

    ``condition`` is a bool array; ``x1`` and ``x2`` are arrays or (one of
    them) a Python scalar.  The three broadcast together; the result has
    the promoted dtype of ``x1`` and ``x2``.  Two arrays of one of the
    floating formats outside the standard (float16, bfloat16, fp8/fp6/fp4)
    give that dtype (docs/api/dtypes.md).

    Raises
    ------
    TypeError
        If ``condition`` is not a bool DLArray, ``x1``/``x2`` are neither
        DLArrays nor Python scalars, or their dtypes have no promotion.
    ValueError
        If the shapes do not broadcast together, or the arrays are on
        different devices.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.where(xp.asarray([True, False, True]), xp.asarray([1, 2, 3]), 0)
    dlarray.asarray([1, 0, 3], dtype=dlarray.int64)
    """
    cond = unary(condition, _BOOL, "bool", "where")
    a1, a2, dtype = binary(x1, x2, _WHERE, "all", "where")
    device = condition.device
    if (isinstance(x1, ArrayBase) and x1.device != device) or (
        isinstance(x2, ArrayBase) and x2.device != device
    ):
        common_device([v for v in (condition, x1, x2) if isinstance(v, ArrayBase)], "where")
    try:
        out = call(namespace_of(cond).where, cond, a1, a2)
    except ValueError:
        # The shapes, when they are the cause, in dlarray's words.
        refuse_unbroadcastable("where", condition.shape, _shape(x1), _shape(x2))
        raise  # another value the engine refuses, in its words
    # a1 and a2 both have the result dtype already (a scalar operand is a
    # 0-d array or scalar of it), so this cast is only a safeguard.
    return out if out.dtype is dtype else cast(out, dtype)


def _shape(value: Any) -> tuple[int, ...]:
    """The shape of an argument of :func:`where` (a Python scalar's is ``()``)."""
    return value.shape if isinstance(value, ArrayBase) else ()
