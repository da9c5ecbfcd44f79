"""NumPy's dispatch protocols on dlarray arrays (NEP 13 ``__array_ufunc__``,
NEP 18 ``__array_function__``; dlarray/_numpy_dispatch.py): a NumPy call on
dlarray host arrays computes what NumPy computes.  NumPy's functions and
ufuncs run dlarray's namespace and return dlarray arrays where dlarray's
function gives NumPy's answer, with NumPy's keyword semantics (dtype=,
casting=, out=); every other call -- inputs outside what dlarray's function
does the NumPy way, functions and ufuncs without an equivalent, a NumPy array
in the call -- is NumPy's own on zero-copy views, and refuses device memory
naming to_device.  NumPy on plain ndarrays is the oracle throughout, for
every entry of the dispatch tables (test_every_entry_computes_what_numpy_computes)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from fake_cuda import stand_in

import dlarray
from dlarray._numpy_dispatch import FUNCTIONS, REDUCTIONS, UFUNCS

try:
    import ml_dtypes  # bfloat16 (dlarray's optional dependency, in its test extras)
except ImportError:
    ml_dtypes = None

A = np.arange(12.0).reshape(3, 4) - 5.0


def as_dl(a):
    return dlarray.asarray(a)


@pytest.mark.parametrize("name", sorted(UFUNCS))
def test_every_listed_ufunc_returns_a_dlarray_array(name):
    ufunc = getattr(np, name)
    integer_only = (
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "invert",
        "left_shift",
        "right_shift",
    )
    # (floor_divide of floats is NumPy's own: NumPy's inf // 3 is NaN, the standard's inf)
    if name in (*integer_only, "floor_divide"):
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


def test_what_dlarray_has_no_equivalent_for_is_numpys_own():
    # A keyword, a ufunc or a ufunc method dlarray has no equivalent for:
    # NumPy computes on zero-copy views and returns NumPy's result.
    x = as_dl(A)
    got = np.sum(x, where=x > 0)
    assert type(got) is np.float64 and got == np.sum(A, where=A > 0)
    mantissas, exponents = np.frexp(x)
    np.testing.assert_array_equal(mantissas, np.frexp(A)[0])
    np.testing.assert_array_equal(exponents, np.frexp(A)[1])
    accumulated = np.add.accumulate(x)
    assert type(accumulated) is np.ndarray
    np.testing.assert_array_equal(accumulated, np.add.accumulate(A))
    np.testing.assert_array_equal(np.multiply.outer(x[0], x[1]), np.multiply.outer(A[0], A[1]))
    np.testing.assert_array_equal(np.round(x, 1), np.round(A, 1))


def test_mixed_kinds_compute_numpys_promotion_and_dlarrays_own_functions_refuse_them():
    # NumPy's call computes with NumPy's promotion; dlarray's namespace and
    # operators keep the standard's refusal.
    ints, floats = dlarray.asarray([1, 2]), dlarray.asarray([1.5, 2.5])
    got = np.add(ints, floats)
    assert type(got) is np.ndarray and got.dtype == np.float64
    assert got.tolist() == [2.5, 4.5]
    assert np.add(ints, 0.5).tolist() == [1.5, 2.5]  # a float scalar with integers
    with pytest.raises(TypeError, match="no promotion"):
        dlarray.add(ints, floats)
    with pytest.raises(TypeError, match="no promotion"):
        ints + floats


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


def test_a_dtype_dlarray_does_not_have_is_numpys_own():
    x = dlarray.asarray(F)
    got = np.add(x, x, dtype=object)
    assert type(got) is np.ndarray and got.dtype == object
    assert got.tolist() == (F + F).tolist()
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


# ---- a NumPy call on dlarray host arrays computes what NumPy computes ----


def test_calls_outside_the_standards_rules_give_numpys_answer():
    # Found by scikit-learn's and SciPy's array-API suites: each raised
    # TypeError from the standard's narrower rules.
    x = dlarray.asarray([[0.0, 1.0], [2.0, 0.0]])
    edges = np.where(x, 1, 0)  # SciPy's ndimage.distance_transform_edt
    assert type(edges) is np.ndarray and edges.dtype == np.int64
    assert edges.tolist() == [[0, 1], [1, 0]]
    assert np.sum(x > 0) == 2 and np.asarray(np.sum(x > 0)).dtype == np.int64
    assert np.cumsum(x > 0).tolist() == [0, 1, 2, 2]
    assert np.fmod(dlarray.asarray([6.0, 7.0]), 4.0).tolist() == [2.0, 3.0]
    # NumPy's list axes are NumPy's tuples: dlarray runs them.
    moved = np.moveaxis(x, [0, 1], [1, 0])
    assert isinstance(moved, dlarray.DLArray) and np.asarray(moved).tolist() == [[0, 2], [1, 0]]
    expanded = np.expand_dims(x, [0])
    assert isinstance(expanded, dlarray.DLArray) and expanded.shape == (1, 2, 2)


DTYPES = (
    "bool", "int8", "int64", "uint8", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
    *(() if ml_dtypes is None else ("bfloat16",)),
)  # fmt: skip
# NaN, infinities, signed zeros and huge values, where NumPy's kernels and
# the standard's special cases can part.
SPECIAL_VALUES = {
    "float64 special": [-np.inf, -0.0, np.nan, np.inf, 0.0, 1.7e308],
    "complex128 special": [
        complex(np.inf, 2), complex(-np.inf, np.nan), complex(np.nan, 0),
        complex(0, -0.0), complex(1e308, 1e308), complex(-0.0, np.inf),
    ],
}  # fmt: skip
KINDS = (*DTYPES, *SPECIAL_VALUES)
SHAPES = ((2, 3), (), (0, 3), (1, 3))
_VALUES = np.array([0, 1, -2, 3, 2, 1])


def sample(kind, shape):
    """A NumPy array of ``kind`` and ``shape``: small values of both signs
    (their absolute values for unsigned kinds), or special values."""
    values = _VALUES[: int(np.prod(shape))] if shape else np.array(2)
    if kind in SPECIAL_VALUES:
        special = np.array(SPECIAL_VALUES[kind])
        return (special[: values.size] if shape else special[3]).reshape(shape)
    if kind == "bool":
        return (values % 2 == 1).reshape(shape)
    if kind == "bfloat16":
        return np.asarray(values * 0.75, dtype=ml_dtypes.bfloat16).reshape(shape)
    if kind.startswith("uint"):
        values = np.abs(values)
    elif kind.startswith("float"):
        values = values * 0.75
    elif kind.startswith("complex"):
        values = values * 0.75 + 0.5j * values[::-1] if shape else np.array(1.5 - 0.5j)
    return np.asarray(values, dtype=kind).reshape(shape)


def _other(kind):
    """A template's second array: ``kind``'s sample of the first one's shape."""
    return lambda a, to, raw: to(sample(kind, raw.shape))


