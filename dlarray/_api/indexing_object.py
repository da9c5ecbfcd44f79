"""``x[key]`` and ``x[key] = value``.

Basic indices (integers, slices, ``...``, ``None``) make views and are
handled by :func:`dlarray._views.basic_index` without the engine.  Keys with
arrays in them (integer-array and boolean-mask indexing) select copies,
computed by the engine on zero-copy views of ``x`` and of the index arrays.
The commonest of those, ``x[mask]`` when both already have engine views, is
also done in C (``subscript.c``); this module is the complete version.
"""

from __future__ import annotations

from typing import Any

from dlarray._api._operands import scalar_array
from dlarray._api.array_object import check_writable
from dlarray._array import DLArray
from dlarray._dtypes import as_python_scalar
from dlarray._engine.routing import engine_view, wrap
from dlarray._rules import CATEGORIES, common_device, promote, scalar_dtype
from dlarray._views import basic_index

_INDEX_DTYPES = CATEGORIES["integer"] | CATEGORIES["bool"]


def _engine_key(x: DLArray, key: Any) -> tuple[Any, ...] | None:
    """The key with its arrays as engine views, or None for a basic key."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, DLArray) for k in items):
        return None
    converted: list[Any] = []
    has_array = False  # an index array stays (engine views: NumPy, CuPy or dpnp arrays)
    for k in items:
        if isinstance(k, DLArray):
            if k.dtype not in _INDEX_DTYPES:
                raise IndexError(
                    f"arrays used as indices must have an integer or bool dtype, got {k.dtype.name}"
                )
            common_device((x, k), "indexing")
            if k.ndim == 0 and k.dtype in CATEGORIES["integer"]:
                converted.append(int(engine_view(k)))  # a 0-d integer array is an integer
                continue
            converted.append(engine_view(k))
            has_array = True
        elif k is None or k is Ellipsis or isinstance(k, slice):
            converted.append(k)
        elif isinstance(k, bool) or not hasattr(type(k), "__index__"):
            raise TypeError(
                f"only integers, slices, Ellipsis (...), None and integer or boolean arrays "
                f"are valid indices, got {k!r}"
            )
        else:
            converted.append(k)
    return tuple(converted) if has_array else None


def _basic_key(key: Any) -> Any:
    """The key with 0-d integer arrays replaced by Python ints."""
    if isinstance(key, tuple):
        return tuple(_basic_key(k) for k in key)
    if isinstance(key, DLArray):
        return int(engine_view(key))
    return key


def getitem(x: DLArray, key: Any) -> DLArray:
    """``x[key]``: a view for basic keys, a new array for keys with arrays."""
    engine_key = _engine_key(x, key)
    if engine_key is None:
        return basic_index(x, _basic_key(key))
    return wrap(engine_view(x)[engine_key])


def _value(x: DLArray, value: Any) -> Any:
    """``value`` as an engine operand of ``x``'s dtype, checking the standard's
    rules: a Python scalar must suit x's dtype, an array must promote to it."""
    if isinstance(value, DLArray):
        common_device((x, value), "__setitem__")
        if promote(value.dtype, x.dtype, "__setitem__") is not x.dtype:
            raise TypeError(
                f"__setitem__: a {value.dtype.name} value cannot be stored in a "
                f"{x.dtype.name} array without changing its dtype; convert it with astype"
            )
        return engine_view(value)
    scalar = as_python_scalar(value)  # numpy.float64 is a float
    if scalar is not None:
        if scalar_dtype(scalar, x.dtype, "__setitem__") is not x.dtype:
            raise TypeError(
                f"__setitem__: a Python {type(scalar).__name__} cannot be stored in a "
                f"{x.dtype.name} array"
            )
        return scalar_array(scalar, x.dtype, "__setitem__", engine_view(x))
    raise TypeError(
        f"__setitem__: the value must be a dlarray array or a Python scalar, got "
        f"{type(value).__name__}"
    )


def setitem(x: DLArray, key: Any, value: Any) -> None:
    """``x[key] = value``."""
    check_writable(x, "__setitem__")
    source = _value(x, value)
    engine_key = _engine_key(x, key)
    if engine_key is None:
        engine_view(basic_index(x, _basic_key(key)))[...] = source
    else:
        engine_view(x)[engine_key] = source
