"""The Array API's ``linalg`` extension (standard revision 2025.12).

Decompositions, solvers, norms and products of matrices and stacks of
matrices (arrays of shape ``(..., M, N)``), computed by NumPy's LAPACK
kernels with the standard's dtype rules on top: results keep the input's
precision, eigenvalues of general matrices are always complex, norms are
real.  Functions that return several arrays return named tuples with the
standard's field names.  ``matmul``, ``matrix_transpose``, ``tensordot``
and ``vecdot`` are the main namespace's functions.

LAPACK failures (a singular matrix for ``inv`` or ``solve``, a matrix that
is not positive definite for ``cholesky``) raise ``ValueError``.

Examples
--------
>>> import dlarray as xp
>>> xp.linalg.det(xp.asarray([[2.0, 0.0], [0.0, 3.0]]))
dlarray.asarray(6.0, dtype=dlarray.float64)
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple

import numpy as np

from dlarray._api._linalg_helpers import (
    accumulation_dtype,
    array_arg,
    check_matrices,
    int_arg,
    linalg_errors,
    matrix_arg,
    result,
    two_arrays,
)
from dlarray._api.linear_algebra import matmul, matrix_transpose, tensordot, vecdot
from dlarray._array import DLArray
from dlarray._dtypes import DType
from dlarray._engine.numpy_engine import numpy_dtype, quiet
from dlarray._engine.routing import engine_view, wrap
from dlarray._rules import (
    COMPLEX_OF,
    DEFAULT_DTYPES,
    REAL_OF,
    AxisError,
    check_dtype,
    common_device,
    normalize_axes,
)

__all__ = [
    "EigResult",
    "EighResult",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]

_FLOAT = "floating-point"


class EighResult(NamedTuple):
    """The result of :func:`eigh`: a named tuple of two arrays.

    Examples
    --------
    >>> import dlarray as xp
    >>> r = xp.linalg.eigh(xp.asarray([[2.0, 0.0], [0.0, 1.0]]))
    >>> r._fields
    ('eigenvalues', 'eigenvectors')
    >>> w, v = r  # unpacks like a tuple
    >>> w
    dlarray.asarray([1.0, 2.0], dtype=dlarray.float64)
    >>> v.shape
    (2, 2)
    """

    eigenvalues: DLArray
    eigenvectors: DLArray


class EigResult(NamedTuple):
    """The result of :func:`eig`: a named tuple of two complex arrays.

    Examples
    --------
    >>> import dlarray as xp
    >>> r = xp.linalg.eig(xp.asarray([[2.0, 0.0], [0.0, 3.0]]))
    >>> r._fields
    ('eigenvalues', 'eigenvectors')
    >>> r.eigenvalues
    dlarray.asarray([(2+0j), (3+0j)], dtype=dlarray.complex128)
    >>> r.eigenvectors.dtype, r.eigenvectors.shape
    (dlarray.complex128, (2, 2))
    """

    eigenvalues: DLArray
    eigenvectors: DLArray


class QRResult(NamedTuple):
    """The result of :func:`qr`: a named tuple ``(Q, R)``.

    Examples
    --------
    >>> import dlarray as xp
    >>> r = xp.linalg.qr(xp.asarray([[3.0, 1.0], [0.0, 2.0], [0.0, 0.0]]))
    >>> r._fields
    ('Q', 'R')
    >>> r.Q.shape, r.R.shape  # mode="reduced": (M, K) and (K, N)
    ((3, 2), (2, 2))
    """

    Q: DLArray
    R: DLArray


class SlogdetResult(NamedTuple):
    """The result of :func:`slogdet`: a named tuple ``(sign, logabsdet)``.

    Examples
    --------
    >>> import dlarray as xp
    >>> sign, logabsdet = xp.linalg.slogdet(xp.asarray([[0.0, 1.0], [1.0, 0.0]]))
    >>> sign, logabsdet  # det = -1
    (dlarray.asarray(-1.0, dtype=dlarray.float64), dlarray.asarray(0.0, dtype=dlarray.float64))
    >>> xp.linalg.SlogdetResult._fields
    ('sign', 'logabsdet')
    """

    sign: DLArray
    logabsdet: DLArray


class SVDResult(NamedTuple):
    """The result of :func:`svd`: a named tuple ``(U, S, Vh)``.

    Examples
    --------
    >>> import dlarray as xp
    >>> r = xp.linalg.svd(xp.asarray([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]))
    >>> r._fields
    ('U', 'S', 'Vh')
    >>> r.U.shape, r.S.shape, r.Vh.shape  # full_matrices=True
    ((2, 2), (2,), (3, 3))
    >>> xp.round(r.S)
    dlarray.asarray([2.0, 1.0], dtype=dlarray.float64)
    """

    U: DLArray
    S: DLArray
    Vh: DLArray


def _real_dtype(dtype: DType) -> DType:
    """The real dtype of ``dtype``'s precision (itself when real)."""
    return REAL_OF.get(dtype, dtype)


