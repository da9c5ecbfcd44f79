"""dlarray's C API (dlarray_capi.h) as an extension author uses it.

The example extension, ``examples/c_extension/dlarray_ext_demo.c``, is
compiled once for this module with the C compiler Python was built with, and
handed every kind of producer: DLArray (own fields), torch.Tensor (an
exchange table), NumPy (``__dlpack__``, versioned capsules), JAX (legacy
capsules only) and a ctypes producer (tests/abi.py) for what no library
makes here: NULL strides, a byte offset, a CUDA device, vector dtypes.

The values are powers of two, so that every subset of the elements has its
own sum: a total that read one wrong element cannot come out right.
Reference results come from NumPy applying the same indexing.
"""

from __future__ import annotations

import gc
import importlib.util
import pathlib
import runpy
import sys
from collections.abc import Callable
from typing import Any

import abi
import numpy as np
import pytest

import dlarray

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "c_extension"
HOWS = ("borrow", "managed", "dltensor", "capsule")
REPEATS = 500  # calls between two reference counts


def load_build_script() -> Any:
    spec = importlib.util.spec_from_file_location("dlarray_ext_build", EXAMPLE / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = load_build_script()


@pytest.fixture(scope="module")
def ext(tmp_path_factory: pytest.TempPathFactory) -> Any:
    reason = BUILD.compiler_available()
    if reason is not None:
        pytest.skip(f"the C extension cannot be built: {reason}")
    return BUILD.build(tmp_path_factory.mktemp("dlarray_ext_demo"))


@pytest.fixture(scope="module")
def torch() -> Any:
    return pytest.importorskip("torch", reason="torch is not installed")


@pytest.fixture(scope="module")
def jnp() -> Any:
    return pytest.importorskip("jax.numpy", reason="jax is not installed")


def on_jax_cpu(x: Any) -> Any:
    """``x`` on JAX's CPU device.  Where JAX sees a GPU its arrays go there by
    default, and the extension's total() reads host memory only."""
    import jax

    return jax.device_put(x, jax.devices("cpu")[0])


def powers_of_two(dtype: str) -> np.ndarray:
    """A 4x6 matrix of 2**0 .. 2**23: exact in every dtype used here."""
    return (2 ** np.arange(24)).reshape(4, 6).astype(dtype)


# Layouts every producer here can make, applied alike to NumPy and to the
# producer's array.
LAYOUTS: dict[str, Callable[[Any], Any]] = {
    "contiguous": lambda v: v,
    "sliced": lambda v: v[1:, ::2],
    "transposed": lambda v: v.T,
    "0-d": lambda v: v[1, 2, ...],  # NumPy: v[1, 2] would be a scalar
    "zero-size": lambda v: v[2:2],
}
NEGATIVE_STRIDES: dict[str, Callable[[Any], Any]] = {
    "reversed-rows": lambda v: v[::-1],
    "reversed-both": lambda v: v[::-1, ::-2],
}
DTYPES = ("float32", "float64", "int32", "int64")


def refcount_after(calls: Callable[[], object], source: object) -> tuple[int, int]:
    """The reference count of ``source`` before and after REPEATS calls."""
    gc.collect()
    before = sys.getrefcount(source)
    for _ in range(REPEATS):
        calls()
    gc.collect()
    return before, sys.getrefcount(source)


def header_version(owner: type) -> tuple[int, int]:
    """(major, minor) read straight from a type's exchange-table capsule."""
    address = abi.PyCapsule_GetPointer(owner.__dlpack_c_exchange_api__, b"dlpack_exchange_api")
    version = abi.DLPackVersion.from_address(address)
    return version.major, version.minor


def address_of(x: dlarray.DLArray) -> int:
    return x._data + x._byte_offset


class RecordingProducer:
    """Passes a NumPy array's DLPack calls through, keeping every capsule."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.capsules: list[Any] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()

    def __dlpack__(self, **kwargs: Any) -> Any:
        capsule = self.array.__dlpack__(**kwargs)
        self.capsules.append(capsule)
        return capsule


# ---- the build ----


def test_build_script_runs_as_an_example(capsys):
    # tests/package/test_examples.py runs examples/*.py only, not this subfolder.
    runpy.run_path(str(EXAMPLE / "build.py"), run_name="__main__")
    out = capsys.readouterr().out
    reason = BUILD.compiler_available()
    assert ("built " in out) if reason is None else (reason in out)


def test_a_compile_error_is_reported_with_the_compiler_output(ext, tmp_path, monkeypatch):
    broken = tmp_path / "broken.c"
    broken.write_text("int broken(void) { return undeclared_name_42; }\n")
    monkeypatch.setattr(BUILD, "SOURCE", broken)
    with pytest.raises(RuntimeError, match="undeclared_name_42") as info:
        BUILD.build(tmp_path / "out")
    assert str(broken) in str(info.value)  # the command is shown too


def test_a_missing_compiler_is_named(monkeypatch):
    real_config = BUILD._config
    monkeypatch.setattr(
        BUILD, "_config", lambda name: ["no-such-cc-7"] if name == "CC" else real_config(name)
    )
    reason = BUILD.compiler_available.__wrapped__()  # past the cache
    assert reason is not None and "no-such-cc-7" in reason


def test_the_module_documents_itself(ext):
    for name in ("total", "scale_", "table_version", "time_exchanges", "to_dlarray"):
        assert getattr(ext, name).__doc__.startswith(name + "(")


# ---- total() ----


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", {**LAYOUTS, **NEGATIVE_STRIDES}.items(), ids=lambda i: i[0])
def test_total_of_dlarray_layouts(ext, dtype, layout):
    _, view = layout
    a = powers_of_two(dtype)
    x = dlarray.asarray(a, copy=True)
    assert ext.total(view(x)) == float(view(a).sum())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", {**LAYOUTS, **NEGATIVE_STRIDES}.items(), ids=lambda i: i[0])
def test_total_of_numpy_layouts(ext, dtype, layout):
    _, view = layout
    a = powers_of_two(dtype)
    assert ext.total(view(a)) == float(view(a).sum())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS.items(), ids=lambda i: i[0])
def test_total_of_torch_layouts(ext, torch, dtype, layout):
    _, view = layout
    a = powers_of_two(dtype)
    assert ext.total(view(torch.from_numpy(a.copy()))) == float(view(a).sum())


def test_total_of_many_dimensions(ext):
    # Past the eight dimensions the walk keeps on the stack.
    a = np.arange(2**10, dtype=np.float64).reshape((2,) * 10)[..., ::-1].transpose()
    assert ext.total(a) == ext.total(dlarray.asarray(a)) == float(a.sum())
    assert ext.total(a[..., :1, :]) == float(a[..., :1, :].sum())


def test_total_of_a_jax_array(ext, jnp):
    a = powers_of_two("float32")
    assert ext.total(on_jax_cpu(jnp.asarray(a))) == float(a.sum())


def test_total_of_a_read_only_array(ext):
    a = powers_of_two("float64")
    a.flags.writeable = False
    x = dlarray.from_dlpack(a)
    assert x.readonly
    assert ext.total(x) == ext.total(a) == float(a.sum())


def test_null_strides_mean_c_contiguous(ext):
    a = powers_of_two("float64")
    producer = abi.Producer(shape=a.shape, strides=None, dtype=(2, 64, 1), payload=a.tobytes())
    assert ext.total(producer) == float(a.sum())
    assert len(producer.deleter_calls) == 1


def test_byte_offset_is_honoured(ext):
    a = powers_of_two("int64").ravel()
    producer = abi.Producer(shape=(20,), dtype=(0, 64, 1), byte_offset=4 * 8, payload=a.tobytes())
    assert ext.total(producer) == float(a[4:].sum())


def test_a_legacy_capsule_is_read_and_released(ext):
    a = powers_of_two("float32")
    producer = abi.Producer(versioned=False, shape=a.shape, payload=a.tobytes())
    assert ext.total(producer) == float(a.sum())
    assert producer.deleter_calls == producer.capsule_addresses  # each deleted once


def test_total_refuses_memory_off_the_host_naming_the_device(ext):
    producer = abi.Producer(device=(abi.kDLCUDA, 0))
    with pytest.raises(BufferError, match=r"kDLCUDA:0"):
        ext.total(producer)
    assert len(producer.deleter_calls) == 1  # released before raising


@pytest.mark.parametrize(
    "malformed", [{"ndim": -1}, {"null_shape": True}], ids=["negative-ndim", "null-shape"]
)
def test_a_malformed_tensor_is_refused_and_released(ext, malformed):
    # borrow() itself refuses it (before the extension's own check runs).
    producer = abi.Producer(shape=(4,), **malformed)
    with pytest.raises(BufferError, match="the producer is broken"):
        ext.total(producer)
    assert len(producer.deleter_calls) == 1


@pytest.mark.parametrize("name", ["int8", "uint8", "float16", "bfloat16", "bool", "complex64"])
def test_total_refuses_other_dtypes_naming_code_bits_lanes(ext, name):
    dtype = getattr(dlarray, name)
    x = dlarray.zeros((3,), dtype=dtype)
    expected = f"(code={dtype.code}, bits={dtype.bits}, lanes={dtype.lanes})"
    with pytest.raises(BufferError) as info:
        ext.total(x)
    assert expected in str(info.value)


def test_total_refuses_vector_dtypes(ext):
    # deleter=False: see test_release_keeps_the_pending_exception.
    producer = abi.Producer(dtype=(2, 32, 2), deleter=False)
    with pytest.raises(BufferError, match=r"\(code=2, bits=32, lanes=2\)"):
        ext.total(producer)


def test_release_keeps_the_pending_exception(ext):
    # The extension sets BufferError (a vector dtype), then calls release(),
    # which calls the producer's deleter: the usual order for a C caller.
    producer = abi.Producer(dtype=(2, 32, 2))
    with pytest.raises(BufferError, match="lanes=2"):
        ext.total(producer)
    assert len(producer.deleter_calls) == 1


# ---- scale_() ----


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scale_changes_exactly_the_viewed_elements(ext, dtype):
    a = powers_of_two(dtype)
    expected = a.copy()
    expected[::-1, 1::2] *= 3
    x = dlarray.asarray(a, copy=True)
    assert ext.scale_(x[::-1, 1::2], 3.0) is None
    np.testing.assert_array_equal(np.from_dlpack(x), expected)
    ext.scale_(a[::-1, 1::2], 3.0)
    np.testing.assert_array_equal(a, expected)


def test_scale_writes_into_a_torch_tensor(ext, torch):
    a = powers_of_two("float32")
    t = torch.from_numpy(a.copy())
    ext.scale_(t.T[1:], 0.5)
    expected = a.copy()
    expected.T[1:] *= 0.5
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize("library", ["dlarray", "numpy"])
def test_scale_refuses_read_only_memory(ext, library):
    a = powers_of_two("float64")
    a.flags.writeable = False
    target = dlarray.from_dlpack(a) if library == "dlarray" else a
    with pytest.raises(ValueError, match="READ_ONLY"):
        ext.scale_(target, 2.0)
    np.testing.assert_array_equal(a, powers_of_two("float64"))


def test_scale_refuses_integer_tensors(ext):
    x = dlarray.asarray(powers_of_two("int32"), copy=True)
    with pytest.raises(BufferError, match=r"\(code=0, bits=32, lanes=1\)"):
        ext.scale_(x, 2.0)


def test_scale_refuses_a_view_repeating_elements(ext):
    producer = abi.Producer(shape=(3,), strides=(0,), dtype=(2, 32, 1), deleter=False)
    with pytest.raises(ValueError, match="stride of 0"):
        ext.scale_(producer, 2.0)


def test_scale_of_a_zero_size_array_does_nothing(ext):
    ext.scale_(dlarray.zeros((0, 3)), 2.0)


# ---- table_version() ----


def test_table_version_of_dlarray_is_its_table(ext):
    x = dlarray.zeros(2)
    assert ext.table_version(x) == header_version(dlarray.DLArray) == dlarray.__dlpack_version__


def test_table_version_of_torch_is_its_table(ext, torch):
    assert ext.table_version(torch.zeros(2)) == header_version(torch.Tensor)


def test_producers_without_a_table(ext):
    assert ext.table_version(np.zeros(2)) is None
    assert ext.table_version(object()) is None


def test_jax_has_no_table(ext, jnp):
    assert ext.table_version(on_jax_cpu(jnp.zeros(2))) is None


# ---- to_dlarray() ----


def test_to_dlarray_of_a_dlarray_shares_memory_and_holds_a_reference(ext):
    x = dlarray.asarray(powers_of_two("float64"), copy=True)[1:, ::2]
    gc.collect()
    before = sys.getrefcount(x)
    y = ext.to_dlarray(x)
    assert type(y) is dlarray.DLArray and y is not x
    assert address_of(y) == address_of(x) and y.shape == x.shape
    assert sys.getrefcount(x) == before + 1  # the managed tensor's reference
    del y
    gc.collect()
    assert sys.getrefcount(x) == before  # its deleter ran


def test_to_dlarray_keeps_read_only(ext):
    a = powers_of_two("float64")
    a.flags.writeable = False
    assert ext.to_dlarray(dlarray.from_dlpack(a)).readonly
    assert ext.to_dlarray(a).readonly


def test_to_dlarray_of_numpy_shares_memory(ext):
    a = powers_of_two("float32")
    y = ext.to_dlarray(a[1:])
    assert address_of(y) == a[1:].ctypes.data
    np.testing.assert_array_equal(np.from_dlpack(y), a[1:])


def test_to_dlarray_of_torch_shares_memory(ext, torch):
    a = powers_of_two("float32")
    t = torch.from_numpy(a)
    assert address_of(ext.to_dlarray(t)) == t.data_ptr()
    np.testing.assert_array_equal(np.from_dlpack(ext.to_dlarray(t.T)), a.T)


def test_to_dlarray_refuses_a_legacy_only_producer(ext, jnp):
    with pytest.raises(BufferError, match="legacy"):
        ext.to_dlarray(jnp.zeros(2))


# ---- time_exchanges() ----


def test_time_exchanges_of_a_dlarray(ext):
    x = dlarray.zeros((2, 3))
    for how in HOWS:
        assert ext.time_exchanges(x, 100, how) > 0


def test_time_exchanges_of_a_read_only_dlarray(ext):
    a = np.zeros(3)
    a.flags.writeable = False
    x = dlarray.from_dlpack(a)
    assert ext.time_exchanges(x, 10, "managed") > 0
    # A bare DLTensor cannot say read-only, so dlarray's table refuses.
    with pytest.raises(BufferError, match="read-only"):
        ext.time_exchanges(x, 10, "dltensor")


def test_time_exchanges_of_torch_uses_its_table(ext, torch):
    t = torch.zeros(2, 3)
    for how in HOWS:
        assert ext.time_exchanges(t, 100, how) > 0


@pytest.mark.parametrize("how", ["managed", "dltensor"])
def test_time_exchanges_needs_a_table_for_table_functions(ext, how):
    with pytest.raises(BufferError, match=r"numpy\.ndarray has no DLPack C exchange table"):
        ext.time_exchanges(np.zeros(3), 10, how)


def test_time_exchanges_of_numpy_takes_the_python_protocol(ext):
    assert ext.time_exchanges(np.zeros(3), 100, "borrow") > 0
    assert ext.time_exchanges(np.zeros(3), 100, "capsule") > 0


def test_time_exchanges_of_jax_takes_legacy_capsules(ext, jnp):
    x = on_jax_cpu(jnp.zeros(3))
    assert ext.time_exchanges(x, 100, "borrow") > 0
    assert ext.time_exchanges(x, 100, "capsule") > 0


def test_time_exchanges_checks_its_arguments(ext):
    x = dlarray.zeros(2)
    with pytest.raises(ValueError, match="at least 1"):
        ext.time_exchanges(x, 0, "borrow")
    with pytest.raises(ValueError, match="'borrow', 'managed'"):
        ext.time_exchanges(x, 10, "fast")


# ---- not a producer ----


@pytest.mark.parametrize(
    "call",
    [
        lambda ext, obj: ext.total(obj),
        lambda ext, obj: ext.scale_(obj, 2.0),
        lambda ext, obj: ext.to_dlarray(obj),
        lambda ext, obj: ext.time_exchanges(obj, 10, "borrow"),
        lambda ext, obj: ext.time_exchanges(obj, 10, "capsule"),
    ],
    ids=["total", "scale_", "to_dlarray", "borrow", "capsule"],
)
def test_a_plain_object_is_a_type_error(ext, call):
    with pytest.raises(TypeError, match="not a DLPack producer"):
        call(ext, object())


# ---- nothing leaks ----


def test_total_of_a_dlarray_takes_no_reference(ext):
    x = dlarray.ones((3, 4))
    before = sys.getrefcount(x)
    ext.total(x)
    assert sys.getrefcount(x) == before
    before, after = refcount_after(lambda: ext.total(x), x)
    assert after == before


@pytest.mark.parametrize("how", HOWS)
def test_every_exchange_of_a_dlarray_is_released(ext, how):
    x = dlarray.ones((3, 4))
    before, after = refcount_after(lambda: ext.time_exchanges(x, 10, how), x)
    assert after == before


def test_numpy_capsules_are_consumed_and_released(ext):
    a = np.ones(5)
    producer = RecordingProducer(a)
    gc.collect()
    before = sys.getrefcount(a)
    assert ext.total(producer) == 5.0
    (capsule,) = producer.capsules  # still alive, held by the producer
    assert abi.capsule_name(capsule) == abi.USED_VERSIONED_NAME  # borrow() took it
    assert sys.getrefcount(a) == before  # and release() ran its deleter
    for call in (lambda: ext.total(a), lambda: ext.time_exchanges(a, 10, "capsule")):
        before, after = refcount_after(call, a)
        assert after == before


def test_torch_exchanges_are_released(ext, torch):
    t = torch.ones(3, 4)
    for call in (
        lambda: ext.total(t),
        lambda: ext.to_dlarray(t),
        *(lambda how=how: ext.time_exchanges(t, 10, how) for how in HOWS),
    ):
        before, after = refcount_after(call, t)
        assert after == before


def test_jax_exchanges_are_released(ext, jnp):
    x = on_jax_cpu(jnp.ones((3, 4)))
    for call in (lambda: ext.total(x), lambda: ext.time_exchanges(x, 10, "capsule")):
        before, after = refcount_after(call, x)
        assert after == before


def test_a_failed_exchange_releases_the_tensor(ext):
    x = dlarray.zeros(3, dtype=dlarray.int8)
    gc.collect()
    before = sys.getrefcount(x)
    for _ in range(REPEATS):
        with pytest.raises(BufferError):
            ext.total(x)
    assert sys.getrefcount(x) == before
    a = np.zeros(3, dtype=np.int8)
    before = sys.getrefcount(a)
    for _ in range(REPEATS):
        with pytest.raises(BufferError):
            ext.total(a)
    assert sys.getrefcount(a) == before
