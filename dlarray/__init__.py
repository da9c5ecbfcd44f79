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
# (tests/test_layers.py keeps it so, and docs/design.md draws them).  The
# array class sits on top: its methods call the namespace directly.
from dlarray import abi, storage, subbyte
from dlarray._api import NAMESPACE
from dlarray._array import DLArray, unpickle
from dlarray._cuda.runtime import CUDAUnavailableError
from dlarray._device import Device, DLDeviceType
from dlarray._dtypes import DTYPES_BY_NAME, DType, dtypes
from dlarray._rules import spelling_hint as _spelling_hint
from dlarray._sycl.runtime import SYCLUnavailableError

#: The revision of the Array API standard this namespace implements.
__array_api_version__ = "2025.12"

# The whole Array API namespace, one chapter module at a time (dlarray._api).
globals().update(NAMESPACE)


# Another library's spelling of a name the package lacks (dlarray.array)
# gets the standard's in its AttributeError through a module __getattr__,
# from Python 3.15 on only.  Before 3.15 the interpreter does not specialise
# attribute loads from a module that has a __getattr__: every
# dlarray.<function> would take the slow path (the instruction gate caught
# it; docs/benchmarks.md, "The instruction gate", gives the cost).  There a
# typo gets Python's own "Did you mean: 'asarray'?" instead.
if _sys.version_info >= (3, 15) or _TYPE_CHECKING:

    def __getattr__(name: str) -> _Any:
        """A name the package lacks: ``AttributeError``, which names the
        standard's spelling where ``name`` is another library's (the one
        table of them, ``dlarray._rules.SPELLINGS``: ``dlarray.array`` is
        ``dlarray.asarray``).  (Type checkers read from it that the
        namespace's names, added at import, exist.)"""
        message = f"module 'dlarray' has no attribute {name!r}"
        hint = _spelling_hint(f"dlarray.{name}")
        if hint is not None:
            message += f": dlarray follows the Array API standard, which writes it {hint}"
        raise AttributeError(message)


from dlarray import fft, linalg  # noqa: E402  (the extensions use the namespace)

# The one registration: arrays made in C become DLArrays, and the C core
# reads from the class what it calls in Python (dlarray/_array.py, "What the
# C core reads").
_core.register_array_type(DLArray)

# Pickles rebuild arrays through a name that outlives the package's layout.
_unpickle = unpickle
del unpickle

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
