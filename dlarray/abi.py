"""DLPack's C structs in Python, for reading capsules and making them.

This module is for learning and testing DLPack: the tutorial imports it so
that every snippet runs on its own.  It holds

- a :mod:`ctypes` mirror of the DLPack 1.3 structs (:class:`DLTensor`,
  :class:`DLManagedTensorVersioned`, ...), of its C exchange table
  (:class:`DLPackExchangeAPI`), and the bits of ``flags``;
- :func:`capsule_name`, :func:`managed` and :func:`describe`, which read a
  capsule (or any producer's export) through the mirror;
- :func:`data_pointer`, the address of an array's first element as DLPack
  describes it, which shows zero-copy without private attributes;
- :func:`consume` and :func:`owner`, dlarray's consumer at its smallest and
  the object that keeps an array's memory alive;
- :class:`ToyProducer`, a producer made of ctypes whose capsules can hold
  any field values, valid or not, and which records each deleter call.

The mirror follows ``dlpack.h`` 1.3, field by field.  It is the only one:
dlarray's tests read capsules through it too.  ``tests/protocols/test_abi.py`` checks
every field's offset, size and type against a table taken from the spec's
own header, and against ``dlarray/include/dlpack_abi.h`` through the C
compiler, so that a field misplaced in the mirror or in dlarray's header
shows up.  Nothing in dlarray's own exchange uses this module: the C core
does the real work.

Examples
--------
>>> import dlarray
>>> from dlarray import abi
>>> x = dlarray.reshape(dlarray.arange(6.0), (2, 3))
>>> d = abi.describe(x.T)
>>> d.capsule_name, d.version, d.shape, d.strides, d.dtype
('dltensor_versioned', (1, 3), (3, 2), (1, 3), (2, 64, 1))
>>> abi.data_pointer(x.T) == abi.data_pointer(x)   # a view: the same memory
True
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, NamedTuple

from dlarray import _core

__all__ = [
    "DLPACK_VERSION",
    "IS_COPIED",
    "IS_SUBBYTE_TYPE_PADDED",
    "READ_ONLY",
    "DLDataType",
    "DLDevice",
    "DLManagedTensor",
    "DLManagedTensorVersioned",
    "DLPackExchangeAPI",
    "DLPackExchangeAPIHeader",
    "DLPackVersion",
    "DLTensor",
    "TensorDescription",
    "ToyProducer",
    "capsule_name",
    "consume",
    "data_pointer",
    "describe",
    "managed",
    "owner",
]

#: The DLPack version whose structs this module mirrors (and dlarray speaks).
DLPACK_VERSION = (_core.DLPACK_MAJOR_VERSION, _core.DLPACK_MINOR_VERSION)

#: The bits of ``DLManagedTensorVersioned.flags`` (dlpack.h, ``DLPACK_FLAG_BITMASK_*``).
READ_ONLY = _core.FLAG_READ_ONLY
IS_COPIED = _core.FLAG_IS_COPIED
IS_SUBBYTE_TYPE_PADDED = _core.FLAG_IS_SUBBYTE_TYPE_PADDED


# --- the structs ------------------------------------------------------------
# Field order and widths are the header's.  Function pointers (the deleters,
# the exchange table's functions) are kept as plain addresses (c_void_p):
# enough to compare them, and to call one later through a function type of
# the caller's choice -- CFUNCTYPE to release the GIL, PYFUNCTYPE to keep it.


class DLPackVersion(ctypes.Structure):
    """``{uint32_t major; uint32_t minor;}``: a new major version changes the ABI.

    Examples
    --------
    >>> import ctypes
    >>> from dlarray.abi import DLPackVersion
    >>> v = DLPackVersion(1, 3)
    >>> (v.major, v.minor), ctypes.sizeof(v)
    ((1, 3), 8)
    """

    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    """``{DLDeviceType device_type; int32_t device_id;}``; the enum is int-sized.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray.abi import DLDevice
    >>> d = DLDevice(2, 1)                         # kDLCUDA, GPU 1
    >>> dlarray.DLDeviceType(d.device_type), d.device_id
    (<DLDeviceType.kDLCUDA: 2>, 1)
    """

    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    """``{uint8_t code; uint8_t bits; uint16_t lanes;}``: one element's type.

    Examples
    --------
    >>> import dlarray
    >>> import ctypes
    >>> from dlarray.abi import DLDataType
    >>> t = DLDataType(*dlarray.bfloat16.dlpack)     # kDLBfloat, 16 bits, 1 lane
    >>> (t.code, t.bits, t.lanes), ctypes.sizeof(t)
    ((4, 16, 1), 4)
    """

    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    """The array's description; it owns nothing.  Strides count elements.

    Examples
    --------
    >>> import ctypes
    >>> from dlarray.abi import DLTensor
    >>> ctypes.sizeof(DLTensor), DLTensor.shape.offset, DLTensor.byte_offset.offset
    (48, 24, 40)
    """

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    """The legacy managed tensor, in capsules named ``"dltensor"``.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray import abi
    >>> m = abi.managed(dlarray.arange(3).__dlpack__())   # no max_version: legacy
    >>> type(m).__name__, abi.DLManagedTensor.deleter.offset
    ('DLManagedTensor', 56)
    """

    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),  # void (*)(DLManagedTensor *self)
    ]


class DLManagedTensorVersioned(ctypes.Structure):
    """The DLPack >= 1.0 managed tensor, in capsules named ``"dltensor_versioned"``.

    ``version`` comes first and ``dl_tensor`` last, so that a consumer can
    find ``version`` and ``deleter`` in a tensor of any future major version.

    Examples
    --------
    >>> from dlarray.abi import DLManagedTensorVersioned as M
    >>> M.version.offset, M.deleter.offset, M.flags.offset, M.dl_tensor.offset
    (0, 16, 24, 32)
    """

    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),  # void (*)(DLManagedTensorVersioned *self)
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# --- the C exchange table (DLPack 1.3) ----------------------------------------
# A producer may offer, besides __dlpack__, a table of C functions that
# exchange tensors without building a capsule: the attribute
# ``__dlpack_c_exchange_api__`` of its array type is a capsule named
# "dlpack_exchange_api" holding the table's address.


class DLPackExchangeAPIHeader(ctypes.Structure):
    """``{DLPackVersion version; DLPackExchangeAPIHeader *prev_api;}``.

    Every table starts with this header, so that a consumer can read the
    version of a table of any future version, and walk ``prev_api`` to an
    older table it understands (NULL ends the chain).

    Examples
    --------
    >>> import ctypes
    >>> from dlarray.abi import DLPackExchangeAPIHeader as H
    >>> H.prev_api.offset, ctypes.sizeof(H)
    (8, 16)
    """


DLPackExchangeAPIHeader._fields_ = [  # prev_api points to its own type: set after the class
    ("version", DLPackVersion),
    ("prev_api", ctypes.POINTER(DLPackExchangeAPIHeader)),
]


class DLPackExchangeAPI(ctypes.Structure):
    """The C exchange table of DLPack 1.3: a header, then five functions.

    The functions (``int (*)(...)``, 0 on success, -1 with a Python error
    set) are addresses, as the deleters are; their signatures are in
    ``dlpack.h`` and in ``dlarray/include/dlpack_abi.h``.

    Examples
    --------
    >>> import ctypes
    >>> from dlarray.abi import DLPackExchangeAPI as API
    >>> API.managed_tensor_allocator.offset, API.current_work_stream.offset, ctypes.sizeof(API)
    (16, 48, 56)
    """

    _fields_ = [
        ("header", DLPackExchangeAPIHeader),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
        ("current_work_stream", ctypes.c_void_p),
    ]


# --- reading capsules -------------------------------------------------------

_GetName = ctypes.pythonapi.PyCapsule_GetName
_GetName.restype = ctypes.c_char_p
_GetName.argtypes = [ctypes.py_object]
_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_GetPointer.restype = ctypes.c_void_p
_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

_STRUCTS: dict[str, type[ctypes.Structure]] = {
    "dltensor": DLManagedTensor,
    "dltensor_versioned": DLManagedTensorVersioned,
}


def _check_capsule(capsule: Any) -> None:
    if type(capsule).__name__ != "PyCapsule":
        raise TypeError(f"expected a DLPack capsule (a PyCapsule), got {type(capsule).__name__}")


def capsule_name(capsule: Any) -> str:
    """The capsule's name: ``"dltensor_versioned"``, ``"dltensor"``, or ``"used_..."``.

    The name says which struct the capsule holds, and whether a consumer
    has taken it (renamed it ``"used_..."``).

    Raises
    ------
    TypeError
        If ``capsule`` is not a ``PyCapsule``.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray import abi
    >>> abi.capsule_name(dlarray.arange(3).__dlpack__(max_version=(1, 3)))
    'dltensor_versioned'
    >>> abi.capsule_name(dlarray.arange(3).__dlpack__())   # a consumer older than 1.0
    'dltensor'
    """
    _check_capsule(capsule)
    name = _GetName(capsule)
    return "" if name is None else name.decode()


def managed(capsule: Any) -> DLManagedTensor | DLManagedTensorVersioned:
    """The managed struct a DLPack capsule points at, seen through the mirror.

    The result is not a copy: it *is* the producer's struct, so writing to
    it changes what a consumer will read.  It keeps the capsule alive, and is
    valid only while nobody has consumed the capsule.

    Raises
    ------
    TypeError
        If ``capsule`` is not a ``PyCapsule``.
    ValueError
        If the capsule was already consumed (its name is ``"used_..."``) or
        is not a DLPack capsule.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray import abi
    >>> capsule = dlarray.arange(4.0).__dlpack__(max_version=(1, 3))
    >>> m = abi.managed(capsule)
    >>> type(m).__name__, (m.version.major, m.version.minor), m.dl_tensor.ndim
    ('DLManagedTensorVersioned', (1, 3), 1)
    """
    name = capsule_name(capsule)
    struct = _STRUCTS.get(name)
    if struct is None:
        state = "was already consumed" if name.startswith("used_") else "is not a DLPack capsule"
        raise ValueError(
            f"capsule named {name!r} {state}: only a 'dltensor' or 'dltensor_versioned' "
            "capsule holds a tensor that may be read"
        )
    view: DLManagedTensor | DLManagedTensorVersioned
    view = struct.from_address(_GetPointer(capsule, name.encode()))  # type: ignore[assignment]
    view._capsule = capsule  # keep the owner of the struct alive
    return view


class TensorDescription(NamedTuple):
    """The fields of one DLPack export, as Python values (see :func:`describe`).

    Examples
    --------
    >>> import dlarray
    >>> from dlarray import abi
    >>> abi.describe(dlarray.ones((2, 2), dtype=dlarray.int8)).strides
    (2, 1)
    """

    capsule_name: str
    """``"dltensor_versioned"`` or ``"dltensor"``: which struct was read."""
    version: tuple[int, int] | None
    """The producer's ``(major, minor)``; ``None`` for the legacy struct."""
    flags: int | None
    """The ``flags`` bits; ``None`` for the legacy struct."""
    device: tuple[int, int]
    """``(device_type, device_id)``."""
    dtype: tuple[int, int, int]
    """``(code, bits, lanes)``."""
    shape: tuple[int, ...]
    """The extents, ``ndim`` of them."""
    strides: tuple[int, ...] | None
    """In elements; ``None`` where the pointer is NULL."""
    byte_offset: int
    """Bytes from ``data`` to the first element."""
    data: int
    """The ``data`` pointer (0 for NULL)."""


