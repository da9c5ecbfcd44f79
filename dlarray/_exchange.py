"""The Python side of DLPack's C exchange table, for devices whose runtimes
dlarray drives from Python (CUDA through cuda-bindings, SYCL through dpctl).

The table itself is C (``dlarray/_core/exchange_producer.c`` and
``exchange_consumer.c``); on the CPU it never calls into Python.  Elsewhere
it calls the three hooks below, registered with the core at import:

:func:`work_stream`
    the table's ``current_work_stream``: the stream (CUDA) or queue (SYCL)
    dlarray's work on a device runs on, as an address;
:func:`allocate`
    the table's ``managed_tensor_allocator`` for memory other than the
    CPU's: a new DLArray on that device;
:func:`order_import`
    after ``dlarray.from_dlpack`` took a tensor through a producer's table
    (whose functions do not synchronise), order dlarray's work after the
    producer's current stream; or answer False, and ``from_dlpack`` gives
    the tensor back and asks ``__dlpack__(stream=...)`` instead, which has
    the producer order it.
"""

from __future__ import annotations

from typing import Any

from dlarray import _core
from dlarray._cuda import streams
from dlarray._device import Device, DLDeviceType

#: CUDA's handle of the legacy default stream (``cudaStreamLegacy``).  A
#: producer's NULL stream is CUDA's default stream, the same one.
CUDA_STREAM_LEGACY = streams.LEGACY_DEFAULT


def work_stream(device_type: int, device_id: int) -> int:
    """dlarray's stream on a CUDA memory kind, or its queue on a SYCL
    device, as an address (``cudaStream_t`` / ``sycl::queue*``)."""
    if device_type == DLDeviceType.kDLOneAPI:
        from dlarray._sycl import runtime

        return int(runtime.work_queue(device_id).addressof_ref())
    # Device memory: that GPU's stream; managed or pinned: the current GPU's.
    return streams.work_stream(streams.gpu_of(Device.from_dlpack((device_type, device_id))))


def allocate(shape: tuple[int, ...], dtype: Any, pair: tuple[int, int]) -> Any:
    """A new DLArray of ``shape`` and ``dtype`` on the device ``pair``."""
    from dlarray._creation import empty

    # A bare kDLOneAPI pair is USM device memory, as Device.from_dlpack reads it.
    return empty(shape, dtype=dtype, device=Device.from_dlpack(pair))


def order_import(device_type: int, device_id: int, producer_stream: int) -> bool:
    """Order dlarray's work on the device after ``producer_stream`` (the
    producer's current work stream there); False when dlarray cannot."""
    if device_type not in streams.CUDA_DEVICE_TYPES:
        # SYCL: only dlarray's own queue needs no ordering.  Other devices
        # have no runtime in dlarray to order with.
        return device_type == DLDeviceType.kDLOneAPI and _is_own_queue(device_id, producer_stream)
    from dlarray._cuda.runtime import available, on_device

    if not available():
        return False
    producer = producer_stream or CUDA_STREAM_LEGACY  # NULL: the default stream
    device = Device.from_dlpack((device_type, device_id))
    with on_device(streams.gpu_of(device)) as rt:
        if device.kind != "cuda":
            # Managed and pinned memory: dlarray computes on them from the
            # host (NumPy), so the host waits for the producer's work.
            rt.stream_synchronize(producer)
            return True
        streams.make_wait(rt, streams.work_stream(), producer)
    return True


def _is_own_queue(device_id: int, producer_queue: int) -> bool:
    from dlarray._sycl import runtime

    if not runtime.available():
        return False
    return work_stream(DLDeviceType.kDLOneAPI, device_id) == producer_queue


_core.set_exchange_hooks(work_stream, allocate, order_import)
