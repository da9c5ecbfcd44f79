"""The Array API's ``linalg`` extension (standard revision 2025.12).

Decompositions, solvers, norms and products of matrices and stacks of
matrices (arrays of shape ``(..., M, N)``), computed by the engine's own
``linalg`` extension (``namespace_of(a).linalg``: NumPy's LAPACK kernels on
the host, CuPy's cuSOLVER on CUDA memory, ...) with the standard's dtype
rules on top: results keep the input's precision, eigenvalues of general
matrices are always complex, norms are real.  Functions that return several
arrays return named tuples with the standard's field names.  ``matmul``,
``matrix_transpose``, ``tensordot`` and ``vecdot`` are the main namespace's
functions.

A failed factorisation -- a singular matrix for ``inv``, ``solve`` and
``matrix_power`` with a negative power, a matrix that is not positive
definite for ``cholesky`` -- raises ``ValueError`` on every engine, also on
those that report it with NaN and infinity in the result instead of an
error.  Each function's *Raises* section says when.

Examples
--------
>>> import dlarray as xp
>>> xp.linalg.det(xp.asarray([[2.0, 0.0], [0.0, 3.0]]))
dlarray.asarray(6.0, dtype=dlarray.float64)
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple

from dlarray._api import NAMESPACE
from dlarray._api._linalg_helpers import (
    accumulation_dtype,
    all_finite,
    all_true,
    array_arg,
    as_dtype,
    broadcast_stacks,
    check_matrices,
    compute,
    compute_tuple,
    factorise,
    int_arg,
    matrix_arg,
    result,
    solver,
    two_arrays,
)
from dlarray._api.linear_algebra import matrix_transpose, tensordot, vecdot
from dlarray._core import ArrayBase
from dlarray._dtypes import DType
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of
from dlarray._rules import (
    CATEGORIES,
    COMPLEX_OF,
    DEFAULT_DTYPES,
    REAL_OF,
    AxisError,
    broadcast_result,
    broadcast_to_refusal,
    check_dtype,
    common_device,
    normalize_axes,
)

#: The namespace's matmul (``dlarray.linalg.matmul is dlarray.matmul``).
matmul = NAMESPACE["matmul"]

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

    eigenvalues: ArrayBase
    eigenvectors: ArrayBase


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

    eigenvalues: ArrayBase
    eigenvectors: ArrayBase


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

    Q: ArrayBase
    R: ArrayBase


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

    sign: ArrayBase
    logabsdet: ArrayBase


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

    U: ArrayBase
    S: ArrayBase
    Vh: ArrayBase


def _real_dtype(dtype: DType) -> DType:
    """The real dtype of ``dtype``'s precision (itself when real)."""
    return REAL_OF.get(dtype, dtype)


def _complex_dtype(dtype: DType) -> DType:
    """The complex dtype of ``dtype``'s precision (itself when complex)."""
    return COMPLEX_OF.get(dtype, dtype)


_COMPLEX = CATEGORIES["complex floating"]


def _conj(xp: Any, a: Any) -> Any:
    """The complex conjugate of engine array ``a``; a real array unchanged
    (the standard's ``conj`` took complex arrays only before 2024.12, and
    engines of that revision refuse real ones)."""
    return xp.conj(a) if xp.isdtype(a.dtype, "complex floating") else a


# ---- decompositions ----


