"""CUDA paths tested without a GPU.

A stand-in runtime (tests/fake_cuda.py) makes "CUDA" allocations in host
memory and logs every call, so these tests check what dlarray does with
CUDA memory -- allocation, copies, stream ordering, dispatch, errors --
everywhere.  The real GPU runs are tests/cuda/ (marked ``cuda``).
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import sys
import types

import abi
import numpy as np
import pytest
from fake_cuda import stand_in

import dlarray
from dlarray import _core
from dlarray._cuda import runtime as cuda_runtime
from dlarray._cuda.runtime import CUDAUnavailableError
from dlarray._install import pip_install
from dlarray.storage import CudaDeviceStorage, CudaManagedStorage, CudaPinnedStorage, Storage

KINDS = ["cuda", "cuda_managed", "cuda_host"]
DLPACK_TYPES = {"cuda": 2, "cuda_managed": 13, "cuda_host": 3}


@pytest.fixture(autouse=True)
def without_cupy(monkeypatch):
    """As if CuPy were never imported, whatever ran before: dlarray's work
    stream is CuPy's current stream once CuPy is imported, which cannot be
    read without a driver (and names the real GPUs, not the stand-in's).
    Tests that want CuPy's stream use ``cupy_side_stream``."""
    monkeypatch.setitem(sys.modules, "cupy", None)


@pytest.fixture
def fake():
    with stand_in(gpus=2) as rt:
        yield rt


def host_values(x):
    return np.from_dlpack(x.to_device("cpu"))


# ---- allocation ----


@pytest.mark.parametrize("kind", KINDS)
def test_zeros_allocates_the_kind_and_zeroes_it(fake, kind):
    x = dlarray.zeros((2, 3), dtype=dlarray.float32, device=kind)
    assert x.device == dlarray.Device(kind, 0)
    assert x.__dlpack_device__() == (DLPACK_TYPES[kind], 0)
    assert x._data in fake.live
    assert ("memset", 24, 1) in fake.calls  # on the legacy default stream
    assert host_values(x).tolist() == [[0.0] * 3] * 2


def test_storage_class_per_kind(fake):
    kinds = {"cuda": CudaDeviceStorage, "cuda_managed": CudaManagedStorage}
    kinds["cuda_host"] = CudaPinnedStorage
    for kind, storage_type in kinds.items():
        assert type(dlarray.empty(4, device=kind)._owner) is storage_type


@pytest.mark.parametrize("kind", KINDS)
def test_cuda_storage_follows_the_storage_protocol(fake, kind):
    storage = dlarray.empty(4, device=kind)._owner
    assert isinstance(storage, Storage)
    assert (storage.nbytes, storage.device, storage.owner) == (32, dlarray.Device(kind), storage)


@pytest.mark.parametrize("kind", KINDS)
def test_padded_subbyte_arrays_keep_their_layout_across_kinds(fake, kind):
    codes = np.arange(12, dtype=np.uint8).reshape(3, 4) % 16
    x = dlarray.subbyte.from_codes(codes, dlarray.float4_e2m1fn, padded=True)
    moved = x.to_device(kind)[:, ::-2].to_device("cpu")  # strided on the device
    assert moved._padded
    np.testing.assert_array_equal(np.from_dlpack(dlarray.subbyte.to_codes(moved)), codes[:, ::-2])


def test_device_memory_is_allocated_on_its_gpu(fake):
    x = dlarray.empty(4, device=dlarray.Device("cuda", 1))
    assert x.__dlpack_device__() == (2, 1)
    assert ("malloc", 32, 1) in fake.calls
    assert fake.device == 0  # the current device is restored


@pytest.mark.parametrize("kind", KINDS)
def test_memory_is_freed_once_when_the_last_view_dies(fake, kind):
    x = dlarray.zeros(8, device=kind)
    pointer = x._data
    view = x[2:]
    del x
    assert pointer in fake.live
    del view
    assert fake.freed.count(pointer) == 1
    assert pointer not in fake.live


def test_zero_size_arrays_get_a_real_allocation(fake):
    x = dlarray.zeros((0, 3), device="cuda")
    assert x.shape == (0, 3) and x._data in fake.live
    assert host_values(x).shape == (0, 3)


def test_a_gpu_that_does_not_exist_is_refused(fake):
    with pytest.raises(CUDAUnavailableError, match=r"2 GPU\(s\), numbered from 0 to 1"):
        dlarray.zeros(3, device=dlarray.Device("cuda", 2))


@pytest.mark.parametrize("kind", ["cuda_managed", "cuda_host"])
def test_managed_and_pinned_memory_is_device_0(fake, kind):
    with pytest.raises(ValueError, match=r"numbers .* memory device 0"):
        dlarray.zeros(3, device=dlarray.Device(kind, 1))


def test_devices_lists_the_gpus_and_memory_kinds(fake):
    assert dlarray.__array_namespace_info__().devices() == (
        dlarray.Device("cpu"),
        dlarray.Device("cuda", 0),
        dlarray.Device("cuda", 1),
        dlarray.Device("cuda_managed", 0),
        dlarray.Device("cuda_host", 0),
    )


# ---- copies ----

LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "step": lambda a: a[:, ::2],
    "negative": lambda a: a[::-1, ::-3],
    "0-d": lambda a: a[1, 2],
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_round_trip_host_to_kind_to_host(fake, kind, layout):
    source = np.arange(24, dtype=np.int16).reshape(4, 6)
    expected = LAYOUTS[layout](source)
    x = LAYOUTS[layout](dlarray.asarray(source))
    moved = x.to_device(kind)
    assert moved.device == dlarray.Device(kind, 0)
    assert moved._is_c_contiguous()
    np.testing.assert_array_equal(host_values(moved), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_non_contiguous_gpu_array_copies_to_the_host(fake, layout):
    # The span of a strided GPU array is copied and compacted on the host.
    source = np.arange(24.0).reshape(4, 6)
    on_gpu = dlarray.asarray(source).to_device("cuda")
    np.testing.assert_array_equal(host_values(LAYOUTS[layout](on_gpu)), LAYOUTS[layout](source))


@pytest.mark.parametrize(("a", "b"), [("cuda", "cuda_managed"), ("cuda_host", "cuda")])
def test_copies_between_cuda_kinds(fake, a, b):
    x = dlarray.asarray([1.5, 2.5, 3.5], device=a)
    y = x.to_device(b)
    assert y.device.kind == b and y._data != x._data
    assert host_values(y).tolist() == [1.5, 2.5, 3.5]


def test_copy_to_the_host_waits_only_for_its_stream(fake):
    x = dlarray.asarray([1, 2, 3], device="cuda")
    fake.calls.clear()
    host_values(x)
    assert fake.names() == ["memcpy", "stream_synchronize"]
    assert fake.calls[1] == ("stream_synchronize", 1)


def test_asarray_and_from_dlpack_move_numpy_data_to_a_gpu(fake):
    a = np.arange(5.0)
    for x in (dlarray.asarray(a, device="cuda"), dlarray.from_dlpack(a, device="cuda")):
        assert x.device == dlarray.Device("cuda", 0)
        assert host_values(x).tolist() == a.tolist()


def test_from_dlpack_to_a_gpu_without_copy_is_a_buffer_error(fake):
    # NumPy cannot export to CUDA, and copy=False forbids our copy.
    with pytest.raises(BufferError):
        dlarray.from_dlpack(np.arange(3.0), device="cuda", copy=False)


def test_astype_with_a_device_converts_and_moves(fake):
    x = dlarray.astype(dlarray.asarray([1.7, 2.2]), dlarray.float32, device="cuda")
    assert x.device.kind == "cuda" and x.dtype == dlarray.float32
    assert host_values(x).tolist() == pytest.approx([1.7, 2.2])


def test_export_to_the_host_copies_and_sets_is_copied(fake):
    x = dlarray.asarray([[1, 2], [3, 4]], device="cuda")
    capsule = x.T.__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=True)
    info = abi.read_capsule(capsule)
    assert info["device"] == (1, 0)
    assert info["flags"] & _core.FLAG_IS_COPIED
    y = _core.consume(capsule)
    assert np.from_dlpack(y).tolist() == [[1, 3], [2, 4]]


def test_export_to_the_host_without_copy_is_a_buffer_error(fake):
    x = dlarray.zeros(3, device="cuda")
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=False)


