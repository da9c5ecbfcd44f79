"""dlarray as a consumer of capsules it did not make.

Every producer here is ``abi.Producer``: a capsule assembled field by field
with ctypes, so each field can be wrong on purpose.  For every capsule the
producer's deleter must run exactly once -- by dlarray when an import
succeeded (when the last array over the memory dies), by dlarray at once for a
tensor of another major version, and otherwise by the producer's own capsule
destructor -- and no malformed field may crash the interpreter.
"""

from __future__ import annotations

import gc

import abi
import numpy as np
import pytest

import dlarray
from dlarray import _core

FLOAT32 = (2, 32, 1)
FP4 = (17, 4, 1)


def _float32_payload(n: int) -> bytes:
    return np.arange(n, dtype=np.float32).tobytes()


def _import(route, producer):
    """Import through ``from_dlpack`` or through ``_core.consume``."""
    if route == "from_dlpack":
        return dlarray.from_dlpack(producer)
    capsule = producer.__dlpack__(max_version=(1, 3))
    return _core.consume(capsule)


ROUTES = ["from_dlpack", "consume"]

# ---- malformed tensors: refused with BufferError, released exactly once ----

# (id, Producer keywords, words the message must contain)
MALFORMED = [
    ("lanes-2", dict(dtype=(2, 32, 2)), "lanes"),
    ("fp4-as-lanes-2", dict(dtype=(1, 8, 2)), "lanes"),
    ("opaque-handle-code-3", dict(dtype=(3, 64, 1)), "code 3"),
    ("unknown-code-99", dict(dtype=(99, 8, 1)), "code 99"),
    ("unknown-code-18", dict(dtype=(18, 8, 1)), "code 18"),
    ("fp4-code-with-8-bits", dict(dtype=(17, 8, 1)), "code 17"),
    ("float-with-24-bits", dict(dtype=(2, 24, 1)), "code 2"),
    ("negative-ndim", dict(ndim=-1, shape=()), "ndim"),
    ("null-shape-with-ndim-1", dict(null_shape=True), "shape"),
    ("null-shape-with-ndim-3", dict(shape=(2, 2, 1), null_shape=True), "shape"),
    ("negative-extent", dict(shape=(-1,)), "negative"),
    ("negative-extent-after-zero", dict(shape=(0, -3)), "negative"),
    ("element-count-overflows", dict(shape=(2**62, 4), dtype=(2, 64, 1)), "overflow"),
    ("element-count-overflows-3d", dict(shape=(2**31, 2**31, 2**31)), "overflow"),
    ("byte-size-overflows", dict(shape=(2**61,), dtype=(2, 64, 1)), "overflow"),
    ("null-data-with-elements", dict(data=None), "data=NULL"),
    ("unknown-device-99", dict(device=(99, 0)), "device type 99"),
    ("retired-device-5", dict(device=(5, 0)), "device type 5"),
    ("device-type-0", dict(device=(0, 0)), "device type 0"),
    ("packed-fp4-strided", dict(shape=(4,), strides=(2,), dtype=FP4), "sub-byte"),
    ("packed-fp4-fortran-order", dict(shape=(2, 2), strides=(1, 2), dtype=FP4), "sub-byte"),
]


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    ("kwargs", "words"), [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED]
)
def test_malformed_tensor_is_refused_and_released_once_by_its_capsule(
    kwargs, words, route, versioned
):
    p = abi.Producer(versioned=versioned, **kwargs)
    with pytest.raises(BufferError, match=words):
        _import(route, p)
    [capsule] = p.held_capsules
    name = abi.VERSIONED_NAME if versioned else abi.LEGACY_NAME
    assert abi.capsule_name(capsule) == name, "a refused capsule must stay unconsumed"
    assert p.deleter_calls == [], "dlarray released a tensor it did not take"
    del capsule
    p.drop_capsules()
    gc.collect()
    assert p.destructor_calls == [name]
    assert p.deleter_calls == p.capsule_addresses


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("version", [(2, 0), (2, 5), (255, 0), (0, 9)])
def test_other_major_version_is_refused_and_released_at_once(version, route):
    p = abi.Producer(version=version)
    with pytest.raises(BufferError, match=rf"{version[0]}\.{version[1]}"):
        _import(route, p)
    [capsule] = p.held_capsules
    assert abi.capsule_name(capsule) == abi.USED_VERSIONED_NAME
    assert p.deleter_calls == p.capsule_addresses, "the deleter must run once, during the import"
    del capsule
    p.drop_capsules()
    gc.collect()
    assert p.destructor_calls == [abi.USED_VERSIONED_NAME]
    assert p.deleter_calls == p.capsule_addresses


