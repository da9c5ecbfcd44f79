"""Views: new shapes, strides and offsets over the same memory.

Every function here computes a layout and asks the C core for an array that
shares the parent's owner; no element is copied unless a function says so.

Every view is made by the C core's ``ArrayBase._subview`` (subscript.c),
the single place of the rules every view follows: packed sub-byte arrays
(fp6, fp4) have no byte address per element, so their views must stay
C-contiguous and start on a byte boundary, and a layout must stay within
64-bit byte arithmetic.  ``x[key]`` for basic keys is C's too
(``ArrayBase._basic_view``).
"""

from __future__ import annotations

import operator
from typing import Any, TypeVar

import dlarray._core as _core

# Views need only the C half of the array object (its layout and _view), so
# this module sits just above the C core, and every layer uses it; a view is
# an array of the type of its parent.
Array = TypeVar("Array", bound=_core.ArrayBase)


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
    return x._subview(tuple(shape[a] for a in axes), tuple(strides[a] for a in axes), 0)


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
