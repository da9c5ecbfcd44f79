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

Streams: a producer whose ``__dlpack_device__`` is a CUDA memory kind is
passed dlarray's work stream (see :mod:`dlarray._cuda.streams`), a SYCL
producer dlarray's queue on that device (see :mod:`dlarray._sycl.exchange`),
host producers ``stream=None``.  ``stream`` is always passed, never left out,
because PyTorch's default is -1 ("do not synchronise"), not the spec's None.  When ``device=``
asks for memory the producer cannot place there (NumPy cannot export to a
GPU), dlarray takes the data where it is and copies it itself, unless
``copy=False``.

``dlarray.from_dlpack`` is the C function ``_core.from_dlpack``: it runs step 1
and 2 for the common call (no ``device``, no ``copy``) without
Python-level overhead, and hands every other call to :func:`from_dlpack`
below.  The two rules both paths need are written once, in C, and called
from here: where a producer says its memory is (``_core.producer_device``)
and whether a ``TypeError`` refused DLPack 1.0's keywords
(``_core.keywords_refused``); the stream to pass is the memory families'
(``MEMORY.consumer_stream``).
"""

from __future__ import annotations

from typing import Any

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._device import Device, as_device
from dlarray._storage.family import family_of_type
from dlarray._storage.memory import MEMORY
from dlarray._transfer import copy_array, copy_to_device

MAX_VERSION = (_core.DLPACK_MAJOR_VERSION, _core.DLPACK_MINOR_VERSION)


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> ArrayBase:
    """The calls of :func:`dlarray.from_dlpack` its C entry point hands over.

    ``dlarray.from_dlpack`` is ``_core.from_dlpack`` (its docstring is the
    public one: parameters, errors, examples).  It runs the common call in C
    and hands here, as ``DLArray._from_dlpack_general``, every call with
    ``device`` or ``copy`` (but ``copy=False`` through a producer's C
    exchange table) and an object that is no producer (the error is worded
    here); dlarray's own modules (``asarray``, the array class) call this
    function for the same protocol.  Steps 1 and 2 of the module's
    docstring, then the copy to ``device`` where the producer could not
    place its data there.
    """
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"from_dlpack(copy={copy!r}): copy must be None, True or False")
    try:
        dunder = x.__dlpack__
    except AttributeError:
        raise _no_dlpack(x) from None
    target = None if device is None else as_device(device)
    source = _core.producer_device(x)
    kwargs: dict[str, Any] = {"max_version": MAX_VERSION}
    if copy is not None:
        kwargs["copy"] = copy
    if target is not None and source is not None and source != target.dlpack:
        kwargs["dl_device"] = target.dlpack
    # Always passed, also as None: PyTorch's default is -1, not the spec's None.
    kwargs["stream"] = stream = _stream_for(source, target)

    try:
        capsule = dunder(**kwargs)
    except TypeError as exc:
        if not _core.keywords_refused(exc):
            raise  # the producer's own error, not a refusal of the keywords
        if copy is not None or device is not None:
            raise _rejected_keywords(x, kwargs, exc) from exc
        # A producer that predates DLPack 1.0 and its keywords: ask again
        # for a legacy capsule, as the spec recommends.
        # Some such producers take no keywords; their default is None.
        capsule = dunder() if stream is None else dunder(stream=stream)
    except _REFUSALS as exc:
        # The producer cannot place its data on our device (NumPy cannot
        # export to CUDA, say): take it where it is and copy it ourselves.
        if "dl_device" not in kwargs:
            raise
        if copy is False:
            raise BufferError(
                f"from_dlpack(device={target!r}, copy=False): {type(x).__name__} cannot "
                f"place its data there ({type(exc).__name__}: {exc}), and copy=False "
                f"forbids dlarray's copy; pass copy=None"
            ) from exc
        capsule = dunder(stream=_stream_for(source, None), max_version=MAX_VERSION)
    array = _core.consume(capsule)
    if target is not None and array.device != target:
        if copy is False:
            raise BufferError(
                f"from_dlpack(device={target!r}, copy=False): the producer returned memory "
                f"on {array.device}, and moving it needs a copy; pass copy=None"
            )
        return copy_to_device(array, target)
    if copy is True and not _producer_copied(array):
        # A producer that ignored copy=True would leave the result aliased.
        return copy_array(array)
    return array


# What producers raise when they cannot export to the asked dl_device: the
# spec's BufferError, and the deviations of NumPy < 2.3 (ValueError) and
# PyTorch (NotImplementedError, RuntimeError).  Only caught when dl_device was
# asked for; the retry without it raises any other problem again.
_REFUSALS = (BufferError, ValueError, NotImplementedError, RuntimeError)


def _stream_for(source: tuple[int, int] | None, target: Device | None) -> Any:
    """The ``stream`` to pass: the choice above when the data stays in the
    producer's memory family; None (the only value allowed) when it comes to
    the host or goes elsewhere."""
    if source is None:
        return None
    if target is not None and target.memory.family != family_of_type(source[0]).name:
        return None
    return MEMORY.consumer_stream(*source)


def _rejected_keywords(x: Any, kwargs: dict[str, Any], exc: TypeError) -> TypeError:
    asked = ", ".join(f"{k}={v!r}" for k, v in kwargs.items() if k not in ("max_version", "stream"))
    return TypeError(
        f"{type(x).__name__}.__dlpack__ rejected the keywords of DLPack 1.0 ({asked}): "
        f"{exc}. It may predate them; call dlarray.from_dlpack(x) without device/copy "
        f"and copy with dlarray.asarray(..., copy=True)"
    )


def _producer_copied(array: ArrayBase) -> bool:
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
