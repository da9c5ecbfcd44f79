"""NumPy's dispatch protocols on dlarray arrays (NEP 13 ``__array_ufunc__``,
NEP 18 ``__array_function__``; dlarray/_numpy_dispatch.py): NumPy's
functions and ufuncs run dlarray's namespace and return dlarray arrays, with
NumPy's keyword semantics (dtype=, casting=, out=) checked against NumPy on
plain ndarrays; what is not covered raises TypeError saying what to do; a
call with a NumPy array in it is NumPy's own, as for array-api-strict's
arrays."""

from __future__ import annotations

import numpy as np
import pytest
from fake_cuda import stand_in

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
        np.sum(x, where=x > 0)
    with pytest.raises(TypeError, match=r"numpy.frexp has no dlarray equivalent"):
        np.frexp(x)
    with pytest.raises(TypeError, match=r"numpy.add.accumulate"):
        np.add.accumulate(x)


def test_the_standards_promotion_rules_stay():
    with pytest.raises(TypeError, match="no promotion"):
        np.add(dlarray.asarray([1, 2]), dlarray.asarray([1.0, 2.0]))


# ---- NumPy's keywords, against NumPy's own answer on plain ndarrays ----

F = np.array([1.5, -2.5, 0.5, 3.0])
I64 = np.array([1, -2, 3, 4])
I8 = np.array([1, -2, 3, 4], dtype=np.int8)
I16 = np.array([5, 6, 7, 8], dtype=np.int16)
M23 = np.arange(6.0).reshape(2, 3)
M33 = np.arange(9.0).reshape(3, 3)


def same_as_numpy(call, *arrays):
    """``call`` on dlarray copies of ``arrays`` answers as on NumPy copies:
    the same values of the same dtype (in every operand too, ``out=`` among
    them, which is what is returned when NumPy returns it), or an error of
    the same type.  NumPy on plain ndarrays is the oracle."""
    numpy_operands = [a.copy() for a in arrays]
    dlarray_operands = [dlarray.asarray(a.copy()) for a in arrays]
    try:
        with np.errstate(all="ignore"):
            expected = call(*numpy_operands)
    except Exception as error:
        kind = next(k for k in (TypeError, ValueError, OverflowError) if isinstance(error, k))
        with pytest.raises(kind):
            call(*dlarray_operands)
        return
    with np.errstate(all="ignore"):
        got = call(*dlarray_operands)
    assert isinstance(got, dlarray.DLArray)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(np.asarray(got), expected)
    for ours, theirs in zip(dlarray_operands, numpy_operands, strict=True):
        np.testing.assert_array_equal(np.asarray(ours), theirs)
        if expected is theirs:  # out=: NumPy returns the array it was given
            assert got is ours


