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
from fractions import Fraction

import numpy as np
import pytest

import dlarray as xp
from dlarray._engine import numpy_reductions, routing

U32, U64 = 2.0**-24, 2.0**-53
# The documented bound of float32 sums and running sums:
# |error| <= U32 * |s| + K32 * U32 * sum|x|; float64's is NumPy's own,
# 2 * U64 * |s| + (n - 1) * U64 * sum|x| (for our exact result rounded to double).
K32 = 16
SIZES = (1, 7, 1023, 1024, 1025, 65535, 65536, 100_003, 1_000_000)
RNG = np.random.default_rng(20)
#: What only the NumPy host engine guarantees (docs/guide/arrays.md, "Accuracy
#: of sums and scans"): products whose partials leave double precision's range
#: on the way, and results at float32's overflow threshold.  The other engines
#: (the foreign_engine session's array-api-strict among them) accumulate in
#: double precision in their own order, and the docs say where that falls short.
HOST_ENGINE_ONLY = pytest.mark.skipif(
    routing.HOST_ENGINE != "numpy",
    reason="a guarantee of the NumPy host engine's accurate reductions; this engine "
    "accumulates in double precision (docs/guide/arrays.md says where that falls short)",
)


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


# ---- overflow: issue 28, rows F1 and F2 ----
#
# Single-precision partial sums (and double-precision partial products)
# that overflow or underflow where the exact result does not.  The oracle
# is exact: Fractions, rounded once to float32 by to_float32 below.

F32_MAX = float(np.finfo(np.float32).max)
# The exact values from which float32 rounds to infinity.
OVERFLOW = Fraction(2**128 - 2**103)
LARGE, SUM_ROWS, SCAN_BLOCK = (
    numpy_reductions.LARGE,
    numpy_reductions.SUM_ROWS,
    numpy_reductions.SCAN_BLOCK,
)


def to_float32(value: Fraction) -> float:
    """``value`` rounded once to float32 (ties to even), as a Python float."""
    magnitude = abs(value)
    if magnitude >= OVERFLOW:
        rounded = math.inf
    elif magnitude == 0:
        rounded = 0.0
    else:
        exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
        while magnitude < Fraction(2) ** exponent:
            exponent -= 1
        while magnitude >= Fraction(2) ** (exponent + 1):
            exponent += 1  # now 2**exponent <= magnitude < 2**(exponent + 1)
        step = Fraction(2) ** max(exponent - 23, -149)
        rounded = float(round(magnitude / step) * step)
    return -rounded if value < 0 else rounded


def exact_sum(values: np.ndarray) -> Fraction:
    return sum((Fraction(v) for v in values.tolist() if v), Fraction(0))


def exact_prod(values: np.ndarray) -> Fraction:
    return math.prod((Fraction(v) for v in values.tolist() if v != 1), start=Fraction(1))


def exact_prefix_fractions(values: np.ndarray) -> list[Fraction]:
    """Every prefix sum of the 1-d real ``values``, exact (sparse inputs: a
    Fraction is added only where a value is not zero)."""
    out: list[Fraction] = []
    total = Fraction(0)
    for value in values.tolist():
        if value:
            total += Fraction(value)
        out.append(total)
    return out


def assert_sum_is_right(got: float, values: np.ndarray, what: str = "") -> None:
    """Infinite exactly where the exact sum rounds to infinity; elsewhere
    within the documented bound u*|s| + 16*u*sum|x| (so never NaN)."""
    exact = exact_sum(values)
    expected = to_float32(exact)
    if math.isinf(expected):
        assert got == expected, (what, got, expected)
        return
    magnitude = exact_sum(np.abs(values))
    assert math.isfinite(got), (what, got, expected)
    bound = Fraction(U32) * abs(exact) + K32 * Fraction(U32) * magnitude
    assert abs(Fraction(got) - exact) <= bound, (what, got, expected)


def assert_running_sums_are_right(got: np.ndarray, values: np.ndarray, what: str = "") -> None:
    exact = exact_prefix_fractions(values)
    magnitudes = exact_prefix_fractions(np.abs(values))
    assert got.shape == values.shape
    previous = None
    for i, (g, s, m) in enumerate(zip(got.tolist(), exact, magnitudes, strict=True)):
        if (g, s) == previous:
            continue  # (a run of zeros: checked once)
        previous = (g, s)
        expected = to_float32(s)
        if math.isinf(expected):
            assert g == expected, (what, i, g, expected)
        else:
            assert math.isfinite(g), (what, i, g, expected)
            bound = Fraction(U32) * abs(s) + K32 * Fraction(U32) * m
            assert abs(Fraction(g) - s) <= bound, (what, i, g, expected)


