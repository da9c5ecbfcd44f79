"""Allocating on any memory kind, and copying between kinds.

One copy primitive serves every path that moves data: ``to_device``,
``asarray(..., device=)``, ``from_dlpack(..., device=)``, and the
producer's ``__dlpack__(dl_device=..., copy=True)``.  Host-to-host copies
are the C core's strided copy; anything touching CUDA memory is one
``cudaMemcpyAsync`` (direction inferred from unified addresses) on dlarray's
work stream, followed by a wait when the host will read the result;
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

import ctypes
import math
import sys
from typing import Any

from dlarray import _core
from dlarray._array import DLArray
from dlarray._device import CPU, CUDA_KINDS, SYCL_KINDS, Device
from dlarray._dtypes import DType
from dlarray._storage import HostStorage

# Memory the host may read directly (after waiting for the device's work).
HOST_READABLE = frozenset({"cpu", "cuda_host", "cuda_managed", "sycl_host", "sycl_shared"})


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
    if device == CPU:
        return
    if device.kind in SYCL_KINDS:
        from dlarray._sycl.runtime import root_device

        root_device(device.index)
        return
    if device.kind not in CUDA_KINDS:
        raise ValueError(
            f"dlarray cannot allocate memory on {device}; it allocates host memory ('cpu'), "
            f"CUDA memory ('cuda', 'cuda_managed', 'cuda_host') and SYCL USM ('sycl', "
            f"'sycl_shared', 'sycl_host')"
        )
    from dlarray._cuda.runtime import runtime

    runtime()


def new_array(
    shape: tuple[int, ...], dtype: DType, device: Device, *, zero: bool, padded: bool = False
) -> DLArray:
    """A C-contiguous, writable array on ``device``."""
    padded = padded and dtype.is_subbyte
    nbytes = storage_bytes(shape, dtype, padded)
    # NumPy's rule: the extents other than zero must multiply within int64
    # (an empty array's C-contiguous strides are computed from them), and
    # the bytes must be addressable.
    nonzero_extents = math.prod(d for d in shape if d)
    if nbytes > sys.maxsize or nonzero_extents > sys.maxsize:
        raise ValueError(
            f"an array of shape {shape} and dtype {dtype} is too big: its nonzero extents "
            f"multiply to {nonzero_extents} elements ({nbytes} bytes), past the "
            f"limit of {sys.maxsize}; use a smaller shape"
        )
    if device == CPU:
        storage: object = HostStorage(nbytes, zero=zero)
        pointer = storage.pointer  # type: ignore[attr-defined]
    elif device.kind in SYCL_KINDS:
        from dlarray._storage.sycl import allocate as allocate_usm

        usm = allocate_usm(device, nbytes)
        storage, pointer = usm, usm.pointer
        if zero and nbytes:
            usm.owner.memset(0)  # type: ignore[attr-defined]
    else:
        check_allocatable(device)
        from dlarray._cuda.runtime import on_device
        from dlarray._cuda.streams import gpu_of, work_stream
        from dlarray._storage.cuda import allocate

        storage = allocate(device, nbytes)
        pointer = storage.pointer
        if zero and nbytes:
            with on_device(gpu_of(device)) as rt:
                rt.memset_async(pointer, 0, nbytes, work_stream())
    flags = _core.ARRAY_PADDED if padded else 0
    return _core.new_array(storage, pointer, 0, shape, None, dtype.dlpack, device.dlpack, flags)


def copy_to_device(x: DLArray, target: Device) -> DLArray:
    """A new, writable, C-contiguous copy of ``x`` on ``target``."""
    source = x.device
    families = {_family(source), _family(target)}
    if None in families:
        raise BufferError(
            f"dlarray cannot copy from {source} to {target}: it moves data between host "
            f"memory, the CUDA memory kinds and the SYCL USM kinds"
        )
    if not getattr(x._owner, "in_default_context", True):
        return copy_to_device(_host_copy_of_foreign(x), target)
    if families == {"cuda", "sycl"}:
        return copy_to_device(copy_to_device(x, CPU), target)
    if not x._is_c_contiguous():
        if source.kind in HOST_READABLE:
            x, source = _compact_on_host(x), CPU
        elif target.kind in HOST_READABLE:
            return _copy_span(x, source, target)
        elif source.kind in SYCL_KINDS:
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


def copy_array(x: DLArray) -> DLArray:
    """A new, writable, C-contiguous copy of ``x`` on its own device."""
    return copy_to_device(x, x.device)


def _family(device: Device) -> str | None:
    if device == CPU:
        return "host"
    if device.kind in CUDA_KINDS:
        return "cuda"
    if device.kind in SYCL_KINDS:
        return "sycl"
    return None


def _host_copy_of_foreign(x: DLArray) -> DLArray:
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


def synchronize_for_host(device: Device) -> None:
    """Wait until the work queued on ``device``'s memory is done, before the
    host reads it."""
    if device.kind in SYCL_KINDS:
        from dlarray._sycl.runtime import synchronize

        synchronize(device.index)
        return
    from dlarray._cuda.streams import synchronize_for_host as cuda_synchronize

    cuda_synchronize(device)


def order_for_consumer(stream: object, device: Device, func: str = "__dlpack__") -> None:
    """Make dlarray's queued work on ``device``'s memory visible to the
    consumer that named ``stream``: a CUDA stream (:mod:`dlarray._cuda.streams`)
    or a SYCL queue (:mod:`dlarray._sycl.exchange`)."""
    if device.kind in SYCL_KINDS:
        from dlarray._sycl.exchange import order_for_consumer as order_for_queue

        order_for_queue(stream, device, func)
        return
    from dlarray._cuda.streams import order_for_consumer as order_for_stream

    order_for_stream(stream, device, func)


def _compact_on_host(x: DLArray) -> DLArray:
    synchronize_for_host(x.device)
    out = new_array(x.shape, x.dtype, CPU, zero=False, padded=x._padded)
    out._copy_from(x)
    return out


def _compact_on_gpu(x: DLArray, target: Device) -> DLArray:
    """A contiguous copy made by CuPy (which says so when it is missing)."""
    from dlarray._engine import cupy_engine

    compact = cupy_engine.wrap(cupy_engine.to_cupy(x).copy(order="C"))
    return compact if target == x.device else copy_to_device(compact, target)


def _first_byte(x: DLArray) -> int:
    return int(x._data) + int(x._byte_offset)


def _nbytes(x: DLArray) -> int:
    return storage_bytes(x.shape, x.dtype, x._padded)


def _copy_span(x: DLArray, source: Device, target: Device) -> DLArray:
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


def _memcpy(dst: DLArray, src_address: int, nbytes: int, source: Device, target: Device) -> None:
    """One ``cudaMemcpyAsync`` on the work stream of the GPU involved, and a
    wait when the host reads the result next; or one SYCL ``memcpy``."""
    if nbytes == 0:
        return
    if source.kind in SYCL_KINDS or target.kind in SYCL_KINDS:
        _usm_memcpy(_first_byte(dst), src_address, nbytes, source, target)
        return
    from dlarray._cuda.runtime import on_device
    from dlarray._cuda.streams import gpu_of, work_stream

    with on_device(gpu_of(target if target.kind == "cuda" else source)) as rt:
        stream = work_stream()
        rt.memcpy_async(_first_byte(dst), src_address, nbytes, stream)
        if target.kind in HOST_READABLE:
            rt.stream_synchronize(stream)


def _usm_memcpy(
    dst_address: int, src_address: int, nbytes: int, source: Device, target: Device
) -> None:
    """``queue.memcpy`` on dlarray's queue of the SYCL device involved, after
    the work already queued there (which may still be writing the source)."""
    from dlarray._sycl.runtime import usm_memory, work_queue

    index = (source if source.kind in SYCL_KINDS else target).index
    queue = work_queue(index)
    queue.wait()

    def end(device: Device, address: int) -> Any:
        if device.kind in SYCL_KINDS:
            return usm_memory(address, nbytes, device.index)
        return (ctypes.c_char * nbytes).from_address(address)  # host bytes, writable

    queue.memcpy(end(target, dst_address), end(source, src_address), nbytes)
