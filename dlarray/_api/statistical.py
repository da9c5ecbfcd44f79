"""The standard's statistical functions: reductions and cumulative reductions.

Every function here reduces (or scans) along axes chosen with the standard's
``axis``/``keepdims`` arguments and returns a new array.  It computes through
the standard namespace of the array's engine (``namespace_of(a)``: NumPy,
CuPy, dpnp or array-api-strict), never through NumPy itself; NumPy's speed
(its ufuncs' ``reduce`` without the Python wrappers) lives in the NumPy
engine's fixes of ``sum``, ``max`` and the rest
(:mod:`dlarray._engine.numpy_reductions`).  Two decisions apply throughout:

* **Result dtypes are the standard's.**  ``sum``, ``prod`` and the
  ``cumulative_*`` functions accumulate integers narrower than the default
  integer dtype in the default integer dtype of the same signedness
  (``int64`` / ``uint64``) and keep every other dtype; ``mean``, ``var`` and
  ``std`` of integers give the default real floating dtype.
* **Single precision accumulates accurately.**  ``float32`` and
  ``complex64`` sums, products and scans meet the bounds of
  ``docs/guide/arrays.md`` ("Accuracy of sums and scans"): an error of at
  most ``2**-24 * (|s| + 16 * sum|x|)``, where NumPy's pairwise sum is only
  bounded by about ``(log2(n) + 20) * 2**-24 * sum|x|`` and its ``cumsum``
  and axis-0 sums by ``n * 2**-24 * sum|x|`` (for
  ``[2**24, 1 (40 times), 16 - 2**24]`` they give 16 instead of 56, which
  the standard's conformance tests reject).  An engine whose namespace says
  that it meets those bounds in the dtype itself
  (``_dlarray_accurate_accumulation``: NumPy's, whose fixes are in
  :mod:`dlarray._engine.numpy_reductions`, at NumPy's own speed) is asked
  for the result dtype directly; every other engine accumulates in
  ``float64`` / ``complex128`` (``xp.sum(a, dtype=float64)``) and the
  result is rounded once.  ``mean`` divides the sum; where a single
  precision sum overflows, it is taken again in double precision.
  ``var``/``std`` follow the sums: on an accurate engine, reductions of at
  least ``_SINGLE_SPREAD`` elements take NumPy's two passes in single
  precision (on NumPy, the second one sums the squares as it forms them:
  ``_dlarray_sum_of_squares``), smaller ones stay in double precision, and so do the large
  ones whose single-precision squares overflow or fall below ``float32``'s
  normal range (:func:`_in_single_range`).  The cost of double precision:
  an intermediate that would overflow ``float32`` but not ``float64`` no
  longer turns the result into ``inf``.
* **Double precision does not overflow on the way either.**  A ``float64``
  or ``complex128`` mean whose sum overflowed is taken again from the
  values scaled by a power of two (:func:`_scaled_mean`); a ``float64``
  variance whose sums of squared deviations are not finite, or are small
  enough that squares fell below the normal range, is taken again from the
  values scaled by ``2**-600`` or ``2**600`` where their magnitudes call
  for it (:func:`_rescaled`).  Both are exact scalings, checked for only
  where the direct result cannot prove itself, so the common case costs a
  comparison.
"""

from __future__ import annotations

import math
from typing import Any

from dlarray._api._operands import unary
from dlarray._core import ArrayBase
from dlarray._dtypes import DTYPES_BY_NAME, DType, dtype_argument
from dlarray._engine.namespaces import hook
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of
from dlarray._rules import (
    CATEGORIES,
    DEFAULT_DTYPES,
    default_accumulation_dtype,
    normalize_axes,
    normalize_axis,
)

__all__ = [
    "cumulative_prod",
    "cumulative_sum",
    "max",
    "mean",
    "min",
    "prod",
    "std",
    "sum",
    "var",
]

_NUMERIC = CATEGORIES["numeric"]
_REAL = CATEGORIES["real-valued"]
_COMPLEX = CATEGORIES["complex floating"]
_FLOATING = CATEGORIES["floating-point"]

