"""Strides no memory could hold, refused at import (cupy/cupy#10172).

CuPy 14.2 exports a negative stride wrongly: ``toDlpack`` divides the byte
stride by the itemsize as unsigned 64-bit numbers, so ``a[::-1, ::-2]`` of a
float32 (4, 6) array (byte strides (-24, -8)) arrives with element strides
(2**62 - 6, 2**62 - 2).  dlarray imported that without complaint and failed
only in a later copy, with a confusing "too big".

The rule that catches it: the bytes between a tensor's first and last
elements, the sum over its axes of ``|stride| * (extent - 1)`` times the
element's bytes, cannot pass 2**63 - 1 (NumPy's limit for an array's byte
extent; no memory is that large).  An axis of extent 0 or 1 never uses its
stride, so a tensor without elements, and an axis of one element, may carry
any stride.  The import reads no element, so the accepted tensors below may
point anywhere: they sit at the middle of the address space, where every
span they describe lies inside it.
"""

from __future__ import annotations

import ctypes
import gc

import abi
import exchange_tables as et
import numpy as np
import pytest

import dlarray
from dlarray import _core

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

INT8 = (0, 8, 1)
UINT16 = (1, 16, 1)
FLOAT16 = (2, 16, 1)
FLOAT32 = (2, 32, 1)
FLOAT64 = (2, 64, 1)
COMPLEX128 = (5, 128, 1)

CUPY_ISSUE = "https://github.com/cupy/cupy/issues/10172"
#: Where the accepted tensors start: any span up to 2**63 - 1 bytes, up or
#: down, stays within the 64-bit address space from here.
MIDDLE = 2**63


