"""Devices: where an array's memory lives.

A :class:`Device` is a memory kind plus an index, named the Array API way
(``Device("cpu")``, ``Device("cuda", 1)``).  Each kind corresponds to one
DLPack ``DLDeviceType``; the memory-kind table ``KINDS`` is the only place
that pairs them, and says for each kind which runtime drives it and whether
the host can read it.  The three SYCL USM kinds share ``kDLOneAPI`` (DLPack does not say
which kind a pointer is; dpctl does), and a bare ``(14, i)`` pair means
``Device("sycl", i)``, device memory.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import operator
from typing import Final

import dlarray._core as _core


class DLDeviceType(enum.IntEnum):
    """DLPack's ``DLDeviceType`` values (DLPack 1.3).

    The first number of every ``(device_type, device_id)`` pair, such as the
    one ``__dlpack_device__`` returns.  The members are ints.

    Raises
    ------
    ValueError
        ``DLDeviceType(n)`` for a number ``n`` that is not a DLPack device type.

    Examples
    --------
    >>> import dlarray
    >>> int(dlarray.DLDeviceType.kDLCUDA)
    2
    >>> dlarray.DLDeviceType(13).name
    'kDLCUDAManaged'
    >>> x = dlarray.asarray([1.0, 2.0])
    >>> x.__dlpack_device__() == (dlarray.DLDeviceType.kDLCPU, 0)
    True
    """

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18


@dataclasses.dataclass(frozen=True)
class MemoryKind:
    """One row of the memory-kind table: everything dlarray needs to know
    about a kind of memory, in one place.  Code asks the row (``device.memory``),
    never lists kinds of its own."""

    #: The kind's name, as ``Device(name)`` takes it.
    name: str
    #: The DLPack device type of its memory.
    device_type: DLDeviceType
    #: The runtime that drives it: "host", "cuda", "sycl", or "none" (an
    #: address dlarray can exchange but neither allocate nor copy).  The C
    #: core's device table says it per device type (_core.DEVICE_FAMILIES).
    family: str
    #: Whether the host may read and write it directly (after waiting for the
    #: device's queued work).
    host_readable: bool
    #: One memory for the whole machine (host, pinned, managed): DLPack
    #: numbers it device 0, and no one GPU's streams own it (the C core's
    #: device table says it, _core.MACHINE_WIDE_DEVICE_TYPES).
    machine_wide: bool
    #: The engine that computes on it: "numpy", "cupy", "dpnp", or
    #: "numpy_host_views" (NumPy on host views of managed and pinned memory,
    #: results kept on the kind); None: exchanged and copied, not computed on.
    engine: str | None
    #: SYCL's name for the USM kind ("device", "shared", "host"); None elsewhere.
    usm_type: str | None


def _row(
    name: str,
    device_type: DLDeviceType,
    *,
    host_readable: bool = False,
    engine: str | None = None,
    usm_type: str | None = None,
) -> MemoryKind:
    family = _core.DEVICE_FAMILIES[int(device_type)]
    machine_wide = int(device_type) in _core.MACHINE_WIDE_DEVICE_TYPES
    return MemoryKind(name, device_type, family, host_readable, machine_wide, engine, usm_type)


T = DLDeviceType
#: The memory-kind table.  "cpu" is memory dlarray allocates itself; the
#: other kinds are named for the allocator behind them.  The three SYCL USM
#: kinds share kDLOneAPI; the first row of a device type is the kind a bare
#: (device_type, device_id) pair names.
KINDS: Final[dict[str, MemoryKind]] = {
    row.name: row
    for row in (
        _row("cpu", T.kDLCPU, host_readable=True, engine="numpy"),
        _row("cuda", T.kDLCUDA, engine="cupy"),
        _row("cuda_managed", T.kDLCUDAManaged, host_readable=True, engine="numpy_host_views"),
        _row("cuda_host", T.kDLCUDAHost, host_readable=True, engine="numpy_host_views"),
        _row("opencl", T.kDLOpenCL),
        _row("vulkan", T.kDLVulkan),
        _row("metal", T.kDLMetal),
        _row("vpi", T.kDLVPI),
        _row("rocm", T.kDLROCM),
        _row("rocm_host", T.kDLROCMHost),
        _row("ext_dev", T.kDLExtDev),
        _row("sycl", T.kDLOneAPI, engine="dpnp", usm_type="device"),
        _row("sycl_shared", T.kDLOneAPI, host_readable=True, engine="dpnp", usm_type="shared"),
        _row("sycl_host", T.kDLOneAPI, host_readable=True, engine="dpnp", usm_type="host"),
        _row("webgpu", T.kDLWebGPU),
        _row("hexagon", T.kDLHexagon),
        _row("maia", T.kDLMAIA),
        _row("trn", T.kDLTrn),
    )
}
del T
_MAX_DEVICE_ID: Final = 2**31 - 1
# DLDeviceType -> kind name: the first kind of each type ("sycl" for kDLOneAPI).
_NAMES: Final[dict[int, str]] = {}
for _kind in KINDS.values():
    _NAMES.setdefault(int(_kind.device_type), _kind.name)
#: DLDeviceType -> the row of the kind a bare pair names.
KIND_OF_TYPE: Final = {t: KINDS[name] for t, name in _NAMES.items()}
#: SYCL's USM type name -> dlarray's kind name.
KIND_OF_USM: Final = {k.usm_type: k.name for k in KINDS.values() if k.usm_type}


class Device:
    """A memory kind and an index.

    Parameters
    ----------
    kind : str
        ``"cpu"``, ``"cuda"``, ``"cuda_host"``, ``"cuda_managed"``,
        ``"sycl"``, ``"sycl_shared"``, ``"sycl_host"``, or another DLPack
        device kind.
    index : int, optional
        Device ordinal; 0 for host memory.  For the SYCL kinds, the index of
        the root device in ``dpctl.get_devices()``.

    Raises
    ------
    TypeError
        If ``kind`` is not a str, or ``index`` not an int.
    ValueError
        If ``kind`` is not a known device kind, or ``index`` is outside
        ``[0, 2**31 - 1]`` (DLPack's ``device_id`` is a 32-bit int).  Making a
        Device allocates nothing, so a kind this machine lacks is no error here;
        the allocation raises :class:`dlarray.CUDAUnavailableError` or
        :class:`dlarray.SYCLUnavailableError`.

    Examples
    --------
    >>> import dlarray
    >>> dlarray.Device("cpu")
    Device('cpu', 0)
    >>> dlarray.Device("cuda", 1).dlpack
    (2, 1)
    """

    __slots__ = ("_index", "_kind", "_memory")

    def __init__(self, kind: str, index: int = 0) -> None:
        if not isinstance(kind, str):
            raise TypeError(f"Device kind must be a str such as 'cpu', got {kind!r}")
        memory = KINDS.get(kind)
        if memory is None:
            raise ValueError(_unknown_kind(kind))
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"Device index must be an int, got {index!r}")
        if not 0 <= index <= _MAX_DEVICE_ID:
            raise ValueError(
                f"Device index must be in [0, {_MAX_DEVICE_ID}] (DLPack's device_id is a "
                f"32-bit int), got {index}"
            )
        self._kind = kind
        self._index = index
        self._memory = memory

    @classmethod
    def from_dlpack(cls, pair: tuple[int, int]) -> Device:
        """The device for a ``(device_type, device_id)`` pair.

        ``kDLOneAPI`` (14) gives ``Device("sycl", i)``, SYCL device memory.
        An unknown device type raises ``BufferError``.

        Raises
        ------
        BufferError
            If the device type is not one DLPack defines (dlarray cannot name it).
        TypeError
            If the device type or id is not an int (``bool`` included).
        ValueError
            If ``pair`` is not a pair, or its device id is outside DLPack's range.

        Examples
        --------
        >>> import dlarray
        >>> dlarray.Device.from_dlpack((13, 0))
        Device('cuda_managed', 0)
        >>> x = dlarray.asarray([1.0])
        >>> dlarray.Device.from_dlpack(x.__dlpack_device__()) == x.device
        True
        """
        try:
            device_type, device_id = pair
        except (TypeError, ValueError):
            raise ValueError(
                f"Device.from_dlpack: expected a (device_type, device_id) pair, as "
                f"x.__dlpack_device__() returns, got {pair!r}"
            ) from None
        for what, value in (("device_type", device_type), ("device_id", device_id)):
            if not hasattr(type(value), "__index__") or isinstance(value, bool):
                raise TypeError(
                    f"Device.from_dlpack({pair!r}): {what} must be an int, got "
                    f"{type(value).__name__} {value!r}"
                )
        device_type, device_id = operator.index(device_type), operator.index(device_id)
        if device_type not in _NAMES:
            # The data of such a device cannot be exchanged: BufferError.
            raise BufferError(
                f"Device.from_dlpack({pair!r}): unknown DLPack device type {device_type}; "
                f"the known types are "
                f"{', '.join(f'{int(t)} ({n})' for t, n in _NAMES.items())}"
            )
        return cls(_NAMES[device_type], device_id)

    @property
    def kind(self) -> str:
        """The memory kind, e.g. ``"cpu"``.

        Examples
        --------
        >>> import dlarray
        >>> dlarray.Device("cuda_host").kind
        'cuda_host'
        """
        return self._kind

    @property
    def memory(self) -> MemoryKind:
        """The kind's row of the memory-kind table.

        Examples
        --------
        >>> import dlarray
        >>> m = dlarray.Device("cuda_managed").memory
        >>> m.family, m.host_readable, int(m.device_type)
        ('cuda', True, 13)
        """
        return self._memory

    @property
    def index(self) -> int:
        """The device ordinal.

        Examples
        --------
        >>> import dlarray
        >>> dlarray.Device("cuda", 1).index
        1
        """
        return self._index

    @property
    def dlpack(self) -> tuple[int, int]:
        """``(device_type, device_id)`` as ``__dlpack_device__`` returns it.

        The three SYCL kinds share device type 14 (``kDLOneAPI``).

        Examples
        --------
        >>> import dlarray
        >>> dlarray.Device("cpu").dlpack
        (1, 0)
        >>> dlarray.Device("sycl_shared", 0).dlpack
        (14, 0)
        """
        return (int(self._memory.device_type), self._index)

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(device_type, device_id)``: the exchange of device objects that
        array-api#972 and dmlc/dlpack#172 propose (a device has this method
        and, unlike an array, no ``__dlpack__``).  dlarray takes such objects
        of other libraries wherever it takes a device (:func:`as_device`).

        Examples
        --------
        >>> import dlarray
        >>> dlarray.Device("cuda", 1).__dlpack_device__()
        (2, 1)
        """
        return self.dlpack

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Device):
            return NotImplemented
        return self._kind == other._kind and self._index == other._index

    def __hash__(self) -> int:
        return hash((self._kind, self._index))

    def __repr__(self) -> str:
        return f"Device({self._kind!r}, {self._index})"


