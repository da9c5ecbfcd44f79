"""Fixes for engines whose special values differ from the standard's.

The standard fixes the result of every elementwise function for NaN,
infinities and signed zeros.  NumPy and CuPy (which copies NumPy's
kernels) follow it almost everywhere; the functions here make an engine's
kernel follow it where they do not.  Each takes the engine's own namespace
(``base``) and returns the fixed function, written in the standard alone,
so that one fix serves every engine that needs it (their ``FIXES`` tables
list them).  ``dtype_of`` maps the namespace's dtype objects to the ones its
arrays report (``numpy.dtype`` for NumPy and CuPy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Kernel = Callable[..., Any]


def _dtypes(base: Any, dtype_of: Callable[[Any], Any], *names: str) -> frozenset[Any]:
    """Engine dtypes by name, as arrays report them, for a set-membership
    test on every call (``isdtype`` is a Python function call, a noticeable
    cost on the host engine's small arrays).  ``dtype_of`` turns the
    namespace's dtype object into the array's: NumPy's ``numpy.complex64``
    is a scalar type, which equals ``a.dtype`` but does not hash like it."""
    return frozenset(dtype_of(getattr(base, name)) for name in names if hasattr(base, name))


def _same(dtype: Any) -> Any:
    return dtype


def floor_divide(base: Any, dtype_of: Callable[[Any], Any] = _same) -> Kernel:
    """``floor(x1 / x2)`` where an operand is infinite.

    NumPy computes floor division through ``fmod`` and returns NaN for
    ``inf // 3`` and ``-1`` for ``1 // -inf``; the standard's special cases
    are those of ``floor(x1 / x2)``: ``+inf`` and ``-0`` respectively.
    """
    kernel, floating = base.floor_divide, _dtypes(base, dtype_of, "float16", "float32", "float64")

    def fixed(a1: Any, a2: Any, /) -> Any:
        result = kernel(a1, a2)
        if result.dtype in floating:
            infinite = base.logical_or(base.isinf(a1), base.isinf(a2))
            if base.any(infinite):
                result = base.where(infinite, base.floor(base.divide(a1, a2)), result)
        return result

    return fixed


def expm1(base: Any, dtype_of: Callable[[Any], Any] = _same) -> Kernel:
    """Complex ``expm1`` at non-finite inputs as ``exp(z) - 1``.

    NumPy's complex expm1 returns NaN for most non-finite inputs; the
    standard gives them the values of ``exp(z) - 1`` (whose special cases
    NumPy's complex exp follows).  Finite inputs keep expm1's accuracy.
    ``expm1(-0 + 0j)`` is ``+0 + 0j`` in the standard; NumPy keeps the -0.
    """
    kernel, complex_ = base.expm1, _dtypes(base, dtype_of, "complex64", "complex128")

    def fixed(a: Any, /) -> Any:
        result = kernel(a)
        if result.dtype in complex_:
            special = base.logical_not(base.isfinite(a))
            if base.any(special):
                result = base.where(special, base.exp(a) - 1, result)
            zero = a == 0
            if base.any(zero):
                result = base.where(zero, _signed_zero_imag(base, result), result)
        return result

    return fixed


def tanh(base: Any, dtype_of: Callable[[Any], Any] = _same) -> Kernel:
    """Complex ``tanh`` with an infinite real part and finite imaginary part.

    The standard gives ``±1 + 0j`` with the zero's sign following the
    imaginary part's; NumPy (after C99) signs the zero as ``sin(2y)``.
    """
    kernel, complex_ = base.tanh, _dtypes(base, dtype_of, "complex64", "complex128")

    def fixed(a: Any, /) -> Any:
        result = kernel(a)
        if result.dtype in complex_:
            re, im = base.real(a), base.imag(a)
            special = base.logical_and(base.isinf(re), base.isfinite(im))
            if base.any(special):
                one = base.astype(base.copysign(base.ones_like(re), re), result.dtype)
                # conj turns the +0 imaginary part of `one` into -0.
                value = base.where(base.signbit(im), base.conj(one), one)
                result = base.where(special, value, result)
        return result

    return fixed


def sign(base: Any, dtype_of: Callable[[Any], Any] = _same) -> Kernel:
    """Complex ``sign`` as ``z / |z|`` without overflow.

    NumPy's complex kernel computes ``|z|`` in the input's precision, so a
    finite ``z`` whose modulus exceeds the largest float gives a wrong
    direction (``sign(2.4e38 + 2.4e38j)`` in complex64 is ``1j``, not
    ``0.707 + 0.707j``).  Dividing by the larger part first keeps every
    finite nonzero ``z`` in range; zeros give ``0 + 0j``; infinities and NaN
    keep the kernel's result.
    """
    kernel, complex_ = base.sign, _dtypes(base, dtype_of, "complex64", "complex128")

    def fixed(a: Any, /) -> Any:
        result = kernel(a)
        if result.dtype in complex_:
            re, im = base.real(a), base.imag(a)
            scale = base.maximum(base.abs(re), base.abs(im))
            finite = base.logical_and(base.isfinite(scale), scale > 0)
            if base.any(finite):
                # Each part divided by the real scale, not z by it: a complex
                # division by a subnormal scale takes 1 / scale, which is
                # inf (sign(5e-324j) came out nan + nanj).
                scale = base.where(finite, scale, base.ones_like(scale))
                re, im = re / scale, im / scale  # |re + i im| in [1, sqrt(2)]
                modulus = base.sqrt(re * re + im * im)
                i = base.asarray(1j, dtype=result.dtype, device=a.device)
                unit = (
                    base.astype(re / modulus, result.dtype)
                    + base.astype(im / modulus, result.dtype) * i
                )
                result = base.where(finite, unit, result)
            # sign(±0 ± 0j) is 0 + 0j (array-api-strict's z / |z| gives NaN).
            zero = a == 0
            if base.any(zero):
                result = base.where(zero, base.zeros_like(result), result)
        return result

    return fixed


def _signed_zero_imag(base: Any, z: Any) -> Any:
    """``+0 + 0j`` carrying the sign of ``z``'s imaginary part."""
    zero = base.zeros_like(z)
    return base.where(base.signbit(base.imag(z)), base.conj(zero), zero)
