"""Memory families: what dlarray does with each kind of memory, by the
runtime that drives it.

Every memory kind's row in the table of :mod:`dlarray._device` names its
family ("host", "cuda", "sycl" or "none"); :data:`FAMILIES` maps that name
to one object with the same methods for every family.  The layers above
(transfer, the consumer, the exchange table, the namespace) ask
``family_of(device)`` and call a method: they never list kinds.  A new kind
of memory (ROCm, say) is a new row in that table and a new class here.

===========================  ==============================================
``check_allocatable``        raise unless dlarray can allocate there now
``allocate``                 new storage and its address, zeroed or not
``synchronize_for_host``     wait for dlarray's queued work, before the
                             host reads or writes the memory
``before_compute``           order dlarray's queued work before an engine
                             computes on the memory
``copy_bytes``               copy a byte span between this family's memory
                             and host memory (or within the family)
``check_stream``             refuse a stream argument this memory cannot take
``order_for_consumer``       make dlarray's work visible on a consumer's
                             stream (the producer's side of DLPack)
``check_import``             refuse, or label, an imported tensor's memory
``check_export``             refuse memory no consumer could find
``consumer_stream``          the ``stream`` dlarray passes a producer (the
                             consumer's side of DLPack)
``work_stream``              dlarray's stream or queue there, as an address
``order_import``             order dlarray's work after a producer's stream
``devices``                  the devices of this family in this process
===========================  ==============================================
"""

from __future__ import annotations

import ctypes
import importlib.util
from typing import Any

from dlarray._cuda import runtime as cuda_runtime
from dlarray._cuda import streams
from dlarray._device import CPU, KIND_OF_TYPE, KIND_OF_USM, KINDS, Device, kinds_of
from dlarray._storage import cuda as cuda_storage
from dlarray._storage import sycl as sycl_storage
from dlarray._storage.host import HostStorage
from dlarray._sycl import exchange as sycl_exchange
from dlarray._sycl import runtime as sycl_runtime


class MemoryFamily:
    """Memory dlarray has no runtime for (OpenCL, Vulkan, ROCm...): it can
    import and export such tensors as addresses, and do nothing else."""

    name = "none"

    def check_allocatable(self, device: Device) -> None:
        raise ValueError(
            f"dlarray cannot allocate memory on {device}; it allocates host memory ('cpu'), "
            f"CUDA memory ({_quoted(kinds_of('cuda'))}) and SYCL USM "
            f"({_quoted(kinds_of('sycl'))})"
        )

    def allocate(self, device: Device, nbytes: int, zero: bool) -> tuple[object, int]:
        self.check_allocatable(device)
        raise AssertionError("unreachable")  # pragma: no cover

    def synchronize_for_host(self, device: Device) -> None:
        """Nothing: dlarray queues no work on memory it has no runtime for."""

    def before_compute(self, device: Device) -> None:
        """Nothing: the engine's own order (host memory, SYCL queues) is
        dlarray's."""

    def copy_bytes(self, dst: int, src: int, nbytes: int, source: Device, target: Device) -> None:
        raise BufferError(f"dlarray cannot copy from {source} to {target}")  # pragma: no cover

    def check_stream(self, stream: object, device: Device, func: str) -> None:
        raise ValueError(f"{func}(stream={stream!r}): {device} has no streams; pass stream=None")

    def order_for_consumer(self, stream: object, device: Device, func: str) -> None:
        if stream is not None:
            raise BufferError(
                f"{func}(stream={stream!r}): this array lives on {device}, and dlarray cannot "
                f"order work on that device's streams; omit stream or pass None"
            )

    def check_import(self, array: Any) -> None:
        """Nothing to check: the address is all dlarray needs."""

    def check_export(self, storage: object, device: Device) -> None:
        """Nothing to refuse: the address is all a consumer needs."""

    def consumer_stream(self, device_type: int, device_id: int) -> Any:
        """None: DLPack's only stream value for memory without streams."""
        return None

    def work_stream(self, device_type: int, device_id: int) -> int:
        raise BufferError(f"dlarray has no work stream on this memory (family {self.name!r})")

    def order_import(self, device_type: int, device_id: int, producer_stream: int) -> bool:
        """False: dlarray cannot order its work after this producer's."""
        return False

    def devices(self) -> tuple[Device, ...]:
        return ()


class HostFamily(MemoryFamily):
    """Host memory, allocated by the C core."""

    name = "host"

    def check_allocatable(self, device: Device) -> None:
        """Host memory can always be allocated, as device 0: DLPack numbers
        the one host memory 0."""
        if device.index != 0:
            raise ValueError(
                f"dlarray cannot allocate memory on {device}: DLPack numbers host memory "
                f"device 0; use Device('cpu')"
            )

    def allocate(self, device: Device, nbytes: int, zero: bool) -> tuple[object, int]:
        self.check_allocatable(device)
        storage = HostStorage(nbytes, zero=zero)
        return storage, storage.pointer

    def devices(self) -> tuple[Device, ...]:
        return (CPU,)


