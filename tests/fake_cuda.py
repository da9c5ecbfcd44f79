"""A stand-in CUDA runtime for testing dlarray's CUDA paths without a GPU.

It implements the calls of :class:`dlarray._cuda.runtime.CudaRuntime` over
host memory: "device" allocations are ctypes buffers, copies are
``memmove``, and every call is logged, so tests can check both the data
(copies land where they should) and the protocol (which streams and events
were used; that nothing synchronised the whole device, which this runtime
cannot even do).  Install it with ``dlarray._cuda.runtime.use_runtime``.
"""

from __future__ import annotations

import ctypes
from typing import Any


class FakeRuntime:
    """Host memory posing as CUDA memory, with ``gpus`` devices."""

    def __init__(self, gpus: int = 2) -> None:
        self.gpus = gpus
        self.device = 0
        self.calls: list[tuple[Any, ...]] = []
        self.live: dict[int, tuple[str, Any]] = {}  # pointer -> (kind, buffer)
        self.freed: list[int] = []
        self._events = 0

    # -- devices --
    def device_count(self) -> int:
        return self.gpus

    def current_device(self) -> int:
        return self.device

    def set_device(self, index: int) -> None:
        assert 0 <= index < self.gpus, f"set_device({index}) with {self.gpus} GPUs"
        self.calls.append(("set_device", index))
        self.device = index

    # -- memory --
    def _allocate(self, kind: str, nbytes: int) -> int:
        buffer = ctypes.create_string_buffer(nbytes)
        pointer = ctypes.addressof(buffer)
        self.live[pointer] = (kind, buffer)
        self.calls.append((kind, nbytes, self.device))
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
        self.calls.append(("memcpy", nbytes, stream))
        ctypes.memmove(dst, src, nbytes)

    def memset_async(self, pointer: int, value: int, nbytes: int, stream: int) -> None:
        self.calls.append(("memset", nbytes, stream))
        ctypes.memset(pointer, value, nbytes)

    # -- streams and events --
    def stream_synchronize(self, stream: int) -> None:
        self.calls.append(("stream_synchronize", stream))

    def event_create(self) -> int:
        self._events += 1
        self.calls.append(("event_create", self._events))
        return self._events

    def event_record(self, event: int, stream: int) -> None:
        self.calls.append(("event_record", event, stream))

    def stream_wait_event(self, stream: int, event: int) -> None:
        self.calls.append(("stream_wait_event", stream, event))

    def event_destroy(self, event: int) -> None:
        self.calls.append(("event_destroy", event))

    def names(self) -> list[str]:
        """The calls made so far, by name."""
        return [c[0] for c in self.calls]
