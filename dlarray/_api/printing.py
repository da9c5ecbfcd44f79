"""``repr`` and ``str`` of arrays: the values, read from wherever they live,
and summarised when there are many.

``repr(x)`` is the ``dlarray.asarray(...)`` call that makes ``x`` again;
``str(x)`` is NumPy's layout of the values (``[1. 2. 3.]``).  An array of
more than :data:`THRESHOLD` elements is *summarised* as NumPy does by
default: each axis longer than ``2 * EDGE_ITEMS`` shows its first and last
:data:`EDGE_ITEMS` entries around ``...``.  Only those corner elements are
read (and, for device memory, copied to the host), so the repr of a
10-million-element array costs what the repr of a 7-element one does.

The extended floating dtypes (bfloat16, fp8, fp6, fp4) are decoded from their
storage codes with :mod:`dlarray._float_formats`, with or without
``ml_dtypes``: the output is the same either way.
"""

from __future__ import annotations

import itertools
import sys
from typing import Any, Final

import numpy as np

from dlarray import subbyte
from dlarray._core import ArrayBase
from dlarray._device import CPU
from dlarray._engine.numpy_engine import to_numpy
from dlarray._float_formats import FORMATS, decode_all
from dlarray._transfer import copy_to_device
from dlarray.subbyte import _storage_codes

#: An array of more elements than this is summarised (NumPy's default).
THRESHOLD: Final = 1000
#: The entries shown at each end of a summarised axis (NumPy's default).
EDGE_ITEMS: Final = 3

# The axis positions of a summarised axis: EDGE_ITEMS + 1 from the start and
# EDGE_ITEMS from the end.  The one extra entry is never shown: it stands
# where "..." goes, so that NumPy's array2string (asked to summarise every
# axis longer than 2 * EDGE_ITEMS) prints the corners exactly as it prints
# the whole array.
_KEPT: Final = EDGE_ITEMS + 1


def repr_of(x: ArrayBase) -> str:
    """``repr(x)``: the ``dlarray.asarray(...)`` call that makes ``x`` again.

    The forms, each with ``, device=Device(...)`` added for memory other than
    the host's:

    - ``dlarray.asarray(<nested list>, dtype=...)``, the values in full, for
      arrays of up to :data:`THRESHOLD` elements; ``eval`` gives an equal
      array (with ``inf`` and ``nan`` defined).
    - ``dlarray.asarray(<nested list with ...>, shape=..., dtype=...)`` for
      larger arrays: each long axis summarised, and the shape stated, since
      the list no longer shows it.  This is a description, not a call to
      evaluate.
    - ``dlarray.empty(<shape>, dtype=...)`` for arrays with no elements
      (a nested list cannot show a shape such as ``(0, 3)``).
    - ``dlarray.asarray(<unreadable>, shape=..., dtype=...)`` when the
      values cannot be copied to the host (no runtime for the memory).

    Examples
    --------
    >>> import dlarray
    >>> dlarray.asarray([[1.0, 2.0], [3.0, 4.0]])
    dlarray.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=dlarray.float64)
    >>> dlarray.arange(1_000_000)
    dlarray.asarray([0, 1, 2, ..., 999997, 999998, 999999], shape=(1000000,), dtype=dlarray.int64)
    >>> dlarray.zeros((0, 3))
    dlarray.empty((0, 3), dtype=dlarray.float64)
    >>> dlarray.asarray(7, dtype=dlarray.uint8)
    dlarray.asarray(7, dtype=dlarray.uint8)
    """
    where = "" if x.device == CPU else f", device={x.device!r}"
    if x.size == 0:
        return f"dlarray.empty({x.shape}, dtype={x.dtype!r}{where})"
    summarised = x.size > THRESHOLD
    values = _read(x, summarised)
    if values is None:
        return f"dlarray.asarray(<unreadable>, shape={x.shape}, dtype={x.dtype!r}{where})"
    body = _listing(values.tolist(), _elided(x.shape, summarised))
    shape = f", shape={x.shape}" if summarised else ""
    return f"dlarray.asarray({body}{shape}, dtype={x.dtype!r}{where})"


def str_of(x: ArrayBase) -> str:
    """``str(x)``: the values laid out as NumPy prints them, without dtype or device.

    Summarised as :func:`repr_of` summarises; NumPy's other print options
    (``numpy.set_printoptions``: precision, line width...) apply.  Extended
    floating values print as the float64 numbers they exactly are.  When the
    values cannot be read, ``str(x)`` is ``repr(x)``, which states the
    shape, dtype and device.

    Examples
    --------
    >>> import dlarray
    >>> print(dlarray.asarray([1.0, 2.5, -3.0]))
    [ 1.   2.5 -3. ]
    >>> print(dlarray.asarray([[1, 2], [3, 4]], dtype=dlarray.int8))
    [[1 2]
     [3 4]]
    >>> print(dlarray.arange(10_000))
    [   0    1    2 ... 9997 9998 9999]
    >>> from dlarray import subbyte
    >>> print(subbyte.from_codes([1, 2, 3, 15], dlarray.float4_e2m1fn))  # packed fp4
    [ 0.5  1.   1.5 -6. ]
    """
    # str leaves the device out, as NumPy and CuPy do: it is for reading
    # the values, which are the same wherever they live; repr says where.
    summarised = x.size > THRESHOLD
    values = _read(x, summarised)
    if values is None:
        return repr_of(x)
    if x.ndim == 0:
        return str(values[()])  # as NumPy: the str of the scalar
    return np.array2string(
        values,
        threshold=0 if summarised else sys.maxsize,
        edgeitems=EDGE_ITEMS,
        separator=" ",
    )


