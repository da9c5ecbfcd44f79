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

import math as _math
import os as _os
import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from dlarray import _core

if not hasattr(_core, "consume"):
    # Python found the folder of C sources (dlarray/_core/) instead of the
    # compiled module: this is a source checkout whose core was never built.
    raise ImportError(
        "dlarray's C core is not built in this source tree "
        f"({__path__[0]}). Build it in place with `python -m pip install -e .`, "
        "or run from another directory to use an installed dlarray."
    )

# The layers, from the bottom up; each imports only from those below it
# (tests/test_layers.py keeps it so, and docs/design.md draws them).
from dlarray import _array, _consumer, _exchange, _transfer, abi, storage, subbyte
from dlarray._api import NAMESPACE, array_object, creation, elementwise, indexing_object, printing
from dlarray._array import DLArray
from dlarray._cuda.runtime import CUDAUnavailableError
from dlarray._device import Device, DLDeviceType
from dlarray._dtypes import DTYPES_BY_NAME, DType, dtypes
from dlarray._engine import numpy_engine, routing
from dlarray._storage.family import FAMILIES, order_export, prepare_host_access
from dlarray._sycl.runtime import SYCLUnavailableError

#: The revision of the Array API standard this namespace implements.
__array_api_version__ = "2025.12"

# The whole Array API namespace, one chapter module at a time (dlarray._api).
globals().update(NAMESPACE)
if _TYPE_CHECKING:
    # The namespace's names are added at import; tell type checkers they exist.
    def __getattr__(name: str) -> _Any: ...


from dlarray import fft, linalg  # noqa: E402  (the extensions use the namespace)

# ---- wiring: the calls that run up the layers, made here and only here ----
# The array object (dlarray._array) calls the layers above it through one
# table: its operators are the namespace's functions, and its rules that need
# an engine, a copy or a stream are these.
_array.DELEGATES.update(NAMESPACE)
_array.DELEGATES.update(
    _inplace=array_object.inplace,
    _scalar=array_object.to_scalar,
    _round=array_object.round_to,
    _format=array_object.format_with,
    _repr=printing.repr_of,
    _str=printing.str_of,
    _to_numpy=array_object.to_numpy,
    _host_access=prepare_host_access,
    _copy=array_object.copy_of,
    _reduce=array_object.reduce,
    _getitem=indexing_object.getitem,
    _setitem=indexing_object.setitem,
    _to_device=creation.to_device,
    _dlpack_copy=_transfer.copy_to_device,
    _dlpack_check_stream=order_export,
    _namespace=_sys.modules[__name__],
)
# The operators' C slots: their functions' fast paths and Python methods.
_core.register_operators(_array.operator_table(elementwise.KERNELS))
# The C core calls up too: the complete from_dlpack for what its fast path
# does not handle, the consumer's stream choice, the SYCL import check, the
# exchange table's hooks, and the engine's wrap for the results of kernels.
_core.set_general_from_dlpack(_consumer.from_dlpack)
_core.set_stream_choice(_consumer.stream_choice)
_core.set_sycl_importer(FAMILIES["sycl"].check_import)
_core.set_exchange_hooks(_exchange.work_stream, _exchange.allocate, _exchange.order_import)
if numpy_engine.ERROR_STATE is not None:
    _core.register_engine(
        routing.FAST_PATH_ARRAY_TYPE, *numpy_engine.ERROR_STATE, routing.wrap, routing.engine_view
    )
    _core.register_scalar_kernels(*numpy_engine.SCALAR_KERNELS)
# Pickles rebuild arrays through a name that outlives the layers' layout.
_unpickle = array_object.unpickle
# The wiring's names are not the namespace's.
del array_object, creation, elementwise, indexing_object, numpy_engine, printing, routing
del FAMILIES, order_export, prepare_host_access

# The C entry point: fast for the common call, the Python one for the rest.
from_dlpack = _core.from_dlpack
from_dlpack.__module__ = "dlarray"  # help() names the public function, not the C module

# The standard's constants.
e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
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

    Raises
    ------
    TypeError
        If given any argument (it takes none).  It raises nothing else: the
        headers are part of the package.

    Examples
    --------
    >>> import os, dlarray
    >>> sorted(f for f in os.listdir(dlarray.get_include()) if f.endswith(".h"))
    ['dlarray_capi.h', 'dlpack_abi.h']
    """
    return _os.path.join(_os.path.dirname(__file__), "include")


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
    "abi",
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