# The dtype each result dtype accumulates in (see the module docstring).
_WIDE = {
    DTYPES_BY_NAME["float32"]: DTYPES_BY_NAME["float64"],
    DTYPES_BY_NAME["complex64"]: DTYPES_BY_NAME["complex128"],
}
# Dtypes that sum/prod with dtype=None keep and accumulate in themselves:
# for these the reduction is one engine call, with no cast before or after.
_SELF_ACCUMULATING = frozenset(
    DTYPES_BY_NAME[name] for name in ("int64", "uint64", "float64", "complex128")
)
# The fewest elements per result whose var/std an accurate engine computes
# in single precision (see _variance).
_SINGLE_SPREAD = 1 << 16
# float32's largest value (that of complex64's parts too).
_SINGLE_MAX = 3.4028234663852886e38
# Sums of squared deviations below this, per term, are redone in double
# precision (see _in_single_range).
_TINY_SQUARES = 2.0**-100
# float64's largest value.
_DOUBLE_MAX = 1.7976931348623157e308
# float64 sums of squared deviations below this, per term, are redone scaled
# (squares below float64's normal range keep only 2**-1075 each; _rescaled).
_TINY_DOUBLE_SQUARES = 2.0**-1020
# The largest magnitudes above which, and below which, float64 variances are
# taken again scaled (see _rescaled).
_HUGE_SPREAD = 2.0**480
_TINY_SPREAD = 2.0**-400
# What each engine namespace offers beyond the standard, read once per
# namespace: (namespace, attribute) -> its value, or None where it has none.
_EXTRAS: dict[tuple[Any, str], Any] = {}


def _extra(xp: Any, name: str) -> Any:
    """Engine namespace ``xp``'s hook ``name`` (``EngineHooks``), or None,
    remembered per namespace."""
    try:
        return _EXTRAS[xp, name]
    except KeyError:
        value = _EXTRAS[xp, name] = hook(xp, name)
        return value


def _accurate(xp: Any) -> bool:
    """Whether engine namespace ``xp`` sums, multiplies and scans ``float32``
    and ``complex64`` within dlarray's bounds in the dtype itself (its
    ``_dlarray_accurate_accumulation``; see the module docstring)."""
    return bool(_extra(xp, "_dlarray_accurate_accumulation"))


# ---- argument checking shared by the reductions (utility.py uses it too) ----


def reduction_axes(ndim: int, axis: Any, keepdims: Any, func: str) -> tuple[int, ...]:
    """The axes a reduction runs over, as a sorted tuple; checks ``keepdims``."""
    if not isinstance(keepdims, bool):
        raise TypeError(f"{func}: keepdims must be a bool, got {keepdims!r}")
    return normalize_axes(axis, ndim, func)


def engine_axis(ndim: int, axis: Any, keepdims: Any, func: str) -> Any:
    """``axis`` as the standard's reductions take it: ``None`` (every axis),
    an int (negative ones count from the end) or a sorted tuple.

    The common cases (None, one int in range) skip :func:`reduction_axes`.
    """
    if type(keepdims) is bool:
        if axis is None:
            return None
        if type(axis) is int and -ndim <= axis < ndim:
            return axis
    return reduction_axes(ndim, axis, keepdims, func)


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    """How many elements each result element reduces."""
    return math.prod(shape[i] for i in axes)


def _work_dtype(xp: Any, dtype: DType) -> DType:
    """The dtype that values of result ``dtype`` accumulate in on engine ``xp``."""
    if dtype in _WIDE and not _accurate(xp):
        return _WIDE[dtype]
    return dtype


def _accumulation_dtype(x_dtype: DType, dtype: Any, func: str) -> DType:
    """The result dtype of sum/prod/cumulative_* given the ``dtype`` argument."""
    if dtype is None:
        return default_accumulation_dtype(x_dtype)
    if (wanted := dtype_argument(dtype)) is None:
        raise TypeError(f"{func}: dtype must be a dlarray dtype or None, got {dtype!r}")
    dtype = wanted
    if dtype not in _NUMERIC:
        raise TypeError(f"{func}: dtype must be a numeric dtype, got {dtype.name}")
    if x_dtype in _COMPLEX and dtype not in _COMPLEX:
        # As astype: the standard does not let a cast silently drop imaginary parts.
        raise TypeError(
            f"{func}: cannot accumulate a {x_dtype.name} array in the real dtype "
            f"{dtype.name}; reduce dlarray.real(x) or dlarray.imag(x) instead"
        )
    return dtype


