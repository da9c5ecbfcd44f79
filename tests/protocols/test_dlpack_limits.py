"""Every limit a clear error at the door (issue 28).

dlarray's host engine is NumPy, so an array must be one NumPy can view: at
most 64 axes, and nonzero extents that, times the element's bytes, stay
within 2**63 - 1 (NumPy's rule, which holds for an empty array too: its
strides are computed from those extents).  Such shapes are refused where an
array is made -- creation, views, Python data, the C exchange table's
allocator -- with a ``ValueError`` naming the limit, and where a producer's
tensor is imported: more than 64 axes with the same ``ValueError``, a size
too big with a ``BufferError`` (DLPack's exchange error).  Before, they were
accepted and failed later, in every operation, with NumPy's words.

Each test says what used to happen.
"""

from __future__ import annotations

import ctypes
import gc
import pickle

import abi
import exchange_tables as et
import numpy as np
import pytest

import dlarray
from dlarray import _core

MAX_NDIM = 64
DEEP = (1,) * (MAX_NDIM + 1)
TOO_NDIM = r"65 dimensions; dlarray arrays have at most 64"

# ---- F3: at most 64 dimensions ----


@pytest.mark.parametrize(
    "make",
    [
        lambda shape: dlarray.empty(shape),
        lambda shape: dlarray.zeros(shape),
        lambda shape: dlarray.ones(shape),
        lambda shape: dlarray.full(shape, 2.0),
        lambda shape: dlarray.zeros(shape, dtype=dlarray.float4_e2m1fn),
        lambda shape: dlarray.reshape(dlarray.zeros(1), shape),
        lambda shape: dlarray.broadcast_to(dlarray.zeros(1), shape),
        lambda shape: dlarray.expand_dims(dlarray.zeros(shape[1:]), axis=0),
        lambda shape: dlarray.zeros(shape[1:])[None],
        lambda shape: _core.new_array(None, 0, 0, shape, None, (2, 64, 1), (1, 0), 0),
    ],
    ids=[
        "empty",
        "zeros",
        "ones",
        "full",
        "zeros-fp4",
        "reshape",
        "broadcast_to",
        "expand_dims",
        "index-None",
        "core-new_array",
    ],
)
def test_65_dimensions_are_refused_where_the_array_is_made(make):
    # Accepted before, then NumPy's RuntimeError "maxdims of DLPack tensor is
    # higher than the supported maxdims" (or repr, sum, + and pickle failing).
    assert make((1,) * MAX_NDIM).shape == (1,) * MAX_NDIM
    with pytest.raises(ValueError, match=TOO_NDIM):
        make(DEEP)


def test_python_data_nested_65_deep_is_refused_in_dlarrays_words():
    # Was NumPy's "setting an array element with a sequence. The requested
    # array would exceed the maximum number of dimension of 64."
    data = 1
    for _ in range(MAX_NDIM + 1):
        data = [data]
    with pytest.raises(ValueError, match=r"asarray: .* more than 64 deep.*at most 64 dimensions"):
        dlarray.asarray(data)


def test_ragged_python_data_is_refused_in_dlarrays_words():
    with pytest.raises(ValueError, match=r"asarray: the nested sequences are ragged"):
        dlarray.asarray([[1], [1, 2]])


def test_a_64_dimensional_array_works_everywhere():
    x = dlarray.ones((1,) * MAX_NDIM)
    assert float(dlarray.sum(x + 1)) == 2.0
    assert np.asarray(x).shape == x.shape
    assert pickle.loads(pickle.dumps(x)).shape == x.shape
    assert "dlarray" in repr(x)


@pytest.mark.parametrize("route", ["from_dlpack", "consume"])
def test_a_producers_65_dimensional_tensor_is_refused_and_released_once(route):
    # Accepted before; every later operation failed in NumPy.
    p = abi.Producer(shape=DEEP)
    _assert_refused_and_released(p, route, ValueError, rf"the DLPack tensor has {TOO_NDIM}")


def _assert_refused_and_released(p, route, exc, match):
    """Importing ``p``'s tensor by ``route`` raises ``exc``, and its deleter
    then runs once per capsule, by the capsule's own destructor."""
    with pytest.raises(exc, match=match):
        if route == "from_dlpack":
            dlarray.from_dlpack(p)
        else:
            _core.consume(p.__dlpack__(max_version=(1, 3)))
    p.drop_capsules()
    gc.collect()
    assert p.deleter_calls == p.capsule_addresses


