"""dlarray's DLPack C exchange API (DLPack 1.3), called through ctypes.

* dlarray's table (``DLArray.__dlpack_c_exchange_api__``), every function
  called as a foreign consumer would, through ``PYFUNCTYPE`` (GIL held);
* ``dlarray.from_dlpack`` as a consumer of other types' tables, with fake
  producers whose tables are Python callbacks (tests/exchange_tables.py);
* the peers that have tables (PyTorch) or use them (tvm-ffi);
* dlarray's C API for extensions (``dlarray._core._C_API``).

Where a table function fails, :func:`exchange_tables.call_reporting_status`
gives both its return value and the exception it set (a plain
``PYFUNCTYPE`` call raises the exception and loses the return value).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib.util
import itertools
import sys
import threading
import types
import weakref

import abi
import exchange_tables as et
import numpy as np
import pytest

import dlarray
from dlarray._cuda import runtime as cuda_runtime
from dlarray._cuda import streams
from dlarray._storage.memory import MEMORY

FROM_PY = "managed_tensor_from_py_object_no_sync"
TO_PY = "managed_tensor_to_py_object_no_sync"
DLTENSOR = "dltensor_from_py_object_no_sync"
STREAM = "current_work_stream"
ALLOCATOR = "managed_tensor_allocator"

kDLCUDAHost = 3
kDLVulkan = 7
kDLCUDAManaged = 13
kDLOneAPI = 14

NO_GPU = pytest.mark.skipif(
    cuda_runtime.available(), reason="a CUDA runtime works here: the no-GPU path is not taken"
)
NO_DPCTL = pytest.mark.skipif(
    importlib.util.find_spec("dpctl") is not None, reason="dpctl is importable here"
)
NO_CUPY = pytest.mark.skipif("cupy" in sys.modules, reason="CuPy is imported")


@pytest.fixture(autouse=True)
def _callbacks_ran_cleanly():
    """Every callback of the fake tables and tensors made by a test ran
    without an error (an error inside a ctypes callback is only printed)."""
    start = len(et._KEEPALIVE)
    yield
    gc.collect()
    assert et.callback_errors_since(start) == []


@pytest.fixture(scope="module")
def api() -> et.ExchangeAPI:
    return et.dlarray_api()


@contextlib.contextmanager
def class_attribute(cls, name, value):
    """Set ``cls.name`` for the duration, then restore exactly what was in
    the class's own dict (deleting it when it was inherited)."""
    had = name in cls.__dict__
    old = cls.__dict__.get(name)
    setattr(cls, name, value)
    try:
        yield
    finally:
        if had:
            setattr(cls, name, old)
        else:
            delattr(cls, name)


def first_element(x) -> int:
    return x._data + x._byte_offset


def grid():
    return dlarray.reshape(dlarray.arange(24, dtype=dlarray.float64), (4, 6))


def readonly_array():
    a = np.arange(6.0)
    a.flags.writeable = False
    return dlarray.from_dlpack(a)


def padded_fp4():
    return dlarray.subbyte.from_codes([1, 2, 3], dlarray.float4_e2m1fn, padded=True)


def packed_fp4():
    return dlarray.subbyte.from_codes([1, 2, 3], dlarray.float4_e2m1fn)


VIEWS = {
    "plain": grid,
    "sliced": lambda: grid()[1:, ::2],
    "transposed": lambda: grid().T,
    "negative-strides": lambda: grid()[::-1, ::-2],
    "0-d": lambda: grid()[1, 2],
    "zero-size": lambda: grid()[2:2],
    "int8": lambda: dlarray.asarray([1, 2, 3], dtype=dlarray.int8),
    "packed-fp4": packed_fp4,
}

# The fields a table's tensor and __dlpack__'s versioned capsule share.
CAPSULE_FIELDS = ("data", "byte_offset", "device", "ndim", "dtype", "shape", "strides")


def capsule_fields(x) -> dict:
    info = abi.read_capsule(x.__dlpack__(max_version=(1, 3)))
    info["data"] = info["data"] or 0  # NULL, as tensor_fields writes it
    return {key: info[key] for key in (*CAPSULE_FIELDS, "version", "flags")}


def out_pointer():
    """A ``DLManagedTensorVersioned **`` out argument, its target NULL."""
    return ctypes.pointer(et.ManagedPtr())


# ====================================================================
# 1. dlarray's table, as a producer
# ====================================================================


def test_capsule_holds_a_version_1_3_table_with_every_function(api):
    capsule = dlarray.DLArray.__dlpack_c_exchange_api__
    assert abi.capsule_name(capsule) == et.EXCHANGE_API_NAME
    assert api.version == (1, 3)
    assert api.prev_api == 0
    assert all(api.pointer(name) for name in et.FUNCTION_NAMES)


def test_the_1_2_int_attribute_is_the_same_table(api):
    address = dlarray.DLArray.__c_dlpack_exchange_api__
    assert type(address) is int
    assert address == api.address


def test_the_table_is_one_type_attribute_for_every_array(api):
    # On the C base type (inherited), not per instance.
    assert "__dlpack_c_exchange_api__" in dlarray._core.ArrayBase.__dict__
    arrays = [grid(), grid().T, readonly_array(), padded_fp4(), dlarray.asarray(1)]
    addresses = {et.capsule_address(x.__dlpack_c_exchange_api__) for x in arrays}
    assert addresses == {api.address}
    assert {x.__c_dlpack_exchange_api__ for x in arrays} == {api.address}


# ---- managed_tensor_from_py_object_no_sync ----


@pytest.mark.parametrize("make", VIEWS.values(), ids=VIEWS.keys())
def test_managed_from_py_matches_dunder_dlpack(api, make):
    x = make()
    m = api.from_py(x)
    fields = et.managed_fields(m)
    try:
        assert {key: fields[key] for key in (*CAPSULE_FIELDS, "version", "flags")} == (
            capsule_fields(x)
        )
        assert fields["version"] == (1, 3)
        assert fields["byte_offset"] == 0  # the offset is folded into data on the CPU
        if x.size:
            assert fields["data"] == first_element(x)
        assert fields["shape"] == list(x.shape)
        assert fields["strides"] == list(x._strides)
    finally:
        et.call_deleter(m)


