"""Kernels where NumPy's results differ from the standard's special cases.

The standard fixes the result of every elementwise function for NaN,
infinities and signed zeros.  NumPy follows it almost everywhere; the
kernels here replace NumPy's for the cases where it does not.  Each takes
and returns NumPy arrays; :mod:`dlarray._api.elementwise` picks them up by
name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

#: name -> kernel(a) replacing NumPy's for a unary function.
UNARY: dict[str, Callable[[Any], Any]] = {}
#: name -> kernel(a1, a2) replacing NumPy's for a binary function.
BINARY: dict[str, Callable[[Any, Any], Any]] = {}


def _floor_divide(a1: Any, a2: Any) -> Any:
    """``floor(x1 / x2)`` where an operand is infinite.

    NumPy computes floor division through ``fmod`` and returns NaN for
    ``inf // 3`` and ``-1`` for ``1 // -inf``; the standard's special cases
    are those of ``floor(x1 / x2)``: ``+inf`` and ``-0`` respectively.
    """
    result = np.floor_divide(a1, a2)
    if result.dtype.kind == "f":
        infinite = np.isinf(a1) | np.isinf(a2)
        if infinite.any():
            result = np.where(infinite, np.floor(np.divide(a1, a2)), result)
    return result


def _expm1(a: Any) -> Any:
    """Complex ``expm1`` at non-finite inputs as ``exp(z) - 1``.

    NumPy's complex expm1 returns NaN for most non-finite inputs; the
    standard gives them the values of ``exp(z) - 1`` (whose special cases
    NumPy's complex exp follows).  Finite inputs keep expm1's accuracy.
    """
    result = np.expm1(a)
    if result.dtype.kind == "c":
        special = ~np.isfinite(a)
        if special.any():
            result = np.where(special, np.exp(a) - 1, result)
        # expm1(-0 + 0j) is +0 + 0j in the standard; NumPy keeps the -0.
        zero = a == 0
        if zero.any():
            result = np.array(result, copy=True)
            result.real[zero] = 0.0
    return result


def _tanh(a: Any) -> Any:
    """Complex ``tanh`` with an infinite real part and finite imaginary part.

    The standard gives ``±1 + 0j`` with the zero's sign following the
    imaginary part's; NumPy (after C99) signs the zero as ``sin(2y)``.
    """
    result = np.tanh(a)
    if result.dtype.kind == "c":
        special = np.isinf(a.real) & np.isfinite(a.imag)
        if special.any():
            result = np.array(result, copy=True)
            result.real[special] = np.copysign(1.0, a.real[special])
            result.imag[special] = np.copysign(0.0, a.imag[special])
    return result


UNARY.update({"expm1": _expm1, "tanh": _tanh})
BINARY.update({"floor_divide": _floor_divide})
