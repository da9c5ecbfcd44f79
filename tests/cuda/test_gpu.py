"""dlarray on a real NVIDIA GPU: memory, copies, zero-copy exchange, streams,
and computing through CuPy (on the array's own GPU, matching the host).

Every test here is marked ``cuda`` and is skipped, with the reason, unless
dlarray's CUDA runtime loads (cuda-bindings, a driver and a GPU).  Tests
that exchange with PyTorch, CuPy or JAX also skip when that library is
missing or cannot see the GPU.  The same paths are tested without a GPU,
against a stand-in runtime, in tests/memory/test_cuda_paths.py; here the memory,
pointers, values and stream ordering are the GPU's own.

Stream tests make a race visible: a kernel spins for ~0.1 s on one stream
and then writes the final values, and the consumer reads at once on
another stream.  Without the ordering dlarray promises, the reader sees the
initial values.
"""

from __future__ import annotations

import itertools
import os
import sys
import warnings
from typing import Any

import numpy as np
import pytest

import dlarray
from dlarray import _core
from dlarray._cuda import runtime as cuda_runtime
from dlarray.storage import CudaDeviceStorage, CudaManagedStorage, CudaPinnedStorage


def _missing_cuda() -> str | None:
    """Why dlarray cannot reach a GPU here, or None when it can."""
    try:
        cuda_runtime.runtime()
    except dlarray.CUDAUnavailableError as exc:
        return str(exc)
    return None


_MISSING = _missing_cuda()
pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(_MISSING is not None, reason=f"no usable CUDA GPU: {_MISSING}"),
]

KINDS = ["cuda", "cuda_managed", "cuda_host"]
DLPACK_TYPES = {"cuda": 2, "cuda_managed": 13, "cuda_host": 3}
STORAGE = {
    "cuda": CudaDeviceStorage,
    "cuda_managed": CudaManagedStorage,
    "cuda_host": CudaPinnedStorage,
}
GPU0 = dlarray.Device("cuda", 0)
# Clock cycles a spinning kernel waits before writing: ~0.1 s on current GPUs,
# far longer than the host takes to queue the read that must wait for it.
SPIN_CYCLES = 200_000_000

# Views of a (4, 5, 6) array, the same functions for dlarray and NumPy arrays.
LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "permuted": lambda a: (dlarray if isinstance(a, dlarray.DLArray) else np).permute_dims(
        a, (1, 0, 2)
    ),
    "step": lambda a: a[:, ::2, 1::2],
    "negative": lambda a: a[::-1],
    "negative-inner": lambda a: a[1:, :, ::-3],
}


def pointer(x):
    """Address of ``x``'s first element."""
    return x._data + x._byte_offset


def host(x):
    """``x``'s values as a NumPy array, copied to the host by dlarray."""
    return np.from_dlpack(x.to_device("cpu"))


def sample(dtype="float32"):
    """A (4, 5, 6) NumPy array of the values 0 to 10, repeating."""
    return (np.arange(120) % 11).astype(dtype).reshape(4, 5, 6)


class Capsule:
    """A producer that hands out one capsule made beforehand."""

    def __init__(self, capsule, device=(1, 0)):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


# ---- peers ----