def cholesky(x: ArrayBase, /, *, upper: bool = False) -> ArrayBase:
    """The Cholesky factor of each Hermitian positive-definite matrix in ``x``.

    Lower triangular ``L`` with ``x = L @ L^H``, or, with ``upper=True``,
    upper triangular ``U`` with ``x = U^H @ U``.  Only the triangle the
    factor uses is read; a matrix that is not positive definite raises
    ``ValueError``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point, or ``upper`` is not a bool.
    ValueError
        If ``x`` has fewer than 2 axes, its matrices are not square, or one
        is not positive definite (or holds NaN).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.cholesky(xp.asarray([[4.0, 2.0], [2.0, 2.0]]))
    dlarray.asarray([[2.0, 0.0], [1.0, 1.0]], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "cholesky", square=True)
    if not isinstance(upper, bool):
        raise TypeError(f"cholesky: upper must be a bool, got {upper!r}")
    factor = factorise(
        "cholesky", _NOT_POSITIVE_DEFINITE, namespace_of(a).linalg.cholesky, a, upper=upper
    )
    _check_positive_diagonal(factor)
    return as_dtype(factor, x.dtype)


_NOT_POSITIVE_DEFINITE = (
    "x holds a matrix that is not positive definite, or holds NaN (its Cholesky "
    "factorisation meets a diagonal entry that is not positive)"
)


def _check_positive_diagonal(factor: ArrayBase) -> None:
    """``ValueError`` unless the diagonal of each Cholesky factor is positive.

    A Cholesky factor's diagonal is real and positive.  The factorisation
    of a matrix that is not positive definite stops at the first diagonal
    entry that is not (zero, negative or NaN, as NaN or infinity in ``x``
    make it) and leaves it there, with the rest of the factor unfinished:
    NumPy then raises, and CuPy with its error checks off returns that
    factor, which this check refuses on every engine.
    """
    f = engine_view(factor)
    xp = namespace_of(f)
    diagonal = xp.linalg.diagonal(f)
    if factor.dtype in _COMPLEX:
        diagonal = xp.real(diagonal)
    if not all_true(xp.greater(diagonal, 0)):
        raise ValueError(f"cholesky: {_NOT_POSITIVE_DEFINITE}")


def eigh(x: ArrayBase, /) -> EighResult:
    """Eigenvalues and eigenvectors of each Hermitian (real symmetric) matrix.

    Only the lower triangle of each matrix is read.  The eigenvalues are
    real (of ``x``'s precision), in ascending order; the columns of
    ``eigenvectors`` are orthonormal eigenvectors with ``x``'s dtype.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, or its matrices are not square.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.eigh(xp.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    dlarray.asarray([1.0, 2.0], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "eigh", square=True)
    w, v = compute_tuple("eigh", namespace_of(a).linalg.eigh, a)
    return EighResult(result(w, _real_dtype(x.dtype)), result(v, x.dtype))


def eigvalsh(x: ArrayBase, /) -> ArrayBase:
    """The eigenvalues of each Hermitian (real symmetric) matrix in ``x``.

    Real, of ``x``'s precision, in ascending order; only the lower
    triangle of each matrix is read.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, or its matrices are not square.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.round(xp.linalg.eigvalsh(xp.asarray([[2.0, 1.0], [1.0, 2.0]])))
    dlarray.asarray([1.0, 3.0], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "eigvalsh", square=True)
    w = compute("eigvalsh", namespace_of(a).linalg.eigvalsh, a)
    return as_dtype(w, _real_dtype(x.dtype))


def _finite_matrices(a: Any, func: str) -> None:
    """``ValueError`` if engine array ``a`` holds NaN or infinity (the
    general eigensolver has no answer for them; NumPy raises, other engines
    would return NaN)."""
    if not all_finite(a):
        raise ValueError(
            f"{func}: x holds NaN or infinity, and the eigenvalues of such a matrix are "
            f"undefined; check the input (dlarray.isfinite) first"
        )


def eig(x: ArrayBase, /) -> EigResult:
    """Eigenvalues and right eigenvectors of each square matrix in ``x``.

    Both are complex of ``x``'s precision, also for real matrices whose
    eigenvalues happen to be real (NumPy would return a real dtype then;
    the standard fixes the dtype).  Column ``i`` of ``eigenvectors`` is the
    unit eigenvector of ``eigenvalues[..., i]``.  Matrices holding NaN or
    infinity raise ``ValueError``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, or its matrices are not square; if
        ``x`` holds NaN or infinity (its eigenvalues are undefined).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.eig(xp.asarray([[2.0, 0.0], [0.0, 3.0]])).eigenvalues
    dlarray.asarray([(2+0j), (3+0j)], dtype=dlarray.complex128)
    """
    a = matrix_arg(x, _FLOAT, "eig", square=True)
    _finite_matrices(a, "eig")
    w, v = compute_tuple("eig", namespace_of(a).linalg.eig, a)
    dtype = _complex_dtype(x.dtype)
    return EigResult(result(w, dtype), result(v, dtype))


def eigvals(x: ArrayBase, /) -> ArrayBase:
    """The eigenvalues of each square matrix in ``x``, always complex.

    Matrices holding NaN or infinity raise ``ValueError``, as for :func:`eig`.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, or its matrices are not square; if
        ``x`` holds NaN or infinity (its eigenvalues are undefined).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.eigvals(xp.asarray([[0.0, 1.0], [-1.0, 0.0]]))
    dlarray.asarray([1j, -1j], dtype=dlarray.complex128)
    """
    a = matrix_arg(x, _FLOAT, "eigvals", square=True)
    _finite_matrices(a, "eigvals")
    w = compute("eigvals", namespace_of(a).linalg.eigvals, a)
    return as_dtype(w, _complex_dtype(x.dtype))


def qr(x: ArrayBase, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """The QR decomposition ``x = Q @ R`` of each matrix in ``x``.

    For ``(..., M, N)`` input and ``K = min(M, N)``: ``mode="reduced"``
    gives ``Q`` of shape ``(..., M, K)`` and ``R`` of shape ``(..., K, N)``;
    ``mode="complete"`` gives ``(..., M, M)`` and ``(..., M, N)``.  ``Q`` has
    orthonormal columns and ``R`` is upper triangular.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, or ``mode`` is neither ``'reduced'`` nor ``'complete'``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.qr(xp.asarray([[3.0, 1.0], [0.0, 2.0]])).Q.shape
    (2, 2)
    """
    a = matrix_arg(x, _FLOAT, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    q, r = compute_tuple("qr", namespace_of(a).linalg.qr, a, mode=mode)
    return QRResult(result(q, x.dtype), result(r, x.dtype))


def svd(x: ArrayBase, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decomposition ``x = U @ diag(S) @ Vh``.

    For ``(..., M, N)`` input and ``K = min(M, N)``: ``S`` has shape
    ``(..., K)``, real and in descending order; ``U`` and ``Vh`` are
    ``(..., M, M)`` and ``(..., N, N)`` with ``full_matrices=True``, else
    ``(..., M, K)`` and ``(..., K, N)``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point, or ``full_matrices``
        is not a bool.
    ValueError
        If ``x`` has fewer than 2 axes, or the SVD does not converge (``x``
        holds NaN or infinity).

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
    u, s, vh = compute_tuple("svd", namespace_of(a).linalg.svd, a, full_matrices=full_matrices)
    return SVDResult(result(u, x.dtype), result(s, _real_dtype(x.dtype)), result(vh, x.dtype))


def svdvals(x: ArrayBase, /) -> ArrayBase:
    """The singular values of each matrix in ``x``, in descending order.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, or the SVD does not converge (``x`` holds NaN or
        infinity).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.round(xp.linalg.svdvals(xp.asarray([[0.0, 2.0], [3.0, 0.0]])))
    dlarray.asarray([3.0, 2.0], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "svdvals")
    s = compute("svdvals", namespace_of(a).linalg.svdvals, a)
    return as_dtype(s, _real_dtype(x.dtype))


# ---- determinants, inverses, solvers ----


def det(x: ArrayBase, /) -> ArrayBase:
    """The determinant of each square matrix in ``x``, with ``x``'s dtype.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, or its matrices are not square.  A
        singular matrix is no error: its determinant is 0.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.det(xp.asarray([[2.0, 1.0], [0.0, 3.0]]))
    dlarray.asarray(6.0, dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "det", square=True)
    return as_dtype(call(_det, a), x.dtype)


def _with_nan(a: Any, *values: Any) -> Any:
    """``values`` (per-matrix results for the stack ``a``) with NaN where the
    matrix holds a NaN.

    LAPACK's LU factorization can pivot around a NaN and report an exactly
    singular matrix, so NumPy gives ``det([[nan, 1], [1, 1]]) == 0.0``; a
    determinant with a NaN entry is NaN, and this restores that.
    """
    xp = namespace_of(a)
    nan = xp.isnan(a)
    if not xp.any(nan):
        return values
    nan = xp.any(nan, axis=(-2, -1))
    return tuple(
        xp.where(nan, xp.asarray(math.nan, dtype=v.dtype, device=a.device), v) for v in values
    )


def _det(a: Any) -> Any:
    (d,) = _with_nan(a, namespace_of(a).linalg.det(a))
    return d


def slogdet(x: ArrayBase, /) -> SlogdetResult:
    """The sign and the log of the absolute value of each determinant.

    ``sign`` has ``x``'s dtype (a unit complex number for complex input, 0
    for a singular matrix); ``logabsdet`` is real of ``x``'s precision
    (``-inf`` for a singular matrix).

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, or its matrices are not square.  A
        singular matrix is no error: ``sign`` is 0 and ``logabsdet`` is
        ``-inf``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.slogdet(xp.asarray([[-1.0, 0.0], [0.0, 1.0]]))
    SlogdetResult(sign=dlarray.asarray(-1.0, dtype=dlarray.float64), \
logabsdet=dlarray.asarray(0.0, dtype=dlarray.float64))
    """
    a = matrix_arg(x, _FLOAT, "slogdet", square=True)
    sign, logabsdet = compute_tuple("slogdet", _slogdet, a)
    return SlogdetResult(result(sign, x.dtype), result(logabsdet, _real_dtype(x.dtype)))


def _slogdet(a: Any) -> tuple[Any, ...]:
    return _with_nan(a, *namespace_of(a).linalg.slogdet(a))


_SINGULAR = (
    "x holds a matrix whose inverse is not finite at x's precision (a singular matrix, "
    "or one holding NaN); dlarray.linalg.pinv gives a pseudo-inverse"
)
_SINGULAR_SYSTEM = (
    "the solution is not finite at the operands' precision (x1 holds a singular matrix, "
    "or the operands hold NaN); dlarray.linalg.pinv(x1) @ x2 gives a least-squares solution"
)


def inv(x: ArrayBase, /) -> ArrayBase:
    """The inverse of each square matrix in ``x``; ``ValueError`` if singular.

    ``ValueError`` is raised whenever an inverse is not finite: the matrix
    is singular (the engine meets a zero pivot), singular at ``x``'s
    precision (an entry overflows), or holds NaN.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, its matrices are not square, or a
        matrix is singular (its inverse is not finite at ``x``'s precision)
        or holds NaN; :func:`pinv` gives a pseudo-inverse.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.inv(xp.asarray([[2.0, 0.0], [0.0, 4.0]]))
    dlarray.asarray([[0.5, 0.0], [0.0, 0.25]], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "inv", square=True)
    return as_dtype(_checked_inv(a, "inv"), x.dtype)


def _checked_inv(a: Any, func: str) -> ArrayBase:
    return solver(func, _SINGULAR, namespace_of(a).linalg.inv, a)


def solve(x1: ArrayBase, x2: ArrayBase, /) -> ArrayBase:
    """The solution ``X`` of ``x1 @ X = x2`` for square invertible ``x1``.

    ``x2`` of shape ``(M,)`` is one right-hand side vector (the result has
    shape ``x1.shape[:-1]``); ``x2`` of shape ``(..., M, K)`` holds ``K``
    right-hand sides per matrix, and the stacks broadcast.  The result has
    the promoted dtype.  A solution that is not finite (``x1`` singular, or
    singular at that precision, or NaN in the system) raises ``ValueError``.

    Raises
    ------
    TypeError
        If ``x1`` or ``x2`` is not a DLArray, a dtype is not floating-point, or
        the dtypes have no promotion.
    ValueError
        If ``x1``'s matrices are not square, ``x2``'s shape does not match them,
        the stacks do not broadcast, the arrays are on different devices, or a
        matrix of ``x1`` is singular (the solution is not finite at the
        operands' precision) or the operands hold NaN.

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
    xp = namespace_of(a1)
    vector = a2.ndim == 1
    stack1, stack2 = a1.shape[:-2], () if vector else a2.shape[:-2]
    stack = (
        stack1
        if stack1 == stack2
        else broadcast_stacks("solve", "the stack shapes", stack1, stack2)
    )
    if vector and stack:
        # One vector for a stack of matrices: solved as the matrix (..., M, 1),
        # which reads the same on every engine (engines older than the
        # standard read an x2 of x1.ndim - 1 axes as a stack of vectors).
        a2 = xp.expand_dims(a2, axis=-1)
    if stack and (stack1 != stack or a2.shape[:-2] != stack):
        # The standard broadcasts the stacks; make that explicit for the
        # engines that do not (CuPy's solve needs equal stacks).
        a1 = xp.broadcast_to(a1, (*stack, m, m))
        a2 = xp.broadcast_to(a2, (*stack, *a2.shape[-2:]))
    out = solver("solve", _SINGULAR_SYSTEM, xp.linalg.solve, a1, a2)
    if vector and stack:
        out = call(_first_column, engine_view(out))
    return as_dtype(out, dtype)


def _first_column(a: Any) -> Any:
    return a[..., 0]


def _rtol_array(rtol: Any, x: ArrayBase, func: str) -> Any:
    """``rtol`` (None, a Python float or a real floating array) as a Python
    float or an engine array that broadcasts to the stack shape
    ``x.shape[:-2]``, or None."""
    if rtol is None:
        return None
    if isinstance(rtol, ArrayBase):
        common_device((x, rtol), func)
        check_dtype(rtol.dtype, "real floating", f"{func}(rtol=...)")
        refusal = broadcast_to_refusal(func, rtol.shape, x.shape[:-2], what="rtol")
        if refusal is not None:
            raise refusal
        return engine_view(rtol)
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"{func}: rtol must be None, a float or an array, got {rtol!r}")
    return float(rtol)


def _cutoffs(s: Any, rtol: Any, a: Any) -> Any:
    """``rtol * largest singular value`` for the singular values ``s`` (of
    at least one value per matrix) of ``a``, shaped to compare with ``s``.

    ``rtol`` defaults to the standard's ``max(M, N) * eps``."""
    xp = namespace_of(s)
    tol = max(a.shape[-2:]) * xp.finfo(s.dtype).eps if rtol is None else rtol
    return xp.expand_dims(xp.multiply(tol, xp.max(s, axis=-1)), axis=-1)


def _matrix_rank(a: Any, rtol: Any) -> Any:
    xp = namespace_of(a)
    if min(a.shape[-2:]) == 0:  # no singular values: rank 0
        return xp.zeros(a.shape[:-2], dtype=xp.int64, device=a.device)
    s = xp.linalg.svdvals(a)
    return xp.count_nonzero(xp.greater(s, _cutoffs(s, rtol, a)), axis=-1)


def matrix_rank(x: ArrayBase, /, *, rtol: float | ArrayBase | None = None) -> ArrayBase:
    """The rank of each matrix in ``x``: its number of singular values above
    ``rtol`` times the largest one.

    ``rtol`` defaults to ``max(M, N) * eps`` of ``x``'s precision; an array
    ``rtol`` broadcasts against the stack shape ``x.shape[:-2]``.  The result
    has the default integer dtype.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point, or ``rtol`` is not a
        float, an array or None.
    ValueError
        If ``x`` has fewer than 2 axes, or the SVD does not converge (``x`` holds NaN or
        infinity).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.matrix_rank(xp.asarray([[1.0, 2.0], [2.0, 4.0]]))
    dlarray.asarray(1, dtype=dlarray.int64)
    """
    a = matrix_arg(x, _FLOAT, "matrix_rank")
    tol = _rtol_array(rtol, x, "matrix_rank")
    ranks = compute("matrix_rank", _matrix_rank, a, tol)
    return as_dtype(ranks, DEFAULT_DTYPES["integral"])


def _pinv(a: Any, rtol: Any) -> Any:
    # The pseudo-inverse from the SVD, zeroing the reciprocals of the singular
    # values at or below the cutoff (the standard's definition).
    xp = namespace_of(a)
    m, n = a.shape[-2:]
    if min(m, n) == 0:  # no singular values: the (N, M) zero matrices
        return xp.zeros((*a.shape[:-2], n, m), dtype=a.dtype, device=a.device)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    keep = xp.greater(s, _cutoffs(s, rtol, a))
    s_inv = xp.where(keep, xp.divide(1.0, s), xp.zeros_like(s))
    v_scaled = xp.multiply(xp.matrix_transpose(_conj(xp, vh)), xp.expand_dims(s_inv, axis=-2))
    return xp.matmul(v_scaled, xp.matrix_transpose(_conj(xp, u)))


def pinv(x: ArrayBase, /, *, rtol: float | ArrayBase | None = None) -> ArrayBase:
    """The Moore-Penrose pseudo-inverse of each matrix in ``x``.

    Singular values at or below ``rtol`` times the largest one count as
    zero; ``rtol`` defaults to ``max(M, N) * eps`` of ``x``'s precision.
    The result has shape ``(..., N, M)`` and ``x``'s dtype.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point, or ``rtol`` is not a
        float, an array or None.
    ValueError
        If ``x`` has fewer than 2 axes, or the SVD does not converge (``x`` holds NaN or
        infinity).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.pinv(xp.asarray([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])).shape
    (2, 3)
    """
    a = matrix_arg(x, _FLOAT, "pinv")
    tol = _rtol_array(rtol, x, "pinv")
    return as_dtype(compute("pinv", _pinv, a, tol), x.dtype)


def matrix_power(x: ArrayBase, n: int, /) -> ArrayBase:
    """Each square matrix in ``x`` raised to the integer power ``n``.

    ``n = 0`` gives identity matrices; a negative ``n`` raises the inverse
    (``ValueError`` for a singular matrix, as :func:`inv`).

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not floating-point, or ``n`` is
        not an int.
    ValueError
        If ``x`` has fewer than 2 axes, its matrices are not square, or ``n``
        is negative and a matrix is singular.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.matrix_power(xp.asarray([[1.0, 1.0], [0.0, 1.0]]), 3)
    dlarray.asarray([[1.0, 3.0], [0.0, 1.0]], dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "matrix_power", square=True)
    n = int_arg(n, "matrix_power", "n")
    xp = namespace_of(a)
    if n < 0:
        # The inverse first, so that a singular matrix is refused on every
        # engine (see inv), then its positive power.
        inverse = _checked_inv(a, "matrix_power")
        if n == -1:
            return as_dtype(inverse, x.dtype)
        a, n = engine_view(inverse), -n
    if n == 1:  # a new array, never the input (NumPy returns the input itself)
        return as_dtype(call(_copy, a), x.dtype)
    return as_dtype(compute("matrix_power", xp.linalg.matrix_power, a, n), x.dtype)


def _copy(a: Any) -> Any:
    return namespace_of(a).asarray(a, copy=True, device=a.device)


# ---- products ----


def cross(x1: ArrayBase, x2: ArrayBase, /, *, axis: int = -1) -> ArrayBase:
    """The cross product of the 3-element vectors along ``axis``.

    ``axis`` counts from the end (``-min(x1.ndim, x2.ndim) <= axis <= -1``);
    both operands must have size 3 there (that axis does not broadcast),
    and the other axes broadcast.  The result has the promoted dtype.

    Raises
    ------
    TypeError
        If ``x1`` or ``x2`` is not a DLArray, a dtype is not numeric, or the
        dtypes have no promotion.
    ValueError
        If an array has no size 3 along ``axis``, the shapes do not broadcast
        outside it, ``axis`` is out of range (also an ``IndexError``), or the
        arrays are on different devices.

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
    broadcast_result("cross", x1.shape, x2.shape)
    return call(_cross, a1, a2, axis)


def _cross(a: Any, b: Any, axis: int) -> Any:
    # Written out rather than the engine's cross, whose integer paths and
    # bool deprecation (NumPy's) we do not want to depend on; exact in the
    # promoted dtype.
    xp = namespace_of(a)
    a, b = xp.moveaxis(a, axis, -1), xp.moveaxis(b, axis, -1)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    mul, sub = xp.multiply, xp.subtract
    out = xp.stack(
        [
            sub(mul(a1, b2), mul(a2, b1)),
            sub(mul(a2, b0), mul(a0, b2)),
            sub(mul(a0, b1), mul(a1, b0)),
        ],
        axis=-1,
    )
    return xp.moveaxis(out, -1, axis)


def outer(x1: ArrayBase, x2: ArrayBase, /) -> ArrayBase:
    """The outer product of two vectors: ``out[i, j] = x1[i] * x2[j]``.

    Raises
    ------
    TypeError
        If ``x1`` or ``x2`` is not a DLArray, a dtype is not numeric, or the
        dtypes have no promotion.
    ValueError
        If an argument is not 1-d, or the arrays are on different devices.

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
    return call(namespace_of(a1).linalg.outer, a1, a2)


# ---- diagonals and reductions ----


def diagonal(x: ArrayBase, /, *, offset: int = 0) -> ArrayBase:
    """The diagonal of each matrix in ``x``, as a new array.

    ``offset > 0`` selects a diagonal above the main one, ``offset < 0`` one
    below; an offset beyond the matrix gives an empty last axis.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``offset`` is not an int.
    ValueError
        If ``x`` has fewer than 2 axes.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.diagonal(xp.asarray([[1, 2], [3, 4]]), offset=1)
    dlarray.asarray([2], dtype=dlarray.int64)
    """
    a = matrix_arg(x, "all", "diagonal")
    offset = int_arg(offset, "diagonal", "offset")
    return call(_diagonal, a, offset)


def _diagonal(a: Any, offset: int) -> Any:
    # A copy: engines may return a read-only view (NumPy does).
    return _copy(namespace_of(a).linalg.diagonal(a, offset=offset))


def trace(x: ArrayBase, /, *, offset: int = 0, dtype: DType | None = None) -> ArrayBase:
    """The sum of each matrix's diagonal (``offset`` as for :func:`diagonal`).

    With ``dtype=None`` the result keeps ``x``'s dtype, except that integer
    types narrower than ``int64`` are summed as ``int64`` (signed) or
    ``uint64`` (unsigned), as :func:`dlarray.sum` does.  An explicit
    ``dtype`` casts before summing.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not numeric, ``offset`` is not
        an int, or ``dtype`` is not None or a numeric dtype that can hold
        ``x``'s values (of the same or a wider kind).
    ValueError
        If ``x`` has fewer than 2 axes.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.trace(xp.asarray([[1, 2], [3, 4]], dtype=xp.int8))
    dlarray.asarray(5, dtype=dlarray.int64)
    """
    a = matrix_arg(x, "numeric", "trace")
    offset = int_arg(offset, "trace", "offset")
    out_dtype = accumulation_dtype(x.dtype, dtype, "trace")
    xp = namespace_of(a)
    sums = call(xp.linalg.trace, a, offset=offset, dtype=engine_dtype(xp, out_dtype))
    return as_dtype(sums, out_dtype)


def _norm_order(ord: Any, func: str) -> float:
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"{func}: ord must be an int or a float, got {ord!r}")
    if math.isnan(ord):
        raise ValueError(f"{func}: ord must not be NaN")
    return ord


def _extreme(values: Any, axes: tuple[int, ...], keepdims: bool, largest: bool) -> Any:
    """The largest or smallest of the non-negative ``values`` over ``axes``;
    over no values at all, 0 (largest) or infinity (smallest): the norms of
    empty vectors and matrices."""
    xp = namespace_of(values)
    if any(values.shape[i] == 0 for i in axes):
        shape = tuple(
            1 if i in axes else size
            for i, size in enumerate(values.shape)
            if keepdims or i not in axes
        )
        fill = 0.0 if largest else math.inf
        return xp.full(shape, fill, dtype=values.dtype, device=values.device)
    reduce = xp.max if largest else xp.min
    return reduce(values, axis=axes, keepdims=keepdims)


# ---- vector_norm ----
#
# No intermediate overflows or underflows where the norm itself does not
# (docs/api/linalg.md, "Accuracy of vector_norm", states the bounds):
#
# * float32 and complex64 compute in float64 and round once.  Their squares
#   there are exact and far inside float64's normal range (2**-298 to
#   2**257), so their sums of squares and magnitudes need no scaling.
# * ord=2 of float64 and complex128 sums the squares directly (the common
#   case) and keeps that sum where it proves itself: a finite sum of
#   non-negative terms had no infinite term or partial sum, and a sum of
#   at least N * 2**-1020 (N squares) lost at most a relative 2**-55 to
#   the squares below the normal range (2**-1075 each).  Elsewhere the norm
#   is M * sqrt(sum((|x| / M)**2)), M the largest magnitude: a sum of at
#   least one (the term M / M) and at most N.
# * Other orders p scale always (a power costs far more than a division):
#   M * sum((|x| / M)**p)**(1/p), M the largest magnitude, for p > 0, and
#   m * sum((m / |x|)**-p)**(1/p), m the smallest, for p < 0: every term
#   lies in [0, 1] and the sum in [1, N].  A zero, infinite or NaN M (or
#   m) leaves the magnitudes unscaled: they give 0, infinity or NaN as
#   IEEE arithmetic does.

#: float64's largest finite value.
_DOUBLE_MAX = 1.7976931348623157e308
#: Sums of squares below this many times their number of terms are redone
#: scaled (squares below float64's normal range keep only an absolute
#: accuracy of 2**-1075 each).
_SMALLEST_SQUARES = 2.0**-1020
#: Moduli below this (complex128) are formed again scaled by 2**600.
_SUBNORMAL_MODULI = 2.0**-1000
#: Integer powers up to this are formed by multiplications (binary
#: powering: relative error below (p - 1) * 2**-53, for a fraction of
#: pow's time); others by the engine's pow.
_MULTIPLIED_POWERS = 64


def _reduced_shape(a: Any, axes: tuple[int, ...], keepdims: bool) -> tuple[int, ...]:
    return tuple(1 if i in axes else n for i, n in enumerate(a.shape) if keepdims or i not in axes)


def _vector_norm(a: Any, axes: tuple[int, ...], keepdims: bool, p: float, real: Any) -> Any:
    """The norms, of the engine dtype ``real``: computed in float64 and
    rounded once (``ord=inf``/``-inf`` of real values: in ``a``'s dtype,
    exactly; ``ord=0``: counted in integers)."""
    xp = namespace_of(a)
    if p == 0:
        norms = xp.count_nonzero(a, axis=axes, keepdims=keepdims)
    else:
        norms = _two_norm(xp, a, axes) if p == 2 else _magnitude_norm(xp, a, axes, p)
        norms = xp.reshape(norms, _reduced_shape(a, axes, keepdims))
    return norms if norms.dtype == real else xp.astype(norms, real)


def _magnitude_norm(xp: Any, a: Any, axes: tuple[int, ...], p: float) -> Any:
    """The norms of order ``p`` (inf, -inf, 1 or general) over ``axes``
    (kept as axes of length one), from the magnitudes of ``a``."""
    if math.prod(a.shape[i] for i in axes) == 0:  # no magnitudes: the largest is 0, a sum 0
        dtype = xp.float64 if xp.isdtype(a.dtype, "complex floating") else a.dtype
        shape = _reduced_shape(a, axes, True)
        return xp.full(shape, 0.0 if p > 0 else math.inf, dtype=dtype, device=a.device)
    magnitudes = _moduli(xp, a) if xp.isdtype(a.dtype, "complex floating") else xp.abs(a)
    reduce = xp.max if p > 0 else xp.min
    extreme = reduce(magnitudes, axis=axes, keepdims=True)
    if a.dtype == xp.complex128:
        # A modulus below float64's normal range is rounded to its subnormal
        # steps.  Where the norm hangs on such moduli (the largest, p > 0;
        # the smallest, p < 0), they are formed again from the parts scaled
        # by 2**600 (exactly: no part is beyond 2**-1000 * 2**600 there,
        # and any that overflows has no weight in a norm with p < 0).
        tiny = (extreme < _SUBNORMAL_MODULI) & (extreme > 0)
        if xp.any(tiny):
            scale = xp.where(tiny, xp.full_like(extreme, 2.0**600), 1.0)
            magnitudes = xp.hypot(xp.real(a) * scale, xp.imag(a) * scale)
            extreme = reduce(magnitudes, axis=axes, keepdims=True)
            return _norm_of_magnitudes(xp, magnitudes, extreme, axes, p) / scale
    return _norm_of_magnitudes(xp, magnitudes, extreme, axes, p)


def _norm_of_magnitudes(
    xp: Any, magnitudes: Any, extreme: Any, axes: tuple[int, ...], p: float
) -> Any:
    """The norms of order ``p`` over ``axes`` of ``magnitudes`` (a new
    array), ``extreme`` their largest (p > 0) or smallest (p < 0)."""
    if p == math.inf or p == -math.inf:
        return extreme
    if p == 1:
        return xp.sum(magnitudes, axis=axes, dtype=xp.float64, keepdims=True)
    if magnitudes.dtype != xp.float64:
        magnitudes, extreme = xp.astype(magnitudes, xp.float64), xp.astype(extreme, xp.float64)
    scale = _usable_scale(xp, extreme)
    if p > 0:
        magnitudes /= scale
    else:
        magnitudes = scale / magnitudes
    total = xp.sum(_power(xp, magnitudes, abs(p)), axis=axes, keepdims=True)
    return scale * xp.pow(total, 1.0 / p)


def _moduli(xp: Any, a: Any) -> Any:
    """The moduli of the complex ``a`` in float64 (a new array): the
    engine's ``abs`` in complex128 (complex64 cast first, exactly), which
    neither overflows nor underflows on the way and is infinite where a
    part is (hypot's rule).  NumPy's is ``larger * sqrt(1 + (smaller /
    larger)**2)``: five roundings, within ``4 * 2**-53`` of the modulus."""
    return xp.abs(xp.astype(a, xp.complex128) if a.dtype == xp.complex64 else a)


def _usable_scale(xp: Any, extreme: Any) -> Any:
    """``extreme`` (largest or smallest magnitudes) where it can scale: 1
    where it is 0, infinite or NaN (the unscaled magnitudes then give 0,
    infinity or NaN)."""
    return xp.where((extreme > 0) & (extreme <= _DOUBLE_MAX), extreme, 1.0)


def _sums_of_squares(xp: Any, a: Any, axes: tuple[int, ...]) -> Any:
    """``sum(|x|**2)`` over ``axes`` of the double-precision ``a`` (kept as
    axes of length one), as a dot product (the engine's ``vecdot``: no
    squares written out; complex: the real part of ``conj(x) * x``)."""
    kept = tuple(i for i in range(a.ndim) if i not in axes)
    count = math.prod(a.shape[i] for i in axes)
    rows = xp.reshape(xp.permute_dims(a, kept + axes), (*(a.shape[i] for i in kept), count))
    sums = xp.vecdot(rows, rows, axis=-1)
    if xp.isdtype(sums.dtype, "complex floating"):
        sums = xp.real(sums)
    return xp.reshape(sums, _reduced_shape(a, axes, True))


def _two_norm(xp: Any, a: Any, axes: tuple[int, ...]) -> Any:
    """The 2-norms over ``axes`` (kept as axes of length one), in float64."""
    complex_ = xp.isdtype(a.dtype, "complex floating")
    if a.dtype == xp.float32:
        total = _sums_of_squares(xp, xp.astype(a, xp.float64), axes)
    elif a.dtype == xp.complex64:
        total = _sums_of_squares(xp, xp.astype(a, xp.complex128), axes)
    else:
        total = _sums_of_squares(xp, a, axes)
    norms = xp.sqrt(total)
    if a.dtype == xp.float64 or a.dtype == xp.complex128:
        terms = math.prod(a.shape[i] for i in axes) * (2 if complex_ else 1)
        suspect = ~((total >= terms * _SMALLEST_SQUARES) & (total <= _DOUBLE_MAX))
        if not complex_:
            # A real sum of squares is NaN only where x holds a NaN; a complex
            # dot product also where it overflowed (inf - inf in its other part).
            suspect &= ~xp.isnan(total)
        if xp.any(suspect):
            norms = xp.where(suspect, _scaled_two_norm(xp, a, axes), norms)
    if complex_:
        nan = xp.isnan(norms)  # (a part is NaN: the scaled norms compute part by part)
        if xp.any(nan):
            # The modulus is still infinite where the other part is (hypot's
            # rule): a sum of the moduli is NaN where one of them is, else
            # infinite, as these norms are.
            norms = xp.where(nan, xp.sum(_moduli(xp, a), axis=axes, keepdims=True), norms)
    return norms


def _scaled_two_norm(xp: Any, a: Any, axes: tuple[int, ...]) -> Any:
    """``M * sqrt(sum((|x| / M)**2))`` over ``axes`` of the double-precision
    ``a``, ``M`` the largest magnitude of its parts (real and imaginary)."""
    parts = (xp.real(a), xp.imag(a)) if xp.isdtype(a.dtype, "complex floating") else (a,)
    magnitudes = [xp.abs(part) for part in parts]
    largest: Any = None
    for m in magnitudes:
        peak = xp.max(m, axis=axes, keepdims=True)
        largest = peak if largest is None else xp.maximum(largest, peak)
    scale = _usable_scale(xp, largest)
    total: Any = None
    for m in magnitudes:
        m /= scale
        m *= m
        part_total = xp.sum(m, axis=axes, keepdims=True)
        total = part_total if total is None else total + part_total
    return scale * xp.sqrt(total)


def _power(xp: Any, values: Any, q: float) -> Any:
    """``values ** q`` (``q > 0``), formed in ``values`` where it can be."""
    if q != int(q) or q > _MULTIPLIED_POWERS:
        values **= q
        return values
    bits = bin(int(q))[3:]  # left to right, after the leading one
    if not bits:
        return values
    base = values
    values = base * base  # (a new array: base stays for the multiplications)
    if bits[0] == "1":
        values *= base
    for bit in bits[1:]:
        values *= values
        if bit == "1":
            values *= base
    return values


def vector_norm(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: float = 2,
) -> ArrayBase:
    """The ``ord``-norm of the vectors along ``axis`` (all axes by default).

    ``ord`` may be any int or float: ``inf`` (largest magnitude), ``-inf``
    (smallest), ``0`` (count of non-zeros), or ``p`` for
    ``sum(abs(x)**p)**(1/p)``.  The result is real, of ``x``'s precision.

    No square, power or sum overflows or underflows on the way: a norm is
    ``inf`` only where it is beyond the dtype's range (within its error
    bound) and 0 only where it rounds to 0.  ``float32`` and ``complex64``
    norms are formed in ``float64`` and rounded once.  The bound of each
    order is in the ``linalg`` reference ("Accuracy of vector_norm").

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not floating-point, or ``ord``
        is not an int or a float.
    ValueError
        If ``axis`` repeats an axis or is out of range (also an
        ``IndexError``).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.vector_norm(xp.asarray([3.0, -4.0]))
    dlarray.asarray(5.0, dtype=dlarray.float64)
    >>> xp.linalg.vector_norm(xp.asarray([3.0, -4.0]), ord=1)
    dlarray.asarray(7.0, dtype=dlarray.float64)
    >>> xp.linalg.vector_norm(xp.asarray([1e300, 1e300]))  # the squares overflow
    dlarray.asarray(1.4142135623730952e+300, dtype=dlarray.float64)
    """
    a = array_arg(x, _FLOAT, "vector_norm")
    axes = normalize_axes(axis, a.ndim, "vector_norm")
    p = _norm_order(ord, "vector_norm")
    real = _real_dtype(x.dtype)
    return call(_vector_norm, a, axes, bool(keepdims), p, engine_dtype(namespace_of(a), real))


_MATRIX_AXES = (-2, -1)


def _matrix_norm(a: Any, ord: Any, keepdims: bool, real: Any) -> Any:
    """The norms of the matrices of ``a``, of the engine dtype ``real``."""
    xp = namespace_of(a)
    if ord == "fro":  # the 2-norm of each matrix's elements, as vector_norm's
        norms = _two_norm(xp, a, (a.ndim - 2, a.ndim - 1))
        norms = xp.reshape(norms, norms.shape if keepdims else norms.shape[:-2])
        return xp.astype(norms, real) if norms.dtype != real else norms
    if ord in ("nuc", 2, -2):
        if min(a.shape[-2:]) == 0:  # no singular values
            s = xp.zeros((*a.shape[:-2], 0), dtype=real, device=a.device)
        else:
            s = xp.linalg.svdvals(a)
        if ord == "nuc":
            norms = xp.sum(s, axis=-1)
        else:  # the extreme singular values
            norms = _extreme(s, (s.ndim - 1,), False, largest=ord > 0)
    else:
        magnitude = xp.abs(a)
        if ord in (1, -1):
            sums = xp.sum(magnitude, axis=-2)  # column sums
        else:  # ord in (inf, -inf)
            sums = xp.sum(magnitude, axis=-1)  # row sums
        norms = _extreme(sums, (sums.ndim - 1,), False, largest=ord > 0)
    return xp.reshape(norms, (*norms.shape, 1, 1)) if keepdims else norms


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
    x: ArrayBase,
    /,
    *,
    keepdims: bool = False,
    ord: float | Literal["fro", "nuc"] | None = "fro",
) -> ArrayBase:
    """The ``ord``-norm of each matrix in ``x``.

    ``ord`` is ``"fro"`` (Frobenius), ``"nuc"`` (sum of singular values),
    ``1``/``-1`` (largest/smallest absolute column sum), ``inf``/``-inf``
    (largest/smallest absolute row sum), or ``2``/``-2`` (largest/smallest
    singular value).  The result is real, of ``x``'s precision; with
    ``keepdims=True`` it keeps the matrix axes as size-1 axes.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not floating-point.
    ValueError
        If ``x`` has fewer than 2 axes, or ``ord`` is not ``'fro'``, ``'nuc'``, 1, -1,
        2, -2, ``inf`` or ``-inf``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linalg.matrix_norm(xp.asarray([[1.0, -2.0], [3.0, 4.0]]), ord=1)
    dlarray.asarray(6.0, dtype=dlarray.float64)
    """
    a = matrix_arg(x, _FLOAT, "matrix_norm")
    order = _matrix_order(ord)
    real = _real_dtype(x.dtype)
    xp = namespace_of(a)
    norms = compute("matrix_norm", _matrix_norm, a, order, bool(keepdims), engine_dtype(xp, real))
    return as_dtype(norms, real)
