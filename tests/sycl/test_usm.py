"""dlarray on a real SYCL device: USM memory, copies, kDLOneAPI exchange
with dpnp.tensor, and the namespace computing through dpnp.

Every test is marked ``sycl`` and skipped, with the reason, unless dpctl
imports and sees a device with USM.  In CI the ``sycl`` nox session gives
it one: Intel's OpenCL CPU runtime (``intel-opencl-rt``), an ordinary x86-64
CPU presented as a SYCL device (tests/conftest.py sets the ICD variable it
needs).  Exchange tests need dpnp too and skip without it.
"""

from __future__ import annotations

import gc

import abi
import numpy as np
import pytest

import dlarray
from dlarray import _core
from dlarray._sycl import runtime as sycl_runtime
from dlarray.storage import SyclDeviceStorage, SyclHostStorage, SyclSharedStorage


def _missing_sycl() -> str | None:
    try:
        device = sycl_runtime.root_device(0)
    except dlarray.SYCLUnavailableError as exc:
        return str(exc)
    if not device.has_aspect_usm_device_allocations:
        return f"{device.filter_string} has no USM device allocations"
    return None


_MISSING = _missing_sycl()
pytestmark = [
    pytest.mark.sycl,
    pytest.mark.skipif(_MISSING is not None, reason=f"no usable SYCL device: {_MISSING}"),
]

KINDS = ["sycl", "sycl_shared", "sycl_host"]
STORAGE = {
    "sycl": SyclDeviceStorage,
    "sycl_shared": SyclSharedStorage,
    "sycl_host": SyclHostStorage,
}
USM_TYPE = {"sycl": "device", "sycl_shared": "shared", "sycl_host": "host"}
DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: (
        a.T if isinstance(a, np.ndarray) else dlarray.permute_dims(a, (2, 1, 0))
    ),
    "sliced": lambda a: a[1:3, ::2, 1:],
    "negative": lambda a: a[::-1, :, ::-2],
    "zero-d": lambda a: a[1, 2, 3],
    "empty": lambda a: a[:, 2:2],
}


@pytest.fixture
def dpnp():
    return pytest.importorskip("dpnp", reason="dpnp is not installed (pip install dpnp)")


@pytest.fixture
def dpt(dpnp):
    import dpnp.tensor as tensor

    return tensor


def usm_address(a) -> int:
    """Address of a dpnp array's first element."""
    interface = a.__sycl_usm_array_interface__
    return interface["data"][0] + interface.get("offset", 0) * a.itemsize


def address(x: dlarray.DLArray) -> int:
    return x._data + x._byte_offset


def host(x: dlarray.DLArray) -> np.ndarray:
    return np.from_dlpack(x.to_device("cpu"))


def sample(dtype: str, shape=(4, 5, 6)) -> np.ndarray:
    values = np.arange(np.prod(shape)).reshape(shape)
    if dtype == "bool":
        return values % 3 == 0
    if dtype.startswith("complex"):
        return (values + 1j * values[::-1]).astype(dtype)
    return (values % 100).astype(dtype)


# ---- storage ----


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_allocated_written_and_read_back(kind):
    x = dlarray.asarray(np.arange(12, dtype=np.int32), device=kind)
    assert x.device == dlarray.Device(kind, 0)
    assert isinstance(x._owner, STORAGE[kind])
    assert x._owner.owner.get_usm_type() == USM_TYPE[kind]
    assert sycl_runtime.usm_kind(x._data, 0) == USM_TYPE[kind]
    assert x.__dlpack_device__() == (14, 0)
    assert host(x).tolist() == list(range(12))
    z = dlarray.zeros((3, 4), dtype=dlarray.float64, device=kind)
    assert host(z).tolist() == [[0.0] * 4] * 3


@pytest.mark.parametrize("kind", KINDS)
def test_zero_size_arrays_get_a_real_allocation(kind):
    x = dlarray.empty((0, 3), device=kind)
    assert x.shape == (0, 3) and x._owner.nbytes == 0 and x._data != 0
    assert host(x).shape == (0, 3)