def _complex_dtype(dtype: DType) -> DType:
    """The complex dtype of ``dtype``'s precision (itself when complex)."""
    return COMPLEX_OF.get(dtype, dtype)


# ---- decompositions ----


def cholesky(x: DLArray, /, *, upper: bool = False) -> DLArray:
    """The Cholesky factor of each Hermitian positive-definite matrix in ``x``.

    Lower triangular ``L`` with ``x = L @ L^H``, or, with ``upper=True``,
    upper triangular ``U`` with ``x = U^H @ U``.  Only the triangle the
    factor uses is read; a matrix that is not positive definite raises
    ``ValueError``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.cholesky(xp.asarray([[4.0, 2.0], [2.0, 2.0]]))
    dlarray.asarray([[2.0, 0.0], [1.0, 1.0]], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "cholesky", square=True)
    if not isinstance(upper, bool):
        raise TypeError(f"cholesky: upper must be a bool, got {upper!r}")
    with linalg_errors("cholesky"):
        return result(_quiet_cholesky(a, upper=upper), x.dtype)


_quiet_cholesky = quiet(np.linalg.cholesky)


def eigh(x: DLArray, /) -> EighResult:
    """Eigenvalues and eigenvectors of each Hermitian (real symmetric) matrix.

    Only the lower triangle of each matrix is read.  The eigenvalues are
    real (of ``x``'s precision), in ascending order; the columns of
    ``eigenvectors`` are orthonormal eigenvectors with ``x``'s dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.eigh(xp.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    dlarray.asarray([1.0, 2.0], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "eigh", square=True)
    with linalg_errors("eigh"):
        w, v = _quiet_eigh(a)
    return EighResult(result(w, _real_dtype(x.dtype)), result(v, x.dtype))


_quiet_eigh = quiet(np.linalg.eigh)


def eigvalsh(x: DLArray, /) -> DLArray:
    """The eigenvalues of each Hermitian (real symmetric) matrix in ``x``.

    Real, of ``x``'s precision, in ascending order; only the lower
    triangle of each matrix is read.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.round(xp.linalg.eigvalsh(xp.asarray([[2.0, 1.0], [1.0, 2.0]])))
    dlarray.asarray([1.0, 3.0], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "eigvalsh", square=True)
    with linalg_errors("eigvalsh"):
        return result(_quiet_eigvalsh(a), _real_dtype(x.dtype))


_quiet_eigvalsh = quiet(np.linalg.eigvalsh)


def eig(x: DLArray, /) -> EigResult:
    """Eigenvalues and right eigenvectors of each square matrix in ``x``.

    Both are complex of ``x``'s precision, also for real matrices whose
    eigenvalues happen to be real (NumPy would return a real dtype then;
    the standard fixes the dtype).  Column ``i`` of ``eigenvectors`` is the
    unit eigenvector of ``eigenvalues[..., i]``.  Matrices holding NaN or
    infinity raise ``ValueError``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.eig(xp.asarray([[2.0, 0.0], [0.0, 3.0]])).eigenvalues
    dlarray.asarray([(2+0j), (3+0j)], dtype=dlarray.complex128)
    """
    a = matrix_arg(x, _FLOAT, "eig", square=True)
    with linalg_errors("eig"):
        w, v = _quiet_eig(a)
    dtype = _complex_dtype(x.dtype)
    return EigResult(result(w, dtype), result(v, dtype))


_quiet_eig = quiet(np.linalg.eig)


def eigvals(x: DLArray, /) -> DLArray:
    """The eigenvalues of each square matrix in ``x``, always complex.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.eigvals(xp.asarray([[0.0, 1.0], [-1.0, 0.0]]))
    dlarray.asarray([1j, -1j], dtype=dlarray.complex128)
    """
    a = matrix_arg(x, _FLOAT, "eigvals", square=True)
    with linalg_errors("eigvals"):
        return result(_quiet_eigvals(a), _complex_dtype(x.dtype))


_quiet_eigvals = quiet(np.linalg.eigvals)


def qr(x: DLArray, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """The QR decomposition ``x = Q @ R`` of each matrix in ``x``.

    For ``(..., M, N)`` input and ``K = min(M, N)``: ``mode="reduced"``
    gives ``Q`` of shape ``(..., M, K)`` and ``R`` of shape ``(..., K, N)``;
    ``mode="complete"`` gives ``(..., M, M)`` and ``(..., M, N)``.  ``Q`` has
    orthonormal columns and ``R`` is upper triangular.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.qr(xp.asarray([[3.0, 1.0], [0.0, 2.0]])).Q.shape
    (2, 2)
    """
    a = matrix_arg(x, _FLOAT, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    with linalg_errors("qr"):
        q, r = _quiet_qr(a, mode=mode)
    return QRResult(result(q, x.dtype), result(r, x.dtype))


_quiet_qr = quiet(np.linalg.qr)


def svd(x: DLArray, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decomposition ``x = U @ diag(S) @ Vh``.

    For ``(..., M, N)`` input and ``K = min(M, N)``: ``S`` has shape
    ``(..., K)``, real and in descending order; ``U`` and ``Vh`` are
    ``(..., M, M)`` and ``(..., N, N)`` with ``full_matrices=True``, else
    ``(..., M, K)`` and ``(..., K, N)``.

    Examples
    --------
    >>> import dlarray as xp
    >>> U, S, Vh = xp.linalg.svd(xp.asarray([[0.0, 2.0], [3.0, 0.0]]))
    >>> xp.round(S)
    dlarray.asarray([3.0, 2.0], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "svd")
    if not isinstance(full_matrices, bool):
        raise TypeError(f"svd: full_matrices must be a bool, got {full_matrices!r}")
    with linalg_errors("svd"):
        u, s, vh = _quiet_svd(a, full_matrices=full_matrices)
    return SVDResult(result(u, x.dtype), result(s, _real_dtype(x.dtype)), result(vh, x.dtype))


_quiet_svd = quiet(np.linalg.svd)


def svdvals(x: DLArray, /) -> DLArray:
    """The singular values of each matrix in ``x``, in descending order.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.round(xp.linalg.svdvals(xp.asarray([[0.0, 2.0], [3.0, 0.0]])))
    dlarray.asarray([3.0, 2.0], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "svdvals")
    with linalg_errors("svdvals"):
        return result(_svdvals(a), _real_dtype(x.dtype))


_svdvals = quiet(np.linalg.svdvals)


# ---- determinants, inverses, solvers ----


def det(x: DLArray, /) -> DLArray:
    """The determinant of each square matrix in ``x``, with ``x``'s dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.det(xp.asarray([[2.0, 1.0], [0.0, 3.0]]))
    dlarray.asarray(6.0, dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "det", square=True)
    return result(_det(a), x.dtype)


def _nan_matrices(a: Any) -> Any:
    """Which matrices of the stack ``a`` hold a NaN.

    LAPACK's LU factorization can pivot around a NaN and report an exactly
    singular matrix, so NumPy gives ``det([[nan, 1], [1, 1]]) == 0.0``; a
    determinant with a NaN entry is NaN, and these masks restore that.
    """
    return np.isnan(a).any(axis=(-2, -1))


@quiet
def _det(a: Any) -> Any:
    d = np.linalg.det(a)
    nan = _nan_matrices(a)
    return np.where(nan, np.nan, d) if nan.any() else d


def slogdet(x: DLArray, /) -> SlogdetResult:
    """The sign and the log of the absolute value of each determinant.

    ``sign`` has ``x``'s dtype (a unit complex number for complex input, 0
    for a singular matrix); ``logabsdet`` is real of ``x``'s precision
    (``-inf`` for a singular matrix).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.slogdet(xp.asarray([[-1.0, 0.0], [0.0, 1.0]]))
    SlogdetResult(sign=dlarray.asarray(-1.0, dtype=dlarray.float64), \
logabsdet=dlarray.asarray(0.0, dtype=dlarray.float64))
    """
    a = matrix_arg(x, _FLOAT, "slogdet", square=True)
    sign, logabsdet = _slogdet(a)
    return SlogdetResult(result(sign, x.dtype), result(logabsdet, _real_dtype(x.dtype)))


@quiet
def _slogdet(a: Any) -> tuple[Any, Any]:
    sign, logabsdet = np.linalg.slogdet(a)
    nan = _nan_matrices(a)
    if nan.any():
        sign, logabsdet = np.where(nan, np.nan, sign), np.where(nan, np.nan, logabsdet)
    return sign, logabsdet


def inv(x: DLArray, /) -> DLArray:
    """The inverse of each square matrix in ``x``; ``ValueError`` if singular.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.inv(xp.asarray([[2.0, 0.0], [0.0, 4.0]]))
    dlarray.asarray([[0.5, 0.0], [0.0, 0.25]], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "inv", square=True)
    with linalg_errors("inv"):
        return result(_inv(a), x.dtype)


