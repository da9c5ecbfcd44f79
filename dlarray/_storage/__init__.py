"""Storage: one class per memory kind behind one small protocol.

An array's memory is a *storage* object.  Every kind of memory (host memory
and CUDA device, managed and pinned memory, and SYCL USM) implements
the same four properties, and nothing else about an array depends on which
kind it is.  Arrays keep their storage alive by holding it as their owner.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from dlarray._device import Device
from dlarray._storage.host import HostStorage

__all__ = ["HostStorage", "Storage"]


@runtime_checkable
class Storage(Protocol):
    """What every memory kind provides."""

    @property
    def pointer(self) -> int:
        """Address of the first byte, as an int."""
        ...

    @property
    def nbytes(self) -> int:
        """Size of the allocation in bytes."""
        ...

    @property
    def device(self) -> Device:
        """Where the memory lives."""
        ...

    @property
    def owner(self) -> object:
        """The object whose lifetime is the memory's lifetime."""
        ...
