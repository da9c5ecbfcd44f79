"""The CUDA runtime, loaded on first use, and the one error for its absence.

dlarray never links against CUDA: the C core knows nothing of it, and this
module reaches the runtime through NVIDIA's ``cuda-bindings`` package (the
``dlarray[cuda]`` extra) only when an array on CUDA memory is allocated,
copied or ordered on a stream.  Three things can be missing, and
:func:`runtime` says which: the package, the driver, or a GPU.

Everything CUDA-specific that dlarray does goes through the small
:class:`CudaRuntime` surface below (allocate, free, copy, events, streams).
Tests on machines without a GPU install a stand-in with the same methods
through :func:`use_runtime`; nothing else in the package can tell.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any, Protocol

from dlarray._install import pip_install


class CUDAUnavailableError(BufferError, ValueError):
    """CUDA memory was asked for, and this process cannot reach a GPU.

    It is a ``BufferError`` because DLPack consumers fall back to a host
    copy on ``BufferError`` (and only on it), and a ``ValueError`` because
    the Array API reports an unsupported ``device=`` argument that way.

    Examples
    --------
    Ask for GPU memory, and stay on the host where there is none:

    >>> import dlarray
    >>> try:
    ...     x = dlarray.empty(3, device=dlarray.Device("cuda"))
    ... except dlarray.CUDAUnavailableError:
    ...     x = dlarray.empty(3)
    >>> x.shape
    (3,)
    >>> issubclass(dlarray.CUDAUnavailableError, (BufferError, ValueError))
    True
    """

    # Tracebacks and reprs name it where users find it, dlarray.CUDAUnavailableError,
    # not in this private module.
    __module__ = "dlarray"


class CudaRuntime(Protocol):
    """The CUDA runtime calls dlarray makes.  Streams and events are ints:
    DLPack's own encoding (1 = legacy default stream, 2 = per-thread
    default, anything larger a ``cudaStream_t``), which is also CUDA's."""

    def device_count(self) -> int: ...
    def current_device(self) -> int: ...
    def set_device(self, index: int) -> None: ...
    def malloc(self, nbytes: int) -> int: ...
    def malloc_managed(self, nbytes: int) -> int: ...
    def malloc_host(self, nbytes: int) -> int: ...
    def free(self, pointer: int) -> None: ...
    def free_host(self, pointer: int) -> None: ...
    def memcpy_async(self, dst: int, src: int, nbytes: int, stream: int) -> None: ...
    def memset_async(self, pointer: int, value: int, nbytes: int, stream: int) -> None: ...
    def stream_synchronize(self, stream: int) -> None: ...
    def event_create(self) -> int: ...
    def event_record(self, event: int, stream: int) -> None: ...
    def stream_wait_event(self, stream: int, event: int) -> None: ...
    def event_destroy(self, event: int) -> None: ...


