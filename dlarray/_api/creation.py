"""Creation functions of the standard, and moving arrays between devices.

``empty`` and ``zeros`` are the core's (:mod:`dlarray._creation`), ``asarray``
is :mod:`dlarray._asarray`'s;
this chapter adds the rest.  New arrays are allocated by dlarray's own
storage on the requested device and filled there through a zero-copy engine
view, with the functions of the engine's standard namespace (values such as
``arange``'s are computed by the engine on that device, never on the host and
copied), so every array a creation function returns owns dlarray memory.
``tril`` and ``triu`` compute on their input and return the engine's result.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from dlarray._consumer import from_dlpack
from dlarray._core import ArrayBase
from dlarray._creation import asarray, empty, zeros
from dlarray._device import Device, as_device
from dlarray._dtypes import DTYPES_BY_NAME, DType, as_dtype, scalar_or_itself
from dlarray._engine.numpy_engine import numpy_dtype, quiet
from dlarray._engine.routing import engine_view, namespace_of, wrap, write
from dlarray._rules import CATEGORIES, DEFAULT_DTYPES, check_dtype_argument, common_device
from dlarray._storage.family import family_of
from dlarray._transfer import copy_to_device

__all__ = [
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "linspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_BOOL, _INT, _FLOAT, _COMPLEX = (
    as_dtype("bool"),
    DEFAULT_DTYPES["integral"],
    DEFAULT_DTYPES["real floating"],
    DEFAULT_DTYPES["complex floating"],
)


def _standard_dtype(dtype: Any, func: str) -> DType | None:
    if dtype is None:
        return None
    d = as_dtype(dtype)
    if d not in CATEGORIES["all"]:
        raise TypeError(f"{func}: {d.name} is not one of the Array API's dtypes")
    return d


def _int_argument(value: Any, name: str, func: str, meaning: str = "") -> int:
    """``value`` as an int: anything with ``__index__`` but a bool (TypeError
    naming the argument otherwise)."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        meaning = f" ({meaning})" if meaning else ""
        raise TypeError(
            f"{func}: {name} must be an int{meaning}, got {type(value).__name__} {value!r}"
        )
    return operator.index(value)


def _default_for(value: Any, func: str) -> DType:
    """The default dtype for a Python scalar (bool, int, float or complex)."""
    kind = type(value)
    if kind is bool:
        return _BOOL
    if kind is int:
        return _INT
    if kind is float:
        return _FLOAT
    if kind is complex:
        return _COMPLEX
    raise TypeError(f"{func}: expected a Python bool, int, float or complex, got {kind.__name__}")


def _fill_view(out: ArrayBase) -> Any:
    """A writable engine view for filling a new array in place."""
    return engine_view(out)


# The Python type of the values of each dtype kind.  The standard's
# __setitem__ takes a Python scalar of the array's own kind (and an int for
# a floating array); other fill values are converted here, on the host, as
# NumPy converts them: bool(2.5) is True, int(2.7) is 2, and a complex value
# for a real dtype is refused.
_PYTHON_TYPES = {
    "bool": bool,
    "signed integer": int,
    "unsigned integer": int,
    "real floating": float,
    "complex floating": complex,
    "extended floating": float,
}
_PYTHON_SCALARS = frozenset(_PYTHON_TYPES.values())
_TAKES = {
    "bool": (bool,),
    "signed integer": (int,),
    "unsigned integer": (int,),
    "real floating": (int, float),
    "complex floating": (int, float, complex),
    "extended floating": (int, float),
}
# Integer bounds (host metadata of the dtypes; no array is involved).
_INT_BOUNDS = {
    d: (int(np.iinfo(numpy_dtype(d)).min), int(np.iinfo(numpy_dtype(d)).max))
    for d in CATEGORIES["integer"]
}
# Floating dtypes narrower than a Python float: a large value overflows to
# inf there, a result rather than an error, which NumPy would warn about.
_NARROW = frozenset(
    d
    for d in DTYPES_BY_NAME.values()
    if d.kind == "extended floating" or d.name in ("float32", "complex64")
)