def test_storage_is_freed_when_the_last_view_dies():
    import weakref

    x = dlarray.ones(1000, device="sycl")
    storage, pointer = weakref.ref(x._owner), x._data
    view = x[10:20]
    del x
    gc.collect()
    assert storage() is not None and sycl_runtime.usm_kind(pointer, 0) == "device"
    del view  # the last view: the storage, then the USM allocation, go
    gc.collect()
    assert storage() is None
    assert sycl_runtime.usm_kind(pointer, 0) is None


def test_device_id_is_the_root_device_index():
    import dpctl

    devices = dpctl.get_devices()
    for index, device in enumerate(devices):
        if not device.has_aspect_usm_device_allocations:
            continue
        x = dlarray.ones(4, device=dlarray.Device("sycl", index))
        assert x.__dlpack_device__() == (14, index)
        assert x._owner.owner.sycl_device == device
        assert devices.index(x._owner.owner.sycl_device) == index


def test_a_device_index_that_does_not_exist_says_what_does():
    count = len(sycl_runtime.root_devices())
    with pytest.raises(dlarray.SYCLUnavailableError, match=f"{count} device"):
        dlarray.zeros(3, device=dlarray.Device("sycl", count))


def test_info_lists_each_usm_kind_of_each_device():
    devices = dlarray.__array_namespace_info__().devices()
    for kind in KINDS:
        assert dlarray.Device(kind, 0) in devices


# ---- copies ----


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips_through_each_kind(kind, dtype):
    a = sample(dtype)
    x = dlarray.asarray(a, device=kind)
    assert x.dtype == getattr(dlarray, dtype)
    np.testing.assert_array_equal(host(x), a)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    "source,target",
    [
        ("sycl", "cpu"),
        ("sycl_shared", "cpu"),
        ("sycl_host", "cpu"),
        ("cpu", "sycl"),
        ("sycl", "sycl_shared"),
        ("sycl_shared", "sycl_host"),
        ("sycl_host", "sycl"),
    ],
)
def test_strided_copies_between_kinds(layout, source, target):
    a = sample("float32")
    x = LAYOUTS[layout](dlarray.asarray(a, device=source))
    y = x.to_device(target)
    assert y.device == dlarray.Device(target, 0)
    assert y._is_c_contiguous()
    np.testing.assert_array_equal(host(y), LAYOUTS[layout](a))


def test_export_to_the_host_is_a_marked_copy():
    x = dlarray.asarray(np.arange(6.0), device="sycl")
    capsule = x.__dlpack__(dl_device=(1, 0), copy=True, max_version=(1, 3))
    fields = abi.read_capsule(capsule)
    assert fields["device"] == (1, 0)
    assert fields["flags"] & _core.FLAG_IS_COPIED
    assert fields["data"] != x._data
    y = dlarray.from_dlpack(capsule_holder(capsule))
    assert np.from_dlpack(y).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    # NumPy asks for the host copy itself:
    assert np.from_dlpack(x, device="cpu").tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def capsule_holder(capsule):
    class Holder:
        def __dlpack__(self, **kwargs):
            return capsule

        def __dlpack_device__(self):
            return (1, 0)

    return Holder()


def test_impossible_requests_are_buffer_errors():
    x = dlarray.asarray(np.arange(4.0), device="sycl")
    with pytest.raises(BufferError, match="copy"):
        x.__dlpack__(dl_device=(1, 0), copy=False, max_version=(1, 3))
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(2, 0), max_version=(1, 3))
    with pytest.raises(BufferError, match="copy=False"):
        dlarray.from_dlpack(np.arange(3.0), device="sycl", copy=False)
    with pytest.raises(BufferError):
        dlarray.from_dlpack(x, device="cpu", copy=False)


def test_from_dlpack_moves_data_between_host_and_usm():
    a = np.arange(5.0)
    x = dlarray.from_dlpack(a, device="sycl_shared")
    assert x.device == dlarray.Device("sycl_shared", 0)
    back = dlarray.from_dlpack(x, device="cpu")
    assert back.device == dlarray.Device("cpu") and np.from_dlpack(back).tolist() == a.tolist()


# ---- the default-context rule ----