def test_other_major_version_with_null_deleter_is_refused():
    p = abi.Producer(version=(2, 0), deleter=False)
    with pytest.raises(BufferError):
        dlarray.from_dlpack(p)
    p.drop_capsules()
    gc.collect()
    assert p.deleter_calls == []


# ---- unusual but valid tensors: accepted ----


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_null_deleter_is_accepted(versioned):
    p = abi.Producer(versioned=versioned, deleter=False, payload=_float32_payload(4))
    x = dlarray.from_dlpack(p)
    np.testing.assert_array_equal(np.from_dlpack(x), np.arange(4, dtype=np.float32))
    del x
    p.drop_capsules()
    gc.collect()
    assert p.deleter_calls == []


@pytest.mark.parametrize(
    ("shape", "strides"),
    [((6,), (1,)), ((2, 3), (3, 1)), ((3, 2), (2, 1)), ((1, 2, 1, 3, 1), (6, 3, 3, 1, 1))],
)
def test_legacy_null_strides_mean_c_contiguous(shape, strides):
    p = abi.Producer(versioned=False, shape=shape, strides=None, payload=_float32_payload(6))
    x = dlarray.from_dlpack(p)
    assert x.shape == shape
    assert x._strides == strides
    np.testing.assert_array_equal(np.from_dlpack(x), np.arange(6, dtype=np.float32).reshape(shape))


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
@pytest.mark.parametrize("shape", [(0,), (4, 0), (0, 0, 3)])
def test_null_data_with_zero_size_is_accepted(shape, versioned):
    p = abi.Producer(versioned=versioned, shape=shape, data=None)
    x = dlarray.from_dlpack(p)
    assert x.shape == shape
    assert x.size == 0
    del x
    assert len(p.deleter_calls) == 1


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_zero_dimensional_tensor_with_null_shape_and_strides_is_accepted(versioned):
    p = abi.Producer(
        versioned=versioned,
        shape=(),
        null_shape=True,
        strides=None,
        payload=np.float32(7.5).tobytes(),
    )
    x = dlarray.from_dlpack(p)
    assert x.shape == ()
    assert float(np.from_dlpack(x)) == 7.5


def test_padded_fp4_import_keeps_padding():
    p = abi.Producer(
        dtype=FP4, shape=(3,), flags=abi.FLAG_IS_SUBBYTE_TYPE_PADDED, payload=bytes([1, 2, 3])
    )
    x = dlarray.from_dlpack(p)
    assert x.dtype == dlarray.float4_e2m1fn
    assert x._padded
    np.testing.assert_array_equal(np.from_dlpack(dlarray.subbyte.to_codes(x)), [1, 2, 3])


def test_packed_fp4_with_contiguous_strides_is_accepted():
    p = abi.Producer(dtype=FP4, shape=(2, 2), strides=(2, 1), payload=bytes([0x21, 0x43]))
    x = dlarray.from_dlpack(p)
    assert not x._padded
    np.testing.assert_array_equal(np.from_dlpack(dlarray.subbyte.to_codes(x)), [[1, 2], [3, 4]])


# ---- the deleter runs exactly once, in every path ----


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
@pytest.mark.parametrize("route", ROUTES)
def test_consumed_tensor_is_released_once_when_the_array_dies(route, versioned):
    p = abi.Producer(versioned=versioned)
    x = _import(route, p)
    [address] = p.capsule_addresses
    p.drop_capsules()  # the consumed capsule's destructor must do nothing
    gc.collect()
    assert p.deleter_calls == []
    del x
    gc.collect()
    assert p.deleter_calls == [address]