def test_export_to_the_host_follows_the_host_stream_rule(fake):
    # The spec: when dl_device names the CPU, stream must be None.
    x = dlarray.zeros(3, device="cuda")
    with pytest.raises(ValueError, match="CPU memory has no streams"):
        x.__dlpack__(max_version=(1, 3), dl_device=(1, 0), stream=2)


# ---- streams, as producer ----


@pytest.mark.parametrize(
    ("stream", "error", "words"),
    [
        (0, ValueError, "forbids 0"),
        (-2, ValueError, "other than -1"),
        ("1", TypeError, "an int"),
        (True, TypeError, "an int"),
        (1.0, TypeError, "an int"),
    ],
)
def test_bad_streams_are_refused(fake, stream, error, words):
    x = dlarray.zeros(3, device="cuda")
    with pytest.raises(error, match=words):
        x.__dlpack__(stream=stream)


def test_bad_stream_is_refused_without_a_runtime():
    # Validation needs no GPU: a fake kDLCUDA import is enough.
    producer = abi.Producer(device=(2, 0))
    x = dlarray.from_dlpack(producer)
    with pytest.raises(ValueError, match="forbids 0"):
        x.__dlpack__(stream=0)
    x.__dlpack__(stream=2)  # valid, and nothing of dlarray's is pending


