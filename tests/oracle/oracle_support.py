"""The differential oracle's machinery: threshold discovery, adversarial
inputs, layouts, exact (or higher-precision) reference results and the
documented error bounds.  Nothing here calls dlarray's arithmetic: the
references are Python integers (every finite float is an integer times a
power of two), ``math.fsum``, ``fractions.Fraction``, a frexp-renormalised
product tree, and NumPy for IEEE semantics.  See README.md in this folder.
"""

from __future__ import annotations

import decimal
import functools
import importlib
import itertools
import math
import os
import pkgutil
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings

import dlarray as xp

# ---- how long the layer runs (README.md: "Running it longer") ----

_ENV = "DLARRAY_ORACLE_EXAMPLES"
EXAMPLES = int(os.environ.get(_ENV, "0") or 0)
DEFAULT_EXAMPLES = 12
#: DLARRAY_ORACLE_EXPLORE=1 draws new examples on every run (nox -s oracle --
#: --explore); otherwise every run, CI's included, draws the same ones, so a
#: failure is reproducible and CI cannot fail by chance.
EXPLORE = os.environ.get("DLARRAY_ORACLE_EXPLORE") == "1"
SETTINGS = settings(
    max_examples=EXAMPLES or DEFAULT_EXAMPLES,
    derandomize=not EXPLORE,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)

# ---- thresholds, read from the implementation's own constants ----

#: The packages whose modules' size-like constants the layer discovers.
_PACKAGES = ("dlarray._engine", "dlarray._api")
#: Constants beyond this many elements are not sizes the layer can afford.
_MOST = 1 << 21


def discover_thresholds() -> dict[str, int]:
    """Every module-level UPPER_CASE int constant > 1 (``_`` prefixes allowed)
    of every importable module of dlarray._engine and dlarray._api, as
    ``{"module.NAME": value}``."""
    found: dict[str, int] = {}
    for package_name in _PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            try:
                module = importlib.import_module(f"{package_name}.{info.name}")
            except Exception:  # an optional engine whose library is missing
                continue
            for name, value in vars(module).items():
                bare = name.lstrip("_")
                if (
                    bare.isupper()
                    and type(value) is int
                    and 1 < value <= _MOST
                    and all(c.isupper() or c.isdigit() or c == "_" for c in bare)
                ):
                    found[f"{info.name}.{name}"] = value
    return found


THRESHOLDS = discover_thresholds()
CONSTANTS = sorted(set(THRESHOLDS.values()))
#: The largest threshold (the blocked paths start there); multiples of the
#: smaller constants are added to it.
LARGE = max(CONSTANTS) if CONSTANTS else 1 << 16