def _fill_value(value: Any, dtype: DType, func: str) -> Any:
    """``value`` as the Python scalar the standard lets an array of
    ``dtype`` be filled with."""
    kind = dtype.kind
    if type(value) not in _TAKES[kind]:
        if type(value) not in _PYTHON_SCALARS:
            raise TypeError(
                f"{func}: fill_value must be a Python bool, int, float or complex, got "
                f"{type(value).__name__}"
            )
        if type(value) is complex and kind != "bool":
            raise TypeError(
                f"{func}: a complex fill_value for a {dtype.name} array would drop the "
                f"imaginary part; pass a real value or a complex dtype"
            )
        try:
            value = _PYTHON_TYPES[kind](value)
        except (ValueError, OverflowError):  # int(nan), int(inf)
            raise ValueError(f"{func}: fill_value {value!r} has no {dtype.name} value") from None
    bounds = _INT_BOUNDS.get(dtype)
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        raise OverflowError(
            f"{func}: fill_value {value} does not fit in {dtype.name}, whose values lie in "
            f"[{bounds[0]}, {bounds[1]}]; pass a dtype that holds it"
        )
    return value


def _write(a: Any, value: Any) -> None:
    write(a, Ellipsis, value)


_write_quietly = quiet(_write)


def _filled(shape: Any, value: Any, dtype: DType, device: Any, func: str) -> ArrayBase:
    value = _fill_value(value, dtype, func)
    out = empty(shape, dtype=dtype, device=device)
    if out.size:
        view = _fill_view(out)
        if dtype in _NARROW and abs(value) > 1:  # may overflow to inf: not a warning
            _write_quietly(view, value)
        else:
            write(view, Ellipsis, value)
    return out


def full(
    shape: Any, fill_value: bool | int | float | complex, *, dtype: Any = None, device: Any = None
) -> ArrayBase:
    """A new array of ``shape`` with every element ``fill_value``.

    Without ``dtype`` the dtype follows ``fill_value``'s Python type: bool,
    the default integer (int64), real floating (float64) or complex
    (complex128) dtype.

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple of ints, ``dtype`` is not a
        dlarray dtype or its name, ``device`` is not a device, or
        ``fill_value`` is not a Python bool, int, float or complex (for an
        array, use :func:`broadcast_to`).
    ValueError
        If ``shape`` has a negative extent, more than 64 dimensions, or
        nonzero extents whose product times the element's bytes passes
        2**63 - 1 (NumPy's limits; an empty shape too), or
        ``device`` names an unknown kind.
    BufferError
        If memory cannot be allocated on ``device``:
        :class:`dlarray.CUDAUnavailableError` or
        :class:`dlarray.SYCLUnavailableError` (also ``ValueError``) for memory
        this process cannot reach.
    MemoryError
        If the host has not the bytes to give.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.full((2,), 7)
    dlarray.asarray([7, 7], dtype=dlarray.int64)
    """
    fill_value = scalar_or_itself(fill_value)
    d = _standard_dtype(dtype, "full") or _default_for(fill_value, "full")
    if isinstance(fill_value, ArrayBase):
        raise TypeError("full: fill_value must be a Python scalar; for an array use broadcast_to")
    return _filled(shape, fill_value, d, device, "full")


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> ArrayBase:
    """A new array of ``shape`` filled with ones (default dtype float64).

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple of ints, ``dtype`` is not a
        dlarray dtype or its name, or ``device`` is not a device.
    ValueError
        If ``shape`` has a negative extent, more than 64 dimensions, or
        nonzero extents whose product times the element's bytes passes
        2**63 - 1 (NumPy's limits; an empty shape too), or
        ``device`` names an unknown kind.
    BufferError
        If memory cannot be allocated on ``device``:
        :class:`dlarray.CUDAUnavailableError` or
        :class:`dlarray.SYCLUnavailableError` (also ``ValueError``) for memory
        this process cannot reach.
    MemoryError
        If the host has not the bytes to give.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.ones(3, dtype=xp.int8)
    dlarray.asarray([1, 1, 1], dtype=dlarray.int8)
    """
    return _filled(shape, 1, _standard_dtype(dtype, "ones") or _FLOAT, device, "ones")


