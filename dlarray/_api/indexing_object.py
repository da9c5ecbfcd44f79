"""``x[key]`` and ``x[key] = value``.

Basic indices (integers, slices, ``...``, ``None``) make views and are
handled by the C core (``ArrayBase._basic_view``, subscript.c) without the engine.  Keys with
arrays in them (integer arrays and boolean masks) select copies.

dlarray indexes with arrays as NumPy does: integer arrays and masks anywhere
in the key, mixed with integers, slices, ``...`` and ``None``, for reading
and for writing.  The standard asks engines for less (a mask only as the
sole index, integer arrays only with an integer or array for every axis,
and integer arrays not at all in ``__setitem__``), so every such key is
built here from the standard's functions:

* the slices and ``None`` of the key make a view of ``x``, without the engine;
* integers and integer arrays, and masks through ``nonzero``, become
  positions on the axes they index, checked by
  :func:`~dlarray._api.indexing_functions.checked_indices` (``IndexError``
  out of range, on every engine);
* those axes are moved next to one another (to the front when the key has
  them apart, as in NumPy) and merged into one, so that reading is one
  ``take`` along it, and writing one ``where`` over it (for a position
  given twice, the last value given wins, as in NumPy).

Only the standard's functions compute on engine arrays here, never their
operators (CuPy's run on its current GPU, not the array's; its namespace
enters the array's).  What is written goes into ``x``'s memory with the
standard's ``__setitem__`` -- a basic key, or a sole mask of ``x``'s
leading shape, which needs no ``where`` -- through the namespace's
``_dlarray_write`` where it has one (an engine that must run it on the
array's device).

Where an engine's own indexing is dlarray's (NumPy's), its namespace
provides it as ``_dlarray_getitem`` and ``_dlarray_setitem``
(``numpy_engine.FIXES``), and the key goes to it as it is: the speed of
``x[int_array]`` on the host.  (``x[mask]`` of NumPy arrays is done in C,
``subscript.c``.)
"""

from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple

import numpy as np

from dlarray import subbyte
from dlarray._api._operands import readable, scalar_array
from dlarray._api.indexing_functions import checked_indices
from dlarray._api.manipulation import broadcast_to
from dlarray._core import ArrayBase
from dlarray._creation import asarray
from dlarray._dtypes import DTYPES_BY_NAME, DType, as_python_scalar
from dlarray._engine import numpy_engine
from dlarray._engine.namespaces import hook
from dlarray._engine.routing import engine_dtype, engine_view, namespace_of, wrap, write
from dlarray._rules import (
    CATEGORIES,
    DEFAULT_DTYPES,
    EXTENDED_FLOATS,
    SCALAR_JOINS,
    assignment_refusal,
    broadcast_result,
    broadcast_to_refusal,
    check_writable,
    common_device,
    promote,
    promotion,
    scalar_dtype,
)
from dlarray._views import permute_dims

_INDEX_DTYPES = CATEGORIES["integer"] | CATEGORIES["bool"]
_INTEGER = CATEGORIES["integer"]
_UINT64 = DTYPES_BY_NAME["uint64"]
_INDEX = DEFAULT_DTYPES["indexing"]
_SUBBYTE = frozenset(d for d in EXTENDED_FLOATS if d.is_subbyte)


#: What a key may hold, for the message of one that holds something else.
_VALID_INDICES = (
    "only integers, slices, Ellipsis (...), None and integer or boolean arrays are valid indices"
)


def _numpy_arrays_read(key: Any) -> Any:
    """The key with its NumPy arrays as dlarray arrays: a NumPy array is an
    index array too, in host memory, read as ``asarray`` reads any (zero-
    copy), then checked and used as every index array is."""
    if isinstance(key, np.ndarray):
        return asarray(key)
    if isinstance(key, tuple) and any(isinstance(k, np.ndarray) for k in key):
        return tuple(asarray(k) if isinstance(k, np.ndarray) else k for k in key)
    return key


