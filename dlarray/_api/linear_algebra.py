"""The standard's four linear-algebra functions of the main namespace.

``matmul``, ``matrix_transpose``, ``tensordot`` and ``vecdot`` (the
``linalg`` extension re-exports them), computed by the engine's standard
namespace (``namespace_of(a).matmul``, ...).  Operands are promoted by the
standard's rules before the engine sees them, so integer products are
computed exactly in the promoted dtype, wrapping around on overflow as the
engines' integer kernels do, and the same inputs always give the same
result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dlarray._api._linalg_helpers import (
    array_arg,
    broadcast_stacks,
    check_matrices,
    int_arg,
    two_arrays,
)
from dlarray._core import ArrayBase
from dlarray._engine.routing import call, namespace_of
from dlarray._rules import AxisError, broadcast_result, normalize_axis
from dlarray._views import permute_dims

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]

# Kernels run through `call`: floating-point overflow in a product is a
# value (inf), not an error.


def matmul(x1: ArrayBase, x2: ArrayBase, /) -> ArrayBase:
    """The matrix product of ``x1`` and ``x2``, as the ``@`` operator computes it.

    A 1-d ``x1`` is a row vector and a 1-d ``x2`` a column vector (the added
    axis is removed from the result); stacks of matrices broadcast.  0-d
    operands and mismatched inner dimensions raise ``ValueError``.  The
    result has the promoted dtype; complex operands are not conjugated.

    Raises
    ------
    TypeError
        If ``x1`` or ``x2`` is not a DLArray, a dtype is not numeric, or the dtypes have
        no promotion.
    ValueError
        If an operand is 0-d (use :func:`multiply`), the inner dimensions
        differ, the stacks do not broadcast, or the arrays are on different
        devices.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.matmul(xp.asarray([[1, 2], [3, 4]]), xp.asarray([1, 1]))
    dlarray.asarray([3, 7], dtype=dlarray.int64)
    """
    # (NumPy's matmul raises ValueError for every shape the standard
    # rejects: the host fast path then leaves the call here, which names the
    # problem.)
    a1, a2, _ = two_arrays(x1, x2, "numeric", "matmul")
    if a1.ndim == 0 or a2.ndim == 0:
        raise ValueError(
            f"matmul: operands must have at least one axis, got shapes {a1.shape} and "
            f"{a2.shape}; use dlarray.multiply for scalars"
        )
    inner1 = a1.shape[-1]
    inner2 = a2.shape[0] if a2.ndim == 1 else a2.shape[-2]
    if inner1 != inner2:
        raise ValueError(
            f"matmul: inner dimensions differ ({inner1} != {inner2}) for shapes "
            f"{a1.shape} and {a2.shape}"
        )
    if a1.ndim > 2 or a2.ndim > 2:
        broadcast_stacks("matmul", "the stack shapes", a1.shape[:-2], a2.shape[:-2])
    return call(namespace_of(a1).matmul, a1, a2)


def matrix_transpose(x: ArrayBase, /) -> ArrayBase:
    """Swap the last two axes of ``x`` (a stack of matrices).

    Like :func:`dlarray.permute_dims`, which it is a case of, the result is a
    view of ``x`` (the same as ``x.mT``).  ``x`` needs at least two axes.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray.
    ValueError
        If ``x`` has fewer than 2 axes.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.matrix_transpose(xp.asarray([[1, 2, 3], [4, 5, 6]]))
    dlarray.asarray([[1, 4], [2, 5], [3, 6]], dtype=dlarray.int64)
    """
    a = array_arg(x, "all", "matrix_transpose")
    check_matrices(a.shape, "matrix_transpose")
    n = a.ndim
    return permute_dims(x, (*range(n - 2), n - 1, n - 2))


def _contraction_axes(axes: Any, ndim1: int, ndim2: int) -> tuple[list[int], list[int]]:
    """tensordot's ``axes`` as two lists of non-negative axes."""
    if not isinstance(axes, Sequence):
        axes = int_arg(axes, "tensordot", "axes")
        if axes < 0:
            raise ValueError(f"tensordot: an int axes must be non-negative, got {axes}")
        if axes > min(ndim1, ndim2):
            raise ValueError(
                f"tensordot: cannot contract {axes} axes of arrays with {ndim1} and {ndim2} axes"
            )
        return list(range(ndim1 - axes, ndim1)), list(range(axes))
    if len(axes) != 2:
        raise TypeError(
            f"tensordot: axes must be an int or a pair (x1_axes, x2_axes) of sequences, "
            f"got {axes!r}"
        )
    pair = []
    for name, seq, ndim in (("x1", axes[0], ndim1), ("x2", axes[1], ndim2)):
        if not isinstance(seq, Sequence):
            raise TypeError(f"tensordot: the axes for {name} must be a sequence, got {seq!r}")
        normalized = [normalize_axis(a, ndim, "tensordot") for a in seq]
        if len(set(normalized)) != len(normalized):
            raise ValueError(f"tensordot: the axes for {name} repeat an axis: {seq!r}")
        pair.append(normalized)
    if len(pair[0]) != len(pair[1]):
        raise ValueError(
            f"tensordot: x1 and x2 need as many contracted axes each, got {axes[0]!r} and "
            f"{axes[1]!r}"
        )
    return pair[0], pair[1]


