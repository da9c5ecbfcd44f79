"""dpctl, loaded on first use: root devices, their default contexts and
queues, USM pointer queries, and the one error for SYCL's absence.

DLPack's ``kDLOneAPI`` rules (dpctl's "DLPack exchange of USM allocated
arrays") fix three things this module provides:

* ``device_id`` is the index of the allocation's *root* device in
  ``sycl::device::get_devices()`` order, which is ``dpctl.get_devices()``;
* memory is exchanged only when it is bound to that device's *default
  platform context*, because a consumer has nothing else to name the
  context with;
* a consumer checks that the pointer is a USM allocation known to that
  context (its USM type is not "unknown") before using it.

dlarray allocates in the default platform context, on the queue dpctl
caches for (default context, device): the same queue ``dpnp.tensor`` gives
arrays it imports through DLPack, so dlarray's copies and dpnp's kernels
are ordered on one queue.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from typing import Any

from dlarray._install import pip_install

#: dpctl's ``DPCTLSyclUSMType`` values, as USM kind names.
_USM_TYPES = {1: "device", 2: "shared", 3: "host"}


class SYCLUnavailableError(BufferError, ValueError):
    """SYCL memory was asked for, and this process has no usable SYCL device.

    Like :class:`~dlarray.CUDAUnavailableError`, it is a ``BufferError``
    (DLPack consumers fall back to a host copy on it) and a ``ValueError``
    (the Array API's error for an unsupported ``device=``).

    Examples
    --------
    Ask for SYCL device memory, and stay on the host where there is none:

    >>> import dlarray
    >>> try:
    ...     x = dlarray.empty(2, device=dlarray.Device("sycl"))
    ... except dlarray.SYCLUnavailableError:
    ...     x = dlarray.empty(2)
    >>> x.shape
    (2,)
    >>> issubclass(dlarray.SYCLUnavailableError, BufferError)
    True
    """

    # Tracebacks and reprs name it where users find it, dlarray.SYCLUnavailableError,
    # not in this private module.
    __module__ = "dlarray"


@functools.cache
def dpctl() -> Any:
    """The ``dpctl`` module, or :class:`SYCLUnavailableError` saying how to
    get it.  Failures are remembered (``functools.cache`` does not cache
    exceptions, so the import is retried; that is cheap)."""
    try:  # dpctl is optional: loaded lazily, on the first SYCL call
        import dpctl as module
        import dpctl.memory
    except ImportError as exc:
        raise SYCLUnavailableError(
            f"SYCL memory needs Intel's dpctl package, which is not importable ({exc}); "
            f"{pip_install('sycl')} ({pip_install('sycl-cpu')} adds Intel's OpenCL runtime, "
            f"a SYCL device on an x86-64 CPU)"
        ) from None
    return module


def available() -> bool:
    """True if dpctl imports and sees at least one SYCL device."""
    try:
        return bool(root_devices())
    except SYCLUnavailableError:
        return False


@functools.cache
def root_devices() -> tuple[Any, ...]:
    """The root devices in ``sycl::device::get_devices()`` order: a
    ``kDLOneAPI`` device_id is an index into this tuple."""
    return tuple(dpctl().get_devices())


def root_device(index: int) -> Any:
    """The root device ``index``, or :class:`SYCLUnavailableError` saying
    what this process sees."""
    devices = root_devices()
    if not devices:
        raise SYCLUnavailableError(f"SYCL device {index} was asked for; {no_device_reason()}")
    if not 0 <= index < len(devices):
        raise SYCLUnavailableError(
            f"SYCL device {index} does not exist: dpctl sees {len(devices)} device(s), "
            f"numbered from 0 to {len(devices) - 1} ({describe(devices)})"
        )
    return devices[index]


def describe(devices: tuple[Any, ...]) -> str:
    return ", ".join(f"{i}: {d.filter_string} {d.name.strip()}" for i, d in enumerate(devices))


def no_device_reason() -> str:
    """Why dpctl sees no device, with the fix for the usual cause."""
    reason = "dpctl sees no SYCL device."
    selector = os.environ.get("ONEAPI_DEVICE_SELECTOR", "")
    if selector.startswith("opencl:"):
        reason += (
            f" ONEAPI_DEVICE_SELECTOR={selector!r} switches the SYCL loader off in "
            f"current releases; use '*:cpu' (or unset it)."
        )
    icd = os.path.join(sys.prefix, "lib", "libintelocl.so")
    if os.path.exists(icd) and not os.environ.get("OCL_ICD_FILENAMES"):
        reason += (
            f" intel-opencl-rt is installed, but its ICD file points to a placeholder "
            f"path: set OCL_ICD_FILENAMES={icd} before dpctl is first imported."
        )
    else:
        reason += " Install a SYCL runtime (intel-opencl-rt gives an x86-64 CPU device)."
    return reason


def index_of(sycl_device: Any) -> int:
    """The ``kDLOneAPI`` device_id of memory allocated on ``sycl_device``:
    the index of its root device (sub-devices belong to their parent)."""
    while sycl_device.parent_device is not None:
        sycl_device = sycl_device.parent_device
    for index, root in enumerate(root_devices()):
        if root == sycl_device:
            return index
    raise BufferError(
        f"the SYCL device {sycl_device.filter_string} is not among dpctl's root devices "
        f"({describe(root_devices())}), so DLPack has no device_id for it"
    )


def default_context(index: int) -> Any:
    """The default platform context of root device ``index``."""
    return root_device(index).sycl_platform.default_context


@functools.cache
def work_queue(index: int) -> Any:
    """dlarray's queue on root device ``index``: dpctl's cached queue for
    (default context, device), which ``dpnp.tensor.from_dlpack`` also uses."""
    key = (default_context(index), root_device(index))  # raises when dpctl or the device is missing
    # dpctl is optional: loaded lazily (the line above has imported it)
    from dpctl._sycl_queue_manager import get_device_cached_queue

    return get_device_cached_queue(key)


def synchronize(index: int) -> None:
    """Wait on the host for everything queued on dlarray's queue of device
    ``index`` (dlarray's copies, and dpnp's kernels on its arrays)."""
    work_queue(index).wait()


@functools.cache
def _pointer_type_function() -> Any:
    # dpctl's Python API has no safe pointer query: building a memory object
    # around a pointer SYCL does not know aborts the process.  Its C API
    # (the library its extension modules link) answers "unknown" instead.
    library = ctypes.CDLL(
        os.path.join(os.path.dirname(dpctl().__file__), "libDPCTLSyclInterface.so")
    )
    query = library.DPCTLUSM_GetPointerType
    query.restype = ctypes.c_int
    query.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return query


def usm_kind(pointer: int, index: int) -> str | None:
    """``"device"``, ``"shared"`` or ``"host"``: what kind of USM ``pointer``
    is in the default context of root device ``index``; None when that
    context does not know it."""
    if not pointer:
        return None
    context = default_context(index)
    return _USM_TYPES.get(_pointer_type_function()(pointer, context.addressof_ref()))


class _USMSpan:
    """``__sycl_usm_array_interface__`` for a byte range of known USM, so
    dpctl can copy to and from it."""

    def __init__(self, address: int, nbytes: int, queue: Any) -> None:
        self.__sycl_usm_array_interface__ = {
            "data": (address, False),
            "shape": (nbytes,),
            "strides": None,
            "typestr": "|u1",
            "version": 1,
            "syclobj": queue,
        }


def usm_memory(address: int, nbytes: int, index: int) -> Any:
    """A dpctl memory object over ``nbytes`` of USM at ``address`` on root
    device ``index`` (which must be known USM: see :func:`usm_kind`)."""
    return dpctl().memory.as_usm_memory(_USMSpan(address, nbytes, work_queue(index)))
