"""The Array API's rules, kept in one place.

Every namespace function asks this module three questions, and no function
answers them on its own:

* **Is this dtype allowed here?**  :data:`CATEGORIES` names the standard's
  dtype categories ("numeric", "real floating", ...); :func:`check_dtype`
  raises ``TypeError`` for a dtype outside the category.
* **What dtype does a mixed operation produce?**  :func:`promote` applies
  the standard's promotion lattice (``_PROMOTION``, built below from the
  standard's rules, never from NumPy's).  Pairs the standard leaves
  undefined (``int64`` with ``uint64``, any integer with any float, ``bool``
  with a number) raise ``TypeError``: there is no value-based casting.
* **Where does the result live?**  :func:`common_device` insists that all
  array arguments share one device and raises ``ValueError`` otherwise.

Python scalars follow the standard's "mixing arrays with Python scalars"
section in :func:`scalar_dtype`.

The floating formats outside the standard (:data:`EXTENDED_FLOATS`:
float16, bfloat16 and the fp8/fp6/fp4 formats) follow one rule, kept here
too: dlarray *moves, compares and converts* them, and does no arithmetic
on them.

* Promotion of any dtype with itself is that dtype, so copies,
  assignment, ``where``, ``concat``/``stack`` and the other manipulation
  functions work on them as on any dtype.
* The functions named in :data:`EXTENDED_FUNCTIONS` (the comparisons,
  ``isnan``/``isinf``/``isfinite``/``signbit``, ``where``, ``nonzero``,
  ``count_nonzero``, ``argmax``, ``argmin``: each exact, no rounding)
  accept them next to their standard category (:func:`allowed_dtypes`).
* Every other function, and every pair of an extended float with another
  dtype, is refused by :func:`check_dtype` and :func:`promote` with one
  message, :func:`extended_refusal`, which says what does work: ``astype``
  to a standard float first.
* Python scalars join an extended array only where they are stored into
  it (``x[i] = 1.5``, rounded as ``astype`` rounds).  In a comparison an
  out-of-range scalar would silently become NaN or the format's largest
  value (``float8_e4m3fn`` has no infinity), so a comparison wants an array.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable
from typing import Any, Final

import numpy as np

from dlarray._core import ArrayBase
from dlarray._device import CPU, Device
from dlarray._dtypes import DTYPES_BY_NAME, DType, as_python_scalar, dtype_argument

_D = DTYPES_BY_NAME

#: The operators' symbols, by the namespace function each means (for messages).
SYMBOLS = {
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "divide": "/",
    "floor_divide": "//",
    "remainder": "%",
    "pow": "**",
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "bitwise_left_shift": "<<",
    "bitwise_right_shift": ">>",
    "matmul": "@",
    "less": "<",
    "less_equal": "<=",
    "greater": ">",
    "greater_equal": ">=",
    "equal": "==",
    "not_equal": "!=",
}

#: The 13 dtypes of the standard, in the order the standard lists them.
STANDARD_DTYPES: Final[tuple[DType, ...]] = tuple(
    _D[n]
    for n in (
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
)

_BOOL = frozenset({_D["bool"]})
_SIGNED = frozenset(_D[n] for n in ("int8", "int16", "int32", "int64"))
_UNSIGNED = frozenset(_D[n] for n in ("uint8", "uint16", "uint32", "uint64"))
_REAL_FLOAT = frozenset({_D["float32"], _D["float64"]})
_COMPLEX = frozenset({_D["complex64"], _D["complex128"]})

#: The standard's dtype categories, by the names its text uses.
CATEGORIES: Final[dict[str, frozenset[DType]]] = {
    "bool": _BOOL,
    "signed integer": _SIGNED,
    "unsigned integer": _UNSIGNED,
    "integer": _SIGNED | _UNSIGNED,
    "real floating": _REAL_FLOAT,
    "complex floating": _COMPLEX,
    "floating-point": _REAL_FLOAT | _COMPLEX,
    "real numeric": _SIGNED | _UNSIGNED | _REAL_FLOAT,
    "numeric": _SIGNED | _UNSIGNED | _REAL_FLOAT | _COMPLEX,
    "integer or boolean": _SIGNED | _UNSIGNED | _BOOL,
    "real-valued": _SIGNED | _UNSIGNED | _REAL_FLOAT,
    "all": frozenset(STANDARD_DTYPES),
}

#: The floating formats outside the standard: float16, bfloat16 and the
#: fp8/fp6/fp4 formats of DLPack 1.3 (on the host, NumPy holds all but
#: float16 through ml_dtypes).
EXTENDED_FLOATS: Final[frozenset[DType]] = frozenset(
    d for d in _D.values() if d.kind == "extended floating" or d.name == "float16"
)

#: The namespace functions that take extended floats besides their
#: standard category: those that only compare or classify values, exactly
#: (no rounding), as NumPy with ml_dtypes does.  Data movement (indexing,
#: assignment, copies, the manipulation functions) takes every dtype
#: without asking, and ``astype`` converts between any two floats.
EXTENDED_FUNCTIONS: Final[frozenset[str]] = frozenset(
    {
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "isnan",
        "isinf",
        "isfinite",
        "signbit",
        "where",
        "nonzero",
        "count_nonzero",
        "argmax",
        "argmin",
    }
)

#: What the refusal says works, in the words of the docs' dtype table.
_EXTENDED_WORKS = (
    "indexing and assignment of the same dtype, copies, where, concat, stack and the "
    "other manipulation functions, ==, !=, <, <=, >, >=, isnan, isinf, isfinite, "
    "signbit, nonzero, count_nonzero, argmax, argmin, finfo, and astype to and from "
    "every float"
)


def extended_refusal(func: str, dtype: DType, other: DType | None = None) -> TypeError:
    """The one message for what dlarray does not do with an extended float
    (``dtype``): arithmetic in the format, or mixing it with ``other``."""
    if other is None:
        what = f"not defined for {dtype.name}"
    else:
        what = f"no promotion between {dtype.name} and {other.name}"
    return TypeError(
        f"{func}: {what}. float16, bfloat16 and the fp8/fp6/fp4 formats are outside the "
        f"Array API: dlarray moves, compares and converts them, mixes them with no other "
        f"dtype and does no arithmetic on them. What works: {_EXTENDED_WORKS}. Convert with "
        f"`dlarray.astype(x, dlarray.float32)` first"
    )


#: The elementwise functions of one argument: name -> the dtype category
#: of its input (the standard's "Parameters").  Their result dtype is the
#: engine kernel's: for every row, the standard's result dtype for inputs of
#: one standard dtype (checked by tests/namespace/test_data_types.py).
UNARY_INPUTS: Final[dict[str, str]] = {
    "abs": "numeric",
    "acos": "floating-point",
    "acosh": "floating-point",
    "asin": "floating-point",
    "asinh": "floating-point",
    "atan": "floating-point",
    "atanh": "floating-point",
    "bitwise_invert": "integer or boolean",
    "ceil": "real-valued",
    "conj": "numeric",
    "cos": "floating-point",
    "cosh": "floating-point",
    "exp": "floating-point",
    "expm1": "floating-point",
    "floor": "real-valued",
    "imag": "complex floating",
    "isfinite": "numeric",
    "isinf": "numeric",
    "isnan": "numeric",
    "log": "floating-point",
    "log1p": "floating-point",
    "log2": "floating-point",
    "log10": "floating-point",
    "logical_not": "bool",
    "negative": "numeric",
    "positive": "numeric",
    "real": "numeric",
    "reciprocal": "floating-point",
    "round": "numeric",
    "sign": "numeric",
    "signbit": "real floating",
    "sin": "floating-point",
    "sinh": "floating-point",
    "square": "numeric",
    "sqrt": "floating-point",
    "tan": "floating-point",
    "tanh": "floating-point",
    "trunc": "real-valued",
}

#: The elementwise functions of two arguments: name -> the dtype category
#: of their inputs.
BINARY_INPUTS: Final[dict[str, str]] = {
    "add": "numeric",
    "atan2": "real floating",
    "bitwise_and": "integer or boolean",
    "bitwise_left_shift": "integer",
    "bitwise_or": "integer or boolean",
    "bitwise_right_shift": "integer",
    "bitwise_xor": "integer or boolean",
    "copysign": "real floating",
    # Integers too: the standard leaves integer true division to the
    # implementation, and NumPy's kernel gives the default float (float64)
    # for every integer input, as PyTorch, CuPy and JAX do.
    "divide": "numeric",
    "equal": "all",
    "floor_divide": "real-valued",
    "greater": "real-valued",
    "greater_equal": "real-valued",
    "hypot": "real floating",
    "less": "real-valued",
    "less_equal": "real-valued",
    "logaddexp": "real floating",
    "logical_and": "bool",
    "logical_or": "bool",
    "logical_xor": "bool",
    "maximum": "real-valued",
    "minimum": "real-valued",
    "multiply": "numeric",
    "nextafter": "real floating",
    "not_equal": "all",
    "pow": "numeric",
    "remainder": "real-valued",
    "subtract": "numeric",
}


def allowed_dtypes(category: str, func: str) -> frozenset[DType]:
    """The dtypes ``func`` accepts: its standard category, and the extended
    floats where :data:`EXTENDED_FUNCTIONS` names it."""
    allowed = CATEGORIES[category]
    return allowed | EXTENDED_FLOATS if func in EXTENDED_FUNCTIONS else allowed


#: The kind names of ``isdtype`` and ``__array_namespace_info__().dtypes(kind=)``.
KINDS: Final[dict[str, frozenset[DType]]] = {
    "bool": CATEGORIES["bool"],
    "signed integer": CATEGORIES["signed integer"],
    "unsigned integer": CATEGORIES["unsigned integer"],
    "integral": CATEGORIES["integer"],
    "real floating": CATEGORIES["real floating"],
    "complex floating": CATEGORIES["complex floating"],
    "numeric": CATEGORIES["numeric"],
}

#: The default dtypes of this implementation (``__array_namespace_info__``).
DEFAULT_DTYPES: Final[dict[str, DType]] = {
    "real floating": _D["float64"],
    "complex floating": _D["complex128"],
    "integral": _D["int64"],
    "indexing": _D["int64"],
}

#: The complex dtype of the same precision as a real one, and back.
COMPLEX_OF: Final[dict[DType, DType]] = {
    _D["float32"]: _D["complex64"],
    _D["float64"]: _D["complex128"],
}
REAL_OF: Final[dict[DType, DType]] = {c: r for r, c in COMPLEX_OF.items()}


def _build_promotion() -> dict[tuple[DType, DType], DType]:
    """The standard's promotion table, from its lattice.

    Within one kind the wider type wins; a signed and an unsigned integer meet
    at the smallest signed type that holds both (none for ``uint64``); a real
    and a complex float meet at the complex type of the larger precision.
    """
    table: dict[tuple[DType, DType], DType] = {}

    def both(a: str, b: str, result: str) -> None:
        table[_D[a], _D[b]] = table[_D[b], _D[a]] = _D[result]

    for chain in (
        ("int8", "int16", "int32", "int64"),
        ("uint8", "uint16", "uint32", "uint64"),
        ("float32", "float64"),
        ("complex64", "complex128"),
    ):
        for i, a in enumerate(chain):
            for b in chain[i:]:
                both(a, b, b)
    table[_D["bool"], _D["bool"]] = _D["bool"]
    for unsigned, bits in (("uint8", 8), ("uint16", 16), ("uint32", 32)):
        for signed in ("int8", "int16", "int32", "int64"):
            width = max(2 * bits, int(signed[3:]))
            both(unsigned, signed, f"int{width}")
    both("float32", "complex64", "complex64")
    both("float32", "complex128", "complex128")
    both("float64", "complex64", "complex128")
    both("float64", "complex128", "complex128")
    return table


_PROMOTION: Final = _build_promotion()


def check_dtype(dtype: DType, category: str, func: str) -> None:
    """Raise ``TypeError`` unless ``dtype`` is in the named category: the
    extended floats' one message (:func:`extended_refusal`) for a function
    that takes none of them, the category's for any other case (a function
    that takes extended floats checks them in with :func:`allowed_dtypes`
    first, so ``check_dtype`` sees one only in an argument that takes none,
    such as ``where``'s condition)."""
    if dtype not in CATEGORIES[category]:
        if dtype in EXTENDED_FLOATS and func not in EXTENDED_FUNCTIONS:
            raise extended_refusal(func, dtype)
        raise TypeError(
            f"{func}: got an array of dtype {dtype.name}, but {func} is defined only for "
            f"{category} dtypes; {_category_fix(dtype, category, func)}"
        )


