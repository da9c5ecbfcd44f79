"""The extended floating formats' table and decoder (dlarray._float_formats).

Two independent checks: every code of every format against ml_dtypes (when
installed), and, without it, facts from the formats' definitions (largest
finite value, smallest subnormal, how many codes are NaN or infinite).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dlarray
from dlarray._dtypes import DTYPES_BY_NAME
from dlarray._float_formats import CONVENTIONS, FORMATS, decode, decode_all, format_of

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
