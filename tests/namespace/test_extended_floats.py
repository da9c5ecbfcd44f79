"""The extended floating formats: their table and decoder
(dlarray._float_formats), and what the namespace does with them.

The table has two independent checks: every code of every format against
ml_dtypes (when installed), and, without it, facts from the formats'
definitions (largest finite value, smallest subnormal, how many codes are NaN
or infinite).  The namespace's rule for float16, bfloat16 and the
fp8/fp6/fp4 formats (dlarray._rules: moved, compared and converted, no
arithmetic, no mixing) is checked operation by operation against NumPy with
ml_dtypes, bit for bit, and so is what it refuses, and how.
"""

from __future__ import annotations

import copy
import importlib.util
import math

import numpy as np
import pytest

import dlarray
from dlarray import subbyte
from dlarray._dtypes import DTYPES_BY_NAME
from dlarray._engine.numpy_engine import from_numpy
from dlarray._float_formats import CONVENTIONS, FORMATS, decode, decode_all, format_of
from dlarray._rules import EXTENDED_FLOATS, EXTENDED_FUNCTIONS, STANDARD_DTYPES
from dlarray.subbyte import _storage_codes

EXTENDED = [d for d in DTYPES_BY_NAME.values() if d.kind == "extended floating"]
IDS = [d.name for d in EXTENDED]


def all_values(dtype) -> list[float]:
    return decode_all(range(1 << dtype.bits), dtype)