def _in_result_dtype(xp: Any, a: Any, x_dtype: DType, out_dtype: DType) -> Any:
    """``a`` (of dtype ``x_dtype``) cast to ``out_dtype`` first, as the
    standard asks for ``dtype=``, where the accumulation that follows would
    not do it: when values accumulate in a wider dtype than the result's.
    (Run inside :func:`call`: float -> int casts of NaN/inf are the
    caller's choice, not a warning.)"""
    if x_dtype is out_dtype or _work_dtype(xp, out_dtype) is out_dtype:
        return a
    return xp.astype(a, engine_dtype(xp, out_dtype))


def _overflowed(xp: Any, total: Any) -> bool:
    """Whether some element of ``total`` is infinite or NaN."""
    if total.ndim == 0:  # (the common case, without engine calls)
        value = complex(total)
        return not (math.isfinite(value.real) and math.isfinite(value.imag))
    return not bool(xp.all(xp.isfinite(total)))


def _rounded(xp: Any, result: Any, dtype: DType) -> Any:
    """``result`` in ``dtype`` (rounding a double-precision accumulator may
    overflow to inf)."""
    target = engine_dtype(xp, dtype)
    if result.dtype == target:
        return result
    return xp.astype(result, target, copy=False)


# ---- sum and prod ----


def _accumulate(x: ArrayBase, axis: Any, dtype: Any, keepdims: Any, func: str) -> ArrayBase:
    """sum or prod."""
    if isinstance(x, ArrayBase) and dtype is None and x.dtype in _SELF_ACCUMULATING:
        a = engine_view(x)
        axes = engine_axis(a.ndim, axis, keepdims, func)
        return call(getattr(namespace_of(a), func), a, axis=axes, keepdims=keepdims)
    a = unary(x, _NUMERIC, "numeric", func)
    axes = engine_axis(a.ndim, axis, keepdims, func)
    out_dtype = _accumulation_dtype(x.dtype, dtype, func)
    return call(_accumulate_kernel, func, a, x.dtype, axes, keepdims, out_dtype)


def _accumulate_kernel(
    func: str, a: Any, x_dtype: DType, axes: Any, keepdims: bool, out_dtype: DType
) -> Any:
    """The general sum/prod, for :func:`call`: cast to the result dtype,
    accumulate in its work dtype (``xp.sum(..., dtype=float64)`` for
    ``float32`` on an engine that is not accurate in it), round back."""
    xp = namespace_of(a)
    values = _in_result_dtype(xp, a, x_dtype, out_dtype)
    work = engine_dtype(xp, _work_dtype(xp, out_dtype))
    result = getattr(xp, func)(values, axis=axes, dtype=work, keepdims=keepdims)
    return _rounded(xp, result, out_dtype)


def sum(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    dtype: DType | None = None,
    keepdims: bool = False,
) -> ArrayBase:
    """Sum of the elements of ``x`` over ``axis`` (all axes by default).

    Parameters
    ----------
    x : DLArray
        Array of a numeric dtype.
    axis : int or tuple of ints, optional
        Axes to reduce; ``None`` reduces all of them.
    dtype : DType, optional
        Result dtype; ``x`` is cast to it before summing.  By default a
        floating dtype is kept and an integer dtype widens to ``int64``
        (signed) or ``uint64`` (unsigned).
    keepdims : bool
        Keep the reduced axes as axes of size one.

    Returns
    -------
    DLArray
        The sums; an empty sum is ``0``.  ``float32``/``complex64`` sums
        are within ``2**-24 * (|s| + 16 * sum|x|)`` of the exact sum ``s``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not numeric, ``keepdims`` is not a bool, or
        ``dtype`` is not None or a numeric dlarray dtype.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.sum(xp.asarray([[1, 2], [3, 4]], dtype=xp.int32), axis=0)
    dlarray.asarray([4, 6], dtype=dlarray.int64)
    >>> xp.sum(xp.asarray([0.5, 0.25], dtype=xp.float32))
    dlarray.asarray(0.75, dtype=dlarray.float32)
    """
    return _accumulate(x, axis, dtype, keepdims, "sum")