# ---- which elements: the corners ----


def _positions(extent: int, summarised: bool) -> list[int]:
    """The indices read along one axis."""
    if summarised and extent > 2 * EDGE_ITEMS:
        return [*range(_KEPT), *range(extent - EDGE_ITEMS, extent)]
    return list(range(extent))


def _elided(shape: tuple[int, ...], summarised: bool) -> tuple[bool, ...]:
    """For each axis, whether it is shown with ``...``."""
    return tuple(summarised and extent > 2 * EDGE_ITEMS for extent in shape)


def _listing(values: Any, elided: tuple[bool, ...]) -> str:
    """The nested-list text of ``values`` (``ndarray.tolist()`` of the
    corners), with ``...`` in place of each elided axis's extra entry."""
    if not any(elided):
        return repr(values)  # the whole list: Python's own repr
    items = [_listing(item, elided[1:]) for item in values]
    if elided[0]:
        items[EDGE_ITEMS] = "..."
    return "[" + ", ".join(items) + "]"


# ---- reading the values ----


def _read(x: ArrayBase, summarised: bool) -> Any:
    """The corner elements of ``x`` as a host NumPy array (float64 for the
    extended floating dtypes), or None when its memory cannot be read."""
    if x.size == 0:  # nothing to read, wherever it lives
        kind = np.float64 if x.dtype in FORMATS else np.dtype(x.dtype.name)
        return np.empty(x.shape, dtype=kind)
    positions = [_positions(extent, summarised) for extent in x.shape]
    if x.device == CPU:
        return _host_values(x, positions)
    # Other memory is copied to the host, even the kinds the host can read
    # (managed, pinned, USM shared and host): the copy waits for the
    # device's queued work, a direct read would not.
    try:
        if not summarised or (x.dtype.is_subbyte and not x._padded):
            # Small arrays in one copy.  Packed sub-byte elements have no
            # address of their own to slice the corners at: copied whole.
            return _host_values(copy_to_device(x, CPU), positions)
        return _device_corners(x, positions)
    except BufferError:  # no runtime, or memory dlarray cannot copy
        return None


def _device_corners(x: ArrayBase, positions: list[list[int]]) -> Any:
    """The corners of a summarised device array, copied to the host one
    run along the last axis at a time (one copy per run, of its few
    elements), and assembled there."""
    *leading, last = positions
    runs = _runs(last)
    out: Any = None
    for lead in itertools.product(*(enumerate(axis) for axis in leading)):
        at = tuple(p for p, _ in lead)
        index = tuple(i for _, i in lead)
        for start, stop, first in runs:
            run = (*index, slice(start, stop))
            values = _host_values(copy_to_device(x[run], CPU), [list(range(stop - start))])
            if out is None:
                out = np.empty(tuple(map(len, positions)), dtype=values.dtype)
            where = (*at, slice(first, first + stop - start))
            out[where] = values
    return out


def _runs(indices: list[int]) -> list[tuple[int, int, int]]:
    """``indices`` as runs of consecutive values: (start, stop, position of start)."""
    runs: list[tuple[int, int, int]] = []
    for position, index in enumerate(indices):
        if runs and runs[-1][1] == index:
            start, _, first = runs[-1]
            runs[-1] = (start, index + 1, first)
        else:
            runs.append((index, index + 1, position))
    return runs


def _host_values(x: ArrayBase, positions: list[list[int]]) -> Any:
    """The elements at ``positions`` (one list per axis) of a host array."""
    index = _index(positions, x.shape)
    if x.dtype not in FORMATS:
        return to_numpy(x)[index]
    # Extended floating dtypes: read the storage codes, decode them here.
    # ml_dtypes is not asked even when installed, so that what prints does
    # not depend on it.
    if x.dtype.is_subbyte and not x._padded:
        codes = _packed_codes(x, positions)  # the corners only, not every code
    else:
        codes = to_numpy(_storage_codes(x))[index]
    decoded = decode_all(codes.ravel().tolist(), x.dtype)
    return np.asarray(decoded, dtype=np.float64).reshape(codes.shape)


def _index(positions: list[list[int]], shape: tuple[int, ...]) -> Any:
    """A NumPy index taking ``positions``: ``...`` (a view, no copy) when
    they are every element, else an open mesh (a copy of the corners)."""
    if all(len(p) == extent for p, extent in zip(positions, shape, strict=True)):
        return ...
    return np.ix_(*(np.asarray(p, dtype=np.intp) for p in positions))


def _packed_codes(x: ArrayBase, positions: list[list[int]]) -> Any:
    """The codes at ``positions`` of a packed sub-byte array, read from its
    bytes (element ``i`` is bits ``[i*bits, (i+1)*bits)``, lowest first;
    a packed array is always C-contiguous)."""
    bits = x.dtype.bits
    raw = to_numpy(subbyte.packed_bytes(x))
    index = _index(positions, x.shape)
    if index is ...:  # every element (a small array)
        flat = np.arange(x.size, dtype=np.intp).reshape(x.shape)
    else:
        flat = np.ravel_multi_index(index, x.shape)
    first_bit = flat * bits
    low = first_bit // 8
    # An element may straddle two bytes; when it does not, the second byte
    # (clipped at the end of the buffer) is shifted out by the mask.
    high = np.minimum(low + 1, raw.size - 1)
    word = raw[low].astype(np.uint16) | (raw[high].astype(np.uint16) << 8)
    return (word >> (first_bit % 8)) & ((1 << bits) - 1)
