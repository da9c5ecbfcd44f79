"""The probe's cases of the C exchange table (DLPack 1.3's
``__dlpack_c_exchange_api__``).

A producer may offer, on its array type, a table of C functions that
exchange tensors without a capsule.  These cases find the table on the
type of one of the library's host arrays and call each function through
ctypes, with the GIL held (``PYFUNCTYPE``: a function that fails leaves a
Python exception set, which ctypes raises): the export of an array, with
and without ownership, the import back, the allocator with a request it
can meet and one it cannot (its ``SetError`` callback must be called
exactly once), and the current work stream of the host.  A library
without a table is "not supported" in each case.

As a consumer, the library's ``from_dlpack`` is handed a toy producer
whose type carries a table of the probe's own (:func:`_toy_table`): its
``managed_tensor_from_py_object_no_sync`` exports the same tensor as its
``__dlpack__`` (a nonzero ``byte_offset``), from a ToyProducer whose
deleter counts.  The consumer may use either route, but must read the
right elements and release each tensor once, and must not call a table
whose major version is newer than its own.

What the exported tensors hold is compared with the library's own
``__dlpack__(max_version=(1, 3))`` of the same array: the same first
element, device, dtype, shape and strides (NULL strides read as
row-major).  Calling a function with arguments the specification forbids
(another type's object, NULL) is undefined there, so no case does.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from dlarray import abi
from dlarray._peers import Peer
from dlarray._probe_cases import (
    CPU,
    DEVIATION,
    NOT_SUPPORTED,
    OK,
    Case,
    Outcome,
    ToyArray,
    consume_toy,
    error_line,
    finish_toy,
    first_line,
    float64_memory,
    host_array,
    judge_read,
    producer_case,
)

#: The capsule's name in DLPack 1.3, and the attribute (an int) of DLPack 1.2.
TABLE_NAME = "dlpack_exchange_api"
OLD_ATTRIBUTE = "__c_dlpack_exchange_api__"
#: The functions the specification says must not be NULL.
REQUIRED = ("managed_tensor_allocator", "managed_tensor_from_py_object_no_sync",
            "managed_tensor_to_py_object_no_sync", "current_work_stream")  # fmt: skip

_Managed = ctypes.POINTER(abi.DLManagedTensorVersioned)
_SetError = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
_ALLOCATOR = ctypes.PYFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(abi.DLTensor), ctypes.POINTER(_Managed), ctypes.c_void_p,
    _SetError,
)  # fmt: skip
_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(_Managed))
#: The out parameter is an address: it receives a new reference (see _steal).
_TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, _Managed, ctypes.POINTER(ctypes.c_void_p))
_DLTENSOR_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(abi.DLTensor))
_WORK_STREAM = ctypes.PYFUNCTYPE(
    ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p)
)
_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)
_DecRef = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(("Py_DecRef", ctypes.pythonapi))


class _NoTable(Exception):
    """The array's type has no C exchange table (the case is not supported)."""


class _NullFunction(Exception):
    """A function the specification says must be set is NULL (a deviation)."""


def _table(array: Any) -> tuple[abi.DLPackExchangeAPI, str]:
    """The table of ``array``'s type, and where it was found.

    Raises
    ------
    _NoTable
        If the type has neither attribute.
    ValueError
        If the attribute holds no table (the case's deviation).
    """
    kind = type(array)
    attribute = getattr(kind, "__dlpack_c_exchange_api__", None)
    if attribute is not None:
        if type(attribute).__name__ != "PyCapsule":
            raise ValueError(f"__dlpack_c_exchange_api__ is a {type(attribute).__name__}")
        name = abi.capsule_name(attribute)
        if name != TABLE_NAME:
            raise ValueError(f"__dlpack_c_exchange_api__ is a capsule named {name!r}")
        address = _GetPointer(attribute, TABLE_NAME.encode())
        where = "a 'dlpack_exchange_api' capsule"
    else:
        address = getattr(kind, OLD_ATTRIBUTE, None)
        if address is None:
            raise _NoTable
        if type(address) is not int or address == 0:
            raise ValueError(f"{OLD_ATTRIBUTE} is {address!r}, not a table's address")
        where = f"DLPack 1.2's {OLD_ATTRIBUTE} (an int)"
    return abi.DLPackExchangeAPI.from_address(address), where


