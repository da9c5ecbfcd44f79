"""Public view of dlarray's storage classes (see :mod:`dlarray._storage`)."""

from dlarray._storage import HostStorage, Storage
from dlarray._storage.cuda import CudaDeviceStorage, CudaManagedStorage, CudaPinnedStorage
from dlarray._storage.sycl import SyclDeviceStorage, SyclHostStorage, SyclSharedStorage

__all__ = [
    "CudaDeviceStorage",
    "CudaManagedStorage",
    "CudaPinnedStorage",
    "HostStorage",
    "Storage",
    "SyclDeviceStorage",
    "SyclHostStorage",
    "SyclSharedStorage",
]