def describe(
    obj: Any, *, max_version: tuple[int, int] | None = DLPACK_VERSION
) -> TensorDescription:
    """Every field of a DLPack export: of a capsule, or of any producer's array.

    Given an array (anything with ``__dlpack__``), it is exported with
    ``max_version``, read, and the export released again.  Given a capsule,
    the capsule is read and left as it was.

    Raises
    ------
    TypeError
        If ``obj`` is neither a capsule nor a DLPack producer.
    ValueError
        If the capsule was already consumed.
    BufferError
        If the producer refuses to export.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray import abi
    >>> d = abi.describe(np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::2])
    >>> d.dtype, d.shape, d.strides, d.device
    ((0, 16, 1), (3, 2), (4, 2), (1, 0))
    """
    if type(obj).__name__ == "PyCapsule":
        return _read(managed(obj))
    exporter = getattr(type(obj), "__dlpack__", None)
    if exporter is None:
        raise TypeError(
            "describe() takes a DLPack capsule or an array with __dlpack__, "
            f"got {type(obj).__name__}"
        )
    capsule = obj.__dlpack__() if max_version is None else obj.__dlpack__(max_version=max_version)
    return _read(managed(capsule))  # the capsule dies here: its destructor releases the export


def _read(m: DLManagedTensor | DLManagedTensorVersioned) -> TensorDescription:
    t = m.dl_tensor
    ndim = t.ndim
    versioned = isinstance(m, DLManagedTensorVersioned)
    return TensorDescription(
        capsule_name="dltensor_versioned" if versioned else "dltensor",
        version=(m.version.major, m.version.minor) if versioned else None,
        flags=m.flags if versioned else None,
        device=(t.device.device_type, t.device.device_id),
        dtype=(t.dtype.code, t.dtype.bits, t.dtype.lanes),
        shape=tuple(t.shape[:ndim]) if t.shape else (),
        strides=tuple(t.strides[:ndim]) if t.strides else None,
        byte_offset=t.byte_offset,
        data=t.data or 0,
    )