def _engine_key(x: ArrayBase, key: Any) -> tuple[Any, ...] | None:
    """The key as a tuple with its index arrays as engine views (a 0-d
    integer array is an integer), or None for a basic key."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, ArrayBase) for k in items):
        for k in items:
            _check_basic(k)
        return None
    converted: list[Any] = []
    has_array = False
    for k in items:
        if isinstance(k, ArrayBase):
            if k.dtype not in _INDEX_DTYPES:
                raise IndexError(
                    f"arrays used as indices must have an integer or bool dtype, got {k.dtype.name}"
                )
            common_device((x, k), "indexing")
            if k.ndim == 0 and k.dtype in _INTEGER:
                converted.append(int(engine_view(k)))  # a 0-d integer array is an integer
                continue
            view = engine_view(k)
            if k.dtype is _UINT64:
                _check_uint64(view)
            converted.append(view)
            has_array = True
        elif k is None or k is Ellipsis or isinstance(k, slice):
            converted.append(k)
        else:
            _check_basic(k)
            converted.append(k if type(k) is int else operator.index(k))
    return tuple(converted) if has_array else None


def _check_basic(k: Any) -> None:
    """``TypeError`` for an item of a key that is no index (a float, a
    list: the message says how to write a list of indices)."""
    if k is None or k is Ellipsis or isinstance(k, slice):
        return
    if isinstance(k, bool) or not hasattr(type(k), "__index__"):
        fix = ""
        if isinstance(k, list):
            fix = f"; for these indices use an array: `x[dlarray.asarray({k!r})]`"
        raise TypeError(f"{_VALID_INDICES}, got {k!r}{fix}")


def _check_uint64(indices: Any) -> None:
    """``IndexError`` for uint64 indices past the int64 range, which fit no
    axis (and which an engine may take for negative indices)."""
    if math.prod(indices.shape):
        highest = int(namespace_of(indices).max(indices))
        if highest >= 2**63:
            raise IndexError(f"index {highest} is out of bounds for every axis")


def _basic_key(key: Any) -> Any:
    """The key with 0-d integer arrays replaced by Python ints."""
    if isinstance(key, tuple):
        return tuple(_basic_key(k) for k in key)
    if isinstance(key, ArrayBase):
        return int(engine_view(key))
    return key


def _is_array(k: Any) -> bool:
    """Whether an item of a key from :func:`_engine_key` is an engine array."""
    return not (k is None or k is Ellipsis or isinstance(k, slice | int))


def _sole_mask(xp: Any, x: ArrayBase, items: tuple[Any, ...]) -> Any:
    """The key's mask when ``__setitem__`` takes it as it is (the standard's
    mask: the sole index, of the shape of ``x``'s leading axes), else None."""
    if len(items) != 1:
        return None
    mask = items[0]
    if not xp.isdtype(mask.dtype, "bool") or mask.ndim == 0:
        return None
    return mask if tuple(mask.shape) == x.shape[: mask.ndim] else None


# ---- keys with arrays, from the standard's functions ----


class _Selection(NamedTuple):
    """What a key with arrays selects, for the engine namespace ``xp``."""

    xp: Any
    view: ArrayBase  # x after the key's slices and None, the indexed axes together
    axis: int  # where the indexed axes start in ``view``
    extents: tuple[int, ...]  # their extents
    positions: Any  # engine int64 array: positions in those axes merged, in C order
    shape: tuple[int, ...]  # the shape the index arrays broadcast to