_inv = quiet(np.linalg.inv)


def solve(x1: DLArray, x2: DLArray, /) -> DLArray:
    """The solution ``X`` of ``x1 @ X = x2`` for square invertible ``x1``.

    ``x2`` of shape ``(M,)`` is one right-hand side vector (the result has
    shape ``x1.shape[:-1]``); ``x2`` of shape ``(..., M, K)`` holds ``K``
    right-hand sides per matrix, and the stacks broadcast.  The result has
    the promoted dtype; a singular ``x1`` raises ``ValueError``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.solve(xp.asarray([[2.0, 0.0], [0.0, 4.0]]), xp.asarray([1.0, 1.0]))
    dlarray.asarray([0.5, 0.25], dtype=dlarray.float64)
    """
    a1, a2, dtype = two_arrays(x1, x2, _FLOAT, "solve")
    check_matrices(a1.shape, "solve", square=True, name="x1")
    m = a1.shape[-1]
    if a2.ndim == 0:
        raise ValueError("solve: x2 must be a vector (M,) or a stack of matrices (..., M, K)")
    rows = a2.shape[0] if a2.ndim == 1 else a2.shape[-2]
    if rows != m:
        raise ValueError(
            f"solve: x2 of shape {a2.shape} does not match matrices x1 of shape {a1.shape[-2:]}"
        )
    stacks = (a1.shape[:-2], a2.shape[:-2] if a2.ndim > 1 else ())
    try:
        np.broadcast_shapes(*stacks)
    except ValueError:
        raise ValueError(
            f"solve: the stack shapes {stacks[0]} and {stacks[1]} do not broadcast"
        ) from None
    with linalg_errors("solve"):
        return result(_solve(a1, a2), dtype)


