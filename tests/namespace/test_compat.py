"""``dlarray.compat``: dlarray's namespace with NumPy's mixed-kind promotions
(each departure in its docstring), while ``dlarray`` keeps refusing them."""

from __future__ import annotations

import numpy as np
import pytest

import dlarray
import dlarray.compat as compat


def test_mixed_kinds_promote_as_numpy_does():
    total, count = dlarray.asarray([3.0, 5.0]), dlarray.asarray([2, 2])
    with pytest.raises(TypeError, match="no promotion"):
        dlarray.divide(total, count)
    got = compat.divide(total, count)
    assert got.dtype == dlarray.float64 and np.asarray(got).tolist() == [1.5, 2.5]
    pairs = [
        (dlarray.int64, dlarray.float32),
        (dlarray.int64, dlarray.uint64),
        (dlarray.bool, dlarray.int8),
        (dlarray.uint8, dlarray.complex64),
    ]
    for a, b in pairs:
        x, y = dlarray.ones(2, dtype=a), dlarray.ones(2, dtype=b)
        expected = np.result_type(np.dtype(a), np.dtype(b))
        assert np.dtype(compat.add(x, y).dtype) == expected
        assert np.dtype(compat.result_type(a, b)) == expected


def test_python_scalars_of_a_higher_kind():
    assert compat.add(dlarray.asarray([1, 2]), 0.5).dtype == dlarray.float64
    assert compat.multiply(dlarray.asarray([1.0], dtype=dlarray.float32), 1j).dtype == (
        dlarray.complex64
    )
    assert compat.add(dlarray.asarray([True]), 1).dtype == dlarray.int64
    # The standard's own promotions are left alone.
    assert compat.add(dlarray.asarray([1.0], dtype=dlarray.float32), 2.0).dtype == dlarray.float32


def test_mean_with_dtype_and_take_with_an_int():
    x = dlarray.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=dlarray.float32)
    assert compat.mean(x, axis=0, dtype=dlarray.float64).dtype == dlarray.float64
    assert np.asarray(compat.take(x, 1, axis=0)).tolist() == [3.0, 4.0]
    assert np.asarray(compat.take(x, 0, axis=1)).tolist() == [1.0, 3.0]
    assert np.asarray(compat.take(x, dlarray.asarray([1]), axis=1)).tolist() == [[2.0], [4.0]]


def test_can_cast_and_where_and_what_stays_refused():
    assert compat.can_cast(dlarray.int32, dlarray.float64)
    assert not dlarray.can_cast(dlarray.int32, dlarray.float64)
    got = compat.where(dlarray.asarray([True, False]), dlarray.asarray([1, 2]), 2.5)
    assert got.dtype == dlarray.float64 and np.asarray(got).tolist() == [1.0, 2.5]
    with pytest.raises(TypeError):
        compat.add(dlarray.ones(2, dtype=dlarray.bfloat16), dlarray.ones(2, dtype=dlarray.int8))
    # float16 is one of the extended floats too: mixed with no other dtype
    # (before, compat compared and chose float16 with int8 as NumPy does).
    half = dlarray.astype(dlarray.ones(2), dlarray.float16)
    int8s = dlarray.ones(2, dtype=dlarray.int8)
    for call in (
        lambda: compat.equal(half, int8s),
        lambda: compat.where(dlarray.asarray([True, False]), half, int8s),
        lambda: compat.result_type(dlarray.float16, dlarray.int8),
    ):
        with pytest.raises(TypeError, match="no promotion between float16 and int8"):
            call()
    # Everything else is dlarray's own.
    assert compat.sum is dlarray.sum and compat.float64 is dlarray.float64


# The extremes of the 64-bit integers, and the float64 boundary between them.
INT64_MIN, INT64_MAX, UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
EXTREMES = (0, 1, -1, 2**53 - 1, 2**53, 2**53 + 1, -(2**53) - 1, INT64_MAX, 2**63, UINT64_MAX)
EXTREMES += (INT64_MIN,)
COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
PYTHON = {  # the exact answer, for checking that NumPy, the oracle, is exact too
    "equal": lambda a, b: a == b,
    "not_equal": lambda a, b: a != b,
    "less": lambda a, b: a < b,
    "less_equal": lambda a, b: a <= b,
    "greater": lambda a, b: a > b,
    "greater_equal": lambda a, b: a >= b,
}


def _in_range(values, dtype):
    info = np.iinfo(dtype)
    return [v for v in values if info.min <= v <= info.max]


def _same(got, expected):
    """``got`` (dlarray) has NumPy's ``expected`` dtype, shape and values."""
    got_np = np.asarray(got)
    assert got_np.dtype == expected.dtype and got_np.shape == expected.shape
    assert got_np.tolist() == expected.tolist()