class BindingsRuntime:
    """:class:`CudaRuntime` over ``cuda.bindings.runtime``.  Every call checks
    its ``cudaError_t`` and raises ``RuntimeError`` naming the call."""

    def __init__(self, module: Any) -> None:
        self._rt = module
        self._default = module.cudaMemcpyKind.cudaMemcpyDefault
        self._disable_timing = int(module.cudaEventDisableTiming)

    def _check(self, call: str, result: Any) -> Any:
        err, *values = result if isinstance(result, tuple) else (result,)
        if int(err) != 0:
            name = self._rt.cudaGetErrorName(err)[1].decode()
            text = self._rt.cudaGetErrorString(err)[1].decode()
            raise RuntimeError(f"CUDA runtime call {call} failed: {name}: {text}")
        return values[0] if len(values) == 1 else None

    def device_count(self) -> int:
        return int(self._check("cudaGetDeviceCount", self._rt.cudaGetDeviceCount()))

    def current_device(self) -> int:
        return int(self._check("cudaGetDevice", self._rt.cudaGetDevice()))

    def set_device(self, index: int) -> None:
        self._check("cudaSetDevice", self._rt.cudaSetDevice(index))

    def malloc(self, nbytes: int) -> int:
        return int(self._check("cudaMalloc", self._rt.cudaMalloc(nbytes)))

    def malloc_managed(self, nbytes: int) -> int:
        attach_global = int(self._rt.cudaMemAttachGlobal)
        return int(
            self._check("cudaMallocManaged", self._rt.cudaMallocManaged(nbytes, attach_global))
        )

    def malloc_host(self, nbytes: int) -> int:
        return int(self._check("cudaMallocHost", self._rt.cudaMallocHost(nbytes)))

    def free(self, pointer: int) -> None:
        self._check("cudaFree", self._rt.cudaFree(pointer))

    def free_host(self, pointer: int) -> None:
        self._check("cudaFreeHost", self._rt.cudaFreeHost(pointer))

    def memcpy_async(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self._check(
            "cudaMemcpyAsync", self._rt.cudaMemcpyAsync(dst, src, nbytes, self._default, stream)
        )

    def memset_async(self, pointer: int, value: int, nbytes: int, stream: int) -> None:
        self._check("cudaMemsetAsync", self._rt.cudaMemsetAsync(pointer, value, nbytes, stream))

    def stream_synchronize(self, stream: int) -> None:
        self._check("cudaStreamSynchronize", self._rt.cudaStreamSynchronize(stream))

    def event_create(self) -> int:
        event = self._check(
            "cudaEventCreateWithFlags", self._rt.cudaEventCreateWithFlags(self._disable_timing)
        )
        return int(event)

    def event_record(self, event: int, stream: int) -> None:
        self._check("cudaEventRecord", self._rt.cudaEventRecord(event, stream))

    def stream_wait_event(self, stream: int, event: int) -> None:
        self._check("cudaStreamWaitEvent", self._rt.cudaStreamWaitEvent(stream, event, 0))

    def event_destroy(self, event: int) -> None:
        self._check("cudaEventDestroy", self._rt.cudaEventDestroy(event))


# cudaError_t values that mean "no usable driver" or "no GPU".
_NO_DRIVER = {
    34: "the driver found is a stub library",
    35: "there is no NVIDIA driver, or one older than the runtime",
}
_NO_DEVICE = {100: "no CUDA-capable device", 101: "an invalid device ordinal"}

_lock = threading.Lock()
_loaded: CudaRuntime | None = None
_missing: str | None = None  # why the runtime could not be loaded
_override: CudaRuntime | CUDAUnavailableError | None = None


def _driver_present() -> bool:
    """Whether the NVIDIA driver's library loads (asked before an install
    hint: without a driver, no CUDA package helps)."""
    name = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def _load() -> CudaRuntime:
    """Import cuda-bindings and ask it for devices, or say what is missing."""
    try:  # cuda-bindings is optional: loaded lazily, on the first CUDA call
        from cuda.bindings import runtime as module
    except ImportError as exc:
        if not _driver_present():
            raise CUDAUnavailableError(
                "CUDA memory needs an NVIDIA GPU and its driver, and this machine has no "
                "NVIDIA driver (its library, libcuda, is not found); installing the "
                f"cuda-bindings package ({pip_install('cuda')}) would not help here: use "
                "a machine with an NVIDIA GPU, or the host (device='cpu')"
            ) from None
        raise CUDAUnavailableError(
            f"CUDA memory needs NVIDIA's cuda-bindings package, which is not installed "
            f"({exc}); install it with: {pip_install('cuda')} ({pip_install('cuda12')} "
            f"on a CUDA 12 driver)"
        ) from None
    err, count = module.cudaGetDeviceCount()
    code = int(err)
    if code in _NO_DRIVER or code == 3:  # 3: cudaErrorInitializationError
        why = _NO_DRIVER.get(
            code,
            "the driver failed to initialise, as it always does in a process forked from "
            "one that had used CUDA (start such children with multiprocessing's 'spawn')",
        )
        raise CUDAUnavailableError(
            f"cuda-bindings is installed but no working NVIDIA driver was found "
            f"(cudaGetDeviceCount: {module.cudaGetErrorName(err)[1].decode()}, {why}); "
            f"CUDA arrays need a machine with an NVIDIA GPU and its driver"
        )
    if code in _NO_DEVICE or (code == 0 and count == 0):
        raise CUDAUnavailableError(
            "the NVIDIA driver is present but reports no GPU (cudaGetDeviceCount: 0 devices); "
            "check CUDA_VISIBLE_DEVICES and nvidia-smi"
        )
    if code != 0:
        name = module.cudaGetErrorName(err)[1].decode()
        raise CUDAUnavailableError(f"the CUDA runtime cannot list devices: {name}")
    return BindingsRuntime(module)


def runtime() -> CudaRuntime:
    """The CUDA runtime, loaded once; raises :class:`CUDAUnavailableError`
    naming what is missing (package, driver or GPU)."""
    global _loaded, _missing
    if _override is not None:
        if isinstance(_override, CUDAUnavailableError):  # hidden(): as if no GPU
            raise CUDAUnavailableError(str(_override))
        return _override
    if _loaded is None:
        with _lock:
            if _missing is not None:  # a driver or GPU does not appear later
                raise CUDAUnavailableError(_missing)
            if _loaded is None:
                try:
                    _loaded = _load()
                except CUDAUnavailableError as exc:
                    _missing = str(exc)
                    raise
    return _loaded


_FORKED = (
    "CUDA was initialised in this process's parent before it forked (os.fork, or "
    "multiprocessing's default 'fork' start method on Linux), and CUDA does not "
    "survive a fork: the child cannot use the GPU.  Start child processes with the "
    "'spawn' or 'forkserver' method (multiprocessing.get_context('spawn')), or touch "
    "CUDA in the parent only after forking"
)


def _refuse_in_a_forked_child() -> None:
    """After os.fork, in the child: a runtime the parent had loaded is dead
    there (the driver was initialised before the fork, and every call would
    fail with cudaErrorInitializationError).  Every later use says why, as a
    CUDAUnavailableError, instead."""
    global _loaded, _missing, _lock
    _lock = threading.Lock()  # another thread of the parent may have held it
    if _loaded is not None:
        _loaded, _missing = None, _FORKED


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_refuse_in_a_forked_child)