def prod(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    dtype: DType | None = None,
    keepdims: bool = False,
) -> ArrayBase:
    """Product of the elements of ``x`` over ``axis`` (all axes by default).

    ``dtype`` and the result dtype follow :func:`sum`; an empty product is
    ``1``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not numeric, ``keepdims`` is not a bool, or
        ``dtype`` is not None or a numeric dlarray dtype.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.prod(xp.asarray([[1, 2], [3, 4]], dtype=xp.uint8), axis=1)
    dlarray.asarray([2, 12], dtype=dlarray.uint64)
    """
    return _accumulate(x, axis, dtype, keepdims, "prod")


# ---- cumulative_sum and cumulative_prod ----


def _scan_axis(ndim: int, axis: Any, func: str) -> int:
    if ndim == 0:
        # The standard leaves 0-d input unspecified; a scan needs an axis.
        raise ValueError(f"{func}: x must have at least one axis, got a 0-d array")
    if axis is None:
        if ndim > 1:
            raise ValueError(
                f"{func}: axis is required for an array of {ndim} dimensions; pass axis=..."
            )
        return 0
    return normalize_axis(axis, ndim, func)


def _scan(x: ArrayBase, axis: Any, dtype: Any, include_initial: Any, func: str) -> ArrayBase:
    a = unary(x, _NUMERIC, "numeric", func)
    ax = _scan_axis(a.ndim, axis, func)
    if not isinstance(include_initial, bool):
        raise TypeError(f"{func}: include_initial must be a bool, got {include_initial!r}")
    out_dtype = _accumulation_dtype(x.dtype, dtype, func)
    return call(_scan_kernel, func, a, x.dtype, ax, include_initial, out_dtype)


def _scan_kernel(
    func: str, a: Any, x_dtype: DType, ax: int, include_initial: bool, out_dtype: DType
) -> Any:
    """The scan, for :func:`call`: the running results, accumulated in the
    work dtype and rounded back."""
    xp = namespace_of(a)
    values = _in_result_dtype(xp, a, x_dtype, out_dtype)
    work = engine_dtype(xp, _work_dtype(xp, out_dtype))
    result = getattr(xp, func)(values, axis=ax, dtype=work, include_initial=include_initial)
    return _rounded(xp, result, out_dtype)


def cumulative_sum(
    x: ArrayBase,
    /,
    *,
    axis: int | None = None,
    dtype: DType | None = None,
    include_initial: bool = False,
) -> ArrayBase:
    """Running sums of ``x`` along ``axis``.

    Parameters
    ----------
    x : DLArray
        Array of a numeric dtype with at least one axis.
    axis : int, optional
        The axis to scan; may be left out only for a 1-d ``x``.
    dtype : DType, optional
        Result dtype, chosen as for :func:`sum`.
    include_initial : bool
        Start each scan with the additive identity ``0``, making the axis
        one longer.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not numeric, ``include_initial`` is not
        a bool, or ``dtype`` is not None or a numeric dlarray dtype.
    ValueError
        If ``axis`` is left out for an array of more than one axis, or ``axis`` is out
        of range (also an ``IndexError``).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.cumulative_sum(xp.asarray([1, 2, 3]), include_initial=True)
    dlarray.asarray([0, 1, 3, 6], dtype=dlarray.int64)
    """
    return _scan(x, axis, dtype, include_initial, "cumulative_sum")


def cumulative_prod(
    x: ArrayBase,
    /,
    *,
    axis: int | None = None,
    dtype: DType | None = None,
    include_initial: bool = False,
) -> ArrayBase:
    """Running products of ``x`` along ``axis``.

    Arguments as for :func:`cumulative_sum`; the initial value is ``1``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not numeric, ``include_initial`` is not
        a bool, or ``dtype`` is not None or a numeric dlarray dtype.
    ValueError
        If ``axis`` is left out for an array of more than one axis, or ``axis`` is out
        of range (also an ``IndexError``).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.cumulative_prod(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), axis=1)
    dlarray.asarray([[1.0, 2.0], [3.0, 12.0]], dtype=dlarray.float64)
    """
    return _scan(x, axis, dtype, include_initial, "cumulative_prod")