def data_pointer(obj: Any) -> int:
    """The address of the first element, as the producer's DLPack export says.

    ``data + byte_offset`` of the export's ``DLTensor``.  Two arrays with the
    same ``data_pointer`` view the same memory: the public way to see that
    an exchange did not copy, for any producer on any device.

    Raises
    ------
    TypeError, ValueError, BufferError
        As :func:`describe`.

    Examples
    --------
    >>> import numpy as np, dlarray
    >>> from dlarray import abi
    >>> a = np.arange(6.0)
    >>> x = dlarray.from_dlpack(a)
    >>> abi.data_pointer(x) == abi.data_pointer(a) == a.ctypes.data
    True
    >>> abi.data_pointer(x[2:]) - abi.data_pointer(x)     # two float64 on
    16
    """
    d = describe(obj)
    return d.data + d.byte_offset


# --- consuming ----------------------------------------------------------------


def consume(capsule: Any) -> _core.ArrayBase:
    """Import one capsule zero-copy: dlarray's consumer at its smallest.

    This is what :func:`dlarray.from_dlpack` does with the capsule that
    ``x.__dlpack__()`` returns, without the keywords (device, copy, stream).
    The capsule is renamed ``"used_..."``; the new array's owner calls the
    producer's deleter, once, when the last array over the memory dies.

    Raises
    ------
    TypeError
        If ``capsule`` is not a capsule.
    ValueError
        If it was already consumed, or is not a DLPack capsule.
    BufferError
        If the tensor cannot be imported (a device dlarray has no memory
        family for, vector lanes, a layout out of bounds, a major version
        newer than dlarray's); the producer's deleter has then been called.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray import abi
    >>> capsule = dlarray.arange(3.0).__dlpack__(max_version=(1, 3))
    >>> y = abi.consume(capsule)
    >>> y
    dlarray.asarray([0.0, 1.0, 2.0], dtype=dlarray.float64)
    >>> abi.capsule_name(capsule)                     # taken: the consumer owns it
    'used_dltensor_versioned'
    """
    _check_capsule(capsule)
    return _core.consume(capsule)