def cupy_14_2_strides(byte_strides: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """The element strides CuPy 14.2 exports: each byte stride divided by
    the itemsize as unsigned 64-bit numbers, then read as int64."""
    quotients = ((stride % 2**64) // itemsize for stride in byte_strides)
    return tuple(q - 2**64 if q > INT64_MAX else q for q in quotients)


def _import(route: str, producer: abi.Producer) -> dlarray.DLArray:
    if route == "from_dlpack":
        return dlarray.from_dlpack(producer)
    return _core.consume(producer.__dlpack__(max_version=(1, 3)))


def _assert_refused_and_released_once(producer: abi.Producer, route: str, match: str) -> None:
    """The import raises BufferError; the capsule keeps the tensor, and its
    destructor releases it, once."""
    with pytest.raises(BufferError, match=match):
        _import(route, producer)
    [capsule] = producer.held_capsules
    name = abi.VERSIONED_NAME if producer.versioned else abi.LEGACY_NAME
    assert abi.capsule_name(capsule) == name, "a refused capsule must stay unconsumed"
    assert producer.deleter_calls == [], "dlarray released a tensor it did not take"
    del capsule
    producer.drop_capsules()
    gc.collect()
    assert producer.deleter_calls == producer.capsule_addresses


def _assert_accepted(producer: abi.Producer) -> None:
    """The import keeps the layout, and releases the tensor once when the
    array dies."""
    x = dlarray.from_dlpack(producer)
    assert x.shape == tuple(producer.shape)
    used = [s for n, s in zip(producer.shape, producer.strides, strict=True) if n > 1]
    assert [s for n, s in zip(x.shape, x._strides, strict=True) if n > 1] == used
    del x
    producer.drop_capsules()
    gc.collect()
    assert producer.deleter_calls == producer.capsule_addresses


# ---- CuPy 14.2's export of a[::-1, ::-2] ----

CUPY_VIEW = dict(shape=(4, 3), strides=cupy_14_2_strides((-24, -8), 4), dtype=FLOAT32)


def test_cupy_14_2_strides_are_the_ones_seen_on_a_gpu():
    assert CUPY_VIEW["strides"] == (2**62 - 6, 2**62 - 2)


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
@pytest.mark.parametrize("route", ["from_dlpack", "consume"])
def test_cupy_14_2_negative_strides_are_refused_and_released_once(route, versioned):
    p = abi.Producer(versioned=versioned, **CUPY_VIEW)
    _assert_refused_and_released_once(p, route, CUPY_ISSUE)


def test_the_refusal_names_the_layout_the_axis_and_what_to_do():
    p = abi.Producer(**CUPY_VIEW)
    with pytest.raises(BufferError) as info:
        dlarray.from_dlpack(p)
    message = str(info.value)
    assert "more than 2**63 - 1 bytes" in message
    assert "shape (4, 3), strides (4611686018427387898, 4611686018427387902)" in message
    assert "at axis 0, stride 4611686018427387898" in message
    assert "x.copy()" in message


def test_the_refusal_names_the_axis_where_the_span_passes_the_limit():
    # Axis 0 spans 2**62 bytes, axis 1 another 2**62: together one too many.
    p = abi.Producer(shape=(2, 2, 1), strides=(2**62, 2**62, 1), dtype=INT8)
    with pytest.raises(BufferError, match=r"at axis 1, stride 4611686018427387904"):
        dlarray.from_dlpack(p)


def test_cupy_14_2_strides_through_the_exchange_table_are_refused_and_released_once():
    # managed_tensor_to_py_object_no_sync takes the tensor: on a refusal it
    # calls the deleter itself, once (this capsule has no destructor).
    p = abi.Producer(destructor=False, **CUPY_VIEW)
    capsule = p.__dlpack__(max_version=(1, 3))
    managed = ctypes.pointer(abi.managed_struct(capsule))
    rc, exc = et.dlarray_api().status(
        "managed_tensor_to_py_object_no_sync", managed, ctypes.pointer(ctypes.c_void_p())
    )
    assert rc == -1
    assert isinstance(exc, BufferError)
    assert CUPY_ISSUE in str(exc)
    assert p.deleter_calls == p.capsule_addresses


# ---- the limit: 2**63 - 1 bytes between the first and last elements ----

# (id, shape, strides, dtype): spans of exactly 2**63 - 1 bytes, or as close
# as the element's size allows, up and down.
AT_THE_LIMIT = [
    ("int8-one-axis", (2,), (INT64_MAX,), INT8),
    ("int8-two-axes", (2, 2), (2**62, 2**62 - 1), INT8),
    ("int8-down-and-up", (2, 2), (-(2**62), 2**62 - 1), INT8),
    ("int8-down", (2, 2), (-(2**62), -(2**62 - 1)), INT8),
    ("int8-three-elements", (3,), (-(2**62 - 1),), INT8),  # 2**63 - 2
    ("float16", (2,), (2**62 - 1,), FLOAT16),  # 2**63 - 2
    ("float32", (2,), (2**61 - 1,), FLOAT32),  # 2**63 - 4
    ("float32-down", (2,), (-(2**61 - 1),), FLOAT32),
    ("float64", (2, 2), (2**59, 2**59 - 1), FLOAT64),  # 2**63 - 8
]

# (id, shape, strides, dtype): one byte, or one element, past the limit.
PAST_THE_LIMIT = [
    ("int8-two-axes", (2, 2), (2**62, 2**62), INT8),
    ("int8-max-plus-one", (2, 2), (INT64_MAX, 1), INT8),
    ("int8-max-and-down-one", (2, 2), (INT64_MAX, -1), INT8),
    ("int8-down", (2, 2), (-(2**62), -(2**62)), INT8),
    ("int8-three-elements", (3,), (2**62,), INT8),
    ("int8-int64-min", (2,), (INT64_MIN,), INT8),
    ("int8-int64-min-then-1", (2, 2), (INT64_MIN, 1), INT8),
    ("float16", (2,), (2**62,), FLOAT16),
    ("float32", (2,), (2**61,), FLOAT32),
    ("float32-huge-negative", (2,), (-(2**62),), FLOAT32),
    ("float64-int64-min", (2,), (INT64_MIN,), FLOAT64),
    ("stride-times-extent-overflows", (2**40,), (2**30,), INT8),
    ("float64-last-axis", (1, 2), (0, 2**60), FLOAT64),
]


def _case_ids(cases):
    return [case[0] for case in cases]


@pytest.mark.parametrize(
    ("shape", "strides", "dtype"), [c[1:] for c in AT_THE_LIMIT], ids=_case_ids(AT_THE_LIMIT)
)
def test_a_span_at_the_limit_is_accepted(shape, strides, dtype):
    _assert_accepted(abi.Producer(shape=shape, strides=strides, dtype=dtype, data=MIDDLE))


@pytest.mark.parametrize("route", ["from_dlpack", "consume"])
@pytest.mark.parametrize(
    ("shape", "strides", "dtype"), [c[1:] for c in PAST_THE_LIMIT], ids=_case_ids(PAST_THE_LIMIT)
)
def test_a_span_past_the_limit_is_refused_and_released_once(shape, strides, dtype, route):
    p = abi.Producer(shape=shape, strides=strides, dtype=dtype, data=MIDDLE)
    _assert_refused_and_released_once(p, route, r"span more than 2\*\*63 - 1 bytes")


# ---- strides that address nothing: any value is allowed ----

# (id, shape, strides, dtype)
UNUSED_STRIDES = [
    ("0-d", (), (), FLOAT32),
    ("empty-absurd-strides", (0, 3), (INT64_MIN, INT64_MAX), FLOAT32),
    ("empty-last-axis", (3, 0), (INT64_MAX, INT64_MIN), FLOAT64),
    ("empty-cupy-strides", (0, 3), CUPY_VIEW["strides"], FLOAT32),
    ("one-element-int64-min", (1,), (INT64_MIN,), INT8),
    ("one-element-int64-max", (1,), (INT64_MAX,), FLOAT64),
    ("extent-1-axis-int64-min", (1, 3), (INT64_MIN, 1), FLOAT32),
    ("extent-1-axes-around", (1, 3, 1), (INT64_MAX, 1, INT64_MIN), FLOAT32),
    ("extent-1-cupy-stride", (1, 3), (2**62 - 6, -2), FLOAT32),
]


@pytest.mark.parametrize(
    ("shape", "strides", "dtype"), [c[1:] for c in UNUSED_STRIDES], ids=_case_ids(UNUSED_STRIDES)
)
def test_strides_that_address_nothing_are_accepted(shape, strides, dtype):
    _assert_accepted(abi.Producer(shape=shape, strides=strides, dtype=dtype, data=MIDDLE))


# ---- CuPy 14.2's unsigned division, element size by element size ----


def test_cupy_14_2_strides_of_one_byte_elements_are_right_and_read_back():
    # (2**64 - 1) // 1 read as int64 is -1: the right stride, by luck.
    strides = cupy_14_2_strides((-1,), 1)
    assert strides == (-1,)
    p = abi.Producer(
        shape=(4,), strides=strides, dtype=INT8, payload=bytes([0, 1, 2, 3]), data_offset=3
    )
    x = dlarray.from_dlpack(p)
    assert x._strides == (-1,)
    assert np.from_dlpack(x).tolist() == [3, 2, 1, 0]
    del x


@pytest.mark.parametrize(
    ("dtype", "itemsize", "stride"),
    [
        (UINT16, 2, INT64_MAX),
        (FLOAT16, 2, INT64_MAX),
        (FLOAT32, 4, 2**62 - 1),
        (FLOAT64, 8, 2**61 - 1),
        (COMPLEX128, 16, 2**60 - 1),
    ],
    ids=["uint16", "float16", "float32", "float64", "complex128"],
)
def test_cupy_14_2_flip_of_wider_elements_is_refused(dtype, itemsize, stride):
    # x[::-1] of any element wider than a byte: the wrong stride times the
    # element's bytes is about 2**64 bytes.
    [exported] = cupy_14_2_strides((-itemsize,), itemsize)
    assert exported == stride
    p = abi.Producer(shape=(2,), strides=(exported,), dtype=dtype, data=MIDDLE)
    _assert_refused_and_released_once(p, "from_dlpack", CUPY_ISSUE)


@pytest.mark.parametrize("dtype", [UINT16, FLOAT16], ids=["uint16", "float16"])
def test_cupy_14_2_stride_of_a_one_element_axis_is_unused_and_accepted(dtype):
    _assert_accepted(abi.Producer(shape=(1, 2), strides=(INT64_MAX, 1), dtype=dtype, data=MIDDLE))


# ---- sub-byte elements ----

FP4 = (17, 4, 1)


def test_padded_sub_byte_elements_count_one_byte_each():
    # A padded fp4 element takes a byte, so its span limit is int8's.
    padded = dict(dtype=FP4, flags=abi.FLAG_IS_SUBBYTE_TYPE_PADDED, data=MIDDLE)
    _assert_accepted(abi.Producer(shape=(2,), strides=(INT64_MAX,), **padded))
    p = abi.Producer(shape=(3,), strides=(2**62,), **padded)
    _assert_refused_and_released_once(p, "from_dlpack", CUPY_ISSUE)


def test_packed_sub_byte_elements_are_held_to_c_order_instead():
    p = abi.Producer(shape=(3,), strides=(2**62,), dtype=FP4, data=MIDDLE)
    _assert_refused_and_released_once(p, "from_dlpack", "only in C order")
