"""The standard's 67 elementwise functions.

Most are one row of a table (``_rules.UNARY_INPUTS`` and ``BINARY_INPUTS``:
the dtype category of the inputs): :func:`_make_unary` and
:func:`_make_binary` turn a row into a function with the standard's
signature, which checks its arguments (:mod:`dlarray._api._operands`) and
computes through the engine's standard namespace, ``namespace_of(a).<name>``,
on any engine.  The functions whose result NumPy's kernels do not give
(``ceil`` of an integer, ``real``, ``clip``, ...) are written out below.

The namespace (:mod:`dlarray._api`) puts the host fast path in front of
most of them (:mod:`dlarray._engine.host_fast_path`): a call the C core
computes never reaches this module.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from dlarray._api._operands import binary, scalar_array, unary
from dlarray._core import ArrayBase
from dlarray._dtypes import scalar_or_itself
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of, wrap
from dlarray._rules import (
    BINARY_INPUTS,
    CATEGORIES,
    DEFAULT_DTYPES,
    EXTENDED_FUNCTIONS,
    SCALAR_JOINS,
    SPELLINGS,
    UNARY_INPUTS,
    allowed_dtypes,
    check_dtype,
    common_device,
    keyword_refusal,
    refuse_unbroadcastable,
)

Kernel = Callable[..., Any]

# name -> (a call, the repr it returns), written by hand: the "Examples"
# section :func:`_doc` gives each function.  Inputs are chosen so that every
# result is exact on any libm (sin(0.0), exp(-inf), hypot(3, 4), ...); the
# doctest run (`pytest --doctest-modules`) checks each one.
_F = "dtype=dlarray.float64)"
_I = "dtype=dlarray.int64)"
_B = "dtype=dlarray.bool)"
_C = "dtype=dlarray.complex128)"
_EXAMPLES: dict[str, tuple[str, str]] = {
    # unary
    "abs": ("xp.abs(xp.asarray([-1.5, 2.0]))", f"dlarray.asarray([1.5, 2.0], {_F}"),
    "acos": ("xp.acos(xp.asarray([1.0]))", f"dlarray.asarray([0.0], {_F}"),
    "acosh": ("xp.acosh(xp.asarray([1.0]))", f"dlarray.asarray([0.0], {_F}"),
    "asin": ("xp.asin(xp.asarray([0.0, -0.0]))", f"dlarray.asarray([0.0, -0.0], {_F}"),
    "asinh": ("xp.asinh(xp.asarray([0.0]))", f"dlarray.asarray([0.0], {_F}"),
    "atan": ("xp.atan(xp.asarray([0.0]))", f"dlarray.asarray([0.0], {_F}"),
    "atanh": ("xp.atanh(xp.asarray([0.0]))", f"dlarray.asarray([0.0], {_F}"),
    "bitwise_invert": (
        "xp.bitwise_invert(xp.asarray([0, 5], dtype=xp.int8))",
        "dlarray.asarray([-1, -6], dtype=dlarray.int8)",
    ),
    "ceil": ("xp.ceil(xp.asarray([-1.5, 1.2]))", f"dlarray.asarray([-1.0, 2.0], {_F}"),
    "conj": ("xp.conj(xp.asarray([1 + 2j]))", f"dlarray.asarray([(1-2j)], {_C}"),
    "cos": ("xp.cos(xp.asarray([0.0]))", f"dlarray.asarray([1.0], {_F}"),
    "cosh": ("xp.cosh(xp.asarray([0.0]))", f"dlarray.asarray([1.0], {_F}"),
    "exp": ("xp.exp(xp.asarray([0.0, -xp.inf]))", f"dlarray.asarray([1.0, 0.0], {_F}"),
    "expm1": ("xp.expm1(xp.asarray([0.0]))", f"dlarray.asarray([0.0], {_F}"),
    "floor": ("xp.floor(xp.asarray([-1.5, 1.2]))", f"dlarray.asarray([-2.0, 1.0], {_F}"),
    "imag": ("xp.imag(xp.asarray([1 + 2j]))", f"dlarray.asarray([2.0], {_F}"),
    "isfinite": (
        "xp.isfinite(xp.asarray([1.0, xp.inf, xp.nan]))",
        f"dlarray.asarray([True, False, False], {_B}",
    ),
    "isinf": ("xp.isinf(xp.asarray([1.0, -xp.inf]))", f"dlarray.asarray([False, True], {_B}"),
    "isnan": ("xp.isnan(xp.asarray([1.0, xp.nan]))", f"dlarray.asarray([False, True], {_B}"),
    "log": ("xp.log(xp.asarray([1.0, xp.inf]))", f"dlarray.asarray([0.0, inf], {_F}"),
    "log1p": ("xp.log1p(xp.asarray([0.0]))", f"dlarray.asarray([0.0], {_F}"),
    "log2": ("xp.log2(xp.asarray([1.0, 8.0]))", f"dlarray.asarray([0.0, 3.0], {_F}"),
    "log10": ("xp.log10(xp.asarray([1.0, 100.0]))", f"dlarray.asarray([0.0, 2.0], {_F}"),
    "logical_not": (
        "xp.logical_not(xp.asarray([True, False]))",
        f"dlarray.asarray([False, True], {_B}",
    ),
    "negative": ("xp.negative(xp.asarray([1, -2]))", f"dlarray.asarray([-1, 2], {_I}"),
    "positive": ("xp.positive(xp.asarray([1, -2]))", f"dlarray.asarray([1, -2], {_I}"),
    "real": ("xp.real(xp.asarray([1 + 2j]))", f"dlarray.asarray([1.0], {_F}"),
    "reciprocal": ("xp.reciprocal(xp.asarray([2.0, 4.0]))", f"dlarray.asarray([0.5, 0.25], {_F}"),
    "round": (
        "xp.round(xp.asarray([0.5, 1.5, -2.5]))  # halves go to the even neighbour",
        f"dlarray.asarray([0.0, 2.0, -2.0], {_F}",
    ),
    "sign": ("xp.sign(xp.asarray([-3.0, 0.0, 2.0]))", f"dlarray.asarray([-1.0, 0.0, 1.0], {_F}"),
    "signbit": ("xp.signbit(xp.asarray([-0.0, 1.0]))", f"dlarray.asarray([True, False], {_B}"),
    "sin": ("xp.sin(xp.asarray([0.0]))", f"dlarray.asarray([0.0], {_F}"),
    "sinh": ("xp.sinh(xp.asarray([0.0]))", f"dlarray.asarray([0.0], {_F}"),
    "square": ("xp.square(xp.asarray([3, -4]))", f"dlarray.asarray([9, 16], {_I}"),
    "sqrt": ("xp.sqrt(xp.asarray([4.0, 9.0]))", f"dlarray.asarray([2.0, 3.0], {_F}"),
    "tan": ("xp.tan(xp.asarray([0.0]))", f"dlarray.asarray([0.0], {_F}"),
    "tanh": ("xp.tanh(xp.asarray([0.0, xp.inf]))", f"dlarray.asarray([0.0, 1.0], {_F}"),
    "trunc": ("xp.trunc(xp.asarray([-1.5, 1.7]))", f"dlarray.asarray([-1.0, 1.0], {_F}"),
    # binary
    "add": ("xp.add(xp.asarray([1, 2]), xp.asarray([10, 20]))", f"dlarray.asarray([11, 22], {_I}"),
    "atan2": ("xp.atan2(xp.asarray([0.0]), xp.asarray([1.0]))", f"dlarray.asarray([0.0], {_F}"),
    "bitwise_and": (
        "xp.bitwise_and(xp.asarray([12, 10]), xp.asarray([10, 6]))",
        f"dlarray.asarray([8, 2], {_I}",
    ),
    "bitwise_left_shift": (
        "xp.bitwise_left_shift(xp.asarray([1, 3]), xp.asarray([2, 1]))",
        f"dlarray.asarray([4, 6], {_I}",
    ),
    "bitwise_or": (
        "xp.bitwise_or(xp.asarray([12, 1]), xp.asarray([10, 2]))",
        f"dlarray.asarray([14, 3], {_I}",
    ),
    "bitwise_right_shift": (
        "xp.bitwise_right_shift(xp.asarray([16, 5]), xp.asarray([2, 1]))",
        f"dlarray.asarray([4, 2], {_I}",
    ),
    "bitwise_xor": (
        "xp.bitwise_xor(xp.asarray([12, 1]), xp.asarray([10, 1]))",
        f"dlarray.asarray([6, 0], {_I}",
    ),
    "copysign": (
        "xp.copysign(xp.asarray([1.0, 2.0]), xp.asarray([-0.0, 1.0]))",
        f"dlarray.asarray([-1.0, 2.0], {_F}",
    ),
    "divide": (
        "xp.divide(xp.asarray([1.0, 3.0]), xp.asarray([4.0, 2.0]))",
        f"dlarray.asarray([0.25, 1.5], {_F}",
    ),
    "equal": (
        "xp.equal(xp.asarray([1, 2]), xp.asarray([1, 3]))",
        f"dlarray.asarray([True, False], {_B}",
    ),
    "floor_divide": (
        "xp.floor_divide(xp.asarray([7, -7]), 2)  # rounds towards -infinity",
        f"dlarray.asarray([3, -4], {_I}",
    ),
    "greater": ("xp.greater(xp.asarray([1, 5]), 3)", f"dlarray.asarray([False, True], {_B}"),
    "greater_equal": (
        "xp.greater_equal(xp.asarray([1, 3]), 3)",
        f"dlarray.asarray([False, True], {_B}",
    ),
    "hypot": ("xp.hypot(xp.asarray([3.0]), xp.asarray([4.0]))", f"dlarray.asarray([5.0], {_F}"),
    "less": ("xp.less(xp.asarray([1, 5]), 3)", f"dlarray.asarray([True, False], {_B}"),
    "less_equal": ("xp.less_equal(xp.asarray([3, 5]), 3)", f"dlarray.asarray([True, False], {_B}"),
    "logaddexp": (
        "xp.logaddexp(xp.asarray([0.0, -xp.inf]), xp.asarray([0.0, 0.0]))  # log(2), log(1)",
        f"dlarray.asarray([0.6931471805599453, 0.0], {_F}",
    ),
    "logical_and": (
        "xp.logical_and(xp.asarray([True, True]), xp.asarray([True, False]))",
        f"dlarray.asarray([True, False], {_B}",
    ),
    "logical_or": (
        "xp.logical_or(xp.asarray([True, False]), xp.asarray([False, False]))",
        f"dlarray.asarray([True, False], {_B}",
    ),
    "logical_xor": (
        "xp.logical_xor(xp.asarray([True, True]), xp.asarray([True, False]))",
        f"dlarray.asarray([False, True], {_B}",
    ),
    "maximum": (
        "xp.maximum(xp.asarray([1.0, xp.nan]), xp.asarray([2.0, 0.0]))  # NaN propagates",
        f"dlarray.asarray([2.0, nan], {_F}",
    ),
    "minimum": (
        "xp.minimum(xp.asarray([1.0, 5.0]), xp.asarray([3.0, 2.0]))",
        f"dlarray.asarray([1.0, 2.0], {_F}",
    ),
    "multiply": (
        "xp.multiply(xp.asarray([2, 3]), xp.asarray([4, 5]))",
        f"dlarray.asarray([8, 15], {_I}",
    ),
    "nextafter": (
        "xp.nextafter(xp.asarray([1.0, 1.0]), xp.asarray([2.0, 0.0]))  # 1 + 2**-52, 1 - 2**-53",
        f"dlarray.asarray([1.0000000000000002, 0.9999999999999999], {_F}",
    ),
    "not_equal": (
        "xp.not_equal(xp.asarray([1, 2]), xp.asarray([1, 3]))",
        f"dlarray.asarray([False, True], {_B}",
    ),
    "pow": ("xp.pow(xp.asarray([2, 3]), 2)", f"dlarray.asarray([4, 9], {_I}"),
    "remainder": (
        "xp.remainder(xp.asarray([7, -7]), 3)  # takes the sign of the divisor",
        f"dlarray.asarray([1, 2], {_I}",
    ),
    "subtract": (
        "xp.subtract(xp.asarray([5, 3]), xp.asarray([1, 4]))",
        f"dlarray.asarray([4, -1], {_I}",
    ),
}


def _examples(name: str) -> str:
    call, output = _EXAMPLES[name]
    return f"Examples\n--------\n>>> import dlarray as xp\n>>> {call}\n{output}\n"


def _doc(name: str, category: str, arity: int, note: str = "") -> str:
    args = "x" if arity == 1 else "x1, x2"
    scalars = (
        ""
        if arity == 1
        else "\n\nOne of ``x1``, ``x2`` may be a Python scalar (the standard's scalar rules)."
    )
    intro = f"{note}\n\n" if note else ""
    if name in EXTENDED_FUNCTIONS:
        intro += (
            "Also takes float16, bfloat16 and the fp8/fp6/fp4 formats, outside the "
            "standard: arrays of one such dtype (no Python scalar, no other dtype), with "
            "NumPy-with-ml_dtypes' results (docs/api/dtypes.md).\n\n"
        )
    return (
        f"Elementwise ``{name}({args})`` as the Array API defines it.\n\n{intro}"
        f"Inputs must have a {category} dtype (``TypeError`` otherwise); the "
        f"standard's special cases for NaN, infinities and signed zeros apply."
        f"{scalars}\n\nSee https://data-apis.org/array-api/2025.12/API_specification/"
        f"generated/array_api.{name}.html\n\n{_raises(category, arity)}{_examples(name)}"
    )


def _raises(category: str, arity: int) -> str:
    """The Raises section of an elementwise function: the namespace's shared
    rules (docs/api/namespace.md, "Errors every namespace function shares")."""
    shared = "Errors follow the namespace's shared rules (:ref:`namespace-errors`).\n\n"
    if arity == 1:
        return (
            shared + "Raises\n------\n"
            "TypeError\n"
            f"    If ``x`` is not a DLArray, or its dtype is not {category}.\n\n"
        )
    return (
        shared + "Raises\n------\n"
        "TypeError\n"
        "    If an operand is neither a DLArray nor a Python scalar, both are\n"
        f"    scalars, a dtype is not {category}, the two dtypes have no\n"
        "    promotion (no mixing of kinds), or a scalar's kind does not fit the\n"
        "    array's dtype.\n"
        "ValueError\n"
        "    If the shapes do not broadcast, or the arrays are on different devices.\n"
        "OverflowError\n"
        "    If a Python ``int`` operand does not fit in the array's dtype.\n\n"
    )


def _make_unary(name: str) -> Callable[..., ArrayBase]:
    """The function of row ``name`` of ``UNARY_INPUTS``."""
    category = UNARY_INPUTS[name]
    allowed = allowed_dtypes(category, name)  # the extended floats too, for some

    def function(x: ArrayBase, /) -> ArrayBase:
        a = unary(x, allowed, category, name)
        return call(getattr(namespace_of(a), name), a)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = _doc(name, category, 1)
    return _refusing_keywords(function) if name in _KEYWORD_HABITS else function


#: The functions with another library's keyword in the table of spellings
#: (``dlarray.round(decimals=)``): their refusal of it says what to write.
_KEYWORD_HABITS = frozenset(
    spelling.partition("(")[0].removeprefix("dlarray.")
    for spelling in SPELLINGS
    if spelling.endswith("=)")
)


def _refusing_keywords(function: Callable[[ArrayBase], ArrayBase]) -> Callable[..., ArrayBase]:
    """``function``, refusing keywords with :func:`keyword_refusal` (its
    signature, read through ``__wrapped__``, stays the standard's)."""

    @functools.wraps(function)
    def refusing(x: ArrayBase, /, **keywords: Any) -> ArrayBase:
        if keywords:
            raise keyword_refusal(function.__name__, keywords)
        return function(x)

    return refusing


def _true_divide(xp: Any) -> Kernel:
    """``divide`` with dlarray's rule for integers (the standard leaves them
    to the implementation): the default floating dtype, float64, as NumPy's
    own kernel gives.  Engines that refuse integer division (array-api-strict)
    get float64 operands."""
    divide, float64 = xp.divide, engine_dtype(xp, DEFAULT_DTYPES["real floating"])

    def kernel(a1: Any, a2: Any, /) -> Any:
        if xp.isdtype(a1.dtype, "integral"):  # (binary() gave both one dtype)
            a1, a2 = xp.astype(a1, float64), xp.astype(a2, float64)
        return divide(a1, a2)

    return kernel


# Binary functions whose general path is dlarray's own, over the engine's.
_OWN_KERNELS: dict[str, Callable[[Any], Kernel]] = {"divide": _true_divide}
_KERNELS_OF: dict[tuple[int, str], Kernel] = {}


def _kernel_of(xp: Any, name: str) -> Kernel:
    """The kernel of binary function ``name`` in engine namespace ``xp``."""
    try:
        return _KERNELS_OF[id(xp), name]
    except KeyError:
        own = _OWN_KERNELS.get(name)
        kernel = _KERNELS_OF[id(xp), name] = getattr(xp, name) if own is None else own(xp)
        return kernel


def _make_binary(name: str) -> Callable[[Any, Any], ArrayBase]:
    """The function of row ``name`` of ``BINARY_INPUTS``."""
    category = BINARY_INPUTS[name]
    allowed = allowed_dtypes(category, name)  # the extended floats too, for some

    def function(x1: Any, x2: Any, /) -> ArrayBase:
        # An array with a Python scalar that keeps the array's dtype.
        if isinstance(x1, ArrayBase) and type(x2) in SCALAR_JOINS:
            dtype = x1.dtype
            if dtype in allowed and dtype in SCALAR_JOINS[type(x2)]:
                a = engine_view(x1)
                kernel = _kernel_of(namespace_of(a), name)
                return call(kernel, a, scalar_array(x2, dtype, name, a))
        elif isinstance(x2, ArrayBase) and type(x1) in SCALAR_JOINS:
            dtype = x2.dtype
            if dtype in allowed and dtype in SCALAR_JOINS[type(x1)]:
                a = engine_view(x2)
                kernel = _kernel_of(namespace_of(a), name)
                return call(kernel, scalar_array(x1, dtype, name, a), a)
        a1, a2, _ = binary(x1, x2, allowed, category, name)
        try:
            return call(_kernel_of(namespace_of(a1), name), a1, a2)
        except ValueError:
            refuse_unbroadcastable(name, tuple(a1.shape), tuple(a2.shape))
            raise  # another value the engine refuses, in its words

    function.__name__ = function.__qualname__ = name
    function.__doc__ = _doc(name, category, 2)
    return function


# ---- functions whose result dtype or signature NumPy does not give ----

_COPIED_AS_THEY_ARE = CATEGORIES["integer or boolean"]


def _same_dtype_unary(name: str) -> Callable[[ArrayBase], ArrayBase]:
    """ceil/floor/trunc/real/imag: integers (and real inputs to ``real``) come
    back unchanged as a copy (NumPy would turn integers into floats), and
    ``real``/``imag`` of a complex array are new arrays, not views into it."""
    category = UNARY_INPUTS[name]
    allowed = CATEGORIES[category]

    def function(x: ArrayBase, /) -> ArrayBase:
        a = unary(x, allowed, category, name)
        xp = namespace_of(a)
        if x.dtype in _COPIED_AS_THEY_ARE or (name == "real" and x.dtype in _REAL_FLOATING):
            return wrap(xp.asarray(a, copy=True))
        result = getattr(xp, name)(a)
        if name in ("real", "imag"):
            result = xp.asarray(result, copy=True)
        return wrap(result)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = _doc(name, category, 1)
    return function


_REAL_FLOATING = CATEGORIES["real floating"]


def nextafter(x1: Any, x2: Any, /) -> ArrayBase:
    a1, a2, _ = binary(x1, x2, CATEGORIES["real floating"], "real floating", "nextafter")
    return call(namespace_of(a1).nextafter, a1, a2)


nextafter.__doc__ = _doc(
    "nextafter",
    "real floating",
    2,
    note="The next representable value after ``x1`` towards ``x2``.  The result has the "
    "promoted dtype (the standard requires equal dtypes, so it is ``x1``'s).",
)


def clip(x: ArrayBase, /, min: Any = None, max: Any = None) -> ArrayBase:
    """Clamp each element of ``x`` to ``[min, max]``.

    ``min`` and ``max`` are Python scalars, arrays broadcastable to ``x``, or
    ``None`` (no bound).  The result has ``x``'s dtype and the broadcast
    shape of ``x``, ``min`` and ``max``.  Where
    ``min > max`` the standard leaves the result unspecified (here: ``max``).

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not real-valued, or ``min``/``max`` is
        neither None, a Python int or float, nor an array; a bound of another
        kind than ``x`` (a float for an integer array) is refused too.
    ValueError
        If a bound does not broadcast to ``x``, or is on another device.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.clip(xp.asarray([1, 5, 9]), min=2, max=6)
    dlarray.asarray([2, 5, 6], dtype=dlarray.int64)
    """
    a = unary(x, CATEGORIES["real-valued"], "real-valued", "clip")
    xp = namespace_of(a)
    dtype = x.dtype
    integral = dtype in _INTEGER
    bounds: list[Any] = []
    for label, bound in (("min", min), ("max", max)):
        bound = scalar_or_itself(bound)  # numpy.float64 is a float
        if bound is None:
            bounds.append(None)
            continue
        if isinstance(bound, ArrayBase):
            common_device((x, bound), "clip")
            check_dtype(bound.dtype, "real-valued", f"clip({label}=...)")
            b = engine_view(bound)
            if (bound.dtype in _INTEGER) is not integral:
                raise TypeError(
                    f"clip: {label} has dtype {bound.dtype.name}, of another kind than x's "
                    f"{dtype.name}; the Array API leaves this unspecified, and dlarray "
                    f"refuses it"
                )
        elif type(bound) in (int, float):
            if type(bound) is float and integral:
                raise TypeError(f"clip: a float {label} with an integer array; pass an int")
            if integral:
                info = xp.iinfo(engine_dtype(xp, dtype))
                bound = info.min if bound < info.min else info.max if bound > info.max else bound
            b = scalar_array(bound, dtype, "clip", a)
        else:
            raise TypeError(
                f"clip: {label} must be None, a Python int or float, or an array, got "
                f"{type(bound).__name__}"
            )
        bounds.append(b)
    lo, hi = bounds
    # x where it is within the bounds, the bound it passes otherwise: the
    # standard's definition, which keeps x's own -0.0 at a bound of 0.0
    # (maximum would not); NaN from x or from either bound propagates, as the
    # standard's special cases require; min > max gives max.
    return call(_clip_kernel, xp, a, lo, hi)


_INTEGER = CATEGORIES["integer"]


def _clip_kernel(xp: Any, a: Any, lo: Any, hi: Any) -> Any:
    out = a
    for bound, passed in ((lo, xp.less), (hi, xp.greater)):
        if bound is None:
            continue
        out = xp.where(passed(out, bound), bound, out)
        if xp.isdtype(bound.dtype, "real floating"):
            out = xp.where(xp.isnan(bound), bound, out)  # a NaN bound gives NaN
    if out is a:
        return xp.asarray(a, copy=True)
    return xp.astype(out, a.dtype, copy=False)


# ---- the functions, one line each ----
# Made from the rows of _rules.UNARY_INPUTS and BINARY_INPUTS (nextafter and
# clip are written out above).

abs = _make_unary("abs")
acos = _make_unary("acos")
acosh = _make_unary("acosh")
asin = _make_unary("asin")
asinh = _make_unary("asinh")
atan = _make_unary("atan")
atanh = _make_unary("atanh")
bitwise_invert = _make_unary("bitwise_invert")
ceil = _same_dtype_unary("ceil")
conj = _make_unary("conj")
cos = _make_unary("cos")
cosh = _make_unary("cosh")
exp = _make_unary("exp")
expm1 = _make_unary("expm1")
floor = _same_dtype_unary("floor")
imag = _same_dtype_unary("imag")
isfinite = _make_unary("isfinite")
isinf = _make_unary("isinf")
isnan = _make_unary("isnan")
log = _make_unary("log")
log1p = _make_unary("log1p")
log2 = _make_unary("log2")
log10 = _make_unary("log10")
logical_not = _make_unary("logical_not")
negative = _make_unary("negative")
positive = _make_unary("positive")
real = _same_dtype_unary("real")
reciprocal = _make_unary("reciprocal")
round = _make_unary("round")
sign = _make_unary("sign")
signbit = _make_unary("signbit")
sin = _make_unary("sin")
sinh = _make_unary("sinh")
square = _make_unary("square")
sqrt = _make_unary("sqrt")
tan = _make_unary("tan")
tanh = _make_unary("tanh")
trunc = _same_dtype_unary("trunc")

add = _make_binary("add")
atan2 = _make_binary("atan2")
bitwise_and = _make_binary("bitwise_and")
bitwise_left_shift = _make_binary("bitwise_left_shift")
bitwise_or = _make_binary("bitwise_or")
bitwise_right_shift = _make_binary("bitwise_right_shift")
bitwise_xor = _make_binary("bitwise_xor")
copysign = _make_binary("copysign")
divide = _make_binary("divide")
equal = _make_binary("equal")
floor_divide = _make_binary("floor_divide")
greater = _make_binary("greater")
greater_equal = _make_binary("greater_equal")
hypot = _make_binary("hypot")
less = _make_binary("less")
less_equal = _make_binary("less_equal")
logaddexp = _make_binary("logaddexp")
logical_and = _make_binary("logical_and")
logical_or = _make_binary("logical_or")
logical_xor = _make_binary("logical_xor")
maximum = _make_binary("maximum")
minimum = _make_binary("minimum")
multiply = _make_binary("multiply")
not_equal = _make_binary("not_equal")
pow = _make_binary("pow")
remainder = _make_binary("remainder")
subtract = _make_binary("subtract")

divide.__doc__ = _doc(
    "divide",
    "numeric",
    2,
    note="Floating-point operands give their promoted dtype.  Integer operands (the "
    "standard leaves them to the implementation) give the default floating dtype, "
    "float64, as NumPy, PyTorch, CuPy and JAX do: ``xp.asarray([1, 2]) / 4`` is "
    "``[0.25, 0.5]``.  A bool operand, or a float scalar with an integer array, "
    "raises ``TypeError``.",
)

#: Every function of this chapter, by name.
FUNCTIONS: dict[str, Callable[..., ArrayBase]] = {
    name: globals()[name] for name in (*UNARY_INPUTS, *BINARY_INPUTS, "clip")
}

__all__ = sorted(FUNCTIONS)
