"""DLArray itself: creation, attributes, views sharing memory, copies.

NumPy serves as the oracle: every view is compared element-wise with the
same view taken in NumPy on the same data.
"""

from __future__ import annotations

import array
import gc
import weakref

import numpy as np
import pytest

import dlarray
from dlarray import _core


def as_numpy(x):
    return np.from_dlpack(x)


def first_address(x):
    return x._data + x._byte_offset


# ---- creation ----

@pytest.mark.parametrize("make", [dlarray.empty, dlarray.zeros])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (4, 0, 4), (1, 2, 3, 4, 5)])
def test_new_arrays_have_shape_dtype_device_and_aligned_storage(make, shape):
    x = make(shape, dtype=dlarray.int16)
    assert x.shape == shape
    assert x.ndim == len(shape)
    assert x.dtype is dlarray.int16
    assert x.device == dlarray.Device("cpu")
    assert x._data % 256 == 0  # DLPack's alignment note
    assert isinstance(x._owner, dlarray.storage.HostStorage)
    assert isinstance(x._owner, dlarray.storage.Storage)
    assert x._owner.nbytes == 2 * int(np.prod(shape))


def test_zeros_are_zero_and_default_dtype_is_float64():
    x = dlarray.zeros((3, 2))
    assert x.dtype is dlarray.float64
    assert as_numpy(x).tolist() == [[0.0, 0.0]] * 3


def test_int_shape_is_accepted():
    assert dlarray.zeros(5).shape == (5,)


@pytest.mark.parametrize(("data", "dtype", "values"), [
    (True, dlarray.bool, True),
    (7, dlarray.int64, 7),
    (2.5, dlarray.float64, 2.5),
    (1 + 2j, dlarray.complex128, 1 + 2j),
    ([[1, 2], [3, 4]], dlarray.int64, [[1, 2], [3, 4]]),
    ([1.0, 2], dlarray.float64, [1.0, 2.0]),
    ([True, False], dlarray.bool, [True, False]),
    ([], dlarray.float64, []),
])
def test_asarray_of_python_data_uses_the_array_api_defaults(data, dtype, values):
    x = dlarray.asarray(data)
    assert x.dtype is dtype
    assert as_numpy(x).tolist() == values
    assert x._data % 256 == 0


def test_asarray_with_dtype_converts_python_data():
    x = dlarray.asarray([1, 2, 3], dtype=dlarray.float32)
    assert x.dtype is dlarray.float32
    assert as_numpy(x).tolist() == [1.0, 2.0, 3.0]


def test_asarray_of_writable_buffer_shares_memory():
    buf = array.array("f", [1.0, 2.0, 3.0])
    x = dlarray.asarray(buf)
    assert x.dtype is dlarray.float32
    assert not x.readonly
    assert first_address(x) == buf.buffer_info()[0]
    x[1] = 20.0
    assert buf[1] == 20.0


def test_asarray_of_bytes_is_read_only_and_zero_copy():
    data = b"\x01\x02\x03"
    x = dlarray.asarray(data)
    assert x.readonly
    assert as_numpy(x).tolist() == [1, 2, 3]


def test_asarray_of_buffer_with_copy_true_is_a_writable_copy():
    data = bytearray(b"\x01\x02")
    x = dlarray.asarray(data, copy=True)
    x[0] = 9
    assert data[0] == 1
    assert as_numpy(x).tolist() == [9, 2]


def test_asarray_of_dlarray_returns_it_unless_a_copy_is_asked():
    x = dlarray.asarray([1, 2])
    assert dlarray.asarray(x) is x
    y = dlarray.asarray(x, copy=True)
    assert y is not x
    assert first_address(y) != first_address(x)
    assert as_numpy(y).tolist() == [1, 2]


def test_asarray_of_a_producer_imports_zero_copy():
    a = np.arange(4.0)
    x = dlarray.asarray(a)
    assert first_address(x) == a.ctypes.data
    y = dlarray.asarray(a, copy=True)
    assert first_address(y) != a.ctypes.data


