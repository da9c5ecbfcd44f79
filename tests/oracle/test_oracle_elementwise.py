"""Every elementwise function of dlarray, and its operators (the C fast
paths of dlarray/_core/operators.c and fast_function.c: ``x + y``,
``x + 1.0``, ``1.0 + x``, ``x += y``), against NumPy applied to the same
values in the standard's result dtype: NumPy is the oracle of IEEE
semantics here (README.md in this folder)."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle_support import (
    ALL,
    COMPLEXES,
    INTEGERS,
    SETTINGS,
    describe,
    equal_ieee,
    specials,
)

import dlarray as xp

UNARY = (
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "bitwise_invert",
    "ceil",
    "conj",
    "cos",
    "cosh",
    "exp",
    "expm1",
    "floor",
    "imag",
    "isfinite",
    "isinf",
    "isnan",
    "log",
    "log10",
    "log1p",
    "log2",
    "logical_not",
    "negative",
    "positive",
    "real",
    "reciprocal",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
)
BINARY = (
    "add",
    "atan2",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "copysign",
    "divide",
    "equal",
    "floor_divide",
    "greater",
    "greater_equal",
    "hypot",
    "less",
    "less_equal",
    "logaddexp",
    "logical_and",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "multiply",
    "nextafter",
    "not_equal",
    "pow",
    "remainder",
    "subtract",
)
#: Functions whose NumPy loops are not correctly rounded: dlarray's result
#: may come from another loop of NumPy's (SIMD for contiguous data, scalar
#: for strided; with or without FMA) than the reference's, so they are
#: compared within ULPS units in the last place; the rest exactly.
INEXACT = {
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "cos",
    "cosh",
    "exp",
    "expm1",
    "log",
    "log10",
    "log1p",
    "log2",
    "sin",
    "sinh",
    "tan",
    "tanh",
    "atan2",
    "hypot",
    "logaddexp",
    "pow",
}
ULPS = 4
#: The operators that call each binary function, and their reflected forms.
OPERATORS = {
    "add": operator.add,
    "subtract": operator.sub,
    "multiply": operator.mul,
    "divide": operator.truediv,
    "floor_divide": operator.floordiv,
    "remainder": operator.mod,
    "pow": operator.pow,
    "bitwise_and": operator.and_,
    "bitwise_or": operator.or_,
    "bitwise_xor": operator.xor,
    "bitwise_left_shift": operator.lshift,
    "bitwise_right_shift": operator.rshift,
    "equal": operator.eq,
    "not_equal": operator.ne,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
}
IN_PLACE = {
    "add": operator.iadd,
    "subtract": operator.isub,
    "multiply": operator.imul,
    "divide": operator.itruediv,
    "floor_divide": operator.ifloordiv,
    "remainder": operator.imod,
    "pow": operator.ipow,
    "bitwise_and": operator.iand,
    "bitwise_or": operator.ior,
    "bitwise_xor": operator.ixor,
    "bitwise_left_shift": operator.ilshift,
    "bitwise_right_shift": operator.irshift,
}
UNARY_OPERATORS = {
    "negative": operator.neg,
    "positive": operator.pos,
    "abs": abs,
    "bitwise_invert": operator.invert,
}


def numpy_function(name):
    return getattr(np, name)


def accepted(name, dtype, arity):
    """Whether dlarray computes ``name`` in ``dtype`` (a TypeError is a
    refusal, listed by test_oracle_refusals.py, not a wrong number)."""
    a = xp.asarray(np.ones(2, dtype))
    try:
        getattr(xp, name)(*([a] * arity))
    except TypeError:
        return False
    return True


CASES_1 = [(n, d) for n in UNARY for d in ALL if accepted(n, d, 1)]
CASES_2 = [(n, d) for n in BINARY for d in ALL if accepted(n, d, 2)]


def values_of(dtype, count, draw):
    extremes = specials(dtype)
    if dtype == "bool":
        pool = st.booleans()
    elif dtype in INTEGERS:
        info = np.iinfo(dtype)
        pool = st.one_of(st.sampled_from(extremes), st.integers(int(info.min), int(info.max)))
    elif dtype in COMPLEXES:
        part = st.one_of(
            st.sampled_from([z.real for z in extremes] + [-0.0, 0.5, -2.5]),
            st.floats(width=32 if dtype == "complex64" else 64),
        )
        pool = st.builds(complex, part, part)
    else:
        pool = st.one_of(
            st.sampled_from([*extremes, 0.5, -0.5, 1.5, 2.5, -2.5]),
            st.floats(width=32 if dtype == "float32" else 64),
        )
    with np.errstate(all="ignore"):
        return np.array(draw(st.lists(pool, min_size=count, max_size=count)), dtype=dtype)


LAYOUTS = ("C", "F", "strided", "reversed", "0-d", "5-d", "broadcast")


@st.composite
def operand_pair(draw, dtype, arity):
    """``arity`` arrays of one shape (or broadcasting) in one layout, and
    their NumPy twins."""
    layout = draw(st.sampled_from(LAYOUTS))
    if layout == "0-d":
        shape = ()
    elif layout == "5-d":
        shape = tuple(draw(st.lists(st.integers(1, 2), min_size=5, max_size=5)))
    else:
        shape = tuple(draw(st.lists(st.integers(0, 6), min_size=1, max_size=3)))
    arrays = []
    for k in range(arity):
        this = shape
        if layout == "broadcast" and k == 1 and shape:
            this = (1,) * (len(shape) - 1) + (shape[-1],)
        values = values_of(dtype, math.prod(this), draw).reshape(this)
        if layout == "F" and values.ndim > 1:
            twin = np.asfortranarray(values)
            arrays.append((xp.from_dlpack(twin), twin))
        elif layout == "strided" and values.ndim:
            big = np.zeros(tuple(2 * s for s in this), dtype)
            index = (slice(None, None, 2),) * values.ndim
            big[index] = values
            arrays.append((xp.asarray(big)[index], big[index]))
        elif layout == "reversed" and values.ndim:
            index = (slice(None, None, -1),) * values.ndim
            back = values[index].copy()
            arrays.append((xp.asarray(back)[index], back[index]))
        else:
            arrays.append((xp.asarray(values), values))
    return arrays


def restrict(name, dtype, y):
    """Operands outside what the standard defines, replaced: integer
    division by zero, negative integer powers, shifts by a negative count or
    by the width or more (all implementation-defined)."""
    if dtype in INTEGERS:
        bits = np.iinfo(dtype).bits
        if name in ("floor_divide", "remainder", "divide"):
            y = np.where(y == 0, 1, y).astype(dtype)
        elif name == "pow":
            y = np.where((y < 0) | (y > 70), 2, y).astype(dtype)
        elif name in ("bitwise_left_shift", "bitwise_right_shift"):
            y = (np.abs(y.astype(np.int64) % bits)).astype(dtype)
    return y


def compare(name, got, expected, inputs, func=None):
    func = func or name
    got = np.asarray(got)
    with np.errstate(all="ignore"):
        if got.shape != expected.shape:
            return f"{name}: shape {got.shape}, NumPy's {expected.shape}"
        if got.dtype != expected.dtype:
            if not (name == "divide" and got.dtype.kind == "f" and expected.dtype.kind == "f"):
                return f"{name}: dtype {got.dtype}, NumPy's {expected.dtype}"
            expected = expected.astype(got.dtype)
        same = equal_ieee(got, expected)
        if name in INEXACT and got.dtype.kind in "fc":
            same |= close_in_ulps(got, expected)
        if not same.all() and func in ("floor_divide", "expm1", "tanh", "sign"):
            same |= standard_case(func, got, inputs)
        if same.all():
            return None
        bad = np.flatnonzero(~same.reshape(-1))[:3]
        flat_inputs = [np.broadcast_to(x, got.shape).reshape(-1) for x in inputs]
        shown = [
            f"at {int(i)}: inputs {[x[i].item() for x in flat_inputs]}, "
            f"got {got.reshape(-1)[i].item()!r}, NumPy {expected.reshape(-1)[i].item()!r}"
            for i in bad
        ]
        return f"{name} ({got.dtype}): " + "; ".join(shown)


def _is(v, target):
    """``v`` is ``target``: a number (zeros by sign), "nan", "±0", "±inf"."""
    if target == "nan":
        return math.isnan(v)
    if target == "±0":
        return v == 0
    if target == "±inf":
        return math.isinf(v)
    if target == 0:
        return v == 0 and math.copysign(1, v) == math.copysign(1, target)
    return v == target


def _complex_case(name, z):
    """The Array API standard's special case of complex ``name`` at ``z``
    (where NumPy's result differs from it): ``(real, imag)`` targets for
    _is, or None.  From the standard's tables for expm1 and tanh (which
    follow C99 Annex G) and the definition of sign (z / |z|)."""
    a, b = z.real, z.imag
    finite = math.isfinite(a) and math.isfinite(b)
    if name == "sign":
        if math.isnan(a) or math.isnan(b):
            return ("nan", "nan")
        if a == 0 and b == 0:
            return (0.0, 0.0)
        if finite:  # z / |z|, in long double complex (no overflow of |z|)
            w = np.clongdouble(z) / np.abs(np.clongdouble(z))
            return ("≈", complex(w))
        return None
    if finite:
        return None
    flip = (not math.isnan(b)) and math.copysign(1, b) < 0
    if flip:  # both functions are conjugate-symmetric
        b = -b
    case = None
    if name == "expm1":
        if math.isfinite(a) and (b == math.inf or math.isnan(b)):
            case = ("nan", "nan")
        elif a == math.inf and b == 0:
            case = (math.inf, 0.0)
        elif a == -math.inf and (math.isfinite(b) or b == math.inf or math.isnan(b)):
            case = (-1.0, "±0")
        elif a == math.inf and math.isfinite(b):
            case = ("≈inf·cis", complex(math.inf * math.cos(b) - 1, math.inf * math.sin(b)))
        elif a == math.inf and (b == math.inf or math.isnan(b)):
            case = ("±inf", "nan")
        elif math.isnan(a):
            case = ("nan", 0.0) if b == 0 else ("nan", "nan")
    elif name == "tanh":
        sign_a = -1.0 if math.copysign(1, a) < 0 else 1.0
        if math.isnan(a):
            case = ("nan", 0.0) if b == 0 else ("nan", "nan")
        elif math.isinf(a):
            case = (sign_a, "±0")
        elif b == math.inf or math.isnan(b):
            case = (a, "nan") if a == 0 else ("nan", "nan")
    if case is None or flip is False:
        return case
    real, imag = case
    if isinstance(imag, float):
        imag = -imag
    return (real, imag)


def standard_case(name, got, inputs):
    """Where ``got`` is the standard's special case and NumPy's result is
    not: dlarray fixes NumPy there (floor_divide of infinities, complex
    sign, expm1 and tanh).  Elementwise bool."""
    ok = np.zeros(got.shape, bool)
    flat_got = got.reshape(-1)
    args = [np.broadcast_to(x, got.shape).reshape(-1) for x in inputs]
    for i in range(flat_got.size):
        g = flat_got[i].item()
        if name == "floor_divide" and got.dtype.kind == "f":
            x1, x2 = float(args[0][i]), float(args[1][i])
            if math.isinf(x1) and math.isfinite(x2) and x2 != 0:
                ok.reshape(-1)[i] = g == math.copysign(math.inf, x1 * x2)
            elif math.isfinite(x1) and x1 != 0 and math.isinf(x2):
                ok.reshape(-1)[i] = g == 0 and math.copysign(1, g) == math.copysign(1, x1 * x2)
        elif got.dtype.kind == "c" and name in ("expm1", "tanh", "sign"):
            case = _complex_case(name, complex(args[0][i]))
            if case is None:
                continue
            if case[0] == "≈":
                w = case[1]
                ok.reshape(-1)[i] = abs(g - w) <= 4 * float(np.finfo(got.real.dtype).eps)
            elif case[0] == "≈inf·cis":
                w = case[1]
                ok.reshape(-1)[i] = all(
                    (math.isnan(e) and math.isnan(v)) or e == v or (math.isinf(e) and v == e)
                    for e, v in ((w.real, g.real), (w.imag, g.imag))
                )
            else:
                ok.reshape(-1)[i] = _is(g.real, case[0]) and _is(g.imag, case[1])
    return ok


def close_in_ulps(got, expected):
    if got.dtype.kind == "c":
        scale = np.maximum(np.abs(expected.real), np.abs(expected.imag))
        spacing = np.spacing(scale.astype(got.real.dtype))
        return np.isfinite(expected) & (np.abs(got - expected) <= ULPS * np.abs(spacing) * 1.5)
    spacing = np.abs(np.spacing(expected))
    return np.isfinite(expected) & np.isfinite(got) & (np.abs(got - expected) <= ULPS * spacing)


def numpy_result(name, *arrays):
    with np.errstate(all="ignore"):
        return np.asarray(numpy_function(name)(*arrays))


UNARY_DTYPES = {n: [d for m, d in CASES_1 if m == n] for n in UNARY}
BINARY_DTYPES = {n: [d for m, d in CASES_2 if m == n] for n in BINARY}


def grid(dtype):
    """Every extreme value of ``dtype`` (and a few ordinary ones)."""
    values = specials(dtype)
    if dtype in COMPLEXES or dtype == "bool" or dtype in INTEGERS:
        return values
    return [*values, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0]


@pytest.mark.parametrize("name", UNARY)
def test_unary_extremes(name):
    """Every extreme value of every dtype the function accepts."""
    problems = []
    for dtype in UNARY_DTYPES[name]:
        with np.errstate(all="ignore"):
            x = np.array(grid(dtype), dtype)
        problems.append(check_unary(name, dtype, xp.asarray(x), x))
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", BINARY)
def test_binary_extremes(name):
    """Every pair of extreme values of every dtype the function accepts,
    as arrays, with a Python scalar on either side, and in place."""
    problems = []
    for dtype in BINARY_DTYPES[name]:
        with np.errstate(all="ignore"):
            values = np.array(grid(dtype), dtype)
        x = np.repeat(values, values.size)
        y = np.tile(values, values.size)
        problems.append(check_binary(name, dtype, (xp.asarray(x), x), (xp.asarray(y), y)))
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", UNARY)
@SETTINGS
@given(data=st.data())
def test_unary(name, data):
    dtype = data.draw(st.sampled_from(UNARY_DTYPES[name]), "dtype")
    [(a, x)] = data.draw(operand_pair(dtype, 1), "operand")
    problem = check_unary(name, dtype, a, x)
    assert not problem, problem


def check_unary(name, dtype, a, x):
    problems = [compare(name, getattr(xp, name)(a), numpy_result(name, x), [x])]
    if name in UNARY_OPERATORS:
        problems.append(
            compare(
                f"operator of {name}", UNARY_OPERATORS[name](a), numpy_result(name, x), [x], name
            )
        )
    problems = [p for p in problems if p]
    return "\n".join(problems) + f"\ninput: {describe(x)}" if problems else None


@pytest.mark.parametrize("name", BINARY)
@SETTINGS
@given(data=st.data())
def test_binary(name, data):
    """The function, its operator, both with a Python scalar on either side,
    and its in-place operator, on arrays of every layout."""
    dtype = data.draw(st.sampled_from(BINARY_DTYPES[name]), "dtype")
    first, second = data.draw(operand_pair(dtype, 2), "operands")
    problem = check_binary(name, dtype, first, second)
    assert not problem, problem


def check_binary(name, dtype, first, second):
    (a, x), (b, y) = first, second
    y2 = restrict(name, dtype, y)
    if y2 is not y:
        y = y2
        b = xp.asarray(np.array(y, copy=True))
    expected = numpy_result(name, x, y)
    problems = [compare(name, getattr(xp, name)(a, b), expected, [x, y])]
    if name in OPERATORS:
        op = OPERATORS[name]
        problems.append(compare(f"x {op.__name__} y", op(a, b), expected, [x, y], name))
        if y.size:
            scalar = y.reshape(-1)[0].item()  # a Python bool, int, float or complex of the dtype
            s = np.asarray(scalar, dtype)
            problems.append(
                compare(
                    f"x {op.__name__} {scalar!r}",
                    op(a, scalar),
                    numpy_result(name, x, s),
                    [x, s],
                    name,
                )
            )
        if x.size:
            t = x.reshape(-1)[0].item()
            problems.append(
                compare(
                    f"{t!r} {op.__name__} y",
                    op(t, b),
                    numpy_result(name, np.asarray(t, dtype), y),
                    [np.asarray(t, dtype), y],
                    name,
                )
            )
        if name in IN_PLACE and expected.dtype == x.dtype and expected.shape == x.shape:
            target = xp.asarray(np.array(x, copy=True))
            target = IN_PLACE[name](target, b)
            twin = np.array(
                x, copy=True
            )  # NumPy's in-place loop (it may differ from its out-of-place one)
            with np.errstate(all="ignore"):
                twin = IN_PLACE[name](twin, y)
            problems.append(compare(f"x {IN_PLACE[name].__name__} y", target, twin, [x, y], name))
    problems = [p for p in problems if p]
    return "\n".join(problems) + f"\ninputs: {describe(x)}, {describe(y)}" if problems else None


VIEWS = ("every other", "reversed", "transposed", "overlapping")


@pytest.mark.parametrize("name", sorted(IN_PLACE))
@SETTINGS
@given(data=st.data())
def test_in_place_on_views(name, data):
    """``view op= y`` writes through a strided, reversed or transposed view
    of a larger array, or with ``y`` an overlapping view of the same memory
    (NumPy copies overlapping operands first): dlarray's whole base array
    against NumPy's, after the same operation on a twin."""
    dtypes = [
        d for d in BINARY_DTYPES[name] if not (name == "divide" and d in INTEGERS)
    ]  # (int /= is refused: its result is float)
    dtype = data.draw(st.sampled_from(dtypes), "dtype")
    kind = data.draw(st.sampled_from(VIEWS), "view")
    n = data.draw(st.integers(1, 8), "n")
    base = values_of(dtype, 2 * n, data.draw)
    if kind == "transposed":
        base = base.reshape(2, n)
    mine, twin = xp.asarray(np.array(base, copy=True)), np.array(base, copy=True)

    def view(array):
        if kind == "every other":
            return array[::2]
        if kind == "reversed":
            return array[::-1]
        if kind == "transposed":
            return array.T if isinstance(array, np.ndarray) else xp.permute_dims(array, (1, 0))
        return array[1:]

    if (
        kind == "overlapping"
        and dtype in INTEGERS
        and name
        in ("floor_divide", "remainder", "pow", "bitwise_left_shift", "bitwise_right_shift")
    ):
        base = np.array(
            restrict(name, dtype, base), copy=True
        )  # every element may be the right operand
        mine, twin = xp.asarray(np.array(base, copy=True)), np.array(base, copy=True)
    if kind == "overlapping":
        y_twin, y_mine = twin[:-1], mine[:-1]
    else:
        shape = view(twin).shape
        y = restrict(name, dtype, values_of(dtype, math.prod(shape), data.draw).reshape(shape))
        y_twin, y_mine = y, xp.asarray(y)
    x_before, y_before = np.array(view(twin), copy=True), np.array(y_twin, copy=True)
    target = view(mine)
    target = IN_PLACE[name](target, y_mine)
    with np.errstate(all="ignore"):
        twin_view = view(twin)
        IN_PLACE[name](twin_view, y_twin)
    got = np.asarray(mine)
    problem = compare(
        f"view {IN_PLACE[name].__name__} y ({kind})",
        view(got),
        view(twin),
        [x_before, y_before],
        name,
    )
    index = np.arange(base.size).reshape(base.shape)
    others = np.setdiff1d(index.ravel(), view(index).ravel())
    if not equal_ieee(got.ravel()[others], twin.ravel()[others]).all():
        problem = (
            problem or ""
        ) + f"\nelements outside the view changed: {got.ravel()[others]} != {twin.ravel()[others]}"
    assert not problem, problem + f"\nbase: {describe(base)}"