def _meta(result):
    """What np.empty_like's result is defined by: its shape and dtype."""
    return tuple(result.shape), np.asarray(result).dtype


_BOOLS = _other("bool")
_F64 = _other("float64")

# NumPy function -> calls of it, each a function of (a, to, raw): the
# sample ``a`` as the call's input (an ndarray for the oracle, a dlarray
# array under test), ``to`` turning an ndarray into another input of that
# library, and ``raw``, the sample as an ndarray.  Each runs over every kind and
# shape; the forms NumPy takes beyond the standard are among them (list and
# tuple axes, Python scalars of every kind, keywords dlarray has no
# equivalent for).
FUNCTION_CALLS = {
    np.sum: (
        lambda a, to, raw: np.sum(a),
        lambda a, to, raw: np.sum(a, axis=0),
        lambda a, to, raw: np.sum(a, axis=(0, -1)),
        lambda a, to, raw: np.sum(a, axis=[0]),
        lambda a, to, raw: np.sum(a, axis=2),
        lambda a, to, raw: np.sum(a, axis=-1, keepdims=True),
        lambda a, to, raw: np.sum(a, dtype=np.float64),
        lambda a, to, raw: np.sum(a, dtype=np.int8),
        lambda a, to, raw: np.sum(a, where=_BOOLS(a, to, raw)),
    ),
    np.prod: (
        lambda a, to, raw: np.prod(a),
        lambda a, to, raw: np.prod(a, axis=(0,)),
        lambda a, to, raw: np.prod(a, axis=[0]),
        lambda a, to, raw: np.prod(a, initial=2),
    ),
    np.mean: (
        lambda a, to, raw: np.mean(a),
        lambda a, to, raw: np.mean(a, axis=0),
        lambda a, to, raw: np.mean(a, axis=[0]),
        lambda a, to, raw: np.mean(a, dtype=np.float32),
    ),
    np.std: (
        lambda a, to, raw: np.std(a),
        lambda a, to, raw: np.std(a, axis=0, ddof=1),
        lambda a, to, raw: np.std(a, axis=[0]),
    ),
    np.var: (
        lambda a, to, raw: np.var(a),
        lambda a, to, raw: np.var(a, axis=-1, correction=1),
        lambda a, to, raw: np.var(a, ddof=0.5),
        lambda a, to, raw: np.var(a, ddof=1, correction=1),
    ),
    **{
        f: (
            lambda a, to, raw, f=f: f(a),
            lambda a, to, raw, f=f: f(a, axis=0),
            lambda a, to, raw, f=f: f(a, axis=(0,), keepdims=True),
            lambda a, to, raw, f=f: f(a, axis=[0]),
            lambda a, to, raw, f=f: f(a, initial=1),
        )
        for f in (np.max, np.amax, np.min, np.amin)
    },
    **{
        f: (
            lambda a, to, raw, f=f: f(a),
            lambda a, to, raw, f=f: f(a, axis=0),
            lambda a, to, raw, f=f: f(a, axis=(0, -1)),
            lambda a, to, raw, f=f: f(a, axis=[0]),
            lambda a, to, raw, f=f: f(a, where=_BOOLS(a, to, raw)),
        )
        for f in (np.all, np.any)
    },
    **{
        f: (
            lambda a, to, raw, f=f: f(a),
            lambda a, to, raw, f=f: f(a, axis=0),
            lambda a, to, raw, f=f: f(a, axis=-1, keepdims=True),
            lambda a, to, raw, f=f: f(a, axis=(0,)),
        )
        for f in (np.argmax, np.argmin)
    },
    np.count_nonzero: (
        lambda a, to, raw: np.count_nonzero(a),
        lambda a, to, raw: np.count_nonzero(a, axis=0),
        lambda a, to, raw: np.count_nonzero(a, axis=(0,), keepdims=True),
        lambda a, to, raw: np.count_nonzero(a, axis=[0]),
    ),
    **{
        f: (
            lambda a, to, raw, f=f: f(a),
            lambda a, to, raw, f=f: f(a, axis=0),
            lambda a, to, raw, f=f: f(a, axis=-1),
            lambda a, to, raw, f=f: f(a, axis=(0,)),
            lambda a, to, raw, f=f: f(a, dtype=np.float32),
        )
        for f in (np.cumsum, np.cumprod)
    },
    np.concatenate: (
        lambda a, to, raw: np.concatenate([a, a]),
        lambda a, to, raw: np.concatenate((a, a), axis=None),
        lambda a, to, raw: np.concatenate([a, a], axis=-1),
        lambda a, to, raw: np.concatenate([a, _F64(a, to, raw)]),
        lambda a, to, raw: np.concatenate([a, _other("int8")(a, to, raw)]),
        lambda a, to, raw: np.concatenate([a, a], dtype=np.float32),
    ),
    np.stack: (
        lambda a, to, raw: np.stack([a, a]),
        lambda a, to, raw: np.stack((a, a), axis=-1),
        lambda a, to, raw: np.stack([a, _other("int64")(a, to, raw)]),
        lambda a, to, raw: np.stack([a, a], dtype=np.float64),
    ),
    np.reshape: (
        lambda a, to, raw: np.reshape(a, (-1,)),
        lambda a, to, raw: np.reshape(a, [-1]),
        lambda a, to, raw: np.reshape(a, -1),
        lambda a, to, raw: np.reshape(a, (1, -1), order="F"),
    ),
    **{
        f: (
            lambda a, to, raw, f=f: f(a),
            lambda a, to, raw, f=f: f(a, tuple(reversed(range(raw.ndim)))),
            lambda a, to, raw, f=f: f(a, list(reversed(range(raw.ndim)))),
        )
        for f in (np.transpose, np.permute_dims)
    },
    np.matrix_transpose: (lambda a, to, raw: np.matrix_transpose(a),),
    np.expand_dims: (
        lambda a, to, raw: np.expand_dims(a, 0),
        lambda a, to, raw: np.expand_dims(a, (0, -1)),
        lambda a, to, raw: np.expand_dims(a, [0]),
    ),
    np.squeeze: (
        lambda a, to, raw: np.squeeze(a),
        lambda a, to, raw: np.squeeze(a, axis=0),
        lambda a, to, raw: np.squeeze(a, axis=(0,)),
        lambda a, to, raw: np.squeeze(a, axis=[0]),
    ),
    np.moveaxis: (
        lambda a, to, raw: np.moveaxis(a, 0, -1),
        lambda a, to, raw: np.moveaxis(a, (0, 1), (1, 0)),
        lambda a, to, raw: np.moveaxis(a, [0, 1], [1, 0]),
    ),
    np.broadcast_to: (
        lambda a, to, raw: np.broadcast_to(a, (2, *raw.shape)),
        lambda a, to, raw: np.broadcast_to(a, [2, *raw.shape]),
        lambda a, to, raw: np.broadcast_to(a, 3),
    ),
    np.broadcast_arrays: (
        lambda a, to, raw: np.broadcast_arrays(a, to(sample("float64", (1, 1)))),
        lambda a, to, raw: np.broadcast_arrays(a),
    ),
    np.where: (
        lambda a, to, raw: np.where(a),
        lambda a, to, raw: np.where(a, 1, 0),
        lambda a, to, raw: np.where(a, a, _F64(a, to, raw)),
        lambda a, to, raw: np.where(_BOOLS(a, to, raw), a, a),
        lambda a, to, raw: np.where(_BOOLS(a, to, raw), a, 0),
        lambda a, to, raw: np.where(_BOOLS(a, to, raw), 1.5, a),
        lambda a, to, raw: np.where(_BOOLS(a, to, raw), a, 300),
        lambda a, to, raw: np.where(_BOOLS(a, to, raw), a, _other("int8")(a, to, raw)),
        lambda a, to, raw: np.where(_BOOLS(a, to, raw), 1, 0.5),
        lambda a, to, raw: np.where(_BOOLS(a, to, raw), True, 0),
    ),
    np.nonzero: (lambda a, to, raw: np.nonzero(a),),
    np.clip: (
        lambda a, to, raw: np.clip(a, 0, 1),
        lambda a, to, raw: np.clip(a, -1.5, 1.5),
        lambda a, to, raw: np.clip(a, None, 2),
        lambda a, to, raw: np.clip(a, 0, 300),
        lambda a, to, raw: np.clip(a, _other("int8")(a, to, raw), None),
        lambda a, to, raw: np.clip(a, a, a),
        lambda a, to, raw: np.clip(a, max=1),
        lambda a, to, raw: np.clip(a, True, None),
    ),
    **{
        f: (
            lambda a, to, raw, f=f: f(a),
            lambda a, to, raw, f=f: f(a, axis=0),
            lambda a, to, raw, f=f: f(a, axis=None),
            lambda a, to, raw, f=f: f(a, stable=True),
            lambda a, to, raw, f=f: f(a, kind="stable"),
        )
        for f in (np.sort, np.argsort)
    },
    np.flip: (
        lambda a, to, raw: np.flip(a),
        lambda a, to, raw: np.flip(a, axis=0),
        lambda a, to, raw: np.flip(a, axis=(0, -1)),
        lambda a, to, raw: np.flip(a, axis=[0]),
    ),
    np.roll: (
        lambda a, to, raw: np.roll(a, 1),
        lambda a, to, raw: np.roll(a, 1, axis=0),
        lambda a, to, raw: np.roll(a, (1, -1), axis=(0, 1)),
        lambda a, to, raw: np.roll(a, [1], axis=[0]),
        lambda a, to, raw: np.roll(a, (1, 2), axis=0),
    ),
    np.tile: (
        lambda a, to, raw: np.tile(a, 2),
        lambda a, to, raw: np.tile(a, (2, 1)),
        lambda a, to, raw: np.tile(a, [2, 1]),
    ),
    np.repeat: (
        lambda a, to, raw: np.repeat(a, 2),
        lambda a, to, raw: np.repeat(a, 2, axis=0),
        lambda a, to, raw: np.repeat(a, to(np.arange(raw.shape[0] if raw.ndim else 1)), axis=0),
        lambda a, to, raw: np.repeat(a, [2], axis=0),
    ),
    np.take: (
        lambda a, to, raw: np.take(a, [0, 1]),
        lambda a, to, raw: np.take(a, 0),
        lambda a, to, raw: np.take(a, -1, axis=0),
        lambda a, to, raw: np.take(a, to(np.array([0, 0])), axis=-1),
        lambda a, to, raw: np.take(a, [0, 9], mode="clip"),
    ),
    np.searchsorted: (
        lambda a, to, raw: np.searchsorted(to(np.sort(raw.ravel())), a),
        lambda a, to, raw: np.searchsorted(to(np.sort(raw.ravel())), a, side="right"),
        lambda a, to, raw: np.searchsorted(to(np.sort(raw.ravel())), 1),
        lambda a, to, raw: np.searchsorted(to(np.sort(raw.ravel())), _F64(a, to, raw)),
        lambda a, to, raw: np.searchsorted(a, a),
    ),
    np.diff: (
        lambda a, to, raw: np.diff(a),
        lambda a, to, raw: np.diff(a, axis=0),
        lambda a, to, raw: np.diff(a, n=2),
        lambda a, to, raw: np.diff(a, prepend=0),
        lambda a, to, raw: np.diff(a, append=a),
    ),
    **{
        f: (
            lambda a, to, raw, f=f: f(a),
            lambda a, to, raw, f=f: f(a, 1),
            lambda a, to, raw, f=f: f(a, decimals=-1),
        )
        for f in (np.round, np.around)
    },
    np.tensordot: (
        lambda a, to, raw: np.tensordot(a, a, axes=raw.ndim),
        lambda a, to, raw: np.tensordot(a, a, axes=0),
        lambda a, to, raw: np.tensordot(a, a, axes=([-1], [-1])),
        lambda a, to, raw: np.tensordot(a, a, axes=[[-1], [-1]]),
        lambda a, to, raw: np.tensordot(a, _F64(a, to, raw), axes=raw.ndim),
    ),
    np.empty_like: (
        lambda a, to, raw: _meta(np.empty_like(a)),
        lambda a, to, raw: _meta(np.empty_like(a, dtype="f4", shape=(2,))),
        lambda a, to, raw: _meta(np.empty_like(a, shape=3)),
    ),
    **{
        f: (
            lambda a, to, raw, f=f: f(a),
            lambda a, to, raw, f=f: f(a, dtype=float),
            lambda a, to, raw, f=f: f(a, shape=(2,)),
            lambda a, to, raw, f=f: f(a, shape=2),
            lambda a, to, raw, f=f: f(a, order="F"),
            lambda a, to, raw, f=f: f(a, device="cpu"),
        )
        for f in (np.zeros_like, np.ones_like)
    },
    np.full_like: (
        lambda a, to, raw: np.full_like(a, 7),
        lambda a, to, raw: np.full_like(a, 2.5),
        lambda a, to, raw: np.full_like(a, True),
        lambda a, to, raw: np.full_like(a, 1j),
        lambda a, to, raw: np.full_like(a, 300),
        lambda a, to, raw: np.full_like(a, 2, dtype=np.float32),
    ),
    np.copy: (
        lambda a, to, raw: np.copy(a),
        lambda a, to, raw: np.copy(a, order="F"),
    ),
    np.astype: (
        lambda a, to, raw: np.astype(a, np.float64),
        lambda a, to, raw: np.astype(a, "i1"),
        lambda a, to, raw: np.astype(a, bool),
        lambda a, to, raw: np.astype(a, np.complex64),
        lambda a, to, raw: np.astype(a, np.float32, copy=False),
    ),
    np.ndim: (lambda a, to, raw: np.ndim(a),),
    np.shape: (lambda a, to, raw: np.shape(a),),
    np.size: (lambda a, to, raw: np.size(a), lambda a, to, raw: np.size(a, 0)),
}

