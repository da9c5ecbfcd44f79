"""NumPy as the engine for host memory.

This module knows NumPy alone; which engine computes on which memory kind
is :mod:`dlarray._engine.routing`'s job.

``to_numpy`` views a DLArray as an ``ndarray`` and ``from_numpy`` views an
``ndarray`` as a DLArray, both zero-copy through DLPack.  NumPy's DLPack code
knows only its own dtypes, so bfloat16 and the fp8/fp6/fp4 formats travel as
unsigned integers of the same width and are re-labelled on the other side
(as ``ml_dtypes`` types in NumPy, as the real dtype in dlarray).
"""

from __future__ import annotations

import operator
from types import ModuleType
from typing import Any

import numpy as np

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._device import KINDS
from dlarray._dtypes import DTYPES_BY_NAME, DType
from dlarray._engine import numpy_reductions, special_values
from dlarray._engine.namespaces import Namespace
from dlarray._install import pip_install
from dlarray._rules import CATEGORIES, SCALAR_JOINS, STANDARD_DTYPES, promotion
from dlarray._views import retag

# The device types of the memory NumPy computes on directly (the memory-kind
# table's engine column; managed and pinned memory have host_view_engine).
_HOST_DEVICE_TYPES = frozenset(int(k.device_type) for k in KINDS.values() if k.engine == "numpy")
_NUMPY_NATIVE = frozenset(
    name for name, d in DTYPES_BY_NAME.items() if d.kind != "extended floating"
)


def _ml_dtypes() -> ModuleType:
    try:  # ml_dtypes is optional: loaded lazily, by the first extended float
        import ml_dtypes
    except ImportError:
        raise TypeError(
            "bfloat16 and the fp8/fp6/fp4 dtypes need the ml_dtypes package for NumPy "
            f"to hold them; install it with: {pip_install('ml-dtypes')} (or pip install "
            "ml_dtypes)"
        ) from None
    return ml_dtypes


def _bits_dtype(width: int) -> DType:
    return DTYPES_BY_NAME[f"uint{width}"]


def can_view(x: ArrayBase) -> bool:
    """True if :func:`to_numpy` can view ``x`` without raising."""
    if x._dl_device[0] not in _HOST_DEVICE_TYPES:
        return False
    name = x.dtype.name
    if name in _NUMPY_NATIVE:
        return True
    if x.dtype.is_subbyte and not x._padded:
        return False
    try:
        _ml_dtypes()
    except TypeError:
        return False
    return True


def to_numpy(x: ArrayBase) -> Any:
    """A zero-copy ``ndarray`` view of a host DLArray, made once and cached.

    The view is made through DLPack from a *twin* of ``x`` (a second array
    object over the same memory and owner), not from ``x`` itself: the view
    keeps its exporter alive, so exporting ``x`` and caching the view on ``x``
    would make a reference cycle through the capsule that the garbage
    collector cannot see.
    """
    view = x._engine_view
    if type(view) is _ndarray:
        return view
    made = _make_view(x._view(x.shape, x._strides, x._byte_offset))
    if view is None:  # another engine's view (the foreign engine's) stays
        x._engine_view = made
    return made


def _make_view(x: ArrayBase) -> Any:
    if x._dl_device[0] not in _HOST_DEVICE_TYPES:
        raise BufferError(
            f"NumPy computes on host memory, and this array lives on {x.device}; "
            f"dlarray._engine.routing picks the engine for other memory"
        )
    dtype = x.dtype
    if dtype.name in _NUMPY_NATIVE:
        return np.from_dlpack(x)
    if dtype.is_subbyte and not x._padded:
        raise TypeError(
            f"a packed {dtype.name} array has no per-element bytes for NumPy to view; "
            f"use dlarray.subbyte.to_codes(x) or dlarray.subbyte.pad(x) first"
        )
    ml_dtype = getattr(_ml_dtypes(), dtype.name)
    width = 8 if dtype.is_subbyte else dtype.bits
    return np.from_dlpack(retag(x, _bits_dtype(width), padded=False)).view(ml_dtype)


def from_numpy(a: Any) -> ArrayBase:
    """A zero-copy DLArray view of an ``ndarray`` (ml_dtypes arrays included)."""
    name = a.dtype.name
    if name in _NUMPY_NATIVE or name not in DTYPES_BY_NAME:
        return _fast_from_dlpack(a)
    dtype = DTYPES_BY_NAME[name]
    bits = _fast_from_dlpack(a.view(f"u{a.dtype.itemsize}"))
    return retag(bits, dtype, padded=dtype.is_subbyte)


