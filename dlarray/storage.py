"""Public view of dlarray's storage classes (see :mod:`dlarray._storage`)."""

from dlarray._storage import HostStorage, Storage
from dlarray._storage.cuda import CudaDeviceStorage, CudaManagedStorage, CudaPinnedStorage

__all__ = [
    "CudaDeviceStorage",
    "CudaManagedStorage",
    "CudaPinnedStorage",
    "HostStorage",
    "Storage",
]