def _like(x: ArrayBase, dtype: Any, device: Any, func: str) -> tuple[DType, Device]:
    if not isinstance(x, ArrayBase):
        raise TypeError(f"{func}: expected a dlarray array, got {type(x).__name__}")
    d = x.dtype if dtype is None else as_dtype(dtype)
    return d, x.device if device is None else as_device(device)


def empty_like(x: ArrayBase, /, *, dtype: Any = None, device: Any = None) -> ArrayBase:
    """A new uninitialised array with the shape (and by default dtype and
    device) of ``x``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, ``dtype`` is not a dlarray dtype or its
        name, or ``device`` is not a device.
    ValueError
        If ``device`` names an unknown kind.
    BufferError
        If memory cannot be allocated on ``device``
        (:class:`dlarray.CUDAUnavailableError`,
        :class:`dlarray.SYCLUnavailableError`).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.empty_like(xp.zeros((2, 3))).shape
    (2, 3)
    """
    d, dev = _like(x, dtype, device, "empty_like")
    return empty(x.shape, dtype=d, device=dev)


def zeros_like(x: ArrayBase, /, *, dtype: Any = None, device: Any = None) -> ArrayBase:
    """A new array of zeros shaped like ``x``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, ``dtype`` is not a dlarray dtype or its
        name, or ``device`` is not a device.
    ValueError
        If ``device`` names an unknown kind.
    BufferError
        If memory cannot be allocated on ``device``
        (:class:`dlarray.CUDAUnavailableError`,
        :class:`dlarray.SYCLUnavailableError`).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.zeros_like(xp.asarray([1, 2]))
    dlarray.asarray([0, 0], dtype=dlarray.int64)
    """
    d, dev = _like(x, dtype, device, "zeros_like")
    return zeros(x.shape, dtype=d, device=dev)


def ones_like(x: ArrayBase, /, *, dtype: Any = None, device: Any = None) -> ArrayBase:
    """A new array of ones shaped like ``x``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, ``dtype`` is not a dlarray dtype or its
        name, or ``device`` is not a device.
    ValueError
        If ``device`` names an unknown kind.
    BufferError
        If memory cannot be allocated on ``device``
        (:class:`dlarray.CUDAUnavailableError`,
        :class:`dlarray.SYCLUnavailableError`).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.ones_like(xp.asarray([True, False]))
    dlarray.asarray([True, True], dtype=dlarray.bool)
    """
    d, dev = _like(x, dtype, device, "ones_like")
    return _filled(x.shape, 1, d, dev, "ones_like")


def full_like(
    x: ArrayBase,
    /,
    fill_value: bool | int | float | complex,
    *,
    dtype: Any = None,
    device: Any = None,
) -> ArrayBase:
    """A new array shaped like ``x`` filled with ``fill_value``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, ``dtype`` is not a dlarray dtype or its
        name, ``device`` is not a device, or ``fill_value``'s kind does not
        fit the dtype (a float for an integer array, a non-bool for a bool one).
    ValueError
        If ``device`` names an unknown kind.
    BufferError
        If memory cannot be allocated on ``device``
        (:class:`dlarray.CUDAUnavailableError`,
        :class:`dlarray.SYCLUnavailableError`).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.full_like(xp.zeros(2, dtype=xp.float32), 0.5)
    dlarray.asarray([0.5, 0.5], dtype=dlarray.float32)
    """
    d, dev = _like(x, dtype, device, "full_like")
    fill_value = scalar_or_itself(fill_value)
    if d in CATEGORIES["integer"] and type(fill_value) is float:
        raise TypeError(f"full_like: a float fill_value for an {d.name} array")
    if d is _BOOL and type(fill_value) is not bool:
        raise TypeError("full_like: a bool array needs a bool fill_value")
    return _filled(x.shape, fill_value, d, dev, "full_like")


