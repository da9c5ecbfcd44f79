"""Indexing with arrays, sorting and the set functions, computed with the
standard's functions on any engine.

On the host, NumPy takes keys with arrays as they are (its namespace's
``_dlarray_getitem``/``_dlarray_setitem``); every other engine takes
dlarray's general path, built from the standard's functions
(``dlarray._api.indexing_object``).  The ``path`` fixture runs each test on
both, so the general path is checked against NumPy on the host too; under
``DLARRAY_HOST_ENGINE=array_api_strict`` both runs take it.

Out-of-range indices raise ``IndexError`` on every engine (CuPy's own
``take`` and indexing wrap them round silently): dlarray checks them itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dlarray as xp
from dlarray._api import indexing_object
from dlarray._engine.routing import engine_view


@pytest.fixture(params=["engine's own", "general"])
def path(request, monkeypatch):
    """Which path keys with arrays take: the engine's own indexing where its
    namespace has one (NumPy's), or the general one every engine can take."""
    if request.param == "general":
        view_type = type(engine_view(xp.zeros((1,))))
        no_hooks = indexing_object._Hooks(None, None)
        monkeypatch.setattr(indexing_object, "_HOOKS", {view_type: no_hooks})
    return request.param


def grid(shape=(3, 4, 5)):
    """An int64 array counting 0, 1, 2... and its NumPy twin (a copy)."""
    reference = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    return xp.reshape(xp.arange(math.prod(shape), dtype=xp.int64), shape), reference


def as_numpy(x):
    return np.array(np.from_dlpack(x), copy=True)


def dl(k, dtype=None):
    """A key item as dlarray's (NumPy arrays become dlarray arrays)."""
    if not isinstance(k, np.ndarray):
        return k
    name = dtype or ("bool" if k.dtype == bool else "int64")
    return xp.reshape(xp.asarray(k.reshape(-1).tolist(), dtype=getattr(xp, name)), k.shape)


def dl_key(key, dtype=None):
    return tuple(dl(k, dtype) for k in key) if isinstance(key, tuple) else dl(key, dtype)


_I = np.asarray([2, 0, 1, 2])
_RNG = np.random.default_rng(19)
KEYS = [
    _I,
    (_I, slice(None), np.asarray([4, -1, 0, 4])),  # arrays apart: their axis first
    (slice(None), np.asarray([[3], [-1]]), np.asarray([0, 4])),  # together: in place
    (1, np.asarray([0, 3]), Ellipsis),
    (np.asarray([0, 2]), Ellipsis, 1),  # an ellipsis between them, even standing for nothing
    (np.asarray([[0, 1]]), None, np.asarray([[2], [3]])),  # None between them
    (slice(5, None), np.asarray([1])),  # an empty slice beyond the end
    (slice(None, None, -2), 2, np.asarray([1, 1, 1])),
    np.asarray([], dtype=np.int64),
    _RNG.random((3, 4)) < 0.5,  # a mask of the leading axes
    _RNG.random((3, 4, 5)) < 0.5,
    (slice(None), _RNG.random((4, 5)) < 0.5),  # a mask after a slice
    (np.asarray([True, False, True]), np.asarray([1, 3])),  # a mask and an array together
    (Ellipsis, np.asarray([False, True, True, False, True])),
    np.zeros((0,), dtype=bool),  # a mask axis of extent 0 selects nothing
    (np.asarray(True), 1),  # a 0-d mask: a new axis
    (np.asarray(False), slice(None)),
]


def _key_id(key):
    items = key if isinstance(key, tuple) else (key,)
    return repr(tuple(k.shape if isinstance(k, np.ndarray) else k for k in items))


@pytest.mark.parametrize("key", KEYS, ids=_key_id)
def test_keys_with_arrays_read_and_write_as_numpy(path, key):
    x, reference = grid()
    expected = reference[key]
    got = x[dl_key(key)]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(as_numpy(got), expected)
    values = -1 - np.arange(expected.size, dtype=np.int64).reshape(expected.shape)
    reference[key] = values
    x[dl_key(key)] = dl(values)
    np.testing.assert_array_equal(as_numpy(x), reference)
    x[dl_key(key)] = 7  # a Python scalar, broadcast
    reference[key] = 7
    np.testing.assert_array_equal(as_numpy(x), reference)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "uint64"])
def test_index_arrays_of_every_integer_dtype(path, dtype):
    x, reference = grid()
    key = (np.asarray([2, 0]), slice(None), np.asarray([1, 4]))
    np.testing.assert_array_equal(as_numpy(x[dl_key(key, dtype)]), reference[key])
    x[dl_key(key, dtype)] = -3
    reference[key] = -3
    np.testing.assert_array_equal(as_numpy(x), reference)