def _import(name):
    """Import a peer library, or skip; its import-time warnings are not ours."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytest.importorskip(name)


@pytest.fixture(scope="module")
def torch():
    torch = _import("torch")
    if not torch.cuda.is_available():
        pytest.skip(f"torch {torch.__version__} is installed but sees no CUDA GPU")
    return torch


@pytest.fixture(scope="module")
def cupy():
    cupy = _import("cupy")
    if not cupy.is_available():
        pytest.skip(f"CuPy {cupy.__version__} is installed but sees no CUDA GPU")
    return cupy


@pytest.fixture(scope="module")
def jax_gpu():
    """(jax, its first GPU device)."""
    # JAX would otherwise reserve most of the GPU's memory for itself.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = _import("jax")
    _import("jax.dlpack")
    _import("jax.numpy")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError as exc:
        pytest.skip(f"JAX {jax.__version__} has no GPU backend: {exc}")
    return jax, gpus[0]


@pytest.fixture
def two_gpus():
    count = cuda_runtime.runtime().device_count()
    if count < 2:
        pytest.skip(f"needs 2 GPUs, this machine has {count}")


_SPIN_FILL = r"""
extern "C" __global__ void spin_fill(float* out, long long n, long long cycles, float value) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}
"""


def spin_fill(cupy, c, value):
    """Queue, on CuPy's current stream, a kernel that spins ~0.1 s and then
    sets every element of the float32 CuPy array ``c`` to ``value``."""
    kernel = cupy.RawKernel(_SPIN_FILL, "spin_fill")
    blocks = (c.size + 255) // 256
    kernel((blocks,), (256,), (c, np.int64(c.size), np.int64(SPIN_CYCLES), np.float32(value)))


# ---- allocation ----


@pytest.mark.parametrize("kind", KINDS)
def test_zeros_allocates_zeroed_memory_of_the_kind(kind):
    """zeros(device=kind) is on that kind, in its storage class, and reads as zeros."""
    x = dlarray.zeros((3, 4), dtype=dlarray.float32, device=kind)
    assert x.device == dlarray.Device(kind, 0)
    assert x.__dlpack_device__() == (DLPACK_TYPES[kind], 0)
    assert type(x._owner) is STORAGE[kind]
    assert x._owner.pointer == pointer(x) and x._owner.nbytes == 48
    np.testing.assert_array_equal(host(x), np.zeros((3, 4), np.float32))


@pytest.mark.parametrize("kind", KINDS)
def test_zero_size_arrays(kind):
    """0-size arrays get a real allocation and copy both ways."""
    x = dlarray.zeros((0, 4), device=kind)
    assert x.shape == (0, 4) and x._owner.nbytes == 0 and x._data != 0
    assert host(x).shape == (0, 4)
    assert dlarray.asarray(np.empty((4, 0)), device=kind).shape == (4, 0)


@pytest.mark.parametrize("kind", ["cuda_managed", "cuda_host"])
def test_numpy_views_managed_and_pinned_memory_in_place(kind):
    """np.from_dlpack of managed or pinned memory shares the pointer and reads the fill."""
    x = dlarray.ones(5, device=kind)
    a = np.from_dlpack(x)
    assert a.ctypes.data == pointer(x)
    assert a.tolist() == [1.0] * 5


def test_a_gpu_that_does_not_exist_is_refused():
    """Device('cuda', N) for N = the number of GPUs cannot be allocated on."""
    count = cuda_runtime.runtime().device_count()
    with pytest.raises(dlarray.CUDAUnavailableError, match=f"{count} GPU"):
        dlarray.zeros(2, device=dlarray.Device("cuda", count))


def test_namespace_info_lists_every_gpu():
    """devices() names the CPU, each GPU, and the managed and pinned kinds."""
    count = cuda_runtime.runtime().device_count()
    gpus = tuple(dlarray.Device("cuda", i) for i in range(count))
    assert dlarray.__array_namespace_info__().devices() == (
        dlarray.Device("cpu"),
        *gpus,
        dlarray.Device("cuda_managed", 0),
        dlarray.Device("cuda_host", 0),
    )


# ---- copies ----

DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex64"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_keeps_every_dtype(kind, dtype):
    """host -> kind -> host returns the same values and dtype."""
    a = sample(dtype)
    x = dlarray.asarray(a).to_device(kind)
    assert x.device.kind == kind and x.dtype == getattr(dlarray, dtype)
    back = host(x)
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_host_views_of_any_layout_move_to_the_kind(kind, layout):
    """A strided host view arrives C-contiguous on the kind, with its values."""
    a = sample()
    x = LAYOUTS[layout](dlarray.asarray(a)).to_device(kind)
    assert x.device.kind == kind and x._is_c_contiguous()
    np.testing.assert_array_equal(host(x), LAYOUTS[layout](a))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_views_of_cuda_memory_of_any_layout_come_back(kind, layout):
    """A strided view of memory on the kind (negative strides too) copies to the host."""
    a = sample("int32")
    x = LAYOUTS[layout](dlarray.asarray(a, device=kind))
    np.testing.assert_array_equal(host(x), LAYOUTS[layout](a))


@pytest.mark.parametrize(("source", "target"), list(itertools.permutations(KINDS, 2)))
def test_strided_copies_between_kinds(source, target):
    """A reversed, transposed view moves from one CUDA kind to another."""
    a = sample("float64")
    x = dlarray.asarray(a, device=source)[::-1].T
    y = x.to_device(target)
    assert y.device.kind == target and pointer(y) != pointer(x)
    np.testing.assert_array_equal(host(y), a[::-1].T)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("route", ["to_device", "asarray", "from_dlpack"])
def test_every_route_to_the_kind_copies_numpy_data(kind, route):
    """to_device, asarray(device=) and from_dlpack(device=) all copy NumPy data to the kind."""
    a = sample("int16")
    if route == "to_device":
        x = dlarray.asarray(a).to_device(kind)
    elif route == "asarray":
        x = dlarray.asarray(a, device=kind)
    else:
        x = dlarray.from_dlpack(a, device=kind)
    assert x.device == dlarray.Device(kind, 0)
    assert pointer(x) != a.ctypes.data
    np.testing.assert_array_equal(host(x), a)


@pytest.mark.parametrize("kind", KINDS)
def test_from_dlpack_asks_a_dlarray_producer_to_copy(kind):
    """from_dlpack(host dlarray, device=kind) is the producer's own copy (IS_COPIED)."""
    a = sample("float32")
    x = dlarray.from_dlpack(dlarray.asarray(a), device=kind)
    assert x.device == dlarray.Device(kind, 0)
    assert x._owner.flags & _core.FLAG_IS_COPIED
    np.testing.assert_array_equal(host(x), a)


