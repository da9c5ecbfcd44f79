"""``dlarray.compat``: dlarray's namespace with NumPy's mixed-kind promotions.

``dlarray`` follows the Array API standard strictly: it refuses the type
promotions the standard leaves out (an integer array with a floating one,
``int64`` with ``uint64``, a bool array in arithmetic), so that library
authors learn when their code is not portable.  Engines written against
NumPy rely on some of them: Cubed's ``mean`` divides a ``float64`` total by
an ``int64`` count (cubed/array_api/statistical_functions.py, ``nxp.divide(
a["total"], a["n"])``).  Point such an engine at this module instead
(``CUBED_BACKEND_ARRAY_API_MODULE=dlarray.compat``).

Everything here is ``dlarray``'s, with these departures, each NumPy's rule:

1. **Mixed kinds in the two-operand elementwise functions** (:data:`BINARY`)
   and in ``where``: where the standard defines no promotion, both arrays
   are cast to ``numpy.result_type`` of their dtypes (``int64`` with
   ``float32`` gives ``float64``; ``int64`` with ``uint64`` gives
   ``float64``; ``bool`` with ``int8`` gives ``int8``), then dlarray's
   function runs.
2. **Python scalars of a higher kind** in those functions: a ``float``
   with an integer or bool array gives ``float64``, a ``complex`` with a
   real array ``complex128``, an ``int`` with a bool array ``int64`` (NumPy
   2's rules for Python scalars, NEP 50).
3. **mean(x, dtype=...)** computes in ``dtype`` (``x`` cast first), as
   NumPy's ``mean`` does; the standard's ``mean`` has no ``dtype`` (Cubed's
   ``var`` passes one).
4. **take(x, i, axis=...)** with a Python ``int`` index takes that one
   element along ``axis`` and drops the axis, as ``numpy.take`` does; the
   standard's ``take`` wants an array of indices (Cubed's ``var`` passes an
   ``int``).
5. **result_type** and **can_cast** follow the same promotions: ``result_type``
   answers NumPy's promotion where the standard has none, and
   ``can_cast(from_, to)`` answers NumPy's ``can_cast(..., casting="safe")``.

Where NumPy's promotion gives a dtype dlarray lacks, or an extended float
(bfloat16, fp8, fp6, fp4) takes part, the standard's ``TypeError`` stands.
Arrays keep ``dlarray`` as their ``__array_namespace__()``: this module is
for engines that are handed a namespace, not a replacement of it.

Examples
--------
>>> import dlarray, dlarray.compat as xp
>>> total = dlarray.asarray([3.0, 5.0])
>>> count = dlarray.asarray([2, 2])
>>> xp.divide(total, count)
dlarray.asarray([1.5, 2.5], dtype=dlarray.float64)
>>> xp.add(count, 0.5).dtype, xp.result_type(dlarray.int64, dlarray.float32)
(dlarray.float64, dlarray.float64)
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

import dlarray
from dlarray._core import ArrayBase
from dlarray._dtypes import DType, as_python_scalar, dtype_argument

# Everything of dlarray's namespace, then the departures over it (dlarray.bool
# and its kin shadow the builtins here: this module writes builtins.bool).
globals().update({name: getattr(dlarray, name) for name in dlarray.__all__})

__all__ = [*dlarray.__all__]

#: The two-operand elementwise functions that take NumPy's mixed-kind promotions.
BINARY: tuple[str, ...] = tuple(
    (
        "add subtract multiply divide floor_divide remainder pow atan2 hypot copysign "
        "nextafter logaddexp maximum minimum equal not_equal less less_equal greater "
        "greater_equal bitwise_and bitwise_or bitwise_xor bitwise_left_shift "
        "bitwise_right_shift"
    ).split()
)


def _numpy_result(*operands: Any) -> DType | None:
    """NumPy's promotion of arrays, dtypes and Python scalars, as a dlarray
    dtype; None where it has none dlarray can compute in."""
    items: list[Any] = []
    for operand in operands:
        dtype = operand.dtype if isinstance(operand, ArrayBase) else dtype_argument(operand)
        if dtype is not None:
            if dtype.kind == "extended floating":
                return None
            items.append(dtype.dtype)
            continue
        scalar = as_python_scalar(operand)
        if scalar is None:
            return None
        items.append(scalar)
    try:
        promoted = np.result_type(*items)
    except TypeError:
        return None
    return dtype_argument(promoted)


def _promoted(*operands: Any) -> tuple[Any, ...]:
    """The operands, arrays cast to NumPy's promotion where the standard has
    none (and unchanged where it has one, or NumPy's gives no dlarray dtype)."""
    try:
        dlarray.result_type(*operands)
        return operands
    except (TypeError, ValueError):
        pass
    target = _numpy_result(*operands)
    if target is None:
        return operands
    return tuple(
        dlarray.astype(o, target) if isinstance(o, ArrayBase) and o.dtype is not target else o
        for o in operands
    )


def _binary(name: str) -> Any:
    strict = getattr(dlarray, name)

    def function(x1: Any, x2: Any, /, **kwargs: Any) -> Any:
        return strict(*_promoted(x1, x2), **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"``dlarray.{name}`` with NumPy's mixed-kind promotions (see dlarray.compat)."
    )
    return function


for _name in BINARY:
    globals()[_name] = _binary(_name)


def where(condition: Any, x1: Any, x2: Any, /) -> Any:
    """``dlarray.where`` with NumPy's mixed-kind promotions of ``x1`` and ``x2``."""
    return dlarray.where(condition, *_promoted(x1, x2))


def mean(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False, dtype: Any = None) -> Any:
    """``dlarray.mean``, computed in ``dtype`` when one is given (NumPy's ``mean``)."""
    if dtype is not None:
        x = dlarray.astype(x, dtype)
    return dlarray.mean(x, axis=axis, keepdims=keepdims)


def take(x: Any, indices: Any, /, *, axis: Any = None) -> Any:
    """``dlarray.take``; a Python ``int`` index takes one element along
    ``axis`` and drops the axis (``numpy.take``)."""
    if isinstance(indices, builtins.int) and not isinstance(indices, builtins.bool):
        if axis is None:
            return dlarray.reshape(x, (-1,))[indices]
        position = axis % x.ndim if x.ndim else 0
        return x[(slice(None),) * position + (indices, Ellipsis)]
    return dlarray.take(x, indices) if axis is None else dlarray.take(x, indices, axis=axis)


def result_type(*arrays_and_dtypes: Any) -> DType:
    """``dlarray.result_type``, or NumPy's promotion where the standard has none."""
    try:
        return dlarray.result_type(*arrays_and_dtypes)
    except TypeError:
        found = _numpy_result(*arrays_and_dtypes)
        if found is None:
            raise
        return found


def can_cast(from_: Any, to: Any, /) -> bool:
    """NumPy's ``can_cast(from_, to, casting="safe")``, for dlarray dtypes and arrays."""
    source = from_.dtype if isinstance(from_, ArrayBase) else dtype_argument(from_)
    target = dtype_argument(to)
    if source is None or target is None:
        return builtins.bool(dlarray.can_cast(from_, to))  # dlarray's own TypeError
    if "extended floating" in (source.kind, target.kind):
        return builtins.bool(dlarray.can_cast(source, target))
    return builtins.bool(np.can_cast(source.dtype, target.dtype, casting="safe"))
