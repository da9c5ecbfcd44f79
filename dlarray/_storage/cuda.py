"""CUDA memory: device (``cudaMalloc``), managed (``cudaMallocManaged``) and
pinned host memory (``cudaMallocHost``).

Each allocation is freed by a finaliser when its storage object dies, with
the runtime that made it.  A storage still alive at interpreter exit is not
freed: the process's exit releases its CUDA context, and calling the runtime
during shutdown is what crashes other libraries' deleters.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import ClassVar

from dlarray._cuda.runtime import CudaRuntime, CUDAUnavailableError, on_device, runtime
from dlarray._device import Device
from dlarray._storage._base import SizedStorage


def _release(free: Callable[[int], None], pointer: int) -> None:
    try:
        free(pointer)
    except Exception:  # a finaliser cannot raise, and the runtime may be gone
        pass


class _CudaStorage(SizedStorage):
    """An allocation made through the CUDA runtime; one subclass per kind."""

    kind: ClassVar[str]
    __slots__ = ("_pointer",)

    def __init__(self, nbytes: int, device: Device) -> None:
        nbytes = self._checked_size(nbytes)
        rt = runtime()
        self._device = device
        self._nbytes = nbytes
        # Zero-byte requests still get a real (1-byte) allocation, so every
        # array has a valid, distinct pointer, as for host memory.
        self._pointer, free = self._allocate(rt, max(nbytes, 1))
        weakref.finalize(self, _release, free, self._pointer).atexit = False

    def _allocate(self, rt: CudaRuntime, nbytes: int) -> tuple[int, Callable[[int], None]]:
        raise NotImplementedError

    @property
    def pointer(self) -> int:
        """Address of the first byte (a device address for ``cuda``).

        Pinned (``cuda_host``) and managed memory can also be read and
        written by the host through this address; ``cuda`` device memory
        only by the GPU (copy it with ``cudaMemcpy``, or with
        ``dlarray.asarray(x, device=...)`` for an array).

        Examples
        --------
        >>> import dlarray
        >>> from dlarray.storage import CudaPinnedStorage
        >>> try:
        ...     s = CudaPinnedStorage(4)
        ... except dlarray.CUDAUnavailableError:  # no GPU, driver or cuda-bindings here
        ...     s = None
        >>> s is None or s.pointer != 0
        True

        On a machine with a GPU (skipped: the doctests also run without
        one), the host writes pinned memory directly:

        >>> import ctypes
        >>> _ = ctypes.memset(s.pointer, 7, 4)  # doctest: +SKIP
        >>> list(ctypes.string_at(s.pointer, 4))  # doctest: +SKIP
        [7, 7, 7, 7]
        """
        return self._pointer

    @property
    def owner(self) -> object:
        """The storage itself, which frees the memory when it dies.

        A finaliser calls ``cudaFree`` (``cudaFreeHost`` for pinned memory)
        when the storage is collected; a storage still alive at interpreter
        exit is left to the driver, which releases the whole context.

        Examples
        --------
        >>> import dlarray
        >>> from dlarray.storage import CudaDeviceStorage
        >>> try:
        ...     s = CudaDeviceStorage(16)
        ... except dlarray.CUDAUnavailableError:  # no GPU, driver or cuda-bindings here
        ...     s = None
        >>> s is None or s.owner is s
        True
        """
        return self


class CudaDeviceStorage(_CudaStorage):
    """GPU memory from ``cudaMalloc`` on GPU ``index`` (kDLCUDA).

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 still allocates, so the pointer is valid).
    index : int, optional
        The GPU, numbered as the CUDA runtime numbers them (default 0).

    Raises
    ------
    CUDAUnavailableError
        Where cuda-bindings, the NVIDIA driver or a GPU is missing.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray.storage import CudaDeviceStorage
    >>> CudaDeviceStorage.kind
    'cuda'
    >>> try:
    ...     s = CudaDeviceStorage(1024)
    ... except dlarray.CUDAUnavailableError:  # no GPU, driver or cuda-bindings here
    ...     s = None
    >>> s is None or s.device == dlarray.Device("cuda", 0)
    True

    On a machine with a GPU (skipped: the doctests also run without one):

    >>> s  # doctest: +SKIP
    CudaDeviceStorage(nbytes=1024, device=Device('cuda', 0))
    >>> s.device.dlpack  # kDLCUDA is 2  # doctest: +SKIP
    (2, 0)
    """

    kind = "cuda"
    __slots__ = ()

    def __init__(self, nbytes: int, index: int = 0) -> None:
        super().__init__(nbytes, Device("cuda", index))

    def _allocate(self, rt: CudaRuntime, nbytes: int) -> tuple[int, Callable[[int], None]]:
        with on_device(self._device.index) as on:
            return on.malloc(nbytes), on.free


class CudaManagedStorage(_CudaStorage):
    """Managed (unified) memory from ``cudaMallocManaged`` (kDLCUDAManaged),
    reachable from the host and every GPU.  DLPack numbers it device 0.

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 still allocates, so the pointer is valid).

    Raises
    ------
    CUDAUnavailableError
        Where cuda-bindings, the NVIDIA driver or a GPU is missing.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray.storage import CudaManagedStorage
    >>> CudaManagedStorage.kind
    'cuda_managed'
    >>> try:
    ...     s = CudaManagedStorage(1024)
    ... except dlarray.CUDAUnavailableError:  # no GPU, driver or cuda-bindings here
    ...     s = None
    >>> s is None or s.device == dlarray.Device("cuda_managed", 0)
    True

    On a machine with a GPU (skipped: the doctests also run without one):

    >>> s  # doctest: +SKIP
    CudaManagedStorage(nbytes=1024, device=Device('cuda_managed', 0))
    """

    kind = "cuda_managed"
    __slots__ = ()

    def __init__(self, nbytes: int) -> None:
        super().__init__(nbytes, Device("cuda_managed", 0))

    def _allocate(self, rt: CudaRuntime, nbytes: int) -> tuple[int, Callable[[int], None]]:
        return rt.malloc_managed(nbytes), rt.free


class CudaPinnedStorage(_CudaStorage):
    """Page-locked host memory from ``cudaMallocHost`` (kDLCUDAHost), which
    GPUs copy to and from at full speed.  DLPack numbers it device 0.

    Parameters
    ----------
    nbytes : int
        Size in bytes (0 still allocates, so the pointer is valid).

    Raises
    ------
    CUDAUnavailableError
        Where cuda-bindings, the NVIDIA driver or a GPU is missing.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray.storage import CudaPinnedStorage
    >>> CudaPinnedStorage.kind
    'cuda_host'
    >>> try:
    ...     s = CudaPinnedStorage(1024)
    ... except dlarray.CUDAUnavailableError:  # no GPU, driver or cuda-bindings here
    ...     s = None
    >>> s is None or s.device == dlarray.Device("cuda_host", 0)
    True

    On a machine with a GPU (skipped: the doctests also run without one):

    >>> s  # doctest: +SKIP
    CudaPinnedStorage(nbytes=1024, device=Device('cuda_host', 0))
    """

    kind = "cuda_host"
    __slots__ = ()

    def __init__(self, nbytes: int) -> None:
        super().__init__(nbytes, Device("cuda_host", 0))

    def _allocate(self, rt: CudaRuntime, nbytes: int) -> tuple[int, Callable[[int], None]]:
        return rt.malloc_host(nbytes), rt.free_host


def allocate(device: Device, nbytes: int) -> _CudaStorage:
    """New storage of ``nbytes`` on a CUDA ``device``; checks the index."""
    if device.memory.machine_wide:
        if device.index != 0:
            raise ValueError(
                f"{device}: DLPack numbers {device.kind} memory device 0 (one memory shared "
                f"by the host and every GPU); use Device({device.kind!r}, 0)"
            )
        return _MACHINE_WIDE[device.kind](nbytes)
    count = runtime().device_count()
    if device.index >= count:
        raise CUDAUnavailableError(
            f"{device} does not exist: this machine has {count} GPU(s), "
            f"numbered from 0 to {count - 1}"
        )
    return CudaDeviceStorage(nbytes, device.index)


# The machine-wide CUDA kinds (the memory-kind table's column); device
# memory, one GPU's, is the other.
_MACHINE_WIDE: dict[str, Callable[[int], _CudaStorage]] = {
    cls.kind: cls for cls in (CudaManagedStorage, CudaPinnedStorage)
}
