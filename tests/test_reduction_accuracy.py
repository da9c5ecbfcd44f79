"""The accuracy that docs/guide/arrays.md promises for sums, means, running
sums, variances and products ("Accuracy of sums and scans"), checked against
exact results on adversarial inputs, at sizes around the blocked paths'
thresholds (numpy_reductions.LARGE, SUM_ROWS, SCAN_BLOCK).

The exact sums are math.fsum's; the exact running sums are integer sums of
the values scaled to a common exponent (every float is an integer times a
power of two), rounded once to double precision.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import dlarray as xp

U32, U64 = 2.0**-24, 2.0**-53
# The documented bound of float32 sums and running sums:
# |error| <= U32 * |s| + K32 * U32 * sum|x|; float64's is NumPy's own,
# 2 * U64 * |s| + (n - 1) * U64 * sum|x| (for our exact result rounded to double).
K32 = 16
SIZES = (1, 7, 1023, 1024, 1025, 65535, 65536, 100_003, 1_000_000)
RNG = np.random.default_rng(20)


def adversarial(kind: str, n: int, dtype: type) -> np.ndarray:
    """Inputs that defeat naive accumulation."""
    i = np.arange(n)
    if kind == "cancelling":  # [2**24, 1 (x40), 16 - 2**24] repeated, scaled up
        block = np.array([2.0**24] + [1.0] * 40 + [16 - 2.0**24]) * 2.0**40
        values = np.resize(block, n)
    elif kind == "alternating":
        values = (-1.0) ** i * (1e6 + (i % 13)) + (i % 3) * 1e-3
    elif kind == "increasing":
        values = np.sort(np.abs(RNG.standard_normal(n)) * 10.0 ** RNG.uniform(-6, 6, n))
    elif kind == "huge and tiny":
        values = np.where(i % 5 == 0, 3e30 * (-1.0) ** (i // 5), RNG.uniform(-1, 1, n))
    else:
        values = RNG.standard_normal(n)
    return values.astype(dtype)


KINDS = ("cancelling", "alternating", "increasing", "huge and tiny", "normal")


def exact_running_sums(values: np.ndarray) -> np.ndarray:
    """Every prefix sum of ``values``, exact, then rounded once to float64."""
    mantissas, exponents = np.frexp(values.astype(np.float64))
    ints = np.ldexp(mantissas, 53).astype(np.int64)  # values = ints * 2**(exponents - 53)
    shifts = exponents - 53
    low = int(shifts.min())
    scaled = (int(m) << int(s - low) for m, s in zip(ints, shifts, strict=True))
    scale = 2.0**low
    return np.array(
        [
            total * scale if low >= 0 else total / (1 << -low)
            for total in itertools.accumulate(scaled)
        ]
    )


def host(a: np.ndarray) -> xp.DLArray:
    return xp.asarray(a)


def as_numpy(x: xp.DLArray) -> np.ndarray:
    return np.from_dlpack(x)


def sum_bound(dtype: type, n: int, exact: float, magnitude: float) -> float:
    if dtype is np.float32:
        return U32 * abs(exact) + K32 * U32 * magnitude
    return 2 * U64 * abs(exact) + max(n - 1, 0) * U64 * magnitude


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", KINDS)
def test_sum_and_mean_are_within_the_bound_of_the_exact_sum(kind, dtype):
    for n in SIZES:
        a = adversarial(kind, n, dtype)
        exact = math.fsum(a.tolist())
        magnitude = math.fsum(np.abs(a).tolist())
        got = xp.sum(host(a))
        assert got.dtype == getattr(xp, np.dtype(dtype).name) and got.shape == ()
        assert abs(float(got) - exact) <= sum_bound(dtype, n, exact, magnitude), (kind, n)
        mean = float(xp.mean(host(a)))
        u = U32 if dtype is np.float32 else U64
        bound = 2 * u * abs(exact / n) + sum_bound(dtype, n, 0.0, magnitude) * (1 + u) / n
        assert abs(mean - exact / n) <= bound, (kind, n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1, (0, 1), None])
def test_axis_sums_are_within_the_bound(dtype, axis):
    for shape in ((300, 257), (3, 70_001), (70_001, 2)):
        a = adversarial("cancelling", math.prod(shape), dtype).reshape(shape)
        got = as_numpy(xp.sum(host(a), axis=axis))
        # The reduced axes last, one row per result element.
        rows = a.reshape(1, -1) if axis in (None, (0, 1)) else np.moveaxis(a, axis, -1)
        rows = rows.reshape(got.size, -1)
        for value, row in zip(got.reshape(-1), rows, strict=True):
            exact = math.fsum(row.tolist())
            magnitude = math.fsum(np.abs(row).tolist())
            assert abs(float(value) - exact) <= sum_bound(dtype, row.size, exact, magnitude)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["cancelling", "alternating", "normal"])
def test_every_running_sum_is_within_the_bound(kind, dtype):
    for n in SIZES[:-1] + ((SIZES[-1],) if kind != "alternating" else ()):
        a = adversarial(kind, n, dtype)
        got = as_numpy(xp.cumulative_sum(host(a))).astype(np.float64)
        assert got.shape == (n,)
        exact = exact_running_sums(a)
        magnitude = np.cumsum(np.abs(a.astype(np.float64))) * (1 + 1e-9)
        if dtype is np.float32:
            bound = U32 * np.abs(exact) + K32 * U32 * magnitude
        else:
            bound = 2 * U64 * np.abs(exact) + np.arange(n) * U64 * magnitude
        worst = np.argmax(np.abs(got - exact) - bound)
        assert abs(got[worst] - exact[worst]) <= bound[worst], (kind, n, worst)


@pytest.mark.parametrize("n", [7, 65536, 100_003])
def test_running_sums_with_the_initial_zero_and_a_dtype(n):
    a = adversarial("normal", n, np.float32)
    got = xp.cumulative_sum(host(a), include_initial=True)
    assert got.dtype == xp.float32 and got.shape == (n + 1,)
    values = as_numpy(got)
    assert values[0] == 0
    np.testing.assert_array_equal(values[1:], as_numpy(xp.cumulative_sum(host(a))))
    wide = xp.cumulative_sum(host(a), dtype=xp.float64)
    assert wide.dtype == xp.float64
    np.testing.assert_allclose(
        as_numpy(wide), np.cumsum(a, dtype=np.float64), rtol=1e-12, atol=1e-9
    )


@pytest.mark.parametrize("kind", ["normal", "alternating", "cancelling"])
@pytest.mark.parametrize("n", [1023, 65535, 65536, 1_000_000])
def test_var_is_within_the_bound(kind, n):
    # (Scaled so that the squared deviations stay in float32's range.)
    a = adversarial(kind, n, np.float32) / np.float32(2.0**40 if kind == "cancelling" else 1)
    values = a.astype(np.float64)
    mean = math.fsum(values.tolist()) / n
    mean_magnitude = math.fsum(np.abs(values).tolist()) / n
    squares = math.fsum(((values - mean) ** 2).tolist())  # (x - mean in double: ~2**-53 off)
    for correction in (0, 1):
        exact = squares / (n - correction) if n > correction else math.nan
        got = float(xp.var(host(a), correction=correction))
        delta = 19 * U32 * mean_magnitude
        bound = 22 * U32 * exact + n / (n - correction) * delta**2 * (1 + 22 * U32)
        assert abs(got - exact) <= bound, (kind, n, correction, got, exact)


@pytest.mark.parametrize("n", [7, 65536, 1_000_000, 1_000_003])
def test_prod_is_within_the_bound(n):
    a = (1 + RNG.standard_normal(n) * 1e-3).astype(np.float32)
    reference = math.prod(a.astype(np.float64).tolist())  # relative error <= n * 2**-53
    got = xp.prod(host(a))
    assert got.dtype == xp.float32 and got.shape == ()
    assert abs(float(got) / reference - 1) <= U32 + 2 * n * U64


def test_prod_keeps_double_precisions_range():
    # Partial products beyond float32's range (NumPy's float32 product is
    # inf here) but within float64's, whatever the order of the factors.
    a = np.ones(100_000, np.float32)
    a[:4], a[-4:] = 1e30, 1e-30
    assert float(xp.prod(host(a))) == pytest.approx(math.prod(a.astype(np.float64).tolist()))


SPECIAL = {
    "nan": {10: math.nan},
    "inf": {10: math.inf},
    "inf then -inf": {10: math.inf, 70_000: -math.inf},
    "inf and -inf in one block": {10: math.inf, 11: -math.inf},
    "-inf last": {99_999: -math.inf},
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("case", SPECIAL)
@pytest.mark.parametrize("n", [20, 100_000])
def test_nan_and_inf_propagate_as_in_numpy(case, n, dtype):
    a = (1 + 1e-3 * RNG.standard_normal(n)).astype(dtype)  # a finite product
    for i, value in SPECIAL[case].items():
        if i < n:
            a[i] = value
    pairs = [(xp.sum, np.sum), (xp.prod, np.prod), (xp.cumulative_sum, np.cumsum)]
    if dtype is not np.complex64:  # (the standard's complex mean divides part by part)
        pairs += [(xp.mean, np.mean)]
    for ours, theirs in pairs:
        got = as_numpy(ours(host(a)))
        with np.errstate(all="ignore"):  # (inf - inf is a value here)
            expected = np.asarray(theirs(a))
        for part in (np.real, np.imag) if dtype is np.complex64 else (np.real,):
            g, e = part(got), part(expected)
            message = f"{ours.__name__}, {case}"
            np.testing.assert_array_equal(np.isnan(g), np.isnan(e), err_msg=message)
            infinite = np.isinf(e)
            np.testing.assert_array_equal(g[infinite], e[infinite], err_msg=message)
            assert np.isfinite(g[np.isfinite(e)]).all(), message


@pytest.mark.parametrize("n", [0, 65536])
def test_dtypes_and_shapes_are_the_standards(n):
    a = host(np.ones((2, n // 2), np.float32))
    assert xp.sum(a).dtype == xp.float32
    assert xp.sum(a, keepdims=True).shape == (1, 1)
    assert xp.sum(a, axis=(0, 1), keepdims=True).shape == (1, 1)
    assert xp.sum(a, axis=1).shape == (2,)
    assert xp.sum(a, dtype=xp.float64).dtype == xp.float64
    assert float(xp.sum(a)) == n and float(xp.prod(a)) == 1
    assert xp.prod(a, keepdims=True).shape == (1, 1)
    assert xp.mean(a, axis=0).shape == (n // 2,)
    assert xp.cumulative_sum(a, axis=1, include_initial=True).shape == (2, n // 2 + 1)
    assert xp.var(a).dtype == xp.float32
    ints = host(np.ones(n, np.int32))
    assert xp.sum(ints).dtype == xp.int64 and xp.mean(ints).dtype == xp.float64
    assert xp.sum(ints, dtype=xp.float32).dtype == xp.float32
    complex_sum = xp.sum(host(np.full(n, 1 + 2j, np.complex64)))
    assert complex_sum.dtype == xp.complex64 and complex(complex_sum) == n * (1 + 2j)
