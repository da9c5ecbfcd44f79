"""The standard's set functions: ``isin`` and the four ``unique_*`` functions.

The ``unique_*`` functions share one engine routine, :func:`_groups`: a
stable sort of the flattened input, then a new group wherever a value
differs from its predecessor.  Differing is tested with ``!=``, the
standard's value equality, so every NaN (and every complex value with a NaN
part) is a group of its own, and ``-0.0`` joins ``+0.0``.  (NumPy's
``unique`` merges NaNs by default, which the standard rules out.)  The
values come back sorted (the standard leaves the order to the
implementation); complex values in the order of their real parts, then of
their imaginary parts.  Everything is computed with the standard's
functions, on the input's engine and device.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from dlarray._api._operands import binary, unary
from dlarray._core import ArrayBase
from dlarray._dtypes import DType
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of, wrap
from dlarray._rules import CATEGORIES, DEFAULT_DTYPES

__all__ = [
    "isin",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]

_ALL = CATEGORIES["all"]
_BOOL = CATEGORIES["bool"]
_COMPLEX = CATEGORIES["complex floating"]
_INTEGER = CATEGORIES["integer"]
_UNSIGNED = CATEGORIES["unsigned integer"]
_INDEX = DEFAULT_DTYPES["indexing"]


class UniqueAllResult(NamedTuple):
    """The result of :func:`unique_all`.

    A named tuple of four arrays: the sorted distinct ``values``, the
    ``indices`` of their first occurrences in the flattened input, the
    ``inverse_indices`` that rebuild the input from ``values`` (in the
    input's shape), and the ``counts`` of each value.

    Examples
    --------
    >>> import dlarray as xp
    >>> x = xp.asarray([3, 1, 3, 2])
    >>> r = xp.unique_all(x)
    >>> r.values
    dlarray.asarray([1, 2, 3], dtype=dlarray.int64)
    >>> r.indices
    dlarray.asarray([1, 3, 0], dtype=dlarray.int64)
    >>> r.counts
    dlarray.asarray([1, 1, 2], dtype=dlarray.int64)
    >>> bool(xp.all(xp.take(r.values, r.inverse_indices) == x))
    True
    >>> r._fields
    ('values', 'indices', 'inverse_indices', 'counts')
    """

    values: ArrayBase
    indices: ArrayBase
    inverse_indices: ArrayBase
    counts: ArrayBase


class UniqueCountsResult(NamedTuple):
    """The result of :func:`unique_counts`.

    A named tuple: the sorted distinct ``values`` and the ``counts`` of each.

    Examples
    --------
    >>> import dlarray as xp
    >>> values, counts = xp.unique_counts(xp.asarray([[5, 7], [5, 5]]))
    >>> values
    dlarray.asarray([5, 7], dtype=dlarray.int64)
    >>> counts
    dlarray.asarray([3, 1], dtype=dlarray.int64)
    """

    values: ArrayBase
    counts: ArrayBase


class UniqueInverseResult(NamedTuple):
    """The result of :func:`unique_inverse`.

    A named tuple: the sorted distinct ``values``, and ``inverse_indices``
    of the input's shape that pick each element back out of ``values``.

    Examples
    --------
    >>> import dlarray as xp
    >>> x = xp.asarray([[2.5, 0.5], [0.5, 2.5]])
    >>> r = xp.unique_inverse(x)
    >>> r.values
    dlarray.asarray([0.5, 2.5], dtype=dlarray.float64)
    >>> r.inverse_indices
    dlarray.asarray([[1, 0], [0, 1]], dtype=dlarray.int64)
    >>> bool(xp.all(r.values[r.inverse_indices] == x))
    True
    """

    values: ArrayBase
    inverse_indices: ArrayBase


class _Groups(NamedTuple):
    """Engine arrays describing the distinct values of a flattened array."""

    xp: Any  # their engine's namespace
    ordered: Any  # the input, flattened and sorted (stably)
    order: Any  # the sorting permutation (positions in the flattened input)
    begins: Any  # mask over ``ordered``: True where a group begins
    starts: Any  # the positions in ``ordered`` where groups begin


def _stable_order(xp: Any, flat: Any, dtype: DType) -> Any:
    """A stable sorting permutation of the one-dimensional ``flat``.

    The standard sorts real numbers only: booleans sort as integers, and
    complex values by their real parts, ties by their imaginary parts (two
    stable sorts, the second key first).  NaNs sort last, so they never
    split a run of equal values.
    """
    if dtype in _BOOL:
        return xp.argsort(xp.astype(flat, xp.uint8), stable=True)
    if dtype in _COMPLEX:
        by_imag = xp.argsort(xp.imag(flat), stable=True)
        then_real = xp.argsort(xp.take(xp.real(flat), by_imag), stable=True)
        return xp.take(by_imag, then_real)
    return xp.argsort(flat, stable=True)


def _as_index(xp: Any, positions: Any, index_dtype: Any) -> Any:
    # (argsort and nonzero give the engine's default index dtype, int64 on
    # every engine dlarray has, so this rarely converts.)
    return positions if positions.dtype == index_dtype else xp.astype(positions, index_dtype)


def _groups(x: ArrayBase, func: str) -> _Groups:
    a = unary(x, _ALL, "all", func)
    xp = namespace_of(a)
    index_dtype = engine_dtype(xp, _INDEX)
    flat = xp.reshape(a, (-1,))
    order = _as_index(xp, _stable_order(xp, flat, x.dtype), index_dtype)
    ordered = xp.take(flat, order)
    if flat.shape[0] == 0:
        begins = xp.zeros((0,), dtype=xp.bool, device=a.device)
    else:
        first = xp.ones((1,), dtype=xp.bool, device=a.device)
        begins = xp.concat([first, xp.not_equal(ordered[1:], ordered[:-1])])
    starts = _as_index(xp, xp.nonzero(begins)[0], index_dtype)
    return _Groups(xp, ordered, order, begins, starts)


def _values(g: _Groups) -> ArrayBase:
    return wrap(g.xp.take(g.ordered, g.starts))


def _first_indices(g: _Groups) -> ArrayBase:
    # The sort is stable, so a group's first member is its first occurrence.
    return wrap(g.xp.take(g.order, g.starts))


def _inverse(g: _Groups, shape: tuple[int, ...]) -> ArrayBase:
    xp = g.xp
    group_of_sorted = xp.subtract(xp.cumulative_sum(xp.astype(g.begins, g.order.dtype)), 1)
    # The inverse permutation of `order` puts each sorted element back in place.
    unsorted = xp.argsort(g.order, stable=False)
    return wrap(xp.reshape(xp.take(group_of_sorted, unsorted), shape))


def _counts(g: _Groups) -> ArrayBase:
    xp = g.xp
    starts = g.starts
    if starts.shape[0] == 0:
        return wrap(starts)
    end = xp.full((1,), g.ordered.shape[0], dtype=starts.dtype, device=starts.device)
    return wrap(xp.subtract(xp.concat([starts[1:], end]), starts))


def unique_all(x: ArrayBase, /) -> UniqueAllResult:
    """The distinct values of ``x``, with first indices, inverse indices and counts.

    ``x`` is flattened.  Each NaN is distinct (count one); ``-0.0`` and
    ``+0.0`` are one value.  The values come back sorted.

    Returns
    -------
    UniqueAllResult
        Namedtuple ``(values, indices, inverse_indices, counts)``:
        ``values`` is 1-d with ``x``'s dtype; ``indices`` (first occurrences
        in the flattened ``x``) and ``counts`` match it; ``inverse_indices``
        has ``x``'s shape and satisfies ``values[inverse_indices] == x``.
        Index arrays are ``int64``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray.

    Examples
    --------
    >>> import dlarray as xp
    >>> r = xp.unique_all(xp.asarray([3, 1, 3, 2]))
    >>> r.values
    dlarray.asarray([1, 2, 3], dtype=dlarray.int64)
    >>> r.indices
    dlarray.asarray([1, 3, 0], dtype=dlarray.int64)
    >>> r.counts
    dlarray.asarray([1, 1, 2], dtype=dlarray.int64)
    >>> r.inverse_indices
    dlarray.asarray([2, 0, 2, 1], dtype=dlarray.int64)
    """
    g = _groups(x, "unique_all")
    return UniqueAllResult(_values(g), _first_indices(g), _inverse(g, x.shape), _counts(g))


def unique_counts(x: ArrayBase, /) -> UniqueCountsResult:
    """The distinct values of ``x`` and how often each occurs.

    As :func:`unique_all`, returning the namedtuple ``(values, counts)``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray.

    Examples
    --------
    >>> import dlarray as xp
    >>> values, counts = xp.unique_counts(xp.asarray([[True, False], [True, True]]))
    >>> values
    dlarray.asarray([False, True], dtype=dlarray.bool)
    >>> counts
    dlarray.asarray([1, 3], dtype=dlarray.int64)
    """
    g = _groups(x, "unique_counts")
    return UniqueCountsResult(_values(g), _counts(g))


def unique_inverse(x: ArrayBase, /) -> UniqueInverseResult:
    """The distinct values of ``x`` and the indices into them that rebuild ``x``.

    As :func:`unique_all`, returning the namedtuple
    ``(values, inverse_indices)``; ``inverse_indices`` has ``x``'s shape.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.unique_inverse(xp.asarray([[2.0, 1.0], [2.0, 5.0]])).inverse_indices
    dlarray.asarray([[1, 0], [1, 2]], dtype=dlarray.int64)
    """
    g = _groups(x, "unique_inverse")
    return UniqueInverseResult(_values(g), _inverse(g, x.shape))


def unique_values(x: ArrayBase, /) -> ArrayBase:
    """The distinct values of ``x``, flattened and sorted; each NaN is distinct.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.unique_values(xp.asarray([2.0, float("nan"), 2.0, -0.0, 0.0, float("nan")]))
    dlarray.asarray([-0.0, 2.0, nan, nan], dtype=dlarray.float64)
    """
    return _values(_groups(x, "unique_values"))


def _out_of_range(value: Any, dtype: DType) -> bool:
    """True for a Python int that no element of an array of ``dtype`` can
    equal, because it does not fit an integer ``dtype``."""
    if type(value) is not int or dtype not in _INTEGER:
        return False
    if dtype in _UNSIGNED:
        return not 0 <= value < 2**dtype.bits
    return not -(2 ** (dtype.bits - 1)) <= value < 2 ** (dtype.bits - 1)


def _filled(x: ArrayBase, shape: tuple[int, ...], value: bool) -> ArrayBase:
    """A new bool array of ``shape`` holding ``value``, on ``x``'s engine and device."""
    a = engine_view(x)
    xp = namespace_of(a)
    return wrap(xp.full(shape, value, dtype=xp.bool, device=a.device))


