"""SYCL USM memory: device, shared and host allocations made through
``dpctl.memory`` on dlarray's queue of a root device (so in that device's
default platform context, as DLPack's kDLOneAPI rules require).

The dpctl memory object is the owner: SYCL frees the allocation when it
dies.  :func:`wrap` adopts a ``dpctl.memory`` object someone else
allocated, possibly in another context; such memory is used by dlarray but
refused at export (see ``in_default_context``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from dlarray._device import Device
from dlarray._storage._base import SizedStorage
from dlarray._sycl import runtime


class SyclStorage(SizedStorage):
    """A USM allocation (one subclass per kind allocates it)."""

    kind: ClassVar[str] = "sycl"
    usm_type: ClassVar[str] = "device"  # dpctl's name of the USM kind
    __slots__ = ("_memory",)

    def __init__(self, nbytes: int, index: int = 0) -> None:
        nbytes = self._checked_size(nbytes)
        # work_queue says what exists when `index` does not.
        queue = runtime.work_queue(index)
        allocator = getattr(runtime.dpctl().memory, f"MemoryUSM{self.usm_type.capitalize()}")
        # Zero-byte requests still get a real (1-byte) allocation, so every
        # array has a valid, distinct pointer, as for host memory.
        self._memory = allocator(max(nbytes, 1), queue=queue)
        self._device = Device(self.kind, index)
        self._nbytes = nbytes

    @staticmethod
    def _adopt(memory: Any, device: Device) -> SyclStorage:
        storage = object.__new__(_KIND_CLASSES[device.kind])
        storage._memory = memory
        storage._device = device
        storage._nbytes = int(memory.nbytes)
        return storage

    @property
    def pointer(self) -> int:
        """Address of the first byte (a USM pointer)."""
        return int(self._memory._pointer)

    @property
    def owner(self) -> object:
        """The dpctl memory object: SYCL frees the memory when it dies."""
        return self._memory

    @property
    def in_default_context(self) -> bool:
        """True if the memory is bound to its device's default platform
        context, the only context DLPack can name."""
        return bool(self._memory.sycl_context == runtime.default_context(self._device.index))


class SyclDeviceStorage(SyclStorage):
    """USM device memory (``sycl::malloc_device``): only the device reads it."""

    kind = "sycl"
    usm_type = "device"
    __slots__ = ()


class SyclSharedStorage(SyclStorage):
    """USM shared memory (``sycl::malloc_shared``): migrates between host
    and device on demand."""

    kind = "sycl_shared"
    usm_type = "shared"
    __slots__ = ()


class SyclHostStorage(SyclStorage):
    """USM host memory (``sycl::malloc_host``): host memory the device
    reads over the bus."""

    kind = "sycl_host"
    usm_type = "host"
    __slots__ = ()


_KIND_CLASSES: dict[str, type[SyclStorage]] = {
    cls.kind: cls for cls in (SyclDeviceStorage, SyclSharedStorage, SyclHostStorage)
}
#: dpctl's USM kind name -> dlarray's device kind.
KIND_OF_USM = {cls.usm_type: cls.kind for cls in _KIND_CLASSES.values()}


def allocate(device: Device, nbytes: int) -> SyclStorage:
    """New storage of ``nbytes`` on a SYCL ``device``."""
    return _KIND_CLASSES[device.kind](nbytes, device.index)


def wrap(memory: Any) -> SyclStorage:
    """Storage over a ``dpctl.memory`` object (MemoryUSMDevice, -Shared or
    -Host), zero-copy; dlarray keeps it alive."""
    memory_types = runtime.dpctl().memory
    if not isinstance(
        memory,
        (memory_types.MemoryUSMDevice, memory_types.MemoryUSMShared, memory_types.MemoryUSMHost),
    ):
        raise TypeError(f"expected a dpctl.memory USM object, got {type(memory).__name__}")
    device = Device(KIND_OF_USM[memory.get_usm_type()], runtime.index_of(memory.sycl_device))
    return SyclStorage._adopt(memory, device)