class CudaFamily(MemoryFamily):
    """CUDA device, managed and pinned memory, through cuda-bindings (see
    :mod:`dlarray._cuda.streams` for the stream rules)."""

    name = "cuda"

    def check_allocatable(self, device: Device) -> None:
        cuda_runtime.runtime()  # says what is missing

    def allocate(self, device: Device, nbytes: int, zero: bool) -> tuple[object, int]:
        self.check_allocatable(device)
        storage = cuda_storage.allocate(device, nbytes)
        pointer = storage.pointer
        if zero and nbytes:
            with streams.queued_on((device,), streams.gpu_of(device)) as queue:
                queue.rt.memset_async(pointer, 0, nbytes, queue.stream)
        return storage, pointer

    def synchronize_for_host(self, device: Device) -> None:
        streams.synchronize_for_host(device)

    def before_compute(self, device: Device) -> None:
        streams.before_compute(device)

    def copy_bytes(self, dst: int, src: int, nbytes: int, source: Device, target: Device) -> None:
        """One ``cudaMemcpyAsync`` on the work stream of the GPU involved
        (the direction follows from unified addresses), after dlarray's
        earlier work on both ends (a copy from another GPU waits for that
        GPU's work), and a wait when the host reads the result next."""
        gpu = source if target.memory.machine_wide else target
        ends = tuple(d for d in (source, target) if d.memory.family == self.name)
        with streams.queued_on(ends, streams.gpu_of(gpu)) as queue:
            queue.rt.memcpy_async(dst, src, nbytes, queue.stream)
        if target.memory.host_readable:
            streams.synchronize(queue.gpu, queue.stream)

    def check_stream(self, stream: object, device: Device, func: str) -> None:
        streams.parse_stream(stream, func)

    def order_for_consumer(self, stream: object, device: Device, func: str) -> None:
        streams.order_for_consumer(stream, device, func)

    def consumer_stream(self, device_type: int, device_id: int) -> Any:
        """dlarray's work stream on the producer's GPU (which must exist),
        or the current GPU's for managed and pinned memory (which belong to
        no one GPU)."""
        on_one_gpu = not KIND_OF_TYPE[device_type].machine_wide
        if on_one_gpu and cuda_runtime.available():
            count = cuda_runtime.runtime().device_count()
            if not 0 <= device_id < count:
                raise BufferError(
                    f"from_dlpack: the producer's memory is on GPU {device_id}, and this "
                    f"process sees {count} GPU(s); check CUDA_VISIBLE_DEVICES"
                )
        return self.work_stream(device_type, device_id)

    def work_stream(self, device_type: int, device_id: int) -> int:
        """dlarray's work stream on the memory's GPU (the current GPU for
        managed and pinned memory), after dlarray's earlier work on that
        memory: whoever orders its own work after this stream (a producer
        asked by dlarray, a consumer of dlarray's exchange table) is ordered
        after all of dlarray's.  The stream is where the memory's work is
        from now on (dlarray._cuda.streams).

        A producer's device_id is not checked here: one that names no GPU
        (negative, say) gets the legacy default stream, and the import
        refuses the tensor afterwards, having asked the producer once."""
        if not 0 <= device_id <= _MAX_DEVICE_ID:
            return streams.LEGACY_DEFAULT
        return streams.enter(_memory_of(device_type, device_id))

    def order_import(self, device_type: int, device_id: int, producer_stream: int) -> bool:
        if not cuda_runtime.available():
            return False
        producer = producer_stream or streams.LEGACY_DEFAULT  # NULL: the default stream
        device = _memory_of(device_type, device_id)
        if device.memory.machine_wide:
            # Managed and pinned memory: dlarray computes on them from the
            # host (NumPy), so the host waits for the producer's work.
            with cuda_runtime.on_device(None) as rt:
                rt.stream_synchronize(producer)
            return True
        with streams.queued_on((device,), device.index) as queue:
            streams.make_wait(queue.rt, queue.stream, producer)
        return True

    def devices(self) -> tuple[Device, ...]:
        if not cuda_runtime.available():
            return ()
        count = cuda_runtime.runtime().device_count()
        kinds = [KINDS[name] for name in kinds_of("cuda")]
        gpus = (Device(k.name, i) for k in kinds if not k.machine_wide for i in range(count))
        shared = (Device(k.name, 0) for k in kinds if k.machine_wide)
        return (*gpus, *shared)