def _select(xp: Any, x: ArrayBase, key: Any, items: tuple[Any, ...]) -> _Selection:
    """The selection of ``key``, ``items`` being its :func:`_engine_key`."""
    originals = key if isinstance(key, tuple) else (key,)
    device = engine_view(x).device
    index_dtype = engine_dtype(xp, _INDEX)
    masks = [k for k in items if _is_array(k) and xp.isdtype(k.dtype, "bool")]
    used = sum(k.ndim for k in masks) + sum(
        1 for k in items if k is not None and k is not Ellipsis and not any(k is m for m in masks)
    )
    if sum(1 for k in items if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > x.ndim:
        raise IndexError(f"too many indices: the array has {x.ndim} axes, the index uses {used}")
    # The key's slices and None (a full slice where an index is), and the
    # indices with the axes of that view they index.
    basic: list[Any] = []
    indexed: list[tuple[int, Any]] = []
    in_key: list[int] = []  # where in the key each of them is
    axis = 0  # of x
    for place, k in enumerate(items):
        if k is Ellipsis:
            basic.extend([slice(None)] * (x.ndim - used))
            axis += x.ndim - used
        elif k is None or isinstance(k, slice):
            basic.append(k)
            axis += k is not None
        elif any(k is m for m in masks) and k.ndim == 0:
            # A new axis of extent 1, taken once (True) or not at all (False).
            count = 1 if bool(k) else 0
            indexed.append((len(basic), xp.zeros((count,), dtype=index_dtype, device=device)))
            in_key.append(place)
            basic.append(None)
        elif any(k is m for m in masks):
            for positions in _mask_positions(xp, x, k, axis):
                indexed.append((len(basic), positions))
                in_key.append(place)
                basic.append(slice(None))
            axis += k.ndim
        else:
            index = k if isinstance(k, int) else _Unchecked(k, originals[place].dtype)
            indexed.append((len(basic), index))
            in_key.append(place)
            basic.append(slice(None))
            axis += 1
    view = x._basic_view(tuple(basic))
    extents = tuple(view.shape[i] for i, _ in indexed)
    positions = [_positions(xp, index, view.shape[i]) for i, index in indexed]
    try:
        shape = broadcast_result(
            "indexing", *(tuple(p.shape) for p in positions if not isinstance(p, int))
        )
    except ValueError as refusal:
        raise IndexError(f"{refusal} (the shapes of the key's index arrays)") from None
    # NumPy's rule: indices next to one another in the key give their axes
    # in place; indices apart (an ellipsis between them too, even one that
    # stands for no axis) put them first.
    axes = [i for i, _ in indexed]
    places = sorted(set(in_key))
    start = axes[0] if places == list(range(places[0], places[-1] + 1)) else 0
    others = [i for i in range(view.ndim) if i not in axes]
    order = others[:start] + axes + others[start:]
    if order != sorted(order):
        view = permute_dims(view, tuple(order))
    return _Selection(xp, view, start, extents, _merged(xp, positions, extents), shape)


class _Unchecked(NamedTuple):
    """An integer index array of the key, its indices not yet checked."""

    indices: Any
    dtype: DType


def _mask_positions(xp: Any, x: ArrayBase, mask: Any, axis: int) -> list[Any]:
    """The positions a mask selects on the axes from ``axis`` on, one
    engine array per mask axis."""
    for j, extent in enumerate(mask.shape):
        # A mask axis of extent 0 selects nothing on any axis (as in NumPy).
        if extent not in (x.shape[axis + j], 0):
            raise IndexError(
                f"a boolean index of shape {tuple(mask.shape)} does not match the array's axes "
                f"{tuple(range(axis, axis + mask.ndim))} of extents "
                f"{x.shape[axis : axis + mask.ndim]}"
            )
    index_dtype = engine_dtype(xp, _INDEX)
    return [xp.astype(p, index_dtype, copy=False) for p in xp.nonzero(mask)]


def _positions(xp: Any, index: Any, extent: int) -> Any:
    """An integer (checked here), an integer array (checked on the engine),
    or a mask's positions (in range by construction), as positions."""
    if isinstance(index, int):
        if not -extent <= index < extent:
            raise IndexError(f"index {index} is out of bounds for an axis of size {extent}")
        return index % extent
    if isinstance(index, _Unchecked):
        return checked_indices(xp, index.indices, index.dtype, extent, "indexing")
    return index


def _merged(xp: Any, positions: list[Any], extents: tuple[int, ...]) -> Any:
    """Positions on several axes as positions on those axes merged (C order)."""
    merged: Any = None
    offset = 0
    for j, p in enumerate(positions):
        stride = math.prod(extents[j + 1 :])
        if isinstance(p, int):
            offset += p * stride
            continue
        term = xp.multiply(p, stride) if stride != 1 else p
        merged = term if merged is None else xp.add(merged, term)
    return xp.add(merged, offset) if offset else merged


def _merged_view(s: _Selection) -> Any:
    """The engine view of ``s.view`` with the indexed axes merged into one
    (a copy when the strides do not allow a view)."""
    a = engine_view(s.view)
    k = len(s.extents)
    if k == 1:
        return a
    shape = (*a.shape[: s.axis], math.prod(s.extents), *a.shape[s.axis + k :])
    return s.xp.reshape(a, shape)


def _flat(s: _Selection) -> Any:
    return s.positions if s.positions.ndim == 1 else s.xp.reshape(s.positions, (-1,))


def _gather(s: _Selection) -> ArrayBase:
    xp = s.xp
    out = xp.take(_merged_view(s), _flat(s), axis=s.axis)
    if len(s.shape) != 1:
        out = xp.reshape(out, out.shape[: s.axis] + s.shape + out.shape[s.axis + 1 :])
    return wrap(out)


def _scatter(s: _Selection, value: Any) -> None:
    xp = s.xp
    target = engine_view(s.view)  # x's memory
    k, ax = len(s.extents), s.axis
    before, after = target.shape[:ax], target.shape[ax + k :]
    values = xp.broadcast_to(value, before + s.shape + after)  # ValueError if it cannot
    flat = _flat(s)
    n = flat.shape[0]
    if n == 0:
        return
    values = xp.reshape(values, (*before, n, *after))
    # For each position given, the last value given for it: group the
    # positions with a stable sort, and keep each group's last member.
    order = xp.argsort(flat, stable=True)
    ordered = xp.take(flat, order)
    last = xp.concat(
        [
            xp.not_equal(ordered[:-1], ordered[1:]),
            xp.ones((1,), dtype=xp.bool, device=target.device),
        ]
    )
    kept = xp.nonzero(last)[0]
    written, sources = xp.take(ordered, kept), xp.take(order, kept)
    # Every position of the merged axis, and the value written there if any.
    extent = math.prod(s.extents)
    everywhere = xp.arange(extent, dtype=engine_dtype(xp, _INDEX), device=target.device)
    found = xp.clip(xp.searchsorted(written, everywhere), 0, written.shape[0] - 1)
    hit = xp.equal(xp.take(written, found), everywhere)
    hit = xp.reshape(hit, (1,) * len(before) + (extent,) + (1,) * len(after))
    new = xp.where(hit, xp.take(values, xp.take(sources, found), axis=ax), _merged_view(s))
    write(target, Ellipsis, xp.reshape(new, target.shape))


# ---- the array object's methods ----


class _Hooks(NamedTuple):
    """An engine's own indexing, where its namespace has it (see the module
    notes): ``getitem(a, key)`` and ``setitem(a, key, value)`` for every key
    dlarray takes, or None (writes of the standard's kind are
    ``routing.write``)."""

    getitem: Any
    setitem: Any


_HOOKS: dict[type, _Hooks] = {}  # engine array type -> its namespace's hooks


def _hooks(a: Any) -> _Hooks:
    try:
        return _HOOKS[type(a)]
    except KeyError:
        xp = namespace_of(a)
        names = ("_dlarray_getitem", "_dlarray_setitem")
        found = _HOOKS[type(a)] = _Hooks(*(hook(xp, name) for name in names))
        return found


def getitem(x: ArrayBase, key: Any) -> ArrayBase:
    """``x[key]``: a view for basic keys, a new array for keys with arrays."""
    key = _numpy_arrays_read(key)
    items = _engine_key(x, key)
    if items is None:
        return x._basic_view(_basic_key(key))
    x = readable(x)  # a packed fp6/fp4 array is read padded: the result is new
    a = engine_view(x)
    try:
        native_getitem = _HOOKS[type(a)].getitem
    except KeyError:
        native_getitem = _hooks(a).getitem
    if native_getitem is not None:
        try:
            return wrap(native_getitem(a, items))
        except IndexError:
            # The engine's words: dlarray's own for what _select checks
            # (index arrays that do not broadcast), else the engine's.
            _select(namespace_of(a), x, key, items)
            raise
    return _gather(_select(namespace_of(a), x, key, items))


def _value(x: ArrayBase, value: Any) -> Any:
    """``value`` as an engine operand of ``x``'s dtype, checking the standard's
    rules: a Python scalar must suit x's dtype, an array must promote to it."""
    if isinstance(value, ArrayBase):
        common_device((x, value), "__setitem__")
        value = readable(value)  # a packed fp6/fp4 value is read padded
        if value.dtype in EXTENDED_FLOATS or x.dtype in EXTENDED_FLOATS:
            promote(value.dtype, x.dtype, "__setitem__")  # the extended floats' refusal
        if promotion(value.dtype, x.dtype) is not x.dtype:
            raise assignment_refusal(x.dtype, value.dtype)
        v = engine_view(value)
        if value.dtype is x.dtype:
            return v
        xp = namespace_of(v)
        return xp.astype(v, engine_dtype(xp, x.dtype))
    scalar = as_python_scalar(value)  # numpy.float64 is a float
    if scalar is not None:
        if x.dtype in EXTENDED_FLOATS and type(scalar) in (int, float):
            # Stored into the array, so rounded to its format as astype
            # rounds (as NumPy's assignment does).
            return scalar_array(scalar, x.dtype, "__setitem__", engine_view(x))
        if x.dtype in EXTENDED_FLOATS:
            scalar_dtype(scalar, x.dtype, "__setitem__")  # the extended floats' refusal
        if x.dtype not in SCALAR_JOINS[type(scalar)]:  # the scalar must take x's dtype
            raise assignment_refusal(x.dtype, scalar)
        return scalar_array(scalar, x.dtype, "__setitem__", engine_view(x))
    raise TypeError(
        f"__setitem__: the value must be a dlarray array or a Python scalar, got "
        f"{type(value).__name__}"
    )


def setitem(x: ArrayBase, key: Any, value: Any) -> None:
    """``x[key] = value``."""
    check_writable(x, "__setitem__")
    if x.dtype in _SUBBYTE and not x._padded:
        _setitem_packed(x, key, value)
        return
    source = _value(x, value)
    key = _numpy_arrays_read(key)
    items = _engine_key(x, key)
    try:
        _write(x, key, items, source)
    except ValueError:
        if isinstance(value, ArrayBase):
            _refuse_unbroadcastable(x, key, items, value.shape)
        raise  # another value the engine refuses, in its words


def _refuse_unbroadcastable(
    x: ArrayBase, key: Any, items: tuple[Any, ...] | None, shape: tuple[int, ...]
) -> None:
    """``ValueError`` in dlarray's words when a value of ``shape`` does not
    broadcast to what ``x[key]`` selects (the engines' words differ, and
    NumPy's name none of dlarray's functions); return when it does.  Only
    after an engine refused: the selection's shape is found by indexing a
    broadcast array of x's shape (no copy of x)."""
    if items is None:
        selected = x._basic_view(_basic_key(key)).shape
    else:
        stand_in = broadcast_to(asarray(False, device=x.device), x.shape)
        selected = getitem(stand_in, key).shape
    refusal = broadcast_to_refusal("__setitem__", shape, selected, "a value")
    if refusal is not None:
        raise ValueError(f"{refusal} (the shape x[key] selects)") from None


def _write(x: ArrayBase, key: Any, items: tuple[Any, ...] | None, source: Any) -> None:
    """Write ``source`` (an engine operand of x's dtype) into ``x[key]``."""
    if items is None:
        write(engine_view(x._basic_view(_basic_key(key))), Ellipsis, source)
        return
    a = engine_view(x)
    try:
        native_setitem = _HOOKS[type(a)].setitem
    except KeyError:
        native_setitem = _hooks(a).setitem
    if native_setitem is not None:
        try:
            native_setitem(a, items, source)
        except IndexError:
            _select(namespace_of(a), x, key, items)  # dlarray's words, as in getitem
            raise
        return
    xp = namespace_of(a)
    mask = _sole_mask(xp, x, items)
    if mask is not None:
        write(a, mask, source)
        return
    _scatter(_select(xp, x, key, items), source)


def _setitem_packed(x: ArrayBase, key: Any, value: Any) -> None:
    """``x[key] = value`` for a packed fp6/fp4 array, whose elements have
    no bytes of their own: written into a padded copy (every key and rule
    as for any array), packed again, and the bytes copied back -- all but
    the bits of the last byte that lie past ``x``'s last element, which
    belong to whatever follows ``x`` in memory (a view's neighbours)."""
    padded = subbyte.pad(x)
    setitem(padded, key, value)
    new = numpy_engine.to_numpy(subbyte.packed_bytes(subbyte.pack(padded)))
    target = numpy_engine.to_numpy(subbyte.packed_bytes(x))
    if new.size == 0:
        return
    tail = (x.size * x.dtype.bits) % 8  # bits of x in its last byte, 0 for all
    if tail:
        mask = (1 << tail) - 1
        new[-1] = (int(new[-1]) & mask) | (int(target[-1]) & ~mask)
    target[...] = new
