"""The Array API's rules, tested from the standard's text (revision 2025.12).

Every expected value here is written from the specification
(``API_specification/type_promotion.rst``, ``data_types.rst`` and the
function stubs), never from dlarray's own tables in ``dlarray._rules``: the
promotion table below is the standard's, transcribed cell by cell, so that a
wrong entry in dlarray's lattice shows up as a disagreement.

Where the standard leaves a case undefined (mixed kinds, ``int64`` with
``uint64``, a Python ``float`` with an integer array...), dlarray's
documented choice is to raise ``TypeError``; those tests say so.
"""

from __future__ import annotations

import itertools
import operator
import struct
import warnings

import abi
import numpy as np
import pytest

import dlarray as xp
from dlarray import _rules

# ---- the standard's dtypes, kinds and promotion table ----

NAMES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
CODES = ("b", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8", "c8", "c16")
NAME_OF = dict(zip(CODES, NAMES, strict=True))

# The standard's four promotion tables (signed, unsigned, mixed integer,
# floating-point) merged into one; "--" marks a pair the standard leaves
# undefined: bool with any number, integers with floats, and any signed
# integer with uint64.
_TABLE = """
       b    i1   i2   i4   i8   u1   u2   u4   u8   f4   f8   c8   c16
b      b    --   --   --   --   --   --   --   --   --   --   --   --
i1     --   i1   i2   i4   i8   i2   i4   i8   --   --   --   --   --
i2     --   i2   i2   i4   i8   i2   i4   i8   --   --   --   --   --
i4     --   i4   i4   i4   i8   i4   i4   i8   --   --   --   --   --
i8     --   i8   i8   i8   i8   i8   i8   i8   --   --   --   --   --
u1     --   i2   i2   i4   i8   u1   u2   u4   u8   --   --   --   --
u2     --   i4   i4   i4   i8   u2   u2   u4   u8   --   --   --   --
u4     --   i8   i8   i8   i8   u4   u4   u4   u8   --   --   --   --
u8     --   --   --   --   --   u8   u8   u8   u8   --   --   --   --
f4     --   --   --   --   --   --   --   --   --   f4   f8   c8   c16
f8     --   --   --   --   --   --   --   --   --   f8   f8   c16  c16
c8     --   --   --   --   --   --   --   --   --   c8   c16  c8   c16
c16    --   --   --   --   --   --   --   --   --   c16  c16  c16  c16
"""


def _parse_table(text: str) -> dict[tuple[str, str], str | None]:
    header, *rows = text.strip().splitlines()
    columns = header.split()
    table: dict[tuple[str, str], str | None] = {}
    for row in rows:
        code, *cells = row.split()
        for column, cell in zip(columns, cells, strict=True):
            table[NAME_OF[code], NAME_OF[column]] = None if cell == "--" else NAME_OF[cell]
    return table


PROMOTION = _parse_table(_TABLE)
PAIRS = list(itertools.product(NAMES, NAMES))

# The standard's categories (data_types.rst, "Data Type Categories").
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGER = SIGNED + UNSIGNED
REAL_FLOATING = ("float32", "float64")
COMPLEX_FLOATING = ("complex64", "complex128")
FLOATING = REAL_FLOATING + COMPLEX_FLOATING
REAL_VALUED = INTEGER + REAL_FLOATING
NUMERIC = REAL_VALUED + COMPLEX_FLOATING
CATEGORY = {
    "bool": ("bool",),
    "integer": INTEGER,
    "integer or boolean": ("bool", *INTEGER),
    "real floating": REAL_FLOATING,
    "complex floating": COMPLEX_FLOATING,
    "floating-point": FLOATING,
    "real-valued": REAL_VALUED,
    "numeric": NUMERIC,
    "all": NAMES,
}
# The real dtype of a complex dtype's components (same precision).
COMPONENT = {"complex64": "float32", "complex128": "float64"}


def dt(name: str) -> xp.DType:
    return getattr(xp, name)


def ones(name: str, shape: tuple[int, ...] = (2,)) -> xp.DLArray:
    return xp.ones(shape, dtype=dt(name))


def test_the_namespace_has_the_thirteen_dtypes():
    for name in NAMES:
        assert isinstance(dt(name), xp.DType)
        assert dt(name).name == name
    assert len({id(dt(n)) for n in NAMES}) == len(NAMES)


# ---- promotion between two arrays or dtypes ----


@pytest.mark.parametrize("a", NAMES)
def test_result_type_of_every_dtype_pair(a):
    for b in NAMES:
        expected = PROMOTION[a, b]
        if expected is None:
            with pytest.raises(TypeError):
                xp.result_type(dt(a), dt(b))
            with pytest.raises(TypeError):
                xp.result_type(ones(a), ones(b))
        else:
            assert xp.result_type(dt(a), dt(b)) is dt(expected), b
            assert xp.result_type(ones(a), dt(b)) is dt(expected), b
            assert xp.result_type(ones(a), ones(b)) is dt(expected), b


@pytest.mark.parametrize("a", NAMES)
def test_binary_operators_promote_per_the_table(a):
    for b in NAMES:
        x1, x2 = ones(a), ones(b)
        expected = PROMOTION[a, b]
        if expected is None:
            with pytest.raises(TypeError):
                x1 + x2
            with pytest.raises(TypeError):
                operator.eq(x1, x2)
            continue
        if expected == "bool":
            assert (x1 & x2).dtype is xp.bool
        else:
            assert (x1 + x2).dtype is dt(expected), b
            assert xp.multiply(x2, x1).dtype is dt(expected), b
        assert (x1 == x2).dtype is xp.bool


def test_result_type_is_associative_over_three_dtypes():
    # "application of the promotion tables is associative": the result does
    # not depend on operand order, defined or not.
    for a, b, c in itertools.product(NAMES, repeat=3):
        ab = PROMOTION[a, b]
        expected = None if ab is None else PROMOTION[ab, c]
        for order in itertools.permutations((a, b, c)):
            dtypes = [dt(n) for n in order]
            if expected is None:
                with pytest.raises(TypeError):
                    xp.result_type(*dtypes)
            else:
                assert xp.result_type(*dtypes) is dt(expected), order


def test_result_type_of_one_dtype_is_itself():
    for name in NAMES:
        assert xp.result_type(dt(name)) is dt(name)
        assert xp.result_type(ones(name)) is dt(name)


# ---- result_type with Python scalars ----

SCALAR_CASES = [
    # (array/dtype arguments, scalars, expected dtype name or None for TypeError)
    (("int8",), (1,), "int8"),
    (("uint16",), (7,), "uint16"),
    (("int8", "int16"), (1,), "int16"),
    (("float32",), (1,), "float32"),
    (("float32",), (1.5,), "float32"),
    (("float64",), (1.5,), "float64"),
    (("float32",), (1j,), "complex64"),
    (("float64",), (1j,), "complex128"),
    (("complex64",), (1.5, 1, 1j), "complex64"),
    (("float32", "float64"), (1j,), "complex128"),
    (("bool",), (True,), "bool"),
    (("bool",), (1,), None),
    (("bool",), (1.0,), None),
    (("int8",), (True,), None),
    (("int8",), (1.0,), None),
    (("uint64",), (1j,), None),
    (("float32",), (False,), None),
]


@pytest.mark.parametrize(("dtypes", "scalars", "expected"), SCALAR_CASES)
def test_result_type_with_python_scalars(dtypes, scalars, expected):
    # Scalars count only after all arrays and dtypes, wherever they appear.
    for args in (
        (*(dt(n) for n in dtypes), *scalars),
        (*scalars, *(dt(n) for n in dtypes)),
        (*scalars, *(ones(n) for n in dtypes)),
    ):
        if expected is None:
            with pytest.raises(TypeError):
                xp.result_type(*args)
        else:
            assert xp.result_type(*args) is dt(expected), args


def test_result_type_needs_an_array_or_dtype():
    with pytest.raises((TypeError, ValueError)):
        xp.result_type(1, 2.0)
    with pytest.raises((TypeError, ValueError)):
        xp.result_type()


# ---- can_cast ----


def test_can_cast_follows_promotion():
    # A cast "can occur according to type promotion rules" exactly when
    # promoting from_ with to gives to.
    for a, b in PAIRS:
        expected = PROMOTION[a, b] == b
        assert xp.can_cast(dt(a), dt(b)) is expected, (a, b)
        assert xp.can_cast(ones(a), dt(b)) is expected, (a, b)


def test_can_cast_spot_checks():
    # A few the standard spells out in its tables, as a reader would.
    assert xp.can_cast(xp.int8, xp.int64)
    assert not xp.can_cast(xp.int64, xp.int8)
    assert xp.can_cast(xp.uint8, xp.int16)
    assert not xp.can_cast(xp.uint64, xp.int64)
    assert not xp.can_cast(xp.int32, xp.float64)
    assert not xp.can_cast(xp.bool, xp.int8)
    assert xp.can_cast(xp.float32, xp.complex64)
    assert not xp.can_cast(xp.complex64, xp.float64)


# ---- isdtype ----

KINDS = {
    "bool": ("bool",),
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": INTEGER,
    "real floating": REAL_FLOATING,
    "complex floating": COMPLEX_FLOATING,
    "numeric": NUMERIC,
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_isdtype_kinds(kind):
    for name in NAMES:
        assert xp.isdtype(dt(name), kind) is (name in KINDS[kind]), name


def test_isdtype_with_dtypes_and_tuples():
    for a, b in PAIRS:
        assert xp.isdtype(dt(a), dt(b)) is (a == b)
    assert xp.isdtype(xp.float32, ("bool", xp.float32))
    assert xp.isdtype(xp.uint8, ("signed integer", "unsigned integer"))
    assert xp.isdtype(xp.complex64, (xp.int8, "complex floating"))
    assert not xp.isdtype(xp.float64, ("integral", xp.float32, "complex floating"))
    assert not xp.isdtype(xp.bool, ())


def test_isdtype_refuses_unknown_kinds():
    with pytest.raises((ValueError, TypeError)):
        xp.isdtype(xp.int8, "integer")  # the standard's kind name is "integral"
    with pytest.raises(TypeError):
        xp.isdtype(xp.int8, 8)


# ---- Python scalars with arrays in operators ----

_SCALARS = {"bool": True, "int": 1, "float": 1.5, "complex": 1 + 1j}


def _scalar_result(kind: str, name: str) -> str | None:
    """The standard's dtype for array(name) <op> scalar(kind); None where it
    is undefined (dlarray raises TypeError)."""
    if kind == "bool":
        return "bool" if name == "bool" else None
    if kind == "int":
        return name if name in NUMERIC else None
    if kind == "float":
        return name if name in FLOATING else None
    # complex: joins complex arrays, and promotes real floating arrays to
    # the complex dtype of the same precision.
    if name in COMPLEX_FLOATING:
        return name
    return {"float32": "complex64", "float64": "complex128"}.get(name)


@pytest.mark.parametrize("kind", list(_SCALARS))
def test_operators_with_python_scalars(kind):
    s = _SCALARS[kind]
    for name in NAMES:
        x = ones(name)
        expected = _scalar_result(kind, name)
        if expected is None:
            for func, args in (
                (operator.eq, (x, s)),
                (operator.eq, (s, x)),
                (xp.not_equal, (x, s)),
            ):
                with pytest.raises(TypeError):
                    func(*args)
            continue
        assert (x == s).dtype is xp.bool
        assert (s != x).dtype is xp.bool
        if expected == "bool":
            assert (x & s).dtype is xp.bool
            assert (s | x).dtype is xp.bool
        else:
            assert (x + s).dtype is dt(expected), name
            assert (s * x).dtype is dt(expected), name
            assert xp.subtract(s, x).dtype is dt(expected), name


def test_scalar_takes_the_array_dtype_and_value():
    # array <op> scalar == array <op> 0-d array of the array's dtype.
    for name in NUMERIC:
        x = xp.asarray([1, 2, 3], dtype=dt(name))
        two = xp.asarray(2, dtype=dt(name))
        assert xp.all(x * 2 == x * two)
        assert xp.all(2 + x == two + x)
        assert xp.all(x - 2 == x - two)


@pytest.mark.parametrize("func", ["add", "multiply", "subtract", "maximum"])
def test_a_float_scalar_beyond_the_dtype_rounds_to_inf_quietly(func):
    # IEEE 754 rounds 1e300 to inf in float32; no RuntimeWarning from the
    # cast, on the host's fast path and on the general one (every engine).
    x = xp.asarray([1.0, -2.0], dtype=xp.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = getattr(xp, func)(x, 1e300)
        reflected = getattr(xp, func)(1e300, x)
    values = np.asarray([1.0, -2.0])
    with np.errstate(over="ignore"):
        expected = getattr(np, func)(values, 1e300).astype(np.float32)
        expected_reflected = getattr(np, func)(1e300, values).astype(np.float32)
    np.testing.assert_array_equal(np.from_dlpack(result), expected)
    np.testing.assert_array_equal(np.from_dlpack(reflected), expected_reflected)
    assert result.dtype == xp.float32


def test_complex_scalar_with_float32_gives_complex64_values():
    x = xp.asarray([1.0, 2.0], dtype=xp.float32)
    y = x + 1j
    assert y.dtype is xp.complex64
    assert complex(y[0]) == 1 + 1j and complex(y[1]) == 2 + 1j
    z = 2j * xp.asarray([1.0], dtype=xp.float64)
    assert z.dtype is xp.complex128 and complex(z[0]) == 2j


def test_float_and_complex_scalars_with_integer_arrays_raise():
    x = xp.asarray([1, 2], dtype=xp.int32)
    for s in (1.0, 0.5, 1j):
        with pytest.raises(TypeError):
            x + s
        with pytest.raises(TypeError):
            s * x
        with pytest.raises(TypeError):
            xp.add(x, s)


def test_number_scalars_with_bool_arrays_raise_and_bool_scalars_with_numbers_too():
    b = xp.asarray([True, False])
    for s in (1, 1.0, 1j):
        with pytest.raises(TypeError):
            operator.eq(b, s)
        with pytest.raises(TypeError):
            operator.ne(s, b)
    with pytest.raises(TypeError):
        b & 1
    for name in NUMERIC:
        with pytest.raises(TypeError):
            ones(name) + True


def test_two_scalars_are_not_an_operation():
    with pytest.raises(TypeError):
        xp.add(1, 2)


def test_matmul_refuses_scalars():
    x = ones("float64", (2, 2))
    with pytest.raises(TypeError):
        x @ 2.0
    with pytest.raises(TypeError):
        2.0 @ x


# ---- in-place operators ----


@pytest.mark.parametrize("a", NAMES)
def test_inplace_operators_never_change_the_dtype(a):
    op = "__iand__" if a == "bool" else "__iadd__"
    for b in NAMES:
        x, y = ones(a), ones(b)
        if PROMOTION[a, b] == a:
            assert getattr(x, op)(y) is x
            assert x.dtype is dt(a)
        else:
            with pytest.raises(TypeError):
                getattr(x, op)(y)
            assert x.dtype is dt(a)
            assert xp.all(x == ones(a)), b  # untouched


def test_inplace_with_scalars():
    x = xp.asarray([1.0, 2.0], dtype=xp.float32)
    x += 1
    x *= 2.0
    assert x.dtype is xp.float32
    assert float(x[0]) == 4.0 and float(x[1]) == 6.0
    with pytest.raises(TypeError):
        x += 1j  # would make complex64
    i = xp.asarray([1, 2], dtype=xp.int16)
    with pytest.raises(TypeError):
        i += 1.5
    with pytest.raises(TypeError, match="cannot change"):
        i /= 2  # integer true division gives float64, which i cannot hold
    i //= 2
    assert i.dtype is xp.int16 and int(i[1]) == 1


def test_inplace_refuses_a_shape_change_but_broadcasts_the_other_operand():
    x = xp.zeros((3,), dtype=xp.float64)
    with pytest.raises(ValueError):
        x += xp.ones((2, 3), dtype=xp.float64)
    assert x.shape == (3,)
    assert not xp.any(x)
    y = xp.zeros((2, 3), dtype=xp.float64)
    row = xp.asarray([1.0, 2.0, 3.0])
    y += row
    assert y.shape == (2, 3)
    assert xp.all(y[1] == row)


def test_inplace_writes_through_to_views():
    x = xp.zeros((2, 3), dtype=xp.int32)
    view = x[1]
    view += 5
    assert int(x[1, 2]) == 5 and int(x[0, 0]) == 0


# ---- the result dtype of every elementwise function ----

# name -> (category of the inputs, rule for the result dtype), from the
# stubs' Parameters and Returns sections.  Rules: "same" (the input's
# dtype, or the promoted dtype for two inputs), "bool", "component" (the
# real dtype of the same precision for complex inputs, else the input's).
UNARY_SPEC = {
    "abs": ("numeric", "component"),
    "acos": ("floating-point", "same"),
    "acosh": ("floating-point", "same"),
    "asin": ("floating-point", "same"),
    "asinh": ("floating-point", "same"),
    "atan": ("floating-point", "same"),
    "atanh": ("floating-point", "same"),
    "bitwise_invert": ("integer or boolean", "same"),
    "ceil": ("real-valued", "same"),
    "conj": ("numeric", "same"),
    "cos": ("floating-point", "same"),
    "cosh": ("floating-point", "same"),
    "exp": ("floating-point", "same"),
    "expm1": ("floating-point", "same"),
    "floor": ("real-valued", "same"),
    "imag": ("complex floating", "component"),
    "isfinite": ("numeric", "bool"),
    "isinf": ("numeric", "bool"),
    "isnan": ("numeric", "bool"),
    "log": ("floating-point", "same"),
    "log1p": ("floating-point", "same"),
    "log2": ("floating-point", "same"),
    "log10": ("floating-point", "same"),
    "logical_not": ("bool", "bool"),
    "negative": ("numeric", "same"),
    "positive": ("numeric", "same"),
    # 2024.12 added real-valued inputs; their "real part" is the input.
    "real": ("numeric", "component"),
    "reciprocal": ("floating-point", "same"),
    "round": ("numeric", "same"),
    "sign": ("numeric", "same"),
    "signbit": ("real floating", "bool"),
    "sin": ("floating-point", "same"),
    "sinh": ("floating-point", "same"),
    "sqrt": ("floating-point", "same"),
    "square": ("numeric", "same"),
    "tan": ("floating-point", "same"),
    "tanh": ("floating-point", "same"),
    "trunc": ("real-valued", "same"),
}

BINARY_SPEC = {
    "add": ("numeric", "same"),
    "atan2": ("real floating", "same"),
    "bitwise_and": ("integer or boolean", "same"),
    "bitwise_left_shift": ("integer", "same"),
    "bitwise_or": ("integer or boolean", "same"),
    "bitwise_right_shift": ("integer", "same"),
    "bitwise_xor": ("integer or boolean", "same"),
    "copysign": ("real floating", "same"),
    # The standard's result is floating-point: defined for floating inputs.
    "divide": ("floating-point", "same"),
    "equal": ("all", "bool"),
    "floor_divide": ("real-valued", "same"),
    "greater": ("real-valued", "bool"),
    "greater_equal": ("real-valued", "bool"),
    "hypot": ("real floating", "same"),
    "less": ("real-valued", "bool"),
    "less_equal": ("real-valued", "bool"),
    "logaddexp": ("real floating", "same"),
    "logical_and": ("bool", "bool"),
    "logical_or": ("bool", "bool"),
    "logical_xor": ("bool", "bool"),
    "maximum": ("real-valued", "same"),
    "minimum": ("real-valued", "same"),
    "multiply": ("numeric", "same"),
    "nextafter": ("real floating", "same"),
    "not_equal": ("all", "bool"),
    "pow": ("numeric", "same"),
    "remainder": ("real-valued", "same"),
    "subtract": ("numeric", "same"),
}


def _expected_result(rule: str, name: str) -> str:
    if rule == "bool":
        return "bool"
    if rule == "component":
        return COMPONENT.get(name, name)
    return name


def test_every_elementwise_function_is_covered():
    elementwise = set(UNARY_SPEC) | set(BINARY_SPEC)
    for name in elementwise:
        assert callable(getattr(xp, name)), name


@pytest.mark.parametrize("func", list(UNARY_SPEC))
def test_unary_result_dtype(func):
    category, rule = UNARY_SPEC[func]
    for name in CATEGORY[category]:
        expected = dt(_expected_result(rule, name))
        out = getattr(xp, func)(ones(name, (3,)))
        assert out.dtype is expected, name
        assert out.shape == (3,)
        # 0-d in, 0-d array out (not a NumPy scalar), of the same dtype.
        zero_d = getattr(xp, func)(ones(name, ()))
        assert type(zero_d) is xp.DLArray and zero_d.shape == ()
        assert zero_d.dtype is expected, name


@pytest.mark.parametrize("func", list(BINARY_SPEC))
def test_binary_result_dtype(func):
    category, rule = BINARY_SPEC[func]
    for name in CATEGORY[category]:
        expected = dt(_expected_result(rule, name))
        out = getattr(xp, func)(ones(name, (3,)), ones(name, (2, 1)))
        assert out.dtype is expected, name
        assert out.shape == (2, 3)
        zero_d = getattr(xp, func)(ones(name, ()), ones(name, ()))
        assert type(zero_d) is xp.DLArray and zero_d.shape == ()
        assert zero_d.dtype is expected, name


@pytest.mark.parametrize("func", list(BINARY_SPEC))
def test_binary_result_dtype_of_mixed_pairs(func):
    category, rule = BINARY_SPEC[func]
    allowed = CATEGORY[category]
    wrong = []
    for a, b in PAIRS:
        promoted = PROMOTION[a, b]
        if a == b or promoted is None or a not in allowed or b not in allowed:
            continue
        if func == "nextafter":
            continue  # the standard requires equal dtypes (result: x1's dtype)
        got = getattr(xp, func)(ones(a), ones(b)).dtype
        if got is not dt(_expected_result(rule, promoted)):
            wrong.append((a, b, got.name))
    assert wrong == []


def test_clip_keeps_the_dtype():
    for name in REAL_VALUED:
        x = xp.asarray([0, 5, 9], dtype=dt(name))
        assert xp.clip(x, min=1, max=6).dtype is dt(name)
        assert xp.clip(x, min=ones(name, (1,))).dtype is dt(name)


def test_clip_is_x_within_the_bounds_and_propagates_nan():
    """The standard's definition: x_i unless it passes a bound, so -0.0 stays
    -0.0 at a bound of 0.0 (maximum(-0.0, 0.0) gave +0.0); NaN in x or in
    either bound gives NaN; min > max gives max."""
    values = [-0.0, 0.0, float("nan"), 2.0, -3.0, 0.5]
    x = xp.asarray(values)
    got = np.from_dlpack(xp.clip(x, min=0.0, max=1.0))
    want = np.clip(np.array(values), 0.0, 1.0)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    nan = float("nan")
    assert np.isnan(np.from_dlpack(xp.clip(x, min=xp.asarray(nan)))).all()
    assert np.isnan(np.from_dlpack(xp.clip(x, max=xp.asarray([nan] * 6)))).all()
    crossed = np.from_dlpack(xp.clip(x, min=2.0, max=1.0))
    assert np.array_equal(crossed, [1.0, 1.0, nan, 1.0, 1.0, 1.0], equal_nan=True)


@pytest.mark.parametrize("func", list(UNARY_SPEC))
def test_unary_refuses_dtypes_outside_its_category(func):
    for name in NAMES:
        if name not in CATEGORY[UNARY_SPEC[func][0]]:
            with pytest.raises(TypeError):
                getattr(xp, func)(ones(name))


# Inputs outside the standard's category that dlarray accepts by its own
# decision (documented on the function): integer true division.
ACCEPTED_BEYOND_THE_CATEGORY = {"divide": set(CATEGORY["integer"])}


@pytest.mark.parametrize("func", list(BINARY_SPEC))
def test_binary_refuses_dtypes_outside_its_category(func):
    for name in NAMES:
        if name in ACCEPTED_BEYOND_THE_CATEGORY.get(func, ()):
            continue  # test_integer_true_division_gives_the_default_float
        if name not in CATEGORY[BINARY_SPEC[func][0]]:
            with pytest.raises(TypeError):
                getattr(xp, func)(ones(name), ones(name))
            with pytest.raises(TypeError):
                getattr(xp, func)(ones(name), 1 if name != "bool" else True)


def test_integer_true_division_gives_the_default_float():
    # The standard leaves integer / to the implementation; dlarray gives
    # float64, as NumPy, PyTorch, CuPy and JAX do.
    for a in CATEGORY["integer"]:
        for b in CATEGORY["integer"]:
            if PROMOTION[a, b] is None:
                continue
            x, y = xp.asarray([1, 3], dtype=dt(a)), xp.asarray([2, 4], dtype=dt(b))
            for result in (x / y, xp.divide(x, y)):
                assert result.dtype is xp.float64, (a, b)
                assert [float(v) for v in result] == [0.5, 0.75]
    x = xp.asarray([1, 2], dtype=xp.int8)
    assert (x / 4).dtype is xp.float64 and (4 / x).dtype is xp.float64
    assert float(xp.asarray(7) / 2) == 3.5
    with pytest.raises(TypeError):
        x / 2.0  # a float scalar with an integer array: the scalar rules refuse
    with pytest.raises(TypeError):
        xp.asarray([True]) / xp.asarray([True])
    with pytest.raises(TypeError):
        xp.asarray([1], dtype=xp.int64) / xp.asarray([1], dtype=xp.uint64)  # no promotion
    with pytest.raises(TypeError, match="cannot change"):
        x /= 2  # the result is float64, and x is int8


def test_functions_refuse_non_arrays():
    with pytest.raises(TypeError):
        xp.sin([1.0, 2.0])
    with pytest.raises(TypeError):
        xp.add([1.0], xp.asarray([1.0]))
    import numpy as np

    with pytest.raises(TypeError):
        xp.add(np.ones(2), xp.asarray([1.0, 1.0]))


# ---- devices ----


@pytest.fixture
def other_device_array():
    """A float32 array on Device('cuda', 0): a producer that describes its
    memory as CUDA memory.  dlarray never dereferences it here (every call
    below must refuse the device mix before computing)."""
    producer = abi.Producer(
        device=(abi.kDLCUDA, 0),
        shape=(4,),
        dtype=(2, 32, 1),
        payload=struct.pack("4f", 1.0, 2.0, 3.0, 4.0),
    )
    y = xp.from_dlpack(producer)
    yield y
    del y


@pytest.fixture
def host_array_numbered_1():
    """A float32 array of host memory whose producer calls it CPU device 1
    (DLPack says CPU memory is device 0; dlarray treats it as the CPU)."""
    producer = abi.Producer(
        device=(abi.kDLCPU, 1),
        shape=(4,),
        dtype=(2, 32, 1),
        payload=struct.pack("4f", 1.0, 2.0, 3.0, 4.0),
    )
    y = xp.from_dlpack(producer)
    yield y
    del y


def test_from_dlpack_keeps_the_device_id(other_device_array):
    y = other_device_array
    assert y.device == xp.Device("cuda", 0)
    assert y.device != xp.asarray([1.0]).device


def test_mixing_devices_raises_value_error(other_device_array):
    y = other_device_array
    x = xp.asarray([1.0, 2.0, 3.0, 4.0], dtype=xp.float32)
    calls = [
        lambda: x + y,
        lambda: y * x,
        lambda: xp.add(x, y),
        lambda: xp.equal(y, x),
        lambda: xp.atan2(x, y),
        lambda: xp.where(x > 0, x, y),
        lambda: xp.concat([x, y]),
        lambda: xp.stack([x, y]),
        lambda: xp.clip(x, min=y),
    ]
    for call in calls:
        with pytest.raises(ValueError):
            call()


def test_inplace_and_setitem_refuse_another_device(other_device_array):
    y = other_device_array
    x = xp.zeros((4,), dtype=xp.float32)
    with pytest.raises(ValueError):
        x += y
    with pytest.raises(ValueError):
        x[...] = y
    with pytest.raises(ValueError):
        x[xp.asarray([0, 1])] = y[:2]
    assert not xp.any(x)


def test_results_stay_on_the_device_of_their_inputs(host_array_numbered_1):
    # The standard's device semantics: output arrays are on the device of the
    # input arrays, so results can be combined with their inputs again.
    # (Computing on CUDA memory needs a GPU engine: issue 4's tests.)
    y = host_array_numbered_1
    assert y[1:].device == y.device  # a view
    assert (y + 1).device == y.device
    assert xp.sin(y).device == y.device
    assert (y * y).device == y.device
    assert (y > 2).device == y.device
    assert xp.sum(y).device == y.device
    # zeros_like: "If device is None, the output array device must be inferred from x."
    assert xp.zeros_like(y).device == y.device
    z = y + (y + 1)
    assert z.device == y.device
    assert float(z[3]) == 9.0


def test_common_device():
    x, y = xp.asarray([1]), xp.asarray([2])
    assert _rules.common_device([x, y], "f") == xp.Device("cpu")
    assert _rules.common_device([], "f") == xp.Device("cpu")

    class OnDevice:
        def __init__(self, device):
            self.device = device

    with pytest.raises(ValueError, match="different devices"):
        _rules.common_device([x, OnDevice(xp.Device("cuda", 0))], "f")
    with pytest.raises(ValueError):
        _rules.common_device([OnDevice(xp.Device("cpu", 1)), x], "f")
    assert _rules.common_device([OnDevice(xp.Device("cpu", 1))] * 2, "f") == xp.Device("cpu", 1)


# ---- NumPy's dtypes (a documented extension; xp._dtypes.dtype_argument) ----


def test_numpy_reads_dlarrays_dtypes():
    for dtype in xp.dtypes():
        if dtype.kind != "extended floating":
            assert np.dtype(dtype) == np.dtype(dtype.name)
    assert np.dtype(xp.float64) is np.dtype("float64")


def test_functions_take_numpy_dtypes_with_a_dlarray_equivalent():
    assert xp.zeros(2, dtype=np.float32).dtype == xp.float32
    assert xp.asarray([1, 2], dtype=np.dtype("int8")).dtype == xp.int8
    assert xp.astype(xp.ones(2), np.int16).dtype == xp.int16
    assert xp.result_type(np.dtype("float32"), xp.float64) == xp.float64
    assert xp.isdtype(np.float64, "real floating")
    assert xp.isdtype(xp.int8, np.int8)
    assert xp.can_cast(np.int8, np.dtype("int16"))
    assert xp.sum(xp.ones(3), dtype=np.float32).dtype == xp.float32
    for refused in (np.dtype(">f8"), np.dtype([("a", "f8")]), np.dtype(object), "float64"):
        with pytest.raises(TypeError):
            xp.astype(xp.ones(2), refused)


def test_dtypes_pickle_to_the_same_object():
    import pickle

    for dtype in xp.dtypes():
        assert pickle.loads(pickle.dumps(dtype)) is dtype


# ---- comparing dtypes (docs/api/dtypes.md, "Comparing dtypes") ----
# (before: x.dtype == np.float64 and x.dtype == "float64" were silently False)


def test_a_dtype_equals_what_means_it():
    for dtype in xp.dtypes():
        assert dtype == dtype and not dtype != dtype
        assert dtype == dtype.name and dtype.name == dtype
        assert not dtype != dtype.name
        if dtype.kind != "extended floating":  # NumPy knows them through ml_dtypes only
            assert dtype == np.dtype(dtype.name) and np.dtype(dtype.name) == dtype
            assert dtype == np.dtype(dtype.name).type and np.dtype(dtype.name).type == dtype
        for other in xp.dtypes():
            assert (dtype == other) is (dtype is other)
            assert (dtype == other.name) is (dtype is other)


def test_a_dtype_is_unequal_to_what_means_another_thing():
    assert xp.float64 != np.dtype(">f8")  # another byte order, as NumPy says too
    assert xp.float64 != "f8" and xp.float64 != "float"  # names are dlarray's, as dtype= takes
    assert xp.float64 != np.float32 and xp.int64 != np.dtype("int32")
    assert xp.float64 != 64 and xp.float64 != None  # noqa: E711
    assert xp.float64 != np.dtype([("a", "f8")]) and xp.float64 != "float99"


def test_an_arrays_dtype_compares_as_numpys_users_write_it():
    x = xp.asarray([1.0, 2.0])
    assert x.dtype == np.float64 and x.dtype == "float64" and x.dtype == np.dtype("float64")
    assert xp.astype(x, xp.int8).dtype == np.int8


def test_dtypes_hash_as_one_object_each():
    # Dtypes among themselves: equal means the same object, the same hash.
    # A set or dict of dtypes is looked up with dtypes (a name or NumPy's
    # dtype has its own hash, as "float64" and np.dtype("float64") in NumPy).
    table = {dtype: dtype.name for dtype in xp.dtypes()}
    assert all(table[dtype] == dtype.name for dtype in xp.dtypes())
    assert len(set(xp.dtypes())) == len(xp.dtypes())
    assert hash(xp.float64) == hash(xp.float64)
    assert xp.float64 in {xp.float64} and xp.float64 not in {xp.float32}