@pytest.mark.parametrize("kind", KINDS)
def test_export_to_the_host_is_a_flagged_copy(kind):
    """__dlpack__(dl_device=(1, 0), copy=True) hands NumPy a host copy marked IS_COPIED."""
    a = sample("float64")
    x = LAYOUTS["transposed"](dlarray.asarray(a, device=kind))

    def export():
        return Capsule(x.__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=True))

    np.testing.assert_array_equal(np.from_dlpack(export()), a.T)
    y = dlarray.from_dlpack(export())
    assert y.device == dlarray.Device("cpu")
    assert y._owner.flags & _core.FLAG_IS_COPIED
    assert pointer(y) != pointer(x)
    np.testing.assert_array_equal(np.from_dlpack(y), a.T)


@pytest.mark.parametrize("copy", [None, True])
@pytest.mark.parametrize("kind", ["cuda", "cuda_managed"])
def test_host_array_exported_to_a_gpu_is_a_flagged_copy(kind, copy):
    """A host array's __dlpack__(dl_device=(2, 0) or (13, 0)) is a copy in that
    memory, marked IS_COPIED (without a GPU it is a BufferError:
    tests/protocols/test_dlpack_export.py)."""
    a = sample("float32")
    x = LAYOUTS["negative-inner"](dlarray.asarray(a))
    dl_device = (DLPACK_TYPES[kind], 0)
    exported = x.__dlpack__(max_version=(1, 3), dl_device=dl_device, copy=copy)
    capsule = Capsule(exported, device=dl_device)
    y = dlarray.from_dlpack(capsule)
    assert y.__dlpack_device__() == dl_device
    assert y._owner.flags & _core.FLAG_IS_COPIED
    np.testing.assert_array_equal(host(y), LAYOUTS["negative-inner"](a))


@pytest.mark.parametrize("kind", KINDS)
def test_export_to_the_host_without_a_copy_is_refused(kind):
    """__dlpack__(dl_device=(1, 0), copy=False) of CUDA memory raises BufferError."""
    x = dlarray.zeros(3, device=kind)
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=False)


# ---- zero-copy exchange ----


def test_torch_imports_dlarray_memory_in_place(torch):
    """torch.from_dlpack shares a dlarray GPU array's memory, strided views included."""
    x = dlarray.asarray(sample("float32"), device="cuda")
    t = torch.from_dlpack(x)
    assert t.device == torch.device("cuda", 0)
    assert t.data_ptr() == pointer(x)
    np.testing.assert_array_equal(t.cpu().numpy(), sample("float32"))
    view = x[1:, ::2].T
    tv = torch.from_dlpack(view)
    assert tv.data_ptr() == pointer(view)
    assert tv.stride() == view._strides  # both count elements
    np.testing.assert_array_equal(tv.cpu().numpy(), sample("float32")[1:, ::2].T)


def test_writes_through_torch_are_seen_by_dlarray(torch):
    """A torch kernel writing into dlarray's memory changes what dlarray reads."""
    x = dlarray.zeros(4, dtype=dlarray.float32, device="cuda")
    t = torch.from_dlpack(x)
    t += 5
    assert host(x).tolist() == [5.0] * 4


def test_dlarray_imports_a_torch_tensor_in_place(torch):
    """dlarray.from_dlpack of a torch CUDA tensor shares its memory."""
    t = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
    x = dlarray.from_dlpack(t)
    assert x.device == GPU0 and x.shape == (3, 4)
    assert pointer(x) == t.data_ptr()
    np.testing.assert_array_equal(host(x), np.arange(12.0).reshape(3, 4))
    t.mul_(2)
    np.testing.assert_array_equal(host(x), 2 * np.arange(12.0).reshape(3, 4))


