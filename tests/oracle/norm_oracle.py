"""The reference of ``linalg.vector_norm``, row by row, and the check of
dlarray's against it: the bounds of docs/api/linalg.md ("Accuracy of
vector_norm").  README.md in this folder lists them.

The reference is computed in ``decimal`` at 60 significant digits from the
exact input values (``Decimal(float)`` is exact): sums and products of
magnitudes, correctly rounded square roots (moduli, ``ord=2``), integer
powers by repeated multiplication, and for orders ``k/2`` and ``k/4`` the
square roots first; a relative error near ``10**-58``, nothing beside the
bounds.  Counts (``ord=0``) and the largest and smallest magnitudes of real
values (``ord=±inf``) are exact.  IEEE semantics for infinities and NaN are
written out (:func:`special`)."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from typing import Any

import numpy as np
from oracle_support import COMPLEXES, describe, real_name, reduced_axes

import dlarray as xp

V = 2.0**-53
U = {"float32": 2.0**-24, "float64": 0.0}
#: The orders the layer draws: the special ones, integers formed by
#: multiplication (|p| <= 64) and by pow (65), half and quarter orders.
ORDERS = (2, 1, math.inf, -math.inf, 0, 3, 4, 10, 65, -1, -2, -3, 0.5, 1.5, -0.5, 0.25, 2.5)
_DIGITS = 60
#: The relative error allowed for a modulus (the engine's complex abs;
#: NumPy's: larger * sqrt(1 + (smaller / larger)**2), five roundings).
MODULUS = 4 * V


def _context() -> Any:
    return localcontext(prec=_DIGITS, Emax=10**7, Emin=-(10**7))


def magnitude_classes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(nan, infinite)`` per element: the magnitude is NaN where a part is
    NaN and none infinite, infinite where a part is infinite (hypot's rule)."""
    parts = (values.real, values.imag) if values.dtype.kind == "c" else (values,)
    infinite = np.zeros(values.shape, bool)
    nan = np.zeros(values.shape, bool)
    for part in parts:
        infinite |= np.isinf(part)
        nan |= np.isnan(part)
    return nan & ~infinite, infinite


def special(values: np.ndarray, p: float) -> float | None:
    """The norm where IEEE arithmetic decides it (infinities, NaN, zeros,
    no elements); None where it is a finite computation."""
    nan, infinite = magnitude_classes(values)
    if p == 0:
        return None  # (a count: NaN counts as nonzero)
    if values.size == 0:
        return 0.0 if p > 0 else math.inf
    if nan.any():
        return math.nan
    if p == math.inf:
        return math.inf if infinite.any() else None
    if p == -math.inf:
        return math.inf if infinite.all() else None
    if p > 0:
        return math.inf if infinite.any() else None
    zero = np.zeros(values.shape, bool) if values.size == 0 else (np.abs(values) == 0)
    if zero.any():
        return 0.0
    if infinite.all():
        return math.inf
    return None


def _squares(values: np.ndarray) -> list[Decimal]:
    """``|x|**2`` of each element, exact (as Decimal at the context's
    precision); infinite where a part is (hypot's rule, beside a NaN too)."""
    if values.dtype.kind == "c":
        return [
            Decimal("Infinity")
            if math.isinf(z.real) or math.isinf(z.imag)
            else Decimal(float(z.real)) ** 2 + Decimal(float(z.imag)) ** 2
            for z in values.tolist()
        ]
    return [Decimal(float(x)) ** 2 for x in values.tolist()]


def _magnitudes(values: np.ndarray) -> list[Decimal]:
    if values.dtype.kind == "c":
        return [s.sqrt() for s in _squares(values)]
    return [abs(Decimal(float(x))) for x in values.tolist()]


def _power(m: Decimal, p: float) -> Decimal:
    """``m ** p`` for the orders of :data:`ORDERS` (integers, k/2, k/4)."""
    if p == int(p):
        return m ** int(p)
    for root, times in ((2, 1), (4, 2)):
        k = p * root
        if k == int(k):
            base = m
            for _ in range(times):
                base = base.sqrt()
            return base ** int(k)
    raise AssertionError(f"no exact reference for ord={p}")


def _root(total: Decimal, p: float) -> Decimal:
    """``total ** (1 / p)``: exact powers where 1/p is an integer or half
    of one; else Decimal's power (correct to the context's precision)."""
    inverse = 1 / p
    if inverse == int(inverse):
        return total ** int(inverse)
    if 2 * inverse == int(2 * inverse):
        return total.sqrt() ** int(2 * inverse)
    return total ** (Decimal(1) / Decimal(p))


def reference(values: np.ndarray, p: float) -> Decimal:
    """The exact norm of the finite row ``values`` (to 60 digits)."""
    with _context():
        if p == 2:
            return sum(_squares(values), Decimal(0)).sqrt()
        magnitudes = _magnitudes(values)
        if p == math.inf:
            return max(magnitudes)
        if p == -math.inf:
            return min(m for m in magnitudes)
        if p == 1:
            return sum(magnitudes, Decimal(0))
        _, infinite = magnitude_classes(values)  # (p < 0: their terms are 0)
        terms = [
            _power(m, p) for m, inf in zip(magnitudes, infinite.tolist(), strict=True) if not inf
        ]
        return _root(sum(terms, Decimal(0)), p)