CPU: Final = Device("cpu", 0)


def kinds_of(family: str) -> tuple[str, ...]:
    """The kinds of one memory family, in table order.

    Examples
    --------
    >>> from dlarray._device import kinds_of
    >>> kinds_of("sycl")
    ('sycl', 'sycl_shared', 'sycl_host')
    """
    return tuple(k.name for k in KINDS.values() if k.family == family)


def device_of(pair: tuple[int, int], owner: object) -> Device:
    """The Device of an array's memory (the C getter ``device`` calls this
    for anything but the CPU).  The pair names it, except for kDLOneAPI,
    where the owner -- dlarray's SYCL storage, or an imported tensor the
    SYCL import check labelled -- says which USM kind it is."""
    if pair[0] == DLDeviceType.kDLOneAPI:
        device = getattr(owner, "assigned_device", None) or getattr(owner, "device", None)
        if isinstance(device, Device):
            return device
    return Device.from_dlpack(pair)


#: Names other libraries use for a kind, and what dlarray calls it.
_GUESSES: Final = {"gpu": "cuda", "nvidia": "cuda", "cupy": "cuda", "host": "cpu",
                   "numpy": "cpu", "pinned": "cuda_host", "managed": "cuda_managed",
                   "xpu": "sycl", "oneapi": "sycl", "hip": "rocm"}  # fmt: skip