def test_a_position_given_twice_takes_the_last_value(path):
    x = xp.zeros((4,), dtype=xp.int64)
    x[xp.asarray([1, 3, 1, -3])] = xp.asarray([10, 20, 30, 40])
    np.testing.assert_array_equal(as_numpy(x), [0, 40, 0, 20])


def test_setitem_with_a_mask_into_a_bool_array(path):
    x = xp.zeros((2, 3), dtype=xp.bool)
    x[xp.asarray([[True, False, True], [False, False, True]])] = True
    x[xp.asarray([1]), xp.asarray([0])] = True
    np.testing.assert_array_equal(as_numpy(x), [[True, False, True], [True, False, True]])


def test_writes_through_a_strided_view(path):
    x, reference = grid()
    view = x[:, ::-2]
    view[xp.asarray([0, 2]), xp.asarray([1, 0])] = xp.asarray([[100, 101, 102, 103, 104]])
    reference[:, ::-2][[0, 2], [1, 0]] = [[100, 101, 102, 103, 104]]
    np.testing.assert_array_equal(as_numpy(x), reference)


# ---- out-of-range indices ----

OUT_OF_RANGE = [[3], [-4], [0, 1, 3], [[0], [-4]]]


@pytest.mark.parametrize("indices", OUT_OF_RANGE, ids=repr)
def test_out_of_range_index_arrays_raise_index_error(path, indices):
    x, reference = grid((3, 4))
    key = xp.asarray(indices)
    with pytest.raises(IndexError):
        x[key]
    with pytest.raises(IndexError):
        x[key] = 0
    with pytest.raises(IndexError):
        x[:, xp.asarray([4])]
    with pytest.raises(IndexError):
        # merged, the positions (0, 5) would fall inside the array
        x[xp.asarray([0]), xp.asarray([5])]
    np.testing.assert_array_equal(as_numpy(x), reference)


def test_uint64_indices_past_the_int64_range_raise_index_error(path):
    x, _ = grid((3,))
    for value in (2**64 - 1, 2**63):
        key = xp.asarray([0, value], dtype=xp.uint64)
        with pytest.raises(IndexError):
            x[key]
        with pytest.raises(IndexError):
            x[key] = 1
        with pytest.raises(IndexError):
            xp.take(x, key)


@pytest.mark.parametrize("indices", [[3], [-4], [0, 2**40], [2**64 - 1]], ids=repr)
def test_take_raises_index_error_out_of_range(indices):
    x, _ = grid((2, 3))
    dtype = xp.uint64 if indices[-1] >= 2**63 else xp.int64
    with pytest.raises(IndexError):
        xp.take(x, xp.asarray(indices, dtype=dtype), axis=1)
    column = xp.reshape(xp.asarray(indices, dtype=dtype), (-1, 1))[-1:]
    with pytest.raises(IndexError):
        xp.take_along_axis(x, xp.concat([column, column]), axis=1)


def test_take_and_take_along_axis_count_negative_indices_from_the_end():
    x, reference = grid((2, 3))
    got = xp.take(x, xp.asarray([-1, 0, -3], dtype=xp.int8), axis=1)
    np.testing.assert_array_equal(as_numpy(got), reference[:, [2, 0, 0]])
    got = xp.take_along_axis(x, xp.asarray([[-1], [1]]), axis=1)
    np.testing.assert_array_equal(as_numpy(got), [[2], [4]])
    assert xp.take(x, xp.asarray([], dtype=xp.uint64), axis=0).shape == (0, 3)


# ---- sorting ----


def test_descending_stable_sorts_keep_equal_elements_in_order():
    zeros = xp.asarray([0.0, -0.0, 1.0, 0.0, -0.0])
    signs = np.signbit(as_numpy(xp.sort(zeros, descending=True)))
    assert signs.tolist() == [False, False, True, False, True]
    ties = xp.asarray([3, 1, 3, 2, 1, 3])
    assert as_numpy(xp.argsort(ties, descending=True)).tolist() == [0, 2, 5, 3, 1, 4]
    assert as_numpy(xp.argsort(ties)).tolist() == [1, 4, 3, 0, 2, 5]