def check_dtype_argument(dtype: DType, category: str, func: str) -> None:
    """Raise ``TypeError`` unless the ``dtype=`` argument of a function that
    makes values (``linspace``) names a dtype of ``category``."""
    if dtype not in CATEGORIES[category]:
        names = ", ".join(d.name for d in STANDARD_DTYPES if d in CATEGORIES[category])
        raise TypeError(
            f"{func}: dtype={dtype.name} was passed, but {func} makes {category} values "
            f"only ({names}); pass one of those, or convert the result with "
            f"dlarray.astype"
        )


def promotion(a: DType, b: DType) -> DType | None:
    """The standard's promoted dtype of ``a`` and ``b``, or None where it
    defines none (:func:`promote` raises there)."""
    return a if a is b else _PROMOTION.get((a, b))


def promote(a: DType, b: DType, func: str = "result_type", category: str = "all") -> DType:
    """The standard's promoted dtype of ``a`` and ``b``, or ``TypeError``.

    A dtype with itself is itself, for every dtype (the extended floats
    too); an extended float with any other dtype has no promotion.  The
    refusal's fixes convert only to dtypes of ``category``, the one
    ``func`` takes."""
    if a is b:
        return a
    try:
        return _PROMOTION[a, b]
    except KeyError:
        if a in EXTENDED_FLOATS or b in EXTENDED_FLOATS:
            raise extended_refusal(func, a, b) from None
        raise TypeError(
            f"{func}: the Array API defines no promotion between {a.name} and {b.name} "
            f"(no mixing of kinds, and no int64/uint64 pair); "
            f"{_promotion_fix(a, b, func, category)}"
        ) from None


