"""The linalg extension (and the main namespace's linear algebra) compute
through the engine's standard namespace alone, and give the same answers
and the same errors on every engine (the fft extension: test_fft.py).

Run under the foreign engine too (``DLARRAY_HOST_ENGINE=array_api_strict``):
there a NumPy habit left in dlarray/linalg.py or
dlarray/_api/linear_algebra.py fails.  Expected values come from NumPy on
host copies of the inputs (``numpy.from_dlpack``), never from dlarray.

The singular-matrix tests also stand in for an engine that does not report
a failed factorisation (CuPy with its error checks off returns NaN and
infinity, or an unfinished Cholesky factor): dlarray must refuse those
results the same way.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from linalg_support import arr, close, host, random

import dlarray as xp
from dlarray._engine.routing import engine_view, namespace_of


def well_conditioned(shape, dtype="float64"):
    n = shape[-1]
    return (random(shape, dtype) + n * np.eye(n)).astype(dtype)


# ---- singular and non-positive-definite input: ValueError on every engine ----

SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize(
    "call",
    [
        lambda m: xp.linalg.inv(m),
        lambda m: xp.linalg.solve(m, arr([1.0, 1.0])),
        lambda m: xp.linalg.solve(m, arr(np.ones((2, 3)))),
        lambda m: xp.linalg.matrix_power(m, -1),
        lambda m: xp.linalg.matrix_power(m, -3),
    ],
    ids=["inv", "solve-vector", "solve-matrix", "matrix_power-1", "matrix_power-3"],
)
@pytest.mark.parametrize("matrix", [SINGULAR, np.zeros((2, 2)), np.stack([np.eye(2), SINGULAR])])
def test_a_singular_matrix_raises_value_error(call, matrix):
    with pytest.raises(ValueError, match="singular"):
        call(arr(matrix))


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize(
    "matrix",
    [-np.eye(2), np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([[1.0, 0], [0, 0]])],
    ids=["negative", "indefinite", "semidefinite"],
)
def test_cholesky_of_a_matrix_that_is_not_positive_definite_raises(matrix, upper):
    with pytest.raises(ValueError, match="not positive definite"):
        xp.linalg.cholesky(arr(matrix), upper=upper)


def test_nan_in_a_solved_system_raises_on_every_engine():
    # NumPy itself raises for one of these and returns NaN for the other,
    # depending on where LAPACK pivots; dlarray refuses both.
    for matrix in ([[np.nan, 1.0], [1.0, 1.0]], [[1.0, np.nan], [1.0, 1.0]]):
        with pytest.raises(ValueError, match="singular"):
            xp.linalg.inv(arr(matrix))


def test_an_overflowing_inverse_is_singular_at_the_precision():
    with pytest.raises(ValueError, match="singular"):
        xp.linalg.inv(arr([[1e-40, 0.0], [0.0, 1.0]], dtype=np.float32))
    close(xp.linalg.inv(arr([[1e-40, 0.0], [0.0, 1.0]])), [[1e40, 0], [0, 1]], xp.float64)


@pytest.fixture
def engine_linalg():
    """The linalg extension of the host engine's namespace, for stand-ins."""
    return namespace_of(engine_view(xp.ones((1, 1)))).linalg


def test_a_silent_engine_returning_nan_for_a_singular_matrix_is_refused(monkeypatch, engine_linalg):
    # CuPy with its linalg error checks off: LU divides by the zero pivot.
    def silent(*args):
        a = args[0]
        nsp = namespace_of(a)
        return nsp.full(a.shape, math.nan, dtype=a.dtype, device=a.device)

    monkeypatch.setattr(engine_linalg, "inv", silent)
    monkeypatch.setattr(engine_linalg, "solve", silent)
    with pytest.raises(ValueError, match="singular"):
        xp.linalg.inv(arr(SINGULAR))
    with pytest.raises(ValueError, match="singular"):
        xp.linalg.solve(arr(SINGULAR), arr(np.ones((2, 1))))
    with pytest.raises(ValueError, match="singular"):
        xp.linalg.matrix_power(arr(SINGULAR), -2)