@pytest.mark.parametrize("stable", [True, False])
@pytest.mark.parametrize("descending", [True, False])
def test_sorts_of_a_matrix_along_each_axis(stable, descending):
    data = np.asarray([[2.0, np.nan, -1.0, 5.0], [np.inf, 0.5, 0.5, -np.inf], [1.0, 2.0, 3.0, 4.0]])
    x = xp.asarray(data.tolist())
    for axis in (0, 1, -1):
        expected = np.sort(data, axis=axis)
        if descending:  # NaN first
            expected = np.flip(expected, axis=axis)
        got = xp.sort(x, axis=axis, descending=descending, stable=stable)
        np.testing.assert_array_equal(as_numpy(got), expected)
        order = xp.argsort(x, axis=axis, descending=descending, stable=stable)
        assert order.dtype is xp.int64
        picked = np.take_along_axis(data, as_numpy(order), axis=axis)
        np.testing.assert_array_equal(picked, expected)


# ---- sets ----


def test_unique_of_complex_values_with_nans():
    # Sorted by real part, then imaginary part; each value with a NaN part
    # is a value of its own, and -0 joins +0.
    values = [2 + 1j, complex(math.nan, 0.0), 1 - 1j, 2 + 1j, complex(0.0, math.nan), -0.0, 0j]
    r = xp.unique_all(xp.asarray(values))
    got = as_numpy(r.values)
    nan = np.isnan(got)
    assert got[~nan].tolist() == [0j, 1 - 1j, 2 + 1j] and nan.sum() == 2
    counts, first = as_numpy(r.counts), as_numpy(r.indices)
    assert counts[~nan].tolist() == [2, 1, 2] and counts[nan].tolist() == [1, 1]
    assert first[~nan].tolist() == [5, 2, 0] and sorted(first[nan].tolist()) == [1, 4]
    rebuilt = got[as_numpy(r.inverse_indices)]
    same = (rebuilt == np.asarray(values)) | (np.isnan(rebuilt) & np.isnan(values))
    assert same.all()


def test_unique_of_bools_and_of_nothing():
    r = xp.unique_all(xp.asarray([[True, False], [True, True]]))
    assert as_numpy(r.values).tolist() == [False, True]
    assert as_numpy(r.counts).tolist() == [1, 3]
    assert as_numpy(r.inverse_indices).tolist() == [[1, 0], [1, 1]]
    empty = xp.unique_all(xp.zeros((0, 2)))
    assert [a.shape for a in empty] == [(0,), (0,), (0, 2), (0,)]
    assert empty.counts.dtype is xp.int64 and empty.inverse_indices.dtype is xp.int64


@pytest.mark.parametrize("value", [2**70, -(2**63) - 1, 300, -1])
def test_isin_with_an_int_outside_the_dtype_is_a_new_array_of_the_engine(value):
    dtype = xp.uint8 if value in (300, -1) else xp.int64
    x = xp.asarray([1, 2, 3], dtype=dtype)
    for invert in (False, True):
        got = xp.isin(x, value, invert=invert)
        assert got.dtype is xp.bool and got.shape == (3,) and got.device == x.device
        assert as_numpy(got).tolist() == [invert] * 3
        got = xp.isin(value, x, invert=invert)
        assert got.shape == () and bool(got) is invert and got.device == x.device
        assert type(engine_view(got)) is type(engine_view(x))  # on x's engine


# ---- new arrays ----


def test_tile_of_an_empty_read_only_array_is_new_writable_memory():
    source = np.zeros((0, 3))
    source.flags.writeable = False
    x = xp.from_dlpack(source)
    tiled = xp.tile(x, (2, 2))
    assert tiled.shape == (0, 6) and not tiled.readonly


def test_repeat_checks_its_counts():
    x = xp.asarray([1, 2, 3])
    with pytest.raises(ValueError):
        xp.repeat(x, xp.asarray([1, -1, 2]))
    with pytest.raises(ValueError):
        xp.repeat(x, xp.asarray([1, 2**63, 2], dtype=xp.uint64))
    got = xp.repeat(x, xp.asarray([2, 0, 1], dtype=xp.uint64))
    assert as_numpy(got).tolist() == [1, 1, 3]


def test_descending_sorts_return_arrays_that_index_like_any_other():
    # A flip of the sorted copy is a negative-stride view; indexing one of
    # those failed (the official suite's test_sort found it).
    values = xp.asarray([0, 3, 1], dtype=xp.uint8)
    ordered = xp.sort(values, descending=True)
    assert [int(ordered[i]) for i in range(3)] == [3, 1, 0]
    order = xp.argsort(xp.asarray([3.0, 1.0, 2.0]), descending=True, stable=False)
    assert [int(order[i]) for i in range(3)] == [0, 2, 1]
