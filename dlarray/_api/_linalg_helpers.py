"""Argument checks and result handling shared by the linear-algebra and
FFT functions.

The chapter :mod:`dlarray._api.linear_algebra` and the extensions
:mod:`dlarray.linalg` and :mod:`dlarray.fft` validate their arguments here:
arrays of a dtype category, pairs of arrays promoted by the standard's
rules, stacks of (square) matrices, integer arguments, broadcasting stacks.
Each check returns the zero-copy engine array the engine computes on, or
raises the exception the standard's conventions call for (``TypeError`` for
a wrong type or dtype, ``ValueError`` for a wrong value or shape).

They compute through the engine's standard namespace (``namespace_of(a)``
and its ``linalg`` and ``fft`` extensions) and nothing else, so the same
code runs on NumPy, CuPy, dpnp and array-api-strict: functions, never an
engine array's operators (``xp.multiply(a, b)``, not ``a * b``), since the
engine enters the array's device for its namespace's functions only, and
CuPy's operators compute on the current GPU.  The standard leaves
open what a solver does with a singular matrix; dlarray raises
``ValueError``, with one message on every engine: :func:`factorise` turns
the engine's report of a failed factorisation (NumPy's ``LinAlgError``)
into it, and :func:`solver` refuses a result that is not finite, which is
what an engine that does not report it returns (CuPy, whose linalg error
checks are off by default), by a check of the result in the standard.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

from dlarray._api._operands import binary, unary
from dlarray._core import ArrayBase
from dlarray._dtypes import DType, dtype_argument
from dlarray._engine.numpy_engine import quiet
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of, wrap
from dlarray._rules import CATEGORIES, broadcast_result, default_accumulation_dtype


def array_arg(x: Any, category: str, func: str) -> Any:
    """The engine view of ``x``, an array of a dtype in ``category``."""
    return unary(x, CATEGORIES[category], category, func)


def two_arrays(x1: Any, x2: Any, category: str, func: str) -> tuple[Any, Any, DType]:
    """Engine views of two arrays (no Python scalars) cast to their
    promoted dtype, and that dtype."""
    if isinstance(x1, ArrayBase) and isinstance(x2, ArrayBase):
        return binary(x1, x2, CATEGORIES[category], category, func)
    for name, x in (("x1", x1), ("x2", x2)):
        if not isinstance(x, ArrayBase):
            raise TypeError(f"{func}: {name} must be a dlarray array, got {type(x).__name__}")
    return binary(x1, x2, CATEGORIES[category], category, func)


def matrix_arg(x: Any, category: str, func: str, *, square: bool = False) -> Any:
    """The engine view of ``x``, a stack of matrices (``ndim >= 2``) of a
    dtype in ``category``; with ``square=True`` the matrices must be square."""
    a = array_arg(x, category, func)
    check_matrices(a.shape, func, square=square)
    return a


def check_matrices(
    shape: tuple[int, ...], func: str, *, square: bool = False, name: str = "x"
) -> None:
    """``ValueError`` unless ``shape`` is ``(..., M, N)`` (with ``M == N`` if
    ``square``)."""
    if len(shape) < 2:
        raise ValueError(
            f"{func}: {name} must be a matrix or a stack of matrices (at least 2 axes), "
            f"got shape {shape}"
        )
    if square and shape[-1] != shape[-2]:
        raise ValueError(
            f"{func}: {name} must hold square matrices, got matrices of shape {shape[-2:]}"
        )


def broadcast_stacks(func: str, what: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that ``shapes`` (the stack or batch shapes of the operands,
    named ``what``) broadcast to; ``ValueError`` saying where they cannot."""
    return broadcast_result(func, *(tuple(s) for s in shapes), what=what)


def int_arg(value: Any, func: str, name: str) -> int:
    """``value`` as a Python int; ``TypeError`` for bools and non-integers."""
    if isinstance(value, bool):
        raise TypeError(f"{func}: {name} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{func}: {name} must be an int, got {value!r}") from None


# ---- results ----


def result(a: Any, dtype: DType) -> ArrayBase:
    """A fresh engine result brought back as a DLArray of exactly ``dtype``
    (an engine's result dtype sometimes differs from the standard's: NumPy's
    ``eigvals`` of a real matrix with real eigenvalues is real)."""
    xp = namespace_of(a)
    target = engine_dtype(xp, dtype)
    if a.dtype != target:
        a = xp.astype(a, target)
    return wrap(a)