@pytest.mark.parametrize("stream", [2, 0x7F00_1234])
def test_another_stream_waits_on_an_event(fake, stream):
    x = dlarray.zeros(3, device="cuda")
    fake.calls.clear()
    x.__dlpack__(stream=stream)
    assert fake.calls == [
        ("event_create", 1),
        ("event_record", 1, 1),  # on dlarray's work stream, the legacy default
        ("stream_wait_event", stream, 1),
        ("event_destroy", 1),
    ]


@pytest.mark.parametrize("stream", [None, 1, -1])
def test_same_stream_or_no_sync_does_nothing(fake, stream):
    x = dlarray.zeros(3, device="cuda")
    fake.calls.clear()
    x.__dlpack__(stream=stream)
    assert fake.calls == []


def test_the_event_is_recorded_on_the_arrays_gpu(fake):
    x = dlarray.zeros(3, device=dlarray.Device("cuda", 1))
    fake.calls.clear()
    x.__dlpack__(stream=2)
    assert fake.calls[0] == ("set_device", 1)
    assert fake.calls[-1] == ("set_device", 0)
    assert "event_record" in fake.names()


@pytest.mark.parametrize("kind", ["cuda_managed", "cuda_host"])
def test_host_readable_memory_without_a_stream_waits_on_the_host(fake, kind):
    # NumPy passes no stream and reads the memory at once.
    x = dlarray.full((3,), 7.0, device=kind)
    fake.calls.clear()
    a = np.from_dlpack(x)
    assert fake.calls == [("stream_synchronize", 1)]
    assert a.ctypes.data == x._data  # zero-copy
    assert a.tolist() == [7.0, 7.0, 7.0]


def test_to_device_orders_the_copy_before_the_given_stream(fake):
    x = dlarray.asarray([1.0, 2.0])
    fake.calls.clear()
    dlarray.asarray(x).to_device("cuda", stream=5)
    assert fake.names()[-4:] == [
        "event_create",
        "event_record",
        "stream_wait_event",
        "event_destroy",
    ]
    assert ("stream_wait_event", 5, 1) in fake.calls


def test_to_device_refuses_a_stream_for_the_host():
    with pytest.raises(ValueError, match="has no streams"):
        dlarray.asarray([1.0]).to_device("cpu", stream=1)


# ---- streams and devices, as consumer ----


@pytest.fixture
def cupy_side_stream(monkeypatch):
    """A stand-in CuPy module whose current stream is a side stream, 0xABC0
    (dlarray adopts CuPy's current stream as its work stream)."""
    stream = types.SimpleNamespace(ptr=0xABC0)
    cuda = types.SimpleNamespace(
        get_current_stream=lambda: stream, Device=lambda index: contextlib.nullcontext()
    )
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=cuda))
    return stream.ptr


def test_consumer_without_cupy_passes_1_the_legacy_default_stream(without_cupy):
    # dlarray's work stream is the legacy default stream, 1 (which None also
    # names): the one stream choice (the memory families' consumer_stream) gives it
    # to every path, the C fast path included.  It is passed, not left out,
    # because PyTorch's default is -1 (no sync).
    producer = abi.Producer(device=(2, 0))
    x = dlarray.from_dlpack(producer)
    assert x.device == dlarray.Device("cuda", 0)
    assert producer.dlpack_calls == [{"stream": 1, "max_version": (1, 3)}]


