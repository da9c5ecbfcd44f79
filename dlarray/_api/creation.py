"""Creation functions of the standard, and moving arrays between devices.

``empty`` and ``zeros`` are the core's (:mod:`dlarray._creation`), ``asarray``
is :mod:`dlarray._asarray`'s;
this chapter adds the rest.  New arrays are allocated by dlarray's own
storage and filled by the engine through a zero-copy view, so every array a
creation function returns owns dlarray memory.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dlarray._array import DLArray
from dlarray._asarray import asarray
from dlarray._consumer import from_dlpack
from dlarray._creation import empty, zeros
from dlarray._device import Device, as_device
from dlarray._dtypes import DType, as_dtype, scalar_or_itself
from dlarray._engine.numpy_engine import numpy_dtype
from dlarray._engine.routing import engine_view, wrap
from dlarray._rules import CATEGORIES, DEFAULT_DTYPES, check_dtype, common_device
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


def _fill_view(out: DLArray) -> Any:
    """A writable engine view for filling a new array in place.  Managed and
    pinned memory are host memory that the engines do not compute on (see
    docs/cuda.md), but filling writes no new array, so NumPy may view them."""
    memory = out.device.memory
    if memory.engine is None and memory.host_readable:
        return np.from_dlpack(out)
    return engine_view(out)


def _filled(shape: Any, value: Any, dtype: DType, device: Any) -> DLArray:
    out = empty(shape, dtype=dtype, device=device)
    if out.size:
        with np.errstate(all="ignore"):  # a float fill into float32 may overflow to inf
            _fill_view(out)[...] = value
    return out


def full(
    shape: Any, fill_value: bool | int | float | complex, *, dtype: Any = None, device: Any = None
) -> DLArray:
    """A new array of ``shape`` with every element ``fill_value``.

    Without ``dtype`` the dtype follows ``fill_value``'s Python type: bool,
    the default integer (int64), real floating (float64) or complex
    (complex128) dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.full((2,), 7)
    dlarray.asarray([7, 7], dtype=dlarray.int64)
    """
    fill_value = scalar_or_itself(fill_value)
    d = _standard_dtype(dtype, "full") or _default_for(fill_value, "full")
    if isinstance(fill_value, DLArray):
        raise TypeError("full: fill_value must be a Python scalar; for an array use broadcast_to")
    if d in CATEGORIES["integer"] and isinstance(fill_value, int):
        info = np.iinfo(numpy_dtype(d))
        if not info.min <= fill_value <= info.max:
            raise OverflowError(f"full: fill_value {fill_value} does not fit in {d.name}")
    return _filled(shape, fill_value, d, device)


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> DLArray:
    """A new array of ``shape`` filled with ones (default dtype float64).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.ones(3, dtype=xp.int8)
    dlarray.asarray([1, 1, 1], dtype=dlarray.int8)
    """
    return _filled(shape, 1, _standard_dtype(dtype, "ones") or _FLOAT, device)


def _like(x: DLArray, dtype: Any, device: Any, func: str) -> tuple[DType, Device]:
    if not isinstance(x, DLArray):
        raise TypeError(f"{func}: expected a dlarray array, got {type(x).__name__}")
    d = x.dtype if dtype is None else as_dtype(dtype)
    return d, x.device if device is None else as_device(device)


def empty_like(x: DLArray, /, *, dtype: Any = None, device: Any = None) -> DLArray:
    """A new uninitialised array with the shape (and by default dtype and
    device) of ``x``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.empty_like(xp.zeros((2, 3))).shape
    (2, 3)
    """
    d, dev = _like(x, dtype, device, "empty_like")
    return empty(x.shape, dtype=d, device=dev)


def zeros_like(x: DLArray, /, *, dtype: Any = None, device: Any = None) -> DLArray:
    """A new array of zeros shaped like ``x``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.zeros_like(xp.asarray([1, 2]))
    dlarray.asarray([0, 0], dtype=dlarray.int64)
    """
    d, dev = _like(x, dtype, device, "zeros_like")
    return zeros(x.shape, dtype=d, device=dev)


def ones_like(x: DLArray, /, *, dtype: Any = None, device: Any = None) -> DLArray:
    """A new array of ones shaped like ``x``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.ones_like(xp.asarray([True, False]))
    dlarray.asarray([True, True], dtype=dlarray.bool)
    """
    d, dev = _like(x, dtype, device, "ones_like")
    return _filled(x.shape, 1, d, dev)


def full_like(
    x: DLArray,
    /,
    fill_value: bool | int | float | complex,
    *,
    dtype: Any = None,
    device: Any = None,
) -> DLArray:
    """A new array shaped like ``x`` filled with ``fill_value``.

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
    return _filled(x.shape, fill_value, d, dev)


