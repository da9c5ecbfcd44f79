"""Creation, dtype conversion and the array object's own rules, computed
through the engine's standard namespace.

These tests run on whichever engine computes on host memory: NumPy by
default, array-api-strict under ``DLARRAY_HOST_ENGINE=array_api_strict``
(the foreign engine, which refuses anything outside the standard, and
whose arrays live on a device of their own, so an engine array made
without the input's ``device=`` fails).  Expected values come from NumPy
on host copies, or from the standard's formulas in Python.
"""

from __future__ import annotations

import copy
import math
import pickle
import warnings

import numpy as np
import pytest

import dlarray as xp
from dlarray import _array
from dlarray._engine import routing

ON_NUMPY = routing.HOST_ENGINE == "numpy"
REAL = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
REAL += ("float32", "float64")
ALL = ("bool", *REAL, "complex64", "complex128")


def host(x):
    return np.from_dlpack(x)


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    # The engines' floating-point warnings (overflow in a cast, NaN to an
    # integer) are values in the standard, and must not leak out.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ---- filling ----


@pytest.mark.parametrize("name", ALL)
def test_ones_full_and_their_likes_fill_every_dtype(name):
    dtype = getattr(xp, name)
    one = True if name == "bool" else 1
    for x in (xp.ones((2, 3), dtype=dtype), xp.ones_like(xp.zeros((2, 3), dtype=dtype))):
        assert x.dtype is dtype and host(x).tolist() == [[one] * 3] * 2
    value = {"bool": False, "complex64": 1.5 - 2j, "complex128": 1.5 - 2j}.get(name, 7)
    for x in (xp.full(4, value, dtype=dtype), xp.full_like(xp.empty(4, dtype=dtype), value)):
        assert x.dtype is dtype and host(x).tolist() == [value] * 4
    assert xp.full((0, 2), value, dtype=dtype).shape == (0, 2)


def test_fill_values_of_another_kind_convert_as_numpy_converts_them():
    assert host(xp.full(2, True, dtype=xp.int8)).tolist() == [1, 1]
    assert host(xp.full(2, 2.7, dtype=xp.int16)).tolist() == [2, 2]
    assert host(xp.full(2, 3, dtype=xp.bool)).tolist() == [True, True]
    assert host(xp.full(2, 3, dtype=xp.complex64)).tolist() == [3 + 0j, 3 + 0j]
    assert host(xp.full(2, 1e300, dtype=xp.float32)).tolist() == [math.inf] * 2  # no warning
    assert (
        host(xp.full(2, -1e300 + 1e300j, dtype=xp.complex64)).tolist()
        == [complex(-math.inf, math.inf)] * 2
    )


def test_fill_values_that_have_no_value_of_the_dtype_are_refused():
    with pytest.raises(TypeError, match="imaginary part"):
        xp.full(2, 1j, dtype=xp.float64)
    with pytest.raises(OverflowError, match="does not fit in int8"):
        xp.full(2, 300, dtype=xp.int8)
    with pytest.raises(OverflowError, match="does not fit in uint8"):
        xp.full_like(xp.zeros(2, dtype=xp.uint8), -1)
    with pytest.raises(ValueError, match="nan has no int32 value"):
        xp.full(2, math.nan, dtype=xp.int32)
    with pytest.raises(TypeError, match="Python bool, int, float or complex"):
        xp.full(2, "1", dtype=xp.int32)


@pytest.mark.parametrize(
    ("n", "m", "k"),
    [(3, None, 0), (3, 4, 1), (4, 3, -1), (2, 2, 5), (5, 5, -4), (0, 3, 0), (3, 0, 0)],
)
@pytest.mark.parametrize("name", ["bool", "int8", "float32", "complex128"])
def test_eye_matches_numpy(n, m, k, name):
    x = xp.eye(n, m, k=k, dtype=getattr(xp, name))
    assert x.dtype.name == name
    np.testing.assert_array_equal(host(x), np.eye(n, m, k=k, dtype=name))