#: Python scalar type -> the array dtypes it joins keeping the array's dtype
#: (the common case of :func:`scalar_dtype`).
SCALAR_JOINS: Final[dict[type, frozenset[DType]]] = {
    bool: CATEGORIES["bool"],
    int: CATEGORIES["numeric"],
    float: CATEGORIES["floating-point"],
    complex: CATEGORIES["complex floating"],
}


def scalar_dtype(
    value: Any, dtype: DType, func: str, scalar_first: bool = False, category: str = "all"
) -> DType:
    """The dtype a Python scalar takes when combined with an array of ``dtype``.

    Following the standard: a ``bool`` joins a bool array; an ``int`` joins an
    integer or floating array; a ``float`` joins a floating array; a
    ``complex`` joins a complex array, or a real floating array by promoting
    it to the complex type of the same precision.  Any other pairing raises
    ``TypeError``, whose fix writes the call again with the operands in its
    order (``scalar_first``: the scalar is the first operand), converting
    only to dtypes of ``category``, the one ``func`` takes.
    """
    kind = type(value)
    joins = SCALAR_JOINS.get(kind)
    if joins is None:
        raise TypeError(
            f"{func}: expected a dlarray array or a Python bool, int, float or complex, "
            f"got {type(value).__name__}"
        )
    if dtype in EXTENDED_FLOATS:
        raise TypeError(
            f"{func}: a Python {kind.__name__} next to a {dtype.name} array; {dtype.name} is "
            f"outside the Array API, and the scalar would be rounded to it (an out-of-range "
            f"one to inf, to NaN or to the largest value, by format). Use an array: "
            f"dlarray.asarray(value, dtype=x.dtype), or convert with "
            f"dlarray.astype(x, dlarray.float32) first"
        )
    if dtype in joins:
        return dtype
    if kind is complex and dtype in _REAL_FLOAT:
        return COMPLEX_OF[dtype]
    raise TypeError(
        f"{func}: a Python {kind.__name__} cannot be combined with an array of dtype "
        f"{dtype.name} under the Array API's scalar rules (no mixing of kinds); "
        f"{_scalar_fix(value, dtype, func, scalar_first, category)}"
    )


# ---- fixes: code that does what a refused call meant ----
#
# A refusal that knows what to write instead says it as code between
# backticks, which runs as it stands once its names are bound: ``x`` the
# array (``x1`` and ``x2`` the two arrays of a pair, in the call's order),
# ``condition`` where's first argument, ``key`` and ``value`` of an
# assignment ``x[key] = value``, ``arrays`` the list given to concat or
# stack.  It computes what NumPy computes for the refused call: NumPy's
# promotion (:func:`numpy_promotion`), which dlarray.compat also applies.
# tests/package/test_errors.py runs every one.

