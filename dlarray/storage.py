"""dlarray's storage classes: the objects that own an array's memory.

An array's memory is a storage object: one class per memory kind, all
with the four properties of the :class:`Storage` protocol (``pointer``,
``nbytes``, ``device``, ``owner``).  The CUDA and SYCL classes allocate
only where their runtime and a device exist; each names the
:class:`~dlarray.Device` kind it makes.  :func:`dlarray.abi.owner` gives
the storage behind an array.

Examples
--------
>>> from dlarray import storage
>>> s = storage.HostStorage(64, zero=True)
>>> isinstance(s, storage.Storage)
True
>>> s.nbytes, s.device, s.owner is s
(64, Device('cpu', 0), True)
>>> [cls.kind for cls in (storage.CudaDeviceStorage, storage.CudaManagedStorage,
...                       storage.CudaPinnedStorage)]
['cuda', 'cuda_managed', 'cuda_host']
>>> [(cls.kind, cls.usm_type) for cls in (storage.SyclDeviceStorage,
...                                       storage.SyclSharedStorage, storage.SyclHostStorage)]
[('sycl', 'device'), ('sycl_shared', 'shared'), ('sycl_host', 'host')]
"""

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