class SyclFamily(MemoryFamily):
    """SYCL USM (device, shared and host), through dpctl (see
    :mod:`dlarray._sycl.exchange` for the queue rules)."""

    name = "sycl"

    def check_allocatable(self, device: Device) -> None:
        sycl_runtime.root_device(device.index)  # says what is missing

    def allocate(self, device: Device, nbytes: int, zero: bool) -> tuple[object, int]:
        usm = sycl_storage.allocate(device, nbytes)
        if zero and nbytes:
            usm.owner.memset(0)  # type: ignore[attr-defined]
        return usm, usm.pointer

    def synchronize_for_host(self, device: Device) -> None:
        sycl_runtime.synchronize(device.index)

    def copy_bytes(self, dst: int, src: int, nbytes: int, source: Device, target: Device) -> None:
        """``queue.memcpy`` on dlarray's queue of the SYCL device involved,
        after the work already queued there (which may still be writing the
        source)."""
        index = (source if source.memory.family == "sycl" else target).index
        queue = sycl_runtime.work_queue(index)
        queue.wait()

        def end(device: Device, address: int) -> Any:
            if device.memory.family == "sycl":
                return sycl_runtime.usm_memory(address, nbytes, device.index)
            return (ctypes.c_char * nbytes).from_address(address)  # host bytes, writable

        queue.memcpy(end(target, dst), end(source, src), nbytes)

    def check_stream(self, stream: object, device: Device, func: str) -> None:
        """A queue is checked when the work is ordered (order_for_consumer)."""

    def order_for_consumer(self, stream: object, device: Device, func: str) -> None:
        sycl_exchange.order_for_consumer(stream, device, func)

    def check_import(self, array: Any) -> None:
        """The memory must be USM of the device's default context; its USM
        type labels the array's kind (the C core calls this for kDLOneAPI)."""
        sycl_exchange.check_import(array)

    def check_export(self, storage: object, device: Device) -> None:
        sycl_exchange.check_exportable(storage, device)

    def consumer_stream(self, device_type: int, device_id: int) -> Any:
        """dlarray's queue on the device; None without dpctl (the import
        check then refuses the tensor, saying why)."""
        if not sycl_runtime.available():
            return None
        return sycl_runtime.work_queue(device_id)

    def work_stream(self, device_type: int, device_id: int) -> int:
        return int(sycl_runtime.work_queue(device_id).addressof_ref())

    def order_import(self, device_type: int, device_id: int, producer_stream: int) -> bool:
        """Only dlarray's own queue needs no ordering."""
        if not sycl_runtime.available():
            return False
        return self.work_stream(device_type, device_id) == producer_stream

    def devices(self) -> tuple[Device, ...]:
        if importlib.util.find_spec("dpctl") is None:
            return ()  # without dpctl, no probe (importing it loads the SYCL runtime)
        if not sycl_runtime.available():
            return ()
        return tuple(
            Device(kind, index)
            for index, device in enumerate(sycl_runtime.root_devices())
            for usm_type, kind in KIND_OF_USM.items()
            if getattr(device, f"has_aspect_usm_{usm_type}_allocations")
        )


_MAX_DEVICE_ID = 2**31 - 1  # DLPack's device_id is an int32

#: family name (the memory-kind table's "family" column) -> its operations.
FAMILIES: dict[str, MemoryFamily] = {
    family.name: family for family in (MemoryFamily(), HostFamily(), CudaFamily(), SyclFamily())
}
_FAMILY_OF_KIND = {name: FAMILIES[kind.family] for name, kind in KINDS.items()}
_FAMILY_OF_TYPE = {int(kind.device_type): FAMILIES[kind.family] for kind in KINDS.values()}


def family_of(device: Device) -> MemoryFamily:
    """The family that drives ``device``'s memory."""
    return _FAMILY_OF_KIND[device.kind]


def family_of_type(device_type: int) -> MemoryFamily:
    """The family of a DLPack device type (the "none" family when unknown)."""
    return _FAMILY_OF_TYPE.get(device_type, FAMILIES["none"])


def order_export(x: Any, stream: object) -> None:
    """Before ``x.__dlpack__(stream=...)`` hands out memory other than plain
    host memory: refuse memory no consumer could find, then make dlarray's
    queued work on it visible on the consumer's ``stream``."""
    device = x.device
    family = family_of(device)
    family.check_export(x._owner, device)
    family.order_for_consumer(stream, device, "__dlpack__")


def _memory_of(device_type: int, device_id: int) -> Device:
    """The CUDA memory a DLPack pair names; managed and pinned memory are
    device 0 whatever id a producer wrote (it is not checked here)."""
    kind = KIND_OF_TYPE[device_type]
    return Device(kind.name, 0 if kind.machine_wide else device_id)


def _quoted(kinds: tuple[str, ...]) -> str:
    return ", ".join(repr(k) for k in kinds)


def prepare_host_access(x: Any, what: str) -> None:
    """Before the host reads ``x``'s memory through a plain pointer (the
    buffer protocol, ``__array__``, NumPy computing on managed and pinned
    memory): refuse memory the host cannot read, and wait for dlarray's
    queued work on the rest (managed, pinned and SYCL shared/host memory).
    Device memory is never copied behind the caller's back: the error says
    how to copy it."""
    device = x.device
    if not device.memory.host_readable:
        raise TypeError(
            f"{what}: this array lives in {device.kind} memory on {device}, which the host "
            f"cannot read, and dlarray does not copy it to the host implicitly; copy it "
            f"first with x.to_device('cpu') (or numpy.from_dlpack(x, device='cpu'))"
        )
    family_of(device).synchronize_for_host(device)