def as_dtype(x: ArrayBase, dtype: DType) -> ArrayBase:
    """``x`` (a fresh result of :func:`call`) as exactly ``dtype``."""
    if x.dtype is dtype:
        return x
    a = engine_view(x)
    xp = namespace_of(a)
    return wrap(xp.astype(a, engine_dtype(xp, dtype)))


def compute(func: str, kernel: Callable[..., Any], *args: Any, **kwargs: Any) -> ArrayBase:
    """``kernel(*args, **kwargs)``, an engine's single-array linalg or fft
    function, as a DLArray, with floating-point warnings off and the
    engine's report of a failed factorisation (NumPy's ``LinAlgError``, a
    ``ValueError`` subclass, which CuPy and array-api-strict raise too) as a
    ``ValueError`` naming the dlarray function."""
    try:
        return call(kernel, *args, **kwargs)
    except ValueError as error:
        raise ValueError(f"{func}: {error}") from None


def compute_tuple(
    func: str, kernel: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[Any, ...]:
    """:func:`compute` for kernels that return several engine arrays
    (``eigh``, ``qr``, ``svd``, ``slogdet``), which are returned as they are."""
    try:
        return tuple(quiet(kernel)(*args, **kwargs))
    except ValueError as error:
        raise ValueError(f"{func}: {error}") from None


def all_true(mask: Any) -> bool:
    """Whether every element of the boolean engine array ``mask`` is true.

    Counted rather than ``xp.all(mask)``: the same answer, and NumPy counts
    a whole array in one C call where ``numpy.all`` goes through Python
    wrappers that cost a third of a small ``inv``.
    """
    return int(namespace_of(mask).count_nonzero(mask)) == math.prod(mask.shape)


def all_finite(a: Any) -> bool:
    """Whether every element of the engine array ``a`` is finite."""
    return all_true(namespace_of(a).isfinite(a))


def factorise(
    func: str, problem: str, kernel: Callable[..., Any], *args: Any, **kwargs: Any
) -> ArrayBase:
    """``kernel(*args, **kwargs)``, an engine function that factorises
    matrices (``inv``, ``solve``, ``cholesky``), as a DLArray; the engine's
    report of a failed factorisation (NumPy's ``LinAlgError``, a
    ``ValueError`` on every engine) as ``ValueError(problem)``, one message
    on every engine.  Engines that do not report it are caught by a check
    of the result: :func:`solver`, or cholesky's own."""
    try:
        return call(kernel, *args, **kwargs)
    except ValueError:
        raise ValueError(f"{func}: {problem}") from None


def solver(
    func: str, problem: str, kernel: Callable[..., Any], *args: Any, **kwargs: Any
) -> ArrayBase:
    """:func:`factorise` for ``inv`` and ``solve``, whose result must be finite.

    The LU factorisation behind them meets a zero pivot at a singular
    matrix.  NumPy then raises; CuPy with its error checks off divides by it
    and returns NaN and infinity.  So a result that is not finite is refused
    alike on every engine, whatever the engine did to get it: a singular
    matrix, a result that overflows the dtype (a matrix singular at working
    precision), or a matrix holding NaN (which NumPy itself refuses or not
    depending on where LAPACK pivots).
    """
    out = factorise(func, problem, kernel, *args, **kwargs)
    if all_finite(engine_view(out)):
        return out
    raise ValueError(f"{func}: {problem}")


def accumulation_dtype(x_dtype: DType, dtype: Any, func: str) -> DType:
    """The result dtype of a sum-like reduction (``trace``).

    With ``dtype=None`` the standard keeps ``x``'s dtype, except that integer
    types narrower than the default integer widen to it (signed) or to the
    unsigned type of its width (unsigned).  An explicit ``dtype`` must be a
    numeric dtype of the same or a wider kind (integer -> floating ->
    complex): a narrowing of kind would silently drop information.
    """
    if dtype is None:
        return default_accumulation_dtype(x_dtype)
    dtype = dtype_argument(dtype)
    if dtype is None or dtype not in CATEGORIES["numeric"]:
        raise TypeError(f"{func}: dtype must be a numeric dlarray dtype or None, got {dtype!r}")
    kinds = ("integer", "real floating", "complex floating")
    x_kind = next(i for i, k in enumerate(kinds) if x_dtype in CATEGORIES[k])
    kind = next(i for i, k in enumerate(kinds) if dtype in CATEGORIES[k])
    if kind < x_kind:
        raise TypeError(
            f"{func}: cannot accumulate {x_dtype.name} values in {dtype.name}; pick a "
            f"dtype of the same or a wider kind, or convert x with dlarray.astype first"
        )
    return dtype
