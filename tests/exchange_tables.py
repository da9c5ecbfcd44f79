"""DLPack C exchange tables through ctypes, for tests/protocols/test_exchange_table.py.

Four things live here:

* Calling a table (dlarray's, or any producer's): :class:`ExchangeAPI`
  reads the struct at an address and calls each function through a
  ``PYFUNCTYPE`` prototype, so the GIL stays held, as the functions need.
  The allocator can also be called through ``CFUNCTYPE`` (GIL released).
* :func:`call_reporting_status`: a call that returns *both* the C return
  value and the exception the function left set (see its docstring for why
  ``PYFUNCTYPE`` alone cannot).
* Fake producers: :class:`FakeTable` is a ``DLPackExchangeAPI`` whose
  functions are Python callbacks exporting a NumPy array's memory with a
  counting deleter; :func:`producer_class` makes a fresh
  :class:`FakeProducer` subclass carrying a table on its type.
* dlarray's C API for extensions (``dlarray._core._C_API``): the
  :class:`DLArrayCAPI` and :class:`DLArrayBorrowed` mirrors of
  ``dlarray_capi.h`` and :func:`dlarray_capi`.

The DLPack structs themselves come from tests/abi.py (written from the
DLPack header, not from dlarray's).

Two limits of callbacks written in Python, and how the fakes get around
them:

* A ctypes callback cannot return with a Python exception set: an exception
  raised in it is printed as "unraisable" and cleared, and one set through
  ``ctypes.pythonapi`` is raised at once inside the callback.  So the mode
  that must return -1 *with* an exception set (``from_py="raise"``) uses a C
  function instead of a callback: CPython's ``PyObject_IsTrue``, whose first
  parameter is the object, like ``managed_tensor_from_py_object_no_sync``'s.
  It calls ``FakeProducer.__bool__``, which raises the exception the test gave
  the producer, and returns -1 with that very exception set.  The second
  argument (``out``) is ignored: a C function called with more arguments than
  it declares ignores the extra ones in the C calling conventions of x86-64
  and AArch64 (the caller cleans up), and ``out`` stays NULL.
* Every ctypes object a C caller may still reach (the table, its callbacks,
  each managed tensor until its deleter) is kept alive here: tables and
  producer classes for the whole session (dlarray caches a type's table), the
  tensors until their deleter runs.
"""

from __future__ import annotations

import _ctypes
import ctypes
import functools
import platform
import sys
from typing import Any

import abi
import numpy as np

import dlarray

EXCHANGE_API_NAME = b"dlpack_exchange_api"
CAPI_NAME = b"dlarray._core._C_API"

kDLCPU = abi.kDLCPU
kDLCUDA = abi.kDLCUDA

# ---- the table's function types ----

ManagedPtr = ctypes.POINTER(abi.DLManagedTensorVersioned)

#: void (*SetError)(void *error_ctx, const char *kind, const char *message)
SetErrorFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)

_ALLOCATOR_ARGS = (ctypes.POINTER(abi.DLTensor), ctypes.POINTER(ManagedPtr), ctypes.c_void_p)
#: managed_tensor_allocator, for a callback or a call with the GIL held...
ALLOCATOR = ctypes.PYFUNCTYPE(ctypes.c_int, *_ALLOCATOR_ARGS, SetErrorFn)
#: ...and for a call with the GIL released (the spec lets callers hold none).
ALLOCATOR_NOGIL = ctypes.CFUNCTYPE(ctypes.c_int, *_ALLOCATOR_ARGS, SetErrorFn)
FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ManagedPtr))
#: The out parameter is a raw address: it receives a *new* reference, which
#: a ``py_object`` out parameter would leak (see :func:`steal_object`).
TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ManagedPtr, ctypes.POINTER(ctypes.c_void_p))
DLTENSOR_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(abi.DLTensor))
WORK_STREAM = ctypes.PYFUNCTYPE(
    ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p)
)

FUNCTION_NAMES = (
    "managed_tensor_allocator",
    "managed_tensor_from_py_object_no_sync",
    "managed_tensor_to_py_object_no_sync",
    "dltensor_from_py_object_no_sync",
    "current_work_stream",
)

# ---- the CPython API used here ----

_py = ctypes.pythonapi

PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _py)
)
PyErr_Occurred = ctypes.PYFUNCTYPE(ctypes.c_void_p)(("PyErr_Occurred", _py))
_Py_DecRef = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_DecRef", _py))
#: The C function standing in for a failing managed_tensor_from_py_object_no_sync.
PY_OBJECT_IS_TRUE = ctypes.cast(_py.PyObject_IsTrue, ctypes.c_void_p).value


def address_of(function: Any) -> int:
    """The address of a ctypes function pointer or callback."""
    return ctypes.cast(function, ctypes.c_void_p).value or 0


def capsule_address(capsule: Any, name: bytes = EXCHANGE_API_NAME) -> int:
    """The pointer in ``capsule`` (0 when the name does not match)."""
    try:
        return PyCapsule_GetPointer(capsule, name) or 0
    except ValueError:  # PyCapsule_GetPointer's error for a wrong name
        return 0


def steal_object(address: int) -> Any:
    """The object at ``address``, taking over the reference a C function
    gave the caller (a ``PyObject **`` out parameter holds a new reference)."""
    cell = ctypes.c_void_p(address)
    obj = ctypes.py_object.from_buffer(cell).value  # a reference of our own
    _Py_DecRef(obj)  # drop the C function's: ``obj`` now stands for it
    return obj


def _int64s(pointer: Any, n: int) -> list[int] | None:
    if not pointer:
        return None
    return [pointer[i] for i in range(n)]


def tensor_fields(t: abi.DLTensor) -> dict[str, Any]:
    """A DLTensor's fields as plain Python values (as abi.read_capsule)."""
    return {
        "data": t.data or 0,
        "byte_offset": t.byte_offset,
        "device": (t.device.device_type, t.device.device_id),
        "ndim": t.ndim,
        "dtype": (t.dtype.code, t.dtype.bits, t.dtype.lanes),
        "shape": _int64s(t.shape, max(t.ndim, 0)),
        "strides": _int64s(t.strides, max(t.ndim, 0)),
        "shape_address": ctypes.cast(t.shape, ctypes.c_void_p).value,
        "strides_address": ctypes.cast(t.strides, ctypes.c_void_p).value,
    }


def managed_fields(m: Any) -> dict[str, Any]:
    """A DLManagedTensorVersioned's fields (``m``: a pointer or the struct)."""
    if isinstance(m, ManagedPtr):
        m = m.contents
    return {
        **tensor_fields(m.dl_tensor),
        "version": (m.version.major, m.version.minor),
        "flags": m.flags,
        "manager_ctx": m.manager_ctx,
        "deleter": address_of(m.deleter),
        "address": ctypes.addressof(m),
    }


def call_deleter(m: Any) -> None:
    """Run a managed tensor's deleter as its owner does (once)."""
    abi.VersionedDeleter(m.contents.deleter)(m)


# ---- a call that keeps both the return value and the exception ----

# libffi's ffi_abi value of the platform's C calling convention
# (FFI_DEFAULT_ABI), which libffi's header fixes per architecture.
_FFI_DEFAULT_ABI = {"x86_64": 2, "AMD64": 2, "aarch64": 1, "arm64": 1}
_FFI_CIF_BYTES = 128  # more than any platform's ffi_cif (32 bytes on x86-64)


@functools.cache
def _libffi() -> Any:
    """libffi, as loaded by ctypes (a PyDLL: its calls hold the GIL)."""
    for name in (getattr(_ctypes, "__file__", None), None):
        try:
            lib = ctypes.PyDLL(name)
            lib.ffi_call  # noqa: B018 - fails when this library lacks it
            return lib
        except (OSError, AttributeError):
            continue
    raise RuntimeError("libffi's ffi_call is not reachable from this Python")


