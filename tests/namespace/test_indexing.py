"""Indexing (``x[key]``, ``x[key] = value``) and conversions of 0-d arrays
to Python scalars, as the Array API 2025.12 specifies them.

Values are checked against NumPy indexing the same data; what is a view
(basic indexing) is checked by writing through it, what is a copy
(integer-array and boolean-mask indexing) by writing to it.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

import dlarray as xp

ALL_DTYPES = (
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
)


def grid(shape=(3, 4, 5), dtype=xp.int64):
    """An array counting 0, 1, 2... in row-major order, and its NumPy twin
    (a separate copy, so dlarray writes cannot leak into the expectation)."""
    reference = np.arange(math.prod(shape)).reshape(shape)
    x = xp.reshape(xp.arange(math.prod(shape), dtype=dtype), shape)
    return x, reference.astype(np.dtype(dtype.name))


def as_numpy(x: xp.DLArray) -> np.ndarray:
    """A NumPy copy of ``x`` (through DLPack), for comparisons."""
    return np.array(np.from_dlpack(x), copy=True)


def same(x: xp.DLArray, expected: np.ndarray) -> None:
    assert isinstance(x, xp.DLArray)
    got = as_numpy(x)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


# ---- basic indexing: views ----

BASIC_KEYS = [
    0,
    -1,
    2,
    slice(None),
    slice(1, None),
    slice(None, None, -1),
    slice(-2, 0, -1),
    slice(5, 10),  # beyond the end: empty
    slice(2, 2),  # empty
    (1, 2),
    (1, 2, 3),
    (-1, -2, -3),
    (0, slice(None, None, 2)),
    (slice(None), 1),
    (slice(1, 3), slice(None), slice(None, None, -2)),
    Ellipsis,
    (Ellipsis, 0),
    (0, Ellipsis, 4),
    (slice(None), Ellipsis, slice(1, 3)),
    None,
    (None, 0, None, slice(None), None),
    (Ellipsis, None),
    (1, Ellipsis, None, 2),
    (),
]


@pytest.mark.parametrize("key", BASIC_KEYS, ids=repr)
def test_basic_indexing_matches_numpy(key):
    x, reference = grid()
    same(
        x[key],
        reference[key] if isinstance(reference[key], np.ndarray) else np.asarray(reference[key]),
    )


NEGATIVE_STRIDE_KEYS = [1, (1, 2), (slice(None), 1), (Ellipsis, 0), (0, slice(1, None)), (-1,)]


@pytest.mark.parametrize("key", NEGATIVE_STRIDE_KEYS, ids=repr)
def test_views_of_an_imported_reversed_view(key):
    # NumPy exports a[::-1] with data at its last element in memory, so a
    # view of it can start before that pointer: a negative offset from the
    # import's data, which is valid memory of the producer's.
    a = np.arange(12.0).reshape(3, 4)[::-1, ::-1]
    x = xp.from_dlpack(a)
    view = x[key]
    np.testing.assert_array_equal(np.from_dlpack(view), a[key])
    full = key if isinstance(key, tuple) else (key,)
    as_view = a[full if Ellipsis in full else (*full, Ellipsis)]  # a view, 0-d too
    assert xp.abi.data_pointer(view) == as_view.__array_interface__["data"][0]
    flipped = xp.flip(x, axis=0)[1:]  # the Python view path
    np.testing.assert_array_equal(np.from_dlpack(flipped), np.flip(a, 0)[1:])


def test_a_view_below_address_zero_is_refused():
    # A hostile layout whose second element lies 2**63 bytes before data.
    # The import refuses it (its span passes 2**63 - 1 bytes); made as a
    # view over real memory, a view of that element is refused (it would
    # start below address 0), and nothing reads there.
    toy = xp.abi.ToyProducer()
    memory = np.zeros(2, dtype=np.bool_)
    with pytest.raises(BufferError, match="span more than 2"):
        xp.abi.consume(toy.capsule(memory, (2,), (-(2**63),)))
    x = xp.from_dlpack(memory)._view((2,), (-(2**63),), 0)
    with pytest.raises(ValueError, match="addresses no real memory"):
        x[-1]
    with pytest.raises(ValueError, match="addresses no real memory"):
        xp.flip(x)
    assert np.from_dlpack(x[0]).item() is False  # the first element is fine


def test_an_integer_per_axis_gives_a_0d_array():
    x, reference = grid()
    item = x[1, 2, 3]
    assert isinstance(item, xp.DLArray)
    assert item.shape == ()
    assert int(item) == reference[1, 2, 3]
    z = xp.asarray(7.5)
    assert z[()].shape == () and float(z[()]) == 7.5
    assert z[...].shape == () and float(z[...]) == 7.5
    assert z[None].shape == (1,)


@pytest.mark.parametrize(
    "key",
    [1, (slice(None), 2), (Ellipsis, slice(1, 4, 2)), (slice(None, None, -1), 0, None)],
    ids=repr,
)
def test_basic_indexing_makes_views(key):
    x, reference = grid()
    view = x[key]
    view[...] = -1
    reference[key] = -1
    same(x, reference)


def test_writes_to_the_parent_show_in_the_view():
    x, _ = grid()
    view = x[1:, ::2]
    x[2, 2, 0] = 1000
    assert int(view[1, 1, 0]) == 1000


def test_views_of_views_write_through():
    x, reference = grid()
    inner = x[1][::-1][:, 2:4]
    inner[0, 0] = 77
    reference[1][::-1][:, 2:4][0, 0] = 77
    same(x, reference)


@pytest.mark.parametrize("name", ALL_DTYPES)
def test_indexing_keeps_the_dtype(name):
    dtype = getattr(xp, name)
    x = xp.ones((4, 3), dtype=dtype)
    assert x[1].dtype is dtype
    assert x[1:3, 0].dtype is dtype
    assert x[xp.asarray([0, 3])].dtype is dtype
    assert x[xp.asarray([True, False, True, False])].dtype is dtype
    assert x[0, 0].dtype is dtype


# ---- integer-array indexing: copies ----


def _int_keys():
    i = np.asarray([2, 0, 1, 2])
    j = np.asarray([[0], [2]])
    return [
        (i,),
        (i, slice(None)),
        (slice(None), np.asarray([3, -1, 0])),
        (i, np.asarray([0, 1, 2, 3])),
        (j, np.asarray([1, 2, 3])),  # broadcast: j is (2, 1), the other (3,)
        (np.asarray([-1, -3]),),
        (0, np.asarray([1, 1, 3])),
        (np.asarray([1]), 2, np.asarray([4, 0])),
        (Ellipsis, np.asarray([4, 0, 2])),
        (np.asarray(1), np.asarray([0, 2])),  # a 0-d index array broadcasts
        (np.asarray([], dtype=np.int64),),
    ]


def _key_id(key):
    return repr(tuple(k.tolist() if isinstance(k, np.ndarray) else k for k in key))


def _as_dlarray_key(key, dtype=xp.int64):
    return tuple(
        xp.asarray(k.tolist(), dtype=dtype) if isinstance(k, np.ndarray) else k for k in key
    )


@pytest.mark.parametrize("key", _int_keys(), ids=_key_id)
def test_integer_array_indexing_matches_numpy(key):
    x, reference = grid()
    same(x[_as_dlarray_key(key)], reference[key])


@pytest.mark.parametrize("index_dtype", ["int8", "int16", "int32", "uint8", "uint64"])
def test_integer_arrays_of_other_integer_dtypes(index_dtype):
    x, reference = grid()
    key = (np.asarray([2, 0]), slice(None), np.asarray([1, 4]))
    same(x[_as_dlarray_key(key, getattr(xp, index_dtype))], reference[key])


def test_integer_array_indexing_copies():
    x, reference = grid()
    taken = x[xp.asarray([0, 1])]
    taken[...] = -5
    same(x, reference)
    assert int(taken[1, 2, 3]) == -5


def test_a_0d_integer_array_is_an_integer_index():
    x, reference = grid()
    same(x[xp.asarray(2)], reference[2])
    same(x[1, xp.asarray(-1)], reference[1, -1])
    same(x[xp.asarray(0), xp.asarray(1), xp.asarray(2)], np.asarray(reference[0, 1, 2]))


# ---- boolean-mask indexing: copies ----


def _masks():
    rng = np.random.default_rng(3)
    return [
        rng.random((3, 4, 5)) < 0.5,  # same shape: selects elements
        rng.random((3, 4)) < 0.5,  # leading axes
        np.asarray([True, False, True]),
        np.zeros((3, 4, 5), dtype=bool),
        np.ones((3,), dtype=bool),
    ]


@pytest.mark.parametrize("mask", _masks(), ids=lambda m: f"mask{m.shape}")
def test_boolean_mask_indexing_matches_numpy(mask):
    x, reference = grid()
    same(x[xp.asarray(mask.tolist())], reference[mask])


def test_0d_boolean_masks_add_an_axis():
    x, reference = grid((2, 3))
    same(x[xp.asarray(True)], reference[np.True_])
    assert x[xp.asarray(True)].shape == (1, 2, 3)
    assert x[xp.asarray(False)].shape == (0, 2, 3)


def test_masks_with_zero_size_axes_select_nothing():
    # The standard: each mask axis must match the array's axis "or be 0".
    x, _ = grid((3, 4))
    assert x[xp.zeros((0,), dtype=xp.bool)].shape == (0, 4)
    assert x[xp.zeros((3, 0), dtype=xp.bool)].shape == (0,)


def test_boolean_mask_indexing_copies():
    x, reference = grid()
    selected = x[x > 30]
    selected[...] = 0
    same(x, reference)
    assert selected.shape == ((reference > 30).sum(),)


def test_boolean_mask_of_a_view():
    x, reference = grid()
    view = x[:, ::-2]
    same(view[view % 3 == 0], reference[:, ::-2][reference[:, ::-2] % 3 == 0])


# ---- setitem ----


def test_setitem_scalars():
    x, reference = grid(dtype=xp.float64)
    for key, value in [
        ((0, 0, 0), 1.5),
        (1, -2.0),
        ((slice(None), 2), 9),  # a Python int with a float array
        ((Ellipsis, -1), 4.25),
        ((2, slice(None, None, -2), slice(1, 3)), -7.0),
    ]:
        x[key] = value
        reference[key] = value
    same(x, reference)


def test_setitem_arrays_broadcast():
    x, reference = grid(dtype=xp.float32)
    row = np.asarray([10, 20, 30, 40, 50], dtype=np.float32)
    x[1] = xp.asarray(row.tolist(), dtype=xp.float32)
    reference[1] = row
    x[:, 0, :] = xp.asarray(-1.0, dtype=xp.float32)
    reference[:, 0, :] = -1.0
    column = np.asarray([[1], [2], [3], [4]], dtype=np.float32)
    x[2] = xp.asarray(column.tolist(), dtype=xp.float32)
    reference[2] = column
    same(x, reference)


def test_setitem_with_a_promotable_array_keeps_the_dtype():
    x = xp.zeros((3,), dtype=xp.int64)
    x[...] = xp.asarray([1, 2, 3], dtype=xp.int8)
    assert x.dtype is xp.int64
    same(x, np.asarray([1, 2, 3], dtype=np.int64))
    y = xp.zeros((2,), dtype=xp.complex128)
    y[0] = xp.asarray(2.5, dtype=xp.float32)
    y[1] = 1j
    same(y, np.asarray([2.5, 1j]))


def test_setitem_with_a_mask():
    x, reference = grid()
    x[x % 2 == 0] = 0
    reference[reference % 2 == 0] = 0
    same(x, reference)
    mask = np.asarray([True, False, True])
    x[xp.asarray(mask.tolist())] = xp.asarray([7, 8, 9, 10, 11])
    reference[mask] = [7, 8, 9, 10, 11]
    same(x, reference)


def test_setitem_with_integer_arrays():
    x, reference = grid()
    x[xp.asarray(1), xp.asarray(-1)] = 55  # 0-d index arrays are integers
    reference[1, -1] = 55
    x[xp.asarray([0, 2])] = -1
    reference[[0, 2]] = -1
    x[1, xp.asarray([3, 1]), 0] = xp.asarray([100, 200])
    reference[1, [3, 1], 0] = [100, 200]
    same(x, reference)


@pytest.mark.parametrize(
    ("dtype", "value"),
    [
        ("int64", 1.5),
        ("int8", 1j),
        ("int32", True),
        ("bool", 1),
        ("float32", 1j),
        ("float64", False),
    ],
)
def test_setitem_refuses_scalars_of_another_kind(dtype, value):
    x = xp.zeros((2,), dtype=getattr(xp, dtype))
    with pytest.raises(TypeError):
        x[0] = value
    assert x.dtype is getattr(xp, dtype)
    assert not xp.any(x)


@pytest.mark.parametrize(
    ("target", "source"),
    [
        ("int8", "int64"),
        ("float32", "float64"),
        ("int64", "float64"),
        ("float64", "complex64"),
        ("uint8", "int8"),
        ("bool", "int8"),
        ("int64", "uint64"),
    ],
)
def test_setitem_refuses_arrays_that_do_not_promote_to_its_dtype(target, source):
    x = xp.zeros((2,), dtype=getattr(xp, target))
    with pytest.raises(TypeError):
        x[...] = xp.ones((2,), dtype=getattr(xp, source))
    assert not xp.any(x)


def test_setitem_refuses_shapes_that_do_not_broadcast():
    x = xp.zeros((2, 3))
    with pytest.raises(ValueError):
        x[...] = xp.ones((3, 2))
    with pytest.raises(ValueError):
        x[0] = xp.ones((2,))


def test_setitem_refuses_other_values():
    x = xp.zeros((2,))
    for value in ([1.0, 2.0], np.ones(2), "1", None):
        with pytest.raises(TypeError):
            x[...] = value


# ---- index errors ----


@pytest.mark.parametrize(
    "key",
    [3, -4, (0, 4), (0, 0, 5), (0, -5), (slice(None), 4)],
    ids=repr,
)
def test_out_of_bounds_integers_raise_index_error(key):
    x, _ = grid()
    with pytest.raises(IndexError):
        x[key]
    with pytest.raises(IndexError):
        x[key] = 0


@pytest.mark.parametrize(
    "key",
    [[3], [0, -4], [[0, 1], [2, 3]]],
    ids=repr,
)
def test_out_of_bounds_index_arrays_raise_index_error(key):
    x, _ = grid()
    with pytest.raises(IndexError):
        x[xp.asarray(key)]
    with pytest.raises(IndexError):
        x[xp.asarray(key)] = 0


def test_float_indices_raise():
    x, _ = grid()
    with pytest.raises(TypeError):
        x[1.0]
    with pytest.raises(TypeError):
        x[0, 1.5]
    with pytest.raises(TypeError):
        x[slice(None), 2.0] = 1
    with pytest.raises(IndexError):
        x[xp.asarray([0.0, 1.0])]
    with pytest.raises(IndexError):
        x[xp.asarray([0, 1], dtype=xp.float32)] = 1
    with pytest.raises(IndexError):
        x[xp.asarray([1j])]


def test_other_index_objects_raise_type_error():
    x, _ = grid()
    for key in ("a", object(), (0, "1")):
        with pytest.raises((TypeError, IndexError)):
            x[key]


def test_too_many_indices_and_ellipses():
    x, _ = grid()
    with pytest.raises(IndexError):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError):
        x[..., 0, ...]
    with pytest.raises(IndexError):
        x[xp.asarray([0]), 0, 0, 0]


def test_wrong_masks_raise_index_error():
    x, _ = grid()
    with pytest.raises(IndexError):
        x[xp.asarray([True, False])]  # axis 0 has size 3
    with pytest.raises(IndexError):
        x[xp.ones((3, 4, 5, 1), dtype=xp.bool)]  # more axes than x


def test_index_arrays_that_do_not_broadcast_raise():
    x, _ = grid()
    with pytest.raises(IndexError):
        x[xp.asarray([0, 1]), xp.asarray([0, 1, 2])]


# ---- read-only arrays ----


def _readonly():
    a = np.arange(6.0).reshape(2, 3)
    a.flags.writeable = False
    x = xp.from_dlpack(a)
    return x, a


def test_numpy_readonly_arrays_arrive_readonly_and_zero_copy():
    x, a = _readonly()
    assert x.readonly
    assert x._data + x._byte_offset == a.ctypes.data
    same(x, a)


@pytest.mark.parametrize(
    "key",
    [0, (1, 2), Ellipsis, slice(None), "mask", "ints"],
    ids=repr,
)
def test_readonly_arrays_refuse_setitem(key):
    x, a = _readonly()
    if key == "mask":
        key = x > 2
    elif key == "ints":
        key = xp.asarray([1])
    with pytest.raises(ValueError):
        x[key] = 1.0
    with pytest.raises(ValueError):
        x[key] = xp.asarray(1.0)
    np.testing.assert_array_equal(a, np.arange(6.0).reshape(2, 3))


INPLACE = [
    "__iadd__",
    "__isub__",
    "__imul__",
    "__itruediv__",
    "__ifloordiv__",
    "__imod__",
    "__ipow__",
]
INPLACE_INTEGER = ["__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"]


def test_readonly_arrays_refuse_inplace_operators():
    x, a = _readonly()
    for op in INPLACE:
        with pytest.raises(ValueError):
            getattr(x, op)(2.0)
        with pytest.raises(ValueError):
            getattr(x, op)(xp.ones((2, 3)))
    ints = np.arange(4, dtype=np.int32)
    ints.flags.writeable = False
    y = xp.from_dlpack(ints)
    for op in INPLACE + INPLACE_INTEGER:
        with pytest.raises(ValueError):
            getattr(y, op)(1)
    square = np.eye(2)
    square.flags.writeable = False
    m = xp.from_dlpack(square)
    with pytest.raises(ValueError):
        m @= xp.ones((2, 2))
    np.testing.assert_array_equal(a, np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(ints, np.arange(4))
    np.testing.assert_array_equal(square, np.eye(2))


def test_views_of_readonly_arrays_are_readonly_and_results_are_writable():
    x, _ = _readonly()
    view = x[1, ::2]
    assert view.readonly
    with pytest.raises(ValueError):
        view[0] = 5.0
    result = x + 1
    assert not result.readonly
    result[0, 0] = 5.0
    picked = x[xp.asarray([0])]
    assert not picked.readonly
    picked[0, 0] = 5.0
    copy = xp.asarray(x, copy=True)
    copy[0, 0] = 5.0
    assert float(x[0, 0]) == 0.0


# ---- 0-d arrays to Python scalars ----


@pytest.mark.parametrize("name", ALL_DTYPES)
def test_bool_of_a_0d_array(name):
    dtype = getattr(xp, name)
    assert bool(xp.asarray(1, dtype=dtype)) is True
    assert bool(xp.asarray(0, dtype=dtype)) is False
    assert bool(xp.ones((1, 1), dtype=dtype)[0, 0]) is True


def test_bool_special_cases():
    for value, expected in [
        (math.nan, True),
        (math.inf, True),
        (-math.inf, True),
        (-0.0, False),
        (0.0, False),
        (1e-300, True),
    ]:
        assert bool(xp.asarray(value)) is expected, value
    assert bool(xp.asarray(0j)) is False
    assert bool(xp.asarray(1j)) is True
    assert bool(xp.asarray(complex(0.0, math.nan))) is True
    assert bool(xp.asarray(-0.0 - 0.0j, dtype=xp.complex64)) is False


@pytest.mark.parametrize("name", [n for n in ALL_DTYPES if not n.startswith("complex")])
def test_int_and_float_of_real_valued_and_bool_arrays(name):
    dtype = getattr(xp, name)
    one = xp.asarray(1, dtype=dtype)
    assert int(one) == 1 and type(int(one)) is int
    assert float(one) == 1.0 and type(float(one)) is float
    assert complex(one) == 1 + 0j and type(complex(one)) is complex


def test_int_of_floats_truncates_and_raises_per_the_standard():
    assert int(xp.asarray(-2.7)) == -2
    assert int(xp.asarray(2.7, dtype=xp.float32)) == 2
    assert int(xp.asarray(-0.0)) == 0
    with pytest.raises(OverflowError):
        int(xp.asarray(math.inf))
    with pytest.raises(OverflowError):
        int(xp.asarray(-math.inf, dtype=xp.float32))
    with pytest.raises(ValueError):
        int(xp.asarray(math.nan))


def test_integers_convert_exactly():
    big = 2**63 - 1
    assert int(xp.asarray(big, dtype=xp.int64)) == big
    assert int(xp.asarray(2**64 - 1, dtype=xp.uint64)) == 2**64 - 1
    assert int(xp.asarray(-128, dtype=xp.int8)) == -128
    assert operator.index(xp.asarray(2**64 - 1, dtype=xp.uint64)) == 2**64 - 1


def test_complex_conversions():
    z = xp.asarray(1.5 - 2j, dtype=xp.complex64)
    assert complex(z) == 1.5 - 2j
    assert complex(xp.asarray(True)) == 1 + 0j
    assert complex(xp.asarray(False)) == 0j
    assert complex(xp.asarray(-math.inf)) == complex(-math.inf, 0.0)
    nan = complex(xp.asarray(math.nan))
    assert math.isnan(nan.real)
    for name in ("complex64", "complex128"):
        w = xp.asarray(1 + 1j, dtype=getattr(xp, name))
        with pytest.raises(TypeError):
            int(w)
        with pytest.raises(TypeError):
            float(w)
        with pytest.raises(TypeError):
            operator.index(w)


def test_index_needs_an_integer_array():
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        i = xp.asarray(2, dtype=getattr(xp, name))
        assert operator.index(i) == 2
        assert [10, 20, 30][i] == 30
        assert "abcd"[: xp.asarray(3, dtype=getattr(xp, name))] == "abc"
    for name in ("float32", "float64", "complex64"):
        with pytest.raises(TypeError):
            operator.index(xp.asarray(2, dtype=getattr(xp, name)))
        with pytest.raises(TypeError):
            [10, 20, 30][xp.asarray(1, dtype=getattr(xp, name))]


@pytest.mark.parametrize("convert", [bool, int, float, complex, operator.index])
@pytest.mark.parametrize("shape", [(1,), (2,), (1, 1), (0,)])
def test_only_0d_arrays_convert(convert, shape):
    x = xp.ones(shape, dtype=xp.int64)
    with pytest.raises(TypeError):
        convert(x)


# ---- iteration ----


def test_iterating_a_1d_array_yields_0d_arrays():
    # The standard: for a one-dimensional array, iteration should produce
    # x[0], x[1], ..., x[N-1].
    x = xp.asarray([3, 1, 2], dtype=xp.int16)
    items = list(x)
    assert len(items) == 3
    for item, expected in zip(items, [3, 1, 2], strict=True):
        assert isinstance(item, xp.DLArray)
        assert item.shape == () and item.dtype is xp.int16
        assert int(item) == expected