_ARANGE_ARGS = [(5,), (1, 10, 3), (10, 0, -3), (0,), (2.5,), (1.0, 2.0, 0.25), (0, 1, 0.1), (-3, 3)]
# The complex dtypes hold the same real values (the 2025.12 text asks real
# start, stop and step, not a real dtype; NumPy and array-api-strict agree).
_ARANGE_DTYPES = [None, "int8", "uint16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (args, name)
        for args in _ARANGE_ARGS
        for name in _ARANGE_DTYPES
        if not (name == "uint16" and min(args) < 0)  # no negative unsigned values
    ],
)
def test_arange_is_start_plus_i_times_step(args, name):
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    dtype = None if name is None else getattr(xp, name)
    x = xp.arange(*args, dtype=dtype)
    ints = all(type(v) is int for v in (start, stop, step))
    expected = [start + i * step for i in range(max(0, math.ceil((stop - start) / step)))]
    assert x.dtype.name == (name or ("int64" if ints else "float64"))
    np.testing.assert_array_equal(host(x), np.asarray(expected).astype(x.dtype.name))


@pytest.mark.parametrize("args", [(27,), (0.5, 3.0, 0.7), (5, -5, -2)])
@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_arange_of_a_complex_dtype_is_numpys(args, name):
    # (before: "arange: dtype must be a real-valued dtype, got complex128")
    x = xp.arange(*args, dtype=getattr(xp, name))
    assert x.dtype.name == name
    # NumPy's values, computed in float64 and rounded once (as dlarray's
    # real dtypes; NumPy's complex64 arange steps in float32).
    np.testing.assert_array_equal(host(x), np.arange(*args, dtype=np.complex128).astype(name))


def test_arange_and_linspace_name_the_dtype_passed():
    # (before: linspace said "got an array of dtype int32", for a dtype)
    with pytest.raises(TypeError, match=r"linspace: dtype=int32 was passed.*floating-point"):
        xp.linspace(0, 10, 5, dtype=xp.int32)
    with pytest.raises(TypeError, match=r"arange: dtype=bool was passed.*numeric"):
        xp.arange(3, dtype=xp.bool)


@pytest.mark.parametrize(
    ("start", "stop", "num", "endpoint"),
    [(0, 1, 5, True), (0.1, 0.7, 7, True), (0, 1, 4, False), (3, -2, 1, True), (3, -2, 0, True)],
)
@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_linspace_matches_numpy_and_ends_at_stop(start, stop, num, endpoint, name):
    x = xp.linspace(start, stop, num, dtype=getattr(xp, name), endpoint=endpoint)
    expected = np.linspace(start, stop, num, endpoint=endpoint).astype(name)
    np.testing.assert_allclose(host(x), expected, rtol=1e-6)
    if endpoint and num > 1:
        assert host(x)[-1] == stop
    z = xp.linspace(1 + 1j, 2 - 1j, 5)
    np.testing.assert_allclose(host(z), np.linspace(1 + 1j, 2 - 1j, 5))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("lengths", [(), (3,), (3, 2), (2, 3, 4), (2, 0)])
def test_meshgrid_matches_numpy_with_new_writable_arrays(indexing, lengths):
    vectors = [np.arange(n, dtype=np.float32) + 10 * i for i, n in enumerate(lengths)]
    grids = xp.meshgrid(*(xp.asarray(v) for v in vectors), indexing=indexing)
    expected = np.meshgrid(*vectors, indexing=indexing)
    assert isinstance(grids, tuple) and len(grids) == len(expected)
    for grid, want in zip(grids, expected, strict=True):
        assert grid.dtype is xp.float32 and not grid.readonly
        np.testing.assert_array_equal(host(grid), want)
    if len(grids) > 1 and grids[0].size:
        grids[0][...] = -1.0  # each grid has memory of its own
        np.testing.assert_array_equal(host(grids[1]), expected[1])


@pytest.mark.parametrize("k", [-5, -1, 0, 2])
def test_tril_and_triu_match_numpy_on_stacks(k):
    a = np.arange(24.0).reshape(2, 3, 4)
    x = xp.asarray(a)
    np.testing.assert_array_equal(host(xp.tril(x, k=k)), np.tril(a, k=k))
    np.testing.assert_array_equal(host(xp.triu(x, k=k)), np.triu(a, k=k))
    b = xp.ones((3, 3), dtype=xp.bool)
    np.testing.assert_array_equal(host(xp.tril(b, k=k)), np.tril(np.ones((3, 3), bool), k=k))


