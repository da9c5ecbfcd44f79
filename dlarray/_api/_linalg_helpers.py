"""Argument checks shared by the linear-algebra and FFT functions.

The chapter :mod:`dlarray._api.linear_algebra` and the extensions
:mod:`dlarray.linalg` and :mod:`dlarray.fft` validate their arguments here:
arrays of a dtype category, pairs of arrays promoted by the standard's
rules, stacks of (square) matrices, integer arguments, and devices.  Each
check returns the zero-copy NumPy view the engine computes on, or raises
the exception the standard's conventions call for (``TypeError`` for a
wrong type or dtype, ``ValueError`` for a wrong value or shape).
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from dlarray._api._operands import binary, unary
from dlarray._array import DLArray
from dlarray._device import CPU, as_device
from dlarray._dtypes import DType
from dlarray._engine.numpy_engine import numpy_dtype
from dlarray._engine.routing import wrap
from dlarray._rules import CATEGORIES, default_accumulation_dtype


def array_arg(x: Any, category: str, func: str) -> Any:
    """The engine view of ``x``, an array of a dtype in ``category``."""
    return unary(x, CATEGORIES[category], category, func)


def two_arrays(x1: Any, x2: Any, category: str, func: str) -> tuple[Any, Any, DType]:
    """Engine views of two arrays (no Python scalars) cast to their
    promoted dtype, and that dtype."""
    if type(x1) is DLArray and type(x2) is DLArray:
        return binary(x1, x2, CATEGORIES[category], category, func)
    for name, x in (("x1", x1), ("x2", x2)):
        if not isinstance(x, DLArray):
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


def int_arg(value: Any, func: str, name: str) -> int:
    """``value`` as a Python int; ``TypeError`` for bools and non-integers."""
    if isinstance(value, bool):
        raise TypeError(f"{func}: {name} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{func}: {name} must be an int, got {value!r}") from None


def result(a: Any, dtype: DType) -> DLArray:
    """A fresh engine result brought back as a DLArray of exactly ``dtype``
    (NumPy's result dtype sometimes differs from the standard's)."""
    if not hasattr(a, "astype"):  # a Python scalar (engine arrays have astype)
        a = np.asarray(a)
    target = numpy_dtype(dtype)
    if a.dtype != target:
        a = a.astype(target)
    return wrap(a)


@contextmanager
def linalg_errors(func: str) -> Iterator[None]:
    """Report LAPACK failures (a singular matrix, no convergence) as a plain
    ``ValueError`` naming the dlarray function, not NumPy's ``LinAlgError``."""
    try:
        yield
    except np.linalg.LinAlgError as error:
        raise ValueError(f"{func}: {error}") from None


def check_device(device: Any, func: str) -> None:
    """``device`` must be ``None`` or name the CPU (a :class:`Device` or what
    :func:`~dlarray._device.as_device` accepts), the one device the NumPy
    engine creates arrays on; another device is a ``ValueError``."""
    if device is None:
        return
    if as_device(device) != CPU:
        raise ValueError(
            f"{func}: cannot create an array on device {device!r}; dlarray computes on {CPU!r} only"
        )


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
    if not isinstance(dtype, DType) or dtype not in CATEGORIES["numeric"]:
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