@pytest.mark.parametrize("name", [">f8", ">i2", ">c8", ">u4"])
def test_asarray_of_a_numpy_array_in_the_other_byte_order_copies_its_numbers(name):
    # (before: NumPy's BufferError "DLPack only supports native byte order.")
    a = np.arange(6, dtype=name).reshape(2, 3)
    x = dlarray.asarray(a)
    assert x.dtype == np.dtype(name).newbyteorder("=") and not x.readonly
    np.testing.assert_array_equal(as_numpy(x), a)
    x[0, 0] = 7  # a copy: the NumPy array keeps its numbers
    assert a[0, 0] == 0
    assert dlarray.asarray(a, copy=True).shape == (2, 3)
    with pytest.raises(ValueError, match="copy=False"):
        dlarray.asarray(a, copy=False)


def test_nbytes_is_the_bytes_of_the_elements_for_every_dtype():
    for dtype in dlarray.dtypes():
        for shape in ((), (0,), (3,), (2, 5)):
            x = dlarray.zeros(shape, dtype=dtype)
            size = x.size
            if dtype.is_subbyte:  # packed: elements share bytes, the last one rounded up
                assert x.nbytes == (size * dtype.bits + 7) // 8
                assert dlarray.zeros(shape, dtype=dtype, padded=True).nbytes == size
            else:
                assert x.nbytes == size * dtype.bits // 8
                if dtype.kind != "extended floating":
                    assert x.nbytes == np.zeros(shape, dtype=dtype.name).nbytes
    strided = dlarray.zeros((4, 6), dtype=dlarray.int16)[::2, ::3]
    assert strided.nbytes == 4 * 2 == as_numpy(strided).nbytes  # its elements, as NumPy counts
    packed = dlarray.subbyte.pack(dlarray.subbyte.from_codes([1, 2, 3], dlarray.float6_e2m3fn))
    assert packed.nbytes == 3  # 18 bits
    assert "nbytes" in dir(packed)


def test_asarray_dtype_change_copies():
    x = dlarray.asarray([1, 2])
    y = dlarray.asarray(x, dtype=dlarray.int8)
    assert y.dtype is dlarray.int8
    assert as_numpy(y).tolist() == [1, 2]


# ---- attributes ----

def test_attributes_of_a_2d_array():
    x = dlarray.zeros((2, 3), dtype=dlarray.uint8)
    assert x.size == 6
    assert x._strides == (3, 1)
    assert x.__dlpack_device__() == (1, 0)
    assert x.dtype.dlpack == (1, 8, 1)
    assert not x.readonly


def test_repr_shows_values_and_dtype():
    assert repr(dlarray.asarray([1, 2], dtype=dlarray.int8)) == (
        "dlarray.asarray([1, 2], dtype=dlarray.int8)"
    )


def test_arrays_support_weak_references():
    x = dlarray.zeros(2)
    ref = weakref.ref(x)
    assert ref() is x
    del x
    gc.collect()
    assert ref() is None


# ---- views ----

