"""What the storage classes written in Python share: the size and device an
allocation was made with, the check of the requested size, and the repr.
Each subclass adds the other half of the protocol, ``pointer`` and
``owner``, which differ per memory kind."""

from __future__ import annotations

from dlarray._device import Device


class SizedStorage:
    """An allocation of ``nbytes`` bytes on ``device``."""

    __slots__ = ("__weakref__", "_device", "_nbytes")
    _device: Device
    _nbytes: int

    @staticmethod
    def _checked_size(nbytes: int) -> int:
        """``nbytes``, refused before anything is allocated when negative."""
        if nbytes < 0:
            raise ValueError(f"cannot allocate {nbytes} bytes")
        return nbytes

    @property
    def nbytes(self) -> int:
        """Size in bytes."""
        return self._nbytes

    @property
    def device(self) -> Device:
        """Where the memory lives: its kind and device index."""
        return self._device

    def __repr__(self) -> str:
        return f"{type(self).__name__}(nbytes={self._nbytes}, device={self._device!r})"