_solve = quiet(np.linalg.solve)


def _rtol_array(rtol: Any, x: DLArray, func: str) -> Any:
    """``rtol`` (None, a Python float or a real floating array) as an engine
    array that broadcasts to the stack shape ``x.shape[:-2]``, or None."""
    if rtol is None:
        return None
    if isinstance(rtol, DLArray):
        common_device((x, rtol), func)
        check_dtype(rtol.dtype, "real floating", f"{func}(rtol=...)")
        tol = engine_view(rtol)
        try:
            np.broadcast_to(tol, x.shape[:-2])
        except ValueError:
            raise ValueError(
                f"{func}: rtol of shape {tol.shape} does not broadcast to the stack shape "
                f"{x.shape[:-2]}"
            ) from None
        return tol
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"{func}: rtol must be None, a float or an array, got {rtol!r}")
    return np.asarray(rtol, dtype=numpy_dtype(_real_dtype(x.dtype)))


def _default_rtol(a: Any) -> float:
    """The standard's default tolerance: ``max(M, N) * eps``."""
    eps = float(np.finfo(a.dtype).eps)
    return max(a.shape[-2:]) * eps


def _cutoffs(s: Any, rtol: Any, a: Any) -> Any:
    """``rtol * largest singular value``, shaped to compare with ``s``."""
    largest = np.max(s, axis=-1, initial=0.0)
    tol = _default_rtol(a) if rtol is None else rtol
    return (tol * largest)[..., np.newaxis]