def test_cupy_imports_dlarray_memory_in_place(cupy):
    """cupy.from_dlpack shares a dlarray GPU array's memory."""
    a = sample("float32")
    x = dlarray.asarray(a, device="cuda")
    c = cupy.from_dlpack(x)
    assert c.data.ptr == pointer(x)
    np.testing.assert_array_equal(cupy.asnumpy(c), a)
    c[0] = -1
    np.testing.assert_array_equal(host(x)[0], np.full((5, 6), -1, np.float32))


def test_dlarray_imports_a_cupy_array_in_place(cupy):
    """dlarray.from_dlpack of a CuPy array shares its memory."""
    c = cupy.arange(10, dtype=cupy.int64)[::2]
    x = dlarray.from_dlpack(c)
    assert x.device == GPU0 and pointer(x) == c.data.ptr
    assert host(x).tolist() == [0, 2, 4, 6, 8]


@pytest.mark.parametrize("importer", ["jax.dlpack", "jax.numpy"])
def test_jax_imports_dlarray_memory_in_place(jax_gpu, importer):
    """JAX on the GPU imports a dlarray array without copying it."""
    jax, gpu = jax_gpu
    from_dlpack = jax.dlpack.from_dlpack if importer == "jax.dlpack" else jax.numpy.from_dlpack
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = dlarray.asarray(a, device="cuda")
    j = from_dlpack(x)
    assert j.devices() == {gpu}
    assert j.unsafe_buffer_pointer() == pointer(x)
    np.testing.assert_array_equal(np.asarray(j), a)


def test_dlarray_imports_a_jax_array_in_place(jax_gpu):
    """dlarray.from_dlpack of a JAX GPU array shares its buffer."""
    jax, gpu = jax_gpu
    j = jax.device_put(np.arange(6, dtype=np.float32).reshape(2, 3), gpu)
    x = dlarray.from_dlpack(j)
    assert x.device == GPU0
    assert pointer(x) == j.unsafe_buffer_pointer()
    np.testing.assert_array_equal(host(x), np.arange(6.0).reshape(2, 3))


# ---- streams ----


def test_export_orders_the_consumer_stream_after_dlarray_work(cupy, torch):
    """A consumer stream named in __dlpack__ waits for dlarray's work (CuPy's current stream)."""
    consumer = torch.cuda.Stream()
    with cupy.cuda.Stream(non_blocking=True):
        x = dlarray.zeros(4096, dtype=dlarray.float32, device="cuda")
        spin_fill(cupy, cupy.from_dlpack(x), 7.0)  # ~0.1 s, then x = 7
        y = x * 2  # computed by dlarray (CuPy) on the same stream
        capsule = y.__dlpack__(stream=consumer.cuda_stream)
    t = torch.from_dlpack(capsule)
    with torch.cuda.stream(consumer):
        seen = (t + 0).cpu()  # read on the consumer stream
    assert seen.tolist() == [14.0] * 4096


def test_torch_as_consumer_names_its_current_stream(cupy, torch):
    """torch.from_dlpack on a side stream reads dlarray's result after its work is done."""
    consumer = torch.cuda.Stream()
    with cupy.cuda.Stream(non_blocking=True):
        x = dlarray.zeros(4096, dtype=dlarray.float32, device="cuda")
        spin_fill(cupy, cupy.from_dlpack(x), 3.0)
        with torch.cuda.stream(consumer):
            # torch calls x.__dlpack__(stream=torch.cuda.current_stream().cuda_stream)
            seen = torch.from_dlpack(x).cpu()
    assert seen.tolist() == [3.0] * 4096