def test_a_toy_producers_65_dimensional_capsule_is_refused():
    toy = dlarray.abi.ToyProducer()
    capsule = toy.capsule(np.zeros(1), shape=DEEP, strides=(0,) * len(DEEP))
    with pytest.raises(ValueError, match=TOO_NDIM):
        dlarray.abi.consume(capsule)
    del capsule
    gc.collect()
    assert toy.alive == 0


def test_a_65_dimensional_tensor_through_the_exchange_table_is_refused_and_released():
    # managed_tensor_to_py_object_no_sync takes the tensor: on failure it
    # calls the deleter, once (the capsule has no destructor here).
    p = abi.Producer(shape=DEEP, destructor=False)
    capsule = p.__dlpack__(max_version=(1, 3))
    managed = ctypes.pointer(abi.managed_struct(capsule))
    api = et.dlarray_api()
    rc, exc = api.status(
        "managed_tensor_to_py_object_no_sync", managed, ctypes.pointer(ctypes.c_void_p())
    )
    assert rc == -1
    assert isinstance(exc, ValueError)
    assert "65 dimensions" in str(exc)
    assert len(p.deleter_calls) == 1


# ---- F4: sizes NumPy cannot represent, empty or not ----

TOO_BIG_SHAPES = [(2**62, 0), (0, 2**60, 4), (0, 2**61), (2**64,), (3, 2**62)]


@pytest.mark.parametrize("shape", TOO_BIG_SHAPES, ids=str)
@pytest.mark.parametrize(
    "make",
    [
        lambda shape: dlarray.empty(shape),
        lambda shape: dlarray.zeros(shape),
        lambda shape: dlarray.ones(shape),
        lambda shape: dlarray.full(shape, 1.0),
    ],
    ids=["empty", "zeros", "ones", "full"],
)
def test_a_shape_too_big_for_numpy_is_refused_at_creation(make, shape):
    # (2**62, 0) and (0, 2**60, 4) were accepted; then sum, x + 1,
    # np.asarray and pickle raised NumPy's "array is too big", and flip a
    # bare "OverflowError: int too big to convert".
    with pytest.raises(ValueError, match=r"too big.*2\*\*63 - 1.*use a smaller shape") as info:
        make(shape)
    assert str(shape) in str(info.value) and "float64" in str(info.value)


def test_the_limit_is_numpys_empty_arrays_count_the_element_size():
    # 2**59 * 4 int8 elements fit in 2**63 - 1 bytes, as NumPy agrees; the
    # same extents of float64 do not.
    shape = (0, 2**59, 4)
    np.zeros(shape, dtype=np.int8)
    x = dlarray.zeros(shape, dtype=dlarray.int8)
    assert x.shape == shape
    assert int(dlarray.sum(x)) == 0
    assert (x + 1).shape == shape
    assert np.asarray(x).shape == shape
    assert pickle.loads(pickle.dumps(x)).shape == shape
    assert dlarray.flip(x).shape == shape
    with pytest.raises(ValueError):
        np.zeros(shape, dtype=np.float64)
    with pytest.raises(ValueError, match="too big"):
        dlarray.zeros(shape, dtype=dlarray.float64)


@pytest.mark.parametrize(
    "make",
    [
        lambda: dlarray.reshape(dlarray.zeros(0), (2**62, 0)),
        lambda: dlarray.broadcast_to(dlarray.zeros((1, 0)), (2**62, 0)),
        lambda: _core.new_array(None, 0, 0, (2**62, 0), None, (2, 64, 1), (1, 0), 0),
    ],
    ids=["reshape", "broadcast_to", "core-new_array"],
)
def test_a_shape_too_big_for_numpy_is_refused_by_views_too(make):
    with pytest.raises(ValueError, match="too big"):
        make()


@pytest.mark.parametrize("route", ["from_dlpack", "consume"])
@pytest.mark.parametrize("shape", [(2**62, 0), (0, 2**60, 4)], ids=str)
def test_a_producers_tensor_too_big_for_numpy_is_refused_and_released_once(shape, route):
    # Accepted before (its element count is 0 and its extents multiply
    # within int64): every operation then failed in NumPy.
    p = abi.Producer(shape=shape, dtype=(2, 64, 1))
    _assert_refused_and_released(p, route, BufferError, r"the DLPack tensor of shape .* is too big")


