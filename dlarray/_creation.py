"""Creating arrays: empty, zeros, arrays of Python data, dtype casts, and
``asarray``, which makes an array from anything that holds data.

The creation layer, which the Array API's creation chapter
(:mod:`dlarray._api.creation`) and the namespace build on.  Python data is
parsed on the host, by NumPy, into a new host array; casts are the engine's,
on the array's own device.  ``asarray`` passes a DLArray through, imports a
DLPack producer (:mod:`dlarray._consumer`), shares a ``dpctl.memory``
allocation or a buffer, and copies Python data; then it honours dtype,
device and copy, in that order.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import dlarray._core as _core
from dlarray._consumer import from_dlpack
from dlarray._core import ArrayBase
from dlarray._device import CPU, as_device
from dlarray._dtypes import DTYPES_BY_NAME, DType, as_dtype, dtype_argument
from dlarray._engine.numpy_engine import from_numpy, numpy_dtype, quiet, to_numpy
from dlarray._engine.routing import call, engine_dtype, engine_view, namespace_of
from dlarray._storage import sycl as sycl_storage
from dlarray._storage.allocation import check_allocatable, new_array
from dlarray._transfer import copy_array, copy_to_device

DEFAULT_FLOAT = DTYPES_BY_NAME["float64"]
_INT64_MIN, _UINT64_MAX = -(2**63), 2**64 - 1


def _as_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, tuple | list):
        dims = shape
    else:
        dims = (shape,)
    try:
        # A bool is no length, although Python makes it an int.
        if any(isinstance(d, bool) for d in dims):
            raise TypeError
        result = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(d < 0 for d in result):
        raise ValueError(
            f"shape {result} has a negative extent; the length of each axis is 0 or more"
        )
    return result


def as_padded(padded: Any, func: str) -> bool:
    """``padded``, checked to be a bool (``TypeError`` naming ``func``)."""
    if not isinstance(padded, bool):
        raise TypeError(f"{func}(padded={padded!r}): padded must be True or False")
    return padded


def empty(shape: Any, *, dtype: Any = None, device: Any = None, padded: bool = False) -> ArrayBase:
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
        If ``shape`` is not an int or a tuple of ints (a bool is neither),
        ``dtype`` is not a dlarray dtype or its name, ``device`` is not a
        device, or ``padded`` is not a bool.
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
    >>> import dlarray
    >>> dlarray.empty((2, 3), dtype=dlarray.int8).shape
    (2, 3)
    """
    return new_array(
        _as_shape(shape),
        DEFAULT_FLOAT if dtype is None else as_dtype(dtype),
        CPU if device is None else as_device(device),
        zero=False,
        padded=as_padded(padded, "empty"),
    )


def zeros(shape: Any, *, dtype: Any = None, device: Any = None, padded: bool = False) -> ArrayBase:
    """A new array filled with zero bytes (the value 0 for every standard dtype).

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple of ints (a bool is neither),
        ``dtype`` is not a dlarray dtype or its name, ``device`` is not a
        device, or ``padded`` is not a bool.
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
    >>> import dlarray, numpy as np
    >>> np.from_dlpack(dlarray.zeros(3)).tolist()
    [0.0, 0.0, 0.0]
    """
    return new_array(
        _as_shape(shape),
        DEFAULT_FLOAT if dtype is None else as_dtype(dtype),
        CPU if device is None else as_device(device),
        zero=True,
        padded=as_padded(padded, "zeros"),
    )


# The Array API's default dtype per Python kind, for asarray of Python data.
_DEFAULTS = {"b": "bool", "i": "int64", "u": "int64", "f": "float64", "c": "complex128"}


