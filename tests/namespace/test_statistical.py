"""Statistical and utility functions computed through the engine's standard
namespace (the searching functions: test_searching.py).

These tests run on whichever engine computes on host memory: NumPy by
default, array-api-strict under ``DLARRAY_HOST_ENGINE=array_api_strict``
(the foreign engine, which refuses anything outside the standard).
Expected values come from NumPy on host copies.  The last section checks
the NumPy engine's own reductions (``numpy_engine.FIXES``) against NumPy's
public functions, whatever the host engine.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reduction_support import (
    ALL,
    AXES,
    INTEGER,
    NUMERIC,
    REAL,
    assert_result,
    host,
    np_axis,
    values,
)

import dlarray as xp
from dlarray._engine.namespaces import engine_namespace

# The engines' floating-point warnings (inf - inf, 0 / 0) are values in the
# standard, and must not leak out.
pytestmark = pytest.mark.filterwarnings("error")


# ---- sum and prod ----


def _accumulated(name):
    """The standard's result dtype of sum, prod and the scans of ``name``."""
    if name in INTEGER:
        return "uint64" if name.startswith("u") else "int64"
    return name


@pytest.mark.parametrize("func", ["sum", "prod"])
@pytest.mark.parametrize("name", NUMERIC)
def test_sum_and_prod_give_the_standard_dtype_over_every_kind_of_axis(func, name):
    a = values(name)
    x = xp.asarray(a)
    out_name = _accumulated(name)
    wide = {"float32": "float64", "complex64": "complex128"}.get(out_name, out_name)
    for axis in AXES:
        for keepdims in (False, True):
            out = getattr(xp, func)(x, axis=axis, keepdims=keepdims)
            expected = getattr(np, func)(a, axis=np_axis(axis), keepdims=keepdims, dtype=wide)
            assert_result(out, np.asarray(expected).astype(out_name), getattr(xp, out_name))


@pytest.mark.parametrize("func", ["sum", "prod"])
def test_sum_and_prod_cast_to_the_dtype_argument_first(func):
    a = np.array([[0.1, 0.7], [1e-9, 3.0]])  # float64
    x = xp.asarray(a)
    out = getattr(xp, func)(x, axis=0, dtype=xp.float32)
    # Rounded to float32 first, accumulated in float64, rounded once.
    values32 = a.astype(np.float32).astype(np.float64)
    expected = getattr(np, func)(values32, axis=0).astype(np.float32)
    assert_result(out, expected, xp.float32)
    ints = xp.asarray([[1, 2], [3, 4]], dtype=xp.int8)
    assert_result(xp.sum(ints, dtype=xp.float64), np.float64(10.0), xp.float64)
    assert_result(xp.prod(ints, axis=1, dtype=xp.int16), np.array([2, 12], np.int16), xp.int16)
    assert_result(xp.sum(xp.asarray([1.9, 2.9]), dtype=xp.int32), np.int32(3), xp.int32)


def test_float32_sums_accumulate_in_double_precision():
    column = np.array([2.0**24] + [1.0] * 40 + [16 - 2.0**24], dtype=np.float32)
    x = xp.asarray(column.reshape(-1, 1))
    assert host(xp.sum(x, axis=0)).tolist() == [56.0]
    assert host(xp.sum(x)).tolist() == 56.0
    scan = host(xp.cumulative_sum(xp.asarray(column)))
    assert scan.dtype == np.float32 and scan[-1] == 56.0
    c = xp.asarray((column + 0j).astype(np.complex64))
    assert host(xp.sum(c)) == 56.0 + 0j


def test_sum_and_prod_of_nothing_are_their_identities():
    empty = xp.zeros((0, 3), dtype=xp.float32)
    assert_result(xp.sum(empty), np.float32(0), xp.float32)
    assert_result(xp.prod(empty, axis=0), np.ones(3, np.float32), xp.float32)
    assert_result(
        xp.sum(xp.zeros((2, 0), dtype=xp.uint8), axis=1), np.zeros(2, np.uint64), xp.uint64
    )


def test_sum_refuses_what_the_standard_refuses():
    with pytest.raises(TypeError, match="numeric"):
        xp.sum(xp.asarray([True]))
    with pytest.raises(TypeError, match="real dtype float64"):
        xp.sum(xp.asarray([1j]), dtype=xp.float64)
    with pytest.raises(TypeError, match="keepdims"):
        xp.sum(xp.ones(2), keepdims=1)
    with pytest.raises(ValueError, match="repeats"):
        xp.prod(xp.ones((2, 2)), axis=(0, -2))