def tensordot(
    x1: ArrayBase,
    x2: ArrayBase,
    /,
    *,
    axes: int | tuple[Sequence[int], Sequence[int]] = 2,
) -> ArrayBase:
    """Contract ``x1`` and ``x2`` over the given axes.

    ``axes=N`` contracts the last ``N`` axes of ``x1`` with the first ``N``
    of ``x2``; ``axes=(x1_axes, x2_axes)`` names the pairs.  Contracted axes
    must have equal sizes (they do not broadcast).  The result has the
    non-contracted axes of ``x1`` then those of ``x2``, and the promoted dtype.

    Raises
    ------
    TypeError
        If ``x1`` or ``x2`` is not a DLArray, a dtype is not numeric, the dtypes have no
        promotion, or ``axes`` is neither an int nor a pair of sequences.
    ValueError
        If an int ``axes`` is negative or exceeds an operand's axes, the
        contracted axes differ in size, or the arrays are on different
        devices.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.tensordot(xp.asarray([1, 2]), xp.asarray([3, 4]), axes=0)
    dlarray.asarray([[3, 4], [6, 8]], dtype=dlarray.int64)
    >>> xp.tensordot(xp.asarray([[1, 2], [3, 4]]), xp.asarray([1, 1]), axes=([1], [0]))
    dlarray.asarray([3, 7], dtype=dlarray.int64)
    """
    a1, a2, _ = two_arrays(x1, x2, "numeric", "tensordot")
    axes1, axes2 = _contraction_axes(axes, a1.ndim, a2.ndim)
    for i, j in zip(axes1, axes2, strict=True):
        if a1.shape[i] != a2.shape[j]:
            raise ValueError(
                f"tensordot: axis {i} of x1 (size {a1.shape[i]}) and axis {j} of x2 "
                f"(size {a2.shape[j]}) differ in size; contracted axes do not broadcast"
            )
    # axes as a pair of tuples, the standard's form, by keyword (dpnp's
    # tensordot takes it keyword-only).
    return call(namespace_of(a1).tensordot, a1, a2, axes=(tuple(axes1), tuple(axes2)))


def vecdot(x1: ArrayBase, x2: ArrayBase, /, *, axis: int = -1) -> ArrayBase:
    """The dot product of the vectors along ``axis``: ``sum(conj(x1) * x2)``.

    ``axis`` counts from the end (``-min(x1.ndim, x2.ndim) <= axis <= -1``);
    the vector axes must have equal sizes (they do not broadcast) and the
    other axes broadcast.  The first operand is conjugated when complex.

    Raises
    ------
    TypeError
        If ``x1`` or ``x2`` is not a DLArray, a dtype is not numeric, or the dtypes have
        no promotion.
    ValueError
        If the vectors along ``axis`` differ in size, the shapes do not
        broadcast outside it, ``axis`` is out of range (also an
        ``IndexError``; it counts from the end), or the arrays are on
        different devices.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.vecdot(xp.asarray([[1, 2], [3, 4]]), xp.asarray([1, 1]))
    dlarray.asarray([3, 7], dtype=dlarray.int64)
    >>> xp.vecdot(xp.asarray([1j, 2]), xp.asarray([1j, 1]))
    dlarray.asarray((3+0j), dtype=dlarray.complex128)
    """
    a1, a2, _ = two_arrays(x1, x2, "numeric", "vecdot")
    axis = int_arg(axis, "vecdot", "axis")
    n = min(a1.ndim, a2.ndim)
    # The standard allows only negative axes: with operands of different
    # ranks a non-negative one would name different axes in each.
    if not -n <= axis <= -1:
        raise AxisError(
            f"vecdot: axis must be in [-{n}, -1] for arrays of shapes {a1.shape} and "
            f"{a2.shape}, got {axis}"
        )
    if a1.shape[axis] != a2.shape[axis]:
        raise ValueError(
            f"vecdot: the vectors along axis {axis} differ in size ({a1.shape[axis]} != "
            f"{a2.shape[axis]}); the contracted axis does not broadcast"
        )
    # The other axes broadcast, the shapes aligned on the right (the vector
    # axis, of equal sizes, broadcasts with itself).
    broadcast_result("vecdot", x1.shape, x2.shape)
    return call(namespace_of(a1).vecdot, a1, a2, axis=axis)