#: The functions that ``dlarray.compat`` runs with NumPy's mixed-kind
#: promotions (its departures 1, 2 and 5): a refusal of a mixed pair in one
#: of them names compat's function.
NUMPY_PROMOTING: Final[frozenset[str]] = frozenset(
    (
        "add subtract multiply divide floor_divide remainder pow atan2 hypot copysign "
        "nextafter logaddexp maximum minimum equal not_equal less less_equal greater "
        "greater_equal bitwise_and bitwise_or bitwise_xor bitwise_left_shift "
        "bitwise_right_shift where result_type"
    ).split()
)

#: How a refused call of :data:`NUMPY_PROMOTING` is written again, where it
#: is not ``{ns}.<func>(first, second)`` (``{ns}``: ``dlarray`` or
#: ``dlarray.compat``); an operator's function (:data:`SYMBOLS`) is its
#: operator in ``dlarray``'s fix.
_CALL_FORMS: Final[dict[str, str]] = {"where": "{ns}.where(condition, {0}, {1})"}

_COMPAT_IMPORT = "`import dlarray.compat`"


def numpy_promotion(*operands: Any) -> DType | None:
    """NumPy's promotion of arrays, dtypes and Python scalars (NEP 50: a
    scalar of a higher kind gives that kind's default dtype), as a dlarray
    dtype: the one rule of the refusals' fixes and of ``dlarray.compat``.
    None where it gives none dlarray computes in: an extended float takes
    part (dlarray mixes them with no other dtype), NumPy has no promotion,
    the dtype is not dlarray's, or an operand is none of those."""
    items: list[Any] = []
    for operand in operands:
        dtype = operand.dtype if isinstance(operand, ArrayBase) else dtype_argument(operand)
        if dtype is not None:
            if dtype in EXTENDED_FLOATS:
                return None
            items.append(dtype.dtype)
            continue
        scalar = as_python_scalar(operand)
        if scalar is None:
            return None
        items.append(scalar)
    try:
        return dtype_argument(np.result_type(*items))
    except (TypeError, ValueError):  # no promotion; nothing to promote
        return None


def _converted(name: str, dtype: DType) -> str:
    return f"dlarray.astype({name}, dlarray.{dtype.name})"


def _call(func: str, operands: tuple[str, str], ns: str = "dlarray") -> str:
    """The code of ``func`` of :data:`NUMPY_PROMOTING` on two operands."""
    symbol = SYMBOLS.get(func)
    if symbol is not None and ns == "dlarray":
        return f"{operands[0]} {symbol} {operands[1]}"
    form = _CALL_FORMS.get(func, "{ns}.{func}({0}, {1})")
    return form.format(*operands, ns=ns, func=func)


def _fix(
    func: str, target: DType | None, names: tuple[str, str], converting: tuple[bool, bool]
) -> str:
    """The fixes of a refused mixed pair: the call with the operands named
    ``names`` (code: a name, or a scalar's repr) converted to ``target``
    where ``converting`` says, and compat's call on them as they are where
    compat promotes for ``func``.  A function outside compat's elementwise
    ones (concat, tensordot, searchsorted: more arguments than the pair) is
    called again after the conversion, its other arguments unchanged.  The
    caller has checked that ``func`` takes ``target`` (None: NumPy gives no
    dtype dlarray computes in, and compat refuses as dlarray does)."""
    if target is None:
        return "convert the operands with dlarray.astype first"
    fixes = []
    if func != "result_type":
        if func in NUMPY_PROMOTING:
            first, second = (
                _converted(name, target) if convert else name
                for name, convert in zip(names, converting, strict=True)
            )
            fixes.append(f"convert first, as NumPy would: `{_call(func, (first, second))}`")
        else:
            statements = ", ".join(
                f"`{name} = {_converted(name, target)}`"
                for name, convert in zip(names, converting, strict=True)
                if convert
            )
            fixes.append(f"convert first, as NumPy would: {statements}, and call {func} again")
    if func in NUMPY_PROMOTING:
        fixes.append(
            f"let dlarray.compat promote as NumPy does: {_COMPAT_IMPORT}, then "
            f"`{_call(func, names, ns='dlarray.compat')}`"
        )
    return "; or ".join(fixes)


def _promotion_fix(a: DType, b: DType, func: str, category: str) -> str:
    """The fix of two array dtypes without a promotion (``a`` the first)."""
    target = numpy_promotion(a, b)
    if target is not None and target not in CATEGORIES[category]:
        return _outside_category(func, category, target, (("x1", a), ("x2", b)))
    if func in ("concat", "stack") and target is not None:
        return (
            f"convert them first, as NumPy would: "
            f"`arrays = [{_converted('a', target)} for a in arrays]`, and call {func} again"
        )
    return _fix(func, target, ("x1", "x2"), (a is not target, b is not target))


def _scalar_fix(value: Any, dtype: DType, func: str, scalar_first: bool, category: str) -> str:
    """The fix of a Python scalar whose kind an array of ``dtype`` cannot take."""
    target = numpy_promotion(dtype, value)
    if target is not None and target not in CATEGORIES[category]:
        array, scalar = ("x", dtype), (repr(value), value)
        operands = (scalar, array) if scalar_first else (array, scalar)
        return _outside_category(func, category, target, operands)
    if type(value) is bool:  # a bool next to numbers: the number the bool means
        number = str(int(value))
        if func not in NUMPY_PROMOTING:
            return f"pass the int it stands for, {number}"
        names = (number, "x") if scalar_first else ("x", number)
        return f"use the int it stands for: `{_call(func, names)}`"
    names = (repr(value), "x") if scalar_first else ("x", repr(value))
    converting = (False, True) if scalar_first else (True, False)
    return _fix(func, target, names, converting)