def _function(table: abi.DLPackExchangeAPI, name: str, prototype: Any) -> Any:
    """The table's function ``name``, callable; None where it is NULL and
    may be, :class:`_NullFunction` where it must not be."""
    address = getattr(table, name)
    if not address and name in REQUIRED:
        raise _NullFunction(f"the table's {name} is NULL; the specification says it must be set")
    return None if not address else prototype(address)


def _first(t: abi.DLTensor) -> int:
    return (t.data or 0) + t.byte_offset


def _layout(t: abi.DLTensor) -> tuple[Any, ...]:
    """What a consumer reads of a tensor: first element, device, dtype,
    shape, strides (NULL strides as the row-major ones)."""
    shape = tuple(t.shape[: t.ndim]) if t.ndim else ()
    if t.strides:
        strides = tuple(t.strides[: t.ndim])
    else:
        strides = tuple(int(np.prod(shape[i + 1 :], dtype=np.int64)) for i in range(len(shape)))
    dtype = (t.dtype.code, t.dtype.bits, t.dtype.lanes)
    return _first(t), (t.device.device_type, t.device.device_id), dtype, shape, strides


def _expected(array: Any) -> tuple[Any, ...]:
    """The same, from the library's own ``__dlpack__(max_version=(1, 3))``."""
    capsule = array.__dlpack__(max_version=(1, 3))
    return _layout(abi.managed(capsule).dl_tensor)


def _free(managed: Any) -> None:
    """Call a managed tensor's deleter, as its consumer must once."""
    if managed and managed.contents.deleter:
        _Deleter(managed.contents.deleter)(ctypes.addressof(managed.contents))


def _steal(address: int) -> Any:
    """The object at ``address``, taking over the new reference a function
    wrote there (ctypes' conversion adds one of its own)."""
    obj = ctypes.cast(address, ctypes.py_object).value
    _DecRef(address)
    return obj


def _with_table(
    check: Callable[[Peer, ModuleType, Any, abi.DLPackExchangeAPI], Outcome],
) -> Callable[[Peer, ModuleType], Outcome]:
    """A case's run from ``check(peer, module, array, table)``: not
    supported without a table (or where a function refuses with
    ``BufferError``), a deviation where a function fails otherwise."""

    def with_array(peer: Peer, module: ModuleType, array: Any) -> Outcome:
        try:
            table, _ = _table(array)
        except _NoTable:
            return Outcome(NOT_SUPPORTED, "its arrays' type has no C exchange table")
        except ValueError as exc:
            return Outcome(DEVIATION, f"no table to call: {exc}")
        try:
            return check(peer, module, array, table)
        except _NullFunction as exc:
            return Outcome(DEVIATION, str(exc))

    return producer_case(with_array)


def _table_case(peer: Peer, module: ModuleType) -> Outcome:
    if "cpu" not in peer.make:
        return Outcome(NOT_SUPPORTED, "makes no host arrays here")
    try:
        table, where = _table(host_array(peer, module))
    except _NoTable:
        return Outcome(NOT_SUPPORTED, "its arrays' type has no C exchange table")
    except ValueError as exc:
        return Outcome(DEVIATION, str(exc))
    version = (table.header.version.major, table.header.version.minor)
    if version[0] != 1:
        return Outcome(NOT_SUPPORTED, f"a table of version {version}, not major version 1")
    missing = [name for name in REQUIRED if not getattr(table, name)]
    if missing:
        return Outcome(DEVIATION, f"{where}, version {version}, with NULL {', '.join(missing)}")
    optional = "" if table.dltensor_from_py_object_no_sync else "; no dltensor_from_py (allowed)"
    return Outcome(OK, f"{where}, version {version[0]}.{version[1]}{optional}")