def from_python(obj: Any, dtype: DType | None) -> ArrayBase:
    """A new host array holding a Python scalar or nested sequence."""
    if dtype is None:
        parsed = _parse(obj)
        if parsed.dtype.kind == "O" and all(type(v) is int for v in parsed.flat):
            # NumPy keeps Python ints beyond 64 bits as objects.
            outside = [v for v in parsed.flat if not _INT64_MIN <= v <= _UINT64_MAX]
            raise OverflowError(
                f"asarray: the Python int {outside[0]} in the data does not fit in 64 "
                f"bits: dlarray's integer dtypes hold values in [{_INT64_MIN}, "
                f"{_UINT64_MAX}] (int64 below 0, uint64 above 2**63 - 1)"
            )
        if parsed.dtype.kind not in _DEFAULTS:
            raise TypeError(
                f"asarray: the data holds {_first_non_number(obj)}, and dlarray arrays "
                f"hold numbers; pass numbers, bools or nested sequences of them"
            )
        dtype = DTYPES_BY_NAME[_DEFAULTS[parsed.dtype.kind]]
    try:
        parsed = _parse(obj, numpy_dtype(dtype))
    except OverflowError:
        raise OverflowError(
            f"asarray: a Python int in the data does not fit in {dtype.name}; pass a "
            f"dtype that holds it (dtype=dlarray.uint64 for values up to 2**64 - 1)"
        ) from None
    out = empty(parsed.shape, dtype=dtype, padded=dtype.is_subbyte)
    if out.size:
        to_numpy(out)[...] = parsed
    return out


def _first_non_number(obj: Any) -> str:
    """The first value of Python data that is not a number or bool, described
    for a message ("a str ('x')"), or what the data is when none is found."""
    pending = [obj]
    while pending:
        value = pending.pop(0)
        if isinstance(value, (bool, int, float, complex)):
            continue
        if isinstance(value, (list, tuple)):
            pending[:0] = value
            continue
        return f"a {type(value).__name__} ({value!r:.40})"
    return f"{type(obj).__name__} data NumPy cannot read as numbers"


def _parse(obj: Any, dtype: Any = None) -> np.ndarray:
    """NumPy's reading of Python data, its ragged and too-deep nestings
    refused in dlarray's words (NumPy's ValueError names neither)."""
    try:
        return np.asarray(obj, dtype=dtype)
    except ValueError as exc:
        if "maximum number of dimension" in str(exc):
            raise ValueError(
                f"asarray: the data nests sequences more than {_core.MAX_NDIM} deep; "
                f"dlarray arrays have at most {_core.MAX_NDIM} dimensions (NumPy's limit)"
            ) from None
        if "inhomogeneous" in str(exc):
            raise ValueError(
                "asarray: the nested sequences are ragged (sequences at one depth differ "
                "in length); make every sequence at each depth the same length"
            ) from None
        raise


def cast(x: ArrayBase, dtype: DType) -> ArrayBase:
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


# ---- asarray ----

#: The dtypes NumPy holds only through ml_dtypes (bfloat16, fp8, fp6, fp4):
#: dlarray's own, by name, that NumPy's DLPack export refuses.
_VIEWED_BY_BITS = frozenset(n for n, d in DTYPES_BY_NAME.items() if d.kind == "extended floating")