@quiet
def _matrix_rank(a: Any, rtol: Any) -> Any:
    s = np.linalg.svd(a, compute_uv=False)
    return np.count_nonzero(s > _cutoffs(s, rtol, a), axis=-1)


def matrix_rank(x: DLArray, /, *, rtol: float | DLArray | None = None) -> DLArray:
    """The rank of each matrix in ``x``: its number of singular values above
    ``rtol`` times the largest one.

    ``rtol`` defaults to ``max(M, N) * eps`` of ``x``'s precision; an array
    ``rtol`` broadcasts against the stack shape ``x.shape[:-2]``.  The result
    has the default integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.matrix_rank(xp.asarray([[1.0, 2.0], [2.0, 4.0]]))
    dlarray.asarray(1, dtype=dlarray.int64)
    """
    a = matrix_arg(x, _FLOAT, "matrix_rank")
    tol = _rtol_array(rtol, x, "matrix_rank")
    with linalg_errors("matrix_rank"):
        ranks = _matrix_rank(a, tol)
    return result(ranks, DEFAULT_DTYPES["integral"])


@quiet
def _pinv(a: Any, rtol: Any) -> Any:
    # The pseudo-inverse from the SVD, zeroing the reciprocals of the singular
    # values at or below the cutoff (the standard's definition).
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    keep = s > _cutoffs(s, rtol, a)
    s_inv = np.divide(1, s, out=np.zeros_like(s), where=keep)
    v_scaled = np.conj(vh).swapaxes(-1, -2) * s_inv[..., np.newaxis, :]
    return np.matmul(v_scaled, np.conj(u).swapaxes(-1, -2))


def pinv(x: DLArray, /, *, rtol: float | DLArray | None = None) -> DLArray:
    """The Moore-Penrose pseudo-inverse of each matrix in ``x``.

    Singular values at or below ``rtol`` times the largest one count as
    zero; ``rtol`` defaults to ``max(M, N) * eps`` of ``x``'s precision.
    The result has shape ``(..., N, M)`` and ``x``'s dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.pinv(xp.asarray([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])).shape
    (2, 3)
    """
    a = matrix_arg(x, _FLOAT, "pinv")
    tol = _rtol_array(rtol, x, "pinv")
    with linalg_errors("pinv"):
        return result(_pinv(a, tol), x.dtype)


@quiet
def _matrix_power(a: Any, n: int) -> Any:
    out = np.linalg.matrix_power(a, n)
    return out.copy() if np.may_share_memory(out, a) else out


