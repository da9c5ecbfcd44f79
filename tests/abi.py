"""Tools for tests that look inside capsules, over dlarray's ctypes mirror.

The structs are :mod:`dlarray.abi`'s, re-exported here under the names the
tests use; there is no second mirror.  What kept one independent of dlarray
is now ``tests/protocols/test_abi.py``: it checks every field of ``dlarray.abi``
against a table taken from DLPack's own header, so a field dlarray puts in
the wrong place still shows up as a failure.

* :data:`VersionedDeleter` and :data:`LegacyDeleter`: the deleters' C
  signatures, to call or make one (the mirror keeps a deleter as an address).
* :func:`capsule_pointer`, :func:`managed_struct` and :func:`read_capsule`:
  what a capsule holds, field by field, whatever its name (``"used_..."``
  included, unlike :func:`dlarray.abi.managed`).
* :func:`raw_deleter` and :func:`run_deleter_on_c_thread`: run a tensor's
  deleter as a consumer would, with the GIL released or on a C thread.
* :class:`Producer`: a DLPack producer built entirely from ctypes, whose every
  field can be set to a malformed value, and whose deleter counts its calls.

One limit of a producer written in Python: its capsule destructor and deleter
are Python callbacks, and CPython cannot run Python code while an exception is
propagating without losing that exception.  A producer therefore holds its
capsules until the test calls ``drop_capsules()``, and tests keep imported
arrays bound to names, so that both die outside exception propagation.  (The
rule itself, that a destructor preserves an in-flight exception, is tested on
dlarray's own capsules.)  Any error a callback meets is recorded in
``Producer.callback_errors`` instead of being lost; tests assert it stays
empty.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from typing import Any

from dlarray import DLDeviceType
from dlarray.abi import (
    IS_COPIED,
    IS_SUBBYTE_TYPE_PADDED,
    READ_ONLY,
    DLDataType,
    DLDevice,
    DLManagedTensor,
    DLManagedTensorVersioned,
    DLPackExchangeAPI,
    DLPackExchangeAPIHeader,
    DLPackVersion,
    DLTensor,
)

# Only the re-exported structs are listed, so that linters know they are
# meant to be imported from here (tests write abi.DLTensor).
__all__ = [
    "DLDataType",
    "DLDevice",
    "DLManagedTensor",
    "DLManagedTensorVersioned",
    "DLPackExchangeAPI",
    "DLPackExchangeAPIHeader",
    "DLPackVersion",
    "DLTensor",
]

#: ``void (*)(DLManagedTensor *self)`` and its versioned twin.  The mirror
#: keeps a deleter as an address; call one as ``VersionedDeleter(address)(p)``
#: (CFUNCTYPE: the GIL is released during the call, as a C consumer's is).
LegacyDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
VersionedDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))

# ---- constants ----

FLAG_READ_ONLY = READ_ONLY
FLAG_IS_COPIED = IS_COPIED
FLAG_IS_SUBBYTE_TYPE_PADDED = IS_SUBBYTE_TYPE_PADDED

kDLCPU = int(DLDeviceType.kDLCPU)
kDLCUDA = int(DLDeviceType.kDLCUDA)

VERSIONED_NAME = b"dltensor_versioned"
LEGACY_NAME = b"dltensor"
USED_VERSIONED_NAME = b"used_dltensor_versioned"
USED_LEGACY_NAME = b"used_dltensor"

# ---- the capsule C API, through ctypes ----

_api = ctypes.pythonapi

PyCapsule_GetName = _api.PyCapsule_GetName
PyCapsule_GetName.restype = ctypes.c_char_p
PyCapsule_GetName.argtypes = [ctypes.py_object]

PyCapsule_GetPointer = _api.PyCapsule_GetPointer
PyCapsule_GetPointer.restype = ctypes.c_void_p
PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

PyCapsule_IsValid = _api.PyCapsule_IsValid
PyCapsule_IsValid.restype = ctypes.c_int
PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]

PyCapsule_SetName = _api.PyCapsule_SetName
PyCapsule_SetName.restype = ctypes.c_int
PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

#: The C signature of a capsule destructor, ``void (*)(PyObject *)``.  The
#: argument is taken as a raw address: turning a capsule that is being
#: deallocated into a ``py_object`` would revive it (incref then decref to
#: zero again) and run its destructor a second time.
CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

PyCapsule_New = _api.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, CapsuleDestructor]

# The same functions taking the capsule as a raw address, for the destructor.
_GetNameRaw = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)(("PyCapsule_GetName", _api))
_GetPointerRaw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api)
)

# PyCapsule_SetName keeps the pointer it is given, so names set from Python
# must outlive every capsule: these buffers never die.
_NAME_BUFFERS = {
    name: ctypes.create_string_buffer(name)
    for name in (VERSIONED_NAME, LEGACY_NAME, USED_VERSIONED_NAME, USED_LEGACY_NAME)
}


def _persistent_name(name: bytes) -> ctypes.c_char_p:
    if name not in _NAME_BUFFERS:
        _NAME_BUFFERS[name] = ctypes.create_string_buffer(name)
    return ctypes.cast(_NAME_BUFFERS[name], ctypes.c_char_p)


def set_capsule_name(capsule: Any, name: bytes) -> None:
    """Rename ``capsule`` as a consumer does when it takes ownership."""
    if PyCapsule_SetName(capsule, _persistent_name(name)) != 0:
        raise RuntimeError("PyCapsule_SetName failed")


def capsule_name(capsule: Any) -> bytes | None:
    return PyCapsule_GetName(capsule)


def capsule_pointer(capsule: Any) -> int:
    """The address a capsule holds (its managed tensor), whatever its name."""
    name = PyCapsule_GetName(capsule)
    ptr = PyCapsule_GetPointer(capsule, name)
    if not ptr:
        raise RuntimeError("PyCapsule_GetPointer returned NULL")
    return ptr


def managed_struct(capsule: Any) -> DLManagedTensor | DLManagedTensorVersioned:
    """The managed tensor behind a (possibly already renamed) capsule."""
    name = PyCapsule_GetName(capsule)
    kind = DLManagedTensorVersioned if name.endswith(VERSIONED_NAME) else DLManagedTensor
    return kind.from_address(capsule_pointer(capsule))


def _address(function: Any) -> int | None:
    """The address of a ctypes callback, as the mirror's c_void_p fields hold it."""
    return ctypes.cast(function, ctypes.c_void_p).value