DTYPE_AND_CASTING = {
    # NumPy's default casting="same_kind" forbids float -> int32 (R3) ...
    "add dtype=int32": (lambda x: np.add(x, x, dtype=np.int32), F),
    "sign dtype=int32": (lambda x: np.sign(x, dtype=np.int32), F),
    # ... and casting="unsafe" gives NumPy's numbers: 1.5 + 1.5 -> 1 + 1
    "add dtype=int32 unsafe": (lambda x: np.add(x, x, dtype=np.int32, casting="unsafe"), F),
    "sign dtype=int32 unsafe": (lambda x: np.sign(x, dtype=np.int32, casting="unsafe"), F),
    "multiply a scalar dtype=int32 unsafe": (
        lambda x: np.multiply(x, 2.5, dtype=np.int32, casting="unsafe"),
        F,
    ),
    "add dtype=float32": (lambda x: np.add(x, x, dtype=np.float32), F),
    "add ints dtype=float64": (lambda x: np.add(x, x, dtype=np.float64), I64),
    "matmul dtype=float32": (lambda m: np.matmul(m, m, dtype=np.float32), M33),
    "add a scalar out of int8's range dtype=int8": (lambda x: np.add(x, 300, dtype=np.int8), I8),
    # casting= without dtype=: the casts NumPy's loop needs
    "divide ints casting=no": (lambda x: np.divide(x, x, casting="no"), I64),
    "add int8 int16 casting=no": (lambda x, y: np.add(x, y, casting="no"), I8, I16),
    "add int8 int16 casting=safe": (lambda x, y: np.add(x, y, casting="safe"), I8, I16),
    "add casting=no same dtype": (lambda x: np.add(x, x, casting="no"), F),
    # out=: NumPy's casting of the result into it, and broadcasting
    "add out=int64": (lambda x, o: np.add(x, x, out=o), F, np.zeros(4, np.int64)),
    "add out=int64 unsafe": (
        lambda x, o: np.add(x, x, out=o, casting="unsafe"),
        F,
        np.zeros(4, np.int64),
    ),
    "add out=float32": (lambda x, o: np.add(x, x, out=o), F, np.zeros(4, np.float32)),
    "add out= broadcast": (lambda x, o: np.add(x, 1.0, out=o), F, np.zeros((2, 4))),
    "add out= not broadcastable": (lambda x, o: np.add(x, 1.0, out=o), F, np.zeros(2)),
    # dtype= as NumPy takes it (R9): a Python type, a string, a dlarray dtype
    "less dtype=bool": (lambda x, y: np.less(x, y, dtype=bool), F, F[::-1].copy()),
    "less dtype=f4 (NumPy has no loop)": (lambda x, y: np.less(x, y, dtype="f4"), F, F),
    "add dtype='f4'": (lambda x, y: np.add(x, y, dtype="f4"), F, F),
    "add dtype=float": (lambda x: np.add(x, x, dtype=float), I64),
    "add dtype=dlarray.float32": (lambda x: np.add(x, x, dtype=dlarray.float32), F),
    "add.reduce dtype='f4'": (lambda x: np.add.reduce(x, dtype="f4"), F),
    "add.reduce dtype=int32 (reductions cast unsafely)": (
        lambda x: np.add.reduce(x, dtype=np.int32),
        F,
    ),
    "add dtype=float32 out=float64": (
        lambda x, o: np.add(x, x, dtype=np.float32, out=o),
        F,
        np.zeros(4),
    ),
    "add dtype=float64 out=int64": (
        lambda x, o: np.add(x, x, dtype=np.float64, out=o),
        F,
        np.zeros(4, np.int64),
    ),
    "sum dtype='f4'": (lambda x: np.sum(x, dtype="f4"), F),
    "cumsum dtype=int": (lambda x: np.cumsum(x, dtype=int), F),
    "astype 'f4'": (lambda x: np.astype(x, "f4"), F),
    "zeros_like dtype='i2'": (lambda x: np.zeros_like(x, dtype="i2"), F),
}


@pytest.mark.parametrize("case", sorted(DTYPE_AND_CASTING))
def test_dtype_casting_and_out_follow_numpy(case):
    call, *arrays = DTYPE_AND_CASTING[case]
    same_as_numpy(call, *arrays)


OUT_SHAPES = {
    # a reduction's or a scan's out= must have the result's shape (R7)
    "add.reduce out= of the input's shape": (
        lambda m, o: np.add.reduce(m, axis=0, out=o),
        M23,
        np.zeros((2, 3)),
    ),
    "sum out= of the input's shape": (lambda m, o: np.sum(m, axis=0, out=o), M23, np.zeros((2, 3))),
    "sum out= (1, 3) without keepdims": (
        lambda m, o: np.sum(m, axis=0, out=o),
        M23,
        np.zeros((1, 3)),
    ),
    "sum out= (1, 3) with keepdims": (
        lambda m, o: np.sum(m, axis=0, keepdims=True, out=o),
        M23,
        np.zeros((1, 3)),
    ),
    "sum out= (3,)": (lambda m, o: np.sum(m, axis=0, out=o), M23, np.zeros(3)),
    "mean out= of the input's shape": (
        lambda m, o: np.mean(m, axis=1, out=o),
        M23,
        np.zeros((2, 3)),
    ),
    "argmax out= of the input's shape": (
        lambda m, o: np.argmax(m, axis=0, out=o),
        M23,
        np.zeros((2, 3), np.int64),
    ),
    "cumsum out= broadcast": (lambda m, o: np.cumsum(m, axis=0, out=o), M23, np.zeros((2, 2, 3))),
    "cumsum out= transposed": (lambda m, o: np.cumsum(m, axis=0, out=o), M23, np.zeros((3, 2))),
    "cumsum flattened out= (2, 3)": (lambda m, o: np.cumsum(m, out=o), M23, np.zeros((2, 3))),
    "cumsum flattened out= (6,)": (lambda m, o: np.cumsum(m, out=o), M23, np.zeros(6)),
    "round out= broadcast": (lambda x, o: np.round(x, out=o), F, np.zeros((2, 4))),
    # ... and is written with NumPy's casting: unsafe for reductions and scans
    "sum out=int64": (lambda x, o: np.sum(x, out=o), F, np.zeros((), np.int64)),
    "add.reduce out=int64": (lambda x, o: np.add.reduce(x, out=o), F, np.zeros((), np.int64)),
    "max out=int64": (lambda x, o: np.max(x, out=o), F, np.zeros((), np.int64)),
    "var out=int64": (lambda x, o: np.var(x, out=o), F, np.zeros((), np.int64)),
    "cumsum out=int64": (lambda x, o: np.cumsum(x, out=o), F, np.zeros(4, np.int64)),
    "all out=float64": (lambda x, o: np.all(x, out=o), F, np.zeros(())),
    # an index into a dtype that casts safely to intp
    "argmax out=int32": (lambda x, o: np.argmax(x, out=o), F, np.zeros((), np.int32)),
    "argmax out=float64": (lambda x, o: np.argmax(x, out=o), F, np.zeros(())),
    # np.round is the ufunc rint: same_kind
    "round out=int64": (lambda x, o: np.round(x, out=o), F, np.zeros(4, np.int64)),
    "round out=float32": (lambda x, o: np.round(x, out=o), F, np.zeros(4, np.float32)),
}