def arange(
    start: int | float,
    /,
    stop: int | float | None = None,
    step: int | float = 1,
    *,
    dtype: Any = None,
    device: Any = None,
) -> ArrayBase:
    """Evenly spaced values in ``[start, stop)`` with spacing ``step``.

    The length is ``ceil((stop - start) / step)`` (0 when negative).  Without
    ``dtype``: int64 when all arguments are ints, else float64.

    Raises
    ------
    TypeError
        If ``start``, ``stop`` or ``step`` is not an int or a float, or
        ``dtype`` is not a numeric dtype (a complex one holds the real values).
    ValueError
        If ``step`` is 0, ``start``, ``stop`` or ``step`` is not finite (inf,
        nan), the length is too big for an array, or ``device`` names an
        unknown kind.
    OverflowError
        If integer arguments give values outside int64.
    BufferError
        If memory cannot be allocated on ``device``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.arange(5)
    dlarray.asarray([0, 1, 2, 3, 4], dtype=dlarray.int64)
    >>> xp.arange(1.0, 2.0, 0.25)
    dlarray.asarray([1.0, 1.25, 1.5, 1.75], dtype=dlarray.float64)
    >>> xp.arange(3, dtype=xp.complex64)
    dlarray.asarray([0j, (1+0j), (2+0j)], dtype=dlarray.complex64)
    """
    if stop is None:
        start, stop = 0, start
    start, stop, step = (scalar_or_itself(v) for v in (start, stop, step))
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if type(v) not in (int, float):
            raise TypeError(f"arange: {name} must be an int or a float, got {v!r}")
        if not math.isfinite(v):
            raise ValueError(
                f"arange: {name} is {v!r}; start, stop and step must be finite numbers"
            )
    if step == 0:
        raise ValueError("arange: step must not be 0")
    ints = all(type(v) is int for v in (start, stop, step))
    d = _standard_dtype(dtype, "arange") or (_INT if ints else _FLOAT)
    # The standard asks real start, stop and step, and leaves dtype free: a
    # complex dtype holds the same values, as in NumPy and array-api-strict.
    check_dtype_argument(d, "numeric", "arange")
    length = _arange_length(start, stop, step, ints)
    if length == 1:
        step = 0 if ints else 0.0  # one value: a step past the end is never taken
    out = empty((length,), dtype=d, device=device)
    if length:
        # start + i*step, computed by the engine on the array's device in
        # exact integers (int64) or float64, then cast.
        a = _fill_view(out)
        xp = namespace_of(a)
        if ints:
            values = xp.arange(length, dtype=xp.int64, device=a.device) * step + start
        else:
            values = start + xp.arange(length, dtype=xp.float64, device=a.device) * step
        write(a, Ellipsis, xp.astype(values, a.dtype, copy=False))
    return out