def same_float(a: float, b: float) -> bool:
    """Equal as values, NaN equal to NaN, and -0.0 told from 0.0."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


# ---- the table ----


def test_the_table_has_a_row_for_every_extended_dtype_and_no_other():
    assert list(FORMATS) == EXTENDED
    assert {d.name for d in EXTENDED} >= {"bfloat16", "float8_e4m3fn", "float4_e2m1fn"}


@pytest.mark.parametrize("dtype", EXTENDED, ids=IDS)
def test_each_row_accounts_for_every_bit_of_the_dtype(dtype):
    row = FORMATS[dtype]
    assert row.dtype is dtype
    assert row.bits == dtype.bits
    assert row.convention in CONVENTIONS.values()


def test_format_of_takes_names_and_refuses_other_dtypes():
    assert format_of("bfloat16") is FORMATS[dlarray.bfloat16]
    with pytest.raises(TypeError, match="not an extended floating dtype"):
        format_of(dlarray.float32)


# ---- against ml_dtypes, every code ----


@pytest.mark.parametrize("dtype", EXTENDED, ids=IDS)
def test_every_code_decodes_as_ml_dtypes_reads_it(dtype):
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is the reference decoder")
    # Sub-byte codes sit in the low bits of one byte, as ml_dtypes stores them.
    storage = np.uint16 if dtype.bits == 16 else np.uint8
    codes = np.arange(1 << dtype.bits, dtype=storage)  # all 65536 for bfloat16
    with np.errstate(invalid="ignore"):
        expected = codes.view(getattr(ml_dtypes, dtype.name)).astype(np.float64).tolist()
    got = decode_all(codes.tolist(), dtype)
    rows = zip(codes.tolist(), got, expected, strict=True)
    wrong = [(hex(c), g, e) for c, g, e in rows if not same_float(g, e)]
    assert wrong == []


# ---- from the definitions, without ml_dtypes ----

# name -> (largest finite value, smallest positive value), from the format
# specifications (OCP FP8 and MX, IEEE 754 for bfloat16, ml_dtypes' notes
# for the fnuz and e3m4 formats).
EXTREMES = {
    "bfloat16": ((2 - 2**-7) * 2.0**127, 2.0**-133),
    "float8_e3m4": (15.5, 2.0**-6),
    "float8_e4m3": (240.0, 2.0**-9),
    "float8_e4m3b11fnuz": (30.0, 2.0**-13),
    "float8_e4m3fn": (448.0, 2.0**-9),
    "float8_e4m3fnuz": (240.0, 2.0**-10),
    "float8_e5m2": (57344.0, 2.0**-16),
    "float8_e5m2fnuz": (57344.0, 2.0**-17),
    "float8_e8m0fnu": (2.0**127, 2.0**-127),
    "float6_e2m3fn": (7.5, 0.125),
    "float6_e3m2fn": (28.0, 0.0625),
    "float4_e2m1fn": (6.0, 0.5),
}

# convention -> (NaN codes, infinite codes, has -0.0) for a format with m
# mantissa bits.
SPECIALS = {
    "ieee": (lambda m: 2 * (2**m - 1), 2, True),
    "fn": (lambda m: 2, 0, True),
    "fnuz": (lambda m: 1, 0, False),
    "fnu": (lambda m: 1, 0, False),
    "finite": (lambda m: 0, 0, True),
}


def test_the_extremes_cover_every_format():
    assert set(EXTREMES) == {d.name for d in EXTENDED}


@pytest.mark.parametrize("dtype", EXTENDED, ids=IDS)
def test_largest_and_smallest_values_match_the_definition(dtype):
    values = [v for v in all_values(dtype) if math.isfinite(v)]
    largest, smallest = EXTREMES[dtype.name]
    assert max(values) == largest
    assert min(v for v in values if v > 0) == smallest
    if FORMATS[dtype].convention.signed:
        assert min(values) == -largest
    else:
        assert min(values) == smallest  # no sign, no zero


def convention_by_name(dtype) -> str:
    """The convention a format's name announces (read independently of the
    table): "fnuz", "fnu", "fn" (finite-only fp6/fp4 have no NaN at all),
    and IEEE for names without a suffix (bfloat16 has no layout part)."""
    if "_" not in dtype.name:
        return "ieee"
    suffix = dtype.name.rsplit("_", 1)[-1].lstrip("e0123456789mb")
    if suffix == "fn" and dtype.bits < 8:
        return "finite"
    return suffix or "ieee"


@pytest.mark.parametrize("dtype", EXTENDED, ids=IDS)
def test_the_convention_is_the_one_the_name_announces(dtype):
    assert FORMATS[dtype].convention.name == convention_by_name(dtype)


@pytest.mark.parametrize("dtype", EXTENDED, ids=IDS)
def test_nans_infinities_and_negative_zero_follow_the_convention(dtype):
    row = FORMATS[dtype]
    nans, infinities, negative_zero = SPECIALS[convention_by_name(dtype)]
    values = all_values(dtype)
    assert sum(math.isnan(v) for v in values) == nans(row.mantissa_bits)
    assert sum(math.isinf(v) for v in values) == infinities
    assert any(v == 0 and math.copysign(1, v) < 0 for v in values) == negative_zero


@pytest.mark.parametrize("dtype", EXTENDED, ids=IDS)
def test_finite_values_are_distinct_and_ordered_by_code(dtype):
    # Sign-magnitude: the non-negative codes count up in value, and each
    # negative code mirrors its positive twin (where both are numbers).
    values = all_values(dtype)
    signed = FORMATS[dtype].convention.signed
    half = len(values) // 2 if signed else len(values)
    positive = [v for v in values[:half] if math.isfinite(v)]
    assert positive == sorted(set(positive))
    if signed:
        for plus, minus in zip(values[:half], values[half:], strict=True):
            if math.isfinite(plus) and math.isfinite(minus) and plus != 0:
                assert minus == -plus


def test_known_codes():
    assert decode(0x3F80, dlarray.bfloat16) == 1.0
    assert decode(0xC000, "bfloat16") == -2.0
    assert math.isinf(decode(0x7F80, dlarray.bfloat16))
    assert math.isnan(decode(0x7FC0, dlarray.bfloat16))
    assert decode(0x38, dlarray.float8_e4m3fn) == 1.0
    assert math.isnan(decode(0xFF, dlarray.float8_e4m3fn))
    assert decode(0x7F, dlarray.float8_e8m0fnu) == 1.0  # 2**(127 - 127)
    assert math.isnan(decode(0xFF, dlarray.float8_e8m0fnu))
    assert decode(0b1_01_100, dlarray.float6_e2m3fn) == -1.5  # -(1 + 4/8) * 2**(1 - 1)
    assert same_float(decode(0b1000, dlarray.float4_e2m1fn), -0.0)


def test_decode_all_keeps_the_order_of_its_codes():
    assert decode_all([2, 1, 15], dlarray.float4_e2m1fn) == [1.0, 0.5, -6.0]
    assert decode_all((), dlarray.bfloat16) == []


@pytest.mark.parametrize("code", [-1, 16, 1 << 20])
def test_a_code_outside_the_format_is_refused(code):
    with pytest.raises(ValueError, match=r"codes lie in \[0, 16\)"):
        decode(code, dlarray.float4_e2m1fn)
    with pytest.raises(ValueError, match=r"codes lie in \[0, 16\)"):
        decode_all([0, code], dlarray.float4_e2m1fn)


@pytest.mark.parametrize("dtype", [dlarray.float32, dlarray.uint8, dlarray.bool])
def test_decode_refuses_dtypes_that_are_not_extended(dtype):
    with pytest.raises(TypeError):
        decode(0, dtype)


# ==== the extended floats in the namespace (issue 28, row F6) ====
#
# float16, bfloat16 and the fp8/fp6/fp4 formats: dlarray moves, compares and
# converts them (dlarray._rules.EXTENDED_FUNCTIONS and the data-movement
# functions), with NumPy-with-ml_dtypes' results bit for bit, and refuses
# arithmetic and mixing with one message (dlarray._rules.extended_refusal).

FLOATS = [d for d in dlarray.dtypes() if d in EXTENDED_FLOATS]  # table order
FLOAT_IDS = [d.name for d in FLOATS]
# Every extended float, and the sub-byte ones packed as well as padded.
VARIANTS = [pytest.param(d, False, id=d.name) for d in FLOATS] + [
    pytest.param(d, True, id=f"{d.name}-packed") for d in FLOATS if d.is_subbyte
]
# The dtypes of the reproduction.  NumPy holds all but float16
# through ml_dtypes only.
_NEEDS_ML_DTYPES = pytest.mark.skipif(
    importlib.util.find_spec("ml_dtypes") is None, reason="NumPy holds this dtype with ml_dtypes"
)
REPRODUCED = [
    pytest.param(
        getattr(dlarray, name), id=name, marks=() if name == "float16" else _NEEDS_ML_DTYPES
    )
    for name in ("bfloat16", "float8_e4m3fn", "float16", "float4_e2m1fn", "float6_e2m3fn")
]


def test_the_extended_floats_are_float16_and_the_extended_floating_kind():
    assert set(EXTENDED_FLOATS) == set(EXTENDED) | {dlarray.float16}
    assert not set(EXTENDED_FLOATS) & set(STANDARD_DTYPES)


def reference_dtype(dtype):
    """NumPy's dtype for ``dtype``: its own float16, ml_dtypes' for the rest."""
    if dtype is dlarray.float16:
        return np.dtype(np.float16)
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is the reference")
    return np.dtype(getattr(ml_dtypes, dtype.name))


def sample_codes(dtype) -> np.ndarray:
    """Every code of an 8-bit or narrower format; for the 16-bit ones the
    special codes (zeros, infinities, NaNs, extremes, ones) and a fixed
    random draw.  An even count, for reshape((2, -1))."""
    if dtype.bits <= 8:
        return np.arange(1 << dtype.bits, dtype=np.uint8)
    # bfloat16's and float16's zeros, infinities, NaNs (one with a payload),
    # ones, largest finite values and smallest subnormal and normal numbers.
    special = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7C00, 0xFC00]
    special += [0x7E00, 0x3F80, 0x3C00, 0x0001, 0x7F7F, 0xFBFF, 0x7BFF, 0x0400]
    drawn = np.random.default_rng(28).integers(0, 1 << 16, 48, dtype=np.uint16)
    return np.concatenate([np.array(special, dtype=np.uint16), drawn])


def array_of(dtype, codes, packed=False):
    """A dlarray array of ``dtype`` holding ``codes`` (sub-byte: packed or padded)."""
    if dtype.is_subbyte:
        return subbyte.from_codes(codes, dtype, padded=not packed)
    return from_numpy(np.asarray(codes).view(reference_dtype(dtype)).copy())


def raw(value):
    """A result as comparable raw data: (dtype name, shape, the elements'
    bits); the codes for the extended floats, so NaN payloads and -0.0 count."""
    if isinstance(value, list | tuple):
        return [raw(v) for v in value]
    if isinstance(value, dlarray.DLArray):
        if value.dtype.is_subbyte:
            bits = np.from_dlpack(subbyte.to_codes(value))
        else:
            bits = np.from_dlpack(_storage_codes(value))
            if bits.dtype.kind == "f":
                bits = bits.view(f"u{bits.dtype.itemsize}")
        return value.dtype.name, value.shape, bits.tolist()
    a = np.asarray(value)
    name = a.dtype.name
    if a.dtype.kind == "f" or name in {d.name for d in FLOATS}:
        a = a.view(f"u{a.dtype.itemsize}")  # ml_dtypes: a sub-byte code per byte
    return name, a.shape, a.tolist()


def _assigned(key, value):
    """``x[key] = value(x, y)`` on a copy of x, in either library."""

    def run(xp, x, y):
        z = copy.copy(x) if xp is dlarray else x.copy()
        z[key(xp, z)] = value(xp, z, y)
        return z

    return run


def _every_third(xp, z):
    return (xp.arange(z.shape[0]) % 3) == 0


# name -> (dlarray's call, NumPy's call), each on (x, y) of one dtype; xp is
# the library.  Results must agree bit for bit.
OPERATIONS = {
    "x[1] = y[[3]][0] (0-d array)": (
        _assigned(lambda xp, z: 1, lambda xp, z, y: y[xp.asarray([3])][0]),
        None,
    ),
    "x[:] = y": (_assigned(lambda xp, z: slice(None), lambda xp, z, y: y), None),
    "x[2:6] = y[:4]": (_assigned(lambda xp, z: slice(2, 6), lambda xp, z, y: y[:4]), None),
    "x[mask] = y[mask]": (
        _assigned(_every_third, lambda xp, z, y: y[_every_third(xp, y)]),
        None,
    ),
    "x[[0, 5, 2]] = y[:3]": (
        _assigned(lambda xp, z: xp.asarray([0, 5, 2]), lambda xp, z, y: y[:3]),
        None,
    ),
    "x[0] = 1.5": (_assigned(lambda xp, z: 0, lambda xp, z, y: 1.5), None),
    "x[1] = -1e9 (rounds as astype)": (_assigned(lambda xp, z: 1, lambda xp, z, y: -1e9), None),
    "x[[4, 0, 4]]": (lambda xp, x, y: x[xp.asarray([4, 0, 4])], None),
    "x[mask]": (lambda xp, x, y: x[_every_third(xp, x)], None),
    "copy.copy": (lambda xp, x, y: copy.copy(x), None),
    "asarray(copy=True)": (
        lambda xp, x, y: xp.asarray(x, copy=True),
        lambda xp, x, y: x.copy(),
    ),
    "astype(same dtype)": (lambda xp, x, y: xp.astype(x, x.dtype), lambda xp, x, y: x.copy()),
    "==": (lambda xp, x, y: x == y, None),
    "!=": (lambda xp, x, y: x != y, None),
    "<": (lambda xp, x, y: x < y, None),
    "<=": (lambda xp, x, y: x <= y, None),
    ">": (lambda xp, x, y: x > y, None),
    ">=": (lambda xp, x, y: x >= y, None),
    "x == x": (lambda xp, x, y: x == x, None),
    "isnan": (lambda xp, x, y: xp.isnan(x), None),
    "isinf": (lambda xp, x, y: xp.isinf(x), None),
    "isfinite": (lambda xp, x, y: xp.isfinite(x), None),
    "signbit": (lambda xp, x, y: xp.signbit(x), None),
    "where": (lambda xp, x, y: xp.where(_every_third(xp, x), x, y), None),
    "nonzero": (lambda xp, x, y: list(xp.nonzero(x)), None),
    "count_nonzero": (
        lambda xp, x, y: xp.count_nonzero(x),
        lambda xp, x, y: np.asarray(np.count_nonzero(x), dtype=np.int64),
    ),
    "argmax": (lambda xp, x, y: xp.argmax(x), lambda xp, x, y: np.asarray(np.argmax(x))),
    "argmin": (lambda xp, x, y: xp.argmin(x), lambda xp, x, y: np.asarray(np.argmin(x))),
    "argmax(axis=1)": (lambda xp, x, y: xp.argmax(xp.reshape(x, (4, -1)), axis=1), None),
    "concat": (lambda xp, x, y: xp.concat([x, y]), lambda xp, x, y: np.concatenate([x, y])),
    "concat, odd lengths": (
        lambda xp, x, y: xp.concat([x[:3], y[:5]]),
        lambda xp, x, y: np.concatenate([x[:3], y[:5]]),
    ),
    "stack": (lambda xp, x, y: xp.stack([x, y], axis=1), None),
    "reshape": (lambda xp, x, y: xp.reshape(x, (2, -1)), None),
    "expand_dims": (lambda xp, x, y: xp.expand_dims(x, axis=0), None),
    "roll": (lambda xp, x, y: xp.roll(x, 3), None),
    "repeat": (lambda xp, x, y: xp.repeat(x, 2), None),
    "tile": (lambda xp, x, y: xp.tile(x, (2,)), None),
    "unstack": (lambda xp, x, y: list(xp.unstack(xp.reshape(x, (2, -1)))), None),
    "astype(float32)": (lambda xp, x, y: xp.astype(x, xp.float32), None),
    "astype(float64)": (lambda xp, x, y: xp.astype(x, xp.float64), None),
    "astype(float16)": (lambda xp, x, y: xp.astype(x, xp.float16), None),
    "astype(bool)": (lambda xp, x, y: xp.astype(x, xp.bool), None),
    "astype(int32) of the finite ones": (
        lambda xp, x, y: xp.astype(x[xp.isfinite(x)], xp.int32),
        None,
    ),
    "float64 * 1.37 -> astype": (
        lambda xp, x, y: xp.astype(xp.astype(x, xp.float64) * 1.37, x.dtype),
        lambda xp, x, y: (x.astype(np.float64) * 1.37).astype(x.dtype),
    ),
    "float32 * 1.37 -> astype": (
        lambda xp, x, y: xp.astype(xp.astype(x, xp.float32) * 1.37, x.dtype),
        lambda xp, x, y: (x.astype(np.float32) * np.float32(1.37)).astype(x.dtype),
    ),
}


class _NumPyNamespace:
    """NumPy under the standard's names, for the table's shared calls."""

    bool, int32, float16, float32, float64 = np.bool_, np.int32, np.float16, np.float32, np.float64
    arange, asarray, reshape, where = np.arange, np.asarray, np.reshape, np.where
    isnan, isinf, isfinite, signbit = np.isnan, np.isinf, np.isfinite, np.signbit
    roll, repeat, tile, expand_dims = np.roll, np.repeat, np.tile, np.expand_dims
    nonzero, argmax, argmin = np.nonzero, np.argmax, np.argmin

    @staticmethod
    def astype(x, dtype):
        return x.astype(dtype)

    @staticmethod
    def stack(arrays, axis=0):
        return np.stack(arrays, axis=axis)

    @staticmethod
    def unstack(x):
        return list(x)


@pytest.mark.parametrize("name", list(OPERATIONS))
@pytest.mark.parametrize(("dtype", "packed"), VARIANTS)
def test_extended_floats_compute_as_numpy_with_ml_dtypes_bit_for_bit(dtype, packed, name):
    ours, theirs = OPERATIONS[name]
    codes = sample_codes(dtype)
    other = np.random.default_rng(6).permutation(codes)
    a, b = (c.view(reference_dtype(dtype)) for c in (codes, other))
    with np.errstate(all="ignore"):  # NaN to int32, out-of-range floats: values, not warnings
        want = raw((theirs or ours)(_NumPyNamespace, a.copy(), b.copy()))
    got = raw(ours(dlarray, array_of(dtype, codes, packed), array_of(dtype, other, packed)))
    assert got == want


# ---- the reproduction (issue 28): each failed before, with a wrong message ----


@pytest.mark.parametrize("dtype", REPRODUCED)
def test_a_0d_array_of_the_same_dtype_is_assigned(dtype):
    x = dlarray.asarray([1.0, 2.0, 3.0], dtype=dtype)
    x[1] = dlarray.asarray(4.0, dtype=x.dtype)
    assert float(x[1]) == 4.0
    assert [float(v) for v in dlarray.unstack(x)] == [1.0, 4.0, 3.0]


@pytest.mark.parametrize("dtype", REPRODUCED)
def test_a_reversed_view_of_the_same_array_is_assigned(dtype):
    x = dlarray.asarray([1.0, 2.0, 3.0], dtype=dtype)
    x[:] = x[::-1]
    # NumPy's result for the same overlapping assignment.
    a = np.asarray([1.0, 2.0, 3.0], dtype=reference_dtype(dtype))
    a[:] = a[::-1]
    assert raw(x) == raw(a)


@pytest.mark.parametrize("dtype", REPRODUCED)
def test_an_array_equals_itself(dtype):
    x = dlarray.asarray([1.0, 2.0, 3.0], dtype=dtype)
    same = x == x
    assert same.dtype is dlarray.bool
    assert raw(same) == ("bool", (3,), [True, True, True])
    assert raw(x != x) == ("bool", (3,), [False, False, False])


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_promotion_of_a_dtype_with_itself_is_that_dtype(dtype):
    assert dlarray.result_type(dtype, dtype) is dtype
    assert dlarray.result_type(dtype) is dtype
    assert dlarray.can_cast(dtype, dtype)


# ---- what is refused: one message, naming what works ----

ARITHMETIC = {
    "x + y": lambda x, y: x + y,
    "x * y": lambda x, y: x * y,
    "-x": lambda x, y: -x,
    "abs": lambda x, y: dlarray.abs(x),
    "sqrt": lambda x, y: dlarray.sqrt(x),
    "maximum": lambda x, y: dlarray.maximum(x, y),
    "sum": lambda x, y: dlarray.sum(x),
    "x += y": lambda x, y: x.__iadd__(y),
}
MIXED = {
    "x == float32": lambda x, y: x == dlarray.astype(y, dlarray.float32),
    "x < float64": lambda x, y: x < dlarray.astype(y, dlarray.float64),
    "where with float32": lambda x, y: dlarray.where(x == y, x, dlarray.astype(y, dlarray.float32)),
    "concat with float32": lambda x, y: dlarray.concat([x, dlarray.astype(y, dlarray.float32)]),
    "x[:] = float32": lambda x, y: x.__setitem__(slice(None), dlarray.astype(y, dlarray.float32)),
    "float32[:] = x": lambda x, y: dlarray.astype(y, dlarray.float32).__setitem__(slice(None), x),
    "result_type with float32": lambda x, y: dlarray.result_type(x.dtype, dlarray.float32),
}


def _refusal_names_what_works(message: str, dtype) -> None:
    assert dtype.name in message
    assert "outside the Array API" in message
    assert "What works: indexing and assignment of the same dtype" in message
    assert "==, !=, <, <=, >, >=" in message
    assert "dlarray.astype(x, dlarray.float32)" in message
    assert "only for all dtypes" not in message  # the old, self-contradicting message


@pytest.mark.parametrize("name", list(ARITHMETIC) + list(MIXED))
@pytest.mark.parametrize("dtype", REPRODUCED)
def test_arithmetic_and_mixing_are_refused_with_one_message(dtype, name):
    call = ARITHMETIC.get(name) or MIXED[name]
    x = dlarray.asarray([1.0, 2.0], dtype=dtype)
    y = dlarray.asarray([2.0, 1.0], dtype=dtype)
    with pytest.raises(TypeError) as info:
        call(x, y)
    _refusal_names_what_works(str(info.value), dtype)
    if name in MIXED:
        assert "no promotion between" in str(info.value)


@pytest.mark.parametrize("scalar", [1.0, 1, 1e9])
@pytest.mark.parametrize("dtype", REPRODUCED)
def test_a_python_scalar_is_stored_but_not_compared(dtype, scalar):
    # Stored: rounded to the format as astype rounds (NumPy's assignment).
    x = dlarray.asarray([0.0, 0.0], dtype=dtype)
    x[0] = scalar
    with np.errstate(all="ignore"):
        want = np.asarray([scalar, 0.0], dtype=np.float64).astype(reference_dtype(dtype))
    assert raw(x) == raw(want)
    # Compared: NumPy would compare in float64, the standard's rule in the
    # format, where 1e9 is NaN (float8_e4m3fn) or 6.0 (float4_e2m1fn).
    with pytest.raises(TypeError, match=r"Use an array: dlarray\.asarray"):
        x == scalar  # noqa: B015
    with pytest.raises(TypeError, match="Use an array"):
        dlarray.less(scalar, x)


def test_the_table_exercises_every_function_the_rule_lets_extended_floats_into():
    # Each name of dlarray._rules.EXTENDED_FUNCTIONS has a row above (the
    # operators stand for the comparison functions), so a function added to
    # the rule is checked against NumPy with ml_dtypes.
    operators = {"equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<="}
    operators |= {"greater": ">", "greater_equal": ">="}
    for name in EXTENDED_FUNCTIONS:
        assert operators.get(name, name) in OPERATIONS, name


# ---- the standard's dtypes keep the standard's rules ----


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (dlarray.float32, dlarray.int32),
        (dlarray.int64, dlarray.uint64),
        (dlarray.bool, dlarray.int8),
    ],
)
def test_mixed_kinds_of_standard_dtypes_are_still_refused_as_before(a, b):
    with pytest.raises(TypeError, match="the Array API defines no promotion"):
        dlarray.result_type(a, b)


# ---- packed fp6/fp4: reads are padded, writes keep the neighbours' bits ----


@pytest.mark.parametrize(
    ("dtype", "n", "part"),
    [
        (dlarray.float4_e2m1fn, 7, slice(0, 3)),  # 12 bits: ends inside a byte
        (dlarray.float4_e2m1fn, 8, slice(4, 7)),
        (dlarray.float6_e2m3fn, 9, slice(0, 5)),  # 30 bits
        (dlarray.float6_e3m2fn, 9, slice(4, 7)),  # starts at bit 24, ends at bit 42
        (dlarray.float4_e2m1fn, 7, slice(None)),
    ],
)
@_NEEDS_ML_DTYPES
def test_writes_into_a_packed_view_leave_its_neighbours_alone(dtype, n, part):
    codes = (np.arange(n) % (1 << dtype.bits)).astype(np.uint8)
    x = subbyte.from_codes(codes, dtype)
    view = x[part]
    view[1] = dlarray.asarray(1.0, dtype=dtype)
    view[dlarray.asarray([0])] = 0.5
    want = codes.view(reference_dtype(dtype)).copy()
    want[part][1] = 1.0
    want[part][0] = 0.5
    assert not subbyte.is_padded(x)
    assert raw(x) == raw(want)


@pytest.mark.parametrize("dtype", [d for d in FLOATS if d.is_subbyte], ids=lambda d: d.name)
def test_views_a_packed_array_cannot_make_are_refused_naming_subbyte(dtype):
    x = subbyte.from_codes([1, 2, 3, 4, 5], dtype)
    for make in (lambda: x[::-1], lambda: x[1], lambda: dlarray.flip(x)):
        with pytest.raises(ValueError, match=r"dlarray\.subbyte"):
            make()


# ---- astype: rounding and out-of-range values, as ml_dtypes ----

EDGES = [
    0.0, -0.0, 1.0, -1.0, 1e-30, -1e-30, 1e9, -1e9, float("inf"), float("-inf"), float("nan"),
    # Ties and near-ties between neighbours of every format in the table.
    0.75, 1.25, 1.0625, 1.03125, 2.5, 3.5, 5.0, 7.0, 240.0, 248.0, 449.0, 464.0, 480.0,
    57344.0, 61440.0, 65504.0, 65520.0, 3.0e38, 3.4e38, 2.0**-10, 3 * 2.0**-11, 2.0**-150,
]


@pytest.mark.parametrize("source", [dlarray.float32, dlarray.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_astype_from_a_standard_float_rounds_and_saturates_as_ml_dtypes(dtype, source):
    values = np.asarray(EDGES, dtype=np.float64).astype(source.name)  # float32: 3.4e38 rounds
    with np.errstate(all="ignore"):
        want = values.astype(reference_dtype(dtype))
    got = dlarray.astype(dlarray.asarray(values.tolist(), dtype=source), dtype)
    assert raw(got) == raw(want)
    assert raw(dlarray.astype(got, source)) == raw(want.astype(source.name))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_finfo_gives_ml_dtypes_limits(dtype):
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes.finfo is the reference")
    want = ml_dtypes.finfo(reference_dtype(dtype))
    got = dlarray.finfo(dtype)
    assert got.dtype is dtype
    assert got.bits == want.bits == dtype.bits
    for field in ("eps", "max", "min", "smallest_normal"):
        assert getattr(got, field) == float(getattr(want, field)), field
    assert dlarray.finfo(dlarray.asarray([1.0], dtype=dtype)) == got


@pytest.mark.parametrize("dtype", REPRODUCED)
def test_an_extended_float_is_no_condition_of_where(dtype):
    x = dlarray.asarray([1.0, 0.0], dtype=dtype)
    with pytest.raises(TypeError, match="where is defined only for bool dtypes"):
        dlarray.where(x, x, x)


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"])
def test_asarray_of_an_ml_dtypes_ndarray_views_its_memory(name):
    # NumPy's DLPack export refuses ml_dtypes' dtypes, and asarray passed on
    # its BufferError ("DLPack only supports signed/unsigned integers...").
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes makes the NumPy arrays")
    a = np.linspace(-3, 3, 8, dtype=np.float32).astype(getattr(ml_dtypes, name))
    x = dlarray.asarray(a)
    assert x.dtype == getattr(dlarray, name) and x.shape == a.shape
    assert dlarray.abi.data_pointer(x) == a.ctypes.data  # zero-copy
    back = np.asarray(dlarray.astype(x, dlarray.float32))
    assert back.astype(a.dtype).view(np.uint8).tobytes() == a.view(np.uint8).tobytes()
    copied = dlarray.asarray(a, copy=True)
    assert dlarray.abi.data_pointer(copied) != a.ctypes.data
