"""The sorting and set functions, computed with the standard's functions on
any engine (run under ``DLARRAY_HOST_ENGINE=array_api_strict`` too)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dlarray as xp
from dlarray._engine.routing import engine_view


def as_numpy(x):
    return np.array(np.from_dlpack(x), copy=True)


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


def test_descending_sorts_return_arrays_that_index_like_any_other():
    # A flip of the sorted copy is a negative-stride view; indexing one of
    # those failed (the official suite's test_sort found it).
    values = xp.asarray([0, 3, 1], dtype=xp.uint8)
    ordered = xp.sort(values, descending=True)
    assert [int(ordered[i]) for i in range(3)] == [3, 1, 0]
    order = xp.argsort(xp.asarray([3.0, 1.0, 2.0]), descending=True, stable=False)
    assert [int(order[i]) for i in range(3)] == [0, 2, 1]