#: The engine's array type (the C core recognises it as host memory).
ARRAY_TYPE = _ndarray = np.ndarray
# NumPy's type characters of the dtypes its DLPack export knows (all of
# _NUMPY_NATIVE, in every integer spelling NumPy uses).
NATIVE_CHARS = frozenset("?bhilqpBHILQPefdFD")
# NumPy numbers the dtypes of other packages (ml_dtypes) from 256 up; some of
# those reuse a built-in type character (float8_e4m3b11fnuz's is "L"), so a
# character is native only with a number below this.
USER_DTYPE_NUMBERS = 256
_fast_from_dlpack = _core.from_dlpack


def wrap(a: Any) -> ArrayBase:
    """A NumPy result brought back as a DLArray, zero-copy through DLPack.

    ``a`` may be a NumPy scalar (ufuncs return those for 0-d inputs).  The
    DLArray keeps ``a`` as its cached engine view: ``a`` does not refer back
    to the DLArray, so this makes no cycle.
    """
    if type(a) is not _ndarray:
        a = np.asarray(a)
    dtype = a.dtype
    if dtype.char in NATIVE_CHARS and dtype.num < USER_DTYPE_NUMBERS:  # C attributes
        x = _fast_from_dlpack(a)
    else:
        x = from_numpy(a)
    x._engine_view = a
    return x


_NUMPY_DTYPES: dict[DType, Any] = {}


def numpy_dtype(dtype: DType) -> Any:
    """The NumPy dtype holding ``dtype`` (padded for sub-byte types)."""
    try:
        return _NUMPY_DTYPES[dtype]
    except KeyError:
        pass
    if dtype.name in _NUMPY_NATIVE:
        result = np.dtype(dtype.name)
    else:
        result = np.dtype(getattr(_ml_dtypes(), dtype.name))
    _NUMPY_DTYPES[dtype] = result
    return result


# ---- running kernels ----
#
# The Array API defines the results of 1/0, log(0), inf - inf and the like;
# they are values, not errors.  NumPy reports them as RuntimeWarnings, which
# would leak out of dlarray as noise about NumPy internals, so kernels run
# with NumPy's error reporting off.  np.errstate costs several times a small
# op (docs/benchmarks.md, "The figures behind decisions in the code"); NumPy
# 2 keeps its error state in a context variable, and the C core
# (engine_call.c) sets and resets that variable around the kernel, then
# adopts the result.  Without that variable (a NumPy layout we do not know)
# the Python fallback uses np.errstate.
try:
    from numpy._core._ufunc_config import (  # type: ignore[attr-defined]
        _extobj_contextvar,
    )

    with np.errstate(all="ignore"):
        _QUIET = _extobj_contextvar.get()
except (ImportError, AttributeError):  # pragma: no cover - other NumPy layouts
    _extobj_contextvar = None


#: NumPy's error-state context variable and its quiet value, for the C
#: core's engine call (registered in dlarray/__init__.py); None for a NumPy
#: layout without them.
ERROR_STATE = None if _extobj_contextvar is None else (_extobj_contextvar, _QUIET)


def _promotions() -> dict[tuple[DType, DType], DType]:
    """The pairs of two different dtypes whose promotion NumPy's ufuncs make
    as the standard does: every pair the standard promotes (the same kind,
    widened: int8 and int32, float32 and complex128 ...) where
    ``np.result_type`` is the standard's dtype (all of them, on NumPy 2)."""
    found = {}
    for a in STANDARD_DTYPES:
        for b in STANDARD_DTYPES:
            promoted = None if a is b else promotion(a, b)
            if promoted is None:
                continue
            if np.result_type(numpy_dtype(a), numpy_dtype(b)) == numpy_dtype(promoted):
                found[a, b] = promoted
    return found


#: For the C core's fast path (host_fast_path.HostEngine): NumPy's ufuncs take a
#: Python scalar next to an array of the dtypes listed for its type and
#: compute in the array's dtype (NEP 50's "weak" scalars), which is the
#: standard's rule.  An int next to an integer array is left out: it may not
#: fit the dtype, which the general path refuses with dlarray's own error.
SCALAR_KERNEL_TYPE = np.ufunc
SCALARS_JOINING: dict[type, frozenset[DType]] = {
    bool: SCALAR_JOINS[bool],
    int: SCALAR_JOINS[int] - CATEGORIES["integer"],
    float: SCALAR_JOINS[float],
    complex: SCALAR_JOINS[complex],
}
#: And two arrays of two dtypes that _promotions lists: a ufunc casts them
#: to the promoted dtype in its loop, exactly (each such cast widens), and
#: computes as on two arrays of that dtype.
PROMOTIONS = _promotions()


