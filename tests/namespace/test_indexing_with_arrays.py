"""Indexing with arrays (keys with arrays, ``take``), computed with the
standard's functions on any engine (sorting and the set functions:
test_sorting_sets.py; tile and repeat: test_manipulation.py).

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


@pytest.mark.parametrize("key", KEYS, ids=_key_id)
def test_numpy_arrays_in_a_key_index_as_dlarrays_do(path, key):
    # Host memory, read as asarray reads it (before: NumPy's "only integer
    # scalar arrays can be converted to a scalar index").
    x, reference = grid()
    np.testing.assert_array_equal(as_numpy(x[key]), reference[key])
    values = -1 - np.arange(reference[key].size, dtype=np.int64).reshape(reference[key].shape)
    reference[key] = values
    x[key] = dl(values)
    np.testing.assert_array_equal(as_numpy(x), reference)


def test_numpy_index_arrays_are_checked_as_dlarrays_are(path):
    x, _ = grid()
    with pytest.raises(IndexError, match="integer or bool dtype, got float64"):
        x[np.asarray([0.0, 1.0])]
    with pytest.raises(IndexError, match="out of bounds"):
        x[np.asarray([3])]
    with pytest.raises(TypeError, match="NumPy array holds Python objects"):
        x[np.asarray([0, None], dtype=object)]
    assert int(x[np.asarray(1), np.int64(2), np.asarray(3)]) == 33  # 0-d ones are integers


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


def test_take_along_axis_refuses_shapes_that_do_not_broadcast_off_the_axis():
    x, _ = grid((2, 3))
    indices = xp.zeros((3, 1), dtype=xp.int64)  # axis 0: 2 against 3
    with pytest.raises(ValueError) as caught:
        xp.take_along_axis(x, indices, axis=1)
    assert str(caught.value) == (
        "take_along_axis: x of shape (2, 3) and indices of shape (3, 1) cannot be broadcast "
        "together on the axes other than axis 1: extents 2 and 3 meet on axis 0 (each pair "
        "must be equal, or one of them 1)"
    )
    # Extents of 1 broadcast, as in NumPy.
    got = xp.take_along_axis(x, xp.asarray([[2]]), axis=1)
    np.testing.assert_array_equal(as_numpy(got), [[2], [5]])


def test_take_and_take_along_axis_count_negative_indices_from_the_end():
    x, reference = grid((2, 3))
    got = xp.take(x, xp.asarray([-1, 0, -3], dtype=xp.int8), axis=1)
    np.testing.assert_array_equal(as_numpy(got), reference[:, [2, 0, 0]])
    got = xp.take_along_axis(x, xp.asarray([[-1], [1]]), axis=1)
    np.testing.assert_array_equal(as_numpy(got), [[2], [4]])
    assert xp.take(x, xp.asarray([], dtype=xp.uint64), axis=0).shape == (0, 3)
