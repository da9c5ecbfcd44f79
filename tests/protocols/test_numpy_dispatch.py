"""NumPy's dispatch protocols on dlarray arrays (NEP 13 ``__array_ufunc__``,
NEP 18 ``__array_function__``; dlarray/_numpy_dispatch.py): NumPy's
functions and ufuncs run dlarray's namespace and return dlarray arrays; what
is not covered, and NumPy arrays mixed in, raise TypeError saying what to do."""

from __future__ import annotations

import numpy as np
import pytest

import dlarray
from dlarray._numpy_dispatch import FUNCTIONS, UFUNCS

A = np.arange(12.0).reshape(3, 4) - 5.0


def as_dl(a):
    return dlarray.asarray(a)


@pytest.mark.parametrize("name", sorted(UFUNCS))
def test_every_listed_ufunc_returns_a_dlarray_array(name):
    ufunc = getattr(np, name)
    if name in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"):
        a = np.arange(1, 13).reshape(3, 4)
    elif name.startswith("logical"):
        a = np.arange(12).reshape(3, 4) % 2 == 0
    elif name in ("arccos", "arcsin", "arctanh"):
        a = np.linspace(-0.5, 0.5, 12).reshape(3, 4)
    elif name == "arccosh":
        a = np.linspace(1.0, 3.0, 12).reshape(3, 4)
    elif name == "matmul":
        a = np.arange(9.0).reshape(3, 3)
    else:
        a = np.linspace(0.5, 3.0, 12).reshape(3, 4)
    args = (a,) * ufunc.nin
    with np.errstate(all="ignore"):
        expected = ufunc(*args)
        got = ufunc(*(as_dl(v) for v in args))
    assert isinstance(got, dlarray.DLArray)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12)


def test_ufunc_reduce_out_and_dtype():
    x = as_dl(A)
    assert float(np.add.reduce(x, axis=None)) == A.sum()
    np.testing.assert_array_equal(np.asarray(np.maximum.reduce(x, axis=1)), A.max(1))
    out = dlarray.empty((3, 4))
    assert np.multiply(x, 2.0, out=out) is out
    np.testing.assert_array_equal(np.asarray(out), A * 2)
    assert np.add(x, x, dtype=np.float32).dtype == dlarray.float32


@pytest.mark.parametrize(
    "call",
    [
        lambda np_, a: np_.sum(a, axis=0, keepdims=True),
        lambda np_, a: np_.mean(a, axis=1),
        lambda np_, a: np_.var(a, axis=0, ddof=1),
        lambda np_, a: np_.std(a),
        lambda np_, a: np_.max(a, axis=1),
        lambda np_, a: np_.min(a),
        lambda np_, a: np_.prod(a[:, :2] + 6, axis=0),
        lambda np_, a: np_.argmax(a, axis=1),
        lambda np_, a: np_.cumsum(a),
        lambda np_, a: np_.cumsum(a, axis=1),
        lambda np_, a: np_.concatenate([a, a], axis=1),
        lambda np_, a: np_.stack([a, a]),
        lambda np_, a: np_.reshape(a, (4, 3)),
        lambda np_, a: np_.transpose(a),
        lambda np_, a: np_.expand_dims(a, 0),
        lambda np_, a: np_.squeeze(np_.expand_dims(a, 0)),
        lambda np_, a: np_.broadcast_to(a[0], (2, 4)),
        lambda np_, a: np_.where(a > 0, a, 0.0),
        lambda np_, a: np_.clip(a, -1.0, 1.0),
        lambda np_, a: np_.sort(a, axis=0),
        lambda np_, a: np_.flip(a, axis=0),
        lambda np_, a: np_.roll(a, 1, axis=1),
        lambda np_, a: np_.take(a, [0, 2], axis=0),
        lambda np_, a: np_.take(a, 1, axis=1),
        lambda np_, a: np_.tensordot(a, a, axes=([1], [1])),
        lambda np_, a: np_.zeros_like(a),
        lambda np_, a: np_.empty_like(a, shape=(2,)).shape,
        lambda np_, a: np_.full_like(a, 7.0),
        lambda np_, a: np_.copy(a),
        lambda np_, a: np_.round(a / 3),
        lambda np_, a: np_.diff(a, axis=1),
        lambda np_, a: (np_.ndim(a), np_.shape(a), np_.size(a)),
    ],
)
def test_numpy_functions_run_dlarrays_namespace(call):
    expected = call(np, A)
    got = call(np, as_dl(A))
    if isinstance(expected, tuple):
        assert got == expected
        return
    assert isinstance(got, dlarray.DLArray)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12)


def test_functions_table_names_numpy_functions():
    assert np.sum in FUNCTIONS and np.concatenate in FUNCTIONS


def test_other_numpy_functions_run_numpys_own_on_a_zero_copy_view():
    # SciPy's spearmanr calls np.column_stack on the arrays it is given:
    # NumPy computes, reading the dlarray arrays without a copy.
    x = as_dl(A)
    got = np.column_stack((x, x))
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, np.column_stack((A, A)))
    assert np.median(x) == np.median(A)
    # NumPy's fliplr returns a view of what it read: dlarray's memory, not a copy.
    flipped = np.fliplr(x)
    assert type(flipped) is np.ndarray and np.shares_memory(flipped, np.from_dlpack(x))


def test_what_is_not_covered_raises_and_names_the_conversion():
    x = as_dl(A)
    with pytest.raises(TypeError, match=r"numpy.sum: dlarray arrays take no where="):
        np.sum(x, where=np.asarray(A > 0))
    with pytest.raises(TypeError, match=r"numpy.frexp has no dlarray equivalent"):
        np.frexp(x)
    with pytest.raises(TypeError, match=r"numpy.add.accumulate"):
        np.add.accumulate(x)


def test_numpy_arrays_mixed_in_raise_the_operators_mixing_error():
    x = as_dl(A)
    for call in (lambda: np.add(A, x), lambda: A + x, lambda: np.concatenate([A, x])):
        with pytest.raises(TypeError, match=r"dlarray.asarray\(other\).*numpy.from_dlpack\(x\)"):
            call()


def test_the_standards_promotion_rules_stay():
    with pytest.raises(TypeError, match="no promotion"):
        np.add(dlarray.asarray([1, 2]), dlarray.asarray([1.0, 2.0]))
