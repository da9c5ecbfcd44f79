"""The memory-kind table (dlarray._device.KINDS), the memory families that
act on its rows (dlarray._storage.family), and the one stream choice
(DLArray._memory.consumer_stream, dlarray._storage.memory) that every consumer
path asks."""

from __future__ import annotations

import dataclasses

import abi
import numpy as np
import pytest
from fake_cuda import FakeRuntime

import dlarray
from dlarray import _core
from dlarray._cuda import runtime as cuda_runtime
from dlarray._device import KIND_OF_USM, KINDS, Device, kinds_of
from dlarray._storage.family import FAMILIES, MemoryFamily, family_of, family_of_type
from dlarray._storage.memory import MEMORY

METHODS = [
    name for name, value in vars(MemoryFamily).items() if callable(value) and name[0] != "_"
]


def test_the_c_device_table_and_the_kind_table_agree():
    # Every DLPack 1.3 device type has a kind, and its family is the C core's.
    named = {int(k.device_type) for k in KINDS.values()}
    assert named == set(_core.DEVICE_FAMILIES)
    for kind in KINDS.values():
        assert kind.family == _core.DEVICE_FAMILIES[int(kind.device_type)], kind
    assert {k.family for k in KINDS.values()} == set(FAMILIES) == {"host", "cuda", "sycl", "none"}


def test_each_row_says_what_the_code_used_to_list():
    readable = {k.name for k in KINDS.values() if k.host_readable}
    assert readable == {"cpu", "cuda_host", "cuda_managed", "sycl_host", "sycl_shared"}
    assert {k.name: k.engine for k in KINDS.values() if k.engine} == {
        "cpu": "numpy", "cuda": "cupy", "sycl": "dpnp", "sycl_shared": "dpnp", "sycl_host": "dpnp",
        # Issue 19: managed and pinned memory compute with NumPy on host views.
        "cuda_managed": "numpy_host_views", "cuda_host": "numpy_host_views",
    }
    assert KIND_OF_USM == {"device": "sycl", "shared": "sycl_shared", "host": "sycl_host"}
    # One memory for the whole machine, numbered device 0: the C table's rows.
    assert _core.MACHINE_WIDE_DEVICE_TYPES == {1, 3, 13}
    machine_wide = {k.name for k in KINDS.values() if k.machine_wide}
    assert machine_wide == {"cpu", "cuda_managed", "cuda_host"}
    assert kinds_of("cuda") == ("cuda", "cuda_managed", "cuda_host")
    assert Device("sycl_host", 1).memory is KINDS["sycl_host"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        KINDS["cpu"].host_readable = False  # type: ignore[misc]


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_has_a_family_with_every_operation(kind):
    family = family_of(Device(kind))
    assert family is FAMILIES[KINDS[kind].family]
    assert family is family_of_type(int(KINDS[kind].device_type))
    for name in METHODS:
        assert callable(getattr(family, name)), (kind, name)


def test_an_unknown_device_type_is_the_none_family():
    assert family_of_type(99) is FAMILIES["none"]
    assert family_of_type(-1) is FAMILIES["none"]


def test_memory_without_a_runtime_is_refused_by_its_family():
    opencl = Device("opencl")
    with pytest.raises(ValueError, match=r"cannot allocate memory on Device\(.opencl., 0\)"):
        dlarray.empty(3, device=opencl)
    with pytest.raises(ValueError, match="has no streams"):
        dlarray.zeros(2).to_device("cpu", stream=5)
    assert family_of(opencl).devices() == ()
    assert family_of(Device("cpu")).devices() == (dlarray.Device("cpu"),)


def test_host_memory_is_device_0_only():
    # DLPack numbers the one host memory 0; an array on ("cpu", 1) would
    # export the pair (1, 1), which consumers refuse.
    for make in (
        lambda: dlarray.zeros(3, device=Device("cpu", 1)),
        lambda: dlarray.empty(3, device=Device("cpu", 1)),
        lambda: dlarray.zeros(3).to_device(Device("cpu", 1)),
        lambda: dlarray.asarray([1.0], device=(1, 1)),
    ):
        with pytest.raises(ValueError, match=r"Device\('cpu', 1\).*device 0"):
            make()
    # Asked of an exchange, the same refusal is a BufferError (the taxonomy).
    for export in (
        lambda: dlarray.zeros(3).__dlpack__(max_version=(1, 3), dl_device=(1, 1)),
        lambda: dlarray.from_dlpack(np.zeros(3), device=(1, 1)),
    ):
        with pytest.raises(BufferError, match=r"Device\('cpu', 1\).*device 0"):
            export()


def test_the_stream_choice_answers_per_family():
    assert MEMORY.consumer_stream(1, 0) is None  # host memory has no streams
    assert MEMORY.consumer_stream(4, 0) is None  # OpenCL: no runtime in dlarray, no streams
    assert MEMORY.consumer_stream(99, 0) is None  # a type DLPack does not have
    # CUDA without CuPy: the legacy default stream, for every CUDA kind.
    for device_type in (2, 3, 13):
        assert MEMORY.consumer_stream(device_type, 0) == 1


def test_the_stream_choice_refuses_a_gpu_this_process_does_not_see():
    with cuda_runtime.use_runtime(FakeRuntime(gpus=2)):
        assert MEMORY.consumer_stream(2, 1) == 1
        with pytest.raises(BufferError, match=r"GPU 5.*sees 2 GPU"):
            MEMORY.consumer_stream(2, 5)
        # The C fast path asks the same function, so it refuses the same way,
        # before the producer is asked for a capsule.
        producer = abi.Producer(device=(2, 5))
        with pytest.raises(BufferError, match="GPU 5"):
            dlarray.from_dlpack(producer)
        assert producer.dlpack_calls == []


def test_the_fast_path_and_the_python_path_pass_the_same_stream():
    fast, full = abi.Producer(device=(2, 0)), abi.Producer(device=(2, 0))
    dlarray.from_dlpack(fast)  # C: no keywords
    dlarray.from_dlpack(full, copy=None, device=dlarray.Device("cuda"))  # the Python protocol
    assert fast.dlpack_calls[0]["stream"] == full.dlpack_calls[0]["stream"] == 1


def test_host_memory_is_asked_with_stream_none_without_a_device_query():
    a = np.arange(3.0)
    x = dlarray.from_dlpack(a)  # NumPy: known host memory, no __dlpack_device__ call
    assert x.device == dlarray.Device("cpu")
    producer = abi.Producer(device=(1, 0))
    dlarray.from_dlpack(producer)
    assert producer.dlpack_calls == [{"max_version": (1, 3), "stream": None}]