# Python scalars of every kind, ints out of the small dtypes' ranges, and a
# NumPy scalar (NumPy's float64 is a float, but NumPy gives it its dtype).
SCALARS = (True, 2, 300, -1, 1.5, 1j, np.float64(1.5))


def ufunc_calls(name):
    ufunc = getattr(np, name)
    if ufunc.nin == 1:
        return (lambda a, to, raw: ufunc(a),)
    if ufunc.signature is not None:  # matmul
        return (
            lambda a, to, raw: ufunc(a, a),
            lambda a, to, raw: ufunc(a, to(np.swapaxes(raw, -1, -2)) if raw.ndim else a),
            lambda a, to, raw: ufunc(a, 2),
        )
    return (
        lambda a, to, raw: ufunc(a, a),
        *(lambda a, to, raw, s=s: ufunc(a, s) for s in SCALARS),
        *(lambda a, to, raw, s=s: ufunc(s, a) for s in SCALARS),
        *(lambda a, to, raw, k=k: ufunc(a, _other(k)(a, to, raw)) for k in DTYPES),
    )


def reduce_calls(name):
    reduce = getattr(np, name).reduce
    return (
        lambda a, to, raw: reduce(a),
        lambda a, to, raw: reduce(a, axis=None),
        lambda a, to, raw: reduce(a, axis=(0, -1)),
        lambda a, to, raw: reduce(a, axis=[0]),
        lambda a, to, raw: reduce(a, axis=-1, keepdims=True),
        lambda a, to, raw: reduce(a, initial=True),
    )