# ---- cumulative_sum and cumulative_prod ----


@pytest.mark.parametrize("func", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("name", NUMERIC)
def test_scans_along_each_axis_with_and_without_the_initial_value(func, name):
    a = values(name)
    x = xp.asarray(a)
    out_name = _accumulated(name)
    wide = {"float32": "float64", "complex64": "complex128"}.get(out_name, out_name)
    identity = 0 if func == "cumulative_sum" else 1
    for axis in (0, 1, -1):
        for include_initial in (False, True):
            out = getattr(xp, func)(x, axis=axis, include_initial=include_initial)
            scan = getattr(np, func)(a, axis=axis, dtype=wide)
            if include_initial:
                shape = list(a.shape)
                shape[axis] = 1
                scan = np.concatenate([np.full(shape, identity, dtype=wide), scan], axis=axis)
            assert_result(out, scan.astype(out_name), getattr(xp, out_name), exact=False)


def test_scans_of_one_dimension_need_no_axis_and_take_a_dtype():
    x = xp.asarray([1, 2, 3], dtype=xp.uint8)
    assert_result(xp.cumulative_sum(x), np.array([1, 3, 6], np.uint64), xp.uint64)
    assert_result(
        xp.cumulative_prod(x, dtype=xp.float32, include_initial=True),
        np.array([1, 1, 2, 6], np.float32),
        xp.float32,
    )
    assert_result(xp.cumulative_sum(xp.zeros(0), include_initial=True), np.zeros(1), xp.float64)


def test_scans_refuse_what_has_no_axis():
    with pytest.raises(ValueError, match="at least one axis"):
        xp.cumulative_sum(xp.asarray(1.0))
    with pytest.raises(ValueError, match="axis is required"):
        xp.cumulative_prod(xp.ones((2, 2)))
    with pytest.raises(TypeError, match="include_initial"):
        xp.cumulative_sum(xp.ones(2), include_initial=1)


# ---- max and min ----


@pytest.mark.parametrize("func", ["max", "min"])
@pytest.mark.parametrize("name", REAL)
def test_max_and_min_over_every_kind_of_axis(func, name):
    a = values(name)
    x = xp.asarray(a)
    for axis in AXES:
        for keepdims in (False, True):
            out = getattr(xp, func)(x, axis=axis, keepdims=keepdims)
            expected = getattr(np, func)(a, axis=np_axis(axis), keepdims=keepdims)
            assert_result(out, expected, getattr(xp, name))


@pytest.mark.parametrize("func", ["max", "min"])
def test_max_and_min_propagate_nan_and_refuse_zero_elements(func):
    x = xp.asarray([[1.0, math.nan], [-math.inf, 2.0]])
    assert math.isnan(float(getattr(xp, func)(x)))
    assert_result(getattr(xp, func)(x, axis=0), getattr(np, func)(host(x), axis=0), xp.float64)
    with pytest.raises(ValueError, match="zero elements"):
        getattr(xp, func)(xp.zeros((0, 3)))
    with pytest.raises(ValueError, match="zero elements"):
        getattr(xp, func)(xp.zeros((0, 3)), axis=0)
    # No element of the result reduces zero elements: an empty result.
    assert_result(getattr(xp, func)(xp.zeros((0, 3)), axis=1), np.zeros(0), xp.float64)
    with pytest.raises(TypeError, match="real-valued"):
        getattr(xp, func)(xp.asarray([1j]))


# ---- mean, var and std ----


@pytest.mark.parametrize("name", ("int8", "uint32", "int64", "float32", "float64"))
def test_mean_var_std_of_real_arrays(name):
    a = values(name)
    x = xp.asarray(a)
    out_dtype = getattr(xp, name if name.startswith("float") else "float64")
    exact = a.astype(np.float64)
    for axis in AXES:
        for keepdims in (False, True):
            ax = np_axis(axis)
            expected = np.mean(exact, axis=ax, keepdims=keepdims)
            assert_result(xp.mean(x, axis=axis, keepdims=keepdims), expected, out_dtype, False)
            for correction in (0, 1, 0.5):
                count = a.size if axis is None else math.prod(a.shape[i] for i in np.atleast_1d(ax))
                if count - correction <= 0:
                    continue
                v = np.var(exact, axis=ax, keepdims=keepdims, ddof=correction)
                out = xp.var(x, axis=axis, correction=correction, keepdims=keepdims)
                assert_result(out, v, out_dtype, False)
                out = xp.std(x, axis=axis, correction=correction, keepdims=keepdims)
                assert_result(out, np.sqrt(v), out_dtype, False)
    assert np.array_equal(host(x), a)  # the in-place steps of var work on a copy


def test_var_and_std_are_nan_where_the_correction_leaves_no_divisor():
    x = xp.asarray([[1.0, 2.0], [3.0, 5.0]], dtype=xp.float32)
    assert_result(xp.var(x, axis=0, correction=2), np.full(2, np.nan, np.float32), xp.float32)
    assert_result(xp.std(x, correction=4.5), np.float32(np.nan), xp.float32)
    assert_result(xp.var(xp.zeros((0,))), np.float64(np.nan), xp.float64)
    with pytest.raises(ValueError, match="non-negative"):
        xp.var(x, correction=-1)
    with pytest.raises(TypeError, match="correction"):
        xp.std(x, correction=True)
    with pytest.raises(TypeError, match="real-valued"):
        xp.var(xp.asarray([1j]))


@pytest.mark.parametrize("name", ("complex64", "complex128"))
def test_mean_of_complex_divides_the_parts_separately(name):
    a = values(name)
    x = xp.asarray(a)
    for axis in (None, 1, (0, 2)):
        expected = np.mean(a.astype(np.complex128), axis=axis)
        assert_result(xp.mean(x, axis=axis), expected.astype(name), getattr(xp, name), False)
    special = np.array(
        [
            [1 + 1j, complex(2, math.nan)],
            [complex(math.inf, 4), 3 + 0j],
            [complex(1, -math.inf), 1 + 0j],
            [complex(math.nan, 2), 1 + 1j],
        ],
        dtype=name,
    )
    out = host(xp.mean(xp.asarray(special), axis=1))
    # A NaN or an infinity in one part leaves the other part alone.
    assert out[0].real == 1.5 and math.isnan(out[0].imag)
    assert out[1].real == math.inf and out[1].imag == 2.0
    assert out[2].real == 1.0 and out[2].imag == -math.inf
    assert math.isnan(out[3].real) and out[3].imag == 1.5
    nothing = host(xp.mean(xp.zeros((0, 2), dtype=getattr(xp, name)), axis=0))
    assert all(math.isnan(z.real) and math.isnan(z.imag) for z in nothing)


def test_mean_of_nothing_is_nan():
    assert_result(xp.mean(xp.zeros((0, 2)), axis=0), np.full(2, np.nan), xp.float64)
    assert_result(xp.mean(xp.zeros(0, dtype=xp.int8)), np.float64(np.nan), xp.float64)


# ---- all, any and diff ----


@pytest.mark.parametrize("func", ["all", "any"])
@pytest.mark.parametrize("name", ALL)
def test_all_and_any_of_every_dtype(func, name):
    a = values(name)
    if name.startswith("float"):
        a[0, 0, 0], a[1, 1, 1] = math.nan, 0.0
    if name.startswith("complex"):
        a[0, 0, 0], a[1, 1, 1] = 1j, 0
    x = xp.asarray(a)
    for axis in AXES:
        for keepdims in (False, True):
            out = getattr(xp, func)(x, axis=axis, keepdims=keepdims)
            expected = getattr(np, func)(a, axis=np_axis(axis), keepdims=keepdims)
            assert_result(out, expected, xp.bool)
    assert_result(
        getattr(xp, func)(xp.zeros((0,), dtype=getattr(xp, name))), func == "all", xp.bool
    )


def test_diff_differences_n_times_along_an_axis():
    a = np.array([[1, 4, 9, 16], [2, 3, 5, 7]], dtype=np.int16)
    x = xp.asarray(a)
    for axis in (0, 1, -1):
        for n in (1, 2, 3, 7):
            assert_result(xp.diff(x, axis=axis, n=n), np.diff(a, n=n, axis=axis), xp.int16)
    f = xp.asarray([1.0, math.inf, math.inf])
    assert_result(xp.diff(f), np.array([math.inf, math.nan]), xp.float64)  # no warning


def test_diff_joins_prepend_and_append_in_the_promoted_dtype():
    x = xp.asarray([[1, 4], [9, 16]], dtype=xp.int8)
    before = xp.asarray([[-100], [100]], dtype=xp.int32)
    after = xp.asarray([[20, 30]], dtype=xp.int16)
    expected = np.diff(np.array([[-100, 1, 4], [100, 9, 16]], np.int32), axis=1)
    assert_result(xp.diff(x, prepend=before), expected, xp.int32)
    assert_result(
        xp.diff(x, axis=0, append=after), np.array([[8, 12], [11, 14]], np.int16), xp.int16
    )
    with pytest.raises(ValueError, match="must match"):
        xp.diff(x, prepend=xp.zeros((1, 1), dtype=xp.int8))


def test_diff_with_n_0_is_a_copy():
    x = xp.asarray([1.0, 2.0])
    y = xp.diff(x, n=0)
    assert_result(y, np.array([1.0, 2.0]), xp.float64)
    y[0] = 7.0
    assert host(x).tolist() == [1.0, 2.0]
    joined = xp.diff(x, n=0, append=xp.asarray([3.0]))
    assert_result(joined, np.array([1.0, 2.0, 3.0]), xp.float64)


def test_diff_refuses_what_the_standard_refuses():
    with pytest.raises(ValueError, match="at least one axis"):
        xp.diff(xp.asarray(1.0))
    with pytest.raises(ValueError, match="non-negative"):
        xp.diff(xp.ones(3), n=-1)
    with pytest.raises(TypeError, match="n must be an int"):
        xp.diff(xp.ones(3), n=1.0)


# ---- the NumPy engine's reductions (numpy_engine.FIXES) ----

NUMPY = engine_namespace("numpy")
NP_DTYPES = (np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float16)
NP_DTYPES += (np.float32, np.float64, np.complex64, np.complex128)
SINGLE = {np.float32: np.float64, np.complex64: np.complex128}


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_the_numpy_engines_reductions_are_numpys(dtype):
    a = values(np.dtype(dtype).name)
    real = np.dtype(dtype).kind != "c"
    for axis in AXES:
        ax = np_axis(axis)
        for keepdims in (False, True):
            checks = [("sum", np.sum, {}), ("prod", np.prod, {}), ("all", np.all, {})]
            checks += [
                ("any", np.any, {}),
                ("sum", np.sum, {"dtype": np.float64 if real else np.complex128}),
            ]
            if real and np.dtype(dtype) != np.bool_:
                checks += [("max", np.max, {}), ("min", np.min, {})]
            for name, reference, extra in checks:
                got = getattr(NUMPY, name)(a, axis=ax, keepdims=keepdims, **extra)
                expected = reference(a, axis=ax, keepdims=keepdims, **extra)
                if name in ("sum", "prod") and not extra and dtype in SINGLE:
                    # Except in accuracy: a small single-precision input
                    # accumulates in double precision, rounded once
                    # (tests/namespace/test_statistical_accuracy.py covers large ones).
                    wide = reference(a, axis=ax, keepdims=keepdims, dtype=SINGLE[dtype])
                    expected = np.asarray(wide).astype(dtype)
                assert type(got) is np.ndarray or np.isscalar(got)
                assert got.dtype == expected.dtype and np.shape(got) == np.shape(expected)
                np.testing.assert_array_equal(got, expected)
        if real and axis is not None and not isinstance(axis, tuple):
            for name in ("argmax", "argmin"):
                for keepdims in (False, True):
                    got = getattr(NUMPY, name)(a, axis=axis, keepdims=keepdims)
                    np.testing.assert_array_equal(
                        got, getattr(np, name)(a, axis=axis, keepdims=keepdims)
                    )
    if real:
        # Over every axis: a 0-d array (cheaper to adopt than NumPy's scalar).
        for name in ("max", "all", "argmax") if dtype is not np.bool_ else ("all",):
            assert type(getattr(NUMPY, name)(a)) is np.ndarray
        if np.sum(a).dtype == a.dtype:
            assert type(NUMPY.sum(a)) is np.ndarray
        with pytest.raises(ValueError):
            NUMPY.max(np.zeros(0, dtype))
