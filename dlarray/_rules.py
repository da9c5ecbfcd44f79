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

import operator
from collections.abc import Iterable
from typing import Any, Final

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
        f"dlarray.astype(x, dlarray.float32) first"
    )


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
            f"{category} dtypes; convert with dlarray.astype(x, ...) first"
        )


def promote(a: DType, b: DType, func: str = "result_type") -> DType:
    """The standard's promoted dtype of ``a`` and ``b``, or ``TypeError``.

    A dtype with itself is itself, for every dtype (the extended floats
    too); an extended float with any other dtype has no promotion."""
    if a is b:
        return a
    try:
        return _PROMOTION[a, b]
    except KeyError:
        if a in EXTENDED_FLOATS or b in EXTENDED_FLOATS:
            raise extended_refusal(func, a, b) from None
        raise TypeError(
            f"{func}: the Array API defines no promotion between {a.name} and {b.name} "
            f"(no mixing of kinds, and no int64/uint64 pair); convert one operand "
            f"explicitly with dlarray.astype"
        ) from None


#: Python scalar type -> the array dtypes it joins keeping the array's dtype
#: (the common case of :func:`scalar_dtype`).
SCALAR_JOINS: Final[dict[type, frozenset[DType]]] = {
    bool: CATEGORIES["bool"],
    int: CATEGORIES["numeric"],
    float: CATEGORIES["floating-point"],
    complex: CATEGORIES["complex floating"],
}


def scalar_dtype(value: Any, dtype: DType, func: str) -> DType:
    """The dtype a Python scalar takes when combined with an array of ``dtype``.

    Following the standard: a ``bool`` joins a bool array; an ``int`` joins an
    integer or floating array; a ``float`` joins a floating array; a
    ``complex`` joins a complex array, or a real floating array by promoting
    it to the complex type of the same precision.  Any other pairing raises
    ``TypeError``.
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
        f"{_scalar_fix(value, dtype, func)}"
    )


#: The dtype an array converts to, to take a Python scalar of a kind it cannot.
_SCALAR_TARGETS: Final = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


def _scalar_fix(value: Any, dtype: DType, func: str) -> str:
    """The line that does what a refused scalar operation meant."""
    kind = type(value)
    if kind is bool:  # a bool next to numbers: the number the bool means
        return f"use {int(value)} (an int) or an array of dtype bool"
    converted = f"dlarray.astype(x, dlarray.{_SCALAR_TARGETS[kind]})"
    symbol = SYMBOLS.get(func)
    if symbol is not None:  # an operator's function: show the operator
        return f"convert the array first: {converted} {symbol} {value!r}"
    return f"convert the array first: dlarray.{func}({converted}, {value!r})"


def refuse_unbroadcastable(func: str, *shapes: tuple[int, ...]) -> None:
    """Raise ``ValueError`` in dlarray's words when ``shapes`` do not
    broadcast together by the standard's rules (aligned on their last axes,
    each pair of extents equal or one of them 1); return when they do.

    Called where an engine has refused a computation with a ``ValueError``,
    to tell the caller when the shapes were the cause (NumPy's own text
    names no function and ends with a space)."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for i, extent in enumerate(shape, ndim - len(shape)):
            if extent != result[i] and extent != 1 and result[i] != 1:
                listed = " and ".join(str(s) for s in shapes)
                raise ValueError(
                    f"{func}: shapes {listed} do not broadcast together: extents "
                    f"{result[i]} and {extent} meet on axis {i - ndim} (counting from the "
                    f"end; each pair must be equal, or one of them 1)"
                ) from None
            if extent != 1:
                result[i] = extent


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


def normalize_axis(axis: Any, ndim: int, func: str) -> int:
    """An axis index in ``range(ndim)``; :class:`AxisError` when out of range."""
    if isinstance(axis, bool):
        raise TypeError(f"{func}: axis must be an int, got {axis!r}")
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{func}: axis must be an int, got {axis!r}") from None
    if not -ndim <= a < ndim:
        raise AxisError(f"{func}: axis {a} is out of range for an array with {ndim} axes")
    return a % ndim


def normalize_axes(axis: Any, ndim: int, func: str) -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple of ints) as a sorted tuple of
    distinct axes in ``range(ndim)``; ``ValueError`` on repeats."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple) else (axis,)
    axes = tuple(normalize_axis(a, ndim, func) for a in items)
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