ENTRIES = {
    **{f"numpy.{f.__name__}": calls for f, calls in FUNCTION_CALLS.items()},
    **{f"numpy.{name}": ufunc_calls(name) for name in UFUNCS},
    **{f"numpy.{name}.reduce": reduce_calls(name) for name in REDUCTIONS},
}

# Entries whose zero signs may differ from NumPy's (none: clip's did, until
# it kept x within the bounds as the standard defines it).
_ZERO_SIGNS_DIFFER: frozenset[str] = frozenset()
_ERRORS = (TypeError, ValueError, IndexError, OverflowError, ZeroDivisionError)


def test_the_comparison_covers_every_entry_of_the_dispatch_tables():
    assert set(FUNCTION_CALLS) == set(FUNCTIONS)


def _outcome(call, to, raw):
    # (NumPy's warnings, such as ComplexWarning and "Mean of empty slice",
    # are not compared: the values and errors are.)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return True, call(to(raw), to, raw)
    except _ERRORS as error:
        return False, error


def _difference(expected, got, zero_signs):
    """How dlarray's answer ``got`` differs from NumPy's ``expected`` (each
    (True, result) or (False, error)), or None: NumPy's values of NumPy's
    dtype and shape in NumPy's containers, signed zeros included, or an
    error of each of the types of NumPy's."""
    (computed, value), (ours, result) = expected, got
    if not computed:
        if ours:
            return f"NumPy raises {type(value).__name__} ({value}), dlarray returns {result!r}"
        kinds = [kind for kind in _ERRORS if isinstance(value, kind)]
        if not all(isinstance(result, kind) for kind in kinds):
            return f"NumPy raises {type(value).__name__}, dlarray {type(result).__name__}: {result}"
        return None
    if not ours:
        return f"NumPy computes, dlarray raises {type(result).__name__}: {result}"
    if isinstance(value, list | tuple):
        if type(result) is not type(value) or len(result) != len(value):
            return f"NumPy's {type(value).__name__} of {len(value)}, dlarray's {result!r}"
        pairs = zip(value, result, strict=True)
    else:
        pairs = [(value, result)]
    for theirs, mine in pairs:
        if type(theirs) in (int, tuple) or isinstance(theirs, np.dtype):  # np.shape, _meta
            if type(mine) is not type(theirs) or mine != theirs:
                return f"{theirs!r} vs {mine!r}"
            continue
        numpy_value, our_value = np.asarray(theirs), np.asarray(mine)
        if (numpy_value.dtype, numpy_value.shape) != (our_value.dtype, our_value.shape):
            return (
                f"NumPy's {numpy_value.dtype}{numpy_value.shape}, "
                f"dlarray's {our_value.dtype}{our_value.shape}"
            )
        if not np.array_equal(numpy_value, our_value, equal_nan=True):
            return f"NumPy's {numpy_value.tolist()}, dlarray's {our_value.tolist()}"
        if zero_signs and numpy_value.dtype.kind in "fc":
            for part in (np.real, np.imag):
                signed = ~np.isnan(part(numpy_value))
                signs = np.signbit(part(numpy_value)[signed])
                if not np.array_equal(signs, np.signbit(part(our_value)[signed])):
                    return f"zero signs: {numpy_value.tolist()} vs {our_value.tolist()}"
    return None