@pytest.mark.parametrize(
    ("shape", "ndim"), [((2**62, 0), None), ((1,) * 65, None)], ids=["too-big", "65-dims"]
)
def test_the_exchange_allocator_refuses_the_same_shapes(shape, ndim):
    allocation = et.dlarray_api().allocate(et.prototype_tensor(shape, (2, 64, 1), ndim=ndim))
    assert allocation.rc == -1
    assert [kind for kind, _ in allocation.errors] == ["ValueError"]
    assert allocation.left_exception is None


# ---- F5: strides whose byte value overflows ----


@pytest.mark.parametrize("step", [2**62, 2**61 + 1, 2**63 - 1, -(2**62)])
def test_a_step_far_past_the_end_stores_stride_0_and_reads_through_memoryview(step):
    # The stride (step elements) times 8 bytes overflowed int64 in buffer.c:
    # undefined behaviour (UBSan: "signed integer overflow"); with -fwrapv
    # memoryview reported the wrapped value.  An axis of one element never
    # uses its stride, so dlarray stores 0 when its byte value would not fit,
    # as for an axis None inserts.
    x = dlarray.asarray([1.0, 2.0, 3.0])
    v = x[::step]
    assert v.shape == (1,)
    assert v._strides == (0,)
    m = memoryview(v)
    assert m.strides == (0,)
    assert m.tolist() == ([1.0] if step > 0 else [3.0])


def test_a_step_whose_byte_stride_fits_keeps_numpys_stride():
    x = dlarray.asarray([1.0, 2.0, 3.0])
    assert x[::5]._strides == (5,)
    assert memoryview(x[::5]).strides == np.zeros(3)[::5].strides == (40,)


def test_a_producers_one_element_axis_with_a_huge_stride_is_read_through_memoryview():
    p = abi.Producer(shape=(1, 2), strides=(2**62, 1), dtype=(2, 64, 1))
    x = dlarray.from_dlpack(p)
    assert x._strides == (0, 1)
    assert memoryview(x).strides == (0, 8)
    del x


def test_a_producers_axis_whose_byte_stride_overflows_is_refused_by_the_buffer_protocol():
    # shape (2,), stride 2**62 float64 elements: the second element is 2**65
    # bytes away.  The import refuses it (the span passes 2**63 - 1 bytes);
    # as a view over real memory, indexing it is refused
    # (package/test_hardening.py), and memoryview gave a wrapped stride of 0
    # (undefined behaviour), so m[1] read element 0.
    p = abi.Producer(shape=(2,), strides=(2**62,), dtype=(2, 64, 1))
    with pytest.raises(BufferError, match="span more than 2"):
        dlarray.from_dlpack(p)
    x = dlarray.zeros(2)._view((2,), (2**62,), 0)
    with pytest.raises(BufferError, match=r"axis 0's stride of 4611686018427387904 elements"):
        memoryview(x)
    del x


@pytest.mark.parametrize("step", [2**62, 2**63 - 1, -(2**63 - 1)])
def test_a_step_far_past_the_end_of_a_packed_array_is_a_view_of_one_row(step):
    # Packed sub-byte arrays index in Python (dlarray._views), where the row
    # stride 2 times the step became a Python int past int64: a bare
    # "OverflowError: int too big to convert" from the core's _view.
    x = dlarray.subbyte.from_codes([[1, 2], [3, 4], [5, 6]], dlarray.float4_e2m1fn)
    v = x[::step]
    assert v.shape == (1, 2)
    expected = [[1, 2]] if step > 0 else [[5, 6]]
    assert np.from_dlpack(dlarray.subbyte.to_codes(v)).tolist() == expected


@pytest.mark.parametrize(
    ("call", "func"),
    [
        (lambda: dlarray.tile(dlarray.zeros((1,) * 64), (1,) * 65), "tile"),
        (lambda: dlarray.stack([dlarray.zeros((1,) * 64)] * 2), "stack"),
    ],
    ids=["tile", "stack"],
)
def test_a_result_of_65_dimensions_is_refused_in_dlarrays_words(call, func):
    # Before: NumPy's own "ndmin must be <= ndmax (64)" / "maximum supported
    # dimension" texts.
    with pytest.raises(ValueError, match=rf"^{func}: the result would have 65 dimensions; dlarray"):
        call()
