"""dlarray <-> NumPy (``nox -s 'interop(numpy)'``; also part of ``nox -s tests``).

NumPy follows the specification closely: versioned capsules both ways,
READ_ONLY honoured both ways, ``copy``/``device`` keywords.  Before 2.5 it
has no bfloat16/fp8/fp6/fp4 through DLPack, so dlarray carries them as
ml_dtypes arrays (below).  From NumPy 2.5, ml_dtypes (0.7 and later)
registers bfloat16 and the eight fp8 types in NumPy's DLPack dtype registry
(``numpy.dtypes.register_dlpack_dtype``, numpy#31256), and :class:`TestNumpy`
exchanges those through DLPack too, both ways, zero-copy (the peers table
adds them to NumPy's dtypes); fp6 and fp4, one byte per element in
ml_dtypes but packed in DLPack, stay unregistered.  The shared matrix is
:class:`TestNumpy`; the rest of this module goes deeper into NumPy's layouts
and dtypes.

Zero-copy exchange with NumPy, both directions.

numpy -> dlarray goes through ``dlarray.from_dlpack``; dlarray -> numpy
through ``np.from_dlpack``.  "Zero copy" is checked by pointer identity: the
address of the first element on one side equals the address on the other.
bfloat16 and the fp8/fp6/fp4 types, which NumPy cannot exchange through
DLPack itself, travel through ``dlarray._engine.numpy_engine`` as ml_dtypes
arrays.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from peer_suite import FP8_DTYPES, STANDARD_DTYPES, SUBBYTE_DTYPES, InteropSuite, PeerUnderTest

import dlarray
from dlarray import _core
from dlarray._engine import numpy_engine
from dlarray._peers import peer_named

ml_dtypes = pytest.importorskip("ml_dtypes")


class TestNumpy(InteropSuite):
    peer = PeerUnderTest(peer_named("numpy"), np, kinds=["cpu"])


# ---- helpers ----


def address(x: dlarray.DLArray) -> int:
    """The address of ``x``'s first element."""
    return x._data + x._byte_offset


def np_address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def base_array() -> np.ndarray:
    return np.arange(24, dtype=np.float64).reshape(4, 6) * 1.5 - 7


# Views of a 4x6 NumPy array, made on the NumPy side.
NUMPY_VIEWS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "sliced": lambda a: a[1:, ::2],
    "reversed_rows": lambda a: a[::-1],
    "reversed_columns": lambda a: a[:, ::-1],
    "reversed_both": lambda a: a[::-1, ::-3],
    "zero_d": lambda a: a[2, 3, ...],
    "column": lambda a: a[:, 4],
}

# The same views, made on the dlarray side, with the NumPy expression that
# must give the same elements.
DLARRAY_VIEWS = {
    "transposed": (lambda x: x.T, lambda a: a.T),
    "reversed_rows": (lambda x: x[::-1], lambda a: a[::-1]),
    "reversed_columns": (lambda x: x[:, ::-1], lambda a: a[:, ::-1]),
    "sliced": (lambda x: x[1:, ::2], lambda a: a[1:, ::2]),
    "new_axis_ellipsis_index": (lambda x: x[None, ..., 0], lambda a: a[None, ..., 0]),
    "integer_index": (lambda x: x[2], lambda a: a[2]),
    "zero_d": (lambda x: x[1, 5], lambda a: a[1, 5, ...]),
    "transposed_then_reversed": (lambda x: x.T[::-2], lambda a: a.T[::-2]),
}

ZERO_SIZE_SHAPES = [(0,), (4, 0, 4), (0, 3)]

# Every dtype NumPy itself exchanges through DLPack.
NUMPY_DTYPES = list(STANDARD_DTYPES)

# The extended floating types, carried by ml_dtypes on the NumPy side.
EXTENDED_DTYPES = ["bfloat16", *FP8_DTYPES, *SUBBYTE_DTYPES]