@pytest.mark.parametrize(
    ("make", "flags"),
    [
        (grid, 0),
        (readonly_array, abi.FLAG_READ_ONLY),
        (lambda: dlarray.asarray(b"abcd"), abi.FLAG_READ_ONLY),
        (padded_fp4, abi.FLAG_IS_SUBBYTE_TYPE_PADDED),
        (
            lambda: dlarray.empty((5,), dtype=dlarray.float4_e2m1fn, padded=True),
            abi.FLAG_IS_SUBBYTE_TYPE_PADDED,
        ),
        (packed_fp4, 0),
    ],
    ids=["plain", "read-only-numpy", "read-only-bytes", "padded-fp4", "empty-padded", "packed"],
)
def test_managed_from_py_flags(api, make, flags):
    x = make()
    m = api.from_py(x)
    assert m.contents.flags == flags
    assert m.contents.flags == capsule_fields(x)["flags"]
    et.call_deleter(m)


def test_managed_from_py_holds_one_reference_until_the_deleter(api):
    x = grid()
    before = sys.getrefcount(x)
    m = api.from_py(x)
    assert sys.getrefcount(x) == before + 1
    m2 = api.from_py(x)
    assert sys.getrefcount(x) == before + 2
    et.call_deleter(m)
    et.call_deleter(m2)
    assert sys.getrefcount(x) == before


def test_managed_from_py_keeps_the_memory_after_the_array_is_dropped(api):
    x = grid()
    expected = np.from_dlpack(x).copy()
    ref = weakref.ref(x)
    m = api.from_py(x)
    del x
    gc.collect()
    assert ref() is not None  # the tensor keeps the array
    data = (ctypes.c_double * 24).from_address(m.contents.dl_tensor.data)
    np.testing.assert_array_equal(np.frombuffer(data, dtype=np.float64), expected.ravel())
    et.call_deleter(m)
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize(
    "obj",
    [np.arange(3.0), [1.0, 2.0], 1.5, et.FakeProducer(np.arange(2.0))],
    ids=["numpy", "list", "float", "fake-producer"],
)
def test_managed_from_py_refuses_other_types_with_type_error(api, obj):
    out = out_pointer()
    rc, exc = api.status(FROM_PY, ctypes.py_object(obj), out)
    assert rc == -1
    assert isinstance(exc, TypeError)
    assert type(obj).__name__ in str(exc)
    assert not out.contents  # *out untouched


def test_managed_from_py_refuses_null_with_type_error(api):
    rc, exc = api.status(FROM_PY, ctypes.c_void_p(None), out_pointer())
    assert rc == -1
    assert isinstance(exc, TypeError)


# ---- dltensor_from_py_object_no_sync ----


@pytest.mark.parametrize("make", VIEWS.values(), ids=VIEWS.keys())
def test_dltensor_from_py_matches_dunder_dlpack(api, make):
    x = make()
    fields = et.tensor_fields(api.dltensor_from_py(x))
    expected = capsule_fields(x)
    assert {key: fields[key] for key in CAPSULE_FIELDS} == {
        key: expected[key] for key in CAPSULE_FIELDS
    }


def test_dltensor_from_py_points_into_the_array_without_a_reference(api):
    x = grid()[1:, ::2]
    before = sys.getrefcount(x)
    first = et.tensor_fields(api.dltensor_from_py(x))
    second = et.tensor_fields(api.dltensor_from_py(x))
    assert sys.getrefcount(x) == before
    # The same shape and strides storage each time: the array's own.
    assert first["shape_address"] == second["shape_address"] != 0
    assert first["strides_address"] == second["strides_address"] != 0
    # ...and not storage of the call: another array's differ.
    other = et.tensor_fields(api.dltensor_from_py(grid()))
    assert other["shape_address"] != first["shape_address"]


@pytest.mark.parametrize("make", [readonly_array, padded_fp4], ids=["read-only", "padded-fp4"])
def test_dltensor_from_py_refuses_what_a_bare_dltensor_cannot_say(api, make):
    x = make()
    out = abi.DLTensor()
    out.data = 0x1234
    rc, exc = api.status(DLTENSOR, ctypes.py_object(x), ctypes.pointer(out))
    assert rc == -1
    assert isinstance(exc, BufferError)
    assert "managed_tensor_from_py_object_no_sync" in str(exc)  # says what to use


@pytest.mark.parametrize("obj", [np.arange(3.0), "text"], ids=["numpy", "str"])
def test_dltensor_from_py_refuses_other_types_with_type_error(api, obj):
    rc, exc = api.status(DLTENSOR, ctypes.py_object(obj), ctypes.pointer(abi.DLTensor()))
    assert rc == -1
    assert isinstance(exc, TypeError)


# ---- managed_tensor_to_py_object_no_sync ----


def test_to_py_of_dlarrays_own_tensor_shares_the_memory(api):
    x = grid()[1:]
    before = sys.getrefcount(x)
    y = api.to_py(api.from_py(x))
    assert type(y) is dlarray.DLArray
    assert first_element(y) == first_element(x)
    assert (y.shape, y.dtype, y._strides) == (x.shape, x.dtype, x._strides)
    assert sys.getrefcount(x) == before + 1  # through the tensor y owns
    del y
    gc.collect()
    assert sys.getrefcount(x) == before


def test_to_py_of_a_ctypes_tensor_calls_its_deleter_once_after_all_views(api):
    exporter = et.Exporter()
    a = np.arange(12.0).reshape(3, 4)
    m = exporter.export(a)
    y = api.to_py(m)
    assert first_element(y) == a.ctypes.data
    np.testing.assert_array_equal(np.from_dlpack(y), a)
    y[0, 0] = 42.0  # writable, and the same memory
    assert a[0, 0] == 42.0
    view = y.T[1:]
    del y
    gc.collect()
    assert exporter.deletes_of(m) == 0  # the view keeps it
    del view
    gc.collect()
    assert exporter.deletes_of(m) == 1


def test_to_py_keeps_the_read_only_flag(api):
    exporter = et.Exporter()
    a = np.arange(4.0)
    a.flags.writeable = False
    y = api.to_py(exporter.export(a))
    assert y.readonly
    with pytest.raises(ValueError, match="read-only"):
        y[0] = 1.0
    del y


@pytest.mark.parametrize(
    "kwargs",
    [{"version": (2, 0)}, {"version": (0, 9)}, {"lanes": 2}],
    ids=["major-2", "major-0", "lanes-2"],
)
def test_to_py_refuses_with_buffer_error_and_calls_the_deleter_once(api, kwargs):
    exporter = et.Exporter()
    m = exporter.export(np.arange(4.0), **kwargs)
    out = ctypes.c_void_p(None)
    rc, exc = api.status(TO_PY, m, ctypes.pointer(out))
    assert rc == -1
    assert isinstance(exc, BufferError)
    assert exporter.deletes_of(m) == 1  # stolen, on failure too
    assert out.value is None


