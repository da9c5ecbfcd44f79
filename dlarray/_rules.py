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
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any, Final

from dlarray._array import DLArray
from dlarray._device import CPU, Device
from dlarray._dtypes import DTYPES_BY_NAME, DType, as_python_scalar

_D = DTYPES_BY_NAME

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
    """Raise ``TypeError`` unless ``dtype`` is in the named category."""
    if dtype not in CATEGORIES[category]:
        raise TypeError(
            f"{func}: got an array of dtype {dtype.name}, but {func} is defined only for "
            f"{category} dtypes; convert with dlarray.astype(x, ...) first"
        )


def promote(a: DType, b: DType, func: str = "result_type") -> DType:
    """The standard's promoted dtype of ``a`` and ``b``, or ``TypeError``."""
    if a is b and a in CATEGORIES["all"]:
        return a
    try:
        return _PROMOTION[a, b]
    except KeyError:
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
    if dtype in joins:
        return dtype
    if kind is complex and dtype in _REAL_FLOAT:
        return COMPLEX_OF[dtype]
    raise TypeError(
        f"{func}: a Python {kind.__name__} cannot be combined with an array of dtype "
        f"{dtype.name} under the Array API's scalar rules; use an array of a "
        f"matching dtype"
    )


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


def common_device(arrays: Iterable[DLArray], func: str) -> Device:
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
        if isinstance(item, DLArray):
            dtypes.append(item.dtype)
        elif isinstance(item, DType):
            dtypes.append(item)
        elif as_python_scalar(item) is not None:
            scalars.append(as_python_scalar(item))
        else:
            raise TypeError(
                f"result_type: expected arrays, dtypes or Python scalars, got {type(item).__name__}"
            )
    if not dtypes:
        raise ValueError("result_type: at least one array or dtype is required")
    result = dtypes[0]
    if result not in CATEGORIES["all"]:
        raise TypeError(f"result_type: {result.name} is not an Array API dtype")
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