@pytest.mark.parametrize("case", sorted(OUT_SHAPES))
def test_out_of_reductions_and_scans_follows_numpy(case):
    call, *arrays = OUT_SHAPES[case]
    same_as_numpy(call, *arrays)


KEYWORDS_NUMPY_REJECTS = {
    # (R8) each raises in NumPy; dlarray must not ignore it
    "matmul axis= on 1-d": (lambda v: np.matmul(v, v, axis=0), F),
    "matmul keepdims=True": (lambda m: np.matmul(m, m, keepdims=True), M33),
    "var ddof= and correction=": (lambda x: np.var(x, ddof=1, correction=1), F),
    "std ddof= and correction=": (lambda x: np.std(x, ddof=1, correction=1), F),
    # ... and what NumPy accepts still computes as NumPy does
    "var ddof=0 and correction=": (lambda x: np.var(x, ddof=0, correction=1), F),
    "std correction=": (lambda x: np.std(x, correction=1), F),
    "var ddof=": (lambda x: np.var(x, ddof=1), F),
}


@pytest.mark.parametrize("case", sorted(KEYWORDS_NUMPY_REJECTS))
def test_keywords_numpy_rejects_are_rejected(case):
    call, *arrays = KEYWORDS_NUMPY_REJECTS[case]
    same_as_numpy(call, *arrays)


def test_a_dtype_dlarray_does_not_have_is_refused_saying_so():
    x = dlarray.asarray(F)
    with pytest.raises(TypeError, match=r"numpy.add: dtype=<class 'object'> is NumPy's object"):
        np.add(x, x, dtype=object)
    with pytest.raises(TypeError):  # no dtype at all: NumPy's own error
        np.add(x, x, dtype="no such dtype")


def test_out_is_written_in_place_and_returned():
    x = dlarray.asarray(F)
    out = dlarray.zeros(4, dtype=dlarray.float32)
    view = out[1:]
    assert np.add(x, x, out=out) is out
    assert np.asarray(view).tolist() == [-5.0, 1.0, 6.0]
    total = dlarray.zeros(())
    assert np.sum(x, out=total) is total and float(total) == F.sum()


# ---- a call with a NumPy array in it is NumPy's own (P1) ----


def test_may_share_memory_and_shares_memory_answer_for_the_memory():
    base = np.arange(6.0)
    view = dlarray.asarray(base)  # dlarray's zero-copy view of the ndarray
    assert np.asarray(view).ctypes.data == base.ctypes.data
    copy = dlarray.asarray(base, copy=True)
    for check in (np.may_share_memory, np.shares_memory):
        assert check(base, view) is True
        assert check(view, base) is True
        assert check(base[:2], view[3:]) is check(base[:2], base[3:]) is False
        assert check(base, copy) is False
        assert check(np.asarray(copy), copy) is True