@pytest.mark.parametrize("cupy_imported", [False, True], ids=["no-cupy", "cupy"])
def test_import_waits_for_the_producers_stream(torch, request, monkeypatch, cupy_imported):
    """dlarray importing from a torch side stream reads the values written there,
    whether it asks with stream=None (no CuPy) or with CuPy's current stream."""
    if cupy_imported:
        request.getfixturevalue("cupy")
    else:
        monkeypatch.setitem(sys.modules, "cupy", None)  # as if CuPy were never imported
    t = torch.zeros(4096, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(SPIN_CYCLES)  # a kernel that spins, then
        t.fill_(7.0)
        x = dlarray.from_dlpack(t)  # dlarray names its work stream; torch orders it
    assert host(x).tolist() == [7.0] * 4096


def test_dlarray_copies_on_cupys_current_stream(cupy):
    """Inside a CuPy stream, dlarray's copies run on it, after the kernels queued there."""
    with cupy.cuda.Stream(non_blocking=True):
        c = cupy.zeros(4096, dtype=cupy.float32)
        spin_fill(cupy, c, 5.0)
        x = dlarray.from_dlpack(c)
        seen = host(x)
    assert seen.tolist() == [5.0] * 4096


def test_numpy_reads_managed_memory_after_a_gpu_write(cupy):
    """NumPy viewing managed memory (no stream) sees a GPU kernel's writes: dlarray waits first."""
    m = dlarray.zeros(5, dtype=dlarray.float32, device="cuda_managed")
    c = cupy.from_dlpack(m)
    assert c.data.ptr == pointer(m)
    spin_fill(cupy, c, 1.0)  # on CuPy's current stream, dlarray's work stream
    a = np.from_dlpack(m)
    assert a.ctypes.data == pointer(m)
    assert a.tolist() == [1.0] * 5


def test_stream_zero_is_refused():
    """__dlpack__(stream=0) and to_device(stream=0) raise ValueError (ambiguous for CUDA)."""
    x = dlarray.zeros(3, device="cuda")
    with pytest.raises(ValueError, match="stream=0"):
        x.__dlpack__(stream=0)
    with pytest.raises(ValueError, match="stream=0"):
        dlarray.zeros(3).to_device("cuda", stream=0)


def test_stream_minus_one_exports_without_synchronising(torch):
    """__dlpack__(stream=-1) gives a capsule of the same memory, with no ordering."""
    x = dlarray.asarray(np.ones(3, np.float32), device="cuda")
    t = torch.from_dlpack(x.__dlpack__(stream=-1))
    assert t.data_ptr() == pointer(x)
    assert t.tolist() == [1.0] * 3


def test_to_device_orders_the_copy_before_the_named_stream(torch):
    """to_device(stream=s) makes s wait for the copy; reading on s sees the data."""
    a = np.arange(1 << 20, dtype=np.float32)
    consumer = torch.cuda.Stream()
    x = dlarray.asarray(a).to_device("cuda", stream=consumer.cuda_stream)
    t = torch.from_dlpack(x.__dlpack__(stream=-1))  # no further ordering
    with torch.cuda.stream(consumer):
        total = float(t.double().sum())
    assert total == float(a.astype(np.float64).sum())


# ---- compute through CuPy ----


def test_arithmetic_and_reductions_run_on_the_gpu(cupy):
    """x + 1 and sum(x) on a GPU array compute there and stay there."""
    x = dlarray.ones(4, device="cuda")
    y = x + 1
    assert y.device == GPU0
    assert host(y).tolist() == [2.0] * 4
    s = dlarray.sum(y)
    assert s.device == GPU0 and s.shape == ()
    assert host(s) == 8.0


def test_matmul_runs_on_the_gpu(cupy):
    """matmul of GPU arrays matches NumPy and stays on the GPU."""
    a = np.arange(6.0).reshape(2, 3)
    b = np.arange(12.0).reshape(3, 4)
    z = dlarray.matmul(dlarray.asarray(a, device="cuda"), dlarray.asarray(b, device="cuda"))
    assert z.device == GPU0
    np.testing.assert_allclose(host(z), a @ b)


# ---- compute through CuPy: the functions issue 19 found broken on CUDA ----
#
# Each case runs the same dlarray call on host arrays and on their copies on
# GPU 0: the GPU's results must stay there and match the host's (NumPy's).

_INF, _NAN = float("inf"), float("nan")
VALUES = np.array([3.0, -1.5, 2.0, 0.5, -4.0, 1.0])  # distinct: sorts are unambiguous
SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
RANK_2 = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], [0.0, 1.0, 0.0, 1.0]])
INTS = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], dtype=np.int64)
SORTED = np.array([0.5, 1.0, 1.5, 2.0])
# The special values where NumPy's complex expm1 and tanh depart from the standard.
COMPLEX_SPECIALS = np.array(
    [complex(_INF, 1), complex(-_INF, 1), complex(_INF, -1), complex(-_INF, -2),
     complex(_NAN, _INF), complex(_INF, _NAN), 0j, complex(-0.0, -0.0), 1 + 2j, -0.5 - 0.25j]
)  # fmt: skip