def call_reporting_status(address: int, *args: Any) -> tuple[int, BaseException | None]:
    """Call the C function at ``address`` with the GIL held and return
    ``(return value, exception it left set or None)``.

    Why not a plain ``PYFUNCTYPE`` call: ctypes checks ``PyErr_Occurred()``
    right after such a call and raises the exception, discarding the return
    value, so a test could not tell "-1 with an exception" from "0 with an
    exception" (``PyErr_Occurred``/``PyErr_Fetch`` afterwards see nothing: the
    exception is already raised).  Here ctypes calls libffi's ``ffi_call``
    instead, which calls the function and writes its return value into a
    buffer of ours *before* ctypes looks for the exception; the exception is
    then caught and returned beside that value.

    ``args`` are ctypes instances: ``c_int32`` is passed as a 32-bit int,
    everything else (``py_object``, ``c_void_p``, pointers) as a pointer.
    The function must return a C ``int``.
    """
    abi_value = _FFI_DEFAULT_ABI.get(platform.machine())
    if abi_value is None or sys.platform == "win32":
        raise RuntimeError(f"libffi's default ABI is not known here ({platform.machine()})")
    lib = _libffi()
    sint32 = ctypes.addressof(ctypes.c_char.in_dll(lib, "ffi_type_sint32"))
    pointer = ctypes.addressof(ctypes.c_char.in_dll(lib, "ffi_type_pointer"))
    arg_types = (ctypes.c_void_p * max(len(args), 1))(
        *[sint32 if isinstance(a, ctypes.c_int32) else pointer for a in args]
    )
    cif = ctypes.create_string_buffer(_FFI_CIF_BYTES)
    prep = lib.ffi_prep_cif
    prep.restype = ctypes.c_int
    prep.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p]
    if prep(cif, abi_value, len(args), sint32, arg_types) != 0:
        raise RuntimeError("ffi_prep_cif failed")
    values = (ctypes.c_void_p * max(len(args), 1))(*[ctypes.addressof(a) for a in args])
    result = ctypes.c_int64(0)  # ffi_arg: an int return is widened to a register
    call = lib.ffi_call
    call.restype = None
    call.argtypes = [ctypes.c_void_p] * 4
    try:
        call(cif, address, ctypes.byref(result), values)
    except BaseException as exc:
        return ctypes.c_int32(result.value & 0xFFFFFFFF).value, exc
    return ctypes.c_int32(result.value & 0xFFFFFFFF).value, None


# ---- calling a table ----


class ExchangeAPI:
    """The DLPackExchangeAPI at ``address``, with a method per function.

    Each method calls through ``PYFUNCTYPE``: an exception the function set
    is raised by the call.  :meth:`status` gives the raw return value too.
    """

    def __init__(self, address: int) -> None:
        if not address:
            raise ValueError("NULL exchange table")
        self.address = address
        self.struct = abi.DLPackExchangeAPI.from_address(address)

    @classmethod
    def of_type(cls, tp: type) -> ExchangeAPI:
        """The table of ``tp``'s 1.3 capsule attribute."""
        return cls(capsule_address(tp.__dlpack_c_exchange_api__))

    @property
    def version(self) -> tuple[int, int]:
        v = self.struct.header.version
        return v.major, v.minor

    @property
    def prev_api(self) -> int:
        return ctypes.cast(self.struct.header.prev_api, ctypes.c_void_p).value or 0

    def pointer(self, name: str) -> int:
        return getattr(self.struct, name) or 0

    def status(self, name: str, *args: Any) -> tuple[int, BaseException | None]:
        """Call function ``name`` through :func:`call_reporting_status`."""
        return call_reporting_status(self.pointer(name), *args)

    def from_py(self, obj: Any) -> Any:
        """managed_tensor_from_py_object_no_sync(obj): the managed tensor."""
        out = ManagedPtr()
        rc = FROM_PY(self.pointer("managed_tensor_from_py_object_no_sync"))(obj, ctypes.byref(out))
        assert rc == 0 and out, f"rc={rc}, out={out}"
        return out

    def dltensor_from_py(self, obj: Any) -> abi.DLTensor:
        """dltensor_from_py_object_no_sync(obj): the filled DLTensor."""
        out = abi.DLTensor()
        rc = DLTENSOR_FROM_PY(self.pointer("dltensor_from_py_object_no_sync"))(
            obj, ctypes.byref(out)
        )
        assert rc == 0, rc
        return out

    def to_py(self, m: Any) -> Any:
        """managed_tensor_to_py_object_no_sync(m) (steals ``m``): the object."""
        out = ctypes.c_void_p()
        rc = TO_PY(self.pointer("managed_tensor_to_py_object_no_sync"))(m, ctypes.byref(out))
        assert rc == 0 and out.value, f"rc={rc}, out={out}"
        return steal_object(out.value)

    def work_stream(self, device_type: int, device_id: int) -> int | None:
        """current_work_stream(device_type, device_id): the stream (None: NULL)."""
        out = ctypes.c_void_p(0xDEAD)  # must be overwritten
        rc = WORK_STREAM(self.pointer("current_work_stream"))(
            device_type, device_id, ctypes.byref(out)
        )
        assert rc == 0, rc
        return out.value

    def allocate(self, prototype: abi.DLTensor, *, gil: bool = True) -> Allocation:
        """managed_tensor_allocator(prototype), reporting errors to a fresh
        :class:`Allocation`.

        ``gil=True`` calls it with the GIL held, through
        :func:`call_reporting_status`, so an exception it wrongly left set is
        caught (``left_exception``) beside its return value.  ``gil=False``
        calls it through ``CFUNCTYPE``, with the GIL released; an exception
        left set in this thread's state then surfaces at the next
        ``PYFUNCTYPE`` call, ``PyErr_Occurred()``, which ctypes follows with
        its own check and raises.
        """
        allocation = Allocation()
        address = self.pointer("managed_tensor_allocator")
        if gil:
            allocation.rc, allocation.left_exception = call_reporting_status(
                address,
                ctypes.pointer(prototype),
                ctypes.pointer(allocation.out),
                ctypes.c_void_p(None),
                allocation.set_error,
            )
            return allocation
        function = ALLOCATOR_NOGIL(address)
        allocation.rc = function(
            ctypes.byref(prototype), ctypes.byref(allocation.out), None, allocation.set_error
        )
        try:
            PyErr_Occurred()
        except BaseException as exc:
            allocation.left_exception = exc
        return allocation


