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
        """Size in bytes, as asked for.

        A request for 0 bytes still makes a real (1-byte) allocation, so
        that the pointer is valid and distinct; a negative size raises
        ``ValueError`` before any runtime is touched, so even on a machine
        without the device.

        Examples
        --------
        >>> import dlarray
        >>> from dlarray.storage import CudaDeviceStorage, SyclSharedStorage
        >>> CudaDeviceStorage(-1)
        Traceback (most recent call last):
            ...
        ValueError: cannot allocate -1 bytes

        Allocating needs the runtime and a device; where they are missing
        the constructor raises instead:

        >>> try:
        ...     s = SyclSharedStorage(0)
        ... except dlarray.SYCLUnavailableError:  # no dpctl or no SYCL device here
        ...     s = None
        >>> s is None or (s.nbytes, s.pointer != 0) == (0, True)
        True

        On a machine with a GPU (skipped: the doctests also run without
        one):

        >>> CudaDeviceStorage(1024).nbytes  # doctest: +SKIP
        1024
        """
        return self._nbytes

    @property
    def device(self) -> Device:
        """Where the memory lives, as its kind and device index.

        The kind is the class's ``kind``.  The index is the GPU or SYCL root
        device the memory was allocated on; DLPack numbers CUDA pinned and
        managed memory device 0, as one memory reachable from every GPU.

        Examples
        --------
        >>> import dlarray
        >>> from dlarray.storage import CudaManagedStorage
        >>> try:
        ...     s = CudaManagedStorage(64)
        ... except dlarray.CUDAUnavailableError:  # no GPU, driver or cuda-bindings here
        ...     s = None
        >>> s is None or s.device == dlarray.Device(CudaManagedStorage.kind, 0)
        True

        On a machine with a GPU (skipped: the doctests also run without
        one):

        >>> s.device  # doctest: +SKIP
        Device('cuda_managed', 0)
        >>> s.device.dlpack  # kDLCUDAManaged is 13  # doctest: +SKIP
        (13, 0)
        """
        return self._device

    def __repr__(self) -> str:
        return f"{type(self).__name__}(nbytes={self._nbytes}, device={self._device!r})"