# ---- converting dtypes ----


def test_astype_and_asarray_convert_on_the_engine_without_warnings():
    x = xp.asarray([1.7, -1.7, math.nan, math.inf])
    assert host(xp.astype(x[:2], xp.int32)).tolist() == [1, -1]
    xp.astype(x, xp.int32)  # NaN and inf to an integer: unspecified, and quiet
    assert host(xp.asarray(x[:2], dtype=xp.float32)).tolist() == [
        1.7000000476837158,
        -1.7000000476837158,
    ]
    assert host(xp.astype(xp.asarray([1, 0, 2]), xp.bool)).tolist() == [True, False, True]
    assert host(xp.astype(xp.asarray([True, False]), xp.complex64)).tolist() == [1 + 0j, 0j]
    assert host(xp.astype(xp.asarray([300, -1]), xp.uint8)).tolist() == [44, 255]
    y = xp.asarray([1, 2])
    assert xp.astype(y, xp.int64, copy=False) is y
    copied = xp.astype(y, xp.int64)
    copied[0] = 5
    assert host(y).tolist() == [1, 2]
    t = xp.asarray(np.arange(6.0).reshape(2, 3)).T  # a strided view
    np.testing.assert_array_equal(host(xp.astype(t, xp.int16)), np.arange(6).reshape(2, 3).T)


@pytest.mark.skipif(not ON_NUMPY, reason="the foreign engine holds no extended float dtypes")
def test_astype_to_a_format_whose_numpy_type_code_is_an_integers():
    pytest.importorskip("ml_dtypes", reason="needs ml_dtypes")
    # ml_dtypes gives float8_e4m3b11fnuz NumPy's type character "L" (an
    # unsigned integer's): the result must still be the float format.
    x = xp.astype(xp.asarray([1.0, 2.0], dtype=xp.float32), xp.float8_e4m3b11fnuz)
    assert x.dtype is xp.float8_e4m3b11fnuz
    assert host(xp.astype(x, xp.float32)).tolist() == [1.0, 2.0]


# ---- the array object: conversions to Python numbers ----


@pytest.mark.parametrize("name", ALL)
def test_0d_arrays_convert_to_python_numbers(name):
    value = {"bool": True, "complex64": 1.5 - 2j, "complex128": 1.5 - 2j}.get(name, 3)
    x = xp.asarray(value, dtype=getattr(xp, name))
    assert bool(x) is True and complex(x) == value
    assert f"{x}" == str(np.asarray(value, dtype=name)[()])
    if name.startswith("complex"):
        with pytest.raises(TypeError):
            float(x)
        return
    assert float(x) == value and type(float(x)) is float
    assert int(x) == value and type(int(x)) is int
    if name != "bool" and not name.startswith("float"):
        assert x.__index__() == value and type(x.__index__()) is int
        assert f"{x:#x}" == "0x3"
    else:
        with pytest.raises(TypeError, match="integer"):
            x.__index__()
    with pytest.raises(TypeError, match="0-d"):
        bool(xp.zeros(2, dtype=getattr(xp, name)))


def test_conversions_take_the_value_as_python_does():
    assert int(xp.asarray(-2.7)) == -2 and bool(xp.asarray(0.0)) is False
    assert int(xp.asarray(2**64 - 1, dtype=xp.uint64)) == 2**64 - 1
    assert float(xp.asarray(True)) == 1.0 and bool(xp.asarray(math.nan)) is True
    assert f"{xp.asarray(3.14159):.2f}" == "3.14" and f"{xp.asarray(True)}" == "True"
    with pytest.raises(ValueError):
        int(xp.asarray(math.nan))


# ---- the array object: in-place operators ----


def test_in_place_operators_write_into_the_array_and_through_views():
    base = xp.asarray(np.arange(12.0).reshape(3, 4))
    view = base[1:, ::2]
    view += xp.asarray([100.0, 200.0])  # the other operand broadcasts
    view *= 2
    expected = np.arange(12.0).reshape(3, 4)
    expected[1:, ::2] = (expected[1:, ::2] + [100.0, 200.0]) * 2
    np.testing.assert_array_equal(host(base), expected)
    x = xp.asarray([1.0, 2.0, 3.0, 4.0])
    x += x[::-1]  # overlapping operands: the result of the whole operation
    assert host(x).tolist() == [5.0, 5.0, 5.0, 5.0]
    n = xp.asarray([7, -7], dtype=xp.int8)
    n //= 2
    n <<= 1
    n %= 5
    assert host(n).tolist() == [1, 2] and n.dtype is xp.int8
    b = xp.asarray([True, False])
    b ^= True
    assert host(b).tolist() == [False, True]