def _in_place(function: Any) -> Any:
    """The array object's in-place kernel for ``function`` (a function of
    the standard): ``kernel(x1, x2, out)`` writes ``function(x1, x2)`` into
    ``out`` and returns it.  A ufunc does that itself, its third argument
    being ``out=``, with no temporary (NumPy's own ``x += y``); other
    functions compute, then the result is written in."""
    if isinstance(function, np.ufunc):
        return function

    def kernel(x1: Any, x2: Any, out: Any) -> Any:
        out[...] = function(x1, x2)
        return out

    return kernel


# ---- the engine's standard namespace ----
#
# NumPy 2's main namespace is the standard's.  Its departures from it are
# fixed here, once, for every chapter (see dlarray._engine.namespaces).
# Fixes are grouped by the chapter that found them.

FIXES: dict[str, Any] = {
    "_dlarray_extended_dtype": numpy_dtype,
    # ---- fixes: elementwise ----
    "floor_divide": special_values.floor_divide(np, np.dtype),
    "expm1": special_values.expm1(np, np.dtype),
    "tanh": special_values.tanh(np, np.dtype),
    "sign": special_values.sign(np, np.dtype),
    # ---- fixes: statistical, searching, utility ----
    # Speed, not departures: NumPy's reductions without their Python
    # wrappers, a reduction over every axis written into a 0-d array.
    "sum": numpy_reductions.accumulation(np.add),
    "prod": numpy_reductions.accumulation(np.multiply),
    "cumulative_sum": numpy_reductions.scan(np.add),
    "cumulative_prod": numpy_reductions.scan(np.multiply),
    # Accuracy, not a departure: those four accumulate float32 and complex64
    # within dlarray's documented bounds in the dtype itself (a blocked path
    # at NumPy's speed for large contiguous runs, double precision for the
    # rest), so the chapters ask for the result dtype directly on this
    # engine instead of accumulating in double precision.
    "_dlarray_accurate_accumulation": True,
    # Speed: var's sum of squared deviations in one pass (no array of
    # squares), with the blocked sum's bound; None where it has no faster
    # way (dlarray._api.statistical._squared_deviations).
    "_dlarray_sum_of_squares": numpy_reductions.sum_of_squares,
    "max": numpy_reductions.extreme(np.maximum),
    "min": numpy_reductions.extreme(np.minimum),
    "all": numpy_reductions.truth(np.logical_and),
    "any": numpy_reductions.truth(np.logical_or),
    "argmax": numpy_reductions.arg_extreme("argmax"),
    "argmin": numpy_reductions.arg_extreme("argmin"),
    # A departure: NumPy before 2.3 returns a Python int from count_nonzero
    # over every axis; the standard returns an array.
    "count_nonzero": numpy_reductions.as_array(np.count_nonzero),
    # ---- fixes: manipulation, indexing, sorting, sets ----
    # Not a departure but a hook: NumPy's indexing with arrays in the key is
    # dlarray's (integer arrays and masks anywhere in the key, IndexError out
    # of range), so the host indexes with it directly; other engines build
    # such keys from the standard (dlarray._api.indexing_object).
    "_dlarray_getitem": operator.getitem,
    "_dlarray_setitem": operator.setitem,
    # ---- fixes: creation, the array object ----
    # Not a standard function: dlarray's in-place operators ask for it
    # (dlarray._api.array_object; engines without it compute, then write).
    "_dlarray_in_place": _in_place,
    # ---- fixes: linalg, fft ----
    # Speed, not a departure: NumPy's linalg.diagonal is two Python wrappers
    # around the array's own diagonal method (a read-only view, as theirs),
    # a measurable part of the check of a small cholesky (docs/benchmarks.md).
    "linalg.diagonal": lambda x, /, *, offset=0: x.diagonal(offset, -2, -1),
}


def namespace() -> Any:
    """NumPy's standard namespace, with :data:`FIXES` in place."""
    return Namespace("numpy", np, FIXES)


def quiet(kernel: Any) -> Any:
    """``kernel`` wrapped to run with NumPy's floating-point warnings off
    (for kernels whose result is not a single array for :func:`call`)."""

    def quiet_kernel(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):
            return kernel(*args, **kwargs)

    quiet_kernel.__name__ = getattr(kernel, "__name__", "kernel")
    return quiet_kernel