# ---- max and min ----


def _extreme(x: ArrayBase, axis: Any, keepdims: Any, func: str) -> ArrayBase:
    if isinstance(x, ArrayBase) and 0 not in x.shape and x.dtype in _REAL:
        # Elements to reduce, whatever the axes: the engine's kernel at once.
        a = engine_view(x)
        axes = engine_axis(a.ndim, axis, keepdims, func)
        return call(getattr(namespace_of(a), func), a, axis=axes, keepdims=keepdims)
    a = unary(x, _REAL, "real-valued", func)
    axes = reduction_axes(a.ndim, axis, keepdims, func)
    kept = [n for i, n in enumerate(a.shape) if i not in axes]
    if _count(a.shape, axes) == 0 and 0 not in kept:
        # The standard leaves this implementation-defined; there is no
        # identity to return for every dtype, so refuse it as NumPy does.
        raise ValueError(
            f"{func}: there is no {func} of zero elements (x has shape {a.shape}, "
            f"reduced axes {axes})"
        )
    return call(getattr(namespace_of(a), func), a, axis=axes, keepdims=keepdims)


def max(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
) -> ArrayBase:
    """Largest element of ``x`` over ``axis`` (all axes by default).

    ``x`` must have a real-valued dtype.  NaNs propagate.  Reducing over
    zero elements raises ``ValueError``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not real-valued, or ``keepdims`` is not
        a bool.
    ValueError
        If the reduced axes have no elements (no identity), or ``axis`` is out of range
        (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.max(xp.asarray([[1, 5], [7, 2]]), axis=1)
    dlarray.asarray([5, 7], dtype=dlarray.int64)
    """
    return _extreme(x, axis, keepdims, "max")


def min(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
) -> ArrayBase:
    """Smallest element of ``x`` over ``axis`` (all axes by default).

    ``x`` must have a real-valued dtype.  NaNs propagate.  Reducing over
    zero elements raises ``ValueError``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not real-valued, or ``keepdims`` is not
        a bool.
    ValueError
        If the reduced axes have no elements (no identity), or ``axis`` is out of range
        (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.min(xp.asarray([[1, 5], [7, 2]]), axis=0, keepdims=True)
    dlarray.asarray([[1, 2]], dtype=dlarray.int64)
    """
    return _extreme(x, axis, keepdims, "min")


# ---- mean, var and std ----


def _floating_result(dtype: DType) -> DType:
    """The result dtype of mean/var/std: integers give the default real float."""
    return dtype if dtype in _FLOATING else DEFAULT_DTYPES["real floating"]


def _reduced_count(shape: tuple[int, ...], axes: Any) -> int:
    """How many elements each result element reduces, for an engine axis."""
    if axes is None:
        return math.prod(shape)
    if type(axes) is int:
        return shape[axes]
    return _count(shape, axes)


def _complex(xp: Any, re: Any, im: Any, dtype: Any, device: Any) -> Any:
    """The complex array ``re + im j`` of engine ``dtype``, part by part.

    The standard has no constructor from parts, and ``im * 1j`` is
    ``(im * 0) + im j``: NaN in the real part where ``im`` is infinite or
    NaN.  Those elements take their imaginary part from a constant instead.
    """

    def constant(value: complex) -> Any:
        return xp.asarray(value, dtype=dtype, device=device)

    finite = xp.isfinite(im)
    imaginary = xp.astype(xp.where(finite, im, xp.zeros_like(im)), dtype) * constant(1j)
    special = xp.where(
        xp.isnan(im),
        constant(complex(0.0, math.nan)),
        xp.where(im > 0, constant(complex(0.0, math.inf)), constant(complex(0.0, -math.inf))),
    )
    return xp.astype(re, dtype) + xp.where(finite, imaginary, special)


def mean(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
) -> ArrayBase:
    """Arithmetic mean of ``x`` over ``axis`` (all axes by default).

    ``x`` may be real or complex floating (the result keeps its dtype) or an
    integer (the result is ``float64``).  The mean of zero elements is NaN
    (``NaN + NaN j`` for complex).

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not numeric, ``keepdims`` is not a bool.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.mean(xp.asarray([[1.0, 2.0], [3.0, 5.0]]), axis=0)
    dlarray.asarray([2.0, 3.5], dtype=dlarray.float64)
    """
    a = unary(x, _NUMERIC, "numeric", "mean")
    axes = engine_axis(a.ndim, axis, keepdims, "mean")
    return call(_mean_kernel, a, axes, keepdims, _floating_result(x.dtype))


