"""``asarray``: an array from anything that holds data.

A DLArray passes through; a DLPack producer is imported (:mod:`dlarray._consumer`);
a ``dpctl.memory`` allocation or a buffer is shared; Python data is copied
(:mod:`dlarray._creation`).  Then dtype, device and copy are honoured, in
that order, by the primitives below it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dlarray._core as _core
from dlarray._array import DLArray
from dlarray._consumer import from_dlpack
from dlarray._creation import cast, from_python
from dlarray._device import as_device
from dlarray._dtypes import DTYPES_BY_NAME, as_dtype
from dlarray._engine.numpy_engine import from_numpy
from dlarray._storage import sycl as sycl_storage
from dlarray._storage.allocation import check_allocatable
from dlarray._transfer import copy_array, copy_to_device

#: The dtypes NumPy holds only through ml_dtypes (bfloat16, fp8, fp6, fp4):
#: dlarray's own, by name, that NumPy's DLPack export refuses.
_VIEWED_BY_BITS = frozenset(n for n, d in DTYPES_BY_NAME.items() if d.kind == "extended floating")


def asarray(
    obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None
) -> DLArray:
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
    if isinstance(obj, DLArray):
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
        x, copied = from_numpy(np.array(obj)), True
    elif isinstance(obj, np.ndarray) and obj.dtype.name in _VIEWED_BY_BITS:
        # NumPy cannot export ml_dtypes' dtypes through DLPack: view the
        # bits instead (zero-copy, as its exports are).
        x = from_numpy(obj)
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
            x = from_numpy(np.asarray(view))
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


def _from_usm_memory(memory: Any) -> DLArray:
    """A ``uint8`` array over a ``dpctl.memory`` allocation, zero-copy.
    (Such memory may sit outside the default context; then dlarray copies
    it but refuses to export it: see dlarray._sycl.exchange.)"""
    storage = sycl_storage.wrap(memory)
    dtype = as_dtype("uint8").dlpack
    return _core.new_array(
        storage, storage.pointer, 0, (storage.nbytes,), None, dtype, storage.device.dlpack, 0
    )
