"""Views: new shapes, strides and offsets over the same memory.

Every function here computes a layout and asks the C core for an array that
shares the parent's owner; no element is copied unless a function says so.

Packed sub-byte arrays (fp6, fp4) have no byte address per element, so their
views must stay C-contiguous and start on a byte boundary; `_make_view` is
the single place that checks it.
"""

from __future__ import annotations

import operator
from typing import Any, TypeVar, cast

import dlarray._core as _core

# Views need only the C half of the array object (its layout and _view), so
# this module sits just above the C core, and every layer uses it; a view is
# an array of the type of its parent.
Array = TypeVar("Array", bound=_core.ArrayBase)

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _make_view(
    x: Array, shape: tuple[int, ...], strides: tuple[int, ...], offset_elements: int
) -> Array:
    dtype = x.dtype
    if dtype.is_subbyte and not x._padded:
        offset_bits = offset_elements * dtype.bits
        expected, contiguous = 1, True
        for extent, stride in zip(reversed(shape), reversed(strides), strict=True):
            if extent != 1 and stride != expected:
                contiguous = False
            expected *= extent
        if offset_bits % 8 != 0 or not contiguous:
            raise ValueError(
                f"this view of a packed {dtype.name} array would not be C-contiguous "
                f"or would start inside a byte; packed sub-byte elements have no "
                f"address of their own. Unpack the data first (dlarray.subbyte)"
            )
        byte_offset = x._byte_offset + offset_bits // 8
    else:
        byte_offset = x._byte_offset + offset_elements * dtype.itemsize
    if not all(_INT64_MIN <= v <= _INT64_MAX for v in (*strides, byte_offset)):
        # As subscript.c's: only a producer's layout reaching past the
        # address space gets here (Python ints do not overflow, _view would).
        raise ValueError(
            "the view's strides or offset overflow 64-bit byte arithmetic, so the "
            "array's layout (see x.strides) addresses no real memory. Ask its "
            "producer for a valid layout"
        )
    return cast(Array, x._view(shape, strides, byte_offset))


def _sliced_stride(stride: int, step: int, length: int) -> int:
    """The stride of an axis sliced with ``step``, as subscript.c computes
    it: a product beyond int64 can only come from a step past the axis'
    end, where at most one element is taken and the stride never
    addresses memory, so the parent's is kept."""
    scaled = stride * step
    if length <= 1 and not _INT64_MIN <= scaled <= _INT64_MAX:
        return stride
    return scaled


def basic_index(x: Array, key: Any) -> Array:
    """``x[key]`` for integers, slices, ``...`` and ``None``."""
    if not isinstance(key, tuple):
        key = (key,)
    n_ellipsis = sum(1 for k in key if k is Ellipsis)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_axes > x.ndim:
        raise IndexError(f"too many indices: the array has {x.ndim} axes, the index uses {n_axes}")
    if n_ellipsis == 0:
        key = (*key, Ellipsis)

    shape, strides = x.shape, x._strides
    new_shape: list[int] = []
    new_strides: list[int] = []
    offset = 0
    axis = 0
    for k in key:
        if k is None:
            new_shape.append(1)
            new_strides.append(0)
        elif k is Ellipsis:
            for _ in range(x.ndim - n_axes):
                new_shape.append(shape[axis])
                new_strides.append(strides[axis])
                axis += 1
        elif isinstance(k, slice):
            start, stop, step = k.indices(shape[axis])
            length = len(range(start, stop, step))
            new_shape.append(length)
            new_strides.append(_sliced_stride(strides[axis], step, length))
            if length:
                offset += start * strides[axis]
            axis += 1
        elif isinstance(k, bool) or not hasattr(type(k), "__index__"):
            # A wrong type is a TypeError, as for Python's own sequences.
            raise TypeError(
                f"only integers, slices, Ellipsis (...) and None are valid indices, got {k!r}"
            )
        else:
            i = operator.index(k)
            if not -shape[axis] <= i < shape[axis]:
                raise IndexError(
                    f"index {i} is out of bounds for axis {axis} with size {shape[axis]}"
                )
            offset += (i % shape[axis]) * strides[axis]
            axis += 1
    return _make_view(x, tuple(new_shape), tuple(new_strides), offset)


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """Reorder the axes of ``x`` (a view).

    Examples
    --------
    >>> import dlarray
    >>> dlarray.permute_dims(dlarray.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    axes = tuple(operator.index(a) for a in axes)
    if any(not -x.ndim <= a < x.ndim for a in axes) or sorted(a % x.ndim for a in axes) != list(
        range(x.ndim)
    ):
        raise ValueError(f"permute_dims: axes {axes} are not a permutation of the {x.ndim} axes")
    axes = tuple(a % x.ndim for a in axes)
    shape, strides = x.shape, x._strides
    return _make_view(x, tuple(shape[a] for a in axes), tuple(strides[a] for a in axes), 0)


def _resolve_shape(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
    shape = tuple(operator.index(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1 or any(s < -1 for s in shape):
        raise ValueError(
            f"reshape: invalid shape {shape}: at most one -1 and no other negative extent"
        )
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"reshape: cannot reshape an array of size {size} into shape {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    elif known != size:
        raise ValueError(f"reshape: cannot reshape an array of size {size} into shape {shape}")
    return shape


def retag(
    x: Array,
    dtype: Any,
    *,
    padded: bool | None = None,
    dl_device: tuple[int, int] | None = None,
) -> Array:
    """A view of ``x``'s memory labelled differently: read as another dtype
    of the same storage width, or as memory of another DLPack device (the
    same addresses, e.g. managed memory labelled as host memory for NumPy).

    ``padded`` marks sub-byte elements stored one per byte (default: as
    ``x``); ``dl_device`` defaults to ``x``'s.
    """
    if padded is None:
        padded = x._padded
    return _core.new_array(
        x._owner,
        x._data,
        x._byte_offset,
        x.shape,
        x._strides,
        dtype.dlpack,
        x._dl_device if dl_device is None else dl_device,
        (_core.ARRAY_READONLY if x._readonly else 0) | (_core.ARRAY_PADDED if padded else 0),
    )