def test_memory_outside_the_default_context_is_refused_at_export():
    import dpctl
    import dpctl.memory

    device = sycl_runtime.root_device(0)
    # A context made from a list of devices is a new one (SyclContext(device)
    # may return the default context).
    queue = dpctl.SyclQueue(dpctl.SyclContext([device]), device)
    memory = dpctl.memory.MemoryUSMShared(16, queue=queue)
    memory.copy_from_host(np.arange(16, dtype=np.uint8))
    x = dlarray.asarray(memory)
    assert x.device == dlarray.Device("sycl_shared", 0) and x.shape == (16,)
    assert not x._owner.in_default_context
    with pytest.raises(BufferError, match="default platform context"):
        x.__dlpack__()
    # It is still usable: copies go through its own queue.
    assert host(x).tolist() == list(range(16))
    y = dlarray.asarray(x, copy=True)
    assert y._owner.in_default_context and host(y).tolist() == list(range(16))


# ---- import checks ----


def test_a_pointer_the_context_does_not_know_is_refused_and_left_to_the_producer():
    # Host memory labelled kDLOneAPI: dpctl would abort on it; dlarray asks
    # SYCL's pointer query, which answers "unknown", and refuses.
    producer = abi.Producer(device=(14, 0))
    assert "not USM known" in refusal(producer)
    assert abi.capsule_name(producer.held_capsules[-1]) == b"dltensor_versioned"  # unconsumed
    producer.drop_capsules()
    gc.collect()
    assert len(producer.deleter_calls) == 1  # the capsule's destructor, once


def test_a_device_id_that_does_not_exist_is_refused():
    count = len(sycl_runtime.root_devices())
    producer = abi.Producer(device=(14, count))
    assert f"SYCL device {count} does not exist" in refusal(producer)


def refusal(producer) -> str:
    """The BufferError from importing ``producer`` (caught here, so that no
    traceback keeps the producer's capsule alive)."""
    try:
        dlarray.from_dlpack(producer)
    except BufferError as exc:
        return str(exc)
    raise AssertionError("the import was not refused")


def test_imports_are_labelled_with_their_usm_kind(dpt):
    for kind, usm_type in USM_TYPE.items():
        a = dpt.arange(6, dtype="i4", usm_type=usm_type)
        x = dlarray.from_dlpack(a)
        assert x.device == dlarray.Device(kind, 0)
        assert isinstance(x._owner, _core.ImportedTensor)


# ---- zero-copy exchange with dpnp.tensor ----


@pytest.mark.parametrize("kind", KINDS)
def test_dpnp_tensor_imports_dlarray_memory_in_place(kind, dpt):
    x = dlarray.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device=kind)
    a = dpt.from_dlpack(x)
    assert usm_address(a) == address(x)
    assert a.usm_type == USM_TYPE[kind]
    assert dpt.asnumpy(a).tolist() == [[0, 1, 2], [3, 4, 5]]
    a[0, 0] = 42  # a write through dpnp is seen by dlarray
    assert host(x)[0, 0] == 42


@pytest.mark.parametrize("layout", ["transposed", "sliced", "negative", "zero-d", "empty"])
def test_dpnp_tensor_imports_views_in_place(layout, dpt):
    x = LAYOUTS[layout](dlarray.asarray(sample("int32"), device="sycl"))
    a = dpt.from_dlpack(x)
    if x.size:
        assert usm_address(a) == address(x)
    np.testing.assert_array_equal(dpt.asnumpy(a), host(x))


@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
def test_dlarray_imports_a_dpnp_tensor_in_place(usm_type, dpt):
    a = dpt.reshape(dpt.arange(12, dtype="f8", usm_type=usm_type), (3, 4))[:, ::-2]
    x = dlarray.from_dlpack(a)
    assert address(x) == usm_address(a)
    np.testing.assert_array_equal(host(x), dpt.asnumpy(a))


def test_lifetimes_either_side_may_die_first(dpt):
    a = dpt.arange(1000, dtype="f4")
    x = dlarray.from_dlpack(a)
    del a
    gc.collect()
    assert host(x)[999] == 999.0  # dlarray keeps the producer's memory
    y = dlarray.arange(1000, dtype=dlarray.float32, device="sycl")
    b = dpt.from_dlpack(y)
    del y
    gc.collect()
    assert dpt.asnumpy(b)[999] == 999.0  # and dpnp keeps dlarray's