def test_to_py_of_null_is_a_value_error(api):
    rc, exc = api.status(TO_PY, ctypes.c_void_p(None), ctypes.pointer(ctypes.c_void_p()))
    assert rc == -1
    assert isinstance(exc, ValueError)


# ---- managed_tensor_allocator ----

ALLOCATIONS = [
    # shape, DLPack dtype, bytes it needs
    ((3, 4), (2, 32, 1), 48),  # float32
    ((), (0, 8, 1), 1),  # int8, 0-d
    ((0, 5), (5, 128, 1), 0),  # complex128, zero-size
    ((2, 3, 4), (6, 8, 1), 24),  # bool
    ((7,), (4, 16, 1), 14),  # bfloat16
    ((5,), (17, 4, 1), 3),  # float4_e2m1fn, packed
    ((1, 1), (1, 64, 1), 8),  # uint64
]


def manager_array(m):
    """The DLArray a dlarray tensor's manager_ctx holds (white-box: dlarray's
    exports keep their array there; see export.c)."""
    return ctypes.cast(m.contents.manager_ctx, ctypes.py_object).value


@pytest.mark.parametrize(("shape", "dtype", "nbytes"), ALLOCATIONS, ids=str)
def test_allocator_gives_new_aligned_c_contiguous_host_memory(api, shape, dtype, nbytes):
    allocation = api.allocate(et.prototype_tensor(shape, dtype))
    assert (allocation.rc, allocation.errors, allocation.left_exception) == (0, [], None)
    fields = et.managed_fields(allocation.out)
    assert fields["version"] == (1, 3)
    assert fields["flags"] == 0  # writable, not a copy of anything
    assert fields["device"] == (et.kDLCPU, 0)
    assert fields["dtype"] == dtype
    assert fields["shape"] == list(shape)
    contiguous = [int(np.prod(shape[i + 1 :])) for i in range(len(shape))]
    assert fields["strides"] == contiguous
    assert fields["byte_offset"] == 0
    if nbytes:
        assert fields["data"] % 256 == 0
    else:
        assert fields["data"] == 0  # the spec: a zero-size tensor's data is NULL
    array = manager_array(allocation.out)
    assert array._owner.nbytes == nbytes
    ref = weakref.ref(array)
    del array
    et.call_deleter(allocation.out)
    gc.collect()
    assert ref() is None  # the deleter freed it


def test_allocated_memory_written_through_ctypes_reads_back_through_to_py(api):
    allocation = api.allocate(et.prototype_tensor((2, 3), (2, 64, 1)))
    assert allocation.rc == 0
    values = [1.5, -2.0, 3.25, 4.0, 0.5, 6.0]
    memory = (ctypes.c_double * 6).from_address(allocation.out.contents.dl_tensor.data)
    memory[:] = values
    y = api.to_py(allocation.out)
    assert not y.readonly
    np.testing.assert_array_equal(np.from_dlpack(y), np.reshape(values, (2, 3)))


ALLOCATOR_ERRORS = [
    # prototype arguments, the kind SetError is told
    (((3,), (2, 32, 2)), {}, "BufferError"),  # lanes=2
    (((3,), (2, 8, 1)), {}, "BufferError"),  # no 8-bit float
    (((3,), (3, 64, 1)), {}, "BufferError"),  # opaque handle
    (((3,), (2, 32, 1)), {"ndim": -1}, "ValueError"),
    (((3,), (2, 32, 1)), {"null_shape": True}, "ValueError"),
    # A negative extent takes the import's shape check (BufferError, the
    # word for a malformed tensor), not ValueError.
    (((-1,), (2, 32, 1)), {}, "BufferError"),
    (((3,), (2, 32, 1), (kDLVulkan, 0)), {}, "ValueError"),  # no memory there
    (((3,), (2, 32, 1), (99, 0)), {}, "BufferError"),  # not a device type
]


@pytest.mark.parametrize(
    ("args", "kwargs", "kind"),
    ALLOCATOR_ERRORS,
    ids=[
        "lanes-2",
        "float8-bits",
        "opaque",
        "ndim-negative",
        "null-shape",
        "negative-extent",
        "vulkan",
        "device-99",
    ],
)
def test_allocator_reports_through_set_error_once_and_clears(api, args, kwargs, kind):
    allocation = api.allocate(et.prototype_tensor(*args, **kwargs))
    assert allocation.rc == -1
    assert len(allocation.errors) == 1
    assert allocation.errors[0][0] == kind
    assert allocation.errors[0][1]  # a message
    assert not allocation.out
    assert allocation.left_exception is None  # no Python exception left set


@NO_GPU
@pytest.mark.parametrize("device_type", [et.kDLCUDA, kDLCUDAHost, kDLCUDAManaged])
def test_allocator_on_cuda_without_a_gpu_names_the_missing_runtime(api, device_type):
    allocation = api.allocate(et.prototype_tensor((4,), (2, 32, 1), (device_type, 0)))
    assert allocation.rc == -1
    assert [kind for kind, _ in allocation.errors] == [dlarray.CUDAUnavailableError.__name__]
    assert allocation.left_exception is None


@NO_DPCTL
def test_allocator_on_sycl_without_dpctl_names_the_missing_runtime(api):
    allocation = api.allocate(et.prototype_tensor((4,), (2, 32, 1), (kDLOneAPI, 0)))
    assert allocation.rc == -1
    assert [kind for kind, _ in allocation.errors] == [dlarray.SYCLUnavailableError.__name__]
    assert allocation.left_exception is None


@pytest.mark.parametrize(
    ("dtype", "rc", "errors"), [((2, 32, 1), 0, 0), ((2, 32, 2), -1, 1)], ids=["ok", "error"]
)
def test_allocator_takes_the_gil_itself(api, dtype, rc, errors):
    # CFUNCTYPE releases the GIL around the call; the allocator must take it.
    # (A thread Python has never seen is not reachable with ctypes here.)
    results = []
    thread = threading.Thread(
        target=lambda: results.append(api.allocate(et.prototype_tensor((4,), dtype), gil=False))
    )
    thread.start()
    thread.join()
    (allocation,) = results
    assert allocation.rc == rc
    assert len(allocation.errors) == errors
    assert allocation.left_exception is None
    if rc == 0:
        et.call_deleter(allocation.out)


