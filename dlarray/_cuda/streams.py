"""DLPack's stream rules for CUDA memory, and the ordering of dlarray's own
work on it, in one place.

The values of ``stream``
------------------------

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

dlarray's *work stream* on a GPU is CuPy's current stream there when CuPy
has been imported (dlarray computes with CuPy, so that is where its kernels
run), and otherwise the legacy default stream.  Its own fills and copies are
queued there too, each on the work stream current *when it is queued*.

Where dlarray's work is: one state per memory
---------------------------------------------

Every CUDA memory -- one GPU's device memory (``Device("cuda", i)``), the
managed memory, the pinned memory -- is in one of two states, kept here
per runtime:

* **idle**: no work dlarray queued on it can still be running;
* **on (g, S)**: every piece of work dlarray queued on it (a memset, a copy
  from or to it, a CuPy kernel, an import the producer ordered) comes
  before the current end of stream ``S`` on GPU ``g``.

Work is queued on dlarray's *work stream* T of a GPU g, and every reader
first chains the memory's earlier work onto it (:func:`queued_on`):

* **dlarray queues work touching it on (g, T)** (a memset, a copy, a CuPy
  computation, an import; :func:`queued_on`, :func:`enter`): if it is on
  (h, S) with another stream or GPU, an event is recorded on S (on GPU h)
  and T waits for it (``cudaStreamWaitEvent``); it is then on (g, T);
* **a consumer will read it on stream C** (``__dlpack__(stream=C)``,
  ``to_device(..., stream=C)``; :func:`order_for_consumer`): the same, then
  C waits for an event on T, if C is not T;
* **the host reads or writes it** (``__array__``, the buffer protocol,
  NumPy computing on managed or pinned memory, a copy to host-readable
  memory, a consumer passing ``stream=None`` for managed or pinned memory;
  :func:`synchronize_for_host`): the same, then ``cudaStreamSynchronize(T)``;
  it is then idle.

Readers wait for the work stream even when the memory is idle, as DLPack's
rules always had dlarray do: the work stream is CuPy's current stream, where
CuPy -- and so whoever hands arrays between dlarray and CuPy -- works on
dlarray's memory.

Every crossing to another stream chains the new stream after the old one,
so dlarray's work on one memory is one ordered line however often the
current stream changes, and a stream switch costs one event, not one per
operation.  The state is per memory, not per array: switching streams
orders the new stream after *all* of dlarray's earlier work on that GPU's
memory (never too little, sometimes more than one array needed).  A copy
between two GPUs touches both memories, so it waits for the source GPU's
work, and later work on the source waits for the copy.

Two limits: the state is shared by every thread (a lock guards it), but the
per-thread default stream (2) of one thread cannot be waited for from
another; and work that other libraries queue on dlarray's memory, on
streams other than the work stream, is theirs to order.

One export, as producer (:func:`order_for_consumer`)
----------------------------------------------------

1. validate ``stream`` (``TypeError`` for a non-int, ``ValueError`` for 0
   or a negative value other than -1);
2. ``-1``: do nothing;
3. managed or pinned memory with ``stream=None``: the host waits for the
   memory's pending work and the work stream (``cudaStreamSynchronize``),
   because the consumers that pass no stream, like NumPy, read that memory
   from the host at once;
4. otherwise the consumer's stream waits for them (events), as above.

Without a loaded CUDA runtime dlarray cannot have queued work on the
memory (every copy and kernel of its own needs the runtime), so after
validation there is nothing to order.

As consumer, dlarray passes its work stream on the producer's GPU
(:func:`enter`), after ordering its own pending work there.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import sys
import threading
import weakref
from collections.abc import Iterator
from typing import Any, NamedTuple

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
    return _work_stream_and_owner(device_index)[0]


def _work_stream_and_owner(device_index: int | None = None) -> tuple[int, Any]:
    """dlarray's work stream, and the object that keeps it alive: CuPy's
    ``Stream`` (CuPy destroys the stream when that object dies), or None for
    the legacy default stream, which never dies."""
    cupy = sys.modules.get("cupy")
    if cupy is None or not _cupy_has_a_gpu(cupy):
        return LEGACY_DEFAULT, None
    if device_index is None:
        stream = cupy.cuda.get_current_stream()
    else:
        with cupy.cuda.Device(device_index):
            stream = cupy.cuda.get_current_stream()
    # CuPy's null stream has pointer 0, which is the legacy default stream.
    return int(stream.ptr) or LEGACY_DEFAULT, stream


def _cupy_has_a_gpu(cupy: Any) -> bool:
    """Whether an imported CuPy can name its current stream.  CuPy imports
    without a driver (on a machine with no NVIDIA GPU), and then every
    stream query raises; such a CuPy has queued no work anywhere, so
    dlarray orders by the legacy default stream, as without CuPy.  CuPy
    caches ``cuda.is_available()``; a stand-in module without it counts as
    available."""
    is_available = getattr(cupy.cuda, "is_available", None)
    return is_available is None or bool(is_available())


def gpu_of(device: Device) -> int | None:
    """The GPU whose streams order work on ``device``'s memory: its own index
    for device memory, the current GPU (None) for managed and pinned memory."""
    return None if device.memory.machine_wide else device.index


# ---- the state of each memory ----


class Pending(NamedTuple):
    """Where dlarray's work on one memory is: before the current end of
    ``stream`` on GPU ``gpu``; ``mark`` orders the marks in time.

    ``keeps`` is the object that keeps ``stream`` alive (CuPy's ``Stream``),
    held as long as the memory is on it: a later reader records an event on
    ``stream``, and a user who dropped the stream meanwhile would have
    destroyed it.  Recording on a destroyed stream crashed the process on
    an H100 (a segfault in cudaEventRecord), and a new stream given the old
    handle would have been waited for instead, silently."""

    gpu: int
    stream: int
    mark: int
    keeps: Any = None


class Queue(NamedTuple):
    """Where dlarray is about to queue work: the runtime, with ``gpu``
    current, and that GPU's work ``stream``."""

    rt: Any
    gpu: int
    stream: int


_lock = threading.RLock()
_marks = itertools.count(1)
_last_mark = 0
# runtime -> {memory -> where dlarray's work on it is} (absent: idle).  The
# state belongs to the runtime that queued the work: a stand-in runtime
# installed for a test starts with every memory idle, and its streams never
# leak into the real runtime's.  A memory is a Device: Device("cuda", i), or
# the managed or pinned memory's Device(kind, 0).
_states: weakref.WeakKeyDictionary[Any, dict[Device, Pending]] = weakref.WeakKeyDictionary()


def _state(rt: Any) -> dict[Device, Pending]:
    state = _states.get(rt)
    if state is None:
        state = _states[rt] = {}
    return state


def _memory(device: Device) -> Device:
    # Managed and pinned memory are one memory each, numbered 0 (an import
    # may have named another id).
    return Device(device.kind, 0) if device.memory.machine_wide else device


def pending(device: Device) -> Pending | None:
    """Where dlarray's work on ``device``'s memory is, or None when it is
    idle (or no runtime is loaded)."""
    if not runtime.available():
        return None
    with _lock:
        return _state(runtime.runtime()).get(_memory(device))


@contextlib.contextmanager
def queued_on(memories: tuple[Device, ...], gpu: int | None) -> Iterator[Queue]:
    """Queue work touching ``memories`` on dlarray's work stream of GPU
    ``gpu`` (None: the current GPU).  Inside the block that stream already
    waits for dlarray's earlier work on them (an event, where it was on
    another stream); after it, their work is on that stream."""
    global _last_mark
    with runtime.on_device(gpu) as rt:
        index = rt.current_device() if gpu is None else gpu
        stream, keeps = _work_stream_and_owner()
        queue = Queue(rt, index, stream)
        keys = tuple(dict.fromkeys(_memory(m) for m in memories))
        with _lock:
            state = _state(rt)
            for key in keys:
                _wait(rt, (index, queue.stream), state.get(key))
            try:
                yield queue
            finally:  # even after a failure: some of the work may be queued
                _last_mark = mark = next(_marks)
                for key in keys:
                    state[key] = Pending(index, queue.stream, mark, keeps)


def enter(device: Device) -> int:
    """Order dlarray's pending work on ``device``'s memory before its work
    stream there, and return that stream, where a computation, an import or
    a consumer of dlarray's exchange table works next (without a runtime
    there is nothing to order)."""
    if not runtime.available():
        return work_stream(gpu_of(device))
    with queued_on((device,), gpu_of(device)) as queue:
        return queue.stream


def _wait(rt: Any, waiting: tuple[int, int], on: Pending | None) -> None:
    """Make stream ``waiting`` (GPU, stream; the GPU is current) wait for the
    work queued so far on the stream of ``on``, which may be another GPU's."""
    if on is None or (on.gpu, on.stream) == waiting:
        return
    with runtime.on_device(on.gpu):  # an event is made and recorded on its GPU
        event = rt.event_create()
        try:
            rt.event_record(event, on.stream)
        except BaseException:
            rt.event_destroy(event)
            raise
    try:
        rt.stream_wait_event(waiting[1], event)  # an event of any GPU will do
    finally:
        rt.event_destroy(event)  # legal once the wait is enqueued


def make_wait(rt: Any, waiting: int, on: int) -> None:
    """Make stream ``waiting`` wait for the work queued on stream ``on`` so
    far (both on the current GPU), without blocking the host; nothing when
    they are one."""
    if waiting == on:
        return
    event = rt.event_create()
    try:
        rt.event_record(event, on)
        rt.stream_wait_event(waiting, event)
    finally:
        rt.event_destroy(event)  # legal once the wait is enqueued


def synchronize(gpu: int, stream: int) -> None:
    """Block the host until ``stream`` on GPU ``gpu`` is done; every memory
    whose work was on it (and marked before the wait began) becomes idle."""
    seen = _last_mark
    with runtime.on_device(gpu) as rt:
        rt.stream_synchronize(stream)
        with _lock:
            state = _state(rt)
            for key, where in list(state.items()):
                if (where.gpu, where.stream) == (gpu, stream) and where.mark <= seen:
                    del state[key]


# ---- the three readers: a consumer's stream, the host, a computation ----


def order_for_consumer(stream: object, device: Device, func: str = "__dlpack__") -> None:
    """Make dlarray's pending work on CUDA memory ``device`` visible on the
    consumer's ``stream`` (steps 1-4 above)."""
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
    with queued_on((device,), gpu_of(device)) as queue:
        make_wait(queue.rt, consumer, queue.stream)


def synchronize_for_host(device: Device) -> None:
    """Block until dlarray's work on CUDA memory ``device`` is done, and the
    work on its work stream, before the host reads or writes the memory."""
    if not runtime.available():
        return  # no runtime: no work of dlarray's can be pending
    with queued_on((device,), gpu_of(device)) as queue:
        pass
    synchronize(queue.gpu, queue.stream)


def before_compute(device: Device) -> None:
    """Before an engine computes on CUDA memory ``device``: CuPy's current
    stream on the array's GPU waits for dlarray's work on device memory; the
    host (NumPy) waits for it on managed and pinned memory."""
    if device.memory.host_readable:
        synchronize_for_host(device)
    elif runtime.available():
        enter(device)