def _mean_kernel(a: Any, axes: Any, keepdims: bool, out_dtype: DType) -> Any:
    """The mean, for :func:`call`: a sum in the work dtype, divided, rounded.

    Complex parts are divided separately, so a NaN or infinity in one part
    does not spill into the other (the standard's rule for mean).
    """
    xp = namespace_of(a)
    work = engine_dtype(xp, _work_dtype(xp, out_dtype))
    total = xp.sum(a, axis=axes, dtype=work, keepdims=keepdims)
    count = _reduced_count(a.shape, axes)
    if not _overflowed(xp, total):  # the common case
        if out_dtype in _COMPLEX:
            total = _complex(xp, xp.real(total) / count, xp.imag(total) / count, work, a.device)
        elif count != 1:  # (with count 1 the total might be x itself, as a sum over no axes)
            total /= count  # in place: NumPy would turn a 0-d total into a scalar
        return _rounded(xp, total, out_dtype)
    # A sum beyond the dtype's range, or of infinities or NaN: the mean
    # itself lies within the range of x.
    wide = engine_dtype(xp, _WIDE.get(out_dtype, out_dtype))
    complex_ = out_dtype in _COMPLEX
    if work != wide:
        # Single precision: taken again in double, where it cannot overflow.
        total = xp.sum(a, axis=axes, dtype=wide, keepdims=keepdims)
        totals = (xp.real(total), xp.imag(total)) if complex_ else (total,)
        means = [_within_range(xp, part / count, part, _SINGLE_MAX) for part in totals]
    elif a.dtype == wide:
        # Double precision: taken again scaled where it overflowed.
        values = (xp.real(a), xp.imag(a)) if complex_ else (a,)
        totals = (xp.real(total), xp.imag(total)) if complex_ else (total,)
        means = [
            _scaled_mean(xp, part, part_total, axes, keepdims, count)
            for part, part_total in zip(values, totals, strict=True)
        ]
    else:
        # Integers, or single precision summed in double: double holds
        # their sums, so only infinities and NaN in x got here.
        totals = (xp.real(total), xp.imag(total)) if complex_ else (total,)
        means = [part / count for part in totals]
    if complex_:
        return _rounded(xp, _complex(xp, means[0], means[1], wide, a.device), out_dtype)
    return _rounded(xp, means[0], out_dtype)


def _within_range(xp: Any, means: Any, totals: Any, largest: float) -> Any:
    """``means``, their finite ``totals`` divided, clipped to the dtype's
    range (``largest``): an exact mean lies between its values, but a sum's
    rounding (relative ``count * 2**-53``) could carry the mean of values
    near the largest past it, to infinity once rounded."""
    return xp.where(xp.isfinite(totals), xp.clip(means, -largest, largest), means)


def _scaled_mean(xp: Any, values: Any, totals: Any, axes: Any, keepdims: bool, count: int) -> Any:
    """The means of the real double-precision ``values`` whose sums
    ``totals`` are not all finite: those that are finite divided, the others
    taken again from ``values * 2**-k`` with ``2**k > 2 * count``.

    Scaled so, no partial sum can overflow (each is at most
    ``count * 2**-k`` times float64's largest value, with its roundings).
    Scaling by a power of two is exact, but for the values it takes below
    float64's normal range: an absolute ``2**(k - 1075)`` each, nothing
    beside the sum's error bound (about ``count * 2**-53`` times the sum of
    the magnitudes, which is beyond float64's range here).
    """
    k = (2 * count).bit_length()
    scaled = xp.sum(values * 2.0**-k, axis=axes, keepdims=keepdims)
    means = _within_range(xp, (scaled / count) * 2.0**k, scaled, _DOUBLE_MAX)
    return xp.where(xp.isfinite(totals), totals / count, means)