def test_allocator_without_set_error_reports_by_its_return_code_alone(api):
    # With the GIL held: the exception used to stay set (a PYFUNCTYPE call
    # raised it; a C caller got -1 *and* a pending exception).
    prototype = et.prototype_tensor((3,), (2, 32, 2))
    out = et.ManagedPtr()
    rc, left = api.status(
        ALLOCATOR, ctypes.pointer(prototype), ctypes.pointer(out), ctypes.c_void_p(None),
        et.SetErrorFn(),
    )  # fmt: skip
    assert (rc, left) == (-1, None)
    assert not out


def test_allocator_without_set_error_and_without_the_gil_leaves_no_exception(api):
    # Issue 28: called through CFUNCTYPE (the GIL released) with SetError
    # NULL, the allocator left its BufferError set on this thread's state,
    # where it surfaced at the next Python C call (PyErr_Occurred here).
    function = et.ALLOCATOR_NOGIL(api.pointer(ALLOCATOR))
    prototype = et.prototype_tensor((3,), (2, 32, 2))
    out = et.ManagedPtr()
    assert function(ctypes.byref(prototype), ctypes.byref(out), None, et.SetErrorFn()) == -1
    assert not out
    assert et.PyErr_Occurred() is None  # raises the exception if one is set


# ---- current_work_stream ----


def test_work_stream_of_the_cpu_is_null(api):
    assert api.work_stream(et.kDLCPU, 0) is None


@pytest.mark.parametrize("device_type", [kDLVulkan, 4, 10, 99, 0])
def test_work_stream_of_an_unknown_device_is_a_value_error(api, device_type):
    out = ctypes.c_void_p(0xDEAD)
    rc, exc = api.status(
        STREAM, ctypes.c_int32(device_type), ctypes.c_int32(0), ctypes.pointer(out)
    )
    assert rc == -1
    assert isinstance(exc, ValueError)
    assert out.value is None


@NO_CUPY
@pytest.mark.parametrize("device_type", [et.kDLCUDA, kDLCUDAHost, kDLCUDAManaged])
def test_work_stream_of_cuda_is_the_legacy_default_stream_without_cupy(api, device_type):
    # The memory families' work_stream answers without a GPU: dlarray's work
    # stream is cudaStreamLegacy (1) until CuPy is imported.
    stream = api.work_stream(device_type, 0)
    assert stream == streams.LEGACY_DEFAULT == 1
    assert stream == MEMORY.work_stream(device_type, 0)


def test_work_stream_of_cuda_is_the_legacy_default_stream_with_a_driverless_cupy(monkeypatch):
    # CuPy imports on a machine without an NVIDIA driver, and then every
    # stream query raises: dlarray orders by the legacy default stream, as
    # without CuPy, instead of failing the import of a CUDA tensor.
    def no_driver(*args):
        raise RuntimeError("cudaErrorInsufficientDriver")

    driverless = types.ModuleType("cupy")
    driverless.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
        is_available=lambda: False, get_current_stream=no_driver, Device=no_driver
    )
    monkeypatch.setitem(sys.modules, "cupy", driverless)
    assert streams.work_stream() == streams.work_stream(0) == streams.LEGACY_DEFAULT


@NO_DPCTL
def test_work_stream_of_sycl_without_dpctl_is_the_runtimes_error(api):
    rc, exc = api.status(
        STREAM, ctypes.c_int32(kDLOneAPI), ctypes.c_int32(0), ctypes.pointer(ctypes.c_void_p())
    )
    assert rc == -1
    assert isinstance(exc, dlarray.SYCLUnavailableError)


# ====================================================================
# 2. dlarray.from_dlpack as a consumer of other tables
# ====================================================================


def fake(table=None, *, attribute="capsule", array=None, **kwargs):
    """A FakeProducer instance of a fresh class carrying ``table``."""
    cls = et.producer_class(table, attribute=attribute)
    return cls(np.arange(6.0).reshape(2, 3) if array is None else array, **kwargs)


def assert_took_the_table(x, producer, table):
    assert producer.dlpack_calls == []
    assert table.count(FROM_PY) == 1
    assert first_element(x) == producer.array.ctypes.data
    np.testing.assert_array_equal(np.from_dlpack(x), producer.array)


def assert_took_dunder(x, producer, *tables):
    assert len(producer.dlpack_calls) == 1
    assert all(table.count(FROM_PY) == 0 for table in tables)
    np.testing.assert_array_equal(np.from_dlpack(x), producer.array)


def test_from_dlpack_uses_the_table_and_never_dunder():
    table = et.FakeTable()
    producer = fake(table)
    x = dlarray.from_dlpack(producer)
    assert_took_the_table(x, producer, table)
    assert table.count(STREAM) == 0  # CPU memory: no stream to ask for
    assert table.calls[FROM_PY] == [producer]
    (made,) = table.exporter.made
    del x
    gc.collect()
    assert table.exporter.deletes_of(made) == 1


def test_the_tables_tensor_lives_until_the_array_and_its_views_die():
    table = et.FakeTable()
    x = dlarray.from_dlpack(fake(table))
    view = x.T[::-1]
    (made,) = table.exporter.made
    del x
    gc.collect()
    assert table.exporter.deletes_of(made) == 0
    del view
    gc.collect()
    assert table.exporter.deletes_of(made) == 1


def test_a_read_only_tensor_from_the_table_stays_read_only():
    table = et.FakeTable()
    a = np.arange(3.0)
    a.flags.writeable = False
    x = dlarray.from_dlpack(fake(table, array=a))
    assert x.readonly


def test_the_1_2_int_attribute_is_used():
    table = et.FakeTable()
    producer = fake(table, attribute="int")
    assert_took_the_table(dlarray.from_dlpack(producer), producer, table)


def test_the_capsule_wins_over_the_int_attribute():
    capsule_table, int_table = et.FakeTable(), et.FakeTable()
    cls = et.producer_class(capsule_table)
    cls.__c_dlpack_exchange_api__ = int_table.address
    producer = cls(np.arange(3.0))
    assert_took_the_table(dlarray.from_dlpack(producer), producer, capsule_table)
    assert int_table.count(FROM_PY) == 0


def chain(*versions):
    """Tables of ``versions``, each pointing to the next as prev_api."""
    tables = [et.FakeTable(version=v) for v in versions]
    for newer, older in itertools.pairwise(tables):
        newer.link(older)
    return tables