d = dlarray
COMPUTE_CASES: dict[str, tuple[Any, list[np.ndarray]]] = {
    "sum": (lambda x: d.sum(x), [VALUES]),
    "sum[keepdims]": (lambda x: d.sum(x, keepdims=True), [SPD]),
    "prod": (lambda x: d.prod(x), [VALUES]),
    "max": (lambda x: d.max(x), [VALUES]),
    "max[axis]": (lambda x: d.max(x, axis=1, keepdims=True), [SPD]),
    "min": (lambda x: d.min(x, axis=0), [SPD]),
    "cumulative_sum": (lambda x: d.cumulative_sum(x, axis=1), [SPD]),
    "cumulative_sum[include_initial]": (
        lambda x: d.cumulative_sum(x, include_initial=True),
        [INTS],
    ),
    "cumulative_prod": (lambda x: d.cumulative_prod(x), [VALUES]),
    "mean[complex]": (lambda x: d.mean(x), [VALUES + 1j * VALUES[::-1]]),
    "count_nonzero[keepdims]": (lambda x: d.count_nonzero(x, axis=1, keepdims=True), [RANK_2]),
    "nonzero": (lambda x: d.nonzero(x), [RANK_2]),
    "searchsorted": (lambda s, v: d.searchsorted(s, v, side="right"), [SORTED, VALUES]),
    "searchsorted[scalar]": (lambda s: d.searchsorted(s, 1.25), [SORTED]),
    "sort[descending]": (lambda x: d.sort(x, descending=True), [VALUES]),
    "sort[unstable]": (lambda x: d.sort(x, axis=0, stable=False), [SPD]),
    "argsort[descending]": (lambda x: d.argsort(x, descending=True), [VALUES]),
    "unique_values": (lambda x: d.unique_values(x), [INTS]),
    "unique_counts": (lambda x: d.unique_counts(x), [INTS]),
    "unique_inverse": (lambda x: d.unique_inverse(x), [INTS]),
    "unique_all": (lambda x: d.unique_all(x), [INTS]),
    "isin": (lambda x, y: d.isin(x, y), [INTS, INTS[:3]]),
    "isin[out-of-range int]": (lambda x: d.isin(x, 1000), [INTS.astype(np.int8)]),
    "expm1[complex specials]": (lambda z: d.expm1(z), [COMPLEX_SPECIALS]),
    "tanh[complex specials]": (lambda z: d.tanh(z), [COMPLEX_SPECIALS]),
    "clip[None, None]": (lambda x: d.clip(x), [VALUES]),
    "clip": (lambda x: d.clip(x, -1.0, 2.0), [VALUES]),
    "take": (lambda x, i: d.take(x, i, axis=0), [VALUES, np.array([5, 0, -1])]),
    "take_along_axis": (
        lambda x, i: d.take_along_axis(x, i, axis=1),
        [SPD, np.array([[2], [0], [1]])],
    ),
    "meshgrid": (lambda x, y: d.meshgrid(x, y, indexing="ij"), [VALUES, SORTED]),
    "vecdot": (lambda x, y: d.vecdot(x, y), [SPD, SPD[::-1]]),
    "matmul": (lambda x, y: d.matmul(x, y), [SPD, RANK_2]),
    "linalg.svdvals": (lambda x: d.linalg.svdvals(x), [RANK_2]),
    "linalg.matrix_rank": (lambda x: d.linalg.matrix_rank(x), [RANK_2]),
    "linalg.pinv": (lambda x: d.linalg.pinv(x), [RANK_2]),
    "linalg.inv": (lambda x: d.linalg.inv(x), [SPD]),
    "linalg.solve": (lambda a, b: d.linalg.solve(a, b), [SPD, VALUES[:3]]),
    "linalg.cholesky": (lambda x: d.linalg.cholesky(x), [SPD]),
    "linalg.matrix_norm[keepdims]": (lambda x: d.linalg.matrix_norm(x, keepdims=True), [SPD]),
    **{
        f"linalg.matrix_norm[{o}]": (lambda x, o=o: d.linalg.matrix_norm(x, ord=o), [RANK_2])
        for o in (1, -1, 2, -2, _INF, -_INF)
    },
    **{
        f"linalg.vector_norm[{o}]": (lambda x, o=o: d.linalg.vector_norm(x, ord=o), [VALUES])
        for o in (_INF, -_INF)
    },
}


def _arrays(value: Any) -> list[Any]:
    """The arrays of a result: itself, or those of a tuple (namedtuples too)."""
    return [value] if isinstance(value, dlarray.DLArray) else [a for v in value for a in _arrays(v)]


def _same_values(on_gpu: Any, on_host: Any, where: str) -> None:
    assert on_gpu.device == GPU0, f"{where}: on {on_gpu.device}, not on the GPU"
    assert (on_gpu.shape, on_gpu.dtype) == (on_host.shape, on_host.dtype), where
    got, expected = host(on_gpu), np.from_dlpack(on_host)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12, err_msg=where)
        for part in (np.real, np.imag):  # signed zeros (assert_allclose equates them)
            zeros = part(expected) == 0
            signs = np.signbit(part(got)[zeros]), np.signbit(part(expected)[zeros])
            np.testing.assert_array_equal(*signs, err_msg=f"{where}: signs of zeros")
    else:
        np.testing.assert_array_equal(got, expected, err_msg=where)