def _int64s(pointer: Any, n: int) -> list[int] | None:
    if not pointer:
        return None
    return [pointer[i] for i in range(n)]


def read_capsule(capsule: Any) -> dict[str, Any]:
    """Every field of the tensor in ``capsule``, as plain Python values.

    ``version`` and ``flags`` are None for a legacy capsule; ``shape`` and
    ``strides`` are None when their pointer is NULL (``shape_is_null`` and
    ``strides_is_null`` say so explicitly); ``data`` is an int or None.
    """
    name = PyCapsule_GetName(capsule)
    managed = managed_struct(capsule)
    versioned = isinstance(managed, DLManagedTensorVersioned)
    t = managed.dl_tensor
    ndim = t.ndim
    return {
        "name": name.decode() if name is not None else None,
        "versioned": versioned,
        "pointer": ctypes.addressof(managed),
        "version": (managed.version.major, managed.version.minor) if versioned else None,
        "flags": managed.flags if versioned else None,
        "manager_ctx": managed.manager_ctx,
        "deleter": managed.deleter,
        "data": t.data,
        "byte_offset": t.byte_offset,
        "device": (t.device.device_type, t.device.device_id),
        "ndim": ndim,
        "dtype": (t.dtype.code, t.dtype.bits, t.dtype.lanes),
        "shape": _int64s(t.shape, max(ndim, 0)),
        "strides": _int64s(t.strides, max(ndim, 0)),
        "shape_is_null": not t.shape,
        "strides_is_null": not t.strides,
    }


def raw_deleter(capsule: Any) -> Callable[[], None]:
    """A callable that runs the deleter of the tensor in ``capsule`` as a
    consumer that owns the tensor would: through a plain C function pointer,
    so the GIL is released during the call.  It holds only addresses, so it
    may run after the capsule itself is gone."""
    managed = managed_struct(capsule)
    deleter = managed.deleter
    address = ctypes.addressof(managed)
    if not deleter:
        raise ValueError("the tensor has a NULL deleter")
    function = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter)
    return lambda: function(address)


def run_deleter_on_c_thread(capsule: Any) -> None:
    """Run the deleter of the tensor in ``capsule`` on a thread the Python
    interpreter has never seen (started with pthread_create, the deleter as
    its start routine), and wait for it."""
    libc = ctypes.CDLL(None)
    managed = managed_struct(capsule)
    deleter = managed.deleter
    thread = ctypes.c_ulong()
    # void (*)(T *) as void *(*)(void *): the same calling convention on the
    # platforms CPython supports; the thread's return value is never read.
    rc = libc.pthread_create(
        ctypes.byref(thread),
        None,
        ctypes.c_void_p(deleter),
        ctypes.c_void_p(ctypes.addressof(managed)),
    )
    if rc != 0:
        raise OSError(rc, "pthread_create failed")
    # A CDLL call releases the GIL, which the deleter thread needs.
    rc = libc.pthread_join(thread, None)
    if rc != 0:
        raise OSError(rc, "pthread_join failed")


# ---- a producer made of ctypes ----