KEYS = [
    0, -1, slice(None), slice(1, None), slice(None, None, -1), slice(None, None, 2),
    (slice(None), 0), (0, slice(None, None, -1)), (Ellipsis, 1), (None, Ellipsis),
    (slice(1, 3), None, slice(None, None, -2)), (1, 2), (slice(5, 1),), Ellipsis,
    (slice(None), slice(0, 0)), (-2, Ellipsis, None),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_indexing_matches_numpy_and_shares_memory(key):
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    x = dlarray.from_dlpack(a)
    view = x[key]
    # A trailing ... makes NumPy return a 0-d view, not a scalar copy.
    full_key = key if isinstance(key, tuple) else (key,)
    expected = a[full_key if Ellipsis in full_key else (*full_key, Ellipsis)]
    assert view.shape == expected.shape
    assert as_numpy(view).tolist() == np.asarray(expected).tolist()
    assert view._owner is x._owner
    if expected.size:
        assert first_address(view) == np.asarray(expected).__array_interface__["data"][0]


def test_views_of_views_compose():
    a = np.arange(60.0).reshape(3, 4, 5)
    x = dlarray.from_dlpack(a)
    view = x[1:, ::-1][:, 1:3, ::2].T[0]
    assert as_numpy(view).tolist() == a[1:, ::-1][:, 1:3, ::2].T[0].tolist()


def test_writes_through_a_view_reach_the_parent():
    x = dlarray.zeros((3, 3), dtype=dlarray.int32)
    x[1, ::2] = 7
    x.T[2, 0] = 5
    assert as_numpy(x).tolist() == [[0, 0, 5], [7, 0, 7], [0, 0, 0]]


def test_setitem_accepts_a_dlarray_value():
    x = dlarray.zeros(3, dtype=dlarray.int32)
    x[:] = dlarray.asarray([1, 2, 3], dtype=dlarray.int32)
    assert as_numpy(x).tolist() == [1, 2, 3]


def test_a_view_keeps_the_memory_alive():
    x = dlarray.asarray([1.0, 2.0, 3.0])
    storage = weakref.ref(x._owner)
    view = x[1:]
    del x
    gc.collect()
    assert storage() is not None
    assert as_numpy(view).tolist() == [2.0, 3.0]
    del view
    gc.collect()
    assert storage() is None


def test_zero_d_and_zero_size_views():
    x = dlarray.asarray([[1, 2], [3, 4]])
    assert x[1, 0].shape == ()
    assert as_numpy(x[1, 0]).tolist() == 3
    assert x[1:1].shape == (0, 2)
    assert x[:, 2:].size == 0


@pytest.mark.parametrize("axes", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, 0, 1)])
def test_permute_dims_matches_numpy_transpose(axes):
    a = np.arange(24).reshape(2, 3, 4)
    x = dlarray.from_dlpack(a)
    assert as_numpy(dlarray.permute_dims(x, axes)).tolist() == a.transpose(axes).tolist()


def test_permute_dims_rejects_non_permutations():
    with pytest.raises(ValueError, match="not a permutation"):
        dlarray.permute_dims(dlarray.zeros((2, 3)), (0, 0))


def test_T_reverses_axes():
    a = np.arange(6).reshape(2, 3)
    assert as_numpy(dlarray.from_dlpack(a).T).tolist() == a.T.tolist()


def test_reshape_of_contiguous_data_is_a_view():
    x = dlarray.asarray(list(range(12)))
    y = dlarray.reshape(x, (3, -1))
    assert y.shape == (3, 4)
    assert y._owner is x._owner
    assert first_address(y) == first_address(x)


def test_reshape_of_strided_data_copies_when_allowed():
    a = np.arange(6).reshape(2, 3)
    x = dlarray.from_dlpack(a).T
    y = dlarray.reshape(x, (6,))
    assert as_numpy(y).tolist() == a.T.reshape(6).tolist()
    assert y._owner is not x._owner


def test_reshape_copy_true_always_copies():
    x = dlarray.asarray([1, 2, 3, 4])
    y = dlarray.reshape(x, (2, 2), copy=True)
    assert first_address(y) != first_address(x)


def test_views_keep_the_read_only_flag():
    x = dlarray.asarray(b"abcdef")
    assert x[1:].readonly and dlarray.reshape(x, (2, 3)).readonly


def test_copy_of_read_only_data_is_writable():
    x = dlarray.asarray(b"abc", copy=True)
    assert not x.readonly
    x[0] = 1


def test_host_buffer_is_aligned_and_sized():
    for n in (0, 1, 255, 4097):
        buf = _core.HostBuffer(n)
        assert buf.pointer % _core.HOST_ALIGNMENT == 0
        assert buf.nbytes == n
    with pytest.raises(ValueError, match="negative"):
        _core.HostBuffer(-1)