def relative_bound(dtype: str, p: float, n: int) -> float:
    """The documented relative error of the double-precision computation of
    a norm of ``n`` elements (before float32's rounding); infinite where
    the documented bound says nothing."""
    complex_ = dtype in COMPLEXES
    modulus = MODULUS if complex_ else 0.0
    if p in (math.inf, -math.inf):
        return modulus
    if p == 1:
        return (n + 4) * V + modulus
    if p == 2:
        terms = 2 * n if complex_ else n
        return (terms / 2 + 3) * V
    q = abs(p)
    return (12 + (n + 4 + math.log(max(n, 1))) / q) * V + (
        n * 2.0 ** (-1022 * q) / q if real_name(dtype) == "float64" else 0.0
    )


def _info(dtype: str) -> Any:
    return np.finfo(real_name(dtype))


def check_norm(values: np.ndarray, got: Any, dtype: str, p: float) -> str | None:
    """Why the norm ``got`` of the row ``values`` is wrong; None if right."""
    got = float(got)
    name = real_name(dtype)
    where = f"vector_norm(ord={p})"
    if p == 0:
        count = int(np.count_nonzero(values))
        expected = float(np.asarray(count, dtype=name))  # the count rounded once
        return None if got == expected else f"{where}: got {got!r}, the count is {count}"
    fixed = special(values, p)
    if fixed is not None:
        if (math.isnan(fixed) and math.isnan(got)) or got == fixed:
            return None
        return f"{where}: got {got!r}, IEEE arithmetic gives {fixed!r}"
    if p in (math.inf, -math.inf) and dtype not in COMPLEXES:
        magnitudes = np.abs(values)
        expected = float(magnitudes.max() if p > 0 else magnitudes.min())
        return None if got == expected else f"{where}: got {got!r}, exactly {expected!r}"
    exact = reference(values, p)
    info = _info(dtype)
    largest, tiny = float(info.max), float(info.smallest_subnormal)
    relative = relative_bound(dtype, p, values.size)
    u = U[name]
    if math.isnan(got):
        return f"{where}: got NaN, the exact norm is {float(exact)!r}"
    with _context():
        if math.isinf(got):
            # The double-precision norm, within `relative` of the exact one,
            # reached the overflow threshold (float32's, half an ulp past its
            # largest value; float64's largest value stands for its own).
            threshold = (
                Decimal(largest) + Decimal(2.0**103) if name == "float32" else Decimal(largest)
            )
            if got > 0 and exact * (1 + Decimal(relative)) >= threshold:
                return None
            return (
                f"{where}: got inf, the exact norm is {float(exact)!r} "
                f"(relative bound {relative:.3g})"
            )
        bound = exact * Decimal(u + relative * (1 + 2 * u)) + Decimal(tiny)
        error = abs(Decimal(got) - exact)
        if error <= bound:
            return None
        ulps = error / Decimal(math.ulp(min(max(float(exact), tiny), largest)))
        return (
            f"{where}: got {got!r}, exact {float(exact)!r}: error {float(error):.4g} "
            f"({float(ulps):.3g} ulp) > bound {float(bound):.4g}"
        )


def check_vector_norm(
    dtype: str, a: Any, values: np.ndarray, axis: Any, keepdims: bool, p: float
) -> list[str]:
    """dlarray's ``vector_norm`` of ``a`` (whose values and layout ``values``
    has) over ``axis`` against the reference, row by row; what is wrong."""
    result = xp.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=p)
    name = real_name(dtype)
    problems = []
    if result.dtype != getattr(xp, name):
        problems.append(f"vector_norm: result dtype {result.dtype}, expected {name}")
    got = np.asarray(result)
    ndim = values.ndim
    axes = reduced_axes(axis, ndim)
    kept = [d for d in range(ndim) if d not in axes]
    shape = (
        [1 if d in axes else values.shape[d] for d in range(ndim)]
        if keepdims
        else [values.shape[d] for d in kept]
    )
    if list(got.shape) != shape:
        return [*problems, f"vector_norm: result shape {got.shape}, expected {tuple(shape)}"]
    count = math.prod(values.shape[d] for d in axes)
    moved = np.moveaxis(values, axes, range(len(kept), ndim)) if ndim else values
    outer = math.prod(values.shape[d] for d in kept)
    rows = np.ascontiguousarray(moved).reshape(outer, count) if ndim else values.reshape(1, 1)
    flat = got.reshape(-1)
    for r in range(rows.shape[0]):
        message = check_norm(rows[r], flat[r], dtype, p)
        if message:
            problems.append(
                message + (f" (row {r} of {rows.shape[0]})" if rows.shape[0] > 1 else "")
            )
            if len(problems) > 6:
                break
    if problems:
        problems.append(f"input: {describe(values)}; axis={axis}, keepdims={keepdims}")
    return problems


__all__ = ["ORDERS", "check_norm", "check_vector_norm", "reference", "relative_bound", "special"]