@pytest.mark.parametrize(
    ("versions", "used"),
    [
        ([(1, 3)], 0),
        ([(1, 0)], 0),  # any minor version of major 1
        ([(1, 9)], 0),
        ([(2, 0)], None),  # no table dlarray reads: __dlpack__
        ([(0, 9)], None),
        ([(2, 0), (1, 3)], 1),
        ([(3, 0), (2, 1), (1, 2)], 2),
        ([(2, 0), (0, 5)], None),
    ],
    ids=["1.3", "1.0", "1.9", "2.0", "0.9", "2.0>1.3", "3.0>2.1>1.2", "2.0>0.5"],
)
def test_the_first_major_1_table_along_prev_api_is_used(versions, used):
    tables = chain(*versions)
    producer = fake(tables[0])
    x = dlarray.from_dlpack(producer)
    if used is None:
        assert_took_dunder(x, producer, *tables)
    else:
        assert_took_the_table(x, producer, tables[used])
        assert sum(t.count(FROM_PY) for t in tables) == 1


@pytest.mark.parametrize("cycle", ["self", "two"])
def test_a_prev_api_cycle_ends_in_dunder(cycle):
    tables = [et.FakeTable(version=(2, 0))] if cycle == "self" else chain((2, 0), (3, 0))
    tables[-1].link(tables[0])
    producer = fake(tables[0])
    assert_took_dunder(dlarray.from_dlpack(producer), producer, *tables)


@pytest.mark.parametrize(
    ("missing", "uses_table"),
    [(FROM_PY, False), (STREAM, False), (DLTENSOR, True), (ALLOCATOR, True), (TO_PY, True)],
)
def test_a_table_without_a_required_function_is_ignored(missing, uses_table):
    table = et.FakeTable(functions={missing: None})
    producer = fake(table)
    x = dlarray.from_dlpack(producer)
    if uses_table:
        assert_took_the_table(x, producer, table)
    else:
        assert_took_dunder(x, producer, table)


def test_an_exception_from_the_table_hands_over_to_dunder():
    # The protocol is the authority: a table that refuses (-1 with an
    # exception) is not the last word; __dlpack__ is asked.
    table = et.FakeTable(from_py="raise")
    producer = fake(table, error=BufferError("the table refuses"))
    x = dlarray.from_dlpack(producer)
    assert producer.bool_calls == 1  # the table was called (PyObject_IsTrue)
    assert len(producer.dlpack_calls) == 1
    np.testing.assert_array_equal(np.from_dlpack(x), producer.array)


def test_when_both_refuse_dunders_exception_propagates_unchanged():
    table = et.FakeTable(from_py="raise")
    error = BufferError("__dlpack__ refuses, in the producer's own words")
    producer = fake(table, error=RuntimeError("the table's C++ backtrace"), dlpack_error=error)
    with pytest.raises(BufferError) as info:
        dlarray.from_dlpack(producer)
    assert info.value is error
    assert producer.bool_calls == 1
    assert len(producer.dlpack_calls) == 1


@pytest.mark.parametrize("mode", ["silent", "null"], ids=["-1-no-exception", "0-null"])
def test_a_table_failing_without_an_exception_is_a_system_error(mode):
    table = et.FakeTable(from_py=mode)
    producer = fake(table)
    with pytest.raises(SystemError, match=FROM_PY):
        dlarray.from_dlpack(producer)
    assert table.count(FROM_PY) == 1
    assert producer.dlpack_calls == []  # a broken table: no fallback


def test_a_major_2_tensor_from_the_table_is_released_with_buffer_error():
    table = et.FakeTable(tensor_version=(2, 0))
    producer = fake(table)
    with pytest.raises(BufferError, match=r"DLPack 2\.0"):
        dlarray.from_dlpack(producer)
    (made,) = table.exporter.made
    assert table.exporter.deletes_of(made) == 1
    assert producer.dlpack_calls == []


def test_a_complex_tensor_from_the_table_is_released_for_dunder():
    # DLPack cannot say a complex tensor is lazily conjugated (PyTorch's
    # table exports such tensors as they are): complex data takes __dlpack__.
    table = et.FakeTable()
    producer = fake(table, array=np.array([1 + 2j, 3 - 4j]))
    x = dlarray.from_dlpack(producer)
    (made,) = table.exporter.made
    assert table.exporter.deletes_of(made) == 1
    assert len(producer.dlpack_calls) == 1
    np.testing.assert_array_equal(np.from_dlpack(x), producer.array)


def test_the_cache_notices_a_table_added_to_the_class():
    table = et.FakeTable()
    cls = et.producer_class(None, attribute="none")
    producer = cls(np.arange(3.0))
    dlarray.from_dlpack(producer)
    assert len(producer.dlpack_calls) == 1
    cls.__dlpack_c_exchange_api__ = table.capsule()
    dlarray.from_dlpack(producer)
    assert len(producer.dlpack_calls) == 1
    assert table.count(FROM_PY) == 1


def test_the_cache_notices_a_table_removed_from_the_class():
    table = et.FakeTable()
    cls = et.producer_class(table)
    producer = cls(np.arange(3.0))
    dlarray.from_dlpack(producer)
    del cls.__dlpack_c_exchange_api__
    dlarray.from_dlpack(producer)
    assert table.count(FROM_PY) == 1
    assert len(producer.dlpack_calls) == 1


def test_the_cache_notices_a_table_replaced_on_a_base_class():
    old, new = et.FakeTable(), et.FakeTable()
    base = et.producer_class(old)
    sub = type("SubProducer", (base,), {})
    producer = sub(np.arange(3.0))
    dlarray.from_dlpack(producer)
    base.__dlpack_c_exchange_api__ = new.capsule()
    dlarray.from_dlpack(producer)
    assert (old.count(FROM_PY), new.count(FROM_PY)) == (1, 1)
    assert producer.dlpack_calls == []


@pytest.mark.parametrize(
    ("kwargs", "uses_table"),
    [
        ({"copy": True}, False),
        ({"device": "cpu"}, False),
        ({"device": None}, True),
        ({"copy": None}, True),
        ({"copy": False}, True),
    ],
    ids=["copy-True", "device-cpu", "device-None", "copy-None", "copy-False"],
)
def test_keywords_choose_between_the_table_and_dunder(kwargs, uses_table):
    # The table gives exactly the zero-copy import: copy=None/False and
    # device=None still take it; a copy or a device takes __dlpack__.
    table = et.FakeTable()
    producer = fake(table)
    x = dlarray.from_dlpack(producer, **kwargs)
    if uses_table:
        assert_took_the_table(x, producer, table)
    else:
        assert_took_dunder(x, producer, table)
        if "copy" in kwargs:
            assert producer.dlpack_calls[0]["copy"] is kwargs["copy"]
        if kwargs.get("copy"):
            assert first_element(x) != producer.array.ctypes.data