def _outside_category(
    func: str, category: str, target: DType, operands: tuple[tuple[str, Any], ...]
) -> str:
    """The fix of a refused pair whose NumPy promotion, ``target``, is no
    dtype ``func`` takes (``category``): NumPy's conversion would be refused
    again, and dlarray.compat keeps the refusal, so neither is offered.
    ``operands``: (code, dtype of an array or the Python scalar itself), in
    the call's order.

    Where ``func`` takes integers only (NumPy's bitwise functions have no
    floating loops, so NumPy refuses too): a signed integer with uint64
    converts to one of the two 64-bit integers, and a floating operand is
    truncated if that is meant."""
    outside = (
        f"{func} takes {category} dtypes only, and NumPy's promotion of the operands, "
        f"{target.name}, is not one of them"
    )
    int64, uint64 = _D["int64"], _D["uint64"]
    dtypes = [value for _, value in operands if isinstance(value, DType)]
    if CATEGORIES[category] <= CATEGORIES["integer or boolean"]:
        outside += " (NumPy refuses them too)"
        if uint64 in dtypes and any(d in _SIGNED for d in dtypes):  # two arrays
            (c1, d1), (c2, d2) = operands
            as_int64 = (
                _converted(c1, int64) if d1 is uint64 else c1,
                _converted(c2, int64) if d2 is uint64 else c2,
            )
            as_uint64 = (
                c1 if d1 is uint64 else _converted(c1, uint64),
                c2 if d2 is uint64 else _converted(c2, uint64),
            )
            return (
                f"{outside}; convert both to one integer dtype, int64: "
                f"`{_call(func, as_int64)}` (uint64 values above 2**63 - 1 wrap around to "
                f"negative ones); or uint64: `{_call(func, as_uint64)}` (negative values wrap "
                f"around to 2**64 plus the value)"
            )
        truncated = _truncated(func, operands)
        if truncated is not None:
            whole, code = truncated
            return (
                f"{outside}; if truncation toward zero is meant, convert to {whole.name} first: "
                f"`{code}` (a value outside {whole.name}'s range has no defined conversion)"
            )
        return f"{outside}: pass integer operands"
    if target in _COMPLEX:
        return f"{outside}: take the real parts or the magnitudes of the complex operand first"
    return f"{outside}: convert the operands to one of its dtypes with dlarray.astype first"


def _truncated(func: str, operands: tuple[tuple[str, Any], ...]) -> tuple[DType, str] | None:
    """The call of ``func`` with its floating operands truncated to an
    integer dtype (the integer array's, or int64 next to a bool array), and
    that dtype; None where an operand is complex or a float is not finite."""
    whole = next(
        (v for _, v in operands if isinstance(v, DType) and v in CATEGORIES["integer"]),
        DEFAULT_DTYPES["integral"],
    )
    codes = []
    for code, value in operands:
        if isinstance(value, DType):
            if value in _COMPLEX:
                return None
            codes.append(code if value is whole else _converted(code, whole))
        elif isinstance(value, complex) or (isinstance(value, float) and not math.isfinite(value)):
            return None
        elif isinstance(value, float):
            codes.append(f"int({value!r})")
        else:  # an int, or a bool: the int it stands for
            codes.append(str(int(value)))
    return whole, _call(func, (codes[0], codes[1]))


def assignment_refusal(dtype: DType, value: Any) -> TypeError:
    """The refusal of ``x[key] = value`` for an array ``x`` of ``dtype``
    whose dtype ``value`` (a Python scalar, or a DType for an array value)
    would change, with the two fixes: store what NumPy would store (the
    value converted to ``dtype``), or make ``x`` an array of NumPy's
    promoted dtype first (a new array)."""
    if isinstance(value, DType):
        what = f"an array of dtype {value.name}"
        stored: str | None = "dlarray.astype(value, x.dtype)"
        promoted = numpy_promotion(dtype, value)
        shown = "value"
    else:
        what = f"a Python {type(value).__name__}"
        number = _numpy_stored(value, dtype)
        stored = None if number is None else repr(number)
        promoted = numpy_promotion(dtype, value)
        shown = repr(value)
    fixes = []
    if stored is not None:
        fixes.append(f"store it converted to {dtype.name}, as NumPy does: `x[key] = {stored}`")
    if promoted is not None and promoted is not dtype:
        fixes.append(
            f"make x an array of dtype {promoted.name} first: "
            f"`x = {_converted('x', promoted)}`, then "
            f"`x[key] = {shown}` (a new array: other names of the old x keep the old one)"
        )
    return TypeError(
        f"__setitem__: {what} cannot be stored in an array of dtype {dtype.name} without "
        f"changing its dtype (no mixing of kinds under the Array API); "
        + ("; or ".join(fixes) if fixes else "store a value of the array's kind")
    )


