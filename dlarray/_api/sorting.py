"""The standard's sorting functions, with ``descending`` and ``stable``.

Sort order of floating-point values (the standard leaves it to the
implementation, asking that it be documented):

* NaN counts as greater than every number, ``+inf`` included: NaNs come
  last in an ascending sort and first in a descending one.
* ``-0.0`` and ``+0.0`` compare equal, so a stable sort keeps them in their
  original order.

The engine sorts in ascending order only; descending sorts are made here,
the same on every engine.  A descending stable sort keeps equal elements in
their original order too (reversing an ascending sort would reverse them):
it is an ascending stable sort of the array reversed along the axis,
reversed back, so equal elements, whose order the first reversal flipped,
are flipped back.
"""

from __future__ import annotations

from typing import Any

from dlarray._api._operands import unary
from dlarray._core import ArrayBase
from dlarray._engine.routing import call, engine_dtype, namespace_of
from dlarray._rules import CATEGORIES, DEFAULT_DTYPES, normalize_axis

__all__ = ["argsort", "sort"]

_INDEX = DEFAULT_DTYPES["indexing"]
_REAL = CATEGORIES["real-valued"]


def _operands(x: Any, axis: Any, descending: Any, stable: Any, func: str) -> tuple[Any, int]:
    a = unary(x, _REAL, "real-valued", func)
    for name, flag in (("descending", descending), ("stable", stable)):
        if not isinstance(flag, bool):
            raise TypeError(f"{func}: {name} must be True or False, got {flag!r}")
    return a, normalize_axis(axis, x.ndim, func)


def _argsort(a: Any, axis: int, descending: bool, stable: bool) -> Any:
    """The engine's sorting positions of ``a`` in the index dtype."""
    xp = namespace_of(a)
    if not descending:
        order = xp.argsort(a, axis=axis, stable=stable)
    elif stable:
        # Positions in the reversed array, read backwards, mapped back to a.
        reversed_order = xp.argsort(xp.flip(a, axis=axis), axis=axis, stable=True)
        order = xp.subtract(a.shape[axis] - 1, xp.flip(reversed_order, axis=axis))
    else:
        # (a copy: flip is a view with negative strides, which the result
        # need not keep)
        order = xp.asarray(xp.flip(xp.argsort(a, axis=axis, stable=False), axis=axis), copy=True)
    index_dtype = engine_dtype(xp, _INDEX)
    # (argsort returns the engine's default index dtype, int64 on every
    # engine dlarray has, so this rarely converts.)
    return order if order.dtype == index_dtype else xp.astype(order, index_dtype)


def _descending_sort(a: Any, axis: int, stable: bool) -> Any:
    xp = namespace_of(a)
    # A new array in the usual layout, not the negative-stride view flip
    # makes of the sorted copy.
    ascending = xp.sort(xp.flip(a, axis=axis), axis=axis, stable=stable)
    return xp.asarray(xp.flip(ascending, axis=axis), copy=True)


def argsort(
    x: ArrayBase, /, *, axis: int = -1, descending: bool = False, stable: bool = True
) -> ArrayBase:
    """Indices that sort ``x`` along ``axis``.

    ``x`` must be real-valued.  With ``stable=True`` (the default) equal
    elements keep their original order, in descending sorts too.  See the
    module notes for NaN and signed zeros.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not real-valued, or ``descending``/``stable``
        is not a bool.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) (a 0-d array has no axis to sort).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.argsort(xp.asarray([3, 1, 3, 2]), descending=True)
    dlarray.asarray([0, 2, 3, 1], dtype=dlarray.int64)
    """
    a, ax = _operands(x, axis, descending, stable, "argsort")
    return call(_argsort, a, ax, descending, stable)


def sort(
    x: ArrayBase, /, *, axis: int = -1, descending: bool = False, stable: bool = True
) -> ArrayBase:
    """A sorted copy of ``x`` along ``axis``.

    ``x`` must be real-valued; the result has its dtype and shape.  See the
    module notes for the order of NaN and signed zeros.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not real-valued, or ``descending``/``stable``
        is not a bool.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) (a 0-d array has no axis to sort).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.sort(xp.asarray([2.0, float("nan"), -1.0]), descending=True)
    dlarray.asarray([nan, 2.0, -1.0], dtype=dlarray.float64)
    """
    a, ax = _operands(x, axis, descending, stable, "sort")
    if not descending:
        return call(namespace_of(a).sort, a, axis=ax, stable=stable)
    return call(_descending_sort, a, ax, stable)