def matrix_power(x: DLArray, n: int, /) -> DLArray:
    """Each square matrix in ``x`` raised to the integer power ``n``.

    ``n = 0`` gives identity matrices; a negative ``n`` raises the inverse
    (``ValueError`` for a singular matrix).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.matrix_power(xp.asarray([[1.0, 1.0], [0.0, 1.0]]), 3)
    dlarray.asarray([[1.0, 3.0], [0.0, 1.0]], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "matrix_power", square=True)
    n = int_arg(n, "matrix_power", "n")
    with linalg_errors("matrix_power"):
        return result(_matrix_power(a, n), x.dtype)


# ---- products ----


def cross(x1: DLArray, x2: DLArray, /, *, axis: int = -1) -> DLArray:
    """The cross product of the 3-element vectors along ``axis``.

    ``axis`` counts from the end (``-min(x1.ndim, x2.ndim) <= axis <= -1``);
    both operands must have size 3 there (that axis does not broadcast),
    and the other axes broadcast.  The result has the promoted dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.cross(xp.asarray([1, 0, 0]), xp.asarray([0, 1, 0]))
    dlarray.asarray([0, 0, 1], dtype=dlarray.int64)
    """
    a1, a2, _ = two_arrays(x1, x2, "numeric", "cross")
    axis = int_arg(axis, "cross", "axis")
    n = min(a1.ndim, a2.ndim)
    if not -n <= axis <= -1:
        raise AxisError(
            f"cross: axis must be in [-{n}, -1] for arrays of shapes {a1.shape} and "
            f"{a2.shape}, got {axis}"
        )
    if a1.shape[axis] != 3 or a2.shape[axis] != 3:
        raise ValueError(
            f"cross: both arrays need size 3 along axis {axis}, got shapes {a1.shape} and "
            f"{a2.shape}"
        )
    a1, a2 = np.moveaxis(a1, axis, -1), np.moveaxis(a2, axis, -1)
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        raise ValueError(
            f"cross: shapes {x1.shape} and {x2.shape} do not broadcast outside axis {axis}"
        ) from None
    return wrap(np.moveaxis(_cross(a1, a2), -1, axis))


@quiet
def _cross(a: Any, b: Any) -> Any:
    # Written out rather than np.cross, whose integer paths and bool
    # deprecation we do not want to depend on; exact in the promoted dtype.
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def outer(x1: DLArray, x2: DLArray, /) -> DLArray:
    """The outer product of two vectors: ``out[i, j] = x1[i] * x2[j]``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.outer(xp.asarray([1, 2]), xp.asarray([1, 10, 100]))
    dlarray.asarray([[1, 10, 100], [2, 20, 200]], dtype=dlarray.int64)
    """
    a1, a2, _ = two_arrays(x1, x2, "numeric", "outer")
    if a1.ndim != 1 or a2.ndim != 1:
        raise ValueError(
            f"outer: both arguments must be 1-d vectors, got shapes {a1.shape} and {a2.shape}"
        )
    return wrap(_outer(a1, a2))


_outer = quiet(np.outer)


# ---- diagonals and reductions ----


def diagonal(x: DLArray, /, *, offset: int = 0) -> DLArray:
    """The diagonal of each matrix in ``x``, as a new array.

    ``offset > 0`` selects a diagonal above the main one, ``offset < 0`` one
    below; an offset beyond the matrix gives an empty last axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.diagonal(xp.asarray([[1, 2], [3, 4]]), offset=1)
    dlarray.asarray([2], dtype=dlarray.int64)
    """
    a = matrix_arg(x, "all", "diagonal")
    offset = int_arg(offset, "diagonal", "offset")
    return wrap(np.diagonal(a, offset, axis1=-2, axis2=-1).copy())


def trace(x: DLArray, /, *, offset: int = 0, dtype: DType | None = None) -> DLArray:
    """The sum of each matrix's diagonal (``offset`` as for :func:`diagonal`).

    With ``dtype=None`` the result keeps ``x``'s dtype, except that integer
    types narrower than ``int64`` are summed as ``int64`` (signed) or
    ``uint64`` (unsigned), as :func:`dlarray.sum` does.  An explicit
    ``dtype`` casts before summing.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.trace(xp.asarray([[1, 2], [3, 4]], dtype=xp.int8))
    dlarray.asarray(5, dtype=dlarray.int64)
    """
    a = matrix_arg(x, "numeric", "trace")
    offset = int_arg(offset, "trace", "offset")
    out_dtype = accumulation_dtype(x.dtype, dtype, "trace")
    diagonals = np.diagonal(a, offset, axis1=-2, axis2=-1)
    return result(_sum(diagonals, axis=-1, dtype=numpy_dtype(out_dtype)), out_dtype)


_sum = quiet(np.sum)


def _norm_order(ord: Any, func: str) -> float:
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"{func}: ord must be an int or a float, got {ord!r}")
    if math.isnan(ord):
        raise ValueError(f"{func}: ord must not be NaN")
    return ord


@quiet
def _vector_norm(a: Any, axes: tuple[int, ...], keepdims: bool, p: float) -> Any:
    magnitude = np.abs(a)
    if p == math.inf:
        return np.max(magnitude, axis=axes, keepdims=keepdims, initial=0.0)
    if p == -math.inf:
        return np.min(magnitude, axis=axes, keepdims=keepdims, initial=math.inf)
    if p == 0:
        nonzero = magnitude != 0
        return np.sum(nonzero, axis=axes, keepdims=keepdims, dtype=magnitude.dtype)
    if p == 1:
        return np.sum(magnitude, axis=axes, keepdims=keepdims)
    if p == 2:
        return np.sqrt(np.sum(magnitude * magnitude, axis=axes, keepdims=keepdims))
    return np.sum(magnitude**p, axis=axes, keepdims=keepdims) ** (1.0 / p)


def vector_norm(
    x: DLArray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: float = 2,
) -> DLArray:
    """The ``ord``-norm of the vectors along ``axis`` (all axes by default).

    ``ord`` may be any int or float: ``inf`` (largest magnitude), ``-inf``
    (smallest), ``0`` (count of non-zeros), or ``p`` for
    ``sum(abs(x)**p)**(1/p)``.  The result is real, of ``x``'s precision.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.vector_norm(xp.asarray([3.0, -4.0]))
    dlarray.asarray(5.0, dtype=dlarray.float64)
    >>> xp.linalg.vector_norm(xp.asarray([3.0, -4.0]), ord=1)
    dlarray.asarray(7.0, dtype=dlarray.float64)
    """
    a = array_arg(x, _FLOAT, "vector_norm")
    axes = normalize_axes(axis, a.ndim, "vector_norm")
    p = _norm_order(ord, "vector_norm")
    return result(_vector_norm(a, axes, bool(keepdims), p), _real_dtype(x.dtype))


@quiet
def _matrix_norm(a: Any, ord: Any) -> Any:
    magnitude = np.abs(a)
    if ord == "fro":
        return np.sqrt(np.sum(magnitude * magnitude, axis=(-2, -1)))
    if ord == "nuc":
        return np.sum(np.linalg.svd(a, compute_uv=False), axis=-1)
    if ord in (1, -1):
        sums = np.sum(magnitude, axis=-2)  # column sums
    elif ord in (math.inf, -math.inf):
        sums = np.sum(magnitude, axis=-1)  # row sums
    else:  # ord in (2, -2): the extreme singular values
        sums = np.linalg.svd(a, compute_uv=False)
    if ord > 0:
        return np.max(sums, axis=-1, initial=0.0)
    return np.min(sums, axis=-1, initial=math.inf)


def _matrix_order(ord: Any) -> Any:
    """matrix_norm's ``ord``, checked; None (which the stub admits) means
    the default, ``"fro"``."""
    if ord is None:
        return "fro"
    if isinstance(ord, str):
        if ord in ("fro", "nuc"):
            return ord
    elif isinstance(ord, (int, float)) and not isinstance(ord, bool):
        if ord in (1, -1, 2, -2, math.inf, -math.inf):
            return ord
    raise ValueError(
        f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {ord!r}"
    )


def matrix_norm(
    x: DLArray,
    /,
    *,
    keepdims: bool = False,
    ord: float | Literal["fro", "nuc"] | None = "fro",
) -> DLArray:
    """The ``ord``-norm of each matrix in ``x``.

    ``ord`` is ``"fro"`` (Frobenius), ``"nuc"`` (sum of singular values),
    ``1``/``-1`` (largest/smallest absolute column sum), ``inf``/``-inf``
    (largest/smallest absolute row sum), or ``2``/``-2`` (largest/smallest
    singular value).  The result is real, of ``x``'s precision; with
    ``keepdims=True`` it keeps the matrix axes as size-1 axes.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.matrix_norm(xp.asarray([[1.0, -2.0], [3.0, 4.0]]), ord=1)
    dlarray.asarray(6.0, dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "matrix_norm")
    with linalg_errors("matrix_norm"):
        norms = _matrix_norm(a, _matrix_order(ord))
    if keepdims:
        norms = np.asarray(norms)[..., np.newaxis, np.newaxis]
    return result(norms, _real_dtype(x.dtype))
