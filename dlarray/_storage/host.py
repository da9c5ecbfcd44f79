"""Host memory: 256-byte aligned blocks from the C core."""

from __future__ import annotations

import dlarray._core as _core
from dlarray._device import CPU, Device


class HostStorage(_core.HostBuffer):
    """Host memory aligned to 256 bytes, freed when the last array using it dies.

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 is allowed and still yields a valid pointer).
    zero : bool, optional
        Fill the block with zero bytes.

    Raises
    ------
    TypeError
        If ``nbytes`` is not an integer.
    ValueError
        If ``nbytes`` is negative.
    MemoryError
        If the host has not ``nbytes`` bytes to give.

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
        """Always ``Device("cpu", 0)``.

        DLPack's ``(kDLCPU, 0)``: host memory has one device, numbered 0.

        Examples
        --------
        >>> import dlarray
        >>> from dlarray.storage import HostStorage
        >>> s = HostStorage(8)
        >>> s.device
        Device('cpu', 0)
        >>> s.device.dlpack == (dlarray.DLDeviceType.kDLCPU, 0)
        True
        """
        return CPU

    @property
    def owner(self) -> object:
        """The storage itself, which frees the memory when it dies.

        An array over this memory holds the storage; the C core frees the
        block when the storage's last reference goes.

        Examples
        --------
        >>> import weakref
        >>> from dlarray.storage import HostStorage
        >>> s = HostStorage(8)
        >>> s.owner is s
        True
        >>> alive = weakref.ref(s)
        >>> del s  # the last reference: the block is freed now
        >>> alive() is None
        True
        """
        return self
