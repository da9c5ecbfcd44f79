"""The standard's manipulation functions: shapes, axes, joining and splitting.

Functions that only rearrange the layout (``reshape``, ``permute_dims``,
``moveaxis``, ``expand_dims``, ``squeeze``, ``flip``, ``unstack``,
``broadcast_to``, ``broadcast_arrays``) return *views*: new shapes and
strides over the input's memory, as the standard allows (see its section
"Copy-view behaviour and mutability").  A broadcast view that repeats
elements is read-only, so that one write cannot land in several places.
Functions that build new data (``concat``, ``stack``, ``repeat``, ``roll``,
``tile``) return new arrays.

The layout functions accept arrays of any dlarray dtype; the functions that
combine arrays of different dtypes use the standard's promotion rules, which
know only the standard's dtypes.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import dlarray._core as _core
from dlarray._api._operands import readable
from dlarray._core import ArrayBase
from dlarray._dtypes import DTYPES_BY_NAME, DType
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of, wrap
from dlarray._rules import (
    axis_type_error,
    broadcast_result,
    broadcast_to_refusal,
    check_dtype,
    common_device,
    normalize_axes,
    normalize_axis,
    promote,
)
from dlarray._transfer import copy_array
from dlarray._views import _resolve_shape
from dlarray._views import permute_dims as _permute_view

_INT64 = DTYPES_BY_NAME["int64"]

__all__ = [
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "concat",
    "expand_dims",
    "flip",
    "moveaxis",
    "permute_dims",
    "repeat",
    "reshape",
    "roll",
    "squeeze",
    "stack",
    "tile",
    "unstack",
]


# ---- argument checks shared by this chapter ----


def _array(x: Any, func: str) -> ArrayBase:
    if not isinstance(x, ArrayBase):
        raise TypeError(f"{func}: expected a dlarray array, got {type(x).__name__}")
    return x


def _arrays(arrays: Any, func: str) -> list[ArrayBase]:
    """A non-empty tuple or list of arrays, all on one device."""
    if not isinstance(arrays, tuple | list):
        raise TypeError(f"{func}: expected a tuple or list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{func}: needs at least one array")
    checked = [_array(x, func) for x in arrays]
    common_device(checked, func)
    return checked


def _index(value: Any, what: str, func: str) -> int:
    """An int (or ``__index__`` object, but not a bool)."""
    if isinstance(value, bool):
        raise TypeError(f"{func}: {what} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{func}: {what} must be an int, got {value!r}") from None


def _int_tuple(value: Any, what: str, func: str) -> tuple[int, ...]:
    if not isinstance(value, tuple | list):
        raise TypeError(f"{func}: {what} must be a tuple of ints, got {value!r}")
    return tuple(_index(v, what, func) for v in value)


def _shape(value: Any, func: str) -> tuple[int, ...]:
    shape = _int_tuple(value, "shape", func)
    if any(n < 0 for n in shape):
        raise ValueError(f"{func}: shape {shape} has a negative extent")
    return shape


def _axis_list(axis: Any, ndim: int, func: str, what: str = "axis") -> tuple[int, ...]:
    """An int or a tuple of ints (the argument ``what``), normalized but kept
    in the given order."""
    if isinstance(axis, tuple):
        return tuple(normalize_axis(a, ndim, func, what=what, tuples=True) for a in axis)
    if isinstance(axis, bool) or not hasattr(type(axis), "__index__"):
        raise axis_type_error(axis, func, what, tuples=True)
    return (normalize_axis(axis, ndim, func, what=what),)


def _common_dtype(arrays: Sequence[ArrayBase], func: str) -> DType:
    dtype = arrays[0].dtype
    for x in arrays[1:]:
        if x.dtype is not dtype:
            dtype = promote(dtype, x.dtype, func)
    return dtype


def _engine_as(x: ArrayBase, dtype: DType) -> Any:
    a = engine_view(readable(x))  # a packed fp6/fp4 array is read padded
    if x.dtype is dtype:
        return a
    xp = namespace_of(a)
    return xp.astype(a, engine_dtype(xp, dtype))


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    step = 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def _drop_axes(x: ArrayBase, axes: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shape and strides of ``x`` without ``axes``."""
    keep = [i for i in range(x.ndim) if i not in axes]
    return tuple(x.shape[i] for i in keep), tuple(x._strides[i] for i in keep)


