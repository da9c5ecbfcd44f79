"""array-api-strict as the *foreign engine* for host memory.

dlarray computes on host memory with NumPy.  Run with the environment
variable ``DLARRAY_HOST_ENGINE=array_api_strict`` and it computes there with
array-api-strict instead: a library that implements the standard and
nothing else, and refuses every NumPy habit (``out=`` buffers, ufunc
methods, NumPy-only keywords, implicit dtype casts, Python lists).  The
chapter modules must work unchanged; the ``foreign_engine`` nox session
runs dlarray's namespace tests and the official conformance suite that
way.  A test session, not a mode for users: it is slower than NumPy, and
array-api-strict holds none of the extended float dtypes.

Views live on array-api-strict's ``device1``, a device that is not the
CPU: there, NumPy's protocols (``__array__``, the buffer protocol) refuse
the arrays, so a NumPy function applied to an engine array fails loudly
instead of quietly computing with NumPy, and creating an engine array
without the input's ``device=`` fails too (the CuPy engine on a second GPU
needs exactly that).  A view is array-api-strict's wrapper around a
zero-copy NumPy view, made with its private constructor ``Array._new``:
its public ``to_device`` copies, and in-place operators write through the
view.  Results come back through DLPack.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType
from typing import Any

import numpy as np

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._engine import special_values
from dlarray._engine.namespaces import Namespace


@functools.cache
def _strict() -> ModuleType:
    try:
        return importlib.import_module("array_api_strict")
    except ImportError:
        raise BufferError(
            "DLARRAY_HOST_ENGINE=array_api_strict asks dlarray to compute on host memory "
            "with array-api-strict, which is not installed (pip install array-api-strict)"
        ) from None


def is_strict_array(a: Any) -> bool:
    """True for an ``array_api_strict`` array (checked without importing it)."""
    return type(a).__module__.startswith("array_api_strict")


def to_strict(x: ArrayBase) -> Any:
    """A zero-copy ``array_api_strict`` view of a host DLArray (of a twin of
    ``x``, so that caching the view on ``x`` makes no cycle)."""
    if x.dtype.kind == "extended floating":
        raise TypeError(
            f"array-api-strict has no {x.dtype.name} dtype, so the foreign engine cannot "
            f"compute with it; unset DLARRAY_HOST_ENGINE to compute with NumPy"
        )
    host = np.from_dlpack(x._view(x.shape, x._strides, x._byte_offset))
    return type(_strict().asarray(0))._new(host, device=_device())


@functools.cache
def _device() -> Any:
    return _strict().Device("device1")


def wrap(a: Any) -> ArrayBase:
    """An array-api-strict result as a DLArray, zero-copy, keeping ``a`` as
    its engine view."""
    x = _core.from_dlpack(a)
    x._engine_view = a
    return x


def namespace() -> Namespace:
    """array-api-strict's namespace.  It computes with NumPy's kernels, so
    it departs from the standard's special values where NumPy does, and
    gets the same fixes (written in the standard)."""
    strict = _strict()
    fixes = {
        "floor_divide": special_values.floor_divide(strict),
        "expm1": special_values.expm1(strict),
        "tanh": special_values.tanh(strict),
        "sign": special_values.sign(strict),
    }
    return Namespace("array_api_strict", strict, fixes)