def _unknown_kind(kind: str) -> str:
    """The message for a device kind dlarray does not know; 'cuda:1' is how
    PyTorch writes an index, so it gets the two ways dlarray takes one."""
    guess = _GUESSES.get(kind.lower()) or next(
        iter(difflib.get_close_matches(kind.lower(), KINDS, n=1, cutoff=0.6)), None
    )
    allocated = [k.name for k in KINDS.values() if k.family != "none"]
    exchanged = [k.name for k in KINDS.values() if k.family == "none"]
    message = f"unknown device kind {kind!r}"
    if guess is not None and guess != kind:
        message += f"; did you mean {guess!r}?"
    message += (
        f" dlarray allocates memory of the kinds {', '.join(allocated)}; the other "
        f"DLPack kinds it only exchanges: {', '.join(exchanged)}"
    )
    name, colon, index = kind.partition(":")
    if colon and name in KINDS:
        index = index if index.isdigit() else "0"
        pair = (int(KINDS[name].device_type), int(index))
        message += (
            f". A kind names no index: write dlarray.Device({name!r}, {index}) or the "
            f"DLPack pair {pair}"
        )
    return message


def as_device(device: object) -> Device:
    """Accept a :class:`Device`, a kind name, a DLPack pair, or another
    library's device object that offers the proposed exchange of devices
    (array-api#972: ``__dlpack_device__()`` and no ``__dlpack__``, which
    would make it an array).

    Examples
    --------
    >>> from dlarray._device import as_device
    >>> class Gpu:                           # another library's device
    ...     def __dlpack_device__(self):
    ...         return (2, 1)
    >>> as_device(Gpu()), as_device((1, 0)), as_device("cpu")
    (Device('cuda', 1), Device('cpu', 0), Device('cpu', 0))
    """
    if isinstance(device, Device):
        return device
    if isinstance(device, str):
        return Device(device)
    kind = type(device)
    if hasattr(kind, "__dlpack_device__") and not hasattr(kind, "__dlpack__"):
        pair = device.__dlpack_device__()  # type: ignore[attr-defined]
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise TypeError(
                f"device {device!r}: its __dlpack_device__() returned {pair!r}; a DLPack "
                "(device_type, device_id) pair was expected"
            )
        device = pair
    if (
        isinstance(device, tuple)
        and len(device) == 2
        and all(hasattr(v, "__index__") and not isinstance(v, bool) for v in device)
    ):
        device_type, device_id = (operator.index(v) for v in device)
        if device_type not in _NAMES:
            # A bad argument, so ValueError; a *capsule* from an unknown
            # device type stays a BufferError (Device.from_dlpack).
            raise ValueError(
                f"device={device!r}: {device_type} is not a DLPack device type; the known "
                f"types are {', '.join(f'{int(t)} ({n})' for t, n in _NAMES.items())}"
            )
        return Device(_NAMES[device_type], device_id)
    raise TypeError(
        f"expected a dlarray.Device, a device kind such as 'cpu', or a "
        f"(device_type, device_id) pair, got {device!r}"
    )