@pytest.mark.parametrize("failed_entry", [-3.0, 0.0, math.nan])
def test_a_silent_engine_returning_an_unfinished_cholesky_factor_is_refused(
    monkeypatch, engine_linalg, failed_entry
):
    # cuSOLVER's potrf stops at the first diagonal entry that is not
    # positive and leaves it in place; the rest is finite garbage.
    factor = np.array([[2.0, 0.0], [1.0, failed_entry]])

    def silent(a, /, *, upper=False):
        out = engine_view(arr(factor))
        return namespace_of(out).matrix_transpose(out) if upper else out

    monkeypatch.setattr(engine_linalg, "cholesky", silent)
    for upper in (False, True):
        with pytest.raises(ValueError, match="not positive definite"):
            xp.linalg.cholesky(arr([[4.0, 2.0], [2.0, 1.0]]), upper=upper)


@pytest.mark.parametrize("func", [xp.linalg.eig, xp.linalg.eigvals])
@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_eig_of_a_matrix_with_nan_or_infinity_raises(func, value):
    with pytest.raises(ValueError, match="NaN or infinity"):
        func(arr([[1.0, value], [0.0, 1.0]]))


# ---- results against NumPy ----


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_solvers_and_decompositions(dtype):
    a = well_conditioned((3, 4, 4), dtype)
    x = arr(a)
    d = getattr(xp, dtype)
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-9
    close(xp.linalg.inv(x), np.linalg.inv(a), d, rtol=tol)
    close(xp.linalg.det(x), np.linalg.det(a), d, rtol=tol)
    b = random((3, 4, 2), dtype)
    close(xp.linalg.solve(x, arr(b)), np.linalg.solve(a, b), d, rtol=tol)
    h = a @ np.conj(np.swapaxes(a, -1, -2))
    lower = xp.linalg.cholesky(arr(h))
    close(lower, np.linalg.cholesky(h), d, rtol=tol)
    close(xp.linalg.cholesky(arr(h), upper=True), np.linalg.cholesky(h, upper=True), d, rtol=tol)
    real = xp.float32 if dtype in ("float32", "complex64") else xp.float64
    close(xp.linalg.eigvalsh(arr(h)), np.linalg.eigvalsh(h), real, rtol=tol)
    close(xp.linalg.svdvals(x), np.linalg.svdvals(a), real, rtol=tol)
    complex_ = xp.complex64 if dtype in ("float32", "complex64") else xp.complex128
    assert xp.linalg.eigvals(x).dtype == complex_
    sign, logabsdet = xp.linalg.slogdet(x)
    expected_sign, expected_log = np.linalg.slogdet(a)
    close(sign, expected_sign, d, rtol=tol)
    close(logabsdet, expected_log, real, rtol=tol)
    q, r = xp.linalg.qr(x)
    np.testing.assert_allclose(host(q) @ host(r), a, rtol=tol, atol=tol)
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    np.testing.assert_allclose((host(u) * host(s)[..., None, :]) @ host(vh), a, rtol=tol, atol=tol)


def test_solve_broadcasts_stacks_and_takes_one_vector_for_a_stack():
    a = well_conditioned((2, 1, 3, 3))
    b = random((4, 3, 2))
    close(xp.linalg.solve(arr(a), arr(b)), np.linalg.solve(a, b), xp.float64, rtol=1e-9)
    v = random((3,))
    out = xp.linalg.solve(arr(a), arr(v))
    assert out.shape == (2, 1, 3)
    close(out, np.linalg.solve(a, v), xp.float64, rtol=1e-9)
    with pytest.raises(ValueError, match="stack shapes"):
        xp.linalg.solve(arr(well_conditioned((2, 3, 3))), arr(random((4, 3, 1))))


