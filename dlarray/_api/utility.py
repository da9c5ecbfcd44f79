"""The standard's utility functions: ``all``, ``any`` and ``diff``, computed
through the standard namespace of the array's engine (``namespace_of(a)``)."""

from __future__ import annotations

from typing import Any

from dlarray._api._operands import unary
from dlarray._api.statistical import engine_axis
from dlarray._core import ArrayBase
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of, wrap
from dlarray._rules import CATEGORIES, common_device, normalize_axis, result_type

__all__ = ["all", "any", "diff"]

_ALL = CATEGORIES["all"]
_NUMERIC = CATEGORIES["numeric"]


def _truth_reduce(x: Any, axis: Any, keepdims: Any, func: str) -> ArrayBase:
    a = unary(x, _ALL, "all", func)
    axes = engine_axis(a.ndim, axis, keepdims, func)
    return call(getattr(namespace_of(a), func), a, axis=axes, keepdims=keepdims)


def all(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
) -> ArrayBase:
    """Whether every element of ``x`` is true, over ``axis`` (all axes by default).

    Any dtype is accepted: non-zero numbers, NaN and infinities count as
    true, and a complex number is true when either part is non-zero.  Over
    zero elements the result is ``True``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``keepdims`` is not a bool.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.all(xp.asarray([[1, 0], [2, 3]]), axis=1)
    dlarray.asarray([False, True], dtype=dlarray.bool)
    """
    return _truth_reduce(x, axis, keepdims, "all")


def any(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
) -> ArrayBase:
    """Whether some element of ``x`` is true, over ``axis`` (all axes by default).

    Truth is as for :func:`all`; over zero elements the result is ``False``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``keepdims`` is not a bool.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.any(xp.asarray([[0.0, 0.0], [0.0, -1.5]]), axis=1)
    dlarray.asarray([False, True], dtype=dlarray.bool)
    """
    return _truth_reduce(x, axis, keepdims, "any")


def _check_edge(edge: Any, x: ArrayBase, axis: int, label: str) -> None:
    """``prepend``/``append`` must be arrays shaped like ``x`` off ``axis``."""
    if not isinstance(edge, ArrayBase):
        raise TypeError(f"diff: {label} must be a dlarray array or None, got {type(edge).__name__}")
    unary(edge, _NUMERIC, "numeric", f"diff({label}=...)")
    off_axis = [n for i, n in enumerate(edge.shape) if i != axis]
    if edge.ndim != x.ndim or off_axis != [n for i, n in enumerate(x.shape) if i != axis]:
        raise ValueError(
            f"diff: {label} has shape {edge.shape}, which must match x's shape {x.shape} "
            f"on every axis but axis {axis}"
        )


def diff(
    x: ArrayBase,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: ArrayBase | None = None,
    append: ArrayBase | None = None,
) -> ArrayBase:
    """The ``n``-th forward difference of ``x`` along ``axis``.

    Parameters
    ----------
    x : DLArray
        Array of a numeric dtype with at least one axis.
    axis : int
        The axis to difference along (the last one by default).
    n : int
        How many times to difference (``n >= 0``; ``0`` returns a copy).
    prepend, append : DLArray, optional
        Values joined to ``x`` along ``axis`` before differencing; they must
        match ``x``'s shape on the other axes.  Their dtype is promoted with
        ``x``'s by the standard's rules (the standard leaves mixed dtypes to
        the implementation).

    Returns
    -------
    DLArray
        ``out[i] = x[i+1] - x[i]`` applied ``n`` times; the axis shrinks by
        ``n`` (to zero at the least).

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray (or ``prepend``/``append`` are not), ``n`` is not an
        int, or the dtypes have no promotion.
    ValueError
        If ``x`` is 0-d, ``n`` is negative, ``prepend``/``append`` do not match ``x``'s
        shape off ``axis``, ``axis`` is out of range (also an ``IndexError``), or the
        arrays are on different devices.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.diff(xp.asarray([1, 4, 9, 16]))
    dlarray.asarray([3, 5, 7], dtype=dlarray.int64)
    >>> xp.diff(xp.asarray([1, 4, 9, 16]), n=2, prepend=xp.asarray([0]))
    dlarray.asarray([2, 2, 2], dtype=dlarray.int64)
    """
    a = unary(x, _NUMERIC, "numeric", "diff")
    if a.ndim == 0:
        raise ValueError("diff: x must have at least one axis, got a 0-d array")
    ax = normalize_axis(axis, a.ndim, "diff")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"diff: n must be an int, got {n!r}")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    for label, edge in (("prepend", prepend), ("append", append)):
        if edge is not None:
            _check_edge(edge, x, ax, label)
    parts = [p for p in (prepend, x, append) if p is not None]
    common_device(parts, "diff")
    xp = namespace_of(a)
    if len(parts) == 1:
        joined = a
    else:
        # dlarray promotes the parts (the standard's diff asks for one dtype).
        dtype = engine_dtype(xp, result_type(*parts))
        joined = xp.concat([xp.astype(engine_view(p), dtype, copy=False) for p in parts], axis=ax)
    if n == 0:
        # Engines may return the input itself; the result must not alias x.
        return wrap(xp.asarray(joined, copy=True) if joined is a else joined)
    return call(xp.diff, joined, axis=ax, n=n)  # inf - inf is NaN, not a warning