def _arange_length(start: float, stop: float, step: float, ints: bool) -> int:
    """``ceil((stop - start) / step)``, at least 0; for ints exactly, and
    refused when a value or the step leaves int64, where the engine computes."""
    if not ints:
        quotient = (stop - start) / step
        if not math.isfinite(quotient):  # finite arguments, overflowing quotient
            raise ValueError(
                f"arange({start}, {stop}, {step}): (stop - start) / step is {quotient}, "
                f"no array length; use a larger step"
            )
        return max(0, math.ceil(quotient))
    length = max(0, int(-((start - stop) // step)))  # exact for ints: no rounding
    last = start + (length - 1) * step
    used = (start, last, step) if length > 1 else (start,)  # one value takes no step
    if length and not all(_INT64_MIN <= v <= _INT64_MAX for v in used):
        raise OverflowError(
            f"arange({start}, {stop}, {step}): the values or the step leave int64's range "
            f"[{_INT64_MIN}, {_INT64_MAX}], in which dlarray computes integer ranges; "
            f"pass floats for a float64 range"
        )
    return length


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: Any = None,
    device: Any = None,
) -> ArrayBase:
    """A 2-d array with ones on the ``k``-th diagonal and zeros elsewhere.

    Raises
    ------
    TypeError
        If ``n_rows``, ``n_cols`` or ``k`` is not an int, ``dtype`` is not a
        dlarray dtype or its name, or ``device`` is not a device.
    ValueError
        If ``n_rows`` or ``n_cols`` is negative, or ``device`` names an unknown kind.
    BufferError
        If memory cannot be allocated on ``device``:
        :class:`dlarray.CUDAUnavailableError` or
        :class:`dlarray.SYCLUnavailableError` (also ``ValueError``) for memory
        this process cannot reach.
    MemoryError
        If the host has not the bytes to give.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.eye(2, 3, k=1, dtype=xp.int32)
    dlarray.asarray([[0, 1, 0], [0, 0, 1]], dtype=dlarray.int32)
    """
    cols = n_rows if n_cols is None else n_cols
    k = _int_argument(k, "k", "eye", "the diagonal's offset")
    n_rows = _int_argument(n_rows, "n_rows", "eye")
    cols = _int_argument(cols, "n_cols", "eye")
    d = _standard_dtype(dtype, "eye") or _FLOAT
    out = zeros((n_rows, cols), dtype=d, device=device)
    # Python ints: k may be far outside the matrix (then the diagonal is empty).
    first, stop = max(0, -k), min(n_rows, cols - k)
    if stop > first:
        # The diagonal is a strided view of the new (C-contiguous) array:
        # one step down and one right is cols + 1 elements.
        start = first * cols + first + k
        diagonal = out._view((stop - first,), (cols + 1,), out._byte_offset + start * d.itemsize)
        write(_fill_view(diagonal), Ellipsis, _fill_value(1, d, "eye"))
    return out


def linspace(
    start: int | float | complex,
    stop: int | float | complex,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Any = None,
    endpoint: bool = True,
) -> ArrayBase:
    """``num`` evenly spaced values from ``start`` to ``stop``.

    Raises
    ------
    TypeError
        If ``start`` or ``stop`` is not an int, a float or a complex, ``num``
        is not an int, ``start``/``stop`` are complex and ``dtype`` is not,
        or ``dtype`` is not a floating-point dtype.
    ValueError
        If ``num`` is negative, or ``device`` names an unknown kind.
    OverflowError
        If ``start`` or ``stop`` is an int too large for a float.
    BufferError
        If memory cannot be allocated on ``device``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linspace(0, 1, 5)
    dlarray.asarray([0.0, 0.25, 0.5, 0.75, 1.0], dtype=dlarray.float64)
    """
    start, stop = scalar_or_itself(start), scalar_or_itself(stop)
    for name, v in (("start", start), ("stop", stop)):
        if type(v) not in (int, float, complex):
            raise TypeError(
                f"linspace: {name} must be an int, a float or a complex, got "
                f"{type(v).__name__} {v!r}"
            )
    num = _int_argument(num, "num", "linspace", "the number of values")
    complex_args = type(start) is complex or type(stop) is complex
    d = _standard_dtype(dtype, "linspace") or (_COMPLEX if complex_args else _FLOAT)
    check_dtype_argument(d, "floating-point", "linspace")
    if complex_args and d not in CATEGORIES["complex floating"]:
        raise TypeError(f"linspace: complex start/stop need a complex dtype, got {d.name}")
    if num < 0:
        raise ValueError(f"linspace: num must be >= 0, got {num}")
    # Python ints beyond int64 are only numbers here: the values are
    # floating-point anyway (NumPy would read them as objects).
    if type(start) is int:
        start = _as_float(start, "start")
    if type(stop) is int:
        stop = _as_float(stop, "stop")
    out = empty((num,), dtype=d, device=device)
    if num:
        a = _fill_view(out)
        xp = namespace_of(a)
        values = _linspace_quietly(
            xp, start, stop, num, dtype=a.dtype, device=a.device, endpoint=endpoint
        )
        write(a, Ellipsis, values)
        if endpoint and num > 1:
            write(a, -1, stop)  # exactly stop, as the standard requires
    return out


def _as_float(value: int, name: str) -> float:
    try:
        return float(value)
    except OverflowError:
        raise OverflowError(
            f"linspace: {name}={value} is too large for a float (at most about 1.8e308)"
        ) from None


@quiet
def _linspace_quietly(xp: Any, *args: Any, **kwargs: Any) -> Any:
    # NumPy's linspace warns where the standard gives values (num=1, inf).
    return xp.linspace(*args, **kwargs)


def meshgrid(*arrays: ArrayBase, indexing: str = "xy") -> tuple[ArrayBase, ...]:
    """Coordinate matrices from 1-d coordinate vectors (a tuple, as of 2025.12).

    Raises
    ------
    TypeError
        If an argument is not a DLArray, or the arrays' dtypes differ.
    ValueError
        If an array is not 1-d, the arrays are on different devices, or
        ``indexing`` is neither ``'xy'`` nor ``'ij'``.

    Examples
    --------
    >>> import dlarray as xp
    >>> X, Y = xp.meshgrid(xp.asarray([1, 2, 3]), xp.asarray([4, 5]))
    >>> X.shape
    (2, 3)
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    for x in arrays:
        if not isinstance(x, ArrayBase):
            raise TypeError(f"meshgrid: expected dlarray arrays, got {type(x).__name__}")
        if x.ndim != 1:
            raise ValueError(f"meshgrid: every array must be 1-d, got shape {x.shape}")
    if len({x.dtype for x in arrays}) > 1:
        raise TypeError("meshgrid: all arrays must have the same dtype")
    common_device(arrays, "meshgrid")
    if not arrays:
        return ()
    # Each grid is a new array that the engine fills by broadcasting its
    # vector along its own axis (the standard's __setitem__ broadcasts).
    # "xy" swaps the first two axes: x varies along columns.
    axes = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) > 1:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(arrays)
    for x, axis in zip(arrays, axes, strict=True):
        shape[axis] = x.shape[0]
    grids = []
    for x, axis in zip(arrays, axes, strict=True):
        grid = empty(tuple(shape), dtype=x.dtype, device=x.device)
        if grid.size:
            a = engine_view(x)
            along = [1] * len(shape)
            along[axis] = x.shape[0]
            write(engine_view(grid), Ellipsis, namespace_of(a).reshape(a, tuple(along)))
        grids.append(grid)
    return tuple(grids)


def _triangle(x: ArrayBase, k: int, func: str) -> ArrayBase:
    if not isinstance(x, ArrayBase):
        raise TypeError(f"{func}: expected a dlarray array, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"{func}: x must have at least 2 axes, got shape {x.shape}")
    k = _int_argument(k, "k", func, "the diagonal's offset")
    # A diagonal outside the matrix selects all or nothing, as one just
    # outside does: clamped, k fits the engine's C integers.
    rows, cols = x.shape[-2:]
    k = max(-rows, min(k, cols))
    a = engine_view(x)
    return wrap(getattr(namespace_of(a), func)(a, k=k))


def tril(x: ArrayBase, /, *, k: int = 0) -> ArrayBase:
    """The lower triangle of (each matrix in) ``x``; elements above the
    ``k``-th diagonal are zero.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``k`` is not an int.
    ValueError
        If ``x`` has fewer than 2 axes.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.tril(xp.ones((2, 2), dtype=xp.int8))
    dlarray.asarray([[1, 0], [1, 1]], dtype=dlarray.int8)
    """
    return _triangle(x, k, "tril")


def triu(x: ArrayBase, /, *, k: int = 0) -> ArrayBase:
    """The upper triangle of (each matrix in) ``x``.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``k`` is not an int.
    ValueError
        If ``x`` has fewer than 2 axes.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.triu(xp.ones((2, 2), dtype=xp.int8))
    dlarray.asarray([[1, 1], [0, 1]], dtype=dlarray.int8)
    """
    return _triangle(x, k, "triu")


def to_device(x: ArrayBase, device: Any, /, *, stream: Any = None) -> ArrayBase:
    """``x`` on ``device``: ``x`` itself when already there, else a copy.

    ``stream`` is where the result will be used, and the copy is ordered
    before it: for CUDA targets, DLPack's encoding (1 legacy default, 2
    per-thread default, a ``cudaStream_t``, or -1); for SYCL targets, a
    ``dpctl.SyclQueue``.
    """
    target = as_device(device)
    family = family_of(target)
    if stream is not None:
        family.check_stream(stream, target, "to_device")
    if target == x.device:
        return x
    family.check_allocatable(target)
    out = copy_to_device(x, target)
    if stream is not None:
        family.order_for_consumer(stream, target, "to_device")
    return out
