"""dpnp as the engine for SYCL USM (kDLOneAPI, every USM kind).

The namespace's chapter modules compute through the engine's standard
namespace (:mod:`dlarray._engine.namespaces`); dpnp's main namespace is
standard-conforming itself (``dpnp.ndarray.__array_namespace__()`` is
``dpnp``), with its ``linalg`` and ``fft`` extensions, so the chapters run
unchanged on SYCL memory.  dlarray's own rules (dtypes, devices, errors)
have been applied before any of this runs.

Views are made zero-copy through DLPack (``dpnp.from_dlpack``, which
lands on dpctl's cached queue of the device, dlarray's queue) and results
come back the same way.  Nothing here imports dpnp until a SYCL array is
computed on; without dpnp, SYCL arrays can still be made, copied and
exchanged, and computing raises ``BufferError`` saying what to install.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType
from typing import Any

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._engine.namespaces import Namespace
from dlarray._install import pip_install


@functools.cache
def _dpnp() -> ModuleType | None:
    try:
        return importlib.import_module("dpnp")
    except ImportError:
        return None


def available() -> bool:
    """Whether dpnp can be imported."""
    return _dpnp() is not None


def is_dpnp_array(a: Any) -> bool:
    """True for a dpnp array or ``dpnp.tensor`` array (checked without
    importing dpnp): the SYCL arrays engines return."""
    return hasattr(type(a), "__sycl_usm_array_interface__")


def to_dpnp(x: ArrayBase) -> Any:
    """A zero-copy ``dpnp.ndarray`` view of a SYCL DLArray.

    Like the other engines, it views a twin of ``x`` so that caching the
    view on ``x`` makes no reference cycle through the capsule.
    """
    dpnp = _dpnp()
    if dpnp is None:
        raise BufferError(
            f"computing on {x.device} memory needs dpnp, which is not installed; install "
            f"it ({pip_install('dpnp')}), or copy the array to the host with x.to_device('cpu')"
        )
    if x.dtype.kind == "extended floating":
        raise TypeError(
            f"dpnp has no {x.dtype.name} dtype, so dlarray cannot compute on {x.device} "
            f"with it; copy the array to the host with x.to_device('cpu')"
        )
    twin = x._view(x.shape, x._strides, x._byte_offset)
    return dpnp.from_dlpack(twin)


def wrap(a: Any) -> ArrayBase:
    """A dpnp result brought back as a DLArray, zero-copy, keeping it as the
    engine view."""
    dpnp = _dpnp()
    assert dpnp is not None
    if not isinstance(a, dpnp.ndarray):  # a usm_ndarray from dpnp.tensor
        a = dpnp.ndarray._create_from_usm_ndarray(a)
    x = _core.from_dlpack(a)  # dlarray.from_dlpack: picks the queue
    x._engine_view = a
    return x


# dpnp's departures from the standard, fixed once for every chapter (see
# dlarray._engine.namespaces).
FIXES: dict[str, Any] = {}


def namespace() -> Namespace:
    """dpnp's namespace (standard-conforming itself), with :data:`FIXES`."""
    dpnp = _dpnp()
    assert dpnp is not None  # a dpnp array exists, so dpnp imported
    return Namespace("dpnp", dpnp, FIXES)