#: Every producer stays alive for the rest of the session: its ctypes
#: callbacks and buffers may be reached from C (a capsule, an imported array)
#: long after the test dropped the producer itself.
_KEEPALIVE: list[Any] = []

_DEFAULT = object()


class Producer:
    """A DLPack producer whose capsule is assembled field by field with ctypes.

    Why this is not :class:`dlarray.abi.ToyProducer`, which also builds
    capsules field by field: the toy is a capsule factory over a NumPy
    array, for learners.  Tests need a whole producer object (a
    ``__dlpack__`` that raises, refuses keywords, records its calls), fields
    the toy cannot write while keeping its memory valid (NULL shape, data or
    deleter, ``ndim`` unlike the shape, no capsule destructor, any name),
    callbacks that record their errors and the names the destructor saw,
    and capsules held until :meth:`drop_capsules`.  The toy's process-wide
    callbacks instead let an array outlive its producer in a REPL.  Growing
    the public toy by all that would teach test machinery; what the two
    share is the ABI's, the structs, and those are now one.

    Parameters (all keyword-only)
    ----------
    versioned : bool
        ``"dltensor_versioned"`` (True) or legacy ``"dltensor"`` (False).
    version : (major, minor)
    flags : int
    shape : sequence of int
    ndim : int, optional
        Written into the tensor instead of ``len(shape)``.
    strides : sequence of int, or None
        None writes a NULL strides pointer; the default writes C-contiguous
        strides.
    null_shape : bool
        Write a NULL shape pointer.
    dtype : (code, bits, lanes)
    payload : bytes
        Initial contents of the buffer the tensor points into.
    data : "buffer", None or int
        ``"buffer"``: the buffer's address (plus ``data_offset``); None: NULL;
        an int: that address.
    data_offset : int
        Added to the buffer address (a misaligned ``data``).
    byte_offset : int
    device : (device_type, device_id)
    deleter : bool
        A counting deleter (True) or a NULL deleter (False).
    destructor : bool
        Give the capsule a destructor that, as the spec asks, calls the deleter
        only if no consumer renamed the capsule.
    accepts_keywords : bool
        False mimics a pre-1.0 producer: ``__dlpack__`` raises ``TypeError``
        for any keyword and otherwise returns a legacy capsule.
    raises : BaseException, optional
        ``__dlpack__`` raises this.
    name : bytes, optional
        Give the capsule this name instead of the one ``versioned`` implies.
    hold_capsules : bool
        Keep a reference to every capsule made (in ``held_capsules``) until
        :meth:`drop_capsules`.  Without it a capsule that a failed import drops
        while its exception propagates would run the Python destructor then,
        which CPython cannot do without losing the exception (see the module
        docstring).  A test drops the capsules when it wants them destroyed.

    Attributes
    ----------
    deleter_calls : list of int
        The managed-tensor address passed to each deleter call.
    destructor_calls : list of bytes
        The capsule name seen by each destructor call.
    capsule_addresses : list of int
        The managed-tensor address of each capsule made, in order.
    dlpack_calls : list of dict
        The keywords of each ``__dlpack__`` call.
    callback_errors : list of BaseException
        Errors met inside the ctypes callbacks (must stay empty).
    """

    def __init__(
        self,
        *,
        versioned: bool = True,
        version: tuple[int, int] = (1, 3),
        flags: int = 0,
        shape: Any = (4,),
        ndim: int | None = None,
        strides: Any = _DEFAULT,
        null_shape: bool = False,
        dtype: tuple[int, int, int] = (2, 32, 1),
        payload: bytes | None = None,
        data: Any = "buffer",
        data_offset: int = 0,
        byte_offset: int = 0,
        device: tuple[int, int] = (kDLCPU, 0),
        deleter: bool = True,
        destructor: bool = True,
        accepts_keywords: bool = True,
        raises: BaseException | None = None,
        name: bytes | None = None,
        hold_capsules: bool = True,
    ) -> None:
        self.versioned = versioned
        self.version = version
        self.flags = flags
        self.shape = [int(s) for s in shape]
        self.ndim = len(self.shape) if ndim is None else ndim
        if strides is _DEFAULT:
            strides = []
            step = 1
            for extent in reversed(self.shape):
                strides.insert(0, step)
                step *= max(extent, 1)
        self.strides = None if strides is None else [int(s) for s in strides]
        self.null_shape = null_shape
        self.dtype = dtype
        if payload is None:
            payload = bytes(self._default_nbytes())
        self.buffer = ctypes.create_string_buffer(payload, max(len(payload), 1))
        self.data = data
        self.data_offset = data_offset
        self.byte_offset = byte_offset
        self.device = device
        self.use_deleter = deleter
        self.use_destructor = destructor
        self.accepts_keywords = accepts_keywords
        self.raises = raises
        self.name = name
        self.hold_capsules = hold_capsules
        self.held_capsules: list[Any] = []

        self.deleter_calls: list[int] = []
        self.destructor_calls: list[bytes | None] = []
        self.capsule_addresses: list[int] = []
        self.dlpack_calls: list[dict[str, Any]] = []
        self.callback_errors: list[BaseException] = []
        self._structs: list[Any] = []  # every managed struct and dims array made

        self._versioned_deleter = VersionedDeleter(self._on_delete)
        self._legacy_deleter = LegacyDeleter(self._on_delete)
        self._destructor = CapsuleDestructor(self._on_destroy)
        _KEEPALIVE.append(self)

    def _default_nbytes(self) -> int:
        """Bytes for a C-contiguous tensor of ``shape``, capped for huge or
        malformed shapes (those are never read)."""
        if any(s < 0 for s in self.shape):
            return 64
        count = math.prod(self.shape)
        bits = self.dtype[1] * max(self.dtype[2], 1)
        nbytes = (count * bits + 7) // 8
        return nbytes if nbytes <= 1 << 20 else 64

    # -- callbacks (run from C) --

    def _on_delete(self, managed: Any) -> None:
        try:
            self.deleter_calls.append(ctypes.cast(managed, ctypes.c_void_p).value)
        except BaseException as exc:  # pragma: no cover - reported by tests
            self.callback_errors.append(exc)

    def _on_destroy(self, capsule_address: int) -> None:
        try:
            name = _GetNameRaw(capsule_address)
            self.destructor_calls.append(name)
            # The spec: a capsule still carrying its original name was never
            # consumed, so the producer must release the tensor.
            if name in (VERSIONED_NAME, LEGACY_NAME):
                address = _GetPointerRaw(capsule_address, name)
                versioned = name == VERSIONED_NAME
                kind = DLManagedTensorVersioned if versioned else DLManagedTensor
                managed = kind.from_address(address)
                if managed.deleter:
                    deleter_type = VersionedDeleter if versioned else LegacyDeleter
                    deleter_type(managed.deleter)(ctypes.pointer(managed))
        except BaseException as exc:  # pragma: no cover - reported by tests
            self.callback_errors.append(exc)

    # -- the protocol --

    def __dlpack_device__(self) -> tuple[int, int]:
        return tuple(self.device)

    def __dlpack__(self, **kwargs: Any) -> Any:
        self.dlpack_calls.append(dict(kwargs))
        if self.raises is not None:
            raise self.raises
        versioned = self.versioned
        if not self.accepts_keywords:
            if kwargs:
                raise TypeError(
                    f"__dlpack__() got an unexpected keyword argument {next(iter(kwargs))!r}"
                )
            versioned = False
        return self.make_capsule(versioned=versioned)

    def make_capsule(self, *, versioned: bool | None = None) -> Any:
        """A fresh capsule holding a fresh managed tensor."""
        if versioned is None:
            versioned = self.versioned
        n = max(self.ndim, 0)
        shape_arr = (ctypes.c_int64 * max(n, 1))(*self.shape[:n])
        strides_arr = None
        if self.strides is not None:
            strides_arr = (ctypes.c_int64 * max(n, 1))(*self.strides[:n])

        managed: Any = DLManagedTensorVersioned() if versioned else DLManagedTensor()
        if versioned:
            managed.version.major, managed.version.minor = self.version
            managed.flags = self.flags
            deleter = self._versioned_deleter
        else:
            deleter = self._legacy_deleter
        # The mirror holds the deleter's address; None writes NULL.
        managed.deleter = _address(deleter) if self.use_deleter else None
        managed.manager_ctx = None
        t = managed.dl_tensor
        if self.data == "buffer":
            t.data = ctypes.addressof(self.buffer) + self.data_offset
        else:
            t.data = self.data
        t.device.device_type, t.device.device_id = self.device
        t.ndim = self.ndim
        t.dtype.code, t.dtype.bits, t.dtype.lanes = self.dtype
        if not self.null_shape:
            t.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
        if strides_arr is not None:
            t.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = self.byte_offset
        self._structs.append((managed, shape_arr, strides_arr))

        address = ctypes.addressof(managed)
        self.capsule_addresses.append(address)
        name = (
            self.name if self.name is not None else (VERSIONED_NAME if versioned else LEGACY_NAME)
        )
        destructor = self._destructor if self.use_destructor else CapsuleDestructor()
        capsule = PyCapsule_New(address, _persistent_name(name), destructor)
        if self.hold_capsules:
            self.held_capsules.append(capsule)
        return capsule

    def drop_capsules(self) -> None:
        """Let go of the held capsules (their destructors run if no one else
        holds them)."""
        self.held_capsules.clear()

    def deletes_of(self, address: int) -> int:
        """How many times the deleter ran for the tensor at ``address``."""
        return self.deleter_calls.count(address)