def isin(x1: ArrayBase | int, x2: ArrayBase | int, /, *, invert: bool = False) -> ArrayBase:
    """Whether each element of ``x1`` equals some element of ``x2``.

    Parameters
    ----------
    x1, x2 : DLArray or Python scalar
        At least one must be an array.  Arrays must have promotable dtypes
        and a scalar must suit the other argument's dtype, under the
        standard's rules (``TypeError`` otherwise).  The standard asks for
        integers; other dtypes work too, by value equality (so NaN is in no
        array).  A Python int outside the range of the other argument's
        integer dtype equals no element.
    invert : bool
        Test for *not* being in ``x2`` instead.

    Returns
    -------
    DLArray
        A ``bool`` array of ``x1``'s shape (0-d when ``x1`` is a scalar).

    Raises
    ------
    TypeError
        If ``x1`` or ``x2`` is not a DLArray (or a Python scalar where the
        standard allows one), their dtypes have no promotion, or ``invert`` is
        not a bool.
    ValueError
        If the arrays are on different devices.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.isin(xp.asarray([1, 2, 3, 4]), xp.asarray([4, 2]))
    dlarray.asarray([False, True, False, True], dtype=dlarray.bool)
    >>> xp.isin(3, xp.asarray([1, 2]), invert=True)
    dlarray.asarray(True, dtype=dlarray.bool)
    """
    if not isinstance(invert, bool):
        raise TypeError(f"isin: invert must be a bool, got {invert!r}")
    # The standard's scalar rules would refuse such an int (it does not fit the
    # dtype); membership is still well defined: it equals no element.
    if isinstance(x1, ArrayBase) and _out_of_range(x2, x1.dtype):
        return _filled(x1, x1.shape, invert)
    if isinstance(x2, ArrayBase) and _out_of_range(x1, x2.dtype):
        return _filled(x2, (), invert)
    a1, a2, _ = binary(x1, x2, _ALL, "all", "isin")
    return call(namespace_of(a1).isin, a1, a2, invert=invert)