@pytest.mark.parametrize("name", COMPARISONS)
@pytest.mark.parametrize("signed", [np.int64, np.int8])
def test_signed_with_uint64_arrays_compare_exactly_as_numpy_does(name, signed):
    # NumPy's promotion of a signed integer with uint64 is float64, where
    # 2**63 - 1 and 2**63 are one number; its comparisons are exact all the same.
    s = np.array(_in_range(EXTREMES, signed), dtype=signed)
    u = np.array(_in_range(EXTREMES, np.uint64), dtype=np.uint64)
    function = getattr(compat, name)
    for a, b in ((s[:, None], u[None, :]), (u[:, None], s[None, :])):  # every pair, both orders
        expected = getattr(np, name)(a, b)
        exact = [[PYTHON[name](int(p), int(q)) for q in b[0]] for p in a[:, 0]]
        assert expected.tolist() == exact  # the oracle is exact
        _same(function(dlarray.asarray(a), dlarray.asarray(b)), expected)
    # 0-d operands, both orders
    for p in (-1, INT64_MAX):
        for q in (0, 2**63, UINT64_MAX):
            a, b = np.asarray(p, dtype=np.int64), np.asarray(q, dtype=np.uint64)
            _same(function(dlarray.asarray(a), dlarray.asarray(b)), getattr(np, name)(a, b))
            _same(function(dlarray.asarray(b), dlarray.asarray(a)), getattr(np, name)(b, a))


@pytest.mark.parametrize("name", COMPARISONS)
@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.uint8, np.int8])
def test_integer_arrays_compare_with_any_python_int_as_numpy_does(name, dtype):
    # NumPy compares an integer array with a Python int outside its dtype's
    # range exactly (2**63 with int64, -1 with uint64, 300 with uint8).
    x = np.array(_in_range(EXTREMES, dtype), dtype=dtype).reshape(-1, 1)
    function = getattr(compat, name)
    for scalar in (*EXTREMES, 2**64, INT64_MIN - 1, 2**70, 300, -129):
        for expected, got in (
            (getattr(np, name)(x, scalar), function(dlarray.asarray(x), scalar)),
            (getattr(np, name)(scalar, x), function(scalar, dlarray.asarray(x))),
        ):
            _same(got, expected)
        exact = [[PYTHON[name](int(v), scalar)] for v in x[:, 0]]
        assert getattr(np, name)(x, scalar).tolist() == exact


def test_int64_with_uint64_elsewhere_is_numpys_float64():
    # Arithmetic, maximum, minimum and where meet in float64 as NumPy's do
    # (each operand rounded to float64 first), so their numbers are NumPy's;
    # the bitwise functions have no float64, and NumPy refuses them too.
    s = np.array(_in_range(EXTREMES, np.int64), dtype=np.int64)[:, None]
    u = np.array(_in_range(EXTREMES, np.uint64), dtype=np.uint64)[None, :]
    for name in ("maximum", "minimum", "add", "subtract", "multiply", "floor_divide"):
        for a, b in ((s, u), (u, s)):
            with np.errstate(all="ignore"):
                expected = getattr(np, name)(a, b)
            got = np.asarray(getattr(compat, name)(dlarray.asarray(a), dlarray.asarray(b)))
            assert got.dtype == expected.dtype == np.float64
            np.testing.assert_array_equal(got, expected)
    condition = np.array([True, False])
    a, b = np.array([INT64_MAX, -1]), np.array([2**63, UINT64_MAX], dtype=np.uint64)
    got = compat.where(dlarray.asarray(condition), dlarray.asarray(a), dlarray.asarray(b))
    _same(got, np.where(condition, a, b))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift"):
        with pytest.raises(TypeError):
            getattr(np, name)(a, b)
        with pytest.raises(TypeError, match="int64 and uint64"):
            getattr(compat, name)(dlarray.asarray(a), dlarray.asarray(b))


@pytest.mark.parametrize("shape", [(2, 3), (4,), (2, 3, 2)])
def test_take_with_an_int_checks_the_axis_as_numpy_does(shape):
    x_np = np.arange(np.prod(shape)).reshape(shape)
    x = dlarray.asarray(x_np)
    ndim = len(shape)
    for axis in range(-ndim, ndim):
        for index in (0, -1):
            _same(compat.take(x, index, axis=axis), np.take(x_np, index, axis=axis))
    for axis in (ndim, ndim + 3, -ndim - 1, 5):
        with pytest.raises(np.exceptions.AxisError):
            np.take(x_np, 0, axis=axis)
        # dlarray's AxisError is both, as NumPy's is: `except ValueError` and
        # `except IndexError` written for NumPy catch it.
        with pytest.raises(
            ValueError, match=rf"take: axis {axis} .*{ndim} axes \(valid: -{ndim} to {ndim - 1}\)"
        ) as caught:
            compat.take(x, 0, axis=axis)
        assert isinstance(caught.value, IndexError)
        with pytest.raises(IndexError):
            compat.take(x, dlarray.asarray([0]), axis=axis)
    with pytest.raises(TypeError):
        compat.take(x, 0, axis=True)


def test_take_with_an_int_from_a_0d_array_as_numpy_does():
    # numpy.take treats a 0-d array as one of one element
    x_np = np.asarray(7)
    for axis in (0, -1, None):
        _same(compat.take(dlarray.asarray(x_np), 0, axis=axis), np.take(x_np, 0, axis=axis))
    for axis in (1, -2):
        with pytest.raises(np.exceptions.AxisError):
            np.take(x_np, 0, axis=axis)
        with pytest.raises(ValueError, match=rf"axis {axis}"):
            compat.take(dlarray.asarray(x_np), 0, axis=axis)