def _from_py(peer: Peer, module: ModuleType, array: Any, table: abi.DLPackExchangeAPI) -> Outcome:
    out = _Managed()
    status = _function(table, "managed_tensor_from_py_object_no_sync", _FROM_PY)(array, out)
    if status != 0 or not out:
        return Outcome(DEVIATION, f"returns {status} with no exception set")
    try:
        got, expected = _layout(out.contents.dl_tensor), _expected(array)
        version = (out.contents.version.major, out.contents.version.minor)
    finally:
        _free(out)
    if version[0] != 1:
        return Outcome(DEVIATION, f"a tensor of version {version}")
    if got != expected:
        return Outcome(DEVIATION, f"describes {got}, where __dlpack__ describes {expected}")
    return Outcome(OK, "the tensor __dlpack__ describes, owned until its deleter")


def _dltensor_from_py(
    peer: Peer, module: ModuleType, array: Any, table: abi.DLPackExchangeAPI
) -> Outcome:
    function = _function(table, "dltensor_from_py_object_no_sync", _DLTENSOR_FROM_PY)
    if function is None:
        return Outcome(NOT_SUPPORTED, "the table's dltensor_from_py_object_no_sync is NULL")
    out = abi.DLTensor()
    status = function(array, ctypes.byref(out))
    if status != 0:
        return Outcome(DEVIATION, f"returns {status} with no exception set")
    got, expected = _layout(out), _expected(array)
    if got != expected:
        return Outcome(DEVIATION, f"describes {got}, where __dlpack__ describes {expected}")
    return Outcome(OK, "the tensor __dlpack__ describes, owned by the array")


def _to_py(peer: Peer, module: ModuleType, array: Any, table: abi.DLPackExchangeAPI) -> Outcome:
    managed = _Managed()
    status = _function(table, "managed_tensor_from_py_object_no_sync", _FROM_PY)(array, managed)
    if status != 0 or not managed:
        return Outcome(NOT_SUPPORTED, "managed_tensor_from_py gives no tensor to import")
    first = _first(managed.contents.dl_tensor)
    out = ctypes.c_void_p()
    status = _function(table, "managed_tensor_to_py_object_no_sync", _TO_PY)(managed, out)
    if status != 0 or not out.value:  # the function took the tensor: it is not freed here
        return Outcome(DEVIATION, f"returns {status} with no exception set")
    imported = _steal(out.value)
    if type(imported) is not type(array):
        return Outcome(
            DEVIATION, f"makes a {type(imported).__name__}, not a {type(array).__name__}"
        )
    if peer.pointer(imported) != first:
        return Outcome(DEVIATION, "makes an array over other memory than the tensor's")
    if not np.array_equal(peer.to_numpy(imported), peer.to_numpy(array)):
        return Outcome(DEVIATION, "makes an array with other values than the tensor's")
    del imported
    gc.collect()
    return Outcome(OK, f"one of its own {type(array).__name__} over the tensor's memory")


def _allocate(
    table: abi.DLPackExchangeAPI, device: tuple[int, int]
) -> tuple[int, Any, list[tuple[str, str]]]:
    """Ask the allocator for a float32 (2, 3) tensor on ``device``: its
    return value, its tensor, and each SetError call (kind, message)."""
    shape = (ctypes.c_int64 * 2)(2, 3)
    prototype = abi.DLTensor(
        data=None, device=abi.DLDevice(*device), ndim=2, dtype=abi.DLDataType(2, 32, 1),
        shape=shape, strides=None, byte_offset=0,
    )  # fmt: skip
    errors: list[tuple[str, str]] = []

    def set_error(_context: Any, kind: bytes | None, message: bytes | None) -> None:
        # As of an exception's message (PyTorch's next lines are a C++ backtrace).
        said = first_line((message or b"").decode(errors="replace"))
        errors.append(((kind or b"").decode(errors="replace"), said))

    callback = _SetError(set_error)
    out = _Managed()
    allocator = _function(table, "managed_tensor_allocator", _ALLOCATOR)
    try:
        status = allocator(ctypes.byref(prototype), ctypes.byref(out), None, callback)
    except Exception as exc:  # it set a Python exception besides (or instead of) SetError
        status = -1
        errors.append(("(a Python exception)", error_line(exc)))
    return status, out, errors


