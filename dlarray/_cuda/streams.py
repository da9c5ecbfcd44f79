"""DLPack's stream rules for CUDA memory, in one place.

The ``stream`` argument of ``__dlpack__`` names the stream the *consumer*
will use.  For the CUDA memory kinds (kDLCUDA, kDLCUDAManaged, kDLCUDAHost)
the Python specification gives its values these meanings, and CUDA's own
handles agree (``cudaStreamLegacy`` is 1, ``cudaStreamPerThread`` is 2):

=========  ==========================================================
``None``   the legacy default stream (as 1)
``1``      the legacy default stream
``2``      the per-thread default stream
``> 2``    a ``cudaStream_t``, as an int
``-1``     "do not synchronise": the consumer orders work itself
``0``      refused (``ValueError``): ambiguous between 1 and 2
=========  ==========================================================

The state machine of one export, as producer (:func:`order_for_consumer`):

1. validate ``stream`` (``TypeError`` for a non-int, ``ValueError`` for 0
   or a negative value other than -1);
2. ``-1``: do nothing;
3. managed or pinned memory with ``stream=None``: wait on the host for
   dlarray's work stream (``cudaStreamSynchronize``), because the
   consumers that pass no stream, like NumPy, read that memory from the
   host straight away;
4. the consumer's stream is dlarray's work stream: do nothing, the stream
   itself orders the work;
5. otherwise record an event on dlarray's work stream and make the
   consumer's stream wait for it (``cudaEventRecord`` +
   ``cudaStreamWaitEvent``).  The host does not block, and the device is
   never synchronised as a whole.

Without a loaded CUDA runtime dlarray cannot have queued work on the
memory (every copy and kernel of its own needs the runtime), so after
validation there is nothing to order.

As consumer, dlarray passes its work stream (:func:`work_stream`) on the
producer's GPU.

dlarray's *work stream* is CuPy's current stream when CuPy has been
imported (dlarray computes with CuPy, so that is where its kernels run),
and otherwise the legacy default stream, where its own copies run.
"""

from __future__ import annotations

import operator
import sys
from typing import Any

from dlarray._cuda import runtime
from dlarray._device import Device

LEGACY_DEFAULT = 1
PER_THREAD_DEFAULT = 2
NO_SYNC = -1


def parse_stream(stream: object, func: str) -> int:
    """The stream a consumer named, as an int (``None`` becomes 1)."""
    if stream is None:
        return LEGACY_DEFAULT
    if hasattr(stream, "__index__") and not isinstance(stream, bool):
        stream = operator.index(stream)  # NumPy's integer scalars are ints here
    if not isinstance(stream, int) or isinstance(stream, bool):
        raise TypeError(
            f"{func}(stream={stream!r}): a CUDA stream is an int (1 legacy default, "
            f"2 per-thread default, a cudaStream_t pointer, or -1 for no synchronisation) "
            f"or None"
        )
    if stream == 0:
        raise ValueError(
            f"{func}(stream=0): DLPack forbids 0 for CUDA because it is ambiguous; pass 1 "
            f"for the legacy default stream or 2 for the per-thread default stream"
        )
    if stream < NO_SYNC:
        raise ValueError(
            f"{func}(stream={stream}): negative streams other than -1 (no "
            f"synchronisation) mean nothing"
        )
    if stream >= 2**64:
        raise ValueError(
            f"{func}(stream={stream}): a cudaStream_t is a pointer, so it must be below 2**64"
        )
    return stream


def work_stream(device_index: int | None = None) -> int:
    """dlarray's work stream on the current GPU (or ``device_index``)."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return LEGACY_DEFAULT
    if device_index is None:
        pointer = int(cupy.cuda.get_current_stream().ptr)
    else:
        with cupy.cuda.Device(device_index):
            pointer = int(cupy.cuda.get_current_stream().ptr)
    # CuPy's null stream has pointer 0, which is the legacy default stream.
    return pointer or LEGACY_DEFAULT


def order_for_consumer(stream: object, device: Device, func: str = "__dlpack__") -> None:
    """Make dlarray's pending work on CUDA memory ``device`` visible on the
    consumer's ``stream`` (steps 1-5 above)."""
    consumer = parse_stream(stream, func)
    if consumer == NO_SYNC:
        return
    if not runtime.available():
        return  # no runtime: dlarray cannot have queued work on this memory
    if stream is None and device.memory.machine_wide:
        # Managed and pinned memory are host memory too, and the consumers
        # that pass no stream (NumPy) read them from the host at once.
        synchronize_for_host(device)
        return
    with runtime.on_device(gpu_of(device)) as rt:
        make_wait(rt, consumer, work_stream())


def make_wait(rt: Any, waiting: int, on: int) -> None:
    """Make stream ``waiting`` wait for the work queued on stream ``on`` so
    far (an event), without blocking the host; nothing when they are one."""
    if waiting == on:
        return
    event = rt.event_create()
    try:
        rt.event_record(event, on)
        rt.stream_wait_event(waiting, event)
    finally:
        rt.event_destroy(event)  # legal once the wait is enqueued


def gpu_of(device: Device) -> int | None:
    """The GPU whose streams order work on ``device``'s memory: its own index
    for device memory, the current GPU (None) for managed and pinned memory."""
    return None if device.memory.machine_wide else device.index


def synchronize_for_host(device: Device) -> None:
    """Block until dlarray's work on CUDA memory ``device`` is done, before
    the host reads it."""
    if not runtime.available():
        return  # no runtime: no work of dlarray's can be pending
    with runtime.on_device(gpu_of(device)) as rt:
        rt.stream_synchronize(work_stream())
