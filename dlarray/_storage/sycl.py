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

from dlarray._device import KIND_OF_USM, KINDS, Device
from dlarray._storage._base import SizedStorage
from dlarray._sycl import runtime


def _usm_type(kind: str) -> str:
    """SYCL's name of a SYCL kind's USM type, from the memory-kind table."""
    usm_type = KINDS[kind].usm_type
    assert usm_type is not None, kind
    return usm_type


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
        """Address of the first byte (a USM pointer).

        The pointer of the ``dpctl.memory`` object that owns the memory.
        The host can read and write shared and host USM through it; device
        USM only the device can use.

        Examples
        --------
        >>> import dlarray
        >>> from dlarray.storage import SyclHostStorage
        >>> try:
        ...     s = SyclHostStorage(4)
        ... except dlarray.SYCLUnavailableError:  # no dpctl or no SYCL device here
        ...     s = None
        >>> s is None or s.pointer != 0
        True

        With dpctl and a SYCL device (skipped: the doctests also run
        without one), the host writes host USM directly:

        >>> import ctypes
        >>> _ = ctypes.memset(s.pointer, 7, 4)  # doctest: +SKIP
        >>> list(ctypes.string_at(s.pointer, 4))  # doctest: +SKIP
        [7, 7, 7, 7]
        """
        return int(self._memory._pointer)

    @property
    def owner(self) -> object:
        """The dpctl memory object; SYCL frees the memory when it dies.

        A ``dpctl.memory.MemoryUSMDevice``, ``MemoryUSMShared`` or
        ``MemoryUSMHost``, made by the storage or, for an array over a
        ``dpctl.memory`` object (``dlarray.asarray(memory)``), that object.

        Examples
        --------
        >>> import dlarray
        >>> from dlarray.storage import SyclDeviceStorage
        >>> try:
        ...     s = SyclDeviceStorage(16)
        ... except dlarray.SYCLUnavailableError:  # no dpctl or no SYCL device here
        ...     s = None
        >>> s is None or s.owner is not s
        True

        With dpctl and a SYCL device (skipped: the doctests also run
        without one):

        >>> s.owner.get_usm_type(), s.owner.nbytes  # doctest: +SKIP
        ('device', 16)
        """
        return self._memory

    @property
    def in_default_context(self) -> bool:
        """True if the memory is bound to its device's default platform
        context, the only context DLPack can name.

        Always so for memory dlarray allocates; memory adopted from a
        ``dpctl.memory`` object made in another context is still used, but
        exporting it through DLPack raises ``BufferError`` (copy it first).

        Examples
        --------
        >>> import dlarray
        >>> from dlarray.storage import SyclSharedStorage
        >>> try:
        ...     s = SyclSharedStorage(16)
        ... except dlarray.SYCLUnavailableError:  # no dpctl or no SYCL device here
        ...     s = None
        >>> s is None or s.in_default_context
        True

        With dpctl and a SYCL device (skipped: the doctests also run
        without one):

        >>> s.in_default_context  # doctest: +SKIP
        True
        """
        return bool(self._memory.sycl_context == runtime.default_context(self._device.index))


class SyclDeviceStorage(SyclStorage):
    """USM device memory (``sycl::malloc_device``): only the device reads it.

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 still allocates, so the pointer is valid).
    index : int, optional
        The SYCL root device, numbered as ``dpctl.get_devices()`` lists
        them (default 0).

    Raises
    ------
    SYCLUnavailableError
        Where dpctl or a SYCL device is missing, or device ``index`` does
        not exist.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray.storage import SyclDeviceStorage
    >>> SyclDeviceStorage.kind, SyclDeviceStorage.usm_type
    ('sycl', 'device')
    >>> try:
    ...     s = SyclDeviceStorage(1024)
    ... except dlarray.SYCLUnavailableError:  # no dpctl or no SYCL device here
    ...     s = None
    >>> s is None or s.device == dlarray.Device("sycl", 0)
    True

    With dpctl and a SYCL device (skipped: the doctests also run without
    one; the ``sycl-cpu`` extra gives a CPU device, see the SYCL page):

    >>> s  # doctest: +SKIP
    SyclDeviceStorage(nbytes=1024, device=Device('sycl', 0))
    >>> type(s.owner).__name__  # doctest: +SKIP
    'MemoryUSMDevice'
    """

    kind = "sycl"
    usm_type = _usm_type(kind)
    __slots__ = ()


class SyclSharedStorage(SyclStorage):
    """USM shared memory (``sycl::malloc_shared``): migrates between host
    and device on demand.

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 still allocates, so the pointer is valid).
    index : int, optional
        The SYCL root device, numbered as ``dpctl.get_devices()`` lists
        them (default 0).

    Raises
    ------
    SYCLUnavailableError
        Where dpctl or a SYCL device is missing, or device ``index`` does
        not exist.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray.storage import SyclSharedStorage
    >>> SyclSharedStorage.kind, SyclSharedStorage.usm_type
    ('sycl_shared', 'shared')
    >>> try:
    ...     s = SyclSharedStorage(1024)
    ... except dlarray.SYCLUnavailableError:  # no dpctl or no SYCL device here
    ...     s = None
    >>> s is None or s.device == dlarray.Device("sycl_shared", 0)
    True

    With dpctl and a SYCL device (skipped: the doctests also run without
    one; the ``sycl-cpu`` extra gives a CPU device, see the SYCL page):

    >>> s  # doctest: +SKIP
    SyclSharedStorage(nbytes=1024, device=Device('sycl_shared', 0))
    >>> type(s.owner).__name__  # doctest: +SKIP
    'MemoryUSMShared'
    """

    kind = "sycl_shared"
    usm_type = _usm_type(kind)
    __slots__ = ()


class SyclHostStorage(SyclStorage):
    """USM host memory (``sycl::malloc_host``): host memory the device
    reads over the bus.

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 still allocates, so the pointer is valid).
    index : int, optional
        The SYCL root device, numbered as ``dpctl.get_devices()`` lists
        them (default 0).

    Raises
    ------
    SYCLUnavailableError
        Where dpctl or a SYCL device is missing, or device ``index`` does
        not exist.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray.storage import SyclHostStorage
    >>> SyclHostStorage.kind, SyclHostStorage.usm_type
    ('sycl_host', 'host')
    >>> try:
    ...     s = SyclHostStorage(1024)
    ... except dlarray.SYCLUnavailableError:  # no dpctl or no SYCL device here
    ...     s = None
    >>> s is None or s.device == dlarray.Device("sycl_host", 0)
    True

    With dpctl and a SYCL device (skipped: the doctests also run without
    one; the ``sycl-cpu`` extra gives a CPU device, see the SYCL page):

    >>> s  # doctest: +SKIP
    SyclHostStorage(nbytes=1024, device=Device('sycl_host', 0))
    >>> type(s.owner).__name__  # doctest: +SKIP
    'MemoryUSMHost'
    """

    kind = "sycl_host"
    usm_type = _usm_type(kind)
    __slots__ = ()


_KIND_CLASSES: dict[str, type[SyclStorage]] = {
    cls.kind: cls for cls in (SyclDeviceStorage, SyclSharedStorage, SyclHostStorage)
}


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