@pytest.mark.parametrize("case", list(COMPUTE_CASES))
def test_computes_on_the_gpu_as_on_the_host(cupy, case):
    """The functions dlarray computed wrongly or not at all on CUDA match the host's results."""
    call, inputs = COMPUTE_CASES[case]
    on_host = call(*(dlarray.asarray(a) for a in inputs))
    on_gpu = call(*(dlarray.asarray(a, device="cuda") for a in inputs))
    gpu_arrays, host_arrays = _arrays(on_gpu), _arrays(on_host)
    assert len(gpu_arrays) == len(host_arrays)
    for i, (g, h) in enumerate(zip(gpu_arrays, host_arrays, strict=True)):
        _same_values(g, h, f"{case}, result {i}")


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda device: d.arange(2, 11, 3, device=device), [2, 5, 8]),
        (lambda device: d.arange(0.0, 1.0, 0.25, device=device), [0.0, 0.25, 0.5, 0.75]),
        (lambda device: d.linspace(0.0, 1.0, 5, device=device), [0.0, 0.25, 0.5, 0.75, 1.0]),
        (lambda device: d.linspace(0, 1, 4, endpoint=False, device=device), [0, 0.25, 0.5, 0.75]),
        (lambda device: d.eye(2, device=device), [[1.0, 0.0], [0.0, 1.0]]),
        (lambda device: d.full(3, 2.5, device=device), [2.5, 2.5, 2.5]),
    ],
    ids=["arange", "arange[float]", "linspace", "linspace[no endpoint]", "eye", "full"],
)
def test_creation_on_the_gpu(cupy, make, expected):
    """Creation functions with device='cuda' make their values there."""
    x = make(GPU0)
    assert x.device == GPU0
    np.testing.assert_allclose(host(x), expected)


@pytest.mark.parametrize(
    "index",
    [
        lambda x: d.take(x, d.asarray([0, 4], device="cuda"), axis=0),
        lambda x: d.take(x, d.asarray([-5], device="cuda"), axis=0),
        lambda x: d.take_along_axis(x, d.asarray([7], device="cuda"), axis=0),
        lambda x: x[d.asarray([1, 4], device="cuda")],
    ],
    ids=["take", "take[negative]", "take_along_axis", "__getitem__"],
)
def test_out_of_range_indices_raise_index_error_on_the_gpu(cupy, index):
    """CuPy wraps out-of-range indices; dlarray raises IndexError, as on the host."""
    x = dlarray.asarray([1.0, 2.0, 3.0, 4.0], device="cuda")
    with pytest.raises(IndexError):
        index(x)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda a: d.linalg.inv(a), "ingular"),
        (lambda a: d.linalg.inv(d.stack([a, a])), "ingular"),  # CuPy's batched path
        (lambda a: d.linalg.solve(a, d.ones(2, device="cuda")), "ingular"),
        (lambda a: d.linalg.cholesky(a - 3 * d.eye(2, device="cuda")), "positive definite"),
    ],
    ids=["inv", "inv[batched]", "solve", "cholesky"],
)
def test_singular_input_raises_value_error_on_the_gpu(cupy, call, words):
    """CuPy returns NaN for a singular matrix; dlarray raises ValueError, as on the host."""
    a = dlarray.asarray([[1.0, 2.0], [2.0, 4.0]], device="cuda")
    with pytest.raises(ValueError, match=words):
        call(a)


@pytest.mark.parametrize("kind", ["cuda_managed", "cuda_host"])
def test_managed_and_pinned_memory_compute_in_their_kind(cupy, kind):
    """Managed and pinned arrays compute, and their results stay on the same memory kind."""
    x = dlarray.asarray(VALUES, device=kind)
    for result, expected in [
        (d.sin(x), np.sin(VALUES)),
        (x * 2 + 1, VALUES * 2 + 1),
        (d.sum(x), np.sum(VALUES)),
        (d.sort(x), np.sort(VALUES)),
    ]:
        assert result.device == dlarray.Device(kind, 0)
        np.testing.assert_allclose(host(result), expected)


# ---- several GPUs ----