class Allocation:
    """One allocator call: its return value, result and SetError calls."""

    def __init__(self) -> None:
        self.rc: int | None = None
        self.out = ManagedPtr()
        self.errors: list[tuple[str, str]] = []
        self.left_exception: BaseException | None = None
        self.set_error = SetErrorFn(self._on_error)

    def _on_error(self, ctx: Any, kind: bytes, message: bytes) -> None:
        self.errors.append((kind.decode(), message.decode()))


def prototype_tensor(
    shape: tuple[int, ...],
    dtype: tuple[int, int, int],
    device: tuple[int, int] = (kDLCPU, 0),
    *,
    ndim: int | None = None,
    null_shape: bool = False,
) -> abi.DLTensor:
    """A prototype for managed_tensor_allocator (data NULL).  The shape
    array is kept on the returned struct (``_keep``)."""
    t = abi.DLTensor()
    dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    t.ndim = len(shape) if ndim is None else ndim
    t.dtype.code, t.dtype.bits, t.dtype.lanes = dtype
    t.device.device_type, t.device.device_id = device
    if not null_shape:
        t.shape = ctypes.cast(dims, ctypes.POINTER(ctypes.c_int64))
    t._keep = dims  # type: ignore[attr-defined]
    return t


def dlarray_api() -> ExchangeAPI:
    """dlarray's own table (the capsule on the DLArray type)."""
    return ExchangeAPI.of_type(dlarray.DLArray)


# ---- managed tensors over NumPy memory, with a counting deleter ----

_NUMPY_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}

#: Objects C may still reach: kept for the whole session.
_KEEPALIVE: list[Any] = []


