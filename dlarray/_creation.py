"""Creating arrays: empty, zeros, asarray, and host copies.

This is the small creation surface the core needs; the full Array API
creation chapter builds on it.
"""

from __future__ import annotations

import operator
from typing import Any

from dlarray._array import DLArray
from dlarray._device import CPU, as_device
from dlarray._dtypes import DTYPES_BY_NAME, as_dtype
from dlarray._transfer import check_allocatable, copy_array, copy_to_device, new_array

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


def asarray(
    obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None
) -> DLArray:
    """Make a DLArray from a DLArray, a DLPack producer, a buffer, or Python data.

    Parameters
    ----------
    obj
        A DLArray; any object with ``__dlpack__`` (imported zero-copy); a
        ``dpctl.memory`` USM allocation (shared zero-copy, as ``uint8``); an
        object with the buffer protocol (``bytes``, ``array.array``,
        ``memoryview``; shared zero-copy); or a Python scalar or nested
        sequence (always copied).
    dtype : DType, optional
        Convert to this dtype (a copy when it differs).  Python data defaults
        to ``bool``, ``int64``, ``float64`` or ``complex128``.
    device : Device or str, optional
    copy : bool or None
        ``True`` always copies; ``False`` never does and raises ``ValueError``
        when a copy would be needed; ``None`` copies only when needed.

    Examples
    --------
    >>> import dlarray
    >>> dlarray.asarray([1.5, 2]).dtype
    dlarray.float64
    >>> x = dlarray.asarray(b"abc")
    >>> x.dtype, x.readonly
    (dlarray.uint8, True)
    """
    from dlarray._consumer import from_dlpack
    from dlarray._engine import numpy_engine

    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"asarray(copy={copy!r}): copy must be None, True or False")
    want_dtype = None if dtype is None else as_dtype(dtype)
    target = None if device is None else as_device(device)
    if target is not None:
        check_allocatable(target)

    copied = False
    if isinstance(obj, DLArray):
        x = obj
    elif hasattr(type(obj), "__dlpack__"):
        # Under copy=False a move is refused below, with the standard's
        # ValueError, rather than by the producer (a BufferError).
        x = from_dlpack(obj, device=None if copy is False else target, copy=copy)
        copied = copy is True
    elif type(obj).__module__.startswith("dpctl.memory"):
        x = _from_usm_memory(obj)
    else:
        try:
            view = memoryview(obj)
        except TypeError:
            if copy is False:
                raise ValueError(
                    f"asarray(copy=False): a {type(obj).__name__} is Python data, and "
                    f"making an array of it always copies; pass copy=None"
                ) from None
            x, copied = numpy_engine.from_python(obj, want_dtype), True
        else:
            import numpy as np

            x = numpy_engine.from_numpy(np.asarray(view))

    if want_dtype is not None and want_dtype is not x.dtype:
        if copy is False:
            raise ValueError(
                f"asarray(dtype={want_dtype!r}, copy=False): the data is {x.dtype!r} and "
                f"converting it needs a copy; pass copy=None"
            )
        x, copied = numpy_engine.cast(x, want_dtype), True
    if target is not None and target != x.device:
        if copy is False:
            raise ValueError(
                f"asarray(device={target!r}, copy=False): the data is on {x.device} and "
                f"moving it needs a copy; pass copy=None"
            )
        return copy_to_device(x, target)
    if copy is True and not copied:
        return copy_array(x)
    return x


def _from_usm_memory(memory: Any) -> DLArray:
    """A ``uint8`` array over a ``dpctl.memory`` allocation, zero-copy.
    (Such memory may sit outside the default context; then dlarray copies
    it but refuses to export it: see dlarray._sycl.exchange.)"""
    from dlarray import _core
    from dlarray._storage.sycl import wrap

    storage = wrap(memory)
    dtype = as_dtype("uint8").dlpack
    return _core.new_array(
        storage, storage.pointer, 0, (storage.nbytes,), None, dtype, storage.device.dlpack, 0
    )