def forget() -> None:
    """Drop what :func:`runtime` found, so the next call looks again (for
    tests that change the environment)."""
    global _loaded, _missing
    with _lock:
        _loaded = _missing = None


def available() -> bool:
    """Whether :func:`runtime` succeeds, without raising."""
    try:
        runtime()
    except CUDAUnavailableError:
        return False
    return True


@contextlib.contextmanager
def use_runtime(replacement: CudaRuntime) -> Iterator[CudaRuntime]:
    """Make :func:`runtime` return ``replacement`` inside the block (for
    tests of the CUDA paths on machines without a GPU)."""
    global _override
    previous, _override = _override, replacement
    try:
        yield replacement
    finally:
        _override = previous


@contextlib.contextmanager
def hidden(
    reason: str = "no GPU: this machine's GPU is hidden (dlarray._cuda.runtime.hidden)",
) -> Iterator[None]:
    """Make :func:`runtime` raise :class:`CUDAUnavailableError` (``reason``)
    inside the block, as on a machine without a GPU: for tests of the no-GPU
    paths on a machine that has one."""
    global _override
    previous, _override = _override, CUDAUnavailableError(reason)
    try:
        yield
    finally:
        _override = previous


@contextlib.contextmanager
def on_device(index: int | None) -> Iterator[CudaRuntime]:
    """Make GPU ``index`` current inside the block (None: keep the current
    one), restoring the previous one."""
    rt = runtime()
    if index is None:
        yield rt
        return
    previous = rt.current_device()
    if previous == index:
        yield rt
        return
    rt.set_device(index)
    try:
        yield rt
    finally:
        rt.set_device(previous)