def test_read_only_imports_stay_read_only(dpt):
    a = dpt.arange(3, dtype="i4")
    a.flags.writable = False
    x = dlarray.from_dlpack(a)
    assert x.readonly


def test_streams_are_dpctl_queues():
    import dpctl

    x = dlarray.asarray(np.arange(4.0), device="sycl")
    other = dpctl.SyclQueue(x._owner.owner.sycl_context, sycl_runtime.root_device(0))
    capsule = x.__dlpack__(stream=other, max_version=(1, 3))
    assert abi.read_capsule(capsule)["device"] == (14, 0)
    with pytest.raises(TypeError, match="SyclQueue"):
        x.__dlpack__(stream=1)
    y = x.to_device("sycl_shared", stream=other)
    assert host(y).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_dpnp_reads_dlarray_results_without_waiting_itself(dpnp):
    # dpnp passes no stream: dlarray's export waits for its queue first.
    x = dlarray.ones((256, 256), dtype=dlarray.float32, device="sycl")
    y = dlarray.matmul(x, x)
    assert float(dpnp.from_dlpack(y).sum()) == 256.0 * 256 * 256


# ---- the C exchange table on SYCL memory ----


@pytest.mark.parametrize("kind", KINDS)
def test_dlarray_imports_its_own_usm_through_its_exchange_table(kind: str) -> None:
    x = dlarray.asarray([1.0, 2.0, 3.0], device=dlarray.Device(kind, 0))
    y = dlarray.from_dlpack(x)
    # The table path ran, found dlarray's own queue as the producer's
    # stream, so nothing needed ordering, and kept the USM kind.
    assert y._owner.via_table is True
    assert y.device == x.device
    assert y._data + y._byte_offset == x._data + x._byte_offset


def test_the_work_stream_of_a_sycl_device_is_dlarrays_queue() -> None:
    from dlarray._storage.memory import MEMORY

    queue = sycl_runtime.work_queue(0)
    assert MEMORY.work_stream(int(dlarray.DLDeviceType.kDLOneAPI), 0) == queue.addressof_ref()
    # Another queue's work would need ordering dlarray cannot do itself,
    # so the import falls back to __dlpack__(stream=queue).
    other = sycl_runtime.dpctl().SyclQueue(queue.sycl_context, queue.sycl_device)
    assert MEMORY.order_import(14, 0, other.addressof_ref()) is False
    assert MEMORY.order_import(14, 0, queue.addressof_ref()) is True


# ---- NumPy's conversion protocols on USM (issue 18) ----


@pytest.mark.parametrize("kind", ["sycl_shared", "sycl_host"])
def test_host_readable_usm_converts_zero_copy_after_the_queue_is_done(kind):
    x = dlarray.asarray(np.arange(6.0).reshape(2, 3), device=kind)
    x *= 2.0  # work dlarray queued on the device
    a = np.asarray(x)
    assert a.ctypes.data == x._data + x._byte_offset  # the USM itself, no copy
    assert a.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    assert memoryview(x).tolist() == a.tolist()
    a[0, 0] = 42.0  # the host writes the shared memory directly
    assert float(x[0, 0].to_device("cpu")) == 42.0


def test_device_usm_is_refused_with_the_copy_to_make():
    x = dlarray.asarray([1.0, 2.0], device="sycl")
    for convert in (np.asarray, memoryview, bytes):
        with pytest.raises(TypeError, match=r"to_device\('cpu'\)"):
            convert(x)
    assert np.asarray(x.to_device("cpu")).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("kind", KINDS)
def test_usm_arrays_pickle_onto_their_kind(kind):
    import pickle

    x = dlarray.asarray(np.arange(4, dtype=np.int16), device=kind)
    y = pickle.loads(pickle.dumps(x))
    assert y.device == x.device and y.dtype == x.dtype
    assert host(y).tolist() == [0, 1, 2, 3]