def _check_correction(correction: Any, func: str) -> float:
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError(f"{func}: correction must be an int or a float, got {correction!r}")
    if not correction >= 0:
        raise ValueError(f"{func}: correction must be non-negative, got {correction!r}")
    return float(correction)


def _variance(
    a: Any, axes: tuple[int, ...], correction: float, keepdims: bool, root: bool, out_dtype: DType
) -> Any:
    """Two-pass variance (or its square root) in the engine, for :func:`call`:
    mean first, then squared deviations, in the work dtype, rounded to
    ``out_dtype``.

    Where ``M - correction <= 0`` the standard makes the result NaN (NumPy
    would give ``inf`` or a negative value).
    """
    xp = namespace_of(a)
    count = _count(a.shape, axes)
    # Small spreads stay in double precision on every engine: there a cast
    # costs little, and rounding the mean to single precision would cost
    # accuracy where |mean| is much larger than the spread.
    wide = engine_dtype(xp, _WIDE.get(out_dtype, out_dtype))
    work = wide if count < _SINGLE_SPREAD else engine_dtype(xp, _work_dtype(xp, out_dtype))
    squares = _squared_deviations(xp, a, axes, keepdims, count, work)
    if work != wide and not _in_single_range(xp, squares, count):
        squares = _squared_deviations(xp, a, axes, keepdims, count, wide)
    scale = None
    if a.dtype == wide and count and not _in_range(xp, squares, count, _DOUBLE_MAX):
        # Double-precision values whose squared deviations (or their mean)
        # left float64's range: taken again scaled (_rescaled).
        squares, scale = _rescaled(xp, a, axes, keepdims, count, squares)
    divisor = count - correction
    if divisor <= 0:
        result = xp.full_like(squares, math.nan)
    else:
        result = squares / divisor
    if root:
        result = xp.sqrt(result)
    if scale is not None:  # (each division by a power of two is exact, or rounds once)
        result = result / scale if root else (result / scale) / scale
    return _rounded(xp, result, out_dtype)


def _squared_deviations(
    xp: Any, a: Any, axes: tuple[int, ...], keepdims: bool, count: int, work: Any
) -> Any:
    """The sums of squared deviations from the mean over ``axes``, in ``work``."""
    if a.dtype == work:
        deviations = a - xp.sum(a, axis=axes, keepdims=True) / count  # a new array
    else:
        # A new array (astype copies), so the in-place step leaves x alone.
        deviations = xp.astype(a, work)
        deviations -= xp.sum(deviations, axis=axes, keepdims=True) / count
    # An engine may sum the squares without writing them out
    # (_dlarray_sum_of_squares: NumPy's, for a large float32 run).
    fused = _extra(xp, "_dlarray_sum_of_squares")
    total = None if fused is None else fused(deviations, axes, keepdims)
    if total is None:
        deviations *= deviations
        total = xp.sum(deviations, axis=axes, keepdims=keepdims)
    return total


def _in_single_range(xp: Any, squares: Any, count: int) -> bool:
    """Whether single-precision sums of squared deviations ``squares`` (of
    ``count`` terms each) are as accurate as the documented bound says.

    Not where one is infinite or NaN: a deviation (or the mean's sum)
    overflowed float32, though the variance may be finite (one 1e20 among
    65535 zeros: a deviation squared is 1e40, the variance 1.5e35); nor
    where one is below ``count * 2**-100``: squares below float32's normal
    range (2**-126) keep only an absolute accuracy of 2**-150 each.  Double
    precision has neither problem for float32 values.
    """
    return _in_range(xp, squares, count, _SINGLE_MAX, _TINY_SQUARES)


def _in_range(
    xp: Any, squares: Any, count: int, largest: float, tiny: float = _TINY_DOUBLE_SQUARES
) -> bool:
    """Whether every sum of ``count`` squared deviations in ``squares`` lies
    within ``[count * tiny, largest]`` (NaN does not)."""
    smallest = count * tiny
    if squares.ndim == 0:  # (the common case, without engine calls)
        return smallest <= float(squares) <= largest  # (NaN fails)
    return bool(xp.all((squares >= smallest) & (squares <= largest)))