def test_consumer_passes_its_work_stream_to_a_cuda_producer(cupy_side_stream):
    producer = abi.Producer(device=(2, 0))
    dlarray.from_dlpack(producer)
    assert producer.dlpack_calls == [{"max_version": (1, 3), "stream": cupy_side_stream}]


@pytest.mark.parametrize("device_type", [3, 13])
def test_consumer_passes_its_work_stream_for_pinned_and_managed(cupy_side_stream, device_type):
    producer = abi.Producer(device=(device_type, 0))
    dlarray.from_dlpack(producer)
    assert producer.dlpack_calls == [{"max_version": (1, 3), "stream": cupy_side_stream}]


def test_consumer_passes_stream_none_to_a_host_producer_even_with_cupy(cupy_side_stream):
    producer = abi.Producer(device=(1, 0))
    dlarray.from_dlpack(producer)
    assert producer.dlpack_calls == [{"max_version": (1, 3), "stream": None}]


def test_consumer_passes_stream_none_to_a_host_producer():
    producer = abi.Producer(device=(1, 0))
    dlarray.from_dlpack(producer)
    assert producer.dlpack_calls == [{"stream": None, "max_version": (1, 3)}]


def test_consumer_retries_a_legacy_cuda_producer_with_its_stream(cupy_side_stream):
    class Legacy(abi.Producer):
        def __dlpack__(self, **kwargs):
            if "max_version" in kwargs:
                raise TypeError("unexpected keyword argument 'max_version'")
            return super().__dlpack__(**kwargs)

    producer = Legacy(device=(2, 0), versioned=False)
    x = dlarray.from_dlpack(producer)
    assert x.device.kind == "cuda"
    # The first call (with max_version) was refused before super() logged it.
    assert producer.dlpack_calls == [{"stream": cupy_side_stream}]


def test_consumer_asks_a_cuda_producer_for_the_host_without_a_stream():
    # The spec: when dl_device names the CPU, stream must be None.
    class CopiesToHost(abi.Producer):
        def __dlpack__(self, **kwargs):
            self.device = (1, 0) if kwargs.get("dl_device") == (1, 0) else (2, 0)
            return super().__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return (2, 0)

    copier = CopiesToHost(device=(2, 0), flags=_core.FLAG_IS_COPIED)
    x = dlarray.from_dlpack(copier, device="cpu")
    assert x.device == dlarray.Device("cpu")
    assert copier.dlpack_calls == [{"max_version": (1, 3), "dl_device": (1, 0), "stream": None}]


def test_consumer_checks_the_producers_gpu_exists(fake, cupy_side_stream):
    producer = abi.Producer(device=(2, 5))
    with pytest.raises(BufferError, match=r"GPU 5.*2 GPU"):
        dlarray.from_dlpack(producer)
    assert producer.dlpack_calls == []  # refused before asking


@pytest.mark.parametrize("device_type", [3, 13])
def test_managed_and_pinned_imports_arrive_as_device_0(device_type):
    producer = abi.Producer(device=(device_type, 1))
    x = dlarray.from_dlpack(producer)
    assert x.__dlpack_device__() == (device_type, 0)
    assert x._owner.device == (device_type, 1)  # the producer's pair is kept


def test_imported_cuda_memory_is_exported_again_without_a_copy():
    producer = abi.Producer(device=(2, 0))
    x = dlarray.from_dlpack(producer)
    info = abi.read_capsule(x.__dlpack__(max_version=(1, 3), stream=1))
    assert info["device"] == (2, 0)
    assert info["data"] == ctypes.addressof(producer.buffer)  # the producer's own memory


# ---- compute ----