def threshold_sizes() -> list[int]:
    """Sizes on both sides of every threshold, and where the code reshapes by
    a block size ``b`` above the largest threshold ``L``: ``L + b·k + r``."""
    sizes = {0, 1, 2, 3, 5, 17}
    for t in CONSTANTS:
        sizes.update((t - 1, t, t + 1, 2 * t - 1, 2 * t + 1))
        for b in CONSTANTS:
            if b < t:
                sizes.update((t + b - 1, t + b, t + b + 1, t * 2 + b // 2 + 1))
    return sorted(s for s in sizes if 0 <= s <= 4 * LARGE)


SIZES = threshold_sizes()
SMALL_SIZES = [s for s in SIZES if s <= 2048]


def distances(n: int) -> list[int]:
    """Offsets between extreme values that land them in the same block,
    column or row of every reshape the code may make of ``n`` elements:
    ``n // t`` and ``t`` for every constant ``t`` first (hypothesis favours
    the first), then 1, 2 and ``t ± 1``."""
    found: list[int] = []
    for d in (
        [n // t for t in CONSTANTS]
        + list(CONSTANTS)
        + [1, 2]
        + [t + e for t in CONSTANTS for e in (-1, 1)]
        + [t // 2 for t in CONSTANTS]
    ):
        if 0 < d < max(n, 1) and d not in found:
            found.append(d)
    return found or [1]


def anchors(n: int) -> list[int]:
    """Positions where a threshold's block starts or ends."""
    if n == 0:
        return [0]
    found = {0, 1, n - 1, n - 2, n // 2}
    for t in CONSTANTS:
        for p in (t - 1, t, t + 1, n - n % t if t else 0, (n // t) if t else 0):
            found.add(p)
    return sorted(p for p in found if 0 <= p < n)


# ---- dtypes ----

FLOATS = ("float32", "float64")
COMPLEXES = ("complex64", "complex128")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGERS = SIGNED + UNSIGNED
REAL = INTEGERS + FLOATS
NUMERIC = REAL + COMPLEXES
ALL = ("bool", *NUMERIC)
#: dlarray's extended floating formats (ml_dtypes' types in NumPy).
EXTENDED = tuple(
    name
    for name in (
        "float16",
        "bfloat16",
        "float8_e4m3fn",
        "float8_e5m2",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "float8_e3m4",
        "float8_e4m3",
        "float8_e4m3b11fnuz",
        "float8_e8m0fnu",
    )
    if hasattr(xp, name)
)

U = {"float32": 2.0**-24, "float64": 2.0**-53, "complex64": 2.0**-24, "complex128": 2.0**-53}
PART = {"complex64": "float32", "complex128": "float64"}


def real_name(dtype: str) -> str:
    return PART.get(dtype, dtype)


def overflow_threshold(dtype: str) -> float:
    """The smallest magnitude that rounds to infinity in ``dtype`` (max +
    half an ulp, as a float64); for float64 itself, whose threshold is no
    float64, its largest value stands for it (an exact result within its
    bound of the largest value may round to infinity)."""
    name = real_name(dtype)
    if name == "float64":
        return float(np.finfo(np.float64).max)
    info = np.finfo(name)
    return float(info.max) + 2.0 ** (int(info.maxexp) - int(info.nmant) - 2)


def specials(dtype: str) -> list[Any]:
    """The extreme values of ``dtype``."""
    if dtype == "bool":
        return [True, False]
    if dtype in INTEGERS:
        info = np.iinfo(dtype)
        picks = {int(info.min), int(info.min) + 1, -1, 0, 1, 2, int(info.max) // 2, int(info.max)}
        return sorted(v for v in picks if info.min <= v <= info.max)
    name = real_name(dtype)
    info = np.finfo(name)
    big, tiny, sub = float(info.max), float(info.smallest_normal), float(info.smallest_subnormal)
    reals = [
        big,
        -big,
        big / 2,
        -big * 0.75,
        tiny,
        -tiny,
        sub,
        -sub,
        3 * sub,
        math.inf,
        -math.inf,
        math.nan,
        0.0,
        -0.0,
        1.0,
        -1.0,
        float(info.eps),
        1 / big,
        math.sqrt(big),
        -math.sqrt(big),
    ]
    if dtype in COMPLEXES:
        picks = [big, -big, tiny, math.inf, -math.inf, math.nan, 0.0, 1.0, -1.0, sub]
        return [complex(a, b) for a in picks for b in (0.0, 1.0, -big, math.inf, math.nan)]
    return reals


FILLS = ("zeros", "ones", "normal", "alternating", "cancelling", "wide", "small ints", "increasing")


def fill(kind: str, n: int, dtype: str, seed: int) -> np.ndarray:
    """``n`` values of ``dtype`` of one kind (before the extremes go in)."""
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    if kind == "zeros":
        values = np.zeros(n)
    elif kind == "ones":
        values = np.ones(n)
    elif kind == "normal":
        values = rng.standard_normal(n)
    elif kind == "alternating":
        values = (-1.0) ** i * (1e6 + (i % 13)) + (i % 3) * 1e-3
    elif kind == "cancelling":  # x, -x pairs of wide magnitudes: the exact sum is small
        half = rng.standard_normal((n + 1) // 2) * 10.0 ** rng.uniform(-20, 20, (n + 1) // 2)
        values = np.stack([half, -half], 1).ravel()[:n] + (i % 7 == 0) * 1e-3
    elif kind == "wide":
        values = rng.standard_normal(n) * 10.0 ** rng.uniform(-40, 40, n)
    elif kind == "increasing":
        values = np.sort(np.abs(rng.standard_normal(n)) * 10.0 ** rng.uniform(-6, 6, n))
    else:  # small ints
        values = rng.integers(-3, 4, n).astype(np.float64)
    if dtype == "bool":
        return values != 0
    if dtype in INTEGERS:
        info = np.iinfo(dtype)
        clipped = np.clip(np.nan_to_num(np.round(values)), int(info.min), int(info.max) // 2)
        return clipped.astype(dtype)
    with np.errstate(all="ignore"):
        if dtype in COMPLEXES:
            return (values + 1j * np.roll(values, 1)).astype(dtype)
        return values.astype(dtype)


#: Factors a whole input is scaled by, per real dtype: 1, towards its largest
#: values (squares, powers, sums and deviations beyond the range) and its
#: smallest (squares and powers below the range, subnormal inputs).
SCALES = {
    "float32": (1.0, 2.0**70, 2.0**120, 1e38, 2.0**-70, 2.0**-130, 2.0**-145),
    "float64": (1.0, 2.0**520, 2.0**1000, 1e307, 2.0**-520, 2.0**-1030, 2.0**-1070),
}


def scaled(values: np.ndarray, factor: float) -> np.ndarray:
    """``values`` times ``factor``, rounded once to their dtype (±inf beyond
    it); ``values`` themselves where ``factor`` is 1."""
    if factor == 1 or values.dtype.kind not in "fc":
        return values
    wide = np.complex128 if values.dtype.kind == "c" else np.float64
    with np.errstate(all="ignore"):
        return (values.astype(wide) * factor).astype(values.dtype)


def place(values: np.ndarray, placements: list[tuple[int, Any]]) -> np.ndarray:
    with np.errstate(all="ignore"):
        for position, value in placements:
            if values.size:
                values[position % values.size] = value
    return values


# ---- layouts ----

LAYOUTS = ("contiguous", "strided", "reversed", "2-d C", "2-d F", "2-d axis 0", "2-d axis 1")


def laid_out(values: np.ndarray, layout: str) -> tuple[Any, np.ndarray, Any]:
    """``(dlarray array, NumPy array with the same values and layout, axis)``
    for a 1-d ``values`` laid out as ``layout``; ``axis`` reduces it all."""
    n = values.size
    if layout == "strided":
        buffer = np.zeros(2 * n, values.dtype)
        buffer[::2] = values
        base = xp.asarray(buffer)
        return base[::2], buffer[::2], None
    if layout == "reversed":
        backwards = values[::-1].copy()
        return xp.asarray(backwards)[::-1], backwards[::-1], None
    if layout in ("2-d axis 0", "2-d axis 1") and n > 1:
        # a few long results: (n // k, k) down its columns, or (k, n // k) along its rows
        k = next((d for d in (2, 3, 5, 7) if n % d == 0), 1)
        if layout == "2-d axis 0":
            grid = values.reshape(-1, k)
            return xp.asarray(grid), grid, 0
        grid = values.reshape(k, -1)
        return xp.asarray(grid), grid, 1
    if layout in ("2-d C", "2-d F") and n > 1:
        k = next((d for d in (16, 8, 4, 2, 3, 5, 7) if n % d == 0), 1)
        if layout == "2-d C":
            grid = values.reshape(-1, k)
            return xp.asarray(grid), grid, (0, 1)
        grid = np.asfortranarray(values.reshape(k, -1, order="F"))
        return xp.from_dlpack(grid), grid, (-1, 0)
    return xp.asarray(values), values, None


def to_numpy(a: Any) -> np.ndarray:
    return np.asarray(a)


# ---- exact arithmetic ----


def scaled_integers(values: np.ndarray) -> tuple[list[int], int]:
    """Finite float ``values`` as integers ``k`` and one ``low`` with
    ``value = k * 2**low`` exactly."""
    if values.size == 0:
        return [], 0
    as64 = values.astype(np.float64)
    mantissas, exponents = np.frexp(as64)
    ints = np.ldexp(mantissas, 53).astype(np.int64).tolist()
    shifts = (exponents.astype(np.int64) - 53).tolist()
    low = min(shifts)
    return [m << (s - low) for m, s in zip(ints, shifts, strict=True)], low


def as_fraction(total: int, low: int) -> Fraction:
    return Fraction(total) * (Fraction(2) ** low)


def to_float(value: Fraction | int) -> float:
    """``value`` rounded once to float64 (±inf beyond its range)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


class Special:
    """IEEE classification of a reduction with non-finite inputs."""

    @staticmethod
    def of_sum(values: np.ndarray) -> float | None:
        """nan / ±inf when the sum of ``values`` (real) is not finite by its
        inputs alone; None when every input is finite."""
        if np.isnan(values).any():
            return math.nan
        pos, neg = bool(np.isposinf(values).any()), bool(np.isneginf(values).any())
        if pos and neg:
            return math.nan
        if pos:
            return math.inf
        if neg:
            return -math.inf
        return None


def exact_sum(values: np.ndarray) -> float:
    """The exact sum of real ``values`` rounded once to float64 (IEEE for
    non-finite inputs)."""
    special = Special.of_sum(values)
    if special is not None:
        return special
    try:
        return math.fsum(values.astype(np.float64).tolist())
    except OverflowError:  # float64 inputs beyond float64's range in sum
        ints, low = scaled_integers(values)
        return to_float(as_fraction(sum(ints), low))


def abs_sum(values: np.ndarray) -> float:
    finite = np.abs(values[np.isfinite(values)].astype(np.float64))
    try:
        return math.fsum(finite.tolist())
    except OverflowError:
        return math.inf


def mean_magnitude(values: np.ndarray) -> float:
    """The mean magnitude of the finite ``values`` among ``values``, at least
    the exact one (a relative ``2**-52`` added for the divisions' rounding),
    without leaving float64's range on the way: each magnitude divided by
    twice their number first, their sum (at most half the largest float64)
    doubled, at most the largest float64."""
    n = values.size
    if n == 0:
        return 0.0
    finite = np.abs(values[np.isfinite(values)].astype(np.float64))
    half = math.fsum((finite / (2 * n)).tolist())
    return min(2 * half * (1 + 2.0**-52), float(np.finfo(np.float64).max))


def exact_prefix_sums(values: np.ndarray) -> np.ndarray:
    """Every prefix sum of real ``values``, exact, rounded once to float64."""
    n = values.size
    out = np.empty(n)
    if n == 0:
        return out
    finite = np.isfinite(values)
    ints, low = scaled_integers(np.where(finite, values, 0))
    scale_down = 1 << -low if low < 0 else None
    for k, total in enumerate(itertools.accumulate(ints)):
        try:
            out[k] = total / scale_down if scale_down else float(total << low)
        except OverflowError:
            out[k] = math.inf if total > 0 else -math.inf
    nan = np.cumsum(np.isnan(values)) > 0
    pos, neg = np.cumsum(np.isposinf(values)) > 0, np.cumsum(np.isneginf(values)) > 0
    out[pos] = math.inf
    out[neg] = -math.inf
    out[nan | (pos & neg)] = math.nan
    return out


def exact_variance_fraction(values: np.ndarray, correction: float) -> Fraction | None:
    """The exact variance of the finite real ``values`` (``n - correction``
    divisor); None where it is NaN (no elements, ``n - correction <= 0``,
    infinities or NaN)."""
    n = values.size
    if n == 0 or n - correction <= 0 or not np.isfinite(values).all():
        return None
    ints, low = scaled_integers(values)
    total = sum(ints)
    squares = sum(k * k for k in ints)
    numerator = Fraction(n * squares - total * total, n) * Fraction(2) ** (2 * low)
    return numerator / (n - Fraction(correction))


def exact_variance(values: np.ndarray, correction: float) -> float:
    """The exact variance of real ``values`` (``n - correction`` divisor),
    rounded once to float64 (±inf beyond its range)."""
    variance = exact_variance_fraction(values, correction)
    return math.nan if variance is None else to_float(variance)


def exact_root(value: Fraction) -> float:
    """The square root of the non-negative ``value``, rounded to float64
    (from 60 significant digits: within a relative 10**-59 of correct
    rounding), at any magnitude a Fraction holds."""
    with decimal.localcontext(prec=60, Emax=10**7, Emin=-(10**7)):
        root = (decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)).sqrt()
        return float(root)


def product_tree(values: np.ndarray) -> tuple[float, int]:
    """The product of finite nonzero real ``values`` as ``(m, e)``,
    ``m * 2**e``, ``0.5 <= |m| < 1``: a pairwise tree of float64 mantissas
    renormalised by frexp at each level (relative error below
    ``ceil(log2 n) * 2**-53``; no overflow or underflow)."""
    mantissas, exponents = np.frexp(values.astype(np.float64))
    exponent = int(exponents.astype(np.int64).sum())
    while mantissas.size > 1:
        if mantissas.size % 2:
            mantissas = np.append(mantissas, 1.0)
        mantissas, more = np.frexp(mantissas[0::2] * mantissas[1::2])
        exponent += int(more.astype(np.int64).sum())
    if mantissas.size == 0:
        return 0.5, 1
    return float(mantissas[0]), exponent


def ratio_minus_one(result: float, m: float, e: int) -> float:
    """``|result / (m * 2**e) - 1|`` without leaving float64's range."""
    rm, re = math.frexp(result)
    if (rm < 0) != (m < 0):
        return math.inf
    try:
        return abs(math.ldexp(rm / m, re - e) - 1.0)
    except OverflowError:
        return math.inf


def exact_integer(values: np.ndarray) -> list[int]:
    return [int(v) for v in values.tolist()]


@functools.cache
def _span(dtype: str) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return 1 << info.bits, int(info.max)


def wrap(value: int, dtype: str) -> int:
    """``value`` wrapped into integer ``dtype`` (two's complement)."""
    span, largest = _span(dtype)
    value %= span
    return value - span if value > largest else value


# ---- comparison ----


def describe(values: np.ndarray, limit: int = 12) -> str:
    """A short description of an input: size, dtype, its non-fill entries."""
    if values.size <= limit:
        return f"{values.dtype}{list(values.tolist())!r}"
    flat = values.ravel()
    with np.errstate(all="ignore"):
        common = np.bincount(np.unique(flat, return_inverse=True)[1]).argmax()
        mode = np.unique(flat)[common]
        odd = np.flatnonzero(~((flat == mode) | (np.isnan(flat) & np.isnan(mode))))
    if odd.size <= limit:
        shown = {int(i): flat[i].item() for i in odd}
        return f"{flat.dtype} size {flat.size}, all {mode.item()!r} except {shown}"
    return f"{flat.dtype} size {flat.size}, first {flat[:limit].tolist()}"


def classify(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return "finite"


def check_value(
    got: float, exact: float, bound: float, dtype: str, where: str, numpy_own: float | None = None
) -> str | None:
    """Why ``got`` (dlarray's, in ``dtype``'s part type) is wrong against
    the ``exact`` result (rounded to float64) within ``bound``; None if
    right.  ``numpy_own``: NumPy's own result in float64 and complex128,
    whose non-finite classification dlarray may share (their documented
    accuracy is NumPy's own)."""
    got = float(got)
    if math.isnan(exact) or math.isinf(exact):
        if classify(got) == classify(exact):
            return None
        if numpy_own is not None and classify(got) == classify(float(numpy_own)):
            return None
        return f"{where}: got {got!r}, the exact result is {exact!r}"
    if math.isnan(got):
        if numpy_own is not None and math.isnan(numpy_own):
            return None
        return f"{where}: got NaN, the exact result is finite: {exact!r}"
    if math.isinf(got):
        threshold = overflow_threshold(dtype)
        if (got > 0) == (exact > 0) and abs(exact) + bound >= threshold:
            return None
        if numpy_own is not None and classify(got) == classify(float(numpy_own)):
            return None
        return f"{where}: got {got!r}, the exact result is finite: {exact!r} (bound {bound:.3g})"
    error = abs(Fraction(got) - Fraction(exact))
    if error <= Fraction(bound) if math.isfinite(bound) else True:
        return None
    return f"{where}: got {got!r}, exact {exact!r}: error {float(error):.4g} > bound {bound:.4g}"


def equal_ieee(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise: same value, or both NaN (complex: part by part)."""
    if a.dtype.kind == "c":
        return equal_ieee(a.real, b.real) & equal_ieee(a.imag, b.imag)
    if a.dtype.kind == "f":
        return (a == b) | (np.isnan(a) & np.isnan(b))
    return a == b


def reduced_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The axes a reduction's ``axis`` argument names, non-negative and sorted
    (None: all of them)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        return (axis % ndim,)
    return tuple(sorted(a % ndim for a in axis))
