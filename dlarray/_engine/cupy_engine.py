"""CuPy as the engine for CUDA device memory (kDLCUDA).

The namespace's chapter modules call NumPy's functions on engine views;
CuPy arrays take those calls over through NumPy's dispatch protocols
(``__array_ufunc__`` and ``__array_function__``), so the same code computes
on the GPU, and results come back as DLArrays through DLPack, zero-copy.

Views and results cross on dlarray's work stream (see
:mod:`dlarray._cuda.streams`), which is CuPy's current stream, so no
synchronisation is needed between them.

Nothing here imports CuPy until a CUDA array is computed on; without CuPy,
CUDA arrays can still be made, copied and exchanged, and computing raises
``BufferError`` saying what to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import dlarray._core as _core
from dlarray._array import DLArray
from dlarray._cuda import runtime as cuda_runtime
from dlarray._engine import special_values
from dlarray._engine.namespaces import Namespace


def _cupy() -> ModuleType | None:
    try:
        return importlib.import_module("cupy")
    except ImportError:
        return None


def available() -> bool:
    """Whether CuPy can be imported."""
    return _cupy() is not None


def is_cupy_array(a: Any) -> bool:
    """True for a ``cupy.ndarray`` (checked without importing CuPy)."""
    return type(a).__module__.startswith("cupy") and hasattr(a, "__cuda_array_interface__")


def to_cupy(x: DLArray) -> Any:
    """A zero-copy ``cupy.ndarray`` view of a CUDA DLArray, through DLPack.

    Like the NumPy engine, it views a twin of ``x`` so that caching the view
    on ``x`` makes no reference cycle through the capsule.
    """
    cupy = _cupy()
    if cupy is None:
        raise BufferError(
            f"computing on {x.device} memory needs CuPy, which is not installed; install "
            f"it (pip install 'dlarray[cupy]', or 'dlarray[cupy12]' on a CUDA 12 driver), or copy "
            f"the array to the host with x.to_device('cpu')"
        )
    cuda_runtime.runtime()  # dlarray orders its GPU work through it; says what is missing
    twin = x._view(x.shape, x._strides, x._byte_offset)
    return cupy.from_dlpack(twin)


def wrap(a: Any) -> DLArray:
    """A CuPy result brought back as a DLArray, zero-copy, keeping ``a`` as
    its engine view."""
    x = _core.from_dlpack(a)  # dlarray.from_dlpack: picks the stream
    x._engine_view = a
    return x


# CuPy's departures from the standard, fixed once for every chapter (see
# dlarray._engine.namespaces).
FIXES: dict[str, Any] = {}


def _fixes(compat: Any) -> dict[str, Any]:
    """The fixes that need CuPy's namespace to be made."""
    return {
        # CuPy's kernels are NumPy's, special values included.
        "floor_divide": special_values.floor_divide(compat),
        "expm1": special_values.expm1(compat),
        "tanh": special_values.tanh(compat),
    }


def namespace() -> Namespace:
    """CuPy's standard namespace (array-api-compat's ``cupy`` wrapper), with
    :data:`FIXES` in place."""
    try:
        compat = importlib.import_module("array_api_compat.cupy")
    except ImportError:
        raise BufferError(
            "computing on CUDA memory needs array-api-compat, CuPy's standard namespace; "
            "pip install array-api-compat (or pip install 'dlarray[cupy]')"
        ) from None
    return Namespace("cupy", compat, {**_fixes(compat), **FIXES})
