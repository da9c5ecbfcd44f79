"""Which engine computes on which memory: the engine column of the
memory-kind table (:mod:`dlarray._device`), and the two crossings every
operation makes through it.

:func:`engine_view` views a DLArray as its engine's array (NumPy on the
host, CuPy on CUDA device memory, dpnp on SYCL USM, and NumPy through host
views on CUDA managed and pinned memory, see
:mod:`dlarray._engine.host_view_engine`), zero-copy, and caches the view on
the array; each time, it first has the memory family order dlarray's
pending device work before the engine's (see :mod:`dlarray._cuda.streams`).
:func:`wrap` brings an engine's result back as a DLArray, zero-copy (a host
view's result lands in its input's memory kind).  :func:`call` runs a
kernel between the two in C, and :func:`namespace_of` is the engine's
standard namespace the chapters compute through
(:mod:`dlarray._engine.namespaces`).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._device import KINDS
from dlarray._engine import (
    cupy_engine,
    host_view_engine,
    namespaces,
    numpy_engine,
    strict_engine,
    sycl_engine,
)
from dlarray._engine.namespaces import engine_dtype, hook, namespace_of
from dlarray._storage.family import FAMILIES, MemoryFamily

__all__ = ["HOST_ENGINE", "call", "engine_dtype", "engine_view", "namespace_of", "wrap", "write"]

# The engine of host memory: NumPy, or the foreign engine for the test
# session that proves the chapters use only the standard (strict_engine).
HOST_ENGINE = os.environ.get("DLARRAY_HOST_ENGINE", "numpy").replace("-", "_")
_HOST_VIEWERS = {"numpy": numpy_engine.to_numpy, "array_api_strict": strict_engine.to_strict}
if HOST_ENGINE not in _HOST_VIEWERS:
    raise ImportError(
        f"DLARRAY_HOST_ENGINE={HOST_ENGINE!r}: dlarray computes on host memory with 'numpy' "
        f"(the default) or 'array_api_strict' (the foreign-engine test session)"
    )

_HOST_IS_NUMPY = HOST_ENGINE == "numpy"
_ndarray = np.ndarray


# engine name (the table's column) -> the function that views a DLArray.
_VIEWERS = {
    "numpy": _HOST_VIEWERS[HOST_ENGINE],
    "cupy": cupy_engine.to_cupy,
    "dpnp": sycl_engine.to_dpnp,
    host_view_engine.ENGINE_NAME: host_view_engine.to_host_view,
}
namespaces.register("numpy", numpy_engine.namespace)
namespaces.register("cupy", cupy_engine.namespace)
namespaces.register("dpnp", sycl_engine.namespace)
namespaces.register("array_api_strict", strict_engine.namespace)
namespaces.register(host_view_engine.ENGINE_MODULE, host_view_engine.namespace)
# DLPack device type -> its viewer.  The SYCL kinds share one device type
# and one engine, so the device type is enough (and a C attribute to read).
_VIEWER_OF_TYPE = {
    int(kind.device_type): _VIEWERS[kind.engine] for kind in KINDS.values() if kind.engine
}
# DLPack device type -> what orders dlarray's pending work on that memory
# before an engine computes on it: the families that queue work of their
# own (CUDA's streams); the others' before_compute does nothing.
_BEFORE_COMPUTE = {
    int(kind.device_type): family.before_compute
    for kind in KINDS.values()
    if type(family := FAMILIES[kind.family]).before_compute is not MemoryFamily.before_compute
}
_ENGINE_KINDS = (
    "host memory (NumPy), CUDA device memory (CuPy), CUDA managed and pinned memory "
    "(NumPy), SYCL USM (dpnp)"
)


# Whether engine_view may return a cached view at once.  Only views of
# memory with device work to order (_BEFORE_COMPUTE: CUDA's) need a check
# each time; until this process first computes on such memory (made or met
# one of their views), the host's hot path pays nothing for it.  Never under
# the foreign engine, which replaces the NumPy views creation caches.
_RETURN_CACHED = _HOST_IS_NUMPY


def _views_need_ordering() -> None:
    global _RETURN_CACHED
    _RETURN_CACHED = False


def engine_view(x: ArrayBase) -> Any:
    """``x`` as its engine's array, zero-copy (made once, then cached),
    with dlarray's pending device work on its memory ordered before the
    engine's (CUDA: the engine's stream waits, or the host for NumPy)."""
    view = x._engine_view
    if view is not None and _RETURN_CACHED:
        return view
    device_type = x._dl_device[0]
    before = _BEFORE_COMPUTE.get(device_type)
    if view is not None and (_HOST_IS_NUMPY or type(view) is not _ndarray):
        if before is not None:
            before(x.device)
        return view
    viewer = _VIEWER_OF_TYPE.get(device_type)
    if viewer is None:
        raise BufferError(
            f"dlarray computes on {_ENGINE_KINDS}, and this array lives on {x.device}; "
            f"copy it with x.to_device('cpu'), or view it with another library through "
            f"DLPack"
        )
    if before is not None:
        _views_need_ordering()
        before(x.device)
    view = viewer(x)
    x._engine_view = view
    return view


_NATIVE_CHARS = numpy_engine.NATIVE_CHARS
_USER_NUMBERS = numpy_engine.USER_DTYPE_NUMBERS
_fast_from_dlpack = _core.from_dlpack


def wrap(a: Any) -> ArrayBase:
    """An engine's result brought back as a DLArray, zero-copy, keeping
    ``a`` as its engine view (``a`` does not refer back: no cycle).

    NumPy's arrays, the common case, are adopted here without a further
    call; NumPy scalars (ufuncs return those for 0-d inputs) become 0-d
    arrays."""
    if type(a) is _ndarray and a.dtype.char in _NATIVE_CHARS and a.dtype.num < _USER_NUMBERS:
        x = _fast_from_dlpack(a)
        x._engine_view = a
        return x
    if isinstance(a, ArrayBase):  # an engine adapter's result, already adopted
        return a
    if isinstance(a, host_view_engine.HostView):  # onto its input's memory kind
        _views_need_ordering()
        return host_view_engine.wrap(a)
    if cupy_engine.is_cupy_array(a):
        _views_need_ordering()
        return cupy_engine.wrap(a)
    if strict_engine.is_strict_array(a):
        return strict_engine.wrap(a)
    if sycl_engine.is_dpnp_array(a):
        return sycl_engine.wrap(a)
    return numpy_engine.wrap(a)


def _call_with_errstate(kernel: Any, *args: Any, **kwargs: Any) -> ArrayBase:  # pragma: no cover
    with np.errstate(all="ignore"):
        return wrap(kernel(*args, **kwargs))


#: call(kernel, *args, **kwargs) -> the kernel's result as a DLArray, computed with
#: NumPy's floating-point warnings off (in C, once dlarray/__init__.py has
#: registered the engine; see numpy_engine's notes on the error state).
call = _core.engine_call if numpy_engine.ERROR_STATE is not None else _call_with_errstate


_WRITERS: dict[type, Any] = {}  # engine array type -> its namespace's write, or None


def write(target: Any, key: Any, value: Any) -> None:
    """``target[key] = value`` on an engine array: the standard's
    ``__setitem__`` (a basic key or a sole mask), run the way the engine
    runs its functions (the CuPy engine: on the array's GPU), through the
    namespace's ``_dlarray_write`` where it has one."""
    try:
        writer = _WRITERS[type(target)]
    except KeyError:
        writer = _WRITERS[type(target)] = hook(namespace_of(target), "_dlarray_write")
    if writer is None:
        target[key] = value
    else:
        writer(target, key, value)