def _truncated(total, count):
    quotient = abs(total) // count
    return quotient if total >= 0 else -quotient


@pytest.mark.parametrize(
    ("values", "source", "dtype"),
    [
        ([1, 2], np.int64, np.int64),
        ([-1, -2], np.int64, np.int64),
        ([-1, -2, -4], np.int64, np.int64),
        ([0, 1, -1, 2**53 - 1], np.int64, np.int64),
        ([2**53 + 1], np.int64, np.int64),  # NumPy: 2**53 (its division is float64's)
        ([INT64_MAX, INT64_MAX], np.int64, np.int64),  # NumPy: -1 (its sum wraps)
        ([INT64_MIN, INT64_MIN, INT64_MIN], np.int64, np.int64),
        ([INT64_MIN, INT64_MAX], np.int64, np.int64),
        ([INT64_MAX], np.int64, np.int64),  # NumPy: INT64_MIN and a RuntimeWarning
        ([UINT64_MAX, UINT64_MAX, 1], np.uint64, np.uint64),
        ([2**63, 2**63 + 1], np.uint64, np.uint64),
        ([-1], np.int64, np.uint64),  # cast first: 2**64 - 1
        ([100, 100], np.int64, np.int8),  # NumPy: -28 (its int8 sum wraps)
        ([True, False, True], np.bool_, np.int64),
        ([1.5, 2.5, -7.9], np.float64, np.int64),  # cast first, truncating, as NumPy does
    ],
)
def test_mean_in_an_integer_dtype_truncates_the_exact_mean(values, source, dtype):
    x_np = np.array(values, dtype=source)
    got = compat.mean(dlarray.asarray(x_np), dtype=getattr(dlarray, np.dtype(dtype).name))
    cast = [int(v) for v in x_np.astype(dtype)]
    exact = _truncated(sum(cast), len(cast))
    assert np.asarray(got).dtype == dtype and int(np.asarray(got)) == exact
    if abs(sum(cast)) <= 2**53 and np.iinfo(dtype).min <= sum(cast) <= np.iinfo(dtype).max:
        # where NumPy's int sum and float64 division are exact, NumPy agrees
        assert np.mean(x_np, dtype=dtype) == exact


def test_mean_in_an_integer_dtype_along_axes():
    x_np = np.array([[1, 2, -7], [4, 6, 9], [INT64_MAX, INT64_MAX, 1]], dtype=np.int64)
    x = dlarray.asarray(x_np)
    for axis, keepdims in ((0, False), (1, True), (-1, False), ((0, 1), False), (None, True)):
        got = np.asarray(compat.mean(x, axis=axis, keepdims=keepdims, dtype=dlarray.int64))
        totals = np.asarray(np.sum(x_np.astype(object), axis=axis, keepdims=keepdims))
        count = x_np.size // totals.size
        assert got.dtype == np.int64 and got.shape == totals.shape
        expected = [_truncated(t, count) for t in totals.ravel()]
        assert got.ravel().tolist() == expected
    # NumPy agrees on the rows whose sums its arithmetic holds exactly
    top = compat.mean(x[:2, ...], axis=1, dtype=dlarray.int64)
    _same(top, np.mean(x_np[:2], axis=1, dtype=np.int64))


def test_mean_in_dtypes_without_a_mean_is_refused():
    x = dlarray.asarray([1, 2])
    with pytest.raises(TypeError, match="bool"):
        compat.mean(x, dtype=dlarray.bool)
    with pytest.raises(ValueError, match="no elements"):
        compat.mean(dlarray.zeros((2, 0), dtype=dlarray.int64), axis=1, dtype=dlarray.int64)
    empty = compat.mean(dlarray.zeros((0, 2), dtype=dlarray.int64), axis=1, dtype=dlarray.int64)
    assert empty.shape == (0,) and empty.dtype == dlarray.int64
    assert compat.mean(x, dtype=dlarray.float32).dtype == dlarray.float32
    # past count**2 = 2**63 the exact method's remainders could wrap: refused
    # before anything is computed (a broadcast view holds no memory)
    many = dlarray.broadcast_to(dlarray.asarray(1), (3_037_000_500,))
    with pytest.raises(ValueError, match="3037000500 elements"):
        compat.mean(many, dtype=dlarray.int64)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int16])
def test_mean_in_an_integer_dtype_of_random_extremes(dtype):
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    pool = np.array([*_in_range(EXTREMES, dtype), info.min, info.max], dtype=object)
    for _ in range(40):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 6)))
        x_np = np.array(rng.choice(pool, size=shape).tolist(), dtype=dtype)
        x = dlarray.asarray(x_np)
        got = np.asarray(compat.mean(x, axis=1, dtype=x.dtype))
        expected = [_truncated(sum(int(v) for v in row), shape[1]) for row in x_np]
        assert got.tolist() == expected
