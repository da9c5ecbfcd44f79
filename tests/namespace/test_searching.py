"""Searching functions (argmax, argmin, count_nonzero, nonzero, searchsorted,
where) computed through the engine's standard namespace.

These tests run on whichever engine computes on host memory: NumPy by
default, array-api-strict under ``DLARRAY_HOST_ENGINE=array_api_strict``
(the foreign engine, which refuses anything outside the standard).
Expected values come from NumPy on host copies.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reduction_support import (
    ALL,
    AXES,
    REAL,
    assert_result,
    host,
    np_axis,
    values,
)

import dlarray as xp

# The engines' floating-point warnings (inf - inf, 0 / 0) are values in the
# standard, and must not leak out.
pytestmark = pytest.mark.filterwarnings("error")


# ---- argmax, argmin, count_nonzero and nonzero ----


@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("name", REAL)
def test_argmax_and_argmin_find_the_first_extreme(func, name):
    a = values(name) % 2  # many ties
    x = xp.asarray(a)
    for axis in (None, 0, 1, -1):
        for keepdims in (False, True):
            out = getattr(xp, func)(x, axis=axis, keepdims=keepdims)
            expected = getattr(np, func)(a, axis=axis, keepdims=keepdims)
            assert_result(out, np.asarray(expected, dtype=np.int64), xp.int64)


def test_argmax_finds_the_first_nan_and_refuses_empty_axes():
    x = xp.asarray([[1.0, math.nan, math.nan], [math.inf, 0.0, math.nan]])
    assert_result(xp.argmax(x, axis=1), np.array([1, 2]), xp.int64)
    assert_result(xp.argmin(x), np.int64(1), xp.int64)
    with pytest.raises(ValueError, match="no elements"):
        xp.argmax(xp.zeros((2, 0)), axis=1)
    with pytest.raises(ValueError, match="no elements"):
        xp.argmin(xp.zeros(0))
    assert_result(xp.argmax(xp.zeros((0, 2)), axis=1), np.zeros(0, np.int64), xp.int64)


@pytest.mark.parametrize("name", ALL)
def test_count_nonzero_counts_in_the_index_dtype(name):
    a = values(name)
    if name.startswith("complex"):
        a[0, 0, :] = [0, 1j, 0, math.nan]
    x = xp.asarray(a)
    for axis in AXES:
        for keepdims in (False, True):
            out = xp.count_nonzero(x, axis=axis, keepdims=keepdims)
            expected = np.count_nonzero(a, axis=np_axis(axis), keepdims=keepdims)
            assert_result(out, np.asarray(expected, dtype=np.int64), xp.int64)


@pytest.mark.parametrize("name", ("bool", "int8", "float32", "complex128"))
def test_nonzero_gives_one_index_array_of_its_own_per_axis(name):
    a = values(name)
    if name == "complex128":
        a[0, 0, :] = [0, 1j, 0, math.nan]
    x = xp.asarray(a)
    out = xp.nonzero(x)
    assert len(out) == 3
    for got, expected in zip(out, np.nonzero(a), strict=True):
        assert_result(got, expected.astype(np.int64), xp.int64)
        assert host(got).flags.c_contiguous  # not a column of one shared block
    assert [host(i).tolist() for i in xp.nonzero(xp.zeros(3))] == [[]]
    with pytest.raises(ValueError, match="zero-dimensional"):
        xp.nonzero(xp.asarray(1))


# ---- searchsorted and where ----


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_with_arrays_scalars_and_sorters(side):
    sorted_ = np.array([-math.inf, 1.0, 2.0, 2.0, 3.0, math.inf, math.nan])
    probes = np.array([[2.0, math.nan], [-math.inf, 2.5]])
    x1 = xp.asarray(sorted_)
    assert_result(
        xp.searchsorted(x1, xp.asarray(probes), side=side),
        np.searchsorted(sorted_, probes, side=side),
        xp.int64,
    )
    assert_result(
        xp.searchsorted(x1, 2, side=side), np.searchsorted(sorted_, 2.0, side=side), xp.int64
    )
    ints = xp.asarray([1, 3, 5], dtype=xp.int8)
    assert_result(
        xp.searchsorted(ints, xp.asarray([2, 6], dtype=xp.int32), side=side),
        np.searchsorted(np.array([1, 3, 5]), [2, 6], side=side),
        xp.int64,
    )
    assert_result(
        xp.searchsorted(ints, 5, side=side), np.searchsorted([1, 3, 5], 5, side), xp.int64
    )
    with pytest.raises(OverflowError, match="does not fit in int8"):
        xp.searchsorted(ints, 300, side=side)
    shuffled = np.array([3.0, 1.0, 2.0])
    for order_dtype in (xp.int64, xp.uint8, xp.uint64, xp.int16):
        order = xp.asarray([1, 2, 0], dtype=order_dtype)
        out = xp.searchsorted(xp.asarray(shuffled), xp.asarray([2.0, 0.0]), side=side, sorter=order)
        assert_result(
            out, np.searchsorted(shuffled, [2.0, 0.0], side=side, sorter=[1, 2, 0]), xp.int64
        )


def test_searchsorted_refuses_what_the_standard_refuses():
    x1 = xp.asarray([1.0, 2.0])
    with pytest.raises(ValueError, match="outside"):
        xp.searchsorted(x1, 1.0, sorter=xp.asarray([0, 2]))
    with pytest.raises(ValueError, match="outside"):
        xp.searchsorted(x1, 1.0, sorter=xp.asarray([-1, 0]))
    with pytest.raises(ValueError, match="one-dimensional"):
        xp.searchsorted(xp.ones((2, 2)), 1.0)
    with pytest.raises(ValueError, match="side"):
        xp.searchsorted(x1, 1.0, side="middle")
    with pytest.raises(TypeError, match="x2"):
        xp.searchsorted(x1, "a")
    with pytest.raises(TypeError, match="real-valued"):
        xp.searchsorted(x1, xp.asarray([1j]))


def test_where_broadcasts_and_promotes():
    cond = xp.asarray([[True], [False]])
    x1 = xp.asarray([1, 2, 3], dtype=xp.int8)
    x2 = xp.asarray([[10], [20]], dtype=xp.int16)
    assert_result(xp.where(cond, x1, x2), np.array([[1, 2, 3], [20, 20, 20]], np.int16), xp.int16)
    assert_result(xp.where(cond, x1, 0), np.array([[1, 2, 3], [0, 0, 0]], np.int8), xp.int8)
    assert_result(
        xp.where(cond, 1.5, xp.ones(3, dtype=xp.float32)),
        np.array([[1.5] * 3, [1] * 3], np.float32),
        xp.float32,
    )
    with pytest.raises(
        ValueError, match=r"shapes \(3,\), \(2,\) and \(\) do not broadcast together: they cannot"
    ):
        xp.where(xp.asarray([True, False, True]), xp.ones(2), 0.0)
    with pytest.raises(ValueError, match="broadcast"):
        xp.where(xp.asarray([True, False, True]), xp.ones(2), xp.ones(2))
    with pytest.raises(TypeError, match="bool"):
        xp.where(xp.ones(2), x1, x1)
