"""The standard's indexing functions: ``take`` and ``take_along_axis``.

Negative indices count from the end of the axis.  The standard leaves
out-of-bounds indices undefined, and engines differ (NumPy raises, CuPy
wraps them around silently); dlarray raises ``IndexError`` on every engine,
checking the indices itself in :func:`checked_indices`, which ``x[key]``
uses too.
"""

from __future__ import annotations

import math
from typing import Any

from dlarray._core import ArrayBase
from dlarray._dtypes import DTYPES_BY_NAME, DType
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of
from dlarray._rules import CATEGORIES, DEFAULT_DTYPES, check_dtype, common_device, normalize_axis

__all__ = ["take", "take_along_axis"]

_INDEX = DEFAULT_DTYPES["indexing"]
_SIGNED = CATEGORIES["signed integer"]
_UINT64 = DTYPES_BY_NAME["uint64"]


def checked_indices(xp: Any, indices: Any, dtype: DType, extent: int, func: str) -> Any:
    """The engine integer array ``indices`` (of dlarray dtype ``dtype``) as
    positions in ``range(extent)``, in the index dtype; ``IndexError`` if one
    lies outside ``[-extent, extent)``.

    The check reads the least and greatest index back from the engine (the
    standard's ``min`` and ``max``); negative indices are then turned into
    positions only when there are some.
    """
    if math.prod(indices.shape):  # (min and max of nothing are undefined)
        highest = int(xp.max(indices))
        lowest = int(xp.min(indices)) if dtype in _SIGNED else 0
        for index in (highest, lowest):
            if not -extent <= index < extent:
                raise IndexError(
                    f"{func}: index {index} is out of bounds for an axis of size {extent} (valid "
                    f"indices run from {-extent} to {extent - 1})"
                )
    else:
        lowest = 0
    if dtype is not _INDEX:  # in range, so every index fits the index dtype
        indices = xp.astype(indices, engine_dtype(xp, _INDEX))
    if lowest < 0:
        indices = xp.where(xp.less(indices, 0), xp.add(indices, extent), indices)
    return indices


def _arrays(x: Any, indices: Any, func: str) -> tuple[Any, Any]:
    """Engine views of ``x`` and ``indices``, checked."""
    for name, value in (("x", x), ("indices", indices)):
        if not isinstance(value, ArrayBase):
            raise TypeError(f"{func}: {name} must be a dlarray array, got {type(value).__name__}")
    check_dtype(indices.dtype, "integer", f"{func} (indices)")
    common_device((x, indices), func)
    return engine_view(x), engine_view(indices)


def take(x: ArrayBase, indices: ArrayBase, /, *, axis: int | None = None) -> ArrayBase:
    """Select elements of ``x`` at ``indices`` along ``axis``.

    ``indices`` is a one-dimensional integer array.  ``axis`` may be left
    out only when ``x`` is one-dimensional.  The result has ``x``'s shape
    except along ``axis``, whose extent is ``indices.shape[0]``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``indices`` is not an integer DLArray.
    ValueError
        If ``indices`` is not 1-d, ``axis`` is left out for an array of more
        than one axis, or ``axis`` is out of range (also an ``IndexError``).
    IndexError
        If an index is out of bounds for the axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> x = xp.asarray([[1, 2, 3], [4, 5, 6]])
    >>> xp.take(x, xp.asarray([2, -3]), axis=1)
    dlarray.asarray([[3, 1], [6, 4]], dtype=dlarray.int64)
    """
    a, idx = _arrays(x, indices, "take")
    if idx.ndim != 1:
        raise ValueError(f"take: indices must be one-dimensional, got shape {indices.shape}")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(
                f"take: axis is required for an array with {x.ndim} axes (it may be left out "
                f"only for one-dimensional arrays)"
            )
        ax = 0
    else:
        ax = normalize_axis(axis, x.ndim, "take")
    xp = namespace_of(a)
    positions = checked_indices(xp, idx, indices.dtype, x.shape[ax], "take")
    return call(xp.take, a, positions, axis=ax)


def take_along_axis(x: ArrayBase, indices: ArrayBase, /, *, axis: int = -1) -> ArrayBase:
    """Select elements of ``x`` at the one-dimensional ``indices`` along ``axis``.

    ``indices`` has as many axes as ``x``; along ``axis`` it holds positions
    in ``x``, and on the other axes the two arrays broadcast.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``indices`` is not an integer DLArray.
    ValueError
        If ``indices`` has another number of axes than ``x``, the shapes do
        not broadcast off ``axis``, or ``axis`` is out of range (also an ``IndexError``).
    IndexError
        If an index is out of bounds for the axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> x = xp.asarray([[10, 30, 20], [60, 40, 50]])
    >>> xp.take_along_axis(x, xp.argsort(x, axis=1), axis=1)
    dlarray.asarray([[10, 20, 30], [40, 50, 60]], dtype=dlarray.int64)
    """
    a, idx = _arrays(x, indices, "take_along_axis")
    if idx.ndim != a.ndim:
        raise ValueError(
            f"take_along_axis: indices must have as many axes as x ({x.ndim}), got {indices.ndim}"
        )
    ax = normalize_axis(axis, x.ndim, "take_along_axis")
    clashes = [
        (i, n, m)
        for i, (n, m) in enumerate(zip(x.shape, indices.shape, strict=True))
        if i != ax and n != m and 1 not in (n, m)
    ]
    if clashes:
        i, n, m = clashes[0]
        raise ValueError(
            f"take_along_axis: x of shape {x.shape} and indices of shape {indices.shape} "
            f"cannot be broadcast together on the axes other than axis {ax}: extents {n} and "
            f"{m} meet on axis {i} (each pair must be equal, or one of them 1)"
        )
    xp = namespace_of(a)
    positions = checked_indices(xp, idx, indices.dtype, x.shape[ax], "take_along_axis")
    return call(xp.take_along_axis, a, positions, axis=ax)