@pytest.mark.parametrize(
    "value",
    [
        lambda table: table.capsule(b"not_dlpack_exchange_api"),
        lambda table: table.capsule(b"dltensor"),
        lambda table: "dlpack_exchange_api",
        lambda table: float(table.address),
        lambda table: None,
    ],
    ids=["capsule-other-name", "capsule-dltensor", "str", "float", "None"],
)
def test_a_malformed_attribute_means_no_table(value):
    table = et.FakeTable()
    cls = et.producer_class(None, attribute="none")
    cls.__dlpack_c_exchange_api__ = value(table)
    producer = cls(np.arange(3.0))
    assert_took_dunder(dlarray.from_dlpack(producer), producer, table)


def test_a_malformed_int_attribute_means_no_table():
    table = et.FakeTable()
    cls = et.producer_class(None, attribute="none")
    cls.__c_dlpack_exchange_api__ = str(table.address)
    producer = cls(np.arange(3.0))
    assert_took_dunder(dlarray.from_dlpack(producer), producer, table)


@NO_GPU
def test_a_cuda_tensor_dlarray_cannot_order_goes_back_for_dunder():
    # Without a CUDA runtime dlarray cannot make its work wait for the
    # producer's stream: the tensor is released and __dlpack__(stream=...)
    # makes the producer order it.
    table = et.FakeTable(device=(et.kDLCUDA, 0), stream=0x1234)
    producer = fake(table, device=(et.kDLCUDA, 0))
    dlarray.from_dlpack(producer)
    assert table.calls[STREAM] == [(et.kDLCUDA, 0)]
    (made,) = table.exporter.made
    assert table.exporter.deletes_of(made) == 1
    assert [call["stream"] for call in producer.dlpack_calls] == [streams.LEGACY_DEFAULT]


def test_a_failing_current_work_stream_propagates_and_releases_the_tensor_once(api):
    # The producer's current_work_stream is dlarray's own, which refuses
    # a Vulkan device with ValueError; the tensor (whose deleter is Python
    # code here) must be released once and the ValueError must survive.
    table = et.FakeTable(device=(kDLVulkan, 0), functions={STREAM: api.pointer(STREAM)})
    producer = fake(table, device=(kDLVulkan, 0))
    with pytest.raises(ValueError, match="current_work_stream"):
        dlarray.from_dlpack(producer)
    (made,) = table.exporter.made
    assert table.exporter.deletes_of(made) == 1


# ====================================================================
# 3. Peers
# ====================================================================


def import_or_skip(name):
    return pytest.importorskip(name, reason=f"{name} is not installed")


def test_from_dlpack_of_torch_goes_through_torchs_table():
    torch = import_or_skip("torch")
    t = torch.arange(6.0).reshape(2, 3)

    def refuse(self, *args, **kwargs):
        raise AssertionError("__dlpack__ must not be called: the table is there")

    with class_attribute(torch.Tensor, "__dlpack__", refuse):
        x = dlarray.from_dlpack(t)
    assert first_element(x) == t.data_ptr()
    t[0, 0] = 42.0
    assert np.from_dlpack(x)[0, 0] == 42.0
    assert "__dlpack__" in torch.Tensor.__dict__ and torch.Tensor.__dlpack__ is not refuse


def test_torchs_table_exports_requires_grad_tensors_that_dunder_refuses():
    # A deviation of PyTorch 2.13: __dlpack__ refuses a tensor that
    # requires grad (BufferError, "use tensor.detach()"), its table exports
    # it.  dlarray.from_dlpack does not take that way around the refusal:
    # the tensor takes the protocol and torch's BufferError arrives.
    torch = import_or_skip("torch")
    t = torch.ones(3, requires_grad=True)
    with pytest.raises(BufferError, match="gradient"):
        t.__dlpack__()
    table = et.ExchangeAPI.of_type(torch.Tensor)
    m = table.from_py(t)
    assert m.contents.dl_tensor.data == t.data_ptr()
    assert m.contents.flags == 0
    et.call_deleter(m)
    with pytest.raises(BufferError, match="gradient"):
        dlarray.from_dlpack(t)
    t.requires_grad_(False)  # the same tensor, now without autograd: the table
    x = dlarray.from_dlpack(t)
    assert first_element(x) == t.data_ptr()


class _GradientTracked:
    """A producer whose objects carry ``requires_grad`` and whose
    ``__dlpack__`` refuses them, as PyTorch's does."""

    requires_grad = False  # the type has the attribute, as torch.Tensor does

    def __init__(self, array, requires_grad):
        self.array = array
        self.requires_grad = requires_grad

    def __dlpack__(self, **kwargs):
        if self.requires_grad:
            raise BufferError("this producer refuses tensors that require grad")
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_any_producer_whose_objects_require_grad_answers_through_its_protocol():
    # A type with a table and a requires_grad attribute: an object that
    # requires grad never reaches the table (dlarray's own table is used
    # here, which would refuse a foreign object with TypeError).
    cls = type("Tracked", (_GradientTracked,), {})
    cls.__dlpack_c_exchange_api__ = dlarray.DLArray.__dlpack_c_exchange_api__
    source = dlarray.asarray([1.0, 2.0])
    for _ in range(3):  # the first call fills the table cache; later ones use it
        with pytest.raises(BufferError, match="refuses tensors that require grad"):
            dlarray.from_dlpack(cls(source, requires_grad=True))


class _Guarded(_GradientTracked):
    """A producer whose objects refuse every attribute read but the DLPack
    methods (PyTorch 2.15's ``ReadOnlyTensorWrapper`` raises RuntimeError)
    and whose ``__dlpack__`` exports read-only."""

    @property
    def requires_grad(self):
        raise RuntimeError("only supports DLPack export; '__get__' is not allowed")

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        capsule = self.array.__dlpack__(**kwargs)
        dlarray.abi.managed(capsule).flags |= dlarray.abi.READ_ONLY
        return capsule


def test_a_producer_that_will_not_say_whether_it_requires_grad_answers_through_its_protocol():
    # dlarray cannot tell whether the object tracks gradients, so the
    # table is not taken: the object's own __dlpack__ answers (read-only).
    cls = type("Guarded", (_Guarded,), {})
    cls.__dlpack_c_exchange_api__ = dlarray.DLArray.__dlpack_c_exchange_api__
    source = dlarray.asarray([1.0, 2.0])
    for _ in range(3):  # the first call fills the table cache; later ones use it
        x = dlarray.from_dlpack(cls(source))
        assert x.readonly and not dlarray.abi.owner(x).via_table
        assert dlarray.abi.data_pointer(x) == dlarray.abi.data_pointer(source)