def test_tensor_is_released_only_when_the_last_view_dies():
    p = abi.Producer(shape=(8,), payload=_float32_payload(8))
    x = dlarray.from_dlpack(p)
    p.drop_capsules()
    v = x[1:]
    w = v[::2]
    t = dlarray.reshape(x, (2, 4)).T
    del x
    gc.collect()
    assert p.deleter_calls == []
    del v
    gc.collect()
    assert p.deleter_calls == []
    np.testing.assert_array_equal(np.from_dlpack(w), [1, 3, 5, 7])
    del w
    gc.collect()
    assert p.deleter_calls == []
    del t
    gc.collect()
    assert p.deleter_calls == p.capsule_addresses


def test_numpy_view_of_an_import_keeps_the_tensor_alive():
    p = abi.Producer(shape=(4,), payload=_float32_payload(4))
    x = dlarray.from_dlpack(p)
    p.drop_capsules()
    a = np.from_dlpack(x)
    del x
    gc.collect()
    assert p.deleter_calls == []
    np.testing.assert_array_equal(a, np.arange(4, dtype=np.float32))
    del a
    gc.collect()
    assert p.deleter_calls == p.capsule_addresses


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_capsule_never_consumed_is_released_once_by_its_destructor(versioned):
    p = abi.Producer(versioned=versioned)
    capsule = p.__dlpack__()
    p.drop_capsules()
    assert p.deleter_calls == []
    del capsule
    gc.collect()
    assert p.deleter_calls == p.capsule_addresses


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_capsule_imported_twice_is_refused_and_released_once(versioned):
    p = abi.Producer(versioned=versioned)
    capsule = p.__dlpack__()
    x = _core.consume(capsule)
    with pytest.raises(ValueError, match="consumed"):
        _core.consume(capsule)
    assert p.deleter_calls == []
    del capsule
    p.drop_capsules()
    gc.collect()
    assert p.deleter_calls == []
    del x
    gc.collect()
    assert p.deleter_calls == p.capsule_addresses


def test_each_capsule_of_one_producer_is_released_on_its_own():
    p = abi.Producer()
    x, y = dlarray.from_dlpack(p), dlarray.from_dlpack(p)
    first, second = p.capsule_addresses
    assert first != second
    del y
    gc.collect()
    assert p.deleter_calls == [second]
    del x
    gc.collect()
    assert p.deleter_calls == [second, first]


@pytest.mark.parametrize("name", [b"tensor", b"dltensor_v2", b"used_tensor", b"DLTENSOR"])
def test_capsule_with_another_name_is_a_type_error_and_left_alone(name):
    p = abi.Producer(name=name)
    capsule = p.__dlpack__()
    with pytest.raises(TypeError, match="dltensor"):
        _core.consume(capsule)
    assert abi.capsule_name(capsule) == name
    del capsule
    p.drop_capsules()
    gc.collect()
    assert p.destructor_calls == [name]
    assert p.deleter_calls == []  # not a DLPack capsule: nobody may release it


@pytest.mark.parametrize("thing", [object(), None, 1, b"dltensor", "dltensor", np.arange(3)])
def test_consuming_something_that_is_not_a_capsule_is_a_type_error(thing):
    with pytest.raises(TypeError, match="capsule"):
        _core.consume(thing)


# ---- what the flags and offsets of an import mean ----


@pytest.mark.parametrize("route", ROUTES)
def test_read_only_import_refuses_writes(route):
    p = abi.Producer(flags=abi.FLAG_READ_ONLY, payload=_float32_payload(4))
    x = _import(route, p)
    assert x.readonly
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        x[1:][0] = 1
    assert np.frombuffer(p.buffer.raw[:16], dtype=np.float32).tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_writable_import_writes_through_to_the_producer(versioned):
    p = abi.Producer(versioned=versioned, payload=_float32_payload(4))
    x = dlarray.from_dlpack(p)
    assert not x.readonly
    x[2] = 42
    assert np.frombuffer(p.buffer.raw[:16], dtype=np.float32).tolist() == [0, 1, 42, 3]


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
@pytest.mark.parametrize("k", [1, 3, 7])
def test_byte_offset_of_an_import_is_honoured(k, versioned):
    p = abi.Producer(
        versioned=versioned, shape=(8 - k,), byte_offset=4 * k, payload=_float32_payload(8)
    )
    x = dlarray.from_dlpack(p)
    got = np.from_dlpack(x)
    assert got[0] == k
    np.testing.assert_array_equal(got, np.arange(k, 8, dtype=np.float32))
    np.testing.assert_array_equal(np.from_dlpack(x[1:]), np.arange(k + 1, 8, dtype=np.float32))


