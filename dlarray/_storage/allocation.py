"""New arrays on any memory kind: the size of their storage, and the one
allocation primitive every layer above builds on (creation, copies, the
engines' results, the exchange table's allocator)."""

from __future__ import annotations

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._device import Device
from dlarray._dtypes import DType
from dlarray._storage.family import family_of


def storage_bytes(shape: tuple[int, ...], dtype: DType, padded: bool) -> int:
    """Bytes needed for a C-contiguous array (sub-byte dtypes packed unless
    ``padded``)."""
    count = 1
    for d in shape:
        count *= d
    bits = 8 if padded and dtype.is_subbyte else dtype.bits
    return (count * bits + 7) // 8


def check_allocatable(device: Device) -> None:
    """Raise unless dlarray can allocate on ``device`` in this process:
    ``ValueError`` for a kind it never allocates, and
    :class:`~dlarray.CUDAUnavailableError` or
    :class:`~dlarray.SYCLUnavailableError` (each a ``ValueError`` and a
    ``BufferError``) naming what is missing for the CUDA and SYCL kinds."""
    family_of(device).check_allocatable(device)


def new_array(
    shape: tuple[int, ...], dtype: DType, device: Device, *, zero: bool, padded: bool = False
) -> ArrayBase:
    """A C-contiguous, writable array on ``device``."""
    padded = padded and dtype.is_subbyte
    # The C core's limits (at most 64 axes; NumPy's size rule, for an empty
    # array too), asked before any memory is allocated.
    _core.check_shape(shape, dtype.dlpack)
    nbytes = storage_bytes(shape, dtype, padded)
    storage, pointer = family_of(device).allocate(device, nbytes, zero)
    flags = _core.ARRAY_PADDED if padded else 0
    return _core.new_array(storage, pointer, 0, shape, None, dtype.dlpack, device.dlpack, flags)