def test_det_and_slogdet_of_a_matrix_with_nan_are_nan():
    x = arr(np.stack([[[math.nan, 1.0], [1.0, 1.0]], np.eye(2)]))
    assert np.isnan(host(xp.linalg.det(x))[0]) and host(xp.linalg.det(x))[1] == 1.0
    sign, logabsdet = xp.linalg.slogdet(x)
    assert np.isnan(host(sign)[0]) and np.isnan(host(logabsdet)[0])


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_pinv_and_matrix_rank(dtype):
    # Values of their own: the ranks at rtol=0.9 below depend on them.
    a = random((2, 4, 3), dtype, np.random.default_rng(180))
    a[1, :, 2] = a[1, :, 0]  # rank 2
    x = arr(a)
    close(xp.linalg.pinv(x), np.linalg.pinv(a), getattr(xp, dtype), rtol=1e-9)
    ranks = xp.linalg.matrix_rank(x)
    assert ranks.dtype == xp.int64 and host(ranks).tolist() == [3, 2]
    assert host(xp.linalg.matrix_rank(x, rtol=0.9)).tolist() == [1, 1]
    per_matrix = arr([0.0, 0.9])
    assert host(xp.linalg.matrix_rank(x, rtol=per_matrix)).tolist() == [3, 1]
    close(xp.linalg.pinv(x, rtol=0.9), np.linalg.pinv(a, rtol=0.9), getattr(xp, dtype))


def test_pinv_and_matrix_rank_of_empty_matrices():
    x = xp.zeros((2, 3, 0))
    assert xp.linalg.pinv(x).shape == (2, 0, 3)
    assert host(xp.linalg.matrix_rank(x)).tolist() == [0, 0]
    with pytest.raises(ValueError, match="broadcast"):
        xp.linalg.matrix_rank(xp.ones((2, 3, 3)), rtol=xp.ones((3,)))


ORDS = [math.inf, -math.inf, 0, 1, 2, 3, -1, 0.5]


@pytest.mark.parametrize("ord", ORDS)
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm(ord, axis, keepdims):
    a = random((2, 3, 4), "complex64")
    expected = np.linalg.vector_norm(a, ord=ord, axis=axis, keepdims=keepdims)
    close(
        xp.linalg.vector_norm(arr(a), ord=ord, axis=axis, keepdims=keepdims),
        expected,
        xp.float32,
        rtol=1e-5,
    )


def test_vector_norm_of_empty_vectors():
    x = xp.zeros((2, 0))
    assert host(xp.linalg.vector_norm(x, axis=1, ord=math.inf)).tolist() == [0.0, 0.0]
    assert host(xp.linalg.vector_norm(x, axis=1, ord=-math.inf)).tolist() == [math.inf] * 2
    assert xp.linalg.vector_norm(x, axis=1, ord=-math.inf, keepdims=True).shape == (2, 1)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_matrix_norm(ord, keepdims, dtype):
    a = random((3, 2, 4), dtype)
    expected = np.linalg.matrix_norm(a, ord=ord, keepdims=keepdims)
    real = xp.float32 if dtype == "float32" else xp.float64
    close(xp.linalg.matrix_norm(arr(a), ord=ord, keepdims=keepdims), expected, real, rtol=1e-5)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norm_of_empty_matrices(ord):
    out = xp.linalg.matrix_norm(xp.zeros((2, 0, 3)), ord=ord, keepdims=True)
    assert out.shape == (2, 1, 1)
    expected = math.inf if ord in (-1, -2, -math.inf) else 0.0
    if ord == -1:  # the column sums exist (3 zeros): their minimum is 0
        expected = 0.0
    assert host(out).ravel().tolist() == [expected] * 2


def test_vecdot_conjugates_and_broadcasts_along_any_axis():
    a, b = random((2, 3, 1), "complex128"), random((3, 4), "complex128")
    expected = np.sum(np.conj(a) * b, axis=-2)
    close(xp.vecdot(arr(a), arr(b), axis=-2), expected, xp.complex128)
    close(xp.linalg.vecdot(arr(a), arr(b), axis=-2), expected, xp.complex128)
    with pytest.raises(ValueError, match="broadcast"):
        xp.vecdot(xp.ones((2, 3)), xp.ones((4, 3)))