def _allocator(peer: Peer, module: ModuleType, array: Any, table: abi.DLPackExchangeAPI) -> Outcome:
    status, out, errors = _allocate(table, CPU)
    if status != 0 or not out:
        said = "; ".join(f"SetError({k!r}, {m!r})" for k, m in errors) or "SetError not called"
        return Outcome(DEVIATION, f"returns {status} and no tensor; {said}")
    try:
        t = out.contents.dl_tensor
        _, device, dtype, shape, strides = _layout(t)
        data = t.data
    finally:
        _free(out)
    if errors:
        return Outcome(DEVIATION, f"succeeds but calls SetError: {errors}")
    if (device, dtype, shape, strides) != (CPU, (2, 32, 1), (2, 3), (3, 1)) or not data:
        return Outcome(
            DEVIATION, f"allocates device {device}, dtype {dtype}, shape {shape}, strides {strides}"
        )
    return Outcome(OK, "a new row-major float32 (2, 3) host tensor")


def _allocator_error(
    peer: Peer, module: ModuleType, array: Any, table: abi.DLPackExchangeAPI
) -> Outcome:
    status, out, errors = _allocate(table, (99, 0))
    if status == 0:
        _free(out)
        return Outcome(DEVIATION, "returns 0 for device type 99")
    if len(errors) != 1:
        return Outcome(DEVIATION, f"returns {status} and calls SetError {len(errors)} times")
    kind, message = errors[0]
    return Outcome(OK, f"returns {status}; SetError({kind!r}, {message!r})")


def _work_stream(
    peer: Peer, module: ModuleType, array: Any, table: abi.DLPackExchangeAPI
) -> Outcome:
    stream = ctypes.c_void_p()
    status = _function(table, "current_work_stream", _WORK_STREAM)(
        CPU[0], CPU[1], ctypes.byref(stream)
    )
    if status != 0:
        return Outcome(DEVIATION, f"returns {status} with no exception set")
    return Outcome(OK, f"0, stream {'NULL' if not stream.value else hex(stream.value)}")


# ---- the consumer side: a toy producer with a table ----

_PyCapsule_New = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p
)(("PyCapsule_New", ctypes.pythonapi))
_PyCapsule_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi)
)
#: Names a capsule keeps pointers to, and every ctypes object a consumer may
#: still call (tables, callbacks): alive for the whole process.
_FOREVER: list[Any] = [
    ctypes.create_string_buffer(TABLE_NAME.encode()),
    ctypes.create_string_buffer(b"used_dltensor_versioned"),
]
_TABLE_FUNCTIONS = ("managed_tensor_from_py_object_no_sync", "current_work_stream",
                    "managed_tensor_allocator", "managed_tensor_to_py_object_no_sync")  # fmt: skip


class TableToy(ToyArray):
    """A toy producer whose type carries a table (made by :func:`_toy_class`).

    The table's ``managed_tensor_from_py_object_no_sync`` hands out a tensor
    from the same ToyProducer as ``__dlpack__`` does, so the deleter count
    (``made`` and ``toy.deleted``) covers both routes; ``table_calls``
    counts that function's calls."""

    table_calls = 0

    def table_export(self) -> int:
        """A new tensor for the table: the address of its managed struct,
        owned by the caller (the capsule it was made in is marked taken)."""
        self.table_calls += 1
        capsule = self.toy.capsule(self.memory, device=self.device, **self.fields)
        address = ctypes.addressof(abi.managed(capsule))
        _PyCapsule_SetName(capsule, ctypes.cast(_FOREVER[1], ctypes.c_char_p))
        self.made += 1
        return address


def _toy_table(major: int) -> int:
    """A table of header version ``(major, 3)`` whose from_py serves a
    :class:`TableToy`; its other functions fail (a consumer needs none of
    them to import); the table's address."""

    def from_py(obj: Any, out: Any) -> int:
        out[0] = ctypes.cast(obj.table_export(), _Managed)
        return 0

    def work_stream(_type: int, _id: int, out: Any) -> int:
        out[0] = None
        return 0

    def allocator(_prototype: Any, _out: Any, context: Any, set_error: Any) -> int:
        set_error(context, b"BufferError", b"the probe's toy table allocates nothing")
        return -1

    def to_py(_tensor: Any, _out: Any) -> int:
        return -1  # never asked: a consumer imports into its own arrays

    table = abi.DLPackExchangeAPI()
    table.header.version.major, table.header.version.minor = major, 3
    callbacks = [_FROM_PY(from_py), _WORK_STREAM(work_stream), _ALLOCATOR(allocator),
                 _TO_PY(to_py)]  # fmt: skip
    for name, callback in zip(_TABLE_FUNCTIONS, callbacks, strict=True):
        setattr(table, name, ctypes.cast(callback, ctypes.c_void_p).value)
    _FOREVER.extend([table, *callbacks])
    return ctypes.addressof(table)