def arange(
    start: int | float,
    /,
    stop: int | float | None = None,
    step: int | float = 1,
    *,
    dtype: Any = None,
    device: Any = None,
) -> DLArray:
    """Evenly spaced values in ``[start, stop)`` with spacing ``step``.

    The length is ``ceil((stop - start) / step)`` (0 when negative).  Without
    ``dtype``: int64 when all arguments are ints, else float64.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.arange(5)
    dlarray.asarray([0, 1, 2, 3, 4], dtype=dlarray.int64)
    >>> xp.arange(1.0, 2.0, 0.25)
    dlarray.asarray([1.0, 1.25, 1.5, 1.75], dtype=dlarray.float64)
    """
    if stop is None:
        start, stop = 0, start
    start, stop, step = (scalar_or_itself(v) for v in (start, stop, step))
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if type(v) not in (int, float):
            raise TypeError(f"arange: {name} must be an int or a float, got {v!r}")
    if step == 0:
        raise ValueError("arange: step must not be 0")
    ints = all(type(v) is int for v in (start, stop, step))
    d = _standard_dtype(dtype, "arange") or (_INT if ints else _FLOAT)
    if d not in CATEGORIES["real-valued"]:
        raise TypeError(f"arange: dtype must be a real-valued dtype, got {d.name}")
    length = max(0, math.ceil((stop - start) / step))
    out = empty((length,), dtype=d, device=device)
    if length:
        # start + i*step, computed in float64 or exact integers, then cast.
        values = (
            np.arange(length, dtype=np.int64) * step + start
            if ints
            else start + np.arange(length, dtype=np.float64) * step
        )
        _fill_view(out)[...] = values
    return out


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: Any = None,
    device: Any = None,
) -> DLArray:
    """A 2-d array with ones on the ``k``-th diagonal and zeros elsewhere.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.eye(2, 3, k=1, dtype=xp.int32)
    dlarray.asarray([[0, 1, 0], [0, 0, 1]], dtype=dlarray.int32)
    """
    cols = n_rows if n_cols is None else n_cols
    out = zeros((n_rows, cols), dtype=_standard_dtype(dtype, "eye") or _FLOAT, device=device)
    # Python ints: k may be far outside the matrix (then the diagonal is empty).
    first, stop = max(0, -k), min(n_rows, cols - k)
    if stop > first:
        rows = np.arange(first, stop)
        _fill_view(out)[rows, rows + k] = 1
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
) -> DLArray:
    """``num`` evenly spaced values from ``start`` to ``stop``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.linspace(0, 1, 5)
    dlarray.asarray([0.0, 0.25, 0.5, 0.75, 1.0], dtype=dlarray.float64)
    """
    start, stop = scalar_or_itself(start), scalar_or_itself(stop)
    complex_args = type(start) is complex or type(stop) is complex
    d = _standard_dtype(dtype, "linspace") or (_COMPLEX if complex_args else _FLOAT)
    check_dtype(d, "floating-point", "linspace")
    if complex_args and d not in CATEGORIES["complex floating"]:
        raise TypeError(f"linspace: complex start/stop need a complex dtype, got {d.name}")
    if num < 0:
        raise ValueError(f"linspace: num must be >= 0, got {num}")
    out = empty((num,), dtype=d, device=device)
    if num:
        with np.errstate(all="ignore"):
            _fill_view(out)[...] = np.linspace(start, stop, num, endpoint=endpoint)
        if endpoint and num > 1:
            _fill_view(out)[-1] = stop  # exactly stop, as the standard requires
    return out


def meshgrid(*arrays: DLArray, indexing: str = "xy") -> tuple[DLArray, ...]:
    """Coordinate matrices from 1-d coordinate vectors (a tuple, as of 2025.12).

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
        if not isinstance(x, DLArray):
            raise TypeError(f"meshgrid: expected dlarray arrays, got {type(x).__name__}")
        if x.ndim != 1:
            raise ValueError(f"meshgrid: every array must be 1-d, got shape {x.shape}")
    if len({x.dtype for x in arrays}) > 1:
        raise TypeError("meshgrid: all arrays must have the same dtype")
    common_device(arrays, "meshgrid")
    views: list[Any] = [engine_view(x) for x in arrays]
    grids = np.meshgrid(*views, indexing=indexing)  # type: ignore[call-overload]
    return tuple(wrap(np.ascontiguousarray(g)) for g in grids)


def _triangle(x: DLArray, k: int, func: str, kernel: Any) -> DLArray:
    if not isinstance(x, DLArray):
        raise TypeError(f"{func}: expected a dlarray array, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"{func}: x must have at least 2 axes, got shape {x.shape}")
    return wrap(kernel(engine_view(x), k=k))


def tril(x: DLArray, /, *, k: int = 0) -> DLArray:
    """The lower triangle of (each matrix in) ``x``; elements above the
    ``k``-th diagonal are zero.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.tril(xp.ones((2, 2), dtype=xp.int8))
    dlarray.asarray([[1, 0], [1, 1]], dtype=dlarray.int8)
    """
    return _triangle(x, k, "tril", np.tril)


def triu(x: DLArray, /, *, k: int = 0) -> DLArray:
    """The upper triangle of (each matrix in) ``x``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.triu(xp.ones((2, 2), dtype=xp.int8))
    dlarray.asarray([[1, 1], [0, 1]], dtype=dlarray.int8)
    """
    return _triangle(x, k, "triu", np.triu)


def to_device(x: DLArray, device: Any, /, *, stream: Any = None) -> DLArray:
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