def test_an_interrupt_while_asking_requires_grad_propagates():
    class Interrupting(_GradientTracked):
        @property
        def requires_grad(self):
            raise KeyboardInterrupt

        def __init__(self, array):
            self.array = array

    Interrupting.__dlpack_c_exchange_api__ = dlarray.DLArray.__dlpack_c_exchange_api__
    with pytest.raises(KeyboardInterrupt):
        dlarray.from_dlpack(Interrupting(dlarray.asarray([1.0])))


def test_torchs_table_exports_a_conjugated_tensors_memory_as_is():
    # A deviation of PyTorch 2.13: its table exports a tensor with the
    # conjugate bit set as the unconjugated memory, with no flag to say so
    # (__dlpack__ refuses it).  dlarray therefore sends complex data from a
    # table through __dlpack__, which raises torch's BufferError.
    torch = import_or_skip("torch")
    base = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex128)
    c = base.conj()
    assert c.is_conj()
    table = et.ExchangeAPI.of_type(torch.Tensor)
    m = table.from_py(c)
    fields = et.managed_fields(m)
    memory = (ctypes.c_double * 4).from_address(fields["data"])
    assert list(memory) == [1.0, 2.0, 3.0, -4.0]  # base's values, not c's
    assert fields["flags"] == 0
    et.call_deleter(m)
    with pytest.raises(BufferError, match="conjugate"):
        dlarray.from_dlpack(c)


def test_tvm_ffi_from_dlpack_goes_through_dlarrays_table():
    tvm_ffi = import_or_skip("tvm_ffi")
    x = grid()

    def refuse(self, *args, **kwargs):
        raise AssertionError("__dlpack__ must not be called: the table is there")

    with class_attribute(dlarray.DLArray, "__dlpack__", refuse):
        t = tvm_ffi.from_dlpack(x)
    assert "__dlpack__" not in dlarray.DLArray.__dict__
    assert t.data_ptr() == first_element(x)
    assert tuple(t.shape) == x.shape


@pytest.mark.parametrize("peer", ["torch", "numpy"])
def test_peers_without_a_consumer_table_still_use_dunder(peer):
    module = import_or_skip(peer)
    x = grid()
    calls = []
    dunder = dlarray._core.ArrayBase.__dlpack__

    def counting(self, *args, **kwargs):
        calls.append(kwargs)
        return dunder(self, *args, **kwargs)

    with class_attribute(dlarray.DLArray, "__dlpack__", counting):
        y = module.from_dlpack(x)
    assert len(calls) == 1
    address = y.data_ptr() if peer == "torch" else y.ctypes.data
    assert address == first_element(x)


# ====================================================================
# 4. dlarray's C API for extensions
# ====================================================================


@pytest.fixture(scope="module")
def capi() -> et.DLArrayCAPIFunctions:
    return et.dlarray_capi()


def test_capi_struct_header_and_table(capi, api):
    assert abi.capsule_name(dlarray._core._C_API) == et.CAPI_NAME
    assert capi.struct.version == 1
    assert capi.struct.size == ctypes.sizeof(et.DLArrayCAPI)
    assert capi.struct.exchange_api == api.address
    assert all(getattr(capi.struct, name) for name, _ in et.DLArrayCAPI._fields_[2:])


def test_capi_exchange_api_of(capi, api):
    assert capi.exchange_api_of(dlarray.DLArray) == api.address
    assert capi.exchange_api_of(np.ndarray) is None  # no table, no exception
    old, new = chain((2, 0), (1, 3))
    assert capi.exchange_api_of(et.producer_class(old)) == new.address
    assert capi.exchange_api_of(et.producer_class(None, attribute="none")) is None


def test_capi_exchange_api_of_torch(capi):
    torch = import_or_skip("torch")
    expected = et.capsule_address(torch.Tensor.__dlpack_c_exchange_api__)
    assert capi.exchange_api_of(torch.Tensor) == expected


@pytest.mark.parametrize(
    ("make", "flags"),
    [
        (grid, 0),
        (readonly_array, abi.FLAG_READ_ONLY),
        (padded_fp4, abi.FLAG_IS_SUBBYTE_TYPE_PADDED),
    ],
    ids=["plain", "read-only", "padded"],
)
def test_capi_borrow_of_a_dlarray_reads_its_fields(capi, make, flags):
    x = make()
    before = sys.getrefcount(x)
    view = capi.borrow(x)
    assert sys.getrefcount(x) == before
    fields = et.tensor_fields(view.tensor)
    expected = capsule_fields(x)
    assert {key: fields[key] for key in CAPSULE_FIELDS} == {
        key: expected[key] for key in CAPSULE_FIELDS
    }
    assert (view.flags, view.stream, view.owned_, view.owned_kind_) == (flags, None, None, 0)
    capi.release(view)


def test_capi_borrow_of_numpy_takes_a_capsule_and_release_gives_it_back(capi):
    a = np.arange(12.0).reshape(3, 4)[:, 1:]
    before = sys.getrefcount(a)
    view = capi.borrow(a)
    assert view.owned_ and view.owned_kind_ == 1  # a versioned tensor, owned
    assert sys.getrefcount(a) == before + 1  # NumPy's export holds the array
    fields = et.tensor_fields(view.tensor)
    assert fields["data"] + fields["byte_offset"] == a.ctypes.data
    assert fields["shape"] == [3, 3]
    assert fields["strides"] == [4, 1]
    capi.release(view)
    assert (view.owned_, view.owned_kind_) == (None, 0)
    assert sys.getrefcount(a) == before
    capi.release(view)  # harmless
    assert sys.getrefcount(a) == before


def test_capi_borrow_consumes_the_capsule_of_a_producer_without_a_table(capi):
    producer = fake(None, attribute="none")
    view = capi.borrow(producer)
    assert producer.dlpack_calls == [{"stream": None, "max_version": (1, 3)}]
    (capsule,) = producer.capsules
    assert abi.capsule_name(capsule) == abi.USED_VERSIONED_NAME
    capi.release(view)


def test_capi_borrow_of_torch_uses_its_dltensor_function(capi):
    torch = import_or_skip("torch")
    t = torch.arange(6.0).reshape(2, 3).T
    view = capi.borrow(t)
    fields = et.tensor_fields(view.tensor)
    assert fields["data"] + fields["byte_offset"] == t.data_ptr()
    assert (fields["shape"], fields["strides"]) == ([3, 2], [1, 3])
    assert (view.owned_, view.owned_kind_, view.flags) == (None, 0, 0)
    capi.release(view)