def test_matmul_and_tensordot():
    a, b = random((2, 3, 4), "float32"), random((4, 5), "float32")
    close(xp.matmul(arr(a), arr(b)), a @ b, xp.float32, rtol=1e-5)
    close(xp.matmul(arr(a), arr(b[:, 0])), a @ b[:, 0], xp.float32, rtol=1e-5)
    ints = xp.matmul(arr([[1, 2]], dtype=np.int8), arr([[3], [4]], dtype=np.int16))
    assert ints.dtype == xp.int16 and host(ints).tolist() == [[11]]
    close(xp.tensordot(arr(a), arr(b), axes=1), np.tensordot(a, b, axes=1), xp.float32, rtol=1e-5)
    close(
        xp.tensordot(arr(a), arr(a), axes=([0, 2], [0, 2])),
        np.tensordot(a, a, axes=([0, 2], [0, 2])),
        xp.float32,
        rtol=1e-5,
    )
    with pytest.raises(ValueError, match="stack shapes"):
        xp.matmul(xp.ones((2, 3, 3)), xp.ones((4, 3, 3)))


def test_matmul_shape_errors_name_the_problem():
    x = xp.ones((2, 3))
    x @ xp.ones((3, 2))  # the views are made: the next calls take the fast path
    with pytest.raises(ValueError, match="inner dimensions differ"):
        x @ x
    with pytest.raises(ValueError, match="inner dimensions differ"):
        xp.matmul(x, xp.ones((2,)))
    with pytest.raises(ValueError, match="at least one axis"):
        xp.matmul(x, xp.ones(()))


def test_cross_outer_diagonal_trace():
    a, b = random((3, 2), "float64"), random((4, 3, 1), "float64")
    close(xp.linalg.cross(arr(a), arr(b), axis=-2), np.cross(a, b, axis=-2), xp.float64)
    ints = xp.linalg.cross(arr([1, 0, 0]), arr([0, 1, 0]))
    assert ints.dtype == xp.int64 and host(ints).tolist() == [0, 0, 1]
    close(
        xp.linalg.outer(arr([1.0, 2.0]), arr([3.0, 4.0, 5.0])),
        np.outer([1, 2], [3, 4, 5]),
        xp.float64,
    )
    m = arr(np.arange(12, dtype=np.int8).reshape(3, 4))
    diagonal = xp.linalg.diagonal(m, offset=1)
    assert host(diagonal).tolist() == [1, 6, 11]
    diagonal[0] = 100  # a new array: writable, and not a view of m
    assert host(m)[0, 1] == 1
    assert xp.linalg.trace(m).dtype == xp.int64 and host(xp.linalg.trace(m)) == 15
    assert xp.linalg.trace(m, offset=-1, dtype=xp.float32).dtype == xp.float32


def test_matrix_power_is_a_new_array():
    a = well_conditioned((2, 3, 3))
    x = arr(a)
    one = xp.linalg.matrix_power(x, 1)
    one[0, 0, 0] = 1000.0
    assert host(x)[0, 0, 0] == a[0, 0, 0]
    close(xp.linalg.matrix_power(x, 0), np.broadcast_to(np.eye(3), a.shape), xp.float64)
    close(xp.linalg.matrix_power(x, 3), np.linalg.matrix_power(a, 3), xp.float64, rtol=1e-9)
    close(xp.linalg.matrix_power(x, -2), np.linalg.matrix_power(a, -2), xp.float64, rtol=1e-9)


# ---- vector_norm: no overflow or underflow on the way (docs/api/linalg.md) ----


def _python_norm(values: list[complex], p: float) -> float:
    """The ``p``-norm of ``values`` in Python floats, scaled by the largest
    (p > 0) or smallest (p < 0) magnitude so that no power leaves float64's
    range: an independent reference, within about ``n * 2**-52``."""
    magnitudes = [math.hypot(v.real, v.imag) for v in values]
    if p == math.inf:
        return max(magnitudes)
    if p == -math.inf:
        return min(magnitudes)
    scale = max(magnitudes) if p > 0 else min(magnitudes)
    return scale * math.fsum((m / scale) ** p for m in magnitudes) ** (1 / p)