MIXED_CALLS = {
    "average(weights=x)": lambda a, x: np.average(a, weights=x),
    "corrcoef": lambda a, x: np.corrcoef(a, x),
    "concatenate": lambda a, x: np.concatenate([a, x]),
    "where": lambda a, x: np.where(a > 2.0, x, a),
    "clip": lambda a, x: np.clip(x, a - 1.0, a + 1.0),
    "add": lambda a, x: np.add(a, x),
    "ndarray + x": lambda a, x: a + x,
    "ndarray @ x": lambda a, x: a @ x,
    "sum(ndarray * x)": lambda a, x: np.sum(a * x),
    "maximum.reduce of a list": lambda a, x: np.maximum.reduce([a, x]),
    "cov(x, y=ndarray)": lambda a, x: np.cov(x, a),
}


@pytest.mark.parametrize("case", sorted(MIXED_CALLS))
def test_a_call_with_a_numpy_array_in_it_gives_numpys_result(case):
    call = MIXED_CALLS[case]
    a, values = np.array([1.0, 4.0, 2.0, 8.0]), np.array([3.0, 1.0, 2.0, 5.0])
    expected = call(a, values)
    got = call(a, dlarray.asarray(values))
    assert type(got) is type(expected)  # NumPy's: an ndarray or a NumPy scalar
    np.testing.assert_array_equal(got, expected)


def test_numpys_call_writes_dlarray_arrays_in_place():
    a = np.array([1.0, 2.0, 3.0])
    x = dlarray.zeros(3)
    assert np.add(a, a, out=x) is x
    assert np.asarray(x).tolist() == [2.0, 4.0, 6.0]
    np.add.at(x, np.array([0, 0]), 1.0)
    assert np.asarray(x).tolist() == [4.0, 4.0, 6.0]
    a += x
    assert a.tolist() == [5.0, 6.0, 9.0]
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        np.add(a, a, out=dlarray.asarray(frozen))


def test_device_memory_in_a_mixed_call_is_refused_naming_the_copy():
    with stand_in(gpus=1) as fake:
        x = dlarray.asarray([1.0, 2.0]).to_device("cuda")
        a = np.ones(2)
        fake.calls.clear()
        calls = (
            lambda: np.may_share_memory(a, x),
            lambda: np.average(a, weights=x),
            lambda: np.concatenate([a, x]),
            lambda: np.add(a, x),
            lambda: a + x,
        )
        for call in calls:
            with pytest.raises(TypeError, match=r"to_device\('cpu'\)"):
                call()
        assert not any(entry[0] == "memcpy" for entry in fake.calls)  # nothing copied


def test_numpys_permutations_copy_and_keep_every_element():
    rng = np.random.default_rng(0)
    x = dlarray.arange(8)
    m = dlarray.reshape(dlarray.arange(12), (4, 3))
    for permute in (rng.permutation, np.random.permutation):
        got = permute(x)
        assert type(got) is np.ndarray and sorted(got.tolist()) == list(range(8))
        rows = permute(m)  # whole rows, in another order
        assert sorted(rows.tolist()) == np.asarray(m).tolist()
    elements = rng.permuted(m)  # every element, anywhere
    assert sorted(elements.ravel().tolist()) == list(range(12))
    assert np.asarray(x).tolist() == list(range(8))  # x itself untouched
    assert np.asarray(m).tolist() == np.arange(12).reshape(4, 3).tolist()


def test_shuffling_in_place_goes_through_numpys_view():
    # NumPy shuffles anything but an ndarray by swapping x[i], x[j] = x[j],
    # x[i]; a dlarray x[j] is a view, so that swap duplicates (NumPy warns).
    # The documented way (docs/guide/python-numpy.md) shuffles NumPy's
    # zero-copy view of x: x itself, losing nothing.
    rng = np.random.default_rng(1)
    x = dlarray.arange(100)
    rng.shuffle(np.asarray(x))
    values = np.asarray(x).tolist()
    assert sorted(values) == list(range(100)) and values != list(range(100))
    m = dlarray.reshape(dlarray.arange(30), (10, 3))
    np.random.shuffle(np.asarray(m))
    rows = np.asarray(m).tolist()
    assert sorted(rows) == np.arange(30).reshape(10, 3).tolist() and rows != sorted(rows)
