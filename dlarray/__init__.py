"""dlarray: an N-dimensional array library that speaks DLPack completely.

Arrays live in storage of one memory kind (host, CUDA device, managed or
pinned memory), are exchanged zero-copy with any DLPack producer or consumer,
and borrow other libraries' kernels for compute.

Examples
--------
>>> import dlarray, numpy as np
>>> a = np.arange(4, dtype=np.float32)
>>> x = dlarray.from_dlpack(a)         # zero-copy import
>>> b = np.from_dlpack(x)              # zero-copy export
>>> b[0] = 42.0
>>> float(a[0])
42.0
"""

import math
from typing import TYPE_CHECKING, Any

from dlarray import _core

if not hasattr(_core, "consume"):
    # Python found the folder of C sources (dlarray/_core/) instead of the
    # compiled module: this is a source checkout whose core was never built.
    raise ImportError(
        "dlarray's C core is not built in this source tree "
        f"({__path__[0]}). Build it in place with `python -m pip install -e .`, "
        "or run from another directory to use an installed dlarray."
    )

# _consumer registers the Python from_dlpack with the core on import.
from dlarray import _consumer, _exchange, storage, subbyte  # noqa: F401
from dlarray._api import NAMESPACE
from dlarray._array import DLArray
from dlarray._cuda.runtime import CUDAUnavailableError
from dlarray._device import Device, DLDeviceType
from dlarray._dtypes import DTYPES_BY_NAME, DType, dtypes
from dlarray._sycl.runtime import SYCLUnavailableError

#: The revision of the Array API standard this namespace implements.
__array_api_version__ = "2025.12"

# The whole Array API namespace, one chapter module at a time (dlarray._api).
globals().update(NAMESPACE)
if TYPE_CHECKING:
    # The namespace's names are added at import; tell type checkers they exist.
    def __getattr__(name: str) -> Any: ...


from dlarray import fft, linalg  # noqa: E402  (the extensions use the namespace)

# The C entry point: fast for the common call, the Python one for the rest.
from_dlpack = _core.from_dlpack

# The standard's constants.
e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None

__version__ = "0.1.0"
#: The DLPack version dlarray reads and writes.
__dlpack_version__ = (_core.DLPACK_MAJOR_VERSION, _core.DLPACK_MINOR_VERSION)


def get_include() -> str:
    """The folder of dlarray's C headers, for building extensions that use
    dlarray's C API (``dlarray_capi.h``) or its DLPack declarations
    (``dlpack_abi.h``).

    Returns
    -------
    str
        An absolute path; pass it to the compiler as ``-I``.

    Examples
    --------
    >>> import os, dlarray
    >>> sorted(f for f in os.listdir(dlarray.get_include()) if f.endswith(".h"))
    ['dlarray_capi.h', 'dlpack_abi.h']
    """
    import os

    return os.path.join(os.path.dirname(__file__), "include")


# One module attribute per dtype, from the single dtype table.
globals().update(DTYPES_BY_NAME)

__all__ = [
    "CUDAUnavailableError",
    "SYCLUnavailableError",
    "DLArray",
    "DLDeviceType",
    "DType",
    "Device",
    "__array_api_version__",
    "dtypes",
    "e",
    "fft",
    "get_include",
    "inf",
    "linalg",
    "nan",
    "newaxis",
    "pi",
    "storage",
    "subbyte",
    *DTYPES_BY_NAME,
    *NAMESPACE,
]
