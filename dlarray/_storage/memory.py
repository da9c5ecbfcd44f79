"""The memory families as the C core calls them: one object, :data:`MEMORY`.

The C core registers it once (``DLArray._memory``, read by
``_core.register_array_type``) and calls its methods by name, only for
memory other than the host's, whose runtime (CUDA through cuda-bindings,
SYCL through dpctl) dlarray drives from Python.  Each method takes the
DLPack ``(device_type, device_id)`` the C side holds and asks the family of
that device type (:mod:`dlarray._storage.family`):

:meth:`Memory.consumer_stream`
    the ``stream`` ``from_dlpack`` passes a producer whose memory stays on
    its device (the consumer's side of DLPack; ``consumer.c``, ``capi.c``);
:meth:`Memory.work_stream`
    the exchange table's ``current_work_stream``: dlarray's stream (CUDA) or
    queue (SYCL) there, as an address (``exchange_producer.c``);
:meth:`Memory.allocate`
    the exchange table's ``managed_tensor_allocator`` off the host: a new
    array on that device (``exchange_producer.c``);
:meth:`Memory.order_import`
    after ``from_dlpack`` took a tensor through a producer's table (whose
    functions do not synchronise), order dlarray's work after the
    producer's stream, or answer False and ``from_dlpack`` asks
    ``__dlpack__(stream=...)`` instead (``exchange_consumer.c``);
:meth:`Memory.check_import`
    refuse, or label, an imported tensor's memory (SYCL USM must be known to
    dpctl; ``import.c``).
"""

from __future__ import annotations

from typing import Any

from dlarray._core import ArrayBase
from dlarray._device import Device
from dlarray._dtypes import DType
from dlarray._storage.allocation import new_array
from dlarray._storage.family import family_of_type


class Memory:
    """Every memory family, addressed by DLPack device type."""

    def consumer_stream(self, device_type: int, device_id: int) -> Any:
        """The ``stream`` dlarray passes a producer whose memory stays on
        ``(device_type, device_id)``: its work stream on a CUDA memory kind,
        its queue on a SYCL device, None for memory without streams."""
        return family_of_type(device_type).consumer_stream(device_type, device_id)

    def work_stream(self, device_type: int, device_id: int) -> int:
        """dlarray's stream (``cudaStream_t``) or queue (``sycl::queue*``)
        on the device, as an address."""
        return family_of_type(device_type).work_stream(device_type, device_id)

    def allocate(self, shape: tuple[int, ...], dtype: DType, pair: tuple[int, int]) -> ArrayBase:
        """A new array of ``shape`` and ``dtype`` on the device ``pair``
        (its elements not set)."""
        # A bare kDLOneAPI pair is USM device memory, as Device.from_dlpack reads
        # it; new_array's family refuses memory dlarray cannot allocate, saying why.
        return new_array(tuple(shape), dtype, Device.from_dlpack(pair), zero=False)

    def order_import(self, device_type: int, device_id: int, producer_stream: int) -> bool:
        """Order dlarray's work on the device after ``producer_stream`` (the
        producer's current work stream there); False when dlarray cannot."""
        return family_of_type(device_type).order_import(device_type, device_id, producer_stream)

    def check_import(self, array: ArrayBase) -> None:
        """Refuse, or label, the memory of an array just imported."""
        family_of_type(array._dl_device[0]).check_import(array)


#: The one instance the C core calls.
MEMORY = Memory()