def test_allocates_on_the_second_gpu(two_gpus):
    """Device('cuda', 1) memory is device (2, 1), and the current GPU stays 0."""
    rt = cuda_runtime.runtime()
    before = rt.current_device()
    x = dlarray.asarray(np.arange(3.0), device=dlarray.Device("cuda", 1))
    assert x.__dlpack_device__() == (2, 1)
    assert rt.current_device() == before
    assert host(x).tolist() == [0.0, 1.0, 2.0]


def test_torch_tensor_on_the_second_gpu_keeps_its_id(two_gpus, torch):
    """Importing a cuda:1 tensor while GPU 0 is current gives Device('cuda', 1)."""
    t = torch.arange(4, dtype=torch.float32, device="cuda:1")
    assert torch.cuda.current_device() == 0
    x = dlarray.from_dlpack(t)
    assert x.device == dlarray.Device("cuda", 1)
    assert x.__dlpack_device__() == (2, 1) and pointer(x) == t.data_ptr()
    assert host(x).tolist() == [0.0, 1.0, 2.0, 3.0]
    back = torch.from_dlpack(x)
    assert back.device == torch.device("cuda", 1) and back.data_ptr() == t.data_ptr()


def test_compute_on_the_second_gpu_stays_there(two_gpus, cupy):
    """Every kind of computation on cuda:1 runs there and returns cuda:1 arrays;
    CuPy's current device stays GPU 0."""
    gpu1 = dlarray.Device("cuda", 1)
    x = dlarray.asarray(SPD, device=gpu1)
    assert cupy.cuda.runtime.getDevice() == 0
    results = {
        "x * 2 + 1": (x * 2 + 1, SPD * 2 + 1),
        "sum": (d.sum(x), np.sum(SPD)),
        "max": (d.max(x, axis=0), np.max(SPD, axis=0)),
        "matmul": (x @ x, SPD @ SPD),
        "sort": (d.sort(x, descending=True), -np.sort(-SPD)),
        "linalg.inv": (d.linalg.inv(x), np.linalg.inv(SPD)),
        "fft.fft": (d.fft.fft(x), np.fft.fft(SPD)),
        "arange": (d.arange(3, device=gpu1), np.arange(3)),
        "linspace": (d.linspace(0.0, 1.0, 3, device=gpu1), np.linspace(0.0, 1.0, 3)),
        "zeros_like": (d.zeros_like(x), np.zeros_like(SPD)),
        "x + 1.5": (x + 1.5, SPD + 1.5),
    }
    for name, (result, expected) in results.items():
        assert result.device == gpu1, f"{name} returned an array on {result.device}"
        np.testing.assert_allclose(host(result), expected, rtol=1e-9, err_msg=name)
    assert cupy.cuda.runtime.getDevice() == 0


def test_compute_on_gpu_0_while_cupy_is_on_gpu_1(two_gpus, cupy):
    """CuPy's current device does not decide where dlarray computes."""
    x = dlarray.asarray(VALUES, device="cuda")
    with cupy.cuda.Device(1):
        y = d.sum(x * 2)
        z = d.cumulative_sum(x)
        assert cupy.cuda.runtime.getDevice() == 1
    assert (y.device, z.device) == (GPU0, GPU0)
    assert host(y) == pytest.approx(2 * VALUES.sum())
    np.testing.assert_allclose(host(z), np.cumsum(VALUES))


# ---- stream ordering across streams and GPUs (issue 19; docs/cuda.md) ----


def test_compute_on_another_stream_waits_for_dlarrays_earlier_work(cupy):
    """Work dlarray queued on one stream (a spin, then the fill) is ordered
    before a computation made later on another stream (CuPy's current one)."""
    first = cupy.cuda.Stream(non_blocking=True)
    with first:
        x = dlarray.zeros(4096, dtype=dlarray.float32, device="cuda")
        spin_fill(cupy, cupy.from_dlpack(x), 4.0)  # ~0.1 s on `first`, then x = 4
    with cupy.cuda.Stream(non_blocking=True):
        y = d.sum(x)  # on the second stream, queued at once
        seen = host(y)
    assert float(seen) == 4.0 * 4096


def test_a_copy_to_the_second_gpu_waits_for_the_first_gpus_work(two_gpus, cupy):
    """A cuda:0 -> cuda:1 copy reads x after GPU 0's pending work is done."""
    with cupy.cuda.Stream(non_blocking=True):
        x = dlarray.zeros(4096, dtype=dlarray.float32, device="cuda")
        spin_fill(cupy, cupy.from_dlpack(x), 9.0)
    y = x.to_device(dlarray.Device("cuda", 1))
    assert host(y).tolist() == [9.0] * 4096