def test_compute_on_gpu_memory_without_cupy_names_cupy(fake, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    x = dlarray.zeros(3, device="cuda")
    with pytest.raises(BufferError, match="needs CuPy"):
        x + 1


@pytest.mark.parametrize("kind", ["cuda_managed", "cuda_host"])
def test_compute_on_managed_or_pinned_memory_stays_on_its_kind(fake, kind):
    # (Issue 19: these kinds compute on host views; tests/memory/test_cuda_managed_compute.py
    # runs every namespace function on them.)
    x = dlarray.ones(3, device=kind)
    result = dlarray.sin(x)
    assert result.device == x.device
    assert np.from_dlpack(result).tolist() == [np.sin(1.0)] * 3


def test_repr_of_gpu_memory_copies_it_to_the_host_on_dlarrays_stream(fake):
    x = dlarray.zeros(3, device="cuda")
    fake.calls.clear()
    assert repr(x) == (
        "dlarray.asarray([0.0, 0.0, 0.0], dtype=dlarray.float64, device=Device('cuda', 0))"
    )
    # One copy, then a wait for that stream alone (tests/namespace/test_printing.py
    # has the summarised and unreadable forms).
    assert fake.names() == ["memcpy", "stream_synchronize"]


# ---- without a runtime ----


@pytest.fixture
def no_cuda_bindings(monkeypatch):
    cuda_runtime.forget()
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    monkeypatch.setitem(sys.modules, "cuda.bindings.runtime", None)
    yield
    cuda_runtime.forget()


def test_missing_package_is_named(no_cuda_bindings):
    # The command for this installation (dlarray._install): by name from an
    # index, the checkout, directory or wheel it came from otherwise.
    advice = re.escape(pip_install("cuda"))
    with pytest.raises(CUDAUnavailableError, match=advice) as info:
        dlarray.zeros(3, device="cuda")
    assert isinstance(info.value, BufferError) and isinstance(info.value, ValueError)
    assert dlarray.__array_namespace_info__().devices() == (dlarray.Device("cpu"),)


def test_missing_driver_is_named():
    pytest.importorskip("cuda.bindings.runtime")
    from cuda.bindings import runtime as rt

    err, count = rt.cudaGetDeviceCount()
    if int(err) == 0 and count:
        pytest.skip("this machine has a working GPU; the no-driver path cannot happen")
    cuda_runtime.forget()
    try:
        with pytest.raises(CUDAUnavailableError, match=r"driver|no GPU") as info:
            dlarray.empty(3, device="cuda_managed")
        assert "cudaGetDeviceCount" in str(info.value)
    finally:
        cuda_runtime.forget()


def test_import_dlarray_does_not_load_cuda():
    import subprocess

    code = "import sys, dlarray; dlarray.zeros(3) + 1; print('cuda.bindings' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_imported_memory_of_another_device_kind_is_exported_again():
    # Only CUDA memory has dlarray's stream rules; others take stream=None.
    producer = abi.Producer(device=(10, 0))
    x = dlarray.from_dlpack(producer)
    assert abi.read_capsule(x.__dlpack__(max_version=(1, 3)))["device"] == (10, 0)
    with pytest.raises(BufferError, match="cannot order work"):
        x.__dlpack__(stream=5)


def test_asarray_converts_then_moves(fake):
    x = dlarray.asarray(dlarray.asarray([1.5, 2.5]), dtype=dlarray.float32, device="cuda")
    assert (x.dtype, x.device) == (dlarray.float32, dlarray.Device("cuda", 0))
    assert host_values(x).tolist() == [1.5, 2.5]


def test_asarray_without_copy_refuses_a_move_with_value_error(fake):
    # The standard's asarray reports a needed copy under copy=False as ValueError.
    for source in (np.arange(3.0), dlarray.asarray([1.0])):
        with pytest.raises(ValueError, match="moving it needs a copy"):
            dlarray.asarray(source, device="cuda", copy=False)


@pytest.mark.parametrize("refusal", [BufferError, ValueError, NotImplementedError, RuntimeError])
def test_a_producer_refusing_the_device_any_way_is_copied_by_dlarray(fake, refusal):
    # The spec says BufferError; NumPy < 2.3 raises ValueError and PyTorch
    # NotImplementedError or RuntimeError.
    class HostOnly(abi.Producer):
        def __dlpack__(self, **kwargs):
            if kwargs.get("dl_device") not in (None, (1, 0)):
                raise refusal("unsupported device requested")
            return super().__dlpack__(**kwargs)

    producer = HostOnly(device=(1, 0), payload=np.arange(4, dtype=np.float32).tobytes())
    x = dlarray.from_dlpack(producer, device="cuda")
    assert x.device == dlarray.Device("cuda", 0)
    assert host_values(x).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(BufferError, match="copy=False"):
        dlarray.from_dlpack(producer, device="cuda", copy=False)
