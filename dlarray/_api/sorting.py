"""The standard's sorting functions, with ``descending`` and ``stable``.

Sort order of floating-point values (the standard leaves it to the
implementation, asking that it be documented):

* NaN counts as greater than every number, ``+inf`` included: NaNs come
  last in an ascending sort and first in a descending one.
* ``-0.0`` and ``+0.0`` compare equal, so a stable sort keeps them in their
  original order.

A descending stable sort keeps equal elements in their original order too
(NumPy has no descending sort; reversing an ascending one would reverse
them).  It is done as an ascending stable sort of the array reversed along
the axis, reversed back: equal elements, whose order the reversal flipped,
are flipped back.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from dlarray._api._operands import unary
from dlarray._array import DLArray
from dlarray._engine.numpy_engine import numpy_dtype
from dlarray._engine.routing import call, wrap
from dlarray._rules import CATEGORIES, DEFAULT_DTYPES, normalize_axis

__all__ = ["argsort", "sort"]

_INDEX = numpy_dtype(DEFAULT_DTYPES["indexing"])
_REAL = CATEGORIES["real-valued"]


def _kind(stable: bool) -> Literal["stable", "quicksort"]:
    # NumPy's default (introsort) when stability is not asked for: faster.
    return "stable" if stable else "quicksort"


def _argsort(a: Any, axis: int, kind: Literal["stable", "quicksort"]) -> Any:
    """np.argsort's indices in the index dtype, for :func:`call`."""
    return np.argsort(a, axis, kind).astype(_INDEX, copy=False)


def _operands(x: Any, axis: Any, descending: Any, stable: Any, func: str) -> tuple[Any, int]:
    a = unary(x, _REAL, "real-valued", func)
    for name, flag in (("descending", descending), ("stable", stable)):
        if not isinstance(flag, bool):
            raise TypeError(f"{func}: {name} must be True or False, got {flag!r}")
    return a, normalize_axis(axis, x.ndim, func)


def argsort(
    x: DLArray, /, *, axis: int = -1, descending: bool = False, stable: bool = True
) -> DLArray:
    """Indices that sort ``x`` along ``axis``.

    ``x`` must be real-valued.  With ``stable=True`` (the default) equal
    elements keep their original order, in descending sorts too.  See the
    module notes for NaN and signed zeros.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.argsort(xp.asarray([3, 1, 3, 2]), descending=True)
    dlarray.asarray([0, 2, 3, 1], dtype=dlarray.int64)
    """
    a, ax = _operands(x, axis, descending, stable, "argsort")
    kind = _kind(stable)
    if not descending:
        return call(_argsort, a, ax, kind)
    if not stable:
        order = np.flip(np.argsort(a, axis=ax), axis=ax)
        return wrap(np.ascontiguousarray(order, dtype=_INDEX))
    # Positions in the reversed array, read backwards, mapped back to x.
    reversed_order = np.argsort(np.flip(a, axis=ax), axis=ax, kind="stable")
    last = a.shape[ax] - 1
    return wrap((last - np.flip(reversed_order, axis=ax)).astype(_INDEX, copy=False))


def sort(
    x: DLArray, /, *, axis: int = -1, descending: bool = False, stable: bool = True
) -> DLArray:
    """A sorted copy of ``x`` along ``axis``.

    ``x`` must be real-valued; the result has its dtype and shape.  See the
    module notes for the order of NaN and signed zeros.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.sort(xp.asarray([2.0, float("nan"), -1.0]), descending=True)
    dlarray.asarray([nan, 2.0, -1.0], dtype=dlarray.float64)
    """
    a, ax = _operands(x, axis, descending, stable, "sort")
    kind = _kind(stable)
    if not descending:
        return call(np.sort, a, ax, kind)  # (a, axis, kind)
    out = np.flip(a, axis=ax).copy()
    out.sort(axis=ax, kind=kind)
    return wrap(np.ascontiguousarray(np.flip(out, axis=ax)))
