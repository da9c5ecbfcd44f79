"""The consumer: ``dlarray.from_dlpack``.

The protocol, as DLPack's Python specification writes it:

1. Ask the producer for a versioned capsule, ``x.__dlpack__(max_version=(1, 3))``.
   A producer older than DLPack 1.0 raises ``TypeError`` at the keyword; then
   ask again with no keywords for a legacy capsule.  That retry happens only
   when ``device`` and ``copy`` are not given, because an old producer cannot
   honour them and silently dropping them would change their meaning.
2. Hand the capsule to the C core, which checks every field, takes ownership
   (renaming the capsule ``used_...``), and returns an array whose death calls
   the producer's deleter.

Producers are asked for ``stream=None``: dlarray computes on the host, where
that is the only meaningful stream.

``dlarray.from_dlpack`` is the C function ``_core.from_dlpack``: it runs step 1
and 2 for the common call (no ``device``, no ``copy``) without Python-level
overhead, and hands every other call to :func:`from_dlpack` below, which is
the complete and readable implementation.
"""

from __future__ import annotations

from typing import Any

from dlarray import _core
from dlarray._array import DLArray
from dlarray._device import as_device

MAX_VERSION = (_core.DLPACK_MAJOR_VERSION, _core.DLPACK_MINOR_VERSION)


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> DLArray:
    """Import an object that implements ``__dlpack__``, zero-copy.

    Parameters
    ----------
    x
        Any DLPack producer: a NumPy, PyTorch, JAX, CuPy array, another
        DLArray...
    device : Device, str or (device_type, device_id), optional
        Ask the producer to export to this device (copying if it must).
    copy : bool or None
        ``True``: the producer must copy.  ``False``: it must not;
        ``BufferError`` when a copy would be needed.  ``None``: its choice.

    Returns
    -------
    DLArray
        Sharing the producer's memory unless a copy was asked for; read-only
        when the producer marked the memory ``READ_ONLY``.

    Raises
    ------
    AttributeError
        ``x`` has no ``__dlpack__`` method.
    BufferError
        The data cannot be exchanged (unsupported dtype or device, a needed
        copy under ``copy=False``, a DLPack major version other than 1).
    TypeError
        Wrong argument types; a pre-1.0 producer asked for ``device``/``copy``.

    Examples
    --------
    >>> import dlarray, numpy as np
    >>> a = np.arange(6.0).reshape(2, 3)
    >>> x = dlarray.from_dlpack(a)
    >>> x.shape, x.dtype
    ((2, 3), dlarray.float64)
    >>> x._data + x._byte_offset == a.ctypes.data  # the same memory
    True
    """
    if device is None and copy is None:
        try:
            dunder = x.__dlpack__
        except AttributeError:
            raise _no_dlpack(x) from None
        try:
            capsule = dunder(max_version=MAX_VERSION)
        except TypeError:
            # A producer that predates DLPack 1.0 and its keywords.
            capsule = dunder()
        return _core.consume(capsule)

    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"from_dlpack(copy={copy!r}): copy must be None, True or False")
    if not hasattr(x, "__dlpack__"):
        raise _no_dlpack(x)
    kwargs: dict[str, Any] = {"max_version": MAX_VERSION}
    if copy is not None:
        kwargs["copy"] = copy
    target = None
    if device is not None:
        target = as_device(device)
        if tuple(x.__dlpack_device__()) != target.dlpack:
            kwargs["dl_device"] = target.dlpack
    try:
        capsule = x.__dlpack__(**kwargs)
    except TypeError as exc:
        asked = ", ".join(f"{k}={v!r}" for k, v in kwargs.items() if k != "max_version")
        raise TypeError(
            f"{type(x).__name__}.__dlpack__ rejected the keywords of DLPack 1.0 ({asked}): "
            f"{exc}. It may predate them; call dlarray.from_dlpack(x) without device/copy "
            f"and copy with dlarray.asarray(..., copy=True)"
        ) from exc
    array = _core.consume(capsule)
    if target is not None and array.device != target:
        raise BufferError(
            f"from_dlpack(device={target!r}): the producer returned memory on "
            f"{array.device} instead"
        )
    if copy is True and not _producer_copied(array):
        # A producer that ignored copy=True would leave the result aliased.
        from dlarray._creation import copy_to_host

        array = copy_to_host(array)
    return array


def _producer_copied(array: DLArray) -> bool:
    owner = array._owner
    return (
        isinstance(owner, _core.ImportedTensor)
        and owner.versioned
        and bool(owner.flags & _core.FLAG_IS_COPIED)
    )


def _no_dlpack(x: Any) -> AttributeError:
    return AttributeError(
        f"from_dlpack: {type(x).__name__} has no __dlpack__ method, so it is not a DLPack "
        f"producer; for Python data or buffers use dlarray.asarray"
    )


_core.set_general_from_dlpack(from_dlpack)
