"""Copying between memory kinds.

One copy primitive serves every path that moves data: ``to_device``,
``asarray(..., device=)``, ``from_dlpack(..., device=)``, and the
producer's ``__dlpack__(dl_device=..., copy=True)``.  Host-to-host copies
are the C core's strided copy; anything touching CUDA memory is one
``cudaMemcpyAsync`` (direction inferred from unified addresses) on dlarray's
work stream, after dlarray's earlier work on both ends (on whatever stream
and GPU it was queued: see :mod:`dlarray._cuda.streams`), followed by a wait
when the host will read the result;
anything touching SYCL USM is one ``queue.memcpy`` (which waits) on the
queue of the SYCL end, after that queue's pending work.  CUDA and SYCL
memory never meet: a copy between them goes through the host.

Every copy is C-contiguous.  A non-contiguous source in host-readable
memory is compacted on the host first (the C core's strided copy).  One in
GPU memory is copied to the host as the byte span its elements cover and
compacted there, so device-to-host copies need no kernel and work without
CuPy; a non-contiguous GPU-to-GPU copy is compacted by CuPy, and a
non-contiguous SYCL device-memory copy goes through the host.
"""

from __future__ import annotations

from typing import Any

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._device import CPU, Device
from dlarray._engine import cupy_engine
from dlarray._engine.routing import engine_view
from dlarray._storage.allocation import new_array, storage_bytes
from dlarray._storage.family import family_of


def copy_to_device(x: ArrayBase, target: Device) -> ArrayBase:
    """A new, writable, C-contiguous copy of ``x`` on ``target``."""
    source = x.device
    families = {source.memory.family, target.memory.family}
    if "none" in families:
        raise BufferError(
            f"dlarray cannot copy from {source} to {target}: it moves data between host "
            f"memory, the CUDA memory kinds and the SYCL USM kinds"
        )
    try:
        family_of(target).check_allocatable(target)
    except ValueError as exc:
        if isinstance(exc, BufferError):  # CUDA or SYCL missing: says what to install
            raise
        # A copy is an exchange: what cannot be placed there is a BufferError.
        raise BufferError(f"dlarray cannot copy from {source} to {target}: {exc}") from None
    if not getattr(x._owner, "in_default_context", True):
        return copy_to_device(_host_copy_of_foreign(x), target)
    if families == {"cuda", "sycl"}:
        return copy_to_device(copy_to_device(x, CPU), target)
    if not x._is_c_contiguous():
        if source.memory.host_readable:
            x, source = _compact_on_host(x), CPU
        elif target.memory.host_readable:
            return _copy_span(x, source, target)
        elif source.memory.family == "sycl":
            return copy_to_device(_copy_span(x, source, CPU), target)
        else:
            return _compact_on_gpu(x, target)
    if source == CPU and target == CPU:
        out = new_array(x.shape, x.dtype, CPU, zero=False, padded=x._padded)
        out._copy_from(x)
        return out
    out = new_array(x.shape, x.dtype, target, zero=False, padded=x._padded)
    _memcpy(out, _first_byte(x), _nbytes(x), source, target)
    return out


def copy_array(x: ArrayBase) -> ArrayBase:
    """A new, writable, C-contiguous copy of ``x`` on its own device."""
    return copy_to_device(x, x.device)


def _host_copy_of_foreign(x: ArrayBase) -> ArrayBase:
    """``x``'s whole allocation copied to the host by its own queue, viewed
    as ``x``: for SYCL memory outside the default context, which dlarray's
    queues cannot address."""
    storage: Any = x._owner
    memory = storage.owner
    memory.sycl_queue.wait()
    raw = memory.copy_to_host()  # a NumPy uint8 array of every byte
    offset = int(x._data) + int(x._byte_offset) - storage.pointer
    flags = _core.ARRAY_PADDED if x._padded else 0
    return _core.new_array(
        raw, raw.ctypes.data, offset, x.shape, x._strides, x.dtype.dlpack, CPU.dlpack, flags
    )


def _compact_on_host(x: ArrayBase) -> ArrayBase:
    device = x.device
    family_of(device).synchronize_for_host(device)
    out = new_array(x.shape, x.dtype, CPU, zero=False, padded=x._padded)
    out._copy_from(x)
    return out


def _compact_on_gpu(x: ArrayBase, target: Device) -> ArrayBase:
    """A contiguous copy made by CuPy (which says so when it is missing), on
    its current stream, after dlarray's earlier work on ``x``'s memory (the
    engine view orders it)."""
    compact = cupy_engine.compact_copy(engine_view(x))
    return compact if target == x.device else copy_to_device(compact, target)


def _first_byte(x: ArrayBase) -> int:
    return int(x._data) + int(x._byte_offset)


def _nbytes(x: ArrayBase) -> int:
    return storage_bytes(x.shape, x.dtype, x._padded)


def _copy_span(x: ArrayBase, source: Device, target: Device) -> ArrayBase:
    """Copy the bytes ``x``'s elements cover into host-readable ``target``
    memory, then compact them there."""
    # Packed sub-byte arrays are always contiguous; padded ones take a byte.
    itemsize = 1 if x._padded else x.dtype.bits // 8
    low = sum(s * (n - 1) for s, n in zip(x._strides, x.shape, strict=True) if s < 0)
    high = sum(s * (n - 1) for s, n in zip(x._strides, x.shape, strict=True) if s > 0)
    span_items = high - low + 1
    span = new_array((span_items,), x.dtype, target, zero=False, padded=x._padded)
    _memcpy(span, _first_byte(x) + low * itemsize, span_items * itemsize, source, target)
    strided = span._view(x.shape, x._strides, -low * itemsize)
    out = new_array(x.shape, x.dtype, target, zero=False, padded=x._padded)
    out._copy_from(strided)
    return out


def _memcpy(dst: ArrayBase, src_address: int, nbytes: int, source: Device, target: Device) -> None:
    """Copy ``nbytes`` by the family of the end that is not host memory (a
    CUDA or a SYCL copy; the two never meet, see copy_to_device)."""
    if nbytes == 0:
        return
    device_end = target if source == CPU else source
    family_of(device_end).copy_bytes(_first_byte(dst), src_address, nbytes, source, target)