@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_every_entry_computes_what_numpy_computes(entry):
    """Each call of the entry on dlarray arrays of every kind (regular, 0-d,
    empty and single-row shapes) answers as NumPy does on ndarrays: a
    dlarray array or NumPy's own result of NumPy's values and dtype, or an
    error of NumPy's type.  NumPy on plain ndarrays is the oracle."""
    mismatches = []
    for number, call in enumerate(ENTRIES[entry]):
        for kind in KINDS:
            for shape in SHAPES:
                raw = sample(kind, shape)
                expected = _outcome(call, lambda a: a, raw)
                got = _outcome(call, dlarray.asarray, raw)
                found = _difference(expected, got, entry not in _ZERO_SIGNS_DIFFER)
                if found is not None:
                    mismatches.append(f"call {number} on {kind}{shape}: {found}")
    assert not mismatches, "\n".join(mismatches)


def test_numpys_own_calls_on_device_memory_are_refused_naming_the_copy():
    with stand_in(gpus=1) as fake:
        x = dlarray.asarray([[0.0, 1.0], [2.0, 0.0]]).to_device("cuda")
        mask = dlarray.asarray([[False, True], [True, False]]).to_device("cuda")
        ints = dlarray.asarray([[1, 2], [3, 4]]).to_device("cuda")
        fake.calls.clear()
        calls = (
            lambda: np.where(x, 1, 0),
            lambda: np.sum(mask),
            lambda: np.cumsum(mask),
            lambda: np.round(x, 1),
            lambda: np.fmod(x, 4.0),
            lambda: np.add(ints, x),
            lambda: np.sum(x, where=mask),
            lambda: np.add.accumulate(x),
        )
        for call in calls:
            with pytest.raises(TypeError, match=r"to_device\('cpu'\)"):
                call()
        assert not any(entry[0] == "memcpy" for entry in fake.calls)  # nothing copied