def _toy_class(major: int) -> type[TableToy]:
    """A new :class:`TableToy` subclass carrying a table of major version ``major``."""
    capsule = _PyCapsule_New(_toy_table(major), ctypes.cast(_FOREVER[0], ctypes.c_char_p), None)
    kind = type(f"TableToy{major}", (TableToy,), {"__dlpack_c_exchange_api__": capsule})
    _FOREVER.append(kind)
    return kind


def _table_import(major: int) -> Callable[[Peer, ModuleType], Outcome]:
    def run(peer: Peer, module: ModuleType) -> Outcome:
        memory = float64_memory()
        toy = _toy_class(major)(memory, shape=(4,), byte_offset=2 * 8)
        result, exc = consume_toy(peer, module, toy)
        verdict = judge_read(peer, result, exc, memory[2:6], True, False)
        del result, exc
        route = "through the table" if toy.table_calls else "through __dlpack__"
        if major != 1 and toy.table_calls:
            verdict = Outcome(DEVIATION, f"calls the functions of a table of version ({major}, 3)")
        elif verdict.verdict == OK:
            verdict = Outcome(OK, f"{verdict.observed}, {route}")
        return finish_toy(toy, verdict)

    return run


#: The cases, in the order a child runs them (after the Python protocol's).
EXCHANGE_CASES: tuple[Case, ...] = (
    Case(
        "c_api_table",
        "producer",
        "type(array).__dlpack_c_exchange_api__",
        "a capsule named 'dlpack_exchange_api' holding a table of major version 1 whose "
        "functions are set (dltensor_from_py_object_no_sync may be NULL)",
        _table_case,
    ),
    Case(
        "c_api_from_py",
        "producer",
        "managed_tensor_from_py_object_no_sync(array, &out)",
        "0, and an owned tensor that describes the array as __dlpack__ does",
        _with_table(_from_py),
    ),
    Case(
        "c_api_dltensor_from_py",
        "producer",
        "dltensor_from_py_object_no_sync(array, &tensor)",
        "0, and the array's DLTensor as __dlpack__ describes it (or a NULL function)",
        _with_table(_dltensor_from_py),
    ),
    Case(
        "c_api_to_py",
        "producer",
        "managed_tensor_to_py_object_no_sync(tensor, &object) of an exported tensor",
        "0, and one of the library's arrays over the tensor's memory",
        _with_table(_to_py),
    ),
    Case(
        "c_api_allocator",
        "producer",
        "managed_tensor_allocator for a float32 (2, 3) host tensor",
        "0, and a new row-major tensor of that dtype, shape and device; SetError not called",
        _with_table(_allocator),
    ),
    Case(
        "c_api_allocator_error",
        "producer",
        "managed_tensor_allocator for device type 99",
        "a non-zero return, with SetError called exactly once",
        _with_table(_allocator_error),
    ),
    Case(
        "c_api_import",
        "consumer",
        "a producer whose type's table exports 4 float64 at byte_offset = 2 elements, as its "
        "__dlpack__ does",
        "imports the right elements, through the table or __dlpack__; each tensor released once",
        _table_import(1),
    ),
    Case(
        "c_api_import_newer_major",
        "consumer",
        "the same producer with a table of version (2, 3)",
        "the table's major version is checked before it is used: its functions are not called "
        "(__dlpack__ may be)",
        _table_import(2),
    ),
    Case(
        "c_api_work_stream",
        "producer",
        "current_work_stream(kDLCPU, 0, &stream)",
        "0 (a host's stream may be NULL)",
        _with_table(_work_stream),
    ),
)