@pytest.mark.parametrize(("data_offset", "byte_offset"), [(1, 0), (0, 1), (3, 0), (1, 2)])
def test_misaligned_float32_imports_and_reads_correctly(data_offset, byte_offset):
    skew = data_offset + byte_offset
    p = abi.Producer(
        shape=(4,),
        data_offset=data_offset,
        byte_offset=byte_offset,
        payload=bytes(skew) + np.array([1.5, -2.0, 3.25, 1e30], dtype=np.float32).tobytes(),
    )
    x = dlarray.from_dlpack(p)
    np.testing.assert_array_equal(
        np.from_dlpack(x), np.array([1.5, -2.0, 3.25, 1e30], dtype=np.float32)
    )
    np.testing.assert_array_equal(
        np.from_dlpack(x[::-1]), np.array([1e30, 3.25, -2.0, 1.5], dtype=np.float32)
    )


# ---- from_dlpack's conversation with the producer ----


@pytest.mark.parametrize(
    "kwargs", [{}, {"copy": True}, {"device": "cpu"}], ids=["plain", "copy", "device"]
)
@pytest.mark.parametrize(
    "thing", [object(), [1.0, 2.0], 3.0, b"abc"], ids=["object", "list", "float", "bytes"]
)
def test_from_dlpack_of_a_non_producer_is_an_attribute_error(thing, kwargs):
    with pytest.raises(AttributeError, match="__dlpack__"):
        dlarray.from_dlpack(thing, **kwargs)


def test_from_dlpack_retries_an_old_producer_without_keywords():
    p = abi.Producer(accepts_keywords=False, payload=_float32_payload(4))
    x = dlarray.from_dlpack(p)
    assert p.dlpack_calls == [{"stream": None, "max_version": (1, 3)}, {}]
    assert x._owner.versioned is False
    np.testing.assert_array_equal(np.from_dlpack(x), np.arange(4, dtype=np.float32))
    del x
    p.drop_capsules()
    gc.collect()
    assert p.deleter_calls == p.capsule_addresses


@pytest.mark.parametrize(
    "kwargs",
    [{"copy": True}, {"copy": False}, {"device": "cpu"}, {"device": "cpu", "copy": True}],
    ids=["copy-true", "copy-false", "device", "device-and-copy"],
)
def test_from_dlpack_does_not_retry_an_old_producer_when_device_or_copy_is_asked(kwargs):
    p = abi.Producer(accepts_keywords=False)
    with pytest.raises(TypeError):
        dlarray.from_dlpack(p, **kwargs)
    assert len(p.dlpack_calls) == 1, "a retry without keywords would drop device/copy"
    assert p.capsule_addresses == []


@pytest.mark.parametrize(
    "kwargs", [{}, {"copy": True}, {"device": "cpu"}], ids=["plain", "copy", "device"]
)
@pytest.mark.parametrize(
    "exc",
    [
        ValueError("v"),
        BufferError("b"),
        RuntimeError("r"),
        ZeroDivisionError("z"),
        AttributeError("a"),
        KeyError("k"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_from_dlpack_lets_other_producer_errors_through_unchanged(exc, kwargs):
    p = abi.Producer(raises=exc)
    with pytest.raises(type(exc)) as info:
        dlarray.from_dlpack(p, **kwargs)
    assert info.value is exc
    assert len(p.dlpack_calls) == 1, "from_dlpack called a failing producer again"


def test_from_dlpack_asks_for_the_newest_version_it_reads():
    p = abi.Producer()
    dlarray.from_dlpack(p)
    assert p.dlpack_calls == [{"stream": None, "max_version": (1, 3)}]
