"""Creating arrays: empty, zeros, arrays of Python data, and dtype casts.

The primitives that ``asarray`` (:mod:`dlarray._asarray`) and the Array API's
creation chapter (:mod:`dlarray._api.creation`) build on.  Python data is
parsed on the host, by NumPy, into a new host array; casts are the engine's,
on the array's own device.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from dlarray._array import DLArray
from dlarray._device import CPU, as_device
from dlarray._dtypes import DTYPES_BY_NAME, DType, as_dtype
from dlarray._engine.numpy_engine import numpy_dtype, quiet, to_numpy
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of
from dlarray._storage.allocation import new_array

DEFAULT_FLOAT = DTYPES_BY_NAME["float64"]


def _as_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, tuple | list):
        dims = shape
    else:
        dims = (shape,)
    try:
        result = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(d < 0 for d in result):
        raise ValueError(f"shape {result} has a negative extent")
    return result


def empty(shape: Any, *, dtype: Any = None, device: Any = None, padded: bool = False) -> DLArray:
    """A new array with uninitialised contents.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : DType, optional
        Default ``float64``.
    device : Device or str, optional
        ``"cpu"`` (default), ``"cuda"`` / ``Device("cuda", i)``,
        ``"cuda_managed"`` or ``"cuda_host"`` (see docs/cuda.md).
    padded : bool, optional
        For sub-byte dtypes, store one element per byte instead of packing.

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple of ints, ``dtype`` is not a
        dlarray dtype or its name, or ``device`` is not a device.
    ValueError
        If ``shape`` has a negative extent or is too big to address, or
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
    >>> import dlarray
    >>> dlarray.empty((2, 3), dtype=dlarray.int8).shape
    (2, 3)
    """
    return new_array(
        _as_shape(shape),
        DEFAULT_FLOAT if dtype is None else as_dtype(dtype),
        CPU if device is None else as_device(device),
        zero=False,
        padded=padded,
    )


def zeros(shape: Any, *, dtype: Any = None, device: Any = None, padded: bool = False) -> DLArray:
    """A new array filled with zero bytes (the value 0 for every standard dtype).

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple of ints, ``dtype`` is not a
        dlarray dtype or its name, or ``device`` is not a device.
    ValueError
        If ``shape`` has a negative extent or is too big to address, or
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
    >>> import dlarray, numpy as np
    >>> np.from_dlpack(dlarray.zeros(3)).tolist()
    [0.0, 0.0, 0.0]
    """
    return new_array(
        _as_shape(shape),
        DEFAULT_FLOAT if dtype is None else as_dtype(dtype),
        CPU if device is None else as_device(device),
        zero=True,
        padded=padded,
    )


# The Array API's default dtype per Python kind, for asarray of Python data.
_DEFAULTS = {"b": "bool", "i": "int64", "u": "int64", "f": "float64", "c": "complex128"}


def from_python(obj: Any, dtype: DType | None) -> DLArray:
    """A new host array holding a Python scalar or nested sequence."""
    if dtype is None:
        parsed = np.asarray(obj)
        if parsed.dtype.kind == "O" and all(type(v) is int for v in parsed.flat):
            # NumPy keeps Python ints beyond 64 bits as objects.
            raise OverflowError(
                f"asarray: a Python int in the data does not fit in 64 bits (the largest "
                f"is {max(parsed.flat, key=abs)}); dlarray's integer dtypes hold at most "
                f"int64 or uint64 values"
            )
        if parsed.dtype.kind not in _DEFAULTS:
            raise TypeError(
                f"asarray: cannot make an array from {type(obj).__name__} data "
                f"(NumPy read it as {parsed.dtype}); pass numbers, bools or nested "
                f"sequences of them"
            )
        dtype = DTYPES_BY_NAME[_DEFAULTS[parsed.dtype.kind]]
    try:
        parsed = np.asarray(obj, dtype=numpy_dtype(dtype))
    except OverflowError:
        raise OverflowError(
            f"asarray: a Python int in the data does not fit in {dtype.name}; pass a "
            f"dtype that holds it (dtype=dlarray.uint64 for values up to 2**64 - 1)"
        ) from None
    out = empty(parsed.shape, dtype=dtype, padded=dtype.is_subbyte)
    if out.size:
        to_numpy(out)[...] = parsed
    return out


def cast(x: DLArray, dtype: DType) -> DLArray:
    """A new array with ``x``'s values converted to ``dtype``, on ``x``'s
    device: the standard's ``astype`` of ``x``'s engine, with NumPy's
    floating-point warnings off (NaN to an integer is unspecified, not an
    error)."""
    a = engine_view(x)
    xp = namespace_of(a)
    if dtype.kind != "extended floating":
        return call(xp.astype, a, engine_dtype(xp, dtype))
    # bfloat16 and the fp8/fp6/fp4 formats are written into new dlarray
    # memory rather than adopted from the engine: ml_dtypes gives some of
    # them the type characters of NumPy's own integers ("L" for
    # float8_e4m3b11fnuz), which adoption would take for a native dtype.
    out = empty(x.shape, dtype=dtype, device=x.device, padded=dtype.is_subbyte)
    if out.size:
        _convert_into(engine_view(out), xp, a)
    return out


@quiet
def _convert_into(out: Any, xp: Any, a: Any) -> None:
    out[...] = xp.astype(a, out.dtype)