# ---- broadcasting ----


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that ``shapes`` broadcast to, by the standard's rules.

    Shapes are aligned on their last axes; on each axis the extents must be
    equal or one of them ``1``.  ``ValueError`` otherwise.  With no shapes,
    the result is ``()``.

    Raises
    ------
    TypeError
        If a shape is not an int or a tuple of ints.
    ValueError
        If the shapes do not broadcast together.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.broadcast_shapes((3, 1), (4,), (2, 1, 1))
    (2, 3, 4)
    >>> xp.broadcast_shapes()
    ()
    """
    return broadcast_result("broadcast_shapes", *(_shape(s, "broadcast_shapes") for s in shapes))


def _readonly(view: ArrayBase) -> ArrayBase:
    """The same view, marked read-only."""
    flags = _core.ARRAY_READONLY | (_core.ARRAY_PADDED if view._padded else 0)
    return _core.new_array(
        view._owner,
        view._data,
        view._byte_offset,
        view.shape,
        view._strides,
        view.dtype.dlpack,
        view._dl_device,
        flags,
    )


def _broadcast_view(x: ArrayBase, shape: tuple[int, ...], func: str) -> ArrayBase:
    refusal = broadcast_to_refusal(func, x.shape, shape)
    if refusal is not None:
        raise refusal
    lead = len(shape) - x.ndim
    strides = [0] * lead
    repeats = any(n > 1 for n in shape[:lead])
    for extent, stride, target in zip(x.shape, x._strides, shape[lead:], strict=True):
        if extent == target:
            strides.append(stride)
        else:  # an extent of 1 (broadcast_to_refusal said so)
            strides.append(0)
            repeats = repeats or target > 1
    view = x._subview(shape, tuple(strides), 0)
    # A view that repeats an element would let one write change many
    # elements; NumPy refuses such writes too.
    return _readonly(view) if repeats else view


def broadcast_to(x: ArrayBase, /, shape: tuple[int, ...]) -> ArrayBase:
    """Broadcast ``x`` to ``shape`` (a view).

    ``x``'s shape must broadcast *to* ``shape``: new axes may be added in
    front, and extents of 1 may grow; ``ValueError`` otherwise.  When the
    view repeats elements it is read-only.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``shape`` is not a tuple of ints.
    ValueError
        If ``x``'s shape does not broadcast to ``shape`` (only extents of 1
        may grow), or ``shape`` is beyond an array's limits (more than 64
        dimensions, or too big: see :func:`dlarray.empty`).

    Examples
    --------
    >>> import dlarray as xp
    >>> y = xp.broadcast_to(xp.asarray([1, 2, 3]), (2, 3))
    >>> y.shape, y.readonly
    ((2, 3), True)
    """
    x = _array(x, "broadcast_to")
    return _broadcast_view(x, _shape(shape, "broadcast_to"), "broadcast_to")


def broadcast_arrays(*arrays: ArrayBase) -> tuple[ArrayBase, ...]:
    """Broadcast arrays against one another (views; see :func:`broadcast_to`).

    Returns a tuple, as the 2025.12 standard requires.

    Raises
    ------
    TypeError
        If an argument is not a DLArray.
    ValueError
        If the shapes do not broadcast together, or the arrays are on different
        devices.

    Examples
    --------
    >>> import dlarray as xp
    >>> a, b = xp.broadcast_arrays(xp.asarray([[1], [2]]), xp.asarray([1, 2, 3]))
    >>> a.shape, b.shape
    ((2, 3), (2, 3))
    """
    checked = [_array(x, "broadcast_arrays") for x in arrays]
    common_device(checked, "broadcast_arrays")
    shape = broadcast_result("broadcast_arrays", *(x.shape for x in checked))
    return tuple(_broadcast_view(x, shape, "broadcast_arrays") for x in checked)


# ---- views: new shapes and axis orders ----


def _view_strides(
    old_shape: tuple[int, ...], old_strides: tuple[int, ...], new_shape: tuple[int, ...]
) -> tuple[int, ...] | None:
    """Strides that show the elements of ``old_shape``/``old_strides`` in C
    order as ``new_shape``, or None when no strides can.

    Axes of extent 1 are left out; the remaining old axes are split into
    runs whose extents multiply to the extents of runs of new axes.  A run
    of old axes can be re-shaped only if it is contiguous in itself (each
    axis steps over the whole next one); the new axes of the run then get
    strides counted from the run's innermost stride.
    """
    new_strides = list(_c_strides(new_shape))
    if 0 in old_shape:
        return tuple(new_strides)
    old = [(n, s) for n, s in zip(old_shape, old_strides, strict=True) if n != 1]
    new = [j for j, n in enumerate(new_shape) if n != 1]
    i = k = 0
    while i < len(old):
        i0, k0 = i, k
        old_size, new_size = old[i][0], new_shape[new[k]]
        i, k = i + 1, k + 1
        while old_size != new_size:
            if old_size < new_size:
                old_size *= old[i][0]
                i += 1
            else:
                new_size *= new_shape[new[k]]
                k += 1
        for (_, outer), (extent, inner) in zip(old[i0 : i - 1], old[i0 + 1 : i], strict=True):
            if outer != inner * extent:
                return None
        stride = old[i - 1][1]
        for j in reversed(new[k0:k]):
            new_strides[j] = stride
            stride *= new_shape[j]
    # Axes of extent 1 never move; give them the stride C order would.
    for j in range(len(new_shape) - 2, -1, -1):
        if new_shape[j] == 1:
            new_strides[j] = new_strides[j + 1] * new_shape[j + 1]
    return tuple(new_strides)


def reshape(x: ArrayBase, /, shape: tuple[int, ...], *, copy: bool | None = None) -> ArrayBase:
    """Give ``x`` a new shape with the same elements in C order.

    One extent of ``shape`` may be ``-1``; it is inferred from the others.
    The result is a view whenever ``x``'s strides allow one (also for many
    non-contiguous arrays), else a copy.

    Parameters
    ----------
    x : DLArray
    shape : tuple of int
    copy : bool or None
        ``True`` always copies; ``False`` never does and raises
        ``ValueError`` when a view is impossible; ``None`` copies only when
        needed.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, ``shape`` is not a tuple of ints, or ``copy`` is not None
        or a bool.
    ValueError
        If ``shape`` does not hold ``x.size`` elements or has more than one -1
        or another negative extent, or ``copy=False`` and the result cannot be
        a view of ``x``, or ``shape`` is beyond an array's limits (more than 64
        dimensions, or too big: see :func:`dlarray.empty`).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.reshape(xp.asarray([1, 2, 3, 4, 5, 6]), (2, -1))
    dlarray.asarray([[1, 2, 3], [4, 5, 6]], dtype=dlarray.int64)
    """
    x = _array(x, "reshape")
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"reshape: copy must be None, True or False, got {copy!r}")
    new_shape = _resolve_shape(_int_tuple(shape, "shape", "reshape"), x.size)
    if copy is True:
        return copy_array(x)._subview(new_shape, _c_strides(new_shape), 0)
    strides = _view_strides(x.shape, x._strides, new_shape)
    if strides is not None:
        return x._subview(new_shape, strides, 0)
    if copy is False:
        raise ValueError(
            f"reshape(copy=False): an array of shape {x.shape} and strides {x._strides} "
            f"cannot be viewed as shape {new_shape}; pass copy=None to allow a copy"
        )
    return copy_array(x)._subview(new_shape, _c_strides(new_shape), 0)


def permute_dims(x: ArrayBase, /, axes: tuple[int, ...]) -> ArrayBase:
    """Reorder the axes of ``x`` (a view); ``axes`` may be negative.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``axes`` is not a tuple of ints.
    ValueError
        If ``axes`` is not a permutation of ``x``'s axes.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.permute_dims(xp.asarray([[1, 2, 3], [4, 5, 6]]), (-1, 0))
    dlarray.asarray([[1, 4], [2, 5], [3, 6]], dtype=dlarray.int64)
    """
    x = _array(x, "permute_dims")
    if not isinstance(axes, tuple | list):
        raise TypeError(f"permute_dims: axes must be a tuple of ints, got {axes!r}")
    order = tuple(normalize_axis(a, x.ndim, "permute_dims") for a in axes)
    if len(order) != x.ndim or len(set(order)) != x.ndim:
        raise ValueError(
            f"permute_dims: axes {tuple(axes)} are not a permutation of the {x.ndim} axes"
        )
    return _permute_view(x, order)


def moveaxis(
    x: ArrayBase, source: int | tuple[int, ...], destination: int | tuple[int, ...], /
) -> ArrayBase:
    """Move axes ``source`` to positions ``destination`` (a view).

    The other axes keep their relative order.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``source``/``destination`` are not ints or tuples of
        ints.
    ValueError
        If an axis is out of range (also an ``IndexError``), ``source`` and
        ``destination`` name different numbers of axes, or either repeats an
        axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> x = xp.reshape(xp.asarray([0] * 24), (2, 3, 4))
    >>> xp.moveaxis(x, 0, -1).shape
    (3, 4, 2)
    >>> xp.moveaxis(x, (0, 1), (2, 0)).shape
    (3, 4, 2)
    """
    x = _array(x, "moveaxis")
    src = _axis_list(source, x.ndim, "moveaxis", "source")
    dst = _axis_list(destination, x.ndim, "moveaxis", "destination")
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis: source {source!r} and destination {destination!r} name different "
            f"numbers of axes"
        )
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(
            f"moveaxis: source {source!r} and destination {destination!r} must not repeat an axis"
        )
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return _permute_view(x, tuple(order))


def expand_dims(x: ArrayBase, /, axis: int | tuple[int, ...]) -> ArrayBase:
    """Insert axes of extent 1 at the positions ``axis`` of the result (a view).

    ``axis`` is an int or a tuple of ints; each position is counted in the
    result, which has ``x.ndim + len(axis)`` axes, so it must lie in
    ``[-M, M)`` for ``M = x.ndim + len(axis)`` (an ``IndexError``
    otherwise) and the positions must be distinct (``ValueError``).

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``axis`` is not an int or a tuple of ints.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or names a position twice,
        or the result would have more than 64 dimensions.

    Examples
    --------
    >>> import dlarray as xp
    >>> x = xp.asarray([1, 2])
    >>> xp.expand_dims(x, axis=0).shape, xp.expand_dims(x, axis=-1).shape
    ((1, 2), (2, 1))
    >>> xp.expand_dims(x, axis=(0, 2)).shape
    (1, 2, 1)
    """
    x = _array(x, "expand_dims")
    items = axis if isinstance(axis, tuple) else (axis,)
    ndim = x.ndim + len(items)
    positions = _axis_list(axis, ndim, "expand_dims")
    if len(set(positions)) != len(positions):
        raise ValueError(f"expand_dims: axis {axis!r} names a position more than once")
    shape, strides = iter(x.shape), iter(x._strides)
    new_shape = [1 if j in positions else next(shape) for j in range(ndim)]
    new_strides = [0 if j in positions else next(strides) for j in range(ndim)]
    return x._subview(tuple(new_shape), tuple(new_strides), 0)


def squeeze(x: ArrayBase, /, axis: int | tuple[int, ...]) -> ArrayBase:
    """Remove the axes ``axis``, each of extent 1 (a view).

    ``ValueError`` when an axis has another extent.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``axis`` is None (the standard requires the axes).
    ValueError
        If an axis named has an extent other than 1, ``axis`` is out of range (also an
        ``IndexError``), or ``axis`` repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.squeeze(xp.asarray([[1], [2]]), axis=1)
    dlarray.asarray([1, 2], dtype=dlarray.int64)
    """
    x = _array(x, "squeeze")
    if axis is None:
        raise TypeError("squeeze: axis must be an int or a tuple of ints, not None")
    axes = normalize_axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(
                f"squeeze: axis {a} has extent {x.shape[a]}; only axes of extent 1 can be removed"
            )
    shape, strides = _drop_axes(x, axes)
    return x._subview(shape, strides, 0)


def flip(x: ArrayBase, /, *, axis: int | tuple[int, ...] | None = None) -> ArrayBase:
    """Reverse the order of elements along ``axis`` (all axes if None); a view.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``axis`` is not None, an int or a tuple of ints.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.flip(xp.asarray([[1, 2], [3, 4]]), axis=1)
    dlarray.asarray([[2, 1], [4, 3]], dtype=dlarray.int64)
    """
    x = _array(x, "flip")
    axes = normalize_axes(axis, x.ndim, "flip")
    strides = list(x._strides)
    offset = 0
    for a in axes:
        if x.shape[a] > 1:
            offset += (x.shape[a] - 1) * strides[a]
            strides[a] = -strides[a]
    return x._subview(x.shape, tuple(strides), offset)


def unstack(x: ArrayBase, /, *, axis: int = 0) -> tuple[ArrayBase, ...]:
    """Split ``x`` along ``axis`` into a tuple of views, one per index.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``axis`` is not an int.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) (a 0-d array has no axis).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.unstack(xp.asarray([[1, 2], [3, 4]]), axis=1)
    (dlarray.asarray([1, 3], dtype=dlarray.int64), dlarray.asarray([2, 4], dtype=dlarray.int64))
    """
    x = _array(x, "unstack")
    a = normalize_axis(axis, x.ndim, "unstack")
    shape, strides = _drop_axes(x, (a,))
    step = x._strides[a]
    return tuple(x._subview(shape, strides, i * step) for i in range(x.shape[a]))


# ---- new arrays ----


def concat(
    arrays: tuple[ArrayBase, ...] | list[ArrayBase], /, *, axis: int | None = 0
) -> ArrayBase:
    """Join arrays along an existing axis (or, with ``axis=None``, flattened).

    The arrays must have equal shapes except along ``axis``; their dtypes
    are promoted by the standard's rules (``TypeError`` for pairs it leaves
    undefined, such as an integer and a float).

    Raises
    ------
    TypeError
        If ``arrays`` is not a tuple or list of DLArrays, or their dtypes have no
        promotion (no mixing of kinds).
    ValueError
        If ``arrays`` is empty, the arrays differ in their number of axes or in an
        extent other than ``axis``'s, ``axis`` is out of range (also an ``IndexError``),
        or the arrays are on different devices.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.concat([xp.asarray([1, 2]), xp.asarray([3])])
    dlarray.asarray([1, 2, 3], dtype=dlarray.int64)
    """
    checked = _arrays(arrays, "concat")
    dtype = _common_dtype(checked, "concat")
    parts = [_engine_as(x, dtype) for x in checked]
    xp = namespace_of(parts[0])
    if axis is None:
        return call(xp.concat, parts, axis=None)
    ndim = checked[0].ndim
    if any(x.ndim != ndim for x in checked):
        raise ValueError(
            f"concat: arrays have different numbers of axes {[x.ndim for x in checked]}"
        )
    a = normalize_axis(axis, ndim, "concat")
    rest = {_drop_axes(x, (a,))[0] for x in checked}
    if len(rest) > 1:
        raise ValueError(
            f"concat: shapes {[x.shape for x in checked]} differ on an axis other than {a}"
        )
    return call(xp.concat, parts, axis=a)


def stack(arrays: tuple[ArrayBase, ...] | list[ArrayBase], /, *, axis: int = 0) -> ArrayBase:
    """Join arrays of one shape along a new axis ``axis`` of the result.

    Dtypes are promoted as in :func:`concat`.

    Raises
    ------
    TypeError
        If ``arrays`` is not a tuple or list of DLArrays, or their dtypes have no
        promotion.
    ValueError
        If the arrays differ in shape, ``axis`` is out of range (also an
        ``IndexError``), the arrays are on different devices, or the result
        would have more than 64 dimensions.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.stack([xp.asarray([1, 2]), xp.asarray([3, 4])], axis=1)
    dlarray.asarray([[1, 3], [2, 4]], dtype=dlarray.int64)
    """
    checked = _arrays(arrays, "stack")
    shapes = {x.shape for x in checked}
    if len(shapes) > 1:
        raise ValueError(f"stack: arrays must have one shape, got {[x.shape for x in checked]}")
    dtype = _common_dtype(checked, "stack")
    _check_ndim(checked[0].ndim + 1, "stack")
    a = normalize_axis(axis, checked[0].ndim + 1, "stack")
    parts = [_engine_as(x, dtype) for x in checked]
    return call(namespace_of(parts[0]).stack, parts, axis=a)


def _repeat_counts(repeats: Any, x: ArrayBase, length: int) -> Any:
    if isinstance(repeats, ArrayBase):
        common_device((x, repeats), "repeat")
        check_dtype(repeats.dtype, "integer", "repeat")
        refusal = broadcast_to_refusal("repeat", repeats.shape, (length,), what="repeats")
        if refusal is not None:
            raise refusal
        counts = engine_view(repeats)
        xp = namespace_of(counts)
        if repeats.size and (int(xp.min(counts)) < 0 or int(xp.max(counts)) >= 2**63):
            raise ValueError("repeat: repeats must be non-negative (and fit in int64)")
        return xp.astype(counts, engine_dtype(xp, _INT64), copy=False)
    count = _index(repeats, "repeats", "repeat")
    if count < 0:
        raise ValueError(f"repeat: repeats must be non-negative, got {count}")
    return count


def repeat(x: ArrayBase, repeats: int | ArrayBase, /, *, axis: int | None = None) -> ArrayBase:
    """Repeat each element of ``x`` ``repeats`` times along ``axis``.

    ``repeats`` is a non-negative int or a one-dimensional integer array of
    length 1 or ``x.shape[axis]``.  With ``axis=None`` the result is the
    flattened ``x`` (C order) with its elements repeated.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``repeats`` is neither an int nor an integer array.
    ValueError
        If ``repeats`` is negative or does not broadcast to the repeated axis, or
        ``axis`` is out of range (also an ``IndexError``).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.repeat(xp.asarray([1, 2]), 2)
    dlarray.asarray([1, 1, 2, 2], dtype=dlarray.int64)
    >>> xp.repeat(xp.asarray([[1, 2]]), xp.asarray([1, 3]), axis=1)
    dlarray.asarray([[1, 2, 2, 2]], dtype=dlarray.int64)
    """
    x = _array(x, "repeat")
    a = engine_view(readable(x))  # a packed fp6/fp4 array is read padded
    xp = namespace_of(a)
    if axis is None:
        a, ax = xp.reshape(a, (-1,)), 0
    else:
        ax = normalize_axis(axis, x.ndim, "repeat")
    counts = _repeat_counts(repeats, x, a.shape[ax])
    return call(xp.repeat, a, counts, axis=ax)


def roll(
    x: ArrayBase,
    /,
    shift: int | tuple[int, ...],
    *,
    axis: int | tuple[int, ...] | None = None,
) -> ArrayBase:
    """Shift elements along axes, wrapping around (a new array).

    With ``axis=None`` the flattened array is shifted by the int ``shift``.
    A tuple ``shift`` needs a tuple ``axis`` of the same length; an int
    ``shift`` applies to every axis of a tuple ``axis``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``shift`` is not an int (or a tuple of ints with a
        tuple ``axis``).
    ValueError
        If ``shift`` and ``axis`` differ in length, or ``axis`` is out of range (also an
        ``IndexError``).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.roll(xp.asarray([1, 2, 3, 4]), 1)
    dlarray.asarray([4, 1, 2, 3], dtype=dlarray.int64)
    """
    x = _array(x, "roll")
    a = engine_view(readable(x))  # a packed fp6/fp4 array is read padded
    xp = namespace_of(a)
    if axis is None:
        if isinstance(shift, tuple):
            raise TypeError("roll: with axis=None, shift must be an int")
        return call(xp.roll, a, _index(shift, "shift", "roll"))
    axes = _axis_list(axis, x.ndim, "roll")
    if isinstance(shift, tuple):
        if not isinstance(axis, tuple) or len(shift) != len(axes):
            raise ValueError(
                f"roll: shift {shift!r} needs a tuple axis of the same length, got {axis!r}"
            )
        shifts = tuple(_index(s, "shift", "roll") for s in shift)
    else:
        shifts = (_index(shift, "shift", "roll"),) * len(axes)
    return call(xp.roll, a, shifts, axis=axes)


def _check_ndim(ndim: int, func: str) -> None:
    """Refuse a result of more than ``_core.MAX_NDIM`` axes before the engine
    would, in the words every other way of making one gets."""
    if ndim > _core.MAX_NDIM:
        raise ValueError(
            f"{func}: the result would have {ndim} dimensions; dlarray arrays have at most "
            f"{_core.MAX_NDIM} (NumPy's limit, which dlarray's host engine shares); use "
            f"fewer dimensions"
        )


def tile(x: ArrayBase, repetitions: tuple[int, ...], /) -> ArrayBase:
    """Repeat the whole of ``x`` ``repetitions[i]`` times along each axis ``i``.

    When ``x`` and ``repetitions`` differ in length, the shorter one is
    padded with ones in front.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``repetitions`` is not a tuple of ints.
    ValueError
        If a repetition is negative, or the result would have more than 64
        dimensions.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.tile(xp.asarray([1, 2]), (2, 2))
    dlarray.asarray([[1, 2, 1, 2], [1, 2, 1, 2]], dtype=dlarray.int64)
    """
    x = _array(x, "tile")
    reps = _int_tuple(repetitions, "repetitions", "tile")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: repetitions {reps} must be non-negative")
    _check_ndim(max(x.ndim, len(reps)), "tile")
    a = engine_view(readable(x))  # a packed fp6/fp4 array is read padded
    xp = namespace_of(a)
    out = xp.tile(a, reps)
    if 0 in out.shape:
        # NumPy's and CuPy's tile hand back a view of an empty input; the
        # result must be new memory, and an empty one costs nothing.
        out = xp.empty(out.shape, dtype=out.dtype, device=a.device)
    return wrap(out)