def _rescaled(
    xp: Any, a: Any, axes: tuple[int, ...], keepdims: bool, count: int, squares: Any
) -> tuple[Any, Any]:
    """The sums of squared deviations of the float64 ``a`` over ``axes``
    formed from ``a * scale`` instead, and ``scale`` (shaped as the sums),
    where some sum in ``squares`` is not finite or is small; ``(squares,
    None)`` where scaling would change nothing.

    ``scale`` is a power of two for each result, chosen by its largest
    magnitude ``M``: ``2**-600`` above ``2**480``, so that no deviation
    (at most ``2**425``), square or sum overflows; ``2**600`` where ``M`` is
    below ``2**-400`` but not 0, so that no nonzero value is subnormal; 1
    between, where neither can happen: there a nonzero deviation is at
    least ``2**-454`` (the values' spacing near ``M``) and the squares
    overflow nowhere, so a sum below ``count * 2**-1020`` is 0, exactly,
    and a sum that is not finite comes from an infinity or a NaN.  A value
    that scaling by ``2**-600`` takes below the normal range is off by at
    most ``2**-475``, nothing beside the mean's error there (at least
    ``2**-53 * M``).
    """
    largest = xp.maximum(xp.max(a, axis=axes, keepdims=True), -xp.min(a, axis=axes, keepdims=True))
    shrink = largest > _HUGE_SPREAD
    grow = (largest < _TINY_SPREAD) & (largest > 0)
    if not bool(xp.any(shrink | grow)):
        return squares, None
    one = xp.ones_like(largest)
    scale = xp.where(shrink, one * 2.0**-600, xp.where(grow, one * 2.0**600, one))
    deviations = a * scale  # (a new array)
    deviations -= xp.sum(deviations, axis=axes, keepdims=True) / count
    # The mean's rounding, taken out: near float64's largest values an ulp of
    # the mean, squared, is beyond the range once scaled back, where the
    # variance of equal values is 0 (their deviations are then that rounding
    # exactly, and so is its mean).
    deviations -= xp.sum(deviations, axis=axes, keepdims=True) / count
    deviations *= deviations
    squares = xp.sum(deviations, axis=axes, keepdims=keepdims)
    return squares, xp.reshape(scale, squares.shape)


def _spread(
    x: ArrayBase, axis: Any, correction: Any, keepdims: Any, func: str, root: bool
) -> ArrayBase:
    a = unary(x, _REAL, "real-valued", func)
    axes = reduction_axes(a.ndim, axis, keepdims, func)
    ddof = _check_correction(correction, func)
    return call(_variance, a, axes, ddof, keepdims, root, _floating_result(x.dtype))


def var(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    correction: int | float = 0.0,
    keepdims: bool = False,
) -> ArrayBase:
    """Variance of ``x`` over ``axis`` (all axes by default).

    Parameters
    ----------
    x : DLArray
        Array of a real floating dtype (kept) or an integer dtype (the
        result is ``float64``).
    axis : int or tuple of ints, optional
        Axes to reduce; ``None`` reduces all of them.
    correction : int or float
        Degrees-of-freedom adjustment ``c``: the divisor is ``M - c`` for
        ``M`` reduced elements (``1`` gives Bessel's correction).  Where
        ``M - c <= 0`` the result is NaN.
    keepdims : bool
        Keep the reduced axes as axes of size one.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not numeric, ``keepdims`` is not a bool, or
        ``correction`` is not an int or a float.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.var(xp.asarray([1.0, 2.0, 3.0, 4.0]), correction=1)
    dlarray.asarray(1.6666666666666667, dtype=dlarray.float64)
    """
    return _spread(x, axis, correction, keepdims, "var", root=False)


def std(
    x: ArrayBase,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    correction: int | float = 0.0,
    keepdims: bool = False,
) -> ArrayBase:
    """Standard deviation of ``x`` over ``axis``: the square root of :func:`var`.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not numeric, ``keepdims`` is not a bool, or
        ``correction`` is not an int or a float.
    ValueError
        If ``axis`` is out of range (also an ``IndexError``) or repeats an axis.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.std(xp.asarray([[1.0, 3.0], [2.0, 6.0]], dtype=xp.float32), axis=1)
    dlarray.asarray([1.0, 2.0], dtype=dlarray.float32)
    """
    return _spread(x, axis, correction, keepdims, "std", root=True)