def describe(array: np.ndarray, t: abi.DLTensor, *, device: tuple[int, int], lanes: int = 1) -> Any:
    """Fill ``t`` to view ``array``; returns the shape and strides storage
    ``t`` points into, which must outlive it."""
    n = max(array.ndim, 1)
    dims = (ctypes.c_int64 * (2 * n))(*array.shape, *(s // array.itemsize for s in array.strides))
    t.data = array.__array_interface__["data"][0]
    t.device.device_type, t.device.device_id = device
    t.ndim = array.ndim
    t.dtype.code = _NUMPY_CODES[array.dtype.kind]
    t.dtype.bits = array.dtype.itemsize * 8
    t.dtype.lanes = lanes
    t.shape = ctypes.cast(dims, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(ctypes.byref(dims, n * 8), ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0
    return dims


class Exporter:
    """Makes ``DLManagedTensorVersioned`` structs over NumPy arrays.

    Each tensor keeps its array (and its shape and strides arrays) alive
    until its deleter runs; the deleter records the tensor's address.

    Attributes
    ----------
    made : list of int
        The address of each tensor made.
    deleter_calls : list of int
        The address passed to each deleter call.
    callback_errors : list of BaseException
        Errors met inside the deleter (tests assert it stays empty).
    """

    def __init__(self) -> None:
        self.made: list[int] = []
        self.deleter_calls: list[int] = []
        self.callback_errors: list[BaseException] = []
        self._live: dict[int, tuple[Any, ...]] = {}
        self._deleter = abi.VersionedDeleter(self._on_delete)
        _KEEPALIVE.append(self)

    def export(
        self,
        array: np.ndarray,
        *,
        version: tuple[int, int] = (1, 3),
        flags: int | None = None,
        device: tuple[int, int] = (kDLCPU, 0),
        lanes: int = 1,
    ) -> Any:
        """A new managed tensor viewing ``array``; ``flags`` defaults to
        READ_ONLY for a read-only array and 0 otherwise."""
        if flags is None:
            flags = 0 if array.flags.writeable else abi.FLAG_READ_ONLY
        m = abi.DLManagedTensorVersioned()
        m.version.major, m.version.minor = version
        m.flags = flags
        m.deleter = address_of(self._deleter)
        dims = describe(array, m.dl_tensor, device=device, lanes=lanes)
        address = ctypes.addressof(m)
        self._live[address] = (m, dims, array)
        self.made.append(address)
        return ctypes.pointer(m)

    def _on_delete(self, managed: Any) -> None:
        try:
            address = ctypes.cast(managed, ctypes.c_void_p).value
            self.deleter_calls.append(address)
            self._live.pop(address, None)
        except BaseException as exc:  # pragma: no cover - reported by the tests
            self.callback_errors.append(exc)

    def deletes_of(self, m: Any) -> int:
        """How many times the deleter ran for tensor ``m`` (pointer or address)."""
        address = m if isinstance(m, int) else ctypes.addressof(m.contents)
        return self.deleter_calls.count(address)

    @property
    def live(self) -> int:
        """Tensors made whose deleter has not run."""
        return len(self._live)


# ---- fake producers ----


class FakeProducer:
    """A NumPy array behind a DLPack producer whose type may carry a table
    (make one with :func:`producer_class`).

    ``__dlpack__`` works (NumPy's, minus ``stream``, which host data needs no
    ordering for), records its keywords in ``dlpack_calls`` and keeps the
    capsules it made in ``capsules``, so a test sees when and how a consumer
    fell back to it; ``dlpack_error`` makes it raise that instead.
    ``error``: what ``__bool__`` raises, which is what a table in
    ``from_py="raise"`` mode reports (see the module docstring);
    ``bool_calls`` counts those calls.
    """

    def __init__(
        self,
        array: Any,
        *,
        error: BaseException | None = None,
        dlpack_error: BaseException | None = None,
        device: tuple[int, int] = (kDLCPU, 0),
    ) -> None:
        self.array = np.asarray(array)
        self.error = error
        self.dlpack_error = dlpack_error
        self.device = device
        self.dlpack_calls: list[dict[str, Any]] = []
        self.capsules: list[Any] = []
        self.bool_calls = 0

    def __bool__(self) -> bool:
        self.bool_calls += 1
        if self.error is not None:
            raise self.error
        return True

    def __dlpack__(self, **kwargs: Any) -> Any:
        self.dlpack_calls.append(dict(kwargs))
        if self.dlpack_error is not None:
            raise self.dlpack_error
        kwargs.pop("stream", None)
        capsule = self.array.__dlpack__(**kwargs)
        self.capsules.append(capsule)
        return capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device


class FakeTable:
    """A ``DLPackExchangeAPI`` in ctypes memory, its functions Python
    callbacks (``PYFUNCTYPE``) that export a :class:`FakeProducer`'s array.

    Parameters (keyword-only)
    ----------
    version : (major, minor)
        The header's version.
    prev_api : FakeTable, optional
        The older table the header points to (see also :meth:`link`).
    from_py : str
        managed_tensor_from_py_object_no_sync: ``"export"`` (works),
        ``"raise"`` (-1 with the producer's ``error`` set), ``"silent"``
        (-1 with no exception), ``"null"`` (0 but ``*out`` left NULL).
    tensor_version : (major, minor)
        The version written into exported tensors.
    device : (device_type, device_id)
        The device written into exported tensors.
    stream : int
        What current_work_stream answers (0: NULL).
    functions : dict of str to int or None
        Replace functions by raw addresses (None: a NULL pointer).

    Attributes
    ----------
    calls : dict of str to list
        The arguments of each call of each function.
    exporter : Exporter
        The tensors made (``made``) and deleter calls (``deleter_calls``).
    callback_errors : list of BaseException
        Errors met inside the callbacks (tests assert it stays empty).
    """

    def __init__(
        self,
        *,
        version: tuple[int, int] = (1, 3),
        prev_api: FakeTable | None = None,
        from_py: str = "export",
        tensor_version: tuple[int, int] = (1, 3),
        device: tuple[int, int] = (kDLCPU, 0),
        stream: int = 0,
        functions: dict[str, int | None] | None = None,
    ) -> None:
        self.from_py_mode = from_py
        self.tensor_version = tensor_version
        self.device = device
        self.stream = stream
        self.exporter = Exporter()
        self.calls: dict[str, list[Any]] = {name: [] for name in FUNCTION_NAMES}
        self.callback_errors: list[BaseException] = []
        self.struct = abi.DLPackExchangeAPI()
        self.struct.header.version.major, self.struct.header.version.minor = version
        self._callbacks = {
            "managed_tensor_allocator": ALLOCATOR(self._allocator),
            "managed_tensor_from_py_object_no_sync": FROM_PY(self._from_py),
            "managed_tensor_to_py_object_no_sync": TO_PY(self._to_py),
            "dltensor_from_py_object_no_sync": DLTENSOR_FROM_PY(self._dltensor_from_py),
            "current_work_stream": WORK_STREAM(self._work_stream),
        }
        for name, callback in self._callbacks.items():
            setattr(self.struct, name, address_of(callback))
        if from_py == "raise":
            self.struct.managed_tensor_from_py_object_no_sync = PY_OBJECT_IS_TRUE
        for name, address in (functions or {}).items():
            setattr(self.struct, name, address)
        if prev_api is not None:
            self.link(prev_api)
        _KEEPALIVE.append(self)

    @property
    def address(self) -> int:
        return ctypes.addressof(self.struct)

    def link(self, older: FakeTable | None) -> None:
        """Point header.prev_api at ``older`` (None: NULL)."""
        self.struct.header.prev_api = (
            ctypes.pointer(older.struct.header) if older is not None else None
        )

    def capsule(self, name: bytes = EXCHANGE_API_NAME) -> Any:
        """A capsule holding the table (``__dlpack_c_exchange_api__``)."""
        return make_capsule(self.address, name)

    # -- the callbacks (run from C, with the GIL) --

    def _from_py(self, obj: Any, out: Any) -> int:
        self.calls["managed_tensor_from_py_object_no_sync"].append(obj)
        if self.from_py_mode == "silent":
            return -1
        if self.from_py_mode == "null":
            return 0
        try:
            m = self.exporter.export(obj.array, version=self.tensor_version, device=self.device)
            out[0] = m
            return 0
        except BaseException as exc:  # pragma: no cover - reported by the tests
            self.callback_errors.append(exc)
            return -1

    def _dltensor_from_py(self, obj: Any, out: Any) -> int:
        self.calls["dltensor_from_py_object_no_sync"].append(obj)
        try:
            # A borrowed view: its shape and strides live on the producer
            # (until its next call), not in a managed tensor.
            t = out.contents
            obj._dims = describe(obj.array, t, device=self.device)
            return 0
        except BaseException as exc:  # pragma: no cover - reported by the tests
            self.callback_errors.append(exc)
            return -1

    def _work_stream(self, device_type: int, device_id: int, out: Any) -> int:
        self.calls["current_work_stream"].append((device_type, device_id))
        out[0] = self.stream or None
        return 0

    def _to_py(self, m: Any, out: Any) -> int:  # pragma: no cover - never asked for
        self.calls["managed_tensor_to_py_object_no_sync"].append(m)
        return -1

    def _allocator(self, *args: Any) -> int:  # pragma: no cover - never asked for
        self.calls["managed_tensor_allocator"].append(args)
        return -1

    def count(self, name: str) -> int:
        """How many times function ``name`` was called."""
        return len(self.calls[name])


_CAPSULE_NAMES: dict[bytes, Any] = {}


def make_capsule(address: int, name: bytes) -> Any:
    """A capsule over ``address`` named ``name``, without a destructor (the
    name's buffer is kept forever: a capsule keeps the pointer)."""
    if name not in _CAPSULE_NAMES:
        _CAPSULE_NAMES[name] = ctypes.create_string_buffer(name)
    return abi.PyCapsule_New(
        address, ctypes.cast(_CAPSULE_NAMES[name], ctypes.c_char_p), abi.CapsuleDestructor()
    )


def producer_class(
    table: FakeTable | None = None,
    *,
    attribute: str = "capsule",
    name: str = "FakeProducer",
    base: type = FakeProducer,
) -> type:
    """A new subclass of ``base`` whose type carries ``table``.

    ``attribute``: ``"capsule"`` (1.3, ``__dlpack_c_exchange_api__``),
    ``"int"`` (1.2, ``__c_dlpack_exchange_api__``), or ``"none"``.  A new
    class per test keeps dlarray's per-type cache from carrying one test's
    table into another.
    """
    namespace: dict[str, Any] = {}
    if table is not None and attribute == "capsule":
        namespace["__dlpack_c_exchange_api__"] = table.capsule()
    elif table is not None and attribute == "int":
        namespace["__c_dlpack_exchange_api__"] = table.address
    elif attribute not in ("capsule", "int", "none"):
        raise ValueError(f"unknown attribute kind {attribute!r}")
    cls = type(name, (base,), namespace)
    _KEEPALIVE.append(cls)
    return cls


def callback_errors_since(start: int) -> list[BaseException]:
    """Errors met by callbacks of the tables and exporters made after
    ``len(_KEEPALIVE) == start``."""
    return [
        exc
        for obj in _KEEPALIVE[start:]
        if isinstance(obj, (Exporter, FakeTable))
        for exc in obj.callback_errors
    ]


# ---- dlarray's C API for extensions (dlarray_capi.h) ----


class DLArrayBorrowed(ctypes.Structure):
    _fields_ = [
        ("tensor", abi.DLTensor),
        ("stream", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("owned_", ctypes.c_void_p),
        ("owned_kind_", ctypes.c_int),
    ]


class DLArrayCAPI(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("exchange_api_of", ctypes.c_void_p),
        ("borrow", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("to_managed", ctypes.c_void_p),
        ("exchange_api", ctypes.c_void_p),
    ]


EXCHANGE_API_OF = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object)
BORROW = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLArrayBorrowed))
RELEASE = ctypes.PYFUNCTYPE(None, ctypes.POINTER(DLArrayBorrowed))
TO_MANAGED = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ManagedPtr))


class DLArrayCAPIFunctions:
    """dlarray's C API (``dlarray._core._C_API``), callable from Python."""

    def __init__(self) -> None:
        self.address = capsule_address(dlarray._core._C_API, CAPI_NAME)
        self.struct = DLArrayCAPI.from_address(self.address)
        self.exchange_api_of = EXCHANGE_API_OF(self.struct.exchange_api_of)
        self._borrow = BORROW(self.struct.borrow)
        self._release = RELEASE(self.struct.release)
        self._to_managed = TO_MANAGED(self.struct.to_managed)

    def borrow(self, obj: Any) -> DLArrayBorrowed:
        view = DLArrayBorrowed()
        rc = self._borrow(obj, ctypes.byref(view))
        assert rc == 0, rc
        return view

    def release(self, view: DLArrayBorrowed) -> None:
        self._release(ctypes.byref(view))

    def to_managed(self, obj: Any) -> Any:
        out = ManagedPtr()
        rc = self._to_managed(obj, ctypes.byref(out))
        assert rc == 0 and out, rc
        return out


def dlarray_capi() -> DLArrayCAPIFunctions:
    return DLArrayCAPIFunctions()
