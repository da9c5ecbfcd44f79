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
    """What every memory kind provides.

    A ``typing.Protocol``: any object with the four properties
    ``pointer``, ``nbytes``, ``device`` and ``owner`` passes the
    ``isinstance`` check (which looks for the names, not at their values).
    Every storage class of :mod:`dlarray.storage` has them.

    Raises
    ------
    TypeError
        ``Storage()``: a protocol cannot be instantiated; ``isinstance(obj,
        Storage)`` checks an object.

    Examples
    --------
    >>> from dlarray.storage import HostStorage, Storage
    >>> s = HostStorage(64)
    >>> isinstance(s, Storage)
    True
    >>> s.nbytes, s.device, s.owner is s, s.pointer % 256
    (64, Device('cpu', 0), True, 0)
    >>> isinstance(bytearray(64), Storage)
    False

    A class of one's own passes the check by having the four properties,
    here over a ctypes buffer:

    >>> import ctypes
    >>> import dlarray
    >>> class CtypesStorage:
    ...     def __init__(self, nbytes):
    ...         self.buffer = ctypes.create_string_buffer(nbytes)
    ...     pointer = property(lambda self: ctypes.addressof(self.buffer))
    ...     nbytes = property(lambda self: ctypes.sizeof(self.buffer))
    ...     device = property(lambda self: dlarray.Device("cpu"))
    ...     owner = property(lambda self: self.buffer)
    >>> isinstance(CtypesStorage(8), Storage)
    True
    """

    @property
    def pointer(self) -> int:
        """Address of the first byte, as an int.

        The host can read and write through it for the kinds of memory it
        reaches (``cpu``, ``cuda_host``, ``cuda_managed``, ``sycl_shared``,
        ``sycl_host``), not for ``cuda`` or ``sycl`` device memory, whose
        address only the device can use.

        Examples
        --------
        Host memory can be written and read through the address:

        >>> import ctypes
        >>> from dlarray.storage import HostStorage
        >>> s = HostStorage(4, zero=True)
        >>> _ = ctypes.memset(s.pointer, 7, 2)
        >>> list(ctypes.string_at(s.pointer, 4))
        [7, 7, 0, 0]

        Compare addresses with ``==``, never print them (they differ from
        run to run):

        >>> t = HostStorage(4)
        >>> s.pointer == t.pointer
        False
        """
        ...

    @property
    def nbytes(self) -> int:
        """Size of the allocation in bytes.

        The size asked for: a request for 0 bytes still gets a valid,
        distinct pointer, and a negative one raises ``ValueError`` before
        anything is allocated.

        Examples
        --------
        >>> from dlarray.storage import HostStorage
        >>> HostStorage(100).nbytes
        100
        >>> empty = HostStorage(0)
        >>> empty.nbytes, empty.pointer != 0
        (0, True)
        """
        ...

    @property
    def device(self) -> Device:
        """Where the memory lives.

        A :class:`~dlarray.Device`: the memory kind and device index, which
        become DLPack's ``(device_type, device_id)`` pair.

        Examples
        --------
        >>> from dlarray.storage import HostStorage
        >>> d = HostStorage(8).device
        >>> d
        Device('cpu', 0)
        >>> d.dlpack
        (1, 0)
        """
        ...

    @property
    def owner(self) -> object:
        """The object whose lifetime is the memory's lifetime.

        An array keeps its memory alive by holding this object; the memory is
        freed when the last reference to it goes.  For host and CUDA memory it
        is the storage itself, for SYCL memory the ``dpctl.memory`` object.

        Examples
        --------
        >>> import weakref
        >>> from dlarray.storage import HostStorage
        >>> s = HostStorage(8)
        >>> s.owner is s
        True
        >>> alive = weakref.ref(s.owner)
        >>> del s  # the last reference: the memory is freed here
        >>> alive() is None
        True
        """
        ...