def test_in_place_results_that_do_not_fit_x_are_refused_before_writing():
    x = xp.asarray([1, 2], dtype=xp.int16)
    with pytest.raises(TypeError, match="cannot change"):
        x += xp.asarray([1, 2], dtype=xp.int32)
    with pytest.raises(TypeError, match="cannot change"):
        x /= 2
    with pytest.raises(ValueError, match="cannot broadcast"):
        x += xp.ones((2, 2), dtype=xp.int16)
    assert host(x).tolist() == [1, 2]


@pytest.mark.skipif(not ON_NUMPY, reason="the NumPy engine's in-place kernels")
def test_numpy_engine_writes_ufunc_results_straight_into_x():
    # No temporary: the ufunc's third argument is out=, x's own memory.
    a = np.zeros(2)
    assert _array._in_place_kernel(a, "add") is np.add
    assert _array._in_place_kernel(a, "floor_divide") is not np.floor_divide  # a fix


# ---- round(x, ndigits) ----


def test_round_to_decimals_matches_numpy_for_floats():
    rng = np.random.default_rng(0)
    f = rng.standard_normal(500) * 1000
    c = f + 1j * f[::-1]
    for ndigits in range(-4, 8):
        for a in (f, f.astype(np.float32), c, c.astype(np.complex64)):
            got = round(xp.asarray(a), ndigits)
            assert got.dtype.name == a.dtype.name
            np.testing.assert_array_equal(host(got), np.round(a, ndigits))
    strided = xp.asarray(c.reshape(20, 25))[::-3, 1::2]
    np.testing.assert_array_equal(host(round(strided, 1)), np.round(host(strided), 1))
    # An infinite part stays infinite and leaves its partner alone.
    inf = xp.asarray(np.array([complex(1.25, math.inf)]))
    assert host(round(inf, 1)).tolist() == [complex(1.2, math.inf)]
    assert host(round(xp.asarray([1.5, -2.5, math.inf]), 400)).tolist() == [1.5, -2.5, math.inf]


def test_round_to_tens_is_exact_for_integers():
    base = 4611686018427387900  # beyond float64's exact integers
    got = round(xp.asarray([base + 4, base + 5, base + 6, base + 15, -base - 5, 25, -25, 0]), -1)
    assert host(got).tolist() == [base, base, base + 10, base + 20, -base, 20, -20, 0]
    for name in ("int8", "uint8", "int16"):
        info = np.iinfo(name)
        values = np.arange(info.min, info.max + 1, dtype=name)
        for ndigits in (-1, -2, -3):
            np.testing.assert_array_equal(
                host(round(xp.asarray(values), ndigits)), np.round(values, ndigits)
            )
    assert host(round(xp.asarray([5, 7], dtype=xp.uint8), 2)).tolist() == [5, 7]


# ---- copies, pickles and NumPy's protocol: host copies, read with NumPy ----


def test_copies_pickles_and_dunder_array_leave_the_engine_view_alone():
    x = xp.asarray([1.5, 2.5, 3.5])
    engine = routing.engine_view(x)
    a = np.asarray(x)
    assert type(a) is np.ndarray and a.ctypes.data == x._data
    with warnings.catch_warnings():  # NumPy 2.5 deprecates it; old code still does it
        warnings.simplefilter("ignore", DeprecationWarning)
        a.shape = (3, 1)  # NumPy's own view: dlarray's is another object
    assert routing.engine_view(x) is engine and engine.shape == (3,)
    assert np.asarray(x, dtype=np.float32).tolist() == [1.5, 2.5, 3.5]
    for y in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x, protocol=5))):
        assert host(y).tolist() == [1.5, 2.5, 3.5] and y._data != x._data
    assert repr(xp.asarray([[1, 2]], dtype=xp.int8)) == (
        "dlarray.asarray([[1, 2]], dtype=dlarray.int8)"
    )