def owner(x: _core.ArrayBase) -> Any:
    """The object that keeps ``x``'s memory alive.

    - For an array dlarray allocated: its storage (a :mod:`dlarray.storage`
      class, with ``pointer``, ``nbytes``, ``device``).
    - For an imported array: an ``ImportedTensor``, which holds the
      producer's managed tensor and calls its deleter when it dies.  Its
      attributes say what the import saw: ``versioned`` (the capsule's
      struct), ``version`` (the producer's DLPack version, ``(0, 0)`` for
      the legacy struct, which carries none), ``flags``, ``pointer`` (``data + byte_offset``),
      ``device``, and ``via_table`` (``True`` when the tensor came through
      the producer's C exchange table instead of a capsule).

    Views share their base array's owner.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray.

    Examples
    --------
    >>> import numpy as np, dlarray
    >>> from dlarray import abi
    >>> y = dlarray.from_dlpack(np.arange(3.0))
    >>> o = abi.owner(y)
    >>> type(o).__name__, o.versioned, o.version, o.via_table   # NumPy speaks DLPack 1.0
    ('ImportedTensor', True, (1, 0), False)
    >>> abi.owner(y[1:]) is o
    True
    """
    if not isinstance(x, _core.ArrayBase):
        raise TypeError(f"owner() takes a DLArray, got {type(x).__name__}")
    return x._owner