def test_capi_borrow_of_a_fake_producer_uses_dltensor_from_py(capi):
    table = et.FakeTable()
    producer = fake(table)
    view = capi.borrow(producer)
    assert (table.count(DLTENSOR), table.count(FROM_PY)) == (1, 0)
    assert view.owned_ is None
    assert et.tensor_fields(view.tensor)["data"] == producer.array.ctypes.data
    capi.release(view)
    assert producer.dlpack_calls == []


def test_capi_borrow_without_dltensor_from_py_owns_a_managed_tensor(capi):
    table = et.FakeTable(functions={DLTENSOR: None})
    producer = fake(table)
    view = capi.borrow(producer)
    (made,) = table.exporter.made
    assert view.owned_ == made and view.owned_kind_ == 1
    assert table.exporter.deletes_of(made) == 0
    capi.release(view)
    assert table.exporter.deletes_of(made) == 1
    capi.release(view)
    assert table.exporter.deletes_of(made) == 1


@pytest.mark.parametrize("dltensor", [True, False], ids=["dltensor", "managed"])
def test_capi_borrow_gives_the_producers_stream_off_the_cpu(capi, dltensor):
    functions = {} if dltensor else {DLTENSOR: None}
    table = et.FakeTable(device=(et.kDLCUDA, 0), stream=0x5000, functions=functions)
    view = capi.borrow(fake(table, device=(et.kDLCUDA, 0)))
    assert view.stream == 0x5000
    assert table.calls[STREAM] == [(et.kDLCUDA, 0)]
    capi.release(view)


def test_capi_borrow_releases_once_when_current_work_stream_fails(capi, api):
    # Table without dltensor_from_py: borrow owns a managed tensor when the
    # producer's current_work_stream (dlarray's own, refusing Vulkan) fails.
    table = et.FakeTable(
        device=(kDLVulkan, 0), functions={DLTENSOR: None, STREAM: api.pointer(STREAM)}
    )
    producer = fake(table, device=(kDLVulkan, 0))
    with pytest.raises(ValueError, match="current_work_stream"):
        capi.borrow(producer)
    (made,) = table.exporter.made
    assert table.exporter.deletes_of(made) == 1


def test_capi_borrow_of_a_legacy_producer_owns_a_legacy_tensor(capi):
    producer = abi.Producer(accepts_keywords=False)
    view = capi.borrow(producer)
    assert view.owned_kind_ == 2
    capi.release(view)
    capi.release(view)
    assert producer.deleter_calls == [producer.capsule_addresses[-1]]


def test_capi_release_of_a_zeroed_view_is_harmless(capi):
    view = et.DLArrayBorrowed()
    capi.release(view)
    capi.release(view)
    assert (view.owned_, view.owned_kind_) == (None, 0)


@pytest.mark.parametrize("obj", [42, object(), "text"], ids=["int", "object", "str"])
def test_capi_refuses_non_producers_with_type_error(capi, obj):
    view = et.DLArrayBorrowed()
    rc, exc = et.call_reporting_status(
        capi.struct.borrow, ctypes.py_object(obj), ctypes.pointer(view)
    )
    assert rc == -1
    assert isinstance(exc, TypeError)
    assert view.owned_ is None  # nothing to release
    out = out_pointer()
    rc, exc = et.call_reporting_status(capi.struct.to_managed, ctypes.py_object(obj), out)
    assert rc == -1
    assert isinstance(exc, TypeError)
    assert not out.contents


def to_managed_cases():
    """(producer maker, expected first-element address of its tensor)."""

    def dlarray_case():
        x = grid()[1:]
        return x, first_element(x)

    def numpy_case():
        a = np.arange(6.0)[2:]
        return a, a.ctypes.data

    def fake_case():
        producer = fake(et.FakeTable())
        return producer, producer.array.ctypes.data

    def torch_case():
        torch = import_or_skip("torch")
        t = torch.arange(6.0)[1:]
        return t, t.data_ptr()

    return {"dlarray": dlarray_case, "numpy": numpy_case, "fake": fake_case, "torch": torch_case}


@pytest.mark.parametrize("case", to_managed_cases().values(), ids=to_managed_cases().keys())
def test_capi_to_managed_gives_an_owning_versioned_tensor(capi, case):
    obj, address = case()
    m = capi.to_managed(obj)
    fields = et.managed_fields(m)
    assert fields["version"][0] == 1
    assert fields["data"] + fields["byte_offset"] == address
    assert fields["deleter"]
    et.call_deleter(m)


def test_capi_to_managed_of_a_dlarray_holds_a_reference(capi):
    x = grid()
    before = sys.getrefcount(x)
    m = capi.to_managed(x)
    assert sys.getrefcount(x) == before + 1
    assert m.contents.flags == 0
    et.call_deleter(m)
    assert sys.getrefcount(x) == before


def test_capi_to_managed_of_a_fake_producer_is_the_tables_tensor(capi):
    table = et.FakeTable()
    m = capi.to_managed(fake(table))
    (made,) = table.exporter.made
    assert ctypes.addressof(m.contents) == made
    et.call_deleter(m)
    assert table.exporter.deletes_of(made) == 1


def test_capi_to_managed_passes_on_the_tables_exception(capi):
    # Unlike from_dlpack, the C API has no __dlpack__ fallback for a table
    # that fails: the producer's exception reaches the extension.
    error = BufferError("the table refuses")
    producer = fake(et.FakeTable(from_py="raise"), error=error)
    out = out_pointer()
    rc, exc = et.call_reporting_status(capi.struct.to_managed, ctypes.py_object(producer), out)
    assert rc == -1
    assert exc is error
    assert producer.dlpack_calls == []


def test_capi_to_managed_refuses_a_major_2_tensor_and_releases_it(capi):
    table = et.FakeTable(tensor_version=(2, 0))
    out = out_pointer()
    rc, exc = et.call_reporting_status(capi.struct.to_managed, ctypes.py_object(fake(table)), out)
    assert rc == -1
    assert isinstance(exc, BufferError)
    (made,) = table.exporter.made
    assert table.exporter.deletes_of(made) == 1


def test_capi_to_managed_of_a_legacy_producer_is_a_buffer_error(capi):
    producer = abi.Producer(accepts_keywords=False)
    rc, exc = et.call_reporting_status(
        capi.struct.to_managed, ctypes.py_object(producer), out_pointer()
    )
    assert rc == -1
    assert isinstance(exc, BufferError)
    producer.drop_capsules()
    gc.collect()
    # The capsule it did not take released its tensor.
    assert producer.deleter_calls == producer.capsule_addresses