def sample_values(name: str) -> np.ndarray:
    """Eight values of dtype ``name`` (as float64 or the NumPy type) that
    every such dtype represents exactly, not all equal."""
    if name == "bool":
        return np.array([True, False, False, True, True, False, True, False])
    if name.startswith("uint"):
        return np.array([0, 1, 2, 3, 5, 8, 13, 127], dtype=name)
    if name.startswith("int"):
        return np.array([-128, -3, -1, 0, 1, 2, 7, 127], dtype=name)
    if name.startswith("complex"):
        return np.array([1 + 2j, -3.5j, 0, 4.25, -1 - 1j, 2j, 0.5, -8], dtype=name)
    if name == "float8_e8m0fnu":  # unsigned powers of two, no zero
        return np.array([0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 0.125, 1.0])
    if name.startswith("float") and name in NUMPY_DTYPES:
        return np.array([-4.0, -1.5, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0], dtype=name)
    return np.array([-4.0, -1.5, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0])


def numpy_of(name: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, name)) if name in EXTENDED_DTYPES else np.dtype(name)


def assert_same_elements(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    assert got.tolist() == want.tolist()


# ---- the dtype tables cover dlarray's dtypes ----


def test_dtype_tables_cover_every_dlarray_dtype():
    assert sorted(NUMPY_DTYPES + EXTENDED_DTYPES) == sorted(d.name for d in dlarray.dtypes())


# ---- numpy -> dlarray -> numpy, views made by NumPy ----


@pytest.mark.parametrize("view", NUMPY_VIEWS.values(), ids=NUMPY_VIEWS.keys())
def test_numpy_view_imports_zero_copy_with_its_layout(view):
    a = view(base_array())
    x = dlarray.from_dlpack(a)
    assert address(x) == np_address(a)
    assert x.shape == a.shape
    assert x._strides == tuple(s // a.itemsize for s in a.strides)
    assert x.dtype is dlarray.float64


@pytest.mark.parametrize("view", NUMPY_VIEWS.values(), ids=NUMPY_VIEWS.keys())
def test_numpy_view_round_trips_to_numpy_with_same_memory_and_values(view):
    a = view(base_array())
    x = dlarray.from_dlpack(a)
    b = np.from_dlpack(x)
    assert np_address(b) == np_address(a)
    assert b.strides == a.strides
    assert_same_elements(b, a)
    assert np.shares_memory(a, b) or a.size <= 1


@pytest.mark.parametrize("shape", ZERO_SIZE_SHAPES, ids=str)
def test_zero_size_numpy_array_round_trips(shape):
    a = np.zeros(shape, dtype=np.float32)
    x = dlarray.from_dlpack(a)
    assert x.shape == shape
    assert x.size == 0
    assert x.dtype is dlarray.float32
    b = np.from_dlpack(x)  # exported with data=NULL: no pointer check
    assert b.shape == shape
    assert b.dtype == np.float32
    assert b.size == 0


@pytest.mark.parametrize("shape", ZERO_SIZE_SHAPES, ids=str)
def test_zero_size_dlarray_exports_to_numpy(shape):
    x = dlarray.zeros(shape, dtype=dlarray.int16)
    b = np.from_dlpack(x)
    assert b.shape == shape
    assert b.dtype == np.int16
    y = dlarray.from_dlpack(b)
    assert y.shape == shape
    assert y.dtype is dlarray.int16


def test_zero_d_dlarray_exports_to_numpy_zero_copy():
    x = dlarray.asarray(3.25, dtype=dlarray.float32)
    b = np.from_dlpack(x)
    assert b.shape == ()
    assert np_address(b) == address(x)
    assert b.item() == 3.25


# ---- dlarray -> numpy -> dlarray, views made by dlarray ----


@pytest.mark.parametrize("make", DLARRAY_VIEWS.values(), ids=DLARRAY_VIEWS.keys())
def test_dlarray_view_exports_to_numpy_zero_copy_with_right_elements(make):
    dl_view, np_view = make
    a = base_array()
    x = dlarray.from_dlpack(a)
    v = dl_view(x)
    b = np.from_dlpack(v)
    assert np_address(b) == address(v)
    assert_same_elements(b, np_view(a))
    assert b.strides == np_view(a).strides


@pytest.mark.parametrize("make", DLARRAY_VIEWS.values(), ids=DLARRAY_VIEWS.keys())
def test_view_of_dlarray_owned_memory_round_trips_back_to_dlarray(make):
    dl_view, np_view = make
    want = base_array()
    x = dlarray.asarray(want.tolist(), dtype=dlarray.float64)  # dlarray's own memory
    v = dl_view(x)
    b = np.from_dlpack(v)
    y = dlarray.from_dlpack(b)
    assert address(y) == address(v)
    assert y.shape == v.shape
    assert y._strides == v._strides
    assert_same_elements(np.from_dlpack(y), np_view(want))


# ---- dtypes ----


@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_numpy_dtype_round_trips_numpy_to_dlarray_to_numpy(name):
    a = sample_values(name).astype(name).reshape(2, 4)[:, ::-1]
    x = dlarray.from_dlpack(a)
    assert x.dtype is getattr(dlarray, name)
    assert address(x) == np_address(a)
    b = np.from_dlpack(x)
    assert np_address(b) == np_address(a)
    assert_same_elements(b, a)


@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_numpy_dtype_round_trips_dlarray_to_numpy_to_dlarray(name):
    want = sample_values(name).astype(name)
    x = dlarray.asarray(want.tolist(), dtype=getattr(dlarray, name))
    b = np.from_dlpack(x)
    assert b.dtype == np.dtype(name)
    assert np_address(b) == address(x)
    assert_same_elements(b, want)
    y = dlarray.from_dlpack(b)
    assert y.dtype is x.dtype
    assert address(y) == address(x)


@pytest.mark.parametrize("name", EXTENDED_DTYPES)
def test_extended_dtype_numpy_to_dlarray_to_numpy_zero_copy(name):
    want = sample_values(name).astype(numpy_of(name))
    a = want.reshape(2, 4)[::-1, 1::2]  # strided, negative stride
    x = numpy_engine.from_numpy(a)
    assert x.dtype is getattr(dlarray, name)
    assert x._padded == (name in SUBBYTE_DTYPES)
    assert address(x) == np_address(a)
    b = numpy_engine.to_numpy(x)
    assert b.dtype == numpy_of(name)
    assert np_address(b) == np_address(a)
    assert b.strides == a.strides
    assert_same_elements(b, want.reshape(2, 4)[::-1, 1::2])


@pytest.mark.parametrize("name", EXTENDED_DTYPES)
def test_extended_dtype_dlarray_to_numpy_to_dlarray_zero_copy(name):
    values = sample_values(name)
    x = dlarray.asarray(values.tolist(), dtype=getattr(dlarray, name))
    b = numpy_engine.to_numpy(x)
    assert b.dtype == numpy_of(name)
    assert np_address(b) == address(x)
    assert b.astype(np.float64).tolist() == values.tolist()
    y = numpy_engine.from_numpy(b)
    assert y.dtype is x.dtype
    assert address(y) == address(x)
    assert numpy_engine.to_numpy(y).astype(np.float64).tolist() == values.tolist()


@pytest.mark.parametrize("name", EXTENDED_DTYPES)
def test_extended_dtype_writes_through_numpy_view_reach_dlarray(name):
    x = dlarray.zeros(4, dtype=getattr(dlarray, name), padded=True)
    b = numpy_engine.to_numpy(x)
    b[2] = 2.0
    assert numpy_engine.to_numpy(x).astype(np.float64)[2] == 2.0


# ---- read-only ----


def test_non_writeable_numpy_array_imports_read_only():
    a = np.arange(5, dtype=np.int32)
    a.flags.writeable = False
    x = dlarray.from_dlpack(a)
    assert x.readonly
    assert x._owner.flags & _core.FLAG_READ_ONLY
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1
    assert a[0] == 0


def test_read_only_numpy_array_stays_read_only_through_dlarray():
    a = np.arange(5, dtype=np.int32)
    a.flags.writeable = False
    b = np.from_dlpack(dlarray.from_dlpack(a)[1:])
    assert not b.flags.writeable
    assert np_address(b) == np_address(a[1:])
    with pytest.raises(ValueError):
        b[0] = 1


def test_read_only_dlarray_exports_non_writeable_ndarray():
    x = dlarray.asarray(b"abc")
    assert x.readonly
    b = np.from_dlpack(x)
    assert not b.flags.writeable
    assert np_address(b) == address(x)
    assert b.tolist() == [97, 98, 99]
    with pytest.raises(ValueError):
        b[0] = 0


def test_zero_size_read_only_dlarray_exports_with_read_only_flag():
    x = dlarray.asarray(b"")
    assert x.readonly and x.size == 0
    y = _core.consume(x.__dlpack__(max_version=(1, 3)))
    assert y._owner.flags & _core.FLAG_READ_ONLY
    assert y.readonly


@pytest.mark.parametrize("name", ["bfloat16", "float8_e5m2", "float4_e2m1fn"])
def test_read_only_ml_dtypes_array_stays_read_only_both_ways(name):
    a = sample_values(name).astype(numpy_of(name))
    a.flags.writeable = False
    x = numpy_engine.from_numpy(a)
    assert x.readonly
    assert address(x) == np_address(a)
    b = numpy_engine.to_numpy(x)
    assert not b.flags.writeable
    assert np_address(b) == np_address(a)


def test_writable_round_trip_stays_writable():
    a = np.arange(6, dtype=np.float32)
    x = dlarray.from_dlpack(a)
    assert not x.readonly
    assert x._owner.flags & _core.FLAG_READ_ONLY == 0
    b = np.from_dlpack(x)
    assert b.flags.writeable


def test_writes_through_numpy_are_visible_in_dlarray():
    x = dlarray.zeros((2, 3), dtype=dlarray.int64)
    b = np.from_dlpack(x)
    b[1, 2] = 42
    assert np.from_dlpack(x)[1, 2] == 42
    assert np.from_dlpack(x[1])[2] == 42


def test_writes_through_dlarray_are_visible_in_numpy():
    a = np.zeros((2, 3), dtype=np.int64)
    x = dlarray.from_dlpack(a)
    x[0, 1] = 7
    x[1] = dlarray.asarray([1, 2, 3])
    assert a.tolist() == [[0, 7, 0], [1, 2, 3]]


def test_writes_through_a_reversed_dlarray_view_land_in_the_right_numpy_elements():
    a = np.zeros(5, dtype=np.int32)
    x = dlarray.from_dlpack(a)[::-1]
    x[0] = 9
    assert a.tolist() == [0, 0, 0, 0, 9]


# ---- copy= and device= ----


def test_numpy_from_dlpack_copy_true_gives_a_separate_copy():
    a = base_array()
    x = dlarray.from_dlpack(a).T
    b = np.from_dlpack(x, copy=True)
    assert np_address(b) != address(x)
    assert not np.shares_memory(a, b)
    assert_same_elements(b, a.T)
    b[0, 0] = 1000
    assert a[0, 0] != 1000


def test_numpy_from_dlpack_copy_false_is_zero_copy():
    x = dlarray.asarray([1.0, 2.0, 3.0])
    b = np.from_dlpack(x, copy=False)
    assert np_address(b) == address(x)


def test_dlarray_from_dlpack_copy_true_gives_a_separate_copy():
    a = base_array()[::-1]
    x = dlarray.from_dlpack(a, copy=True)
    assert address(x) != np_address(a)
    assert_same_elements(np.from_dlpack(x), a)
    x[0, 0] = 1000
    assert a[0, 0] != 1000


def test_copy_of_read_only_dlarray_exports_writable():
    x = dlarray.asarray(b"abc")
    b = np.from_dlpack(x, copy=True)
    assert b.flags.writeable
    assert np_address(b) != address(x)
    assert b.tolist() == [97, 98, 99]


def test_copy_of_read_only_numpy_array_imports_writable():
    a = np.arange(3.0)
    a.flags.writeable = False
    x = dlarray.from_dlpack(a, copy=True)
    assert not x.readonly
    assert address(x) != np_address(a)
    x[0] = 5.0
    assert a[0] == 0.0
    assert np.from_dlpack(x).tolist() == [5.0, 1.0, 2.0]


def test_numpy_from_dlpack_to_cpu_device_is_zero_copy():
    x = dlarray.asarray([1.0, 2.0, 3.0])[::-1]
    b = np.from_dlpack(x, device="cpu")
    assert np_address(b) == address(x)
    assert b.tolist() == [3.0, 2.0, 1.0]


def test_dlarray_from_dlpack_copy_false_is_zero_copy():
    a = base_array()[:, ::2]
    x = dlarray.from_dlpack(a, copy=False)
    assert address(x) == np_address(a)


@pytest.mark.parametrize("device", ["cpu", (1, 0), dlarray.Device("cpu", 0)], ids=str)
def test_dlarray_from_dlpack_to_cpu_device_is_zero_copy(device):
    a = base_array()
    x = dlarray.from_dlpack(a, device=device)
    assert x.device == dlarray.Device("cpu", 0)
    assert address(x) == np_address(a)
    assert_same_elements(np.from_dlpack(x), a)


# ---- lifetimes ----


def test_dlarray_outlives_its_numpy_source():
    a = base_array()
    want = a.copy()
    x = dlarray.from_dlpack(a)
    del a
    gc.collect()
    np.full((4, 6), -1.0)  # reuse freed memory if any was freed
    assert_same_elements(np.from_dlpack(x), want)


def test_numpy_array_outlives_the_dlarray_it_came_from():
    x = dlarray.asarray([[1, 2], [3, 4]], dtype=dlarray.int32)
    b = np.from_dlpack(x.T)
    del x
    gc.collect()
    dlarray.asarray([[9, 9], [9, 9]], dtype=dlarray.int32)
    assert b.tolist() == [[1, 3], [2, 4]]


def test_imported_data_keeps_numpy_array_alive_until_dlarray_dies():
    a = np.arange(8.0)
    alive = weakref.ref(a)
    x = dlarray.from_dlpack(a)
    del a
    gc.collect()
    assert alive() is not None
    view = x[2:]
    del x
    gc.collect()
    assert alive() is not None  # the view still uses the memory
    assert np.from_dlpack(view).tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    del view
    gc.collect()
    assert alive() is None


def test_exported_data_keeps_dlarray_alive_until_numpy_array_dies():
    x = dlarray.asarray([1.0, 2.0, 3.0])
    alive = weakref.ref(x)
    b = np.from_dlpack(x)
    del x
    gc.collect()
    assert alive() is not None
    assert b.tolist() == [1.0, 2.0, 3.0]
    del b
    gc.collect()
    assert alive() is None


def test_extended_dtype_view_keeps_ml_dtypes_source_alive():
    a = np.array([1.0, 2.0, 3.0], dtype=ml_dtypes.bfloat16)
    alive = weakref.ref(a)
    x = numpy_engine.from_numpy(a)
    del a
    gc.collect()
    assert alive() is not None
    assert numpy_engine.to_numpy(x).astype(np.float64).tolist() == [1.0, 2.0, 3.0]
    del x
    gc.collect()
    assert alive() is None
