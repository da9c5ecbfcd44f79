"""Reference counts and memory: exports and imports neither leak nor free early.

Each export holds exactly one strong reference to the exported array until
the consumer's deleter (or the unconsumed capsule's destructor) runs; each
import holds the producer's tensor until the last array over it dies; views
reference the memory's owner, not their parent.  A long loop of round trips
must leave the Python heap (tracemalloc) and the process (RSS) flat.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import tracemalloc

import numpy as np
import pytest

import dlarray
from dlarray import _core
from dlarray._engine import numpy_engine

ml_dtypes = pytest.importorskip("ml_dtypes")

VERSIONED = (1, 3)


def refs(obj: object) -> int:
    """sys.getrefcount of obj, minus the reference this call holds."""
    return sys.getrefcount(obj) - 1


# ---- exports: the capsule's reference to the array ----


@pytest.mark.parametrize("max_version", [VERSIONED, None], ids=["versioned", "legacy"])
def test_unconsumed_capsule_holds_one_reference_until_it_dies(max_version):
    x = dlarray.asarray([1.0, 2.0, 3.0])
    before = refs(x)
    capsule = x.__dlpack__(max_version=max_version)
    assert refs(x) == before + 1
    del capsule
    assert refs(x) == before


@pytest.mark.parametrize("max_version", [VERSIONED, None], ids=["versioned", "legacy"])
def test_consumed_capsule_holds_the_array_until_the_import_dies(max_version):
    x = dlarray.asarray([1.0, 2.0, 3.0])
    before = refs(x)
    capsule = x.__dlpack__(max_version=max_version)
    y = _core.consume(capsule)
    assert refs(x) == before + 1
    del capsule  # renamed "used_...": its destructor must not release again
    assert refs(x) == before + 1
    del y
    assert refs(x) == before


def test_capsule_consumed_twice_is_refused_without_touching_refcounts():
    x = dlarray.asarray([1.0, 2.0])
    before = refs(x)
    capsule = x.__dlpack__(max_version=VERSIONED)
    y = _core.consume(capsule)
    with pytest.raises(ValueError, match="already consumed"):
        _core.consume(capsule)
    assert refs(x) == before + 1
    del y, capsule
    assert refs(x) == before


def test_refused_export_leaves_no_reference_behind():
    x = dlarray.asarray(b"abc")  # read-only: a legacy capsule cannot say so
    before = refs(x)
    with pytest.raises(BufferError):
        x.__dlpack__(max_version=None)
    assert refs(x) == before


def test_many_outstanding_capsules_each_hold_one_reference():
    x = dlarray.zeros(4)
    before = refs(x)
    capsules = [x.__dlpack__(max_version=VERSIONED) for _ in range(10)]
    assert refs(x) == before + 10
    imports = [_core.consume(c) for c in capsules[:5]]
    assert refs(x) == before + 10
    del capsules
    assert refs(x) == before + 5
    del imports
    assert refs(x) == before


def test_numpy_import_of_dlarray_holds_it_until_the_ndarray_dies():
    x = dlarray.asarray([1, 2, 3], dtype=dlarray.int32)
    before = refs(x)
    b = np.from_dlpack(x)
    assert refs(x) == before + 1
    c = b[1:]  # a NumPy view keeps b, not another export
    assert refs(x) == before + 1
    del b
    assert refs(x) == before + 1
    del c
    assert refs(x) == before


def test_copying_export_does_not_reference_the_source():
    x = dlarray.asarray([1, 2, 3], dtype=dlarray.int32)
    before = refs(x)
    b = np.from_dlpack(x, copy=True)
    assert refs(x) == before
    assert b.tolist() == [1, 2, 3]


# ---- views reference the owner, not the parent ----


@pytest.mark.parametrize(
    "make_view",
    [lambda x: x[1:], lambda x: x.T, lambda x: x[::-1], lambda x: x[None, ..., 0],
     lambda x: dlarray.reshape(x, (-1,))],
    ids=["slice", "transpose", "reverse", "newaxis", "reshape"],
)
def test_views_reference_the_memory_owner_not_the_parent(make_view):
    x = dlarray.zeros((3, 4))
    owner = x._owner
    x_before, owner_before = refs(x), refs(owner)
    v = make_view(x)
    assert v._owner is owner
    assert refs(x) == x_before
    assert refs(owner) == owner_before + 1
    del v
    assert refs(owner) == owner_before


def test_view_outlives_parent_and_frees_owner_last():
    x = dlarray.zeros((3, 4))
    owner = x._owner
    owner_before = refs(owner)
    v = x[1:]
    del x
    assert refs(owner) == owner_before  # the parent's reference became the view's
    del v
    assert refs(owner) == owner_before - 1


# ---- imports of NumPy arrays ----


def test_dlarray_import_of_numpy_array_holds_it_until_the_dlarray_dies():
    a = np.arange(6.0)
    before = refs(a)
    x = dlarray.from_dlpack(a)
    assert refs(a) == before + 1
    views = [x[1:], x[::-1], x[None]]
    assert refs(a) == before + 1  # views share the one import
    del x
    assert refs(a) == before + 1
    del views
    assert refs(a) == before


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device_type", ctypes.c_int32),
        ("device_id", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("dtype_code", ctypes.c_uint8),
        ("dtype_bits", ctypes.c_uint8),
        ("dtype_lanes", ctypes.c_uint16),
        ("shape", ctypes.c_void_p),
        ("strides", ctypes.c_void_p),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


def managed_tensor(capsule) -> DLManagedTensorVersioned:
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return DLManagedTensorVersioned.from_address(get(capsule, b"dltensor_versioned"))


def test_capsule_refused_by_validation_still_releases_when_dropped():
    x = dlarray.asarray([1.0, 2.0, 3.0])
    before = refs(x)
    capsule = x.__dlpack__(max_version=VERSIONED)
    managed_tensor(capsule).dl_tensor.ndim = -1
    with pytest.raises(BufferError, match="ndim"):
        _core.consume(capsule)
    assert refs(x) == before + 1  # the capsule still owns the export
    del capsule
    assert refs(x) == before


def test_capsule_of_another_major_version_is_released_on_import():
    x = dlarray.asarray([1.0, 2.0, 3.0])
    before = refs(x)
    capsule = x.__dlpack__(max_version=VERSIONED)
    managed_tensor(capsule).major = 2
    with pytest.raises(BufferError, match=r"DLPack 2\.3"):
        _core.consume(capsule)
    assert refs(x) == before  # the deleter ran once, on import
    del capsule  # renamed "used_...": no second release
    assert refs(x) == before


class LegacyProducer:
    """A producer from before DLPack 1.0: ``__dlpack__`` takes no keywords."""

    def __init__(self, a: np.ndarray) -> None:
        self.a = a

    def __dlpack__(self):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_import_from_legacy_producer_holds_numpy_array_until_the_dlarray_dies():
    a = np.arange(6.0)
    before = refs(a)
    x = dlarray.from_dlpack(LegacyProducer(a))  # max_version is refused, then retried
    assert not x._owner.versioned
    assert x._data + x._byte_offset == a.ctypes.data
    assert refs(a) == before + 1
    del x
    assert refs(a) == before


def test_extended_dtype_import_holds_numpy_array_until_the_view_dies():
    a = np.arange(4).astype(ml_dtypes.bfloat16)
    before = refs(a)
    x = numpy_engine.from_numpy(a)
    b = numpy_engine.to_numpy(x)
    assert b.ctypes.data == a.ctypes.data
    del x, b
    assert refs(a) == before


# ---- long loops: flat memory ----

N_ROUND_TRIPS = 100_000
WARM_UP = 2_000
MAX_RSS_GROWTH = 1 << 20  # bytes: the page-granular, noisy measure
MAX_TRACED_GROWTH_PER_STEP = 10  # bytes: 1 MB over 100 000 steps

_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


def dlarray_numpy_dlarray() -> None:
    x = dlarray.empty(16, dtype=dlarray.float32)
    b = np.from_dlpack(x)
    y = dlarray.from_dlpack(b)
    assert y._data == x._data


def numpy_dlarray_numpy() -> None:
    a = np.empty(16, dtype=np.float32)
    x = dlarray.from_dlpack(a)
    b = np.from_dlpack(x[::-1])
    assert b.base is not None


def unconsumed_capsules() -> None:
    x = dlarray.empty((2, 3), dtype=dlarray.int8)
    x.__dlpack__(max_version=VERSIONED)
    x.T.__dlpack__()


def copying_exports() -> None:
    a = np.empty(16, dtype=np.float64)
    x = dlarray.from_dlpack(a, copy=True)
    np.from_dlpack(x, copy=True)


def ml_dtypes_bridge() -> None:
    a = np.empty(16, dtype=ml_dtypes.float4_e2m1fn)
    x = numpy_engine.from_numpy(a)
    numpy_engine.from_numpy(numpy_engine.to_numpy(x))


def legacy_producer() -> None:
    a = np.empty(16, dtype=np.float32)
    dlarray.from_dlpack(LegacyProducer(a))


def run(step, n: int) -> None:
    for _ in range(n):
        step()


@pytest.mark.skipif(
    os.environ.get("DLARRAY_SANITIZED") == "1",
    reason="RSS means nothing under AddressSanitizer: its quarantine keeps freed memory mapped "
    "(nox -s sanitize sets DLARRAY_SANITIZED)",
)
@pytest.mark.parametrize(
    ("step", "n"),
    [
        (dlarray_numpy_dlarray, N_ROUND_TRIPS),
        (numpy_dlarray_numpy, N_ROUND_TRIPS),
        (unconsumed_capsules, N_ROUND_TRIPS // 10),
        (copying_exports, N_ROUND_TRIPS // 10),
        (ml_dtypes_bridge, N_ROUND_TRIPS // 10),
        (legacy_producer, N_ROUND_TRIPS // 10),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_round_trip_loop_keeps_memory_flat(step, n):
    gc.collect()
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        run(step, WARM_UP)
        gc.collect()
        traced_before, _ = tracemalloc.get_traced_memory()
        rss_before = rss_bytes()
        run(step, n)
        gc.collect()
        traced_after, _ = tracemalloc.get_traced_memory()
        rss_after = rss_bytes()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    assert traced_after - traced_before < MAX_TRACED_GROWTH_PER_STEP * n, (
        f"Python heap grew by {traced_after - traced_before} bytes over {n} round trips"
    )
    assert rss_after - rss_before < MAX_RSS_GROWTH, (
        f"RSS grew by {rss_after - rss_before} bytes over {n} round trips"
    )


@pytest.mark.parametrize("direction", ["numpy_first", "dlarray_first"])
def test_reused_source_refcount_unchanged_after_many_round_trips(direction):
    if direction == "numpy_first":
        source = np.arange(16.0)

        def step():
            np.from_dlpack(dlarray.from_dlpack(source))
    else:
        source = dlarray.asarray(list(range(16)), dtype=dlarray.float64)

        def step():
            dlarray.from_dlpack(np.from_dlpack(source))

    before = refs(source)
    run(step, N_ROUND_TRIPS)
    gc.collect()
    assert refs(source) == before