#: Magnitudes whose squares, powers or sums leave the dtype's range while
#: their norms of every order tested stay inside it.
EXTREME_NORM_INPUTS = {
    "float32": ([1e38, 1e36, 1e35], [1e-30, 3e-31, 2e-30], [1e-45, 3e-45, 1e-45, 1e-45]),
    "float64": ([1e307, 1e305, 1e304], [1e-200, 4e-201, 3e-200], [5e-324, 1e-323, 5e-324]),
}


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, -1, -2, 10, math.inf, -math.inf])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("case", [0, 1, 2])
def test_vector_norm_does_not_overflow_or_underflow_on_the_way(case, dtype, ord):
    """Norms that fit the dtype though the squares, powers or sums of their
    magnitudes do not (NumPy's and dlarray's own gave inf or 0 here), along
    an axis of a reversed view too."""
    real = "float32" if dtype in ("float32", "complex64") else "float64"
    magnitudes = EXTREME_NORM_INPUTS[real][case]
    if dtype.startswith("complex"):
        # 3-4-5 triangles scaled by powers of two: exact parts and moduli.
        step = float(np.finfo(real).smallest_subnormal)
        scales = [max(math.ldexp(1.0, math.frexp(m)[1] - 3), step) for m in magnitudes]
        values = np.array([complex(3 * t, -4 * t) for t in scales], dtype)
    else:
        values = np.array([(-1) ** i * m for i, m in enumerate(magnitudes)], dtype)
    expected = _python_norm([complex(v) for v in values.tolist()], ord)
    with np.errstate(all="ignore"):
        assert math.isfinite(float(np.asarray(expected, real)))  # (the case's point)
    tolerance = 2.0**-22 if real == "float32" else 2.0**-48
    step = float(np.finfo(real).smallest_subnormal)  # (results below the normal range)
    got = xp.linalg.vector_norm(arr(values), ord=ord)
    assert got.dtype == getattr(xp, real)
    assert float(got) == pytest.approx(expected, rel=tolerance, abs=step), (values, ord)
    grid = np.stack([values[::-1], values[::-1]])  # rows reversed, read back reversed
    rows = xp.linalg.vector_norm(arr(grid)[:, ::-1], axis=1, ord=ord, keepdims=True)
    assert rows.shape == (2, 1)
    assert host(rows).ravel().tolist() == pytest.approx([expected] * 2, rel=tolerance, abs=step)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("case", [0, 1, 2])
def test_frobenius_norm_does_not_overflow_or_underflow_on_the_way(case, dtype):
    """matrix_norm's default order is the 2-norm of each matrix's elements:
    the same guarantee as vector_norm's, over a stack, keepdims too."""
    real = "float32" if dtype in ("float32", "complex64") else "float64"
    magnitudes = EXTREME_NORM_INPUTS[real][case][:3]
    values = np.array([[magnitudes[0], -magnitudes[1]], [magnitudes[2], 0.0]], dtype)
    if dtype.startswith("complex"):
        values = values * 1j  # (exact: the moduli are the magnitudes)
    expected = _python_norm([complex(v) for v in values.ravel().tolist()], 2)
    step = float(np.finfo(real).smallest_subnormal)
    tolerance = 2.0**-22 if real == "float32" else 2.0**-48
    stack = arr(np.stack([values, values[::-1, ::-1]]))  # two matrices, one reversed
    for keepdims, shape in ((False, (2,)), (True, (2, 1, 1))):
        got = xp.linalg.matrix_norm(stack, keepdims=keepdims)
        assert got.dtype == getattr(xp, real) and got.shape == shape
        assert host(got).ravel().tolist() == pytest.approx([expected] * 2, rel=tolerance, abs=step)