def pairs_at(n: int, positives: tuple[int, ...], negatives: tuple[int, ...], big=3e38):
    a = np.zeros(n, np.float32)
    a[list(positives)] = big
    a[list(negatives)] = -big
    return a


def test_f1_sum_mean_var_of_cancelling_maxima():
    # Issue 28, row F1, exactly: two columns overflow to +inf and -inf.
    a = pairs_at(65536, (0, 4096), (1, 4097))
    assert float(xp.sum(host(a))) == 0.0
    assert float(xp.mean(host(a))) == 0.0
    # var: the exact variance, 4 * 9e76 / 65536, is beyond float32's range.
    assert to_float32(exact_sum(a.astype(np.float64) ** 2) / 65536) == math.inf
    assert float(xp.var(host(a))) == math.inf
    assert float(xp.std(host(a))) == pytest.approx(math.sqrt(4 * 9e76 / 65536), rel=1e-6)


def test_sums_of_maxima_at_every_column_position():
    # The pairs in one column of the (SUM_ROWS, n // SUM_ROWS) reshape, in
    # two columns, across rows, in the tail that the columns leave out;
    # below, at and above LARGE (65535 takes the double path: a control).
    for n in (LARGE - 1, LARGE, LARGE + 1, LARGE + SUM_ROWS - 1, 100_003):
        width = n // SUM_ROWS
        tail = n - n % SUM_ROWS
        placements = [
            ((0, width), (1, width + 1)),  # two columns, each +inf or -inf
            ((5, 5 + 15 * width), (6, 6 + 7 * width)),  # first and last rows
            ((width - 1, 2 * width - 1), (0, 3 * width)),  # last column, first
            ((0, n - 1), (1, n - 2)),  # with the tail (when n % SUM_ROWS)
            ((0, width, 2 * width), (1, width + 1, 2 * width + 1)),
        ]
        if tail < n:
            placements.append(((tail, 0), (n - 1, width)))
        for positives, negatives in placements:
            a = pairs_at(n, positives, negatives)
            what = (n, positives, negatives)
            assert_sum_is_right(float(xp.sum(host(a))), a, what)
            mean = exact_sum(a) / n
            bound = 2 * Fraction(U32) * abs(mean) + 17 * Fraction(U32) * exact_sum(np.abs(a)) / n
            assert abs(Fraction(float(xp.mean(host(a)))) - mean) <= bound, what
            got = xp.sum(host(a), keepdims=True)
            assert got.shape == (1,) and float(got[0]) == float(xp.sum(host(a)))


