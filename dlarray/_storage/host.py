"""Host memory: 256-byte aligned blocks from the C core."""

from __future__ import annotations

from dlarray import _core
from dlarray._device import CPU, Device


class HostStorage(_core.HostBuffer):
    """Host memory aligned to 256 bytes, freed when the last array using it dies.

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 is allowed and still yields a valid pointer).
    zero : bool, optional
        Fill the block with zero bytes.

    Examples
    --------
    >>> from dlarray.storage import HostStorage
    >>> s = HostStorage(100)
    >>> s.pointer % 256, s.nbytes, s.device
    (0, 100, Device('cpu', 0))
    """

    __slots__ = ("__weakref__",)

    @property
    def device(self) -> Device:
        """Always ``Device("cpu", 0)``."""
        return CPU

    @property
    def owner(self) -> object:
        """The storage itself: it frees the memory when it dies."""
        return self