# --- a producer made of ctypes --------------------------------------------------
# The deleter and the capsule destructor are module-level callbacks that live
# as long as the process: an array importing a toy capsule may outlive the
# ToyProducer that made it, and its death must not call freed code.

_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)  # void (*)(PyObject *capsule)
_PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, _Destructor)(
    ("PyCapsule_New", ctypes.pythonapi)
)
# The destructor gets the dying capsule as a raw address (making an object
# of it again would revive it), so these take the address.
_RawGetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_GetName", ctypes.pythonapi)
)
_RawGetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)

# A capsule keeps the pointer to its name, not a copy: the names live forever.
_NAMES: dict[bytes, Any] = {}
_LIVE: dict[
    int, tuple[ctypes.Structure, Any, ToyProducer]
] = {}  # address -> (struct, memory, maker)
#: Reentrant, because a deleter can run inside another: the garbage
#: collector (or, on a free-threaded build, the merging of reference counts
#: dropped by other threads) may free an imported array at any bytecode,
#: inside this lock too, and that array's release calls _toy_deleter again
#: on the same thread.  A plain Lock deadlocked there (seen on 3.13t).
_LIVE_LOCK = threading.RLock()


def _name_buffer(name: bytes) -> Any:
    if name not in _NAMES:
        _NAMES[name] = ctypes.create_string_buffer(name)
    return _NAMES[name]


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)  # type: ignore[untyped-decorator]
def _toy_deleter(address: int) -> None:
    # ctypes takes the GIL for a callback, so a consumer may call this from
    # any thread.  A real deleter frees its struct; this one forgets it.
    with _LIVE_LOCK:
        entry = _LIVE.pop(address, None)
    if entry is not None:
        entry[2].deleted.append(address)


@_Destructor  # type: ignore[untyped-decorator]
def _toy_destroy_capsule(capsule: int) -> None:
    name = _RawGetName(capsule)
    if name in (b"dltensor", b"dltensor_versioned"):  # nobody took it: release it
        _toy_deleter(_RawGetPointer(capsule, name))


def _numpy_dtype_triple(memory: Any) -> tuple[int, int, int]:
    codes = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
    kind = memory.dtype.kind
    if kind not in codes:
        raise TypeError(
            f"no DLPack type code for NumPy dtype {memory.dtype}: pass dtype=(code, bits, lanes)"
        )
    return (codes[kind], memory.dtype.itemsize * 8, 1)


