"""The array object's operators that are more than a namespace call.

Binary operators call the namespace function of the same meaning directly
(``dlarray._array._forward``); the in-place forms, the conversions to
Python scalars and ``repr`` have rules of their own, kept here.  The array
object reaches them through ``dlarray._array.DELEGATES``, which
dlarray/__init__.py fills.
"""

from __future__ import annotations

from typing import Any

from dlarray._array import DELEGATES, DLArray
from dlarray._device import CPU
from dlarray._engine.numpy_engine import can_view
from dlarray._engine.routing import engine_view
from dlarray._rules import CATEGORIES

_CONVERSION_CATEGORY = {
    "all": CATEGORIES["all"],
    "integer": CATEGORIES["integer"],
    "real-valued or bool": CATEGORIES["real-valued"] | CATEGORIES["bool"],
}


def check_writable(x: DLArray, what: str) -> None:
    """``ValueError`` when ``x`` is read-only."""
    if x._readonly:
        raise ValueError(
            f"{what}: the array is read-only (memory its producer marked READ_ONLY, or a "
            f"broadcast view whose elements repeat); make a writable copy with "
            f"dlarray.asarray(x, copy=True)"
        )


def inplace(name: str, x: DLArray, other: Any) -> DLArray:
    """``x <op>= other``: compute ``name(x, other)`` and write it into ``x``.

    The standard forbids an in-place operation from changing ``x``'s dtype
    or shape: a result of another dtype raises ``TypeError``, one of another
    shape (``other`` broadcasting ``x`` up) raises ``ValueError``.
    """
    check_writable(x, f"in-place {name}")
    result = DELEGATES[name](x, other)
    if result.dtype is not x.dtype:
        raise TypeError(
            f"in-place {name}: the result has dtype {result.dtype.name}, but x is "
            f"{x.dtype.name} and an in-place operation cannot change it; use "
            f"x = dlarray.{name}(x, other) instead"
        )
    if result.shape != x.shape:
        raise ValueError(
            f"in-place {name}: the result has shape {result.shape}, but x has shape "
            f"{x.shape}; an in-place operation cannot broadcast x"
        )
    engine_view(x)[...] = engine_view(result)
    return x


def to_scalar(x: DLArray, method: str, category: str) -> Any:
    """The Python scalar held by a 0-d array, for ``bool(x)``, ``int(x)``...

    Arrays with other than zero axes raise ``TypeError``, as do dtypes the
    conversion does not accept (``int()`` of a complex array, ``__index__``
    of a float array).
    """
    if x.ndim != 0:
        raise TypeError(
            f"{method}: only a 0-d array converts to a Python scalar; this one has shape {x.shape}"
        )
    if x.dtype not in _CONVERSION_CATEGORY[category]:
        raise TypeError(f"{method}: needs a {category} array, got dtype {x.dtype.name}")
    return engine_view(x).item()


def repr_of(x: DLArray) -> str:
    """``repr(x)``: the ``dlarray.asarray(...)`` call that makes it again,
    where the host engine can read the elements."""
    where = "" if x.device == CPU else f", device={x.device!r}"
    if can_view(x):
        body = repr(engine_view(x).tolist())
    else:
        body = f"<{x.size} elements>"
    return f"dlarray.asarray({body}, dtype={x.dtype!r}{where})"