def test_sums_whose_exact_value_overflows():
    # Two maxima in one column overflow float32 there, and so does the exact
    # sum: inf, not NaN (which -inf in another column used to make).
    a = pairs_at(LARGE, (0, LARGE // SUM_ROWS, 7), (3,))
    assert float(xp.sum(host(a))) == math.inf
    assert float(xp.mean(host(a))) == pytest.approx(3e38 * 2 / LARGE, rel=1e-6)
    b = -a
    assert float(xp.sum(host(b))) == -math.inf


@HOST_ENGINE_ONLY
@pytest.mark.parametrize("n", [3, 1000, LARGE, LARGE + 1, 100_003])
def test_sums_at_the_overflow_threshold(n):
    # max + 2**103 is exactly float32's overflow threshold (infinity); one
    # step of 2**-149 below it, the exact sum rounds to float32's maximum.
    # A double-precision total cannot tell the two apart.
    tiny = 2.0**-149
    for values, expected in (
        ([F32_MAX, 2.0**103, -tiny], F32_MAX),
        ([F32_MAX, 2.0**103], math.inf),
        ([F32_MAX, 2.0**103, tiny], math.inf),
        ([-F32_MAX, -(2.0**103), tiny], -F32_MAX),
    ):
        a = np.zeros(n, np.float32)
        a[: len(values)] = values
        assert float(xp.sum(host(a))) == expected, (values, n)
        assert to_float32(exact_sum(a)) == expected
        # The same along an axis, and with keepdims.
        two = np.stack([a, np.zeros(n, np.float32)])
        got = np.from_dlpack(xp.sum(host(two), axis=1, keepdims=True))
        assert got.shape == (2, 1) and got[0, 0] == expected and got[1, 0] == 0
        got = np.from_dlpack(xp.sum(host(np.ascontiguousarray(two.T)), axis=0))
        assert got[0] == expected


def test_complex64_sums_overflow_part_by_part():
    real = pairs_at(LARGE, (0, 4096), (1, 4097))
    imag = pairs_at(LARGE, (2, 4098, 9), (3,))
    a = (real + 1j * imag).astype(np.complex64)
    got = complex(xp.sum(host(a)))
    assert got.real == 0.0 and got.imag == math.inf
    mean = complex(xp.mean(host(a)))
    assert mean.real == 0.0 and mean.imag == pytest.approx(2 * 3e38 / LARGE, rel=1e-6)
    got = np.from_dlpack(xp.cumulative_sum(host(a)))
    assert_running_sums_are_right(got.real, real, "real")
    assert_running_sums_are_right(got.imag, imag, "imag")


def test_mean_of_values_whose_sum_overflows():
    for n in (10, LARGE, 100_003):
        a = np.full(n, 3e38, np.float32)
        assert float(xp.mean(host(a))) == pytest.approx(3e38, rel=1e-6)
        two = np.stack([a, -a])
        got = np.from_dlpack(xp.mean(host(two), axis=1))
        np.testing.assert_allclose(got, [3e38, -3e38], rtol=1e-6)


def test_f2_running_sums_of_cancelling_maxima():
    # Issue 28, row F2, exactly.
    a = np.zeros(65536, np.float32)
    a[:4] = [3e38, 3e38, -3e38, -3e38]
    got = np.from_dlpack(xp.cumulative_sum(host(a)))
    assert not np.isnan(got).any()
    np.testing.assert_array_equal(got[:5], np.float32([3e38, np.inf, 3e38, 0, 0]))
    assert (got[4:] == 0).all()


def test_running_sums_of_maxima_at_every_block_position():
    for n in (LARGE - 1, LARGE, LARGE + 1, 100_003):
        last = n - n % SCAN_BLOCK
        placements = [
            ((0, 1), (2, 3)),  # F2's
            ((SCAN_BLOCK - 2, SCAN_BLOCK - 1), (SCAN_BLOCK, SCAN_BLOCK + 1)),  # across blocks
            ((SCAN_BLOCK // 2 - 1, SCAN_BLOCK // 2), (SCAN_BLOCK // 2 + 1, 3 * SCAN_BLOCK)),
            ((10, 10 + SCAN_BLOCK), (11, 20 + 2 * SCAN_BLOCK)),  # far apart: the carries
            ((last - 1, n - 1), (0, 5)),  # into the tail
        ]
        for positives, negatives in placements:
            a = pairs_at(n, positives, negatives)
            what = (n, positives, negatives)
            got = np.from_dlpack(xp.cumulative_sum(host(a)))
            assert_running_sums_are_right(got, a, what)
            initial = np.from_dlpack(xp.cumulative_sum(host(a), include_initial=True))
            assert initial[0] == 0
            np.testing.assert_array_equal(initial[1:], got)


@HOST_ENGINE_ONLY
@pytest.mark.parametrize("n", [3, LARGE, LARGE + 1])
def test_running_sums_at_the_overflow_threshold(n):
    a = np.zeros(n, np.float32)
    a[:3] = [F32_MAX, 2.0**103, -(2.0**-149)]
    got = np.from_dlpack(xp.cumulative_sum(host(a)))
    np.testing.assert_array_equal(got[:3], np.float32([F32_MAX, np.inf, F32_MAX]))
    assert (got[3:] == F32_MAX).all()
    assert_running_sums_are_right(got, a)
    # Along an axis of a 2-d array (the double path).
    two = np.stack([a, -a], axis=1)
    got = np.from_dlpack(xp.cumulative_sum(host(two), axis=0))
    np.testing.assert_array_equal(got[2], np.float32([F32_MAX, -F32_MAX]))


def test_f1_prod_of_cancelling_extremes():
    # Issue 28, row F1, exactly: 1e38 at every 1024th element, 1e-38 after it.
    a = np.ones(65536, np.float32)
    a[::1024] = 1e38
    a[1::1024] = 1e-38
    exact = exact_prod(a)
    got = float(xp.prod(host(a)))
    assert abs(Fraction(got) - exact) <= (Fraction(U32) + 65536 * Fraction(U64)) * exact
    assert got == pytest.approx(0.9999935, rel=1e-5)


def assert_prod_is_right(got: float, values: np.ndarray, what: str = "") -> None:
    """Infinite or zero exactly where the exact product rounds so; within
    the documented relative bound (u + n * 2**-53) in float32's normal
    range, plus 2**-150 below it."""
    exact = exact_prod(values)
    expected = to_float32(exact)
    if math.isinf(expected) or expected == 0:
        assert got == expected, (what, got, expected)
    else:
        assert math.isfinite(got), (what, got, expected)
        bound = (Fraction(U32) + values.size * Fraction(U64)) * abs(exact) + Fraction(2) ** -150
        assert abs(Fraction(got) - exact) <= bound, (what, got, expected)


@HOST_ENGINE_ONLY
def test_products_that_leave_double_precisions_range_on_the_way():
    cases = {
        "up then to zero": [1e38] * 10 + [1e-38] * 10 + [0.0],
        "up then down": [1e38] * 10 + [1e-38] * 10,
        "down then up": [1e-38] * 10 + [1e38] * 10,
        "subnormal partials": [1e-30] * 12 + [1e30] * 12,
        "float32 subnormals": [1e-45] * 8 + [1e38] * 9,
        "overflows": [1e38] * 12 + [1e-38] * 3,
        "underflows": [1e-38] * 12 + [1e38] * 3,
        "negative": [-1e38] * 9 + [1e-38] * 9 + [-3.0],
    }
    for name, values in cases.items():
        for n in (len(values), 1000, LARGE, 100_003):
            a = np.ones(n, np.float32)
            a[: len(values)] = values
            RNG.shuffle(a)
            assert_prod_is_right(float(xp.prod(host(a))), a, (name, n))
    # Along an axis, and with keepdims: one row per case.
    rows = np.ones((len(cases), 40), np.float32)
    for row, values in zip(rows, cases.values(), strict=True):
        row[: len(values)] = values
    for got in (
        np.from_dlpack(xp.prod(host(rows), axis=1)),
        np.from_dlpack(xp.prod(host(np.ascontiguousarray(rows.T)), axis=0)),
        np.from_dlpack(xp.prod(host(rows), axis=1, keepdims=True))[:, 0],
    ):
        for value, row in zip(got.tolist(), rows, strict=True):
            assert_prod_is_right(value, row)


@HOST_ENGINE_ONLY
def test_products_at_the_overflow_threshold():
    # 31 * 2**98 * 1082401 * 2**5 is exactly the threshold (2**25 - 1) * 2**103.
    cases = (
        ([], math.inf),
        ([1 - 2.0**-24, 1 + 2.0**-23], math.inf),
        ([1 - 2.0**-24], F32_MAX),  # max - 2**103 + 2**79
        # The same, through partial products beyond double precision's range.
        ([1 - 2.0**-24] + [2.0**120] * 9 + [2.0**-120] * 9, F32_MAX),
    )
    for extra, expected in cases:
        values = [31 * 2.0**98, 1082401 * 2.0**5, *extra]
        for n in sorted({len(values), 9, 1000, LARGE} - set(range(len(values)))):
            a = np.ones(n, np.float32)
            a[: len(values)] = values
            assert_prod_is_right(float(xp.prod(host(a))), a, (extra, n))
            assert float(xp.prod(host(a))) == expected
    a = np.ones(100, np.float32)
    a[:3] = [F32_MAX, 1 - 2.0**-24, 1 + 2.0**-24]  # exactly max * (1 - 2**-48)
    assert_prod_is_right(float(xp.prod(host(a))), a)


def test_var_of_a_deviation_beyond_single_precision():
    # One 1e20 among zeros: the deviation squared (1e40) overflows float32,
    # the variance (about 1.5e35) does not.
    for n in (LARGE - 1, LARGE, 100_003):
        a = np.zeros(n, np.float32)
        a[7] = 1e20
        values = a.astype(np.float64)
        for correction in (0, 1):
            exact = float(((values - values.mean()) ** 2).sum() / (n - correction))
            got = float(xp.var(host(a), correction=correction))
            assert got == pytest.approx(exact, rel=22 * U32), (n, correction)
            assert float(xp.std(host(a), correction=correction)) == pytest.approx(
                math.sqrt(exact), rel=22 * U32
            )
        exact = float(((values - values.mean()) ** 2).sum() / n)
        two = np.stack([a, a[::-1]])
        got = np.from_dlpack(xp.var(host(two), axis=1, keepdims=True))
        np.testing.assert_allclose(got, [[exact], [exact]], rtol=22 * U32)


def test_var_of_a_mean_whose_sum_overflows():
    # (Distinct values near 3e38 differ by at least 2**104: their variance
    # overflows float32.  Equal ones have none.)
    for n in (LARGE, 100_003):
        a = np.full(n, 3e38, np.float32)
        assert float(xp.var(host(a))) == 0.0
        assert float(xp.std(host(a), correction=1)) == 0.0


def test_var_of_squares_below_single_precisions_normal_range():
    # Squared deviations of 1e-40 are subnormal in float32 (2**-150
    # absolute accuracy, 7e-6 relative); the variance, with a correction
    # that leaves a divisor of 0.01, is normal.
    n = LARGE
    a = np.full(n, 1e-20, np.float32)
    a[1::2] = -1e-20
    values = a.astype(np.float64)
    exact = float((values**2).sum()) / (n - (n - 0.01))
    got = float(xp.var(host(a), correction=n - 0.01))
    assert got == pytest.approx(exact, rel=23 * U32, abs=0)


@HOST_ENGINE_ONLY
def test_running_products_that_leave_double_precisions_range_on_the_way():
    # cumulative_prod of float32 (issue 28's prod, per prefix): a double
    # running product stays infinite (or zero) once it overflows (or
    # underflows), though later exact running products are finite again.
    for values in (
        [1e38] * 10 + [1e-38] * 10 + [0.0, 5.0],
        [1e-38] * 10 + [1e38] * 10 + [3.0],
        [1e-30] * 12 + [1e30] * 12,
        [2.0**120] * 9 + [2.0**-120] * 9 + [F32_MAX, 1 - 2.0**-24, 1 + 2.0**-23],
    ):
        for n in (len(values), 1000, LARGE + 1):
            a = np.ones(n, np.float32)
            a[: len(values)] = values
            got = np.from_dlpack(xp.cumulative_prod(host(a)))
            for k, (g, v) in enumerate(zip(got.tolist(), a.tolist(), strict=True)):
                if k >= len(values) + 2 and v == 1:  # (the ones after: checked once)
                    assert g == got[len(values) + 1], (n, k)
                    continue
                assert_prod_is_right(g, a[: k + 1], (values[:3], n, k))
            two = np.stack([a, a], axis=1)
            got2 = np.from_dlpack(xp.cumulative_prod(host(two), axis=0, include_initial=True))
            assert got2.shape == (n + 1, 2) and (got2[0] == 1).all()
            np.testing.assert_array_equal(got2[1:, 0], got)
            np.testing.assert_array_equal(got2[1:, 1], got)


# ---- complex64 prod and cumulative_prod ----
#
# Issue 28's rule for complex64 products of finite factors: each part of
# the result is infinite exactly where that part of the exact product p
# rounds to infinity in float32, and elsewhere finite and within
# (u + 3 * n * 2**-53) * abs(p) of the exact part (abs(p) the modulus),
# plus 2**-150 below float32's normal range.  The oracle is exact: each
# part of the product as a Fraction.

PROD_BLOCK = numpy_reductions.PROD_BLOCK


def exact_complex_prod(values: np.ndarray) -> tuple[Fraction, Fraction]:
    re, im = Fraction(1), Fraction(0)
    for z in values.tolist():
        if z != 1:
            a, b = Fraction(z.real), Fraction(z.imag)
            re, im = re * a - im * b, re * b + im * a
    return re, im


def assert_complex_prod_is_right(got: complex, values: np.ndarray, what: object = "") -> None:
    re, im = exact_complex_prod(values)
    squared = re * re + im * im  # abs(p)**2
    c = Fraction(U32) + 3 * values.size * Fraction(U64)
    for g, exact in ((got.real, re), (got.imag, im)):
        expected = to_float32(exact)
        if math.isinf(expected):
            assert g == expected, (what, got, re, im)
        else:
            assert math.isfinite(g), (what, got, expected)
            excess = abs(Fraction(g) - exact) - Fraction(2) ** -150
            assert excess <= 0 or excess * excess <= c * c * squared, (what, got, expected)


COMPLEX_CASES = {
    "up then down": [1e38] * 10 + [1e-38] * 10,
    "down then up": [1e-38] * 10 + [1e38] * 10,
    "subnormal partials": [1e-30] * 12 + [1e30] * 12,
    "rotating up then down": [1e38 * (0.6 + 0.8j)] * 10 + [1e-38j] * 10,
    "imaginary": [1e38j] * 9 + [-1e-38j] * 9 + [2 - 3j],
    "up then to zero": [1e38] * 10 + [0.0],
    "down then to zero": [1e-38 + 1e-38j] * 10 + [0.0, 1e38],
    "float32 subnormals": [1e-45j] * 8 + [1e38] * 9,
    "overflows": [1e38] * 12 + [1e-38] * 3,
    "underflows": [1e-38 - 1e-38j] * 12 + [1e38] * 3,
    "huge modulus, zero part": [1e30 * (1 + 1j)] * 8,
    "huge modulus, small part": [1e30 * (1 + 1j)] * 8 + [1 + 1e-30j],
    "at the threshold": [31 * 2.0**98 * 1j, -1082401 * 2.0**5 * 1j],
    "below the threshold": [31 * 2.0**98 * 1j, -1082401 * 2.0**5 * 1j, 1 - 2.0**-24],
    "below it, via 2**1080": [31 * 2.0**98 * 1j, -1082401 * 2.0**5 * 1j, 1 - 2.0**-24]
    + [2.0**120] * 9
    + [2.0**-120j] * 9
    + [1j] * 7,
}


def complex_case(values: list, n: int, shuffle: bool = True) -> np.ndarray:
    a = np.ones(n, np.complex64)
    a[: len(values)] = values
    if shuffle:
        RNG.shuffle(a)
    return a


@HOST_ENGINE_ONLY
@pytest.mark.parametrize("name", COMPLEX_CASES)
def test_complex64_products_that_leave_double_precisions_range(name):
    values = COMPLEX_CASES[name]
    for n in sorted({len(values), 40, PROD_BLOCK - 1, PROD_BLOCK, PROD_BLOCK + 1, 1500, LARGE}):
        for shuffle in (False, True):
            a = complex_case(values, n, shuffle)
            got = xp.prod(host(a))
            assert got.dtype == xp.complex64 and got.shape == ()
            assert_complex_prod_is_right(complex(got), a, (n, shuffle))


@HOST_ENGINE_ONLY
def test_complex64_products_along_axes_and_strides():
    rows = np.ones((len(COMPLEX_CASES), 60), np.complex64)
    for row, values in zip(rows, COMPLEX_CASES.values(), strict=True):
        row[: len(values)] = values
    flipped = rows[:, ::-1]
    for got, reference in (
        (xp.prod(host(rows), axis=1), rows),
        (xp.prod(host(rows), axis=-1, keepdims=True)[:, 0], rows),
        (xp.prod(host(np.ascontiguousarray(rows.T)), axis=0), rows),
        (xp.prod(host(rows.T), axis=0), rows),  # (a strided view)
        (xp.prod(host(flipped), axis=1), flipped),  # negative strides
        (xp.prod(host(rows[::-1, ::-2]), axis=1)[::-1], rows[:, ::-2]),
        (xp.prod(host(rows.reshape(len(rows), 6, 10)), axis=(1, 2)), rows),
    ):
        for value, row in zip(np.from_dlpack(got).tolist(), reference, strict=True):
            assert_complex_prod_is_right(value, row)
    # Every element: one product of all.
    few = complex_case(COMPLEX_CASES["rotating up then down"], 40, shuffle=False)
    for shaped in (few.reshape(4, 10), few.reshape(4, 10).T, few[::-1]):
        for got in (xp.prod(host(shaped)), xp.prod(host(shaped), axis=None, keepdims=True)):
            assert_complex_prod_is_right(complex(np.from_dlpack(got).reshape(())), few)


@HOST_ENGINE_ONLY
def test_complex64_products_of_hostile_magnitudes():
    rng = np.random.default_rng(28)
    for n in (7, 30, 200):
        for trial in range(10):
            magnitudes = 10.0 ** rng.uniform(-44, 38, n)
            a = (magnitudes * np.exp(2j * np.pi * rng.random(n))).astype(np.complex64)
            a[rng.random(n) < 0.1] *= 1j  # (some exact quarter turns)
            order = np.argsort(np.abs(a)) if trial % 2 else np.arange(n)  # small first
            a = a[order[::-1]] if trial % 3 == 0 else a[order]
            assert_complex_prod_is_right(complex(xp.prod(host(a))), a, (n, trial))


@HOST_ENGINE_ONLY
def test_complex64_products_with_infinities_keep_numpys_order():
    # (A complex product with an infinite factor is NaN or infinite
    # depending on the order; NumPy's own order, in complex128, decides.)
    rows = np.ones((3, 700), np.complex64)
    rows[0, 5], rows[1, 7] = np.inf, complex(np.inf, 1)
    rows[2, :20] = [1e38] * 10 + [1e-38] * 10  # a finite row beside them
    got = np.from_dlpack(xp.prod(host(rows), axis=1))
    with np.errstate(all="ignore"):
        expected = np.prod(rows[:2], axis=1, dtype=np.complex128).astype(np.complex64)
    np.testing.assert_array_equal(got[:2], expected)
    assert_complex_prod_is_right(complex(got[2]), rows[2])


def assert_complex_running_products_are_right(got: np.ndarray, a: np.ndarray, checked: int, what):
    """Every prefix product of the 1-d ``a`` (after ``checked`` elements,
    ``a`` holds only ones: the running products there equal the last)."""
    assert got.shape == a.shape and got.dtype == np.complex64
    for k in range(min(checked, a.size)):
        assert_complex_prod_is_right(complex(got[k]), a[: k + 1], (what, k))
    if checked < a.size:
        assert (got[checked:] == got[checked - 1]).all(), what


@HOST_ENGINE_ONLY
@pytest.mark.parametrize("name", COMPLEX_CASES)
def test_complex64_running_products_that_leave_double_precisions_range(name):
    values = COMPLEX_CASES[name]
    for n in sorted({len(values), PROD_BLOCK + 1, 1500, LARGE + 1}):
        a = complex_case(values, n, shuffle=False)
        got = np.from_dlpack(xp.cumulative_prod(host(a)))
        assert_complex_running_products_are_right(got, a, len(values) + 1, (name, n))
    # Across blocks: the run split by a block boundary.
    a = np.ones(3 * PROD_BLOCK, np.complex64)
    a[PROD_BLOCK - len(values) // 2 :][: len(values)] = values
    got = np.from_dlpack(xp.cumulative_prod(host(a)))
    last = PROD_BLOCK - len(values) // 2 + len(values)
    for k in [*range(PROD_BLOCK - 30, last + 1), 2 * PROD_BLOCK, a.size - 1]:
        assert_complex_prod_is_right(complex(got[k]), a[: k + 1], (name, k))


@HOST_ENGINE_ONLY
def test_complex64_running_products_along_axes_and_strides():
    a = complex_case(COMPLEX_CASES["rotating up then down"], 40, shuffle=False)
    b = complex_case(COMPLEX_CASES["subnormal partials"], 40, shuffle=False)
    two = np.stack([a, b], axis=1)  # (40, 2)
    got = np.from_dlpack(xp.cumulative_prod(host(two), axis=0, include_initial=True))
    assert got.shape == (41, 2) and (got[0] == 1).all()
    assert_complex_running_products_are_right(got[1:, 0], a, 40, "column 0")
    assert_complex_running_products_are_right(got[1:, 1], b, 40, "column 1")
    flipped = np.stack([a, b])[:, ::-1]  # negative strides
    got = np.from_dlpack(xp.cumulative_prod(host(flipped), axis=1))
    assert_complex_running_products_are_right(got[0], a[::-1], 40, "flipped 0")
    assert_complex_running_products_are_right(got[1], b[::-1], 40, "flipped 1")
    got = np.from_dlpack(xp.cumulative_prod(host(a[::-2])))
    assert_complex_running_products_are_right(got, a[::-2], 20, "every other")


@HOST_ENGINE_ONLY
def test_complex64_running_products_with_infinities_keep_numpys_order():
    a = complex_case([1e38] * 10 + [1e-38] * 10, 60, shuffle=False)
    a[40] = complex(np.inf, 2)
    got = np.from_dlpack(xp.cumulative_prod(host(a)))
    assert_complex_running_products_are_right(got[:40], a[:40], 40, "before the infinity")
    with np.errstate(all="ignore"):
        expected = np.cumprod(a, dtype=np.complex128).astype(np.complex64)
    np.testing.assert_array_equal(got[40:], expected[40:])


# ---- var's fused sum of squares (numpy_reductions.sum_of_squares) ----

FUSED_SIZES = (65536, 65537, 65551, 65552, 65553, 100_003, 1_000_000)


def _squares_summed_apart(d: np.ndarray) -> np.ndarray:
    """What var did before the fused path: the squares written out, then
    the engine's float32 sum (the blocked path, or the double one)."""
    squares = d * d
    return numpy_reductions.accumulation(np.add)(squares)


@HOST_ENGINE_ONLY
@pytest.mark.parametrize("n", FUSED_SIZES)
@pytest.mark.parametrize("kind", ["normal", "offset", "tiny", "huge", "threshold", "inf", "nan"])
def test_fused_sum_of_squares_is_the_sum_of_the_squares_bit_for_bit(kind, n):
    """Fusing the squares into the sum changes no bit: the same float32
    squares added down the same columns, or no answer (None) where the
    result is not proved finite and clear of float32's overflow threshold."""
    rng = np.random.default_rng(n)
    d = rng.standard_normal(n)
    if kind == "offset":
        d += 1e4
    elif kind == "tiny":
        d *= 1e-30  # squares below float32's normal range
    elif kind == "huge":
        d *= 1e18  # squares beyond float32's range
    elif kind == "threshold":
        d *= math.sqrt(2.0**128 / n)  # the sum near float32's overflow threshold
    elif kind == "inf":
        d[n // 3] = math.inf
    elif kind == "nan":
        d[7] = math.nan
    d = d.astype(np.float32)
    with np.errstate(all="ignore"):  # as kernels run (the engine's quiet context)
        fused = numpy_reductions.sum_of_squares(d, (0,), False)
        apart = _squares_summed_apart(d)
    if kind in ("huge", "inf", "nan"):
        assert fused is None, (kind, fused)
    if kind in ("normal", "offset", "tiny"):
        assert fused is not None, kind  # the fused path answered: the check below ran
    if fused is not None:
        assert fused.dtype == np.float32 and fused.shape == ()
        assert np.array_equal(fused, apart), (kind, n, fused, apart)


@HOST_ENGINE_ONLY
def test_fused_sum_of_squares_answers_only_a_large_contiguous_float32_run():
    big = np.ones(70_000, dtype=np.float32)
    assert numpy_reductions.sum_of_squares(big[:1000], (0,), False) is None  # small
    assert numpy_reductions.sum_of_squares(big[::2].copy()[:30_000], (0,), False) is None
    assert numpy_reductions.sum_of_squares(np.ones(140_000, np.float32)[::2], (0,), False) is None
    assert numpy_reductions.sum_of_squares(big.astype(np.float64), (0,), False) is None
    grid = np.ones((300, 400), dtype=np.float32)
    assert numpy_reductions.sum_of_squares(grid, (0,), False) is None  # one axis of two
    both = numpy_reductions.sum_of_squares(grid, (0, 1), True)
    assert both.shape == (1, 1) and float(both[0, 0]) == 120_000.0


# ---- float64 means, variances and deviations: no overflow or underflow on the way ----

#: Rows whose mean, variance or deviation fits float64 though their sum,
#: deviations or squares do not (or fall below its normal range).
SPREAD_ROWS = [
    [1.5e308, 1.5e308, 1.5e308],
    [1.5e308, -1.5e308, 1.5e308],
    [1.7976931348623157e308, 1.7976931348623157e308, -1e308],
    [1e-200, -1e-200, 3e-200],
    [5e-324, 0.0, 1e-323],
    [1e200, 3e200, -2e200],
]


@pytest.mark.parametrize("correction", [0, 1])
@pytest.mark.parametrize("row", range(len(SPREAD_ROWS)))
def test_float64_mean_var_std_do_not_overflow_or_underflow_on_the_way(row, correction):
    """Each row on its own, and as the columns of a reversed view (axis=0,
    keepdims): mean, var and std within their documented bounds of the
    exact results (var infinite only where the exact one is beyond float64's
    range).  Compared at the row's scale: everything times 2**-s, exactly
    (the largest magnitude near 1), so that no reference overflows either."""
    values = SPREAD_ROWS[row]
    n = len(values)
    scale = Fraction(2) ** -math.frexp(max(abs(v) for v in values))[1]
    exact = [Fraction(v) * scale for v in values]
    mean = sum(exact) / n
    variance = sum((v - mean) ** 2 for v in exact) / (n - correction)
    sigma = math.sqrt(variance)  # (variance near 1: within 2**-52 of the exact root)
    mean_abs = float(sum(abs(v) for v in exact) / n)
    delta = (n + 1) * U64 * mean_abs
    var_bound = (n + 4) * U64 * float(variance) + n / (n - correction) * delta * delta
    tiny = Fraction(5e-324)  # (results below the normal range round to its steps)
    var_overflows = variance / scale**2 > Fraction(np.finfo(np.float64).max)
    columns = np.stack([values[::-1]] * 2, axis=1)  # (n, 2), read back reversed
    for a, axis in ((host(np.array(values)), None), (host(columns)[::-1], 0)):
        keepdims = axis is not None
        kw = {"axis": axis, "keepdims": keepdims}
        got_mean = as_numpy(xp.mean(a, **kw)).ravel().tolist()
        got_var = as_numpy(xp.var(a, correction=correction, **kw)).ravel().tolist()
        got_std = as_numpy(xp.std(a, correction=correction, **kw)).ravel().tolist()
        for m, v, s in zip(got_mean, got_var, got_std, strict=True):
            assert math.isfinite(m) and math.isfinite(s), (values, m, s)
            mean_error = abs(Fraction(m) * scale - mean)
            mean_bound = Fraction(2 * U64 * float(abs(mean)) + (n - 1) * U64 * mean_abs)
            assert mean_error <= mean_bound + tiny * scale, (values, m)
            if var_overflows:
                assert v == math.inf, (values, v)
            else:
                assert math.isfinite(v), (values, v)
                var_error = abs(Fraction(v) * scale**2 - variance)
                assert var_error <= Fraction(var_bound) + tiny * scale**2, (values, v)
            std_bound = 4 * U64 * sigma + math.sqrt(var_bound)
            assert abs(Fraction(s) * scale - Fraction(sigma)) <= std_bound + tiny * scale, (
                values,
                s,
            )
