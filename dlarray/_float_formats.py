"""The extended floating formats, bit by bit: one table, and decoding.

bfloat16 and the fp8/fp6/fp4 formats are not NumPy dtypes; NumPy holds them
only through the optional ``ml_dtypes`` package.  This table says how each of
dlarray's extended dtypes lays out its bits (sign, exponent, mantissa), its
exponent bias, and which codes are infinities and NaNs, so that a storage
code can be turned into its value without ``ml_dtypes`` (printing does, see
:mod:`dlarray._api.printing`).  tests/namespace/test_extended_floats.py checks every code
of every format against ``ml_dtypes``.

The special-value conventions, named as in the formats' names:

``"ieee"``
    IEEE 754: an all-ones exponent is an infinity (zero mantissa) or a NaN;
    both zeros exist.  bfloat16, float8_e3m4, float8_e4m3, float8_e5m2.
``"fn"``
    Finite: no infinities; the one NaN magnitude is all ones (exponent and
    mantissa), of either sign.  float8_e4m3fn.
``"fnuz"``
    Finite, unsigned zero: no infinities and no -0; the negative-zero code
    (the sign bit alone) is the one NaN.  float8_e4m3fnuz, float8_e5m2fnuz,
    float8_e4m3b11fnuz.
``"fnu"``
    Finite, unsigned: no sign bit, no zero, no subnormals; every code is a
    power of two, ``2**(code - bias)``, except all ones, the NaN.
    float8_e8m0fnu (the OCP MX scale format).
``"finite"``
    Every code is a finite number: no infinities, no NaN.  The OCP MX
    element formats float6_e2m3fn, float6_e3m2fn, float4_e2m1fn (their
    "fn" means only "finite").
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Final

from dlarray._dtypes import DTYPES_BY_NAME, DType, as_dtype


@dataclasses.dataclass(frozen=True)
class Convention:
    """How a format spends its codes on signs, zeros, infinities and NaNs."""

    name: str
    #: A sign bit above the exponent.
    signed: bool
    #: Exponent 0 holds the subnormals and zero (else it is a normal exponent).
    subnormals: bool
    #: An all-ones exponent with a zero mantissa is an infinity.
    infinities: bool
    #: Which codes are NaN: "all-ones exponent" (with a nonzero mantissa),
    #: "all-ones magnitude", "negative zero", or "none".
    nan: str


CONVENTIONS: Final[dict[str, Convention]] = {
    c.name: c
    for c in (
        Convention("ieee", signed=True, subnormals=True, infinities=True, nan="all-ones exponent"),
        Convention("fn", signed=True, subnormals=True, infinities=False, nan="all-ones magnitude"),
        Convention("fnuz", signed=True, subnormals=True, infinities=False, nan="negative zero"),
        Convention(
            "fnu", signed=False, subnormals=False, infinities=False, nan="all-ones magnitude"
        ),
        Convention("finite", signed=True, subnormals=True, infinities=False, nan="none"),
    )
}


@dataclasses.dataclass(frozen=True)
class FloatFormat:
    """One row of the table: the bit layout of an extended floating dtype.

    A normal code means ``(-1)**sign * 2**(exponent - bias) * (1 + mantissa
    / 2**mantissa_bits)``; a subnormal one (exponent 0, where the convention
    has them) ``(-1)**sign * 2**(1 - bias) * mantissa / 2**mantissa_bits``.
    """

    dtype: DType
    exponent_bits: int
    mantissa_bits: int
    bias: int
    convention: Convention

    @property
    def bits(self) -> int:
        """The width of a code: sign (if any), exponent and mantissa."""
        return int(self.convention.signed) + self.exponent_bits + self.mantissa_bits


# name -> (exponent bits, mantissa bits, bias, convention): the formats'
# definitions (OCP 8-bit FP and MX specifications, and ml_dtypes for the
# "fnuz" and e3m4 formats).
_LAYOUTS: Final[dict[str, tuple[int, int, int, str]]] = {
    "bfloat16": (8, 7, 127, "ieee"),
    "float8_e3m4": (3, 4, 3, "ieee"),
    "float8_e4m3": (4, 3, 7, "ieee"),
    "float8_e4m3b11fnuz": (4, 3, 11, "fnuz"),
    "float8_e4m3fn": (4, 3, 7, "fn"),
    "float8_e4m3fnuz": (4, 3, 8, "fnuz"),
    "float8_e5m2": (5, 2, 15, "ieee"),
    "float8_e5m2fnuz": (5, 2, 16, "fnuz"),
    "float8_e8m0fnu": (8, 0, 127, "fnu"),
    "float6_e2m3fn": (2, 3, 1, "finite"),
    "float6_e3m2fn": (3, 2, 3, "finite"),
    "float4_e2m1fn": (2, 1, 1, "finite"),
}


def _build_table() -> dict[DType, FloatFormat]:
    # The dtypes come from the dtype table; a new extended dtype there
    # without a layout here fails at import rather than printing wrong values.
    table: dict[DType, FloatFormat] = {}
    for dtype in DTYPES_BY_NAME.values():
        if dtype.kind != "extended floating":
            continue
        if dtype.name not in _LAYOUTS:
            raise ImportError(f"dlarray._float_formats has no bit layout for {dtype.name}")
        exponent_bits, mantissa_bits, bias, convention = _LAYOUTS[dtype.name]
        row = FloatFormat(dtype, exponent_bits, mantissa_bits, bias, CONVENTIONS[convention])
        if row.bits != dtype.bits:
            raise ImportError(
                f"{dtype.name}: the layout has {row.bits} bits, the dtype {dtype.bits}"
            )
        table[dtype] = row
    return table


#: The extended floating dtypes (kind "extended floating"), each with its row.
FORMATS: Final[dict[DType, FloatFormat]] = _build_table()


def format_of(dtype: object) -> FloatFormat:
    """The table's row for an extended floating dtype (a :class:`DType` or
    its name); ``TypeError`` for any other dtype.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._float_formats import format_of
    >>> f = format_of(dlarray.float8_e4m3fn)
    >>> f.exponent_bits, f.mantissa_bits, f.bias, f.convention.name
    (4, 3, 7, 'fn')
    """
    dtype = as_dtype(dtype)
    try:
        return FORMATS[dtype]
    except KeyError:
        raise TypeError(
            f"{dtype.name} is not an extended floating dtype; those are "
            f"{', '.join(d.name for d in FORMATS)}"
        ) from None


def _value(f: FloatFormat, code: int) -> float:
    mantissa = code & ((1 << f.mantissa_bits) - 1)
    exponent = (code >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1)
    magnitude_bits = f.exponent_bits + f.mantissa_bits
    negative = f.convention.signed and bool(code >> magnitude_bits)
    all_ones_exponent = exponent == (1 << f.exponent_bits) - 1
    nan = f.convention.nan
    if (
        (nan == "all-ones exponent" and all_ones_exponent and mantissa)
        or (
            nan == "all-ones magnitude"
            and code & ((1 << magnitude_bits) - 1) == (1 << magnitude_bits) - 1
        )
        or (nan == "negative zero" and negative and exponent == 0 and mantissa == 0)
    ):
        return math.nan
    if f.convention.infinities and all_ones_exponent:
        magnitude = math.inf
    elif exponent == 0 and f.convention.subnormals:
        magnitude = math.ldexp(mantissa, 1 - f.bias - f.mantissa_bits)
    else:
        significand = (1 << f.mantissa_bits) | mantissa
        magnitude = math.ldexp(significand, exponent - f.bias - f.mantissa_bits)
    return -magnitude if negative else magnitude


def decode(code: int, dtype: object) -> float:
    """The value of one storage code of an extended floating dtype.

    Every value of these formats is exact as a Python float, so nothing is
    rounded.

    Parameters
    ----------
    code : int
        The element's bit pattern, ``0 <= code < 2**dtype.bits`` (a
        sub-byte code is its low bits).
    dtype : DType or str
        bfloat16 or an fp8/fp6/fp4 dtype.

    Returns
    -------
    float
        Including ``-0.0``, ``inf`` and ``nan`` where the format has them.

    Raises
    ------
    TypeError
        ``dtype`` is not an extended floating dtype.
    ValueError
        ``code`` does not fit in the format's bits.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._float_formats import decode
    >>> decode(0x3F80, dlarray.bfloat16), decode(0xFF80, dlarray.bfloat16)
    (1.0, -inf)
    >>> decode(0x7F, dlarray.float8_e4m3fn), decode(0x7E, dlarray.float8_e4m3fn)
    (nan, 448.0)
    >>> decode(0x80, dlarray.float8_e5m2fnuz)    # no -0: the NaN
    nan
    >>> [decode(c, dlarray.float4_e2m1fn) for c in (1, 2, 7, 15)]
    [0.5, 1.0, 6.0, -6.0]
    """
    f = format_of(dtype)
    if not 0 <= code < 1 << f.bits:
        raise ValueError(f"{f.dtype.name} codes lie in [0, {1 << f.bits}), got {code}")
    return _value(f, code)


def decode_all(codes: Iterable[int], dtype: object) -> list[float]:
    """:func:`decode` of each code, in order.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._float_formats import decode_all
    >>> decode_all([0x00, 0x38, 0xB8, 0x7C, 0x7F], dlarray.float8_e5m2)
    [0.0, 0.5, -0.5, inf, nan]
    """
    f = format_of(dtype)
    limit = 1 << f.bits
    values = []
    for code in codes:
        if not 0 <= code < limit:
            raise ValueError(f"{f.dtype.name} codes lie in [0, {limit}), got {code}")
        values.append(_value(f, code))
    return values
