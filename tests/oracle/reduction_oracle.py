"""The reference result of each reduction and scan, row by row, and the
check of dlarray's against it (the bounds of docs/guide/arrays.md,
"Accuracy of sums and scans"; README.md in this folder lists them)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import numpy as np
from oracle_support import (
    COMPLEXES,
    FLOATS,
    INTEGERS,
    SIGNED,
    U,
    abs_sum,
    check_value,
    describe,
    equal_ieee,
    exact_prefix_sums,
    exact_root,
    exact_sum,
    exact_variance_fraction,
    mean_magnitude,
    overflow_threshold,
    product_tree,
    ratio_minus_one,
    real_name,
    reduced_axes,
    scaled_integers,
    to_float,
    wrap,
)

import dlarray as xp

U64 = 2.0**-53
#: float32's documented sum bound: |error| <= U·|s| + K32·U·Σ|x|.
K32 = 16

ACCUMULATING = ("sum", "prod", "cumulative_sum", "cumulative_prod")
SCANS = ("cumulative_sum", "cumulative_prod")
NUMPY_SAME = ("max", "min", "argmax", "argmin", "all", "any", "count_nonzero")


def result_dtype(func: str, dtype: str) -> str:
    if func in ("all", "any"):
        return "bool"
    if func in ("argmax", "argmin", "count_nonzero"):
        return "int64"
    if func in ACCUMULATING and dtype in INTEGERS:
        return "int64" if dtype in SIGNED else "uint64"
    if func in ("mean", "var", "std") and dtype in INTEGERS:
        return "float64"
    return dtype


def _numpy_own(func: str, values: np.ndarray, axes: tuple[int, ...], rows: int, **kw: Any) -> Any:
    """NumPy's own result over ``axes`` of ``values`` -- which has the layout
    of dlarray's operand, so the order of its accumulation too -- one row
    per result element (float64/complex128 accuracy is NumPy's own)."""
    axis = axes  # (an empty tuple reduces nothing)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if func in ("cumulative_sum", "cumulative_prod"):
            scan = np.cumsum if func == "cumulative_sum" else np.cumprod
            if values.ndim == 0:
                return scan(values).reshape(1, -1)
            result = scan(values, axis=axes[0])
            return np.moveaxis(result, axes[0], -1).reshape(rows, values.shape[axes[0]])
        if func == "sum":
            result = np.sum(values, axis=axis)
        elif func == "prod":
            result = np.prod(values, axis=axis)
        elif func == "mean":
            result = np.mean(values, axis=axis) if values.size else np.full(rows, np.nan)
        elif func == "var":
            result = np.var(values, axis=axis, ddof=kw["correction"])
        elif func == "std":
            result = np.std(values, axis=axis, ddof=kw["correction"])
        else:
            raise AssertionError(func)
    return np.asarray(result).reshape(-1)


# ---- one row: the values one result element reduces ----


def _sum_bound(dtype: str, exact: float, absolute: float, n: int) -> float:
    u = U[dtype]
    if real_name(dtype) == "float32":
        return u * abs(exact) + K32 * u * absolute
    return 2 * u * abs(exact) + max(n - 1, 0) * u * absolute


def check_sum(values: np.ndarray, got: Any, dtype: str, own: Any) -> list[str]:
    if dtype in COMPLEXES:
        return check_sum(
            values.real, got.real, real_name(dtype), None if own is None else own.real
        ) + [
            "imaginary " + m
            for m in check_sum(
                values.imag, got.imag, real_name(dtype), None if own is None else own.imag
            )
        ]
    exact = exact_sum(values)
    bound = _sum_bound(dtype, exact, abs_sum(values), values.size)
    numpy_own = own if dtype == "float64" else None
    message = check_value(got, exact, bound, dtype, "sum", numpy_own)
    return [message] if message else []


def check_mean(values: np.ndarray, got: Any, dtype: str, own: Any) -> list[str]:
    if dtype in COMPLEXES:
        part = real_name(dtype)
        return check_mean(values.real, got.real, part, None if own is None else own.real) + [
            "imaginary " + m
            for m in check_mean(values.imag, got.imag, part, None if own is None else own.imag)
        ]
    n = values.size
    if n == 0:
        return [] if math.isnan(float(got)) else [f"mean of nothing: got {got!r}, NaN expected"]
    if dtype in INTEGERS:
        exact = float(Fraction(sum(int(v) for v in values.tolist()), n))
        mean_abs = float(Fraction(sum(abs(int(v)) for v in values.tolist()), n))
        bound = 2 * U64 * abs(exact) + (n + 2) * U64 * mean_abs + _tiniest("float64")
        message = check_value(got, exact, bound, "float64", "mean")
        return [message] if message else []
    special = exact_sum(values)
    if math.isnan(special) or (math.isinf(special) and not np.isfinite(values).all()):
        exact = special
    else:
        ints, low = scaled_integers(values)
        exact = float(Fraction(sum(ints), n) * Fraction(2) ** low)
    mean_abs = mean_magnitude(values)
    u = U[dtype]
    if dtype == "float32":
        bound = 2 * u * abs(exact) + 17 * u * mean_abs
    else:
        bound = 2 * u * abs(exact) + max(n - 1, 0) * u * mean_abs
    bound += _tiniest(dtype)
    # (No NumPy-own class for float64: its mean does not overflow on the way.)
    message = check_value(got, exact, bound, dtype, "mean")
    return [message] if message else []


def _tiniest(dtype: str) -> float:
    """The smallest subnormal of ``dtype``: a result below the normal range
    rounds to a multiple of it (half of it, plus the oracle's own rounding
    to float64 first)."""
    return float(np.finfo(real_name(dtype)).smallest_subnormal)


def _variance_bound(dtype: str, values: np.ndarray, v: float, correction: float) -> float:
    n = values.size
    mean_abs = mean_magnitude(values)
    factor = n / (n - correction)
    if dtype == "float32":
        u = U[dtype]
        delta = 19 * u * mean_abs
        return 22 * u * v + factor * delta * delta
    # float64 (and integers, which compute in it): two passes in double
    # precision; the mean's error δ <= (n + 1)·u·mean|x|, each squared
    # deviation and the pairwise sum (n + 4)·u relative.
    u = U64
    delta = (n + 1) * u * mean_abs
    bound = (n + 4) * u * v + factor * delta * delta
    if values.dtype.kind in "iu":  # the conversion of integers beyond 2**53
        biggest = float(np.max(np.abs(values.astype(np.float64))))
        bound += factor * (
            4 * u * biggest * math.sqrt(v / factor) + 4 * (u * biggest) * (u * biggest)
        )
    return bound


def check_var(
    values: np.ndarray, got: Any, dtype: str, own: Any, correction: float, root: bool
) -> list[str]:
    """A variance (or standard deviation) against the exact one.  Non-finite
    results only where the exact one is (or its bound reaches float64's
    largest value): docs/guide/arrays.md promises float64's ``var`` and
    ``std`` no overflow or underflow on the way, unlike NumPy's."""
    name = "std" if root else "var"
    work = "float64" if dtype in INTEGERS else dtype
    variance = exact_variance_fraction(values, correction)
    if variance is None:
        message = check_value(got, math.nan, 0.0, work, name)
        return [message] if message else []
    # The bound is of degree 2 in the values (std's, 1): it is formed from the
    # values scaled by 2**-s, their largest magnitude near 1, so that neither
    # it nor the variance leaves float64's range on the way, then scaled back.
    s = 0
    scaled_values = values
    if values.dtype.kind == "f":
        largest = float(np.max(np.abs(values.astype(np.float64))))
        s = math.frexp(largest)[1] if largest else 0
        scaled_values = np.ldexp(values.astype(np.float64), -s)
    v = to_float(variance / Fraction(2) ** (2 * s))
    bound = _variance_bound(dtype, scaled_values, v, correction)
    if root:
        sigma = exact_root(variance / Fraction(2) ** (2 * s))
        bound = 2 * U[work] * sigma + min(math.sqrt(bound), bound / sigma if sigma else math.inf)
        exact, bound = exact_root(variance), _times_power_of_two(bound, s)
    else:
        exact, bound = to_float(variance), _times_power_of_two(bound, 2 * s)
    message = check_value(got, exact, bound + _tiniest(work), work, name)
    return [message] if message else []


def _times_power_of_two(value: float, exponent: int) -> float:
    try:
        return math.ldexp(value, exponent)
    except OverflowError:
        return math.inf


def _check_product(
    values: np.ndarray, got: float, dtype: str, where: str, numpy_own: Any
) -> str | None:
    """A real product against the product tree: relative ``u + n·2**-53``
    (float32's documented bound; float64's NumPy's own, ``2n·2**-53``),
    plus the tree's own ``log2(n)·2**-53`` and half the smallest subnormal."""
    n = values.size
    got = float(got)
    with np.errstate(all="ignore"):
        nan = np.isnan(values).any()
        infinite = np.isinf(values).any()
        zero = (values == 0).any()
    if nan or (infinite and zero):
        exact = math.nan
    elif infinite:
        negative = int(np.signbit(values[values != 0]).sum()) % 2
        exact = -math.inf if negative else math.inf
    elif zero:
        exact = 0.0
    else:
        exact = None
    if dtype == "float64" and _order_may_give(values, got):
        return None  # NumPy's own product, in some order, leaves float64's range on the way
    if exact is not None:
        if classify_equal(got, exact):
            return None
        if numpy_own is not None and classify_equal(got, float(numpy_own)):
            return None
        return f"{where}: got {got!r}, IEEE gives {exact!r}"
    m, e = product_tree(values)
    tolerance = U[dtype] + n * U64 + (max(n, 2).bit_length() + 1) * U64
    if dtype == "float64":
        tolerance = 2 * U64 + 2 * n * U64
    info = np.finfo(dtype)
    smallest = float(info.smallest_subnormal)
    try:
        magnitude = math.ldexp(abs(m), e)
    except OverflowError:
        magnitude = math.inf
    if math.isnan(got):
        if numpy_own is not None and math.isnan(float(numpy_own)):
            return None
        return f"{where}: got NaN, the exact product is {math.copysign(1, m)}·{abs(m)!r}·2**{e}"
    if math.isinf(got):
        if (got > 0) == (m > 0) and magnitude * (1 + tolerance) >= overflow_threshold(dtype):
            return None
        if numpy_own is not None and classify_equal(got, float(numpy_own)):
            return None
        return f"{where}: got {got!r}, the exact product is finite: {m!r}·2**{e}"
    if got == 0:
        if magnitude * (1 - tolerance) <= smallest / 2 or (
            numpy_own is not None and float(numpy_own) == 0
        ):
            return None
        return f"{where}: got 0, the exact product is {m!r}·2**{e}"
    if magnitude < float(info.smallest_normal):  # subnormal: absolute rounding
        exact_value = math.copysign(magnitude, m)
        if abs(got - exact_value) <= smallest / 2 + tolerance * magnitude:
            return None
        return f"{where}: got {got!r}, exact {exact_value!r}"
    ratio = ratio_minus_one(got, m, e)
    if ratio <= tolerance:
        return None
    if numpy_own is not None and float(numpy_own) == got:
        return None
    return (
        f"{where}: got {got!r}, exact {m!r}·2**{e} (relative error {ratio:.3g} > {tolerance:.3g})"
    )


def _order_may_give(values: np.ndarray, got: float) -> bool:
    """Whether a sequential float64 product of ``values`` in some order (the
    order is NumPy's, unspecified) may give the non-finite or zero ``got``:
    ±inf where the factors beyond 1 multiply past float64's range, 0 where
    those below 1 multiply under it, NaN where both (or one and a zero)."""
    if math.isfinite(got) and got != 0:
        return False
    with np.errstate(all="ignore"):
        finite = values[np.isfinite(values) & (values != 0)].astype(np.float64)
        logs = np.log2(np.abs(finite))
        over = float(logs[logs > 0].sum()) > 1024
        under = float(logs[logs < 0].sum()) < -1074
        zero = bool((values == 0).any())
    if math.isnan(got):
        has_nan = bool(np.isnan(values).any())
        return has_nan or (over and (under or zero))
    if math.isinf(got):
        return over
    return under


def classify_equal(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def check_prod(values: np.ndarray, got: Any, dtype: str, own: Any) -> list[str]:
    if dtype in COMPLEXES:
        return _check_complex_product(values, got, dtype, own if dtype == "complex128" else None)
    message = _check_product(values, got, dtype, "prod", own if dtype == "float64" else None)
    return [message] if message else []


def _check_complex_product(values: np.ndarray, got: complex, dtype: str, own: Any) -> list[str]:
    """A complex product: in long double complex (64-bit mantissas, an
    exponent range no float product leaves), normwise relative error
    ``√2·u + 8n·2**-53``.  A complex product with an infinite or NaN factor
    depends on the order of the factors (C99 Annex G; complex64 keeps
    NumPy's order, see numpy_reductions), but is never finite."""
    got = complex(got)
    got_finite = math.isfinite(got.real) and math.isfinite(got.imag)
    if not np.isfinite(values).all():
        return [f"prod: got the finite {got!r} of a non-finite factor"] if got_finite else []
    with np.errstate(all="ignore"):
        reference = np.multiply.reduce(values.astype(np.clongdouble))
    threshold = overflow_threshold(dtype)
    with np.errstate(all="ignore"):
        magnitude_log2 = float(np.sum(np.log2(np.abs(values.astype(np.complex128)))))
    # |p| beyond the range (the long double reference itself may overflow)
    beyond = magnitude_log2 > math.log2(
        float(np.finfo(real_name(dtype)).max)
    ) - 1 or not np.isfinite(reference)
    if not beyond:
        beyond = max(abs(float(reference.real)), abs(float(reference.imag))) >= threshold
    n = values.size
    tolerance = math.sqrt(2) * U[dtype] + 8 * n * U64
    smallest = float(np.finfo(real_name(dtype)).smallest_subnormal)
    own_finite = own is None or (
        math.isfinite(complex(own).real) and math.isfinite(complex(own).imag)
    )
    if not np.isfinite(reference):  # beyond even long double's range: only non-finite is right
        return (
            []
            if not got_finite
            else [f"prod: got the finite {got!r}, |exact| is 2**{magnitude_log2:.0f}"]
        )
    if not got_finite:
        # complex128's accuracy is NumPy's own: where its product overflows, so may dlarray's.
        return (
            []
            if beyond or (dtype == "complex128" and not own_finite)
            else [f"prod: got {got!r}, the exact product is finite: {complex(reference)!r}"]
        )
    with np.errstate(all="ignore"):
        error = np.abs(np.clongdouble(got) - reference)
        if error <= np.longdouble(tolerance) * np.abs(reference) + 2 * smallest:
            return []
    if dtype == "complex128" and own is not None and _same(got, complex(own)):
        # complex128's product is NumPy's own (docs/guide/arrays.md), in an
        # unspecified order: where its partials may leave float64's range on
        # the way (as for float64, _order_may_give), its result stands.
        if _order_may_leave(np.abs(values.astype(np.complex128))):
            return []
    return [f"prod: got {got!r}, exact {complex(reference)!r}"]


def _same(a: complex, b: complex) -> bool:
    return all(classify_equal(x, y) for x, y in ((a.real, b.real), (a.imag, b.imag)))


def _same_parts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise: equal, or both NaN."""
    return (a == b) | (np.isnan(a) & np.isnan(b))


def _order_may_leave(magnitudes: np.ndarray) -> bool:
    """Whether some order of multiplying ``magnitudes`` takes a partial
    product past float64's largest value or under its smallest subnormal."""
    with np.errstate(all="ignore"):
        logs = np.log2(magnitudes[np.isfinite(magnitudes) & (magnitudes != 0)])
    return float(logs[logs > 0].sum()) > 1024 or float(logs[logs < 0].sum()) < -1074


def _check_complex_prefix_products(
    values: np.ndarray, got: np.ndarray, dtype: str, own: Any
) -> list[str]:
    """Complex running products, as _check_complex_product per prefix but
    vectorised: long double complex running products (relative error
    ``k·2**-63``), bound ``√2·u + 8k·2**-53``, magnitudes by running log2
    sums; a prefix with a non-finite factor must be non-finite."""
    n = values.size
    if n == 0:
        return []
    counts = np.arange(1, n + 1)
    with np.errstate(all="ignore"):
        reference = np.cumprod(values.astype(np.clongdouble))
        log2 = np.cumsum(np.log2(np.abs(values.astype(np.complex128))))
        non_finite_input = np.cumsum(~np.isfinite(values)) > 0
        got_finite = np.isfinite(got.real) & np.isfinite(got.imag)
        limit = math.log2(float(np.finfo(real_name(dtype)).max)) - 1
        beyond = (log2 > limit) | ~np.isfinite(reference)
        if dtype == "complex128" and own is not None:
            own = np.asarray(own)
            beyond |= ~(np.isfinite(own.real) & np.isfinite(own.imag))  # NumPy's own overflow
        tolerance = math.sqrt(2) * U[dtype] + 8 * counts * U64
        smallest = float(np.finfo(real_name(dtype)).smallest_subnormal)
        error = np.abs(got.astype(np.clongdouble) - reference)
        close = (
            got_finite
            & np.isfinite(reference)
            & (error <= tolerance * np.abs(reference) + 2 * smallest)
        )
        ok = np.where(non_finite_input, ~got_finite, close | (beyond & ~got_finite))
        if dtype == "complex128" and own is not None:
            # NumPy's own running product (docs/guide/arrays.md), as for the
            # product: where some order's partials may leave float64's range
            # on the way, its result stands (_order_may_leave, per prefix).
            logs = np.where(np.isfinite(log2), np.diff(log2, prepend=0.0), 0.0)
            may_leave = (np.cumsum(np.where(logs > 0, logs, 0.0)) > 1024) | (
                np.cumsum(np.where(logs < 0, logs, 0.0)) < -1074
            )
            same = _same_parts(got.real, own.real) & _same_parts(got.imag, own.imag)
            ok |= same & may_leave
    wrong = [
        f"cumulative_prod[{k}]: got {complex(got[k])!r}, the exact product is "
        + (
            "not finite"
            if non_finite_input[k]
            else f"{complex(reference[k])!r} (|p| = 2**{log2[k]:.1f})"
        )
        for k in np.flatnonzero(~ok)[:3].tolist()
    ]
    if wrong:
        wrong.append(f"... {int((~ok).sum())} wrong prefixes of {n} in all")
    return wrong


def check_prefixes(
    values: np.ndarray, got: np.ndarray, dtype: str, func: str, own: Any
) -> list[str]:
    if dtype in COMPLEXES:
        part = real_name(dtype)
        if func == "cumulative_sum":
            return check_prefixes(
                values.real, got.real, part, func, None if own is None else own.real
            ) + [
                "imaginary " + m
                for m in check_prefixes(
                    values.imag, got.imag, part, func, None if own is None else own.imag
                )
            ]
        return _check_complex_prefix_products(values, np.asarray(got), dtype, own)
    n = values.size
    if n == 0:
        return []
    numpy_own = np.asarray(own, np.float64) if dtype == "float64" else None
    counts = np.arange(1, n + 1)
    u = U[dtype]
    got64 = got.astype(np.float64)
    with np.errstate(all="ignore"):
        if func == "cumulative_sum":
            exact = exact_prefix_sums(values)
            finite_abs = np.where(np.isfinite(values), np.abs(values.astype(np.float64)), 0.0)
            absolute = np.cumsum(finite_abs) * (1 + 2 * n * U64)
            if dtype == "float32":
                bounds = u * np.abs(exact) + K32 * u * absolute
            else:
                bounds = 2 * u * np.abs(exact) + np.where(
                    counts > 1, (counts - 1) * u * absolute, 0.0
                )
        else:
            exact = exact_prefix_products(values)
            # float32: the documented u + k·2**-53; float64: NumPy's own,
            # 2k·2**-53; plus the oracle's own sequential k·2**-53 and half
            # the smallest subnormal (results below the normal range).
            relative = (u + counts * U64) if dtype == "float32" else (2 * u + 2 * counts * U64)
            bounds = (relative + counts * U64) * np.abs(exact) + float(
                np.finfo(dtype).smallest_subnormal
            )
    bad = wrong_elements(got64, exact, bounds, dtype, numpy_own)
    wrong = []
    for k in np.flatnonzero(bad)[:3].tolist():
        message = check_value(
            got64[k],
            exact[k],
            float(bounds[k]),
            dtype,
            f"{func}[{k}]",
            None if numpy_own is None else float(numpy_own[k]),
        )
        wrong.append(message or f"{func}[{k}]: got {got64[k]!r}, exact {exact[k]!r}")
    if wrong:
        wrong.append(f"... {int(bad.sum())} wrong prefixes of {n} in all")
    return wrong


def wrong_elements(got, exact, bounds, dtype, numpy_own=None) -> np.ndarray:
    """check_value, vectorised: where ``got`` is wrong."""
    with np.errstate(all="ignore"):
        nan_g, nan_e = np.isnan(got), np.isnan(exact)
        inf_g, inf_e = np.isinf(got), np.isinf(exact)
        same_class = (nan_g & nan_e) | ((inf_g | inf_e) & (got == exact))
        finite_e = ~nan_e & ~inf_e
        close = finite_e & ~nan_g & ~inf_g & (np.abs(got - exact) <= bounds)
        threshold = overflow_threshold(dtype)
        rounded_up = (
            finite_e
            & inf_g
            & (np.sign(got) == np.sign(exact))
            & (np.abs(exact) + bounds >= threshold)
        )
        ok = same_class | close | rounded_up
        if numpy_own is not None:
            own_nan = np.isnan(numpy_own)
            ok |= (nan_g & own_nan) | (got == numpy_own)  # NumPy's own result, bit for bit
    return ~ok


def exact_prefix_products(values: np.ndarray) -> np.ndarray:
    """Every prefix product of real ``values`` in float64 (IEEE for zeros
    and non-finite inputs): mantissas multiplied in blocks and
    renormalised by frexp, exponents summed as integers (no overflow or
    underflow before the final ldexp; relative error <= k·2**-53)."""
    n = values.size
    v = values.astype(np.float64)
    with np.errstate(all="ignore"):
        regular = np.isfinite(v) & (v != 0)
        mantissas, exponents = np.frexp(np.where(regular, v, 1.0))
        exponents = exponents.astype(np.int64)
        out_m = np.empty(n)
        out_e = np.empty(n, np.int64)
        carry_m, carry_e = 1.0, 0
        block = 256
        for start in range(0, n, block):
            stop = min(start + block, n)
            m, e = np.frexp(np.cumprod(mantissas[start:stop]) * carry_m)
            out_m[start:stop] = m
            out_e[start:stop] = e + carry_e + np.cumsum(exponents[start:stop])
            carry_m, carry_e = float(m[-1]), int(out_e[stop - 1])
        clipped = np.clip(out_e, -1100, 1100)
        exact = np.ldexp(out_m, clipped)
        negative = np.cumsum(np.signbit(v) & ~np.isnan(v)) % 2 == 1
        nan = np.cumsum(np.isnan(v)) > 0
        infinite = np.cumsum(np.isinf(v)) > 0
        zero = np.cumsum(v == 0) > 0
        exact = np.where(zero, 0.0, exact)
        exact = np.where(infinite, np.inf, exact)
        exact = np.abs(exact) * np.where(negative, -1.0, 1.0)
        exact[nan | (infinite & zero)] = np.nan
    return exact


def _sample_prefixes(n: int) -> list[int]:
    """The prefixes whose products are checked: all of a short scan, and
    around every power of two and the end of a long one."""
    if n <= 64:
        return list(range(n))
    picks = {0, 1, n - 1, n - 2}
    p = 2
    while p < n:
        picks.update((p - 1, p, p + 1))
        p *= 2
    return sorted(k for k in picks if 0 <= k < n)


def check_integer(values: np.ndarray, got: Any, func: str, out_dtype: str) -> list[str]:
    ints = [int(v) for v in values.tolist()]
    if func == "sum":
        expected: Any = wrap(sum(ints), out_dtype)
    elif func == "prod":  # modulo 2**64 as it goes (the exact product has ~n·64 bits)
        running = 1
        for v in ints:
            running = (running * v) & 0xFFFF_FFFF_FFFF_FFFF
        expected = wrap(running, out_dtype)
    elif func == "cumulative_sum":
        expected, running = [], 0
        for v in ints:
            running += v
            expected.append(wrap(running, out_dtype))
    else:
        expected, running = [], 1
        for v in ints:
            running = wrap(running * v, out_dtype)
            expected.append(running)
    got_list = got.tolist() if isinstance(got, np.ndarray) else int(got)
    if got_list == expected:
        return []
    return [
        f"{func}: got {str(got_list)[:200]}, exact (wrapped to {out_dtype}) {str(expected)[:200]}"
    ]


def check_like_numpy(func: str, values: np.ndarray, got: Any) -> list[str]:
    with np.errstate(all="ignore"):
        expected = {
            "max": np.max,
            "min": np.min,
            "argmax": np.argmax,
            "argmin": np.argmin,
            "all": np.all,
            "any": np.any,
            "count_nonzero": np.count_nonzero,
        }[func](values)
    expected = np.asarray(expected)
    got = np.asarray(got)
    if equal_ieee(got.astype(expected.dtype), expected).all():
        return []
    return [f"{func}: got {got!r}, NumPy gives {expected!r}"]


# ---- a whole reduction ----

#: The reductions whose call with the array alone the C fast path computes
#: (dlarray/_engine/host_fast_path.py's CASES), while a call with keywords
#: reaches the chapter's function: the two must agree to the bit.
FAST_WHEN_ALONE = frozenset({"sum", "prod", "max", "min", "argmax", "argmin", "all", "any"})


def reduce_with(
    func: str,
    a: Any,
    axis: Any,
    keepdims: bool,
    correction: float,
    include_initial: bool,
    dtype: Any = None,
) -> Any:
    f = getattr(xp, func)
    if dtype is not None:
        if func in ("cumulative_sum", "cumulative_prod"):
            return f(a, axis=axis, include_initial=include_initial, dtype=dtype)
        return f(a, axis=axis, keepdims=keepdims, dtype=dtype)
    if func in ("var", "std"):
        return f(a, axis=axis, keepdims=keepdims, correction=correction)
    if func in ("cumulative_sum", "cumulative_prod"):
        return f(a, axis=axis, include_initial=include_initial)
    if func in ("argmax", "argmin"):
        return f(a, axis=axis, keepdims=keepdims)
    return f(a, axis=axis, keepdims=keepdims)


def check_reduction(
    func: str,
    dtype: str,
    a: Any,
    values: np.ndarray,
    axis: Any,
    keepdims: bool = False,
    correction: float = 0.0,
    include_initial: bool = False,
    dtype_argument: Any = None,
) -> list[str]:
    """dlarray's ``func`` of ``a`` (whose values and layout ``values`` has)
    over ``axis`` against the oracle, row by row; the list of what is wrong."""
    result = reduce_with(func, a, axis, keepdims, correction, include_initial, dtype_argument)
    got = np.asarray(result)
    out_dtype = result_dtype(func, dtype) if dtype_argument is None else dtype
    problems = []
    if axis is None and not keepdims and dtype_argument is None and func in FAST_WHEN_ALONE:
        alone = getattr(xp, func)(a)
        if alone.dtype != result.dtype or np.asarray(alone).tobytes() != got.tobytes():
            problems.append(f"{func}(x) gives {alone!r}, {func}(x, axis=None) gives {result!r}")
    if str(result.dtype) != f"dlarray.{out_dtype}" and result.dtype.name != out_dtype:
        problems.append(f"{func}: result dtype {result.dtype}, expected {out_dtype}")
    ndim = values.ndim
    scan = func in ("cumulative_sum", "cumulative_prod")
    if scan:
        axes = ((0 if axis is None else axis) % ndim,) if ndim else ()
    else:
        axes = reduced_axes(axis, ndim)
    kept = [d for d in range(ndim) if d not in axes]
    moved = np.moveaxis(values, axes, range(len(kept), ndim)) if ndim else values
    outer = tuple(values.shape[d] for d in kept)
    count = math.prod(values.shape[d] for d in axes)
    rows = (
        np.ascontiguousarray(moved).reshape(math.prod(outer), count)
        if ndim
        else values.reshape(1, 1)
    )
    if scan:
        expected_shape = list(values.shape)
        if ndim:
            expected_shape[axes[0]] += include_initial
        length = values.shape[axes[0]] + include_initial if ndim else got.size
        got_rows = (
            np.moveaxis(got, axes, range(len(kept), ndim)).reshape(math.prod(outer), length)
            if ndim
            else got.reshape(1, -1)
        )
        if include_initial:
            initial = got_rows[:, 0]
            if not (initial == (0 if func == "cumulative_sum" else 1)).all():
                problems.append(f"{func}: include_initial's first elements {initial[:4]}")
            got_rows = got_rows[:, 1:]
    else:
        expected_shape = (
            [1 if d in axes else values.shape[d] for d in range(ndim)] if keepdims else list(outer)
        )
        got_rows = got.reshape(-1)
    if list(got.shape) != expected_shape:
        return [*problems, f"{func}: result shape {got.shape}, expected {tuple(expected_shape)}"]
    own_rows = None
    if dtype in ("float64", "complex128") and func in ("sum", "prod", *SCANS):
        if not (dtype in INTEGERS and func in ACCUMULATING):
            own_rows = _numpy_own(func, values, axes, rows.shape[0], correction=correction)
    for r in range(rows.shape[0]):
        row = rows[r]
        g = got_rows[r]
        if func in NUMPY_SAME:
            wrong = check_like_numpy(func, row, g)
        elif dtype in INTEGERS and func in ACCUMULATING:
            wrong = check_integer(row, g, func, out_dtype)
        elif func in ("var", "std"):
            own = None if own_rows is None else own_rows[r]
            wrong = check_var(row, g, dtype, own, correction, func == "std")
        else:
            own = None if own_rows is None else own_rows[r]
            if func == "sum":
                wrong = check_sum(row, g, dtype, own)
            elif func == "mean":
                wrong = check_mean(row, g, dtype, own)
            elif func == "prod":
                wrong = check_prod(row, g, dtype, own)
            else:
                wrong = check_prefixes(row, np.asarray(g), dtype, func, own)
        if wrong:
            where = f" (row {r} of {rows.shape[0]})" if rows.shape[0] > 1 else ""
            problems += [w + where for w in wrong]
            if len(problems) > 6:
                break
    if problems:
        problems.append(f"input: {describe(values)}; axis={axis}, keepdims={keepdims}")
    return problems


__all__ = ["FLOATS", "check_reduction", "describe", "equal_ieee", "result_dtype"]
