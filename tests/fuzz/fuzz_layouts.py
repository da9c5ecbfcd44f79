"""dlarray arrays of every dtype in every layout, for the producer fuzz tests.

A :class:`Layout` is drawn by :func:`layouts` and made into an array by
:func:`build`: C-contiguous, transposed, sliced with negative steps,
broadcast (zero strides), 0-d, size 0, or an arbitrary strided view of a
buffer, each optionally read-only, for every dtype of
``dlarray._core.dtype_table()``; sub-byte dtypes are packed (C order only)
or padded (one element per byte, any layout).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

import dlarray
from dlarray import _core

DTYPE_NAMES = [name for name, _, _, _ in _core.dtype_table()]
SUBBYTE = {name for name, _, bits, _ in _core.dtype_table() if bits < 8}

KINDS = ("contiguous", "transposed", "negative_step", "broadcast", "zero_d", "size_zero", "strided")
PACKED_KINDS = ("contiguous", "zero_d", "size_zero")


@dataclass(frozen=True)
class Layout:
    """One array to export, printed as the reproducer of a failure."""

    dtype: str
    kind: str
    shape: tuple[int, ...]
    readonly: bool = False
    padded: bool = False
    perm: tuple[int, ...] = ()
    steps: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    source: tuple[int, ...] = ()  # the shape a broadcast starts from


@st.composite
def layouts(draw: st.DrawFn, kinds: tuple[str, ...] = KINDS) -> Layout:
    dtype = draw(st.sampled_from(DTYPE_NAMES))
    kind = draw(st.sampled_from(kinds))
    padded = dtype in SUBBYTE and (kind not in PACKED_KINDS or draw(st.booleans()))
    readonly = draw(st.booleans())
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    if kind == "zero_d":
        return Layout(dtype, kind, (), readonly, padded)
    if kind == "size_zero":
        at = draw(st.integers(0, len(shape) - 1))
        return Layout(dtype, kind, (*shape[:at], 0, *shape[at + 1 :]), readonly, padded)
    if kind == "transposed":
        perm = tuple(draw(st.permutations(range(len(shape)))))
        return Layout(dtype, kind, shape, readonly, padded, perm=perm)
    if kind == "negative_step":
        steps = st.sampled_from([-1, -2, -3, 1, 2])
        n = len(shape)
        chosen = tuple(draw(st.lists(steps, min_size=n, max_size=n)))
        return Layout(dtype, kind, shape, readonly, padded, steps=chosen)
    if kind == "broadcast":
        ones = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
        source = tuple(1 if one else s for one, s in zip(ones, shape, strict=True))
        return Layout(dtype, kind, shape, readonly, padded, source=source)
    if kind == "strided":
        n = len(shape)
        strides = tuple(draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n)))
        return Layout(dtype, kind, shape, readonly, padded, strides=strides)
    return Layout(dtype, kind, shape, readonly, padded)


def _with_flags(x: Any, readonly: bool) -> Any:
    """The same view of the same memory, read-only if asked (as dlarray's
    own retag makes views)."""
    if not readonly:
        return x
    flags = _core.ARRAY_READONLY | (_core.ARRAY_PADDED if x._padded else 0)
    return _core.new_array(
        x._owner, x._data, x._byte_offset, x.shape, x._strides, x._dl_dtype, x._dl_device, flags
    )


def _strided_view(layout: Layout, dtype: Any) -> Any:
    """A view with arbitrary strides over a 1-D buffer that holds it."""
    reaches = [(s - 1) * step for s, step in zip(layout.shape, layout.strides, strict=True)]
    low = sum(r for r in reaches if r < 0)
    high = sum(r for r in reaches if r > 0)
    base = dlarray.zeros((high - low + 1,), dtype=dtype, padded=layout.padded)
    itemsize = 1 if layout.padded else dtype.bits // 8
    flags = _core.ARRAY_PADDED if layout.padded else 0
    return _core.new_array(
        base._owner,
        base._data,
        base._byte_offset - low * itemsize,
        layout.shape,
        layout.strides,
        base._dl_dtype,
        base._dl_device,
        flags,
    )


def build(layout: Layout) -> Any:
    """The array a layout describes."""
    dtype = dlarray.DTYPES_BY_NAME[layout.dtype]
    padded = layout.padded

    def zeros(shape: tuple[int, ...]) -> Any:
        return dlarray.zeros(shape, dtype=dtype, padded=padded)

    if layout.kind == "transposed":
        x = dlarray.permute_dims(zeros(layout.shape), layout.perm)
    elif layout.kind == "negative_step":
        x = zeros(layout.shape)[tuple(slice(None, None, step) for step in layout.steps)]
    elif layout.kind == "broadcast":
        x = dlarray.broadcast_to(zeros(layout.source), layout.shape)
    elif layout.kind == "strided":
        x = _strided_view(layout, dtype)
    else:
        x = zeros(layout.shape)
    return _with_flags(x, layout.readonly)
