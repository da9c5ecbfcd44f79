"""A stand-in CUDA runtime for testing dlarray's CUDA paths without a GPU.

It implements the calls of :class:`dlarray._cuda.runtime.CudaRuntime` over
host memory: "device" allocations are ctypes buffers, copies are
``memmove``, and every call is logged, so tests can check both the data
(copies land where they should) and the protocol (which streams and events
were used; that nothing synchronised the whole device, which this runtime
cannot even do).  Install it with ``dlarray._cuda.runtime.use_runtime``.

Each logged call is a tuple, ``("event_record", event, stream)``, that also
knows the GPU current when it was made (``call.device``; ``placed()`` lists
them as ``(device, name, ...)``).  The runtime holds CUDA's own rules where
a GPU would fail: an event is recorded on the GPU it was made on, a stream
made with :meth:`FakeRuntime.new_stream` is used only on its own GPU (the
handles 1 and 2, the default streams, belong to every GPU), and a destroyed
event or stream is never used.

:class:`FakeCupy` stands in for the little of CuPy that dlarray's stream
choice reads (its current stream on the current GPU), so that tests can
switch CuPy's current stream as ``with cupy.cuda.Stream():`` does.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import types
from collections.abc import Iterator
from typing import Any

from dlarray._cuda import runtime as cuda_runtime


class Call(tuple):  # type: ignore[type-arg]
    """One logged call, ``(name, *arguments)``, made while GPU ``device``
    was current.  It compares as the plain tuple."""

    device: int

    def __new__(cls, items: tuple[Any, ...], device: int) -> Call:
        call = super().__new__(cls, items)
        call.device = device
        return call


class FakeRuntime:
    """Host memory posing as CUDA memory, with ``gpus`` devices."""

    def __init__(self, gpus: int = 2) -> None:
        self.gpus = gpus
        self.device = 0
        self.calls: list[tuple[Any, ...]] = []
        self.live: dict[int, tuple[str, Any]] = {}  # pointer -> (kind, buffer)
        self.freed: list[int] = []
        self.streams: dict[int, int] = {}  # a stream made by new_stream -> its GPU
        self.destroyed: set[int] = set()  # streams destroyed by destroy_stream
        self._events: dict[int, int] = {}  # a live event -> its GPU
        self._made = 0

    def _log(self, *call: Any) -> None:
        self.calls.append(Call(call, self.device))

    def _check_stream(self, stream: int, call: str) -> None:
        assert stream not in self.destroyed, f"{call}: stream {stream:#x} was destroyed"
        gpu = self.streams.get(stream, self.device)
        assert gpu == self.device, f"{call}: stream {stream:#x} of GPU {gpu} used on {self.device}"

    # -- devices --
    def device_count(self) -> int:
        return self.gpus

    def current_device(self) -> int:
        return self.device

    def set_device(self, index: int) -> None:
        assert 0 <= index < self.gpus, f"set_device({index}) with {self.gpus} GPUs"
        self._log("set_device", index)
        self.device = index

    # -- memory --
    def _allocate(self, kind: str, nbytes: int) -> int:
        buffer = ctypes.create_string_buffer(nbytes)
        pointer = ctypes.addressof(buffer)
        self.live[pointer] = (kind, buffer)
        self._log(kind, nbytes, self.device)
        return pointer

    def malloc(self, nbytes: int) -> int:
        return self._allocate("malloc", nbytes)

    def malloc_managed(self, nbytes: int) -> int:
        return self._allocate("malloc_managed", nbytes)

    def malloc_host(self, nbytes: int) -> int:
        return self._allocate("malloc_host", nbytes)

    def _release(self, pointer: int, kinds: tuple[str, ...]) -> None:
        kind, _ = self.live.pop(pointer)  # KeyError: a double or foreign free
        assert kind in kinds, f"{kind} memory freed with the wrong call"
        self.freed.append(pointer)

    def free(self, pointer: int) -> None:
        self._release(pointer, ("malloc", "malloc_managed"))

    def free_host(self, pointer: int) -> None:
        self._release(pointer, ("malloc_host",))

    def memcpy_async(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self._check_stream(stream, "cudaMemcpyAsync")
        self._log("memcpy", nbytes, stream)
        ctypes.memmove(dst, src, nbytes)

    def memset_async(self, pointer: int, value: int, nbytes: int, stream: int) -> None:
        self._check_stream(stream, "cudaMemsetAsync")
        self._log("memset", nbytes, stream)
        ctypes.memset(pointer, value, nbytes)

    # -- streams and events --
    def new_stream(self, gpu: int) -> int:
        """A stream handle of GPU ``gpu`` (as ``cudaStreamCreate`` there)."""
        handle = 0x5000 + 0x10 * len(self.streams) + gpu
        self.streams[handle] = gpu
        return handle

    def destroy_stream(self, handle: int) -> None:
        """As ``cudaStreamDestroy``: the handle must never be used again (a
        GPU crashes, or reaches whichever stream gets the handle next)."""
        assert handle in self.streams and handle not in self.destroyed
        self.destroyed.add(handle)

    def stream_synchronize(self, stream: int) -> None:
        self._check_stream(stream, "cudaStreamSynchronize")
        self._log("stream_synchronize", stream)

    def event_create(self) -> int:
        self._made += 1
        self._events[self._made] = self.device
        self._log("event_create", self._made)
        return self._made

    def event_record(self, event: int, stream: int) -> None:
        gpu = self._events[event]  # KeyError: a destroyed or foreign event
        assert gpu == self.device, f"event {event} of GPU {gpu} recorded on GPU {self.device}"
        self._check_stream(stream, "cudaEventRecord")
        self._log("event_record", event, stream)

    def stream_wait_event(self, stream: int, event: int) -> None:
        assert event in self._events, f"cudaStreamWaitEvent on destroyed event {event}"
        self._check_stream(stream, "cudaStreamWaitEvent")  # the event may be any GPU's
        self._log("stream_wait_event", stream, event)

    def event_destroy(self, event: int) -> None:
        del self._events[event]  # KeyError: destroyed twice
        self._log("event_destroy", event)

    def names(self) -> list[str]:
        """The calls made so far, by name."""
        return [c[0] for c in self.calls]

    def placed(self) -> list[tuple[Any, ...]]:
        """The calls made so far, each as ``(GPU current, name, ...)``."""
        return [(getattr(c, "device", None), *c) for c in self.calls]


class Stream:
    """A stand-in ``cupy.cuda.Stream``: a stream made in the runtime, and
    destroyed there when this object dies (CuPy destroys its stream in
    ``__del__``)."""

    def __init__(self, runtime: FakeRuntime, gpu: int) -> None:
        self._runtime = runtime
        self.ptr = runtime.new_stream(gpu)

    def __del__(self) -> None:
        self._runtime.destroy_stream(self.ptr)


class FakeCupy(types.ModuleType):
    """The part of CuPy dlarray's work stream is read from: a current stream
    per GPU (0, CuPy's null stream, until :meth:`use` changes it),
    ``cuda.Device(i)`` to make a GPU current, and ``from_dlpack``.  Install it in
    ``sys.modules["cupy"]``; it switches GPUs in ``runtime`` without logging."""

    def __init__(self, runtime: FakeRuntime) -> None:
        super().__init__("cupy")
        self._runtime = runtime
        self._current: dict[int, Any] = {}  # GPU -> a handle, or a Stream
        self.cuda = types.SimpleNamespace(
            get_current_stream=self._current_stream, Device=self._on_gpu
        )

    def _current_stream(self) -> Any:
        current = self._current.get(self._runtime.device, 0)
        return current if isinstance(current, Stream) else types.SimpleNamespace(ptr=current)

    def new_stream(self, gpu: int = 0) -> Stream:
        """A stream of GPU ``gpu`` that lives as long as the returned object,
        as ``cupy.cuda.Stream()``'s does (make it current with :meth:`use`)."""
        return Stream(self._runtime, gpu)

    def from_dlpack(self, producer: Any) -> Any:
        """What CuPy's ``from_dlpack`` asks of a producer: its memory, made
        ready on CuPy's current stream (1 for the null stream).  The
        "array" it returns only remembers the capsule."""
        stream = self._current_stream().ptr or 1
        return types.SimpleNamespace(capsule=producer.__dlpack__(stream=stream))

    @contextlib.contextmanager
    def _on_gpu(self, index: int) -> Iterator[None]:
        previous, self._runtime.device = self._runtime.device, index
        try:
            yield
        finally:
            self._runtime.device = previous

    @contextlib.contextmanager
    def use(self, stream: Any, gpu: int = 0) -> Iterator[Any]:
        """Make ``stream`` (a handle, or a :class:`Stream`) CuPy's current
        stream on GPU ``gpu`` in the block, as ``with cupy.cuda.Stream():``
        does."""
        previous = self._current.get(gpu, 0)
        self._current[gpu] = stream
        try:
            yield stream
        finally:
            self._current[gpu] = previous


_ABSENT = object()


@contextlib.contextmanager
def stand_in(gpus: int = 2) -> Iterator[FakeRuntime]:
    """dlarray's CUDA runtime replaced by a :class:`FakeRuntime` with ``gpus``
    GPUs, and CuPy hidden from it while it is in use: a real CuPy imported
    earlier in the process (by the interop tests) would be asked for its
    current stream, which needs a driver.  Tests that want a CuPy stream
    install :class:`FakeCupy` (or their own) in ``sys.modules`` inside."""
    saved = sys.modules.get("cupy", _ABSENT)
    sys.modules["cupy"] = None  # type: ignore[assignment]
    try:
        with cuda_runtime.use_runtime(FakeRuntime(gpus=gpus)) as rt:
            yield rt
    finally:
        if saved is _ABSENT:
            sys.modules.pop("cupy", None)
        else:
            sys.modules["cupy"] = saved  # type: ignore[assignment]
