"""The Python side of DLPack's C exchange table, for devices whose runtimes
dlarray drives from Python (CUDA through cuda-bindings, SYCL through dpctl).

The table itself is C (``dlarray/_core/exchange_producer.c`` and
``exchange_consumer.c``); on the CPU it never calls into Python.  Elsewhere
it calls the three hooks below, registered with the core at import:

:func:`work_stream`
    the table's ``current_work_stream``: the stream (CUDA) or queue (SYCL)
    dlarray's work on a device runs on, as an address;
:func:`allocate`
    the table's ``managed_tensor_allocator`` for memory other than the
    CPU's: a new DLArray on that device;
:func:`order_import`
    after ``dlarray.from_dlpack`` took a tensor through a producer's table
    (whose functions do not synchronise), order dlarray's work after the
    producer's current stream; or answer False, and ``from_dlpack`` gives
    the tensor back and asks ``__dlpack__(stream=...)`` instead, which has
    the producer order it.
"""

from __future__ import annotations

from typing import Any

from dlarray._device import Device
from dlarray._dtypes import as_dtype
from dlarray._storage.allocation import new_array
from dlarray._storage.family import family_of_type


def work_stream(device_type: int, device_id: int) -> int:
    """dlarray's stream on a CUDA memory kind, or its queue on a SYCL
    device, as an address (``cudaStream_t`` / ``sycl::queue*``)."""
    return family_of_type(device_type).work_stream(device_type, device_id)


def allocate(shape: tuple[int, ...], dtype: Any, pair: tuple[int, int]) -> Any:
    """A new DLArray of ``shape`` and ``dtype`` on the device ``pair``."""
    # A bare kDLOneAPI pair is USM device memory, as Device.from_dlpack reads it.
    # new_array's family refuses memory dlarray cannot allocate, saying why.
    return new_array(tuple(shape), as_dtype(dtype), Device.from_dlpack(pair), zero=False)


def order_import(device_type: int, device_id: int, producer_stream: int) -> bool:
    """Order dlarray's work on the device after ``producer_stream`` (the
    producer's current work stream there); False when dlarray cannot."""
    return family_of_type(device_type).order_import(device_type, device_id, producer_stream)
