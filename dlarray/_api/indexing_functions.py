"""The standard's indexing functions: ``take`` and ``take_along_axis``.

Negative indices count from the end of the axis.  The standard leaves
out-of-bounds indices undefined; dlarray raises ``IndexError`` for them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dlarray._array import DLArray
from dlarray._engine.routing import engine_view, wrap
from dlarray._rules import check_dtype, common_device, normalize_axis

__all__ = ["take", "take_along_axis"]

_INT64_MAX = np.iinfo(np.int64).max


def _arrays(x: Any, indices: Any, func: str) -> tuple[Any, Any]:
    """Engine views of ``x`` and of ``indices`` as ``intp``."""
    for name, value in (("x", x), ("indices", indices)):
        if not isinstance(value, DLArray):
            raise TypeError(f"{func}: {name} must be a dlarray array, got {type(value).__name__}")
    check_dtype(indices.dtype, "integer", f"{func} (indices)")
    common_device((x, indices), func)
    idx = engine_view(indices)
    if idx.dtype == np.uint64 and idx.size and idx.max() > _INT64_MAX:
        raise IndexError(f"{func}: index {int(idx.max())} is out of bounds")
    return engine_view(x), idx.astype(np.intp, copy=False)


def take(x: DLArray, indices: DLArray, /, *, axis: int | None = None) -> DLArray:
    """Select elements of ``x`` at ``indices`` along ``axis``.

    ``indices`` is a one-dimensional integer array.  ``axis`` may be left
    out only when ``x`` is one-dimensional.  The result has ``x``'s shape
    except along ``axis``, whose extent is ``indices.shape[0]``.

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
    return wrap(np.take(a, idx, axis=ax))


def take_along_axis(x: DLArray, indices: DLArray, /, *, axis: int = -1) -> DLArray:
    """Select elements of ``x`` at the one-dimensional ``indices`` along ``axis``.

    ``indices`` has as many axes as ``x``; along ``axis`` it holds positions
    in ``x``, and on the other axes the two arrays broadcast.

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
    try:
        np.broadcast_shapes(a.shape[:ax] + a.shape[ax + 1 :], idx.shape[:ax] + idx.shape[ax + 1 :])
    except ValueError:
        raise ValueError(
            f"take_along_axis: x of shape {x.shape} and indices of shape {indices.shape} do "
            f"not broadcast on the axes other than {ax}"
        ) from None
    return wrap(np.take_along_axis(a, idx, axis=ax))