class ToyProducer:
    """A DLPack producer made of ctypes, whose capsules may hold any fields.

    Each :meth:`capsule` builds a managed struct field by field over a NumPy
    array's memory, exactly as given: wrong versions, flags, strides or
    dtypes included, to see how a consumer reacts.  Its deleter records the
    struct's address in :attr:`deleted` instead of freeing memory, and its
    capsule destructor follows the rule of DLPack's Python specification:
    release the tensor only if nobody renamed the capsule.

    Attributes
    ----------
    deleted : list of int
        The address of each managed struct whose deleter ran, in order.

    Raises
    ------
    TypeError
        If given any argument: the fields go to :meth:`capsule`.

    Notes
    -----
    The deleter and the capsule destructor are Python functions called
    from C.  Python code cannot run while an exception propagates without
    disturbing it, so let a toy capsule die outside ``except`` blocks.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray import abi
    >>> toy = abi.ToyProducer()
    >>> memory = np.arange(6.0)
    >>> capsule = toy.capsule(memory, shape=(2, 3))
    >>> y = abi.consume(capsule)
    >>> y.shape, np.from_dlpack(y)[1, 2], toy.deleted
    ((2, 3), np.float64(5.0), [])
    >>> del y                       # the consumer calls the deleter, once
    >>> len(toy.deleted), toy.alive
    (1, 0)
    """

    def __init__(self) -> None:
        self.deleted: list[int] = []

    @property
    def alive(self) -> int:
        """How many of this producer's tensors have not been released yet.

        Examples
        --------
        >>> import numpy as np
        >>> from dlarray import abi
        >>> toy = abi.ToyProducer()
        >>> capsule = toy.capsule(np.zeros(2))
        >>> toy.alive
        1
        >>> del capsule                   # unconsumed: its destructor releases it
        >>> toy.alive
        0
        """
        with _LIVE_LOCK:
            entries = list(_LIVE.values())  # (one C call: a release cannot interleave)
        return sum(1 for entry in entries if entry[2] is self)

    def capsule(
        self,
        memory: Any,
        shape: tuple[int, ...] | None = None,
        strides: tuple[int, ...] | str | None = "contiguous",
        *,
        versioned: bool = True,
        version: tuple[int, int] = DLPACK_VERSION,
        flags: int = 0,
        dtype: tuple[int, int, int] | None = None,
        byte_offset: int = 0,
        device: tuple[int, int] = (1, 0),
    ) -> Any:
        """A new capsule over ``memory`` (a NumPy array), built field by field.

        Parameters
        ----------
        memory
            A NumPy array whose memory the tensor describes; the capsule
            keeps it alive until the deleter runs.
        shape
            The tensor's shape; ``memory.shape`` by default.
        strides
            In elements.  ``"contiguous"`` (the default) writes row-major
            strides for ``shape``; ``None`` leaves a NULL pointer (legal
            only before DLPack 1.2, or for ``ndim == 0``).
        versioned
            ``DLManagedTensorVersioned`` in a ``"dltensor_versioned"``
            capsule, or the legacy ``DLManagedTensor`` in ``"dltensor"``.
        version, flags
            The versioned struct's header fields.
        dtype
            ``(code, bits, lanes)``; by default the NumPy dtype's triple.
        byte_offset
            Added to ``data`` (which is ``memory``'s address) to reach the
            first element.
        device
            ``(device_type, device_id)``; kDLCPU by default.

        Raises
        ------
        TypeError
            If ``memory`` is not a NumPy array, or its dtype has no DLPack
            type code and ``dtype`` is not given.

        Examples
        --------
        >>> import numpy as np
        >>> from dlarray import abi
        >>> toy = abi.ToyProducer()
        >>> c = toy.capsule(np.arange(4, dtype=np.uint8), shape=(2,), strides=(2,), byte_offset=1)
        >>> np.from_dlpack(abi.consume(c)).tolist()       # elements 1 and 3
        [1, 3]
        """
        if not hasattr(memory, "__array_interface__") or not hasattr(memory, "ctypes"):
            raise TypeError(
                f"ToyProducer.capsule() takes a NumPy array, got {type(memory).__name__}"
            )
        shape = tuple(memory.shape) if shape is None else tuple(shape)
        if isinstance(strides, str):  # "contiguous": row-major, in elements
            row_major: list[int] = []
            step = 1
            for extent in reversed(shape):
                row_major.insert(0, step)
                step *= max(extent, 1)
            strides = tuple(row_major)
        m = DLManagedTensorVersioned() if versioned else DLManagedTensor()
        if isinstance(m, DLManagedTensorVersioned):
            m.version = DLPackVersion(*version)
            m.flags = flags
        m.deleter = ctypes.cast(_toy_deleter, ctypes.c_void_p)
        t = m.dl_tensor
        t.data = memory.ctypes.data
        t.byte_offset = byte_offset
        t.device = DLDevice(*device)
        t.ndim = len(shape)
        t.dtype = DLDataType(*(dtype or _numpy_dtype_triple(memory)))
        # The shape and strides arrays must live as long as the struct.
        arrays = [(ctypes.c_int64 * len(shape))(*shape)]
        t.shape = arrays[0]
        if strides is not None:
            arrays.append((ctypes.c_int64 * len(strides))(*strides))
            t.strides = arrays[1]
        address = ctypes.addressof(m)
        with _LIVE_LOCK:
            _LIVE[address] = (m, (memory, arrays), self)
        name = b"dltensor_versioned" if versioned else b"dltensor"
        return _PyCapsule_New(
            address, ctypes.cast(_name_buffer(name), ctypes.c_char_p), _toy_destroy_capsule
        )
