"""kDLOneAPI exchange: the import check, and the ordering of work between
dlarray's queue and a consumer's.

**Import.**  Every imported ``kDLOneAPI`` tensor passes :func:`check_import`
before dlarray takes ownership (the C core calls it; on refusal the capsule
stays unconsumed and its deleter stays the producer's).  As dpctl's notes
prescribe: look up the root device by ``device_id``, ask its default
platform context what kind of USM the pointer is, and refuse
(``BufferError``) a pointer it does not know.  The answer labels the memory
``sycl``, ``sycl_shared`` or ``sycl_host``.

**Streams.**  For SYCL, ``__dlpack__``'s ``stream`` is a ``dpctl.SyclQueue``
(the queue the consumer will use) or None; dpctl and dpnp use these values.

=================  =====================================================
``None``           the consumer names no queue: the producer waits on the
                   host until its queued work on the memory is done, so
                   any consumer may read it at once
``SyclQueue``      the consumer's queue: dlarray's queue gets a barrier,
                   and the consumer's queue a barrier waiting for it; the
                   host does not block (nothing at all when the queue *is*
                   dlarray's)
anything else      ``TypeError``
=================  =====================================================

dpnp itself does nothing for ``None``.  dlarray waits instead, because a
consumer that names no queue (NumPy through a host copy, a C library) has
no other way to be ordered after the producer.  As consumer, dlarray
passes its own queue (:func:`~dlarray._sycl.runtime.work_queue`), so a
producer with work pending on another queue orders it before dlarray's.
"""

from __future__ import annotations

from typing import Any

from dlarray._device import KIND_OF_USM, Device
from dlarray._sycl import runtime


def check_import(array: Any) -> None:
    """Refuse (``BufferError``) an imported kDLOneAPI tensor whose memory
    its device's default context does not know; label it with its USM kind."""
    index = array._dl_device[1]
    try:
        runtime.root_device(index)
    except runtime.SYCLUnavailableError as exc:
        raise BufferError(f"cannot import a kDLOneAPI tensor on device_id {index}: {exc}") from None
    address = array._data
    if address == 0:
        if array.size:
            raise BufferError("a kDLOneAPI tensor with elements has a NULL data pointer")
        kind = "device"  # nothing to look at; dpnp labels these device memory too
    else:
        found = runtime.usm_kind(address, index)
        if found is None:
            device = runtime.root_devices()[index]
            raise BufferError(
                f"the kDLOneAPI tensor's data pointer {address:#x} is not USM known to the "
                f"default platform context of device_id {index} ({device.filter_string}); "
                f"DLPack can only exchange USM bound to that context (the producer must "
                f"allocate there, or copy to the host first)"
            )
        kind = found
    array._owner.assigned_device = Device(KIND_OF_USM[kind], index)


def order_for_consumer(stream: object, device: Device, func: str = "__dlpack__") -> None:
    """Make dlarray's queued work on ``device`` visible to the consumer that
    named ``stream`` (the table above)."""
    queue_type = runtime.dpctl().SyclQueue
    if stream is not None and not isinstance(stream, queue_type):
        raise TypeError(
            f"{func}(stream={stream!r}): for SYCL memory, stream is the consumer's "
            f"dpctl.SyclQueue, or None"
        )
    ours = runtime.work_queue(device.index)
    if stream is None:
        ours.wait()
    elif stream != ours:
        stream.submit_barrier(dependent_events=[ours.submit_barrier()])


def check_exportable(storage: object, device: Device) -> None:
    """``BufferError`` unless the memory is bound to the default platform
    context of its device (the only context a kDLOneAPI consumer can find)."""
    in_default = getattr(storage, "in_default_context", True)
    if not in_default:
        raise BufferError(
            f"this array's memory on {device} was allocated in a SYCL context other than "
            f"the device's default platform context, and DLPack's kDLOneAPI tensors must "
            f"be bound to that context (a consumer has no other way to find it); copy it "
            f"first: dlarray.asarray(x, copy=True)"
        )
