"""The C fast path's promotions (dlarray/_core/engine_call.c, issue 44):
two arrays of two dtypes that the standard promotes (int8 and int32,
float32 and complex128 ...) are computed by the host engine's kernel in
one call, the operands cast to the promoted dtype inside NumPy's loop.
Each such result must be exactly the general path's (each operand
converted to the promoted dtype, then the kernel) and NumPy's on the
explicitly converted operands: every binary function and operator with a
fast path, every promoted pair its category allows, the extreme values of
both dtypes, NaN and infinities, broadcasting, strided and transposed
layouts, and sizes across NumPy's casting buffer (``np.getbufsize()``
elements, where a loop with casts works in chunks)."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from oracle_support import equal_ieee, specials

import dlarray as xp
from dlarray._engine import host_fast_path
from dlarray._rules import BINARY_INPUTS, promotion

HOST_ENGINE = pytest.mark.skipif(
    host_fast_path.ENGINE is None or host_fast_path.ARRAY_TYPE is not np.ndarray,
    reason="the host engine is not NumPy, or its error state is out of C's reach: no fast path",
)
pytestmark = HOST_ENGINE

PROMOTIONS = host_fast_path.ENGINE.promotions if host_fast_path.ENGINE else {}
#: The binary functions whose kernel the fast path may run on promoted
#: operands (NumPy ufuncs), with matmul, and their operators.
FUNCTIONS = sorted(
    n for n, case in host_fast_path.CASES.items()
    if n in BINARY_INPUTS and isinstance(case.kernel, np.ufunc)
)  # fmt: skip
OPERATORS = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
    "divide": operator.truediv, "remainder": operator.mod, "pow": operator.pow,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
    "bitwise_left_shift": operator.lshift, "bitwise_right_shift": operator.rshift,
    "less": operator.lt, "less_equal": operator.le, "equal": operator.eq,
    "not_equal": operator.ne, "greater": operator.gt, "greater_equal": operator.ge,
}  # fmt: skip


def pairs_of(name: str) -> list[tuple[str, str]]:
    allowed = host_fast_path.CASES[name].allowed
    return sorted((a.name, b.name) for a, b in PROMOTIONS if a in allowed and b in allowed)


CASES = [(name, a, b) for name in FUNCTIONS for a, b in pairs_of(name)]


def outcome(call, *args):
    """The result as NumPy's array, or the exception's type."""
    try:
        return np.from_dlpack(call(*args))
    except Exception as exc:  # compared between the paths
        return type(exc)


def oracle(name: str, a: np.ndarray, b: np.ndarray, promoted: str):
    """NumPy's function on the operands converted to the promoted dtype, as
    dlarray's general path computes (dlarray's divide of integers: float64)."""
    a, b = a.astype(promoted), b.astype(promoted)
    if name == "divide" and a.dtype.kind in "iu":
        a, b = a.astype(np.float64), b.astype(np.float64)
    kernel = {"pow": np.power, "bitwise_left_shift": np.left_shift,
              "bitwise_right_shift": np.right_shift, "atan2": np.arctan2}.get(name)  # fmt: skip
    kernel = kernel or getattr(np, name)
    with np.errstate(all="ignore"):
        try:
            return kernel(a, b)
        except Exception as exc:
            return type(exc)


def same(got, want, what: str) -> None:
    if isinstance(want, type) or isinstance(got, type):
        assert got is want, f"{what}: {got} against {want}"
        return
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    assert equal_ieee(got, want).all(), f"{what}: {got[~equal_ieee(got, want)][:4]}"


def test_the_fast_path_promotes_as_the_standard_does() -> None:
    """Every pair of two dtypes the standard promotes, and to its dtype: on
    NumPy 2 its ufuncs promote each such pair as the standard does."""
    assert PROMOTIONS
    for (a, b), promoted in PROMOTIONS.items():
        assert a is not b and promotion(a, b) is promoted
        assert np.result_type(a.dtype, b.dtype) == promoted.dtype


@pytest.mark.parametrize(("name", "a", "b"), CASES, ids=[f"{n}-{a}-{b}" for n, a, b in CASES])
def test_extremes_of_both_dtypes(name: str, a: str, b: str) -> None:
    promoted = promotion(getattr(xp, a), getattr(xp, b)).name
    left = np.asarray(specials(a), dtype=a)[:, None]  # every pair, by broadcasting
    right = np.asarray(specials(b), dtype=b)[None, :]
    x, y = xp.asarray(left), xp.asarray(right)
    function = getattr(xp, name)
    want = oracle(name, left, right, promoted)
    same(outcome(function, x, y), want, f"{name}({a}, {b})")
    same(outcome(function, y.T, x.T), oracle(name, right.T, left.T, promoted), f"{name}({b}, {a})")
    general = getattr(function, "__wrapped__", function)  # (nextafter has no fast path)
    same(outcome(general, x, y), want, f"general {name}({a}, {b})")
    if name in OPERATORS:
        same(outcome(OPERATORS[name], x, y), want, f"{name} operator ({a}, {b})")


LAYOUTS = {
    "strided": lambda m: m[::2],
    "transposed": lambda m: m.T,
    "zero-d": lambda m: m[0, 0],
    "empty": lambda m: m[:0],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize(("a", "b"), [("int8", "uint16"), ("float32", "float64"),
                                      ("complex64", "float64"), ("int32", "int64")])  # fmt: skip
def test_layouts(layout: str, a: str, b: str) -> None:
    rng = np.random.default_rng(44)
    base_a = (rng.standard_normal((6, 4)) * 50).astype(a)
    base_b = (rng.standard_normal((6, 4)) * 50).astype(b)
    left, right = LAYOUTS[layout](base_a), LAYOUTS[layout](base_b)
    x, y = LAYOUTS[layout](xp.asarray(base_a)), LAYOUTS[layout](xp.asarray(base_b))
    promoted = np.result_type(a, b).name
    for name in ("add", "multiply", "less", "maximum", "equal"):
        if (a, b) in pairs_of(name):  # (no order for complex numbers)
            same(outcome(getattr(xp, name), x, y), oracle(name, left, right, promoted), name)
    same(outcome(operator.sub, y, x), oracle("subtract", right, left, promoted), "y - x")


@pytest.mark.parametrize("size", [1, 8191, 8192, 8193, 3 * 8192 + 5])
def test_sizes_across_the_casting_buffer(size: int) -> None:
    assert np.getbufsize() == 8192, "NumPy's casting buffer changed: move these sizes"
    rng = np.random.default_rng(size)
    cases = [("int16", "int64"), ("float32", "float64"), ("complex64", "complex128")]
    for a, b in cases:
        left = (rng.standard_normal(size) * 1000).astype(a)
        right = (rng.standard_normal(size) * 1000).astype(b)
        promoted = np.result_type(a, b).name
        x, y = xp.asarray(left), xp.asarray(right)
        same(outcome(operator.add, x, y), oracle("add", left, right, promoted), f"{a}+{b}")
        same(outcome(operator.ne, y, x), oracle("not_equal", right, left, promoted), "!=")
        # A strided operand: NumPy's loop casts it through the buffer too.
        same(outcome(operator.mul, x[::3], y[::3]),
             oracle("multiply", left[::3], right[::3], promoted), "strided *")  # fmt: skip


MATMUL_PAIRS = sorted((a.name, b.name) for a, b in PROMOTIONS if a.kind != "bool")


@pytest.mark.parametrize(("a", "b"), MATMUL_PAIRS, ids=[f"{a}-{b}" for a, b in MATMUL_PAIRS])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "vector"])
def test_matmul(a: str, b: str, layout: str) -> None:
    """``x @ y`` and ``matmul``: NumPy's matmul casts operands of two dtypes
    into temporaries, then runs the promoted dtype's loop (BLAS for floats),
    as the general path's conversions do."""
    rng = np.random.default_rng(len(a) * 7 + len(b))
    left = (rng.standard_normal((5, 6)) * 20).astype(a)
    right = (rng.standard_normal((6, 3)) * 20).astype(b)
    if layout == "transposed":  # column-major operands
        left, right = np.asfortranarray(left), np.asfortranarray(right)
    elif layout == "strided":
        left = np.repeat(left, 2, axis=1)[:, ::2]
    elif layout == "vector":
        right = right[:, 0]
    x, y = xp.asarray(left), xp.asarray(right)  # (asarray keeps NumPy's strides)
    assert x._strides == tuple(s // left.itemsize for s in left.strides)
    promoted = np.result_type(a, b).name
    want = np.matmul(left.astype(promoted), right.astype(promoted))
    same(outcome(operator.matmul, x, y), want, f"{a} @ {b}")
    same(outcome(xp.matmul, x, y), want, f"matmul({a}, {b})")
    same(outcome(xp.matmul.__wrapped__, x, y), want, f"general matmul({a}, {b})")