def _numpy_stored(value: Any, dtype: DType) -> bool | int | float | complex | None:
    """The Python number NumPy stores for ``value`` into an array of
    ``dtype`` (it casts: any number into a bool by its truth, a float
    truncated toward zero into an integer), or None where NumPy refuses (a
    complex into a real array, a NaN or an out-of-range number into an
    integer one)."""
    if dtype.kind == "bool":
        return bool(value)
    if dtype.kind == "complex floating":
        return complex(value)
    if isinstance(value, complex):
        return None
    if dtype.kind in ("signed integer", "unsigned integer"):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        number = int(value)
        lowest, highest = (
            (-(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1)
            if dtype.kind == "signed integer"
            else (0, (1 << dtype.bits) - 1)
        )
        return number if lowest <= number <= highest else None
    return float(value)


#: The dtype NumPy computes a floating-point function of integers (and
#: bools) in; bools elsewhere count as the default int (True is 1).
_CATEGORY_TARGETS: Final[dict[str, DType]] = {
    "real floating": DEFAULT_DTYPES["real floating"],
    "floating-point": DEFAULT_DTYPES["real floating"],
    "complex floating": DEFAULT_DTYPES["complex floating"],
}


def _category_fix(dtype: DType, category: str, func: str) -> str:
    """What to do with an array ``x`` of ``dtype`` that ``func``, of
    ``category``, refuses: the conversion NumPy would make (then call
    ``func`` again), or what NumPy does instead."""
    again = f", and call {func} again"
    if category == "bool":
        return f"for NumPy's truth of numbers, compare x with zero: `x = x != 0`{again}"
    if dtype in _COMPLEX:
        return (
            f"complex numbers are outside that category: take x's real parts, "
            f"`x = dlarray.real(x)`{again}; or its magnitudes, `x = dlarray.abs(x)`"
        )
    target = _CATEGORY_TARGETS.get(category)
    if target is None and dtype is _D["bool"]:
        target = DEFAULT_DTYPES["integral"]
    if target is not None:
        return f"convert x first, as NumPy would: `x = {_converted('x', target)}`{again}"
    return (
        f"NumPy refuses {dtype.name} here too; if truncation toward zero is meant, "
        f"convert x explicitly: `x = {_converted('x', _D['int64'])}`{again}"
    )


# ---- other libraries' spellings ----

#: NumPy's and PyTorch's spellings that the Array API writes another way,
#: each with the standard's (or dlarray's) spelling: the one table behind
#: the hints of ``dlarray.<name>`` (the package's ``__getattr__``),
#: ``x.<name>`` (the array's attributes) and ``dlarray.<func>(<keyword>=)``
#: (the functions' keywords).  The code between backticks runs as it
#: stands once its names are bound: ``x`` an array (``x1``, ``x2`` two),
#: ``obj`` Python data, ``a`` a NumPy array, ``arrays`` a list of arrays,
#: ``axes`` a permutation, ``axis``, ``shape``, ``dtype``, ``value``,
#: ``indices``, ``repeats``, ``min``, ``max``, ``decimals``, ``np`` NumPy
#: (tests/package/test_errors.py runs every one).
SPELLINGS: Final[dict[str, str]] = {
    # the package's names
    "dlarray.array": "`dlarray.asarray(obj)`",
    "dlarray.asanyarray": "`dlarray.asarray(obj)`",
    "dlarray.tensor": "`dlarray.asarray(obj)`",
    "dlarray.from_numpy": "`dlarray.asarray(a)` (zero-copy, as `dlarray.from_dlpack(a)`)",
    "dlarray.ndarray": "`dlarray.DLArray`, made by `dlarray.asarray(obj)`",
    "dlarray.concatenate": "`dlarray.concat(arrays, axis=0)`",
    "dlarray.cat": "`dlarray.concat(arrays, axis=0)`",
    "dlarray.vstack": (
        "`dlarray.concat(arrays, axis=0)` (arrays of 2 axes or more) or "
        "`dlarray.stack(arrays)` (1-d arrays)"
    ),
    "dlarray.hstack": "`dlarray.concat(arrays, axis=-1)`",
    "dlarray.transpose": "`dlarray.permute_dims(x, axes)`, or `x.T` and `x.mT`",
    "dlarray.permute": "`dlarray.permute_dims(x, axes)`",
    "dlarray.unsqueeze": "`dlarray.expand_dims(x, axis=axis)`",
    "dlarray.ravel": "`dlarray.reshape(x, (-1,))`",
    "dlarray.copy": "`dlarray.asarray(x, copy=True)`",
    "dlarray.arcsin": "`dlarray.asin(x)`",
    "dlarray.arccos": "`dlarray.acos(x)`",
    "dlarray.arctan": "`dlarray.atan(x)`",
    "dlarray.arcsinh": "`dlarray.asinh(x)`",
    "dlarray.arccosh": "`dlarray.acosh(x)`",
    "dlarray.arctanh": "`dlarray.atanh(x)`",
    "dlarray.arctan2": "`dlarray.atan2(x1, x2)`",
    "dlarray.power": "`dlarray.pow(x1, x2)`",
    "dlarray.absolute": "`dlarray.abs(x)`",
    "dlarray.conjugate": "`dlarray.conj(x)`",
    "dlarray.invert": "`dlarray.bitwise_invert(x)`",
    "dlarray.left_shift": "`dlarray.bitwise_left_shift(x1, x2)`",
    "dlarray.right_shift": "`dlarray.bitwise_right_shift(x1, x2)`",
    "dlarray.mod": "`dlarray.remainder(x1, x2)`",
    "dlarray.true_divide": "`dlarray.divide(x1, x2)`",
    "dlarray.clamp": "`dlarray.clip(x, min, max)`",
    "dlarray.amax": "`dlarray.max(x)`",
    "dlarray.amin": "`dlarray.min(x)`",
    "dlarray.cumsum": "`dlarray.cumulative_sum(x, axis=axis)`",
    "dlarray.cumprod": "`dlarray.cumulative_prod(x, axis=axis)`",
    "dlarray.around": "`dlarray.round(x)`, or `round(x, decimals)` to decimals",
    "dlarray.dot": "`dlarray.matmul(x1, x2)` (or `x1 @ x2`), or `dlarray.vecdot(x1, x2)`",
    "dlarray.unique": (
        "`dlarray.unique_values(x)` (and `dlarray.unique_counts(x)`, "
        "`dlarray.unique_inverse(x)`, `dlarray.unique_all(x)`)"
    ),
    "dlarray.float": "`dlarray.float64`",
    "dlarray.int": "`dlarray.int64`",
    "dlarray.complex": "`dlarray.complex128`",
    "dlarray.shape": "`x.shape`",
    "dlarray.ndim": "`x.ndim`",
    "dlarray.size": "`x.size`",
    # the array's attributes
    **{f"x.{name}": f"`dlarray.{name}(x)`" for name in (
        "sum", "prod", "mean", "std", "var", "max", "min", "argmax", "argmin", "all",
        "any", "nonzero", "sort", "argsort", "conj", "round", "real", "imag")},
    "x.cumsum": "`dlarray.cumulative_sum(x, axis=axis)`",
    "x.cumprod": "`dlarray.cumulative_prod(x, axis=axis)`",
    "x.reshape": "`dlarray.reshape(x, shape)`",
    "x.flatten": "`dlarray.reshape(x, (-1,))`",
    "x.ravel": "`dlarray.reshape(x, (-1,))`",
    "x.view": "`dlarray.reshape(x, shape)` (views share memory)",
    "x.squeeze": "`dlarray.squeeze(x, axis)`",
    "x.unsqueeze": "`dlarray.expand_dims(x, axis=axis)`",
    "x.transpose": "`dlarray.permute_dims(x, axes)`, or `x.T` and `x.mT`",
    "x.permute": "`dlarray.permute_dims(x, axes)`",
    "x.swapaxes": "`dlarray.permute_dims(x, axes)`",
    "x.astype": "`dlarray.astype(x, dtype)`",
    "x.float": "`dlarray.astype(x, dlarray.float32)`",
    "x.double": "`dlarray.astype(x, dlarray.float64)`",
    "x.long": "`dlarray.astype(x, dlarray.int64)`",
    "x.copy": "`dlarray.asarray(x, copy=True)`",
    "x.clone": "`dlarray.asarray(x, copy=True)`",
    "x.clip": "`dlarray.clip(x, min, max)`",
    "x.dot": "`dlarray.matmul(x, x2)`, or `x @ x2`",
    "x.repeat": "`dlarray.repeat(x, repeats)`",
    "x.take": "`dlarray.take(x, indices, axis=axis)`",
    "x.diagonal": "`dlarray.linalg.diagonal(x)`",
    "x.trace": "`dlarray.linalg.trace(x)`",
    "x.fill": "`x[...] = value`",
    "x.item": "`float(x)` of a 0-d array (`int(x)`, `bool(x)` and `complex(x)` alike)",
    "x.tolist": "`np.from_dlpack(x).tolist()` (memory the host can read)",
    "x.numpy": "`np.from_dlpack(x)` (zero-copy; memory the host can read)",
    "x.numel": "`x.size`",
    "x.dim": "`x.ndim`",
    "x.cpu": '`x.to_device("cpu")`',
    "x.cuda": '`x.to_device("cuda")`',
    # the functions' keywords
    "dlarray.round(decimals=)": (
        "`round(x, decimals)` (Python's round of an array rounds to decimals, as "
        "numpy.round does); `dlarray.round(x)` is the standard's, to integers"
    ),
}  # fmt: skip


def spelling_hint(spelling: str) -> str | None:
    """What :data:`SPELLINGS` says to write for ``spelling``, or None."""
    return SPELLINGS.get(spelling)


def keyword_refusal(func: str, keywords: Iterable[str]) -> TypeError:
    """The ``TypeError`` of keywords ``func`` does not take, naming the
    standard's way where :data:`SPELLINGS` knows the keyword."""
    name = next(iter(keywords))
    message = f"{func}() got an unexpected keyword argument {name!r}"
    hint = spelling_hint(f"dlarray.{func}({name}=)")
    if hint is not None:
        message += f": dlarray follows the Array API standard; write {hint}"
    return TypeError(message)


def _listed(shapes: tuple[tuple[int, ...], ...]) -> str:
    """``(3,) and (4,)``; ``(3,), (2,) and ()``."""
    texts = [str(tuple(s)) for s in shapes]
    return texts[0] if len(texts) == 1 else f"{', '.join(texts[:-1])} and {texts[-1]}"


def broadcast_result(func: str, *shapes: tuple[int, ...], what: str = "shapes") -> tuple[int, ...]:
    """The shape ``shapes`` broadcast to by the standard's rules (aligned on
    their last axes, each pair of extents equal or one of them 1), or
    ``ValueError`` in dlarray's words (the shapes, "cannot be broadcast",
    where they meet); ``what`` names the shapes ("the stack shapes")."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for i, extent in enumerate(shape, ndim - len(shape)):
            if extent != result[i] and extent != 1 and result[i] != 1:
                raise ValueError(
                    f"{func}: {what} {_listed(shapes)} do not broadcast together: they cannot "
                    f"be broadcast to one shape, as extents {result[i]} and {extent} meet on "
                    f"axis {i - ndim} (counting from the end; each pair must be equal, or one "
                    f"of them 1)"
                ) from None
            if extent != 1:
                result[i] = extent
    return tuple(result)


def refuse_unbroadcastable(func: str, *shapes: tuple[int, ...]) -> None:
    """Raise :func:`broadcast_result`'s ``ValueError`` when ``shapes`` do
    not broadcast together; return when they do.

    Called where an engine has refused a computation with a ``ValueError``,
    to tell the caller when the shapes were the cause (NumPy's own text
    names no function and ends with a space)."""
    broadcast_result(func, *shapes)


def broadcast_to_refusal(
    func: str, shape: tuple[int, ...], target: tuple[int, ...], what: str = "an array"
) -> ValueError | None:
    """The refusal of broadcasting ``what`` of ``shape`` *to* ``target``
    (new axes in front, extents of 1 growing), or None where it broadcasts."""
    lead = len(target) - len(shape)
    if lead < 0:
        reason = f"{target} has fewer axes"
    else:
        clashes = [
            (i - len(shape), extent, wanted)
            for i, (extent, wanted) in enumerate(zip(shape, target[lead:], strict=True))
            if extent != wanted and extent != 1
        ]
        if not clashes:
            return None
        axis, extent, wanted = clashes[0]
        reason = (
            f"extent {extent} meets {wanted} on axis {axis} (counting from the end; only "
            f"extents of 1 may grow)"
        )
    return ValueError(f"{func}: {what} of shape {shape} cannot be broadcast to {target}: {reason}")


def default_accumulation_dtype(dtype: DType) -> DType:
    """The standard's result dtype of sum-like reductions (``sum``, ``prod``,
    ``cumulative_*``, ``linalg.trace``) when no ``dtype`` is given.

    An integer dtype narrower than the default integer dtype widens to the
    default integer dtype of its own signedness; every other dtype is kept.
    """
    default = DEFAULT_DTYPES["integral"]
    if dtype.bits >= default.bits:
        return dtype
    if dtype in _SIGNED:
        return default
    if dtype in _UNSIGNED:
        return _D[f"uint{default.bits}"]
    return dtype


def common_device(arrays: Iterable[ArrayBase], func: str) -> Device:
    """The one device of ``arrays``; ``ValueError`` if they differ."""
    device: Device | None = None
    for x in arrays:
        d = x.device
        if device is None:
            device = d
        elif d is not device and d != device:
            raise ValueError(
                f"{func}: arrays on different devices ({device} and {d}); move one with "
                f"x.to_device(...) first"
            )
    return CPU if device is None else device


def result_type(*arrays_and_dtypes: Any) -> DType:
    """Promote arrays, dtypes and Python scalars per the standard.

    Python scalars are considered after all arrays and dtypes, as the
    standard's ``result_type`` prescribes, and only when at least one array
    or dtype is present.
    """
    dtypes: list[DType] = []
    scalars: list[Any] = []
    for item in arrays_and_dtypes:
        if isinstance(item, ArrayBase):
            dtypes.append(item.dtype)
        elif (dtype := dtype_argument(item)) is not None:
            dtypes.append(dtype)
        elif as_python_scalar(item) is not None:
            scalars.append(as_python_scalar(item))
        else:
            raise TypeError(
                f"result_type: expected arrays, dtypes or Python scalars, got {type(item).__name__}"
            )
    if not dtypes:
        raise ValueError("result_type: at least one array or dtype is required")
    result = dtypes[0]
    for d in dtypes[1:]:
        result = promote(result, d, "result_type")
    for s in scalars:
        result = scalar_dtype(s, result, "result_type")
    return result


class AxisError(ValueError, IndexError):
    """An axis outside ``-ndim <= axis < ndim``.

    The standard does not name the exception; being both a ``ValueError``
    and an ``IndexError`` (as NumPy's ``AxisError`` is) satisfies code
    written for either.
    """


def normalize_axis(
    axis: Any, ndim: int, func: str, *, what: str = "axis", tuples: bool = False
) -> int:
    """An axis index in ``range(ndim)``; :class:`AxisError` when out of range.

    ``what`` names the argument in messages; ``tuples`` says that it also
    takes a tuple of ints (this is one of its items)."""
    if isinstance(axis, bool) or not hasattr(type(axis), "__index__"):
        raise axis_type_error(axis, func, what, tuples)
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        valid = f"valid: {-ndim} to {ndim - 1}" if ndim else "a 0-d array has no axis"
        raise AxisError(
            f"{func}: {what} {a} is out of range for an array with {ndim} axes ({valid})"
        )
    return a % ndim


def axis_type_error(axis: Any, func: str, what: str = "axis", tuples: bool = False) -> TypeError:
    """The ``TypeError`` of an axis argument of a wrong type (a list where a
    tuple is taken says to write the tuple)."""
    taken = "an int or a tuple of ints" if tuples else "an int"
    if tuples and isinstance(axis, list):
        return TypeError(
            f"{func}: {what} must be {taken}, got the list {axis!r}; write {tuple(axis)!r}"
        )
    return TypeError(f"{func}: {what} must be {taken}, got {type(axis).__name__} {axis!r}")


def normalize_axes(axis: Any, ndim: int, func: str) -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple of ints) as a sorted tuple of
    distinct axes in ``range(ndim)``; ``ValueError`` on repeats."""
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, tuple) and (isinstance(axis, bool) or not hasattr(axis, "__index__")):
        raise axis_type_error(axis, func, tuples=True)
    items = axis if isinstance(axis, tuple) else (axis,)
    axes = tuple(normalize_axis(a, ndim, func, tuples=True) for a in items)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{func}: axis {axis!r} repeats an axis")
    return tuple(sorted(axes))


def check_writable(x: ArrayBase, what: str) -> None:
    """``ValueError`` when ``x`` is read-only."""
    if x._readonly:
        raise ValueError(
            f"{what}: the array is read-only (memory its producer marked READ_ONLY, or a "
            f"broadcast view whose elements repeat); make a writable copy with "
            f"dlarray.asarray(x, copy=True)"
        )