def test_numpys_own_call_returns_the_dlarray_arrays_it_was_given():
    x = dlarray.asarray([6.0, 7.0])
    out = dlarray.zeros(2)
    assert np.fmod(x, 4.0, out=out) is out
    assert np.asarray(out).tolist() == [2.0, 3.0]
    counts = dlarray.zeros(2, dtype=dlarray.int64)
    assert np.cumsum(x > 6.5, out=counts) is counts
    assert np.asarray(counts).tolist() == [0, 1]
    assert np.atleast_1d(x) is x  # NumPy returns what it was given, as for an ndarray


TRANSLATED = {
    # NumPy's forms of arguments the standard spells otherwise: dlarray runs
    # them, and the result is a dlarray array of NumPy's values.
    "reshape(x, -1)": lambda np_, a: np_.reshape(a, -1),
    "reshape(x, [3, 2])": lambda np_, a: np_.reshape(a, [3, 2]),
    "tile(x, 2)": lambda np_, a: np_.tile(a, 2),
    "broadcast_to(x, [2, 2, 3])": lambda np_, a: np_.broadcast_to(a, [2, 2, 3]),
    "flip(x, axis=[0])": lambda np_, a: np_.flip(a, axis=[0]),
    "roll(x, [1, 1], axis=[0, 1])": lambda np_, a: np_.roll(a, [1, 1], axis=[0, 1]),
    "transpose(x, [1, 0])": lambda np_, a: np_.transpose(a, [1, 0]),
    "tensordot(x, x, axes=(1, 1))": lambda np_, a: np_.tensordot(a, a, axes=(1, 1)),
    "where(x > 1, 1, 0)": lambda np_, a: np_.where(a > 1, 1, 0),
    "add(int8, int16)": lambda np_, a: np_.add(np_.astype(a, np.int8), np_.astype(a, np.int16)),
    "add(bool, bool, dtype=int64)": lambda np_, a: np_.add(a > 1, a > 2, dtype=np.int64),
}


@pytest.mark.parametrize("case", sorted(TRANSLATED))
def test_numpys_forms_of_arguments_run_dlarray(case):
    call = TRANSLATED[case]
    a = np.arange(6).reshape(2, 3)
    expected = call(np, a)
    got = call(np, dlarray.asarray(a))
    assert isinstance(got, dlarray.DLArray)
    assert np.asarray(got).dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_argsort_with_ties_gives_numpys_order():
    # NumPy's default argsort is not stable; dlarray's stable=False runs it.
    a = np.random.default_rng(0).integers(0, 5, size=(20, 50))
    assert not np.array_equal(np.argsort(a, axis=None), np.argsort(a, axis=None, stable=True))
    for axis in (0, 1, -1):
        got = np.argsort(dlarray.asarray(a), axis=axis)
        assert isinstance(got, dlarray.DLArray)
        np.testing.assert_array_equal(np.asarray(got), np.argsort(a, axis=axis))
    stable = np.argsort(dlarray.asarray(a), stable=True)
    np.testing.assert_array_equal(np.asarray(stable), np.argsort(a, stable=True))