def asarray(
    obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None
) -> ArrayBase:
    """Make a DLArray from a DLArray, a DLPack producer, a buffer, or Python data.

    Parameters
    ----------
    obj
        A DLArray; any object with ``__dlpack__`` (imported zero-copy); a
        NumPy scalar (copied into a new array of its dtype); a
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

    Raises
    ------
    TypeError
        If ``obj`` cannot be an array (an object, strings), ``dtype`` is not a
        dlarray dtype or its name, ``device`` is not a device, or ``copy`` is
        not None or a bool.
    ValueError
        If ``copy=False`` and a copy is needed (Python data, a NumPy scalar, a
        different ``dtype`` or ``device``), as the Array API specifies; if
        nested sequences are ragged or nest more than 64 deep (an array has at
        most 64 dimensions); if ``device`` names an unknown kind.
    OverflowError
        If a Python int in the data does not fit in 64 bits
        (``[-2**63, 2**64 - 1]``), or in ``dtype``.
    BufferError
        If a DLPack producer refuses the export (its own error, passed on), or
        its tensor cannot be imported (see :func:`dlarray.from_dlpack`).
        :class:`dlarray.CUDAUnavailableError` and
        :class:`dlarray.SYCLUnavailableError` (also ``ValueError``) when
        ``device`` names memory this process cannot reach.

    Examples
    --------
    >>> import dlarray
    >>> dlarray.asarray([1.5, 2]).dtype
    dlarray.float64
    >>> x = dlarray.asarray(b"abc")
    >>> x.dtype, x.readonly
    (dlarray.uint8, True)
    """
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"asarray(copy={copy!r}): copy must be None, True or False")
    want_dtype = None if dtype is None else as_dtype(dtype)
    target = None if device is None else as_device(device)
    if target is not None:
        check_allocatable(target)

    copied = False
    if isinstance(obj, ArrayBase):
        x = obj
    elif isinstance(obj, np.generic):
        # A NumPy scalar is a value, like a Python scalar: the array is a new,
        # writable one of the scalar's dtype (its __dlpack__ export is
        # read-only memory inside the immutable scalar).
        if copy is False:
            raise ValueError(
                f"asarray(copy=False): a NumPy scalar ({type(obj).__name__}) is a value, and "
                f"making an array of it always copies; pass copy=None"
            )
        x, copied = from_numpy(_numpy_data(np.array(obj), None)[0]), True
    elif isinstance(obj, np.ndarray) and obj.dtype.name in _VIEWED_BY_BITS:
        # NumPy cannot export ml_dtypes' dtypes through DLPack: view the
        # bits instead (zero-copy, as its exports are).
        x = from_numpy(obj)
    elif isinstance(obj, np.ndarray) and dtype_argument(obj.dtype) is None:
        a, copied = _numpy_data(obj, copy)
        x = from_numpy(a)
    elif hasattr(type(obj), "__dlpack__"):
        # Under copy=False a move is refused below, with the standard's
        # ValueError, rather than by the producer (a BufferError).
        x = from_dlpack(obj, device=None if copy is False else target, copy=copy)
        copied = copy is True
    elif type(obj).__module__.startswith("dpctl.memory"):
        x = _from_usm_memory(obj)
    else:
        try:
            view: memoryview | None = memoryview(obj)
        except TypeError:
            view = None  # Python data (read below, outside this handler, so
            # that its errors do not show this one as their context)
        if view is not None:
            a, copied = _numpy_data(np.asarray(view), copy)
            x = from_numpy(a)
        elif copy is False:
            raise ValueError(
                f"asarray(copy=False): a {type(obj).__name__} is Python data, and "
                f"making an array of it always copies; pass copy=None"
            )
        else:
            x, copied = from_python(obj, want_dtype), True

    if want_dtype is not None and want_dtype is not x.dtype:
        if copy is False:
            raise ValueError(
                f"asarray(dtype={want_dtype!r}, copy=False): the data is {x.dtype!r} and "
                f"converting it needs a copy; pass copy=None"
            )
        x, copied = cast(x, want_dtype), True
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


def _numpy_data(a: np.ndarray, copy: bool | None) -> tuple[np.ndarray, bool]:
    """``a`` where a dlarray dtype holds its elements, else its copy in the
    machine's byte order (NumPy arrays of the other order hold the same
    numbers, and NumPy users pass them: ``copy=False`` refuses that copy),
    and whether it is a copy; ``TypeError`` for elements no dlarray dtype
    holds (objects, strings, dates, long doubles), in dlarray's words
    rather than those of NumPy's DLPack export."""
    if dtype_argument(a.dtype) is not None or a.dtype.name in _VIEWED_BY_BITS:
        return a, False
    native = a.dtype.newbyteorder("=")
    if dtype_argument(native) is not None:
        if copy is False:
            raise ValueError(
                f"asarray(copy=False): the NumPy array's elements are {a.dtype.str!r}, in "
                f"the other byte order than this machine's, and dlarray's arrays hold its "
                f"own: reading them needs a copy; pass copy=None"
            )
        return a.astype(native), True
    kinds = {"O": "Python objects", "U": "strings", "S": "bytes", "M": "dates", "m": "times"}
    what = kinds.get(a.dtype.kind, f"{a.dtype.name} elements")
    if a.dtype.kind == "O":
        fix = "`dlarray.asarray(a.tolist())` reads numbers held as objects"
    else:
        target = "np.complex128" if a.dtype.kind == "c" else "np.float64"
        fix = f"convert it to one of those first, e.g. `a.astype({target})`"
    raise TypeError(
        f"asarray: the NumPy array holds {what} (dtype {a.dtype}), which no dlarray "
        f"dtype holds; dlarray's arrays hold bools, integers, floats and complex numbers "
        f"(and the extended floats): {fix}"
    )


def _from_usm_memory(memory: Any) -> ArrayBase:
    """A ``uint8`` array over a ``dpctl.memory`` allocation, zero-copy.
    (Such memory may sit outside the default context; then dlarray copies
    it but refuses to export it: see dlarray._sycl.exchange.)"""
    storage = sycl_storage.wrap(memory)
    dtype = as_dtype("uint8").dlpack
    return _core.new_array(
        storage, storage.pointer, 0, (storage.nbytes,), None, dtype, storage.device.dlpack, 0
    )
