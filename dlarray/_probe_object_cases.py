"""The probe's cases of the proposed exchange of dtype and device objects.

array-api#972 and dmlc/dlpack#172 (open) propose that a library's dtype
objects have ``__dlpack_data_type__()``, returning DLPack's ``(code,
bits, lanes)``, and its device objects ``__dlpack_device__()``, returning
``(device_type, device_id)`` with no ``__dlpack__`` beside it (which would
make the object an array); then ``torch.empty(3, dtype=paddle.float16)``
can work.  PaddlePaddle's dtypes and places offer it, tvm-ffi and dlarray
accept it, and dlarray's dtypes and devices offer it.

As a producer, the library's ``float32`` (and its other standard dtypes)
and the ``device`` of one of its host arrays are asked; as a consumer,
its ``empty`` is given a stranger's dtype and device objects.  Since the
protocol is a proposal, a library without it is "not supported", never a
deviation: only a wrong answer is.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from dlarray import abi
from dlarray._dtypes import DTYPES_BY_NAME
from dlarray._peers import STANDARD_DTYPES, Peer
from dlarray._probe_cases import (
    CPU,
    DEVIATION,
    NOT_SUPPORTED,
    OK,
    Case,
    Outcome,
    error_line,
    host_array,
)

PROPOSAL = "(proposed in array-api#972)"


class StrangerDType:
    """Another library's float32, known only by the proposed method."""

    def __dlpack_data_type__(self) -> tuple[int, int, int]:
        return (2, 32, 1)

    def __repr__(self) -> str:
        return "<a stranger's float32>"


class StrangerDevice:
    """Another library's host device, known only by the proposed method."""

    def __dlpack_device__(self) -> tuple[int, int]:
        return CPU

    def __repr__(self) -> str:
        return "<a stranger's cpu device>"


def _dtype_objects(peer: Peer, module: ModuleType) -> Outcome:
    found = {name: getattr(module, name) for name in STANDARD_DTYPES if hasattr(module, name)}
    if "float32" not in found:
        return Outcome(NOT_SUPPORTED, "has no float32 at module level")
    offering = {n: d for n, d in found.items() if hasattr(type(d), "__dlpack_data_type__")}
    if not offering:
        return Outcome(NOT_SUPPORTED, f"its dtypes have no __dlpack_data_type__ {PROPOSAL}")
    wrong = {}
    for name, dtype in offering.items():
        answer = dtype.__dlpack_data_type__()
        if answer != DTYPES_BY_NAME[name].dlpack or type(answer) is not tuple:
            wrong[name] = answer
    if wrong:
        said = ", ".join(f"{n} says {a!r}" for n, a in wrong.items())
        return Outcome(DEVIATION, f"{said}; DLPack's (code, bits, lanes) differ")
    missing = sorted(set(found) - set(offering))
    tail = f" ({', '.join(missing)} do not offer it)" if missing else ""
    return Outcome(OK, f"{len(offering)} dtypes answer their DLPack triple{tail}")


def _device_object(peer: Peer, module: ModuleType) -> Outcome:
    if "cpu" not in peer.make:
        return Outcome(NOT_SUPPORTED, "makes no host arrays here")
    array = host_array(peer, module)
    device = getattr(array, "device", None)
    if device is None:
        return Outcome(NOT_SUPPORTED, "its arrays have no device attribute")
    if not hasattr(type(device), "__dlpack_device__"):
        return Outcome(NOT_SUPPORTED, f"array.device has no __dlpack_device__ {PROPOSAL}")
    if hasattr(type(device), "__dlpack__"):
        return Outcome(
            DEVIATION, "array.device has __dlpack__ too: a consumer takes it for an array"
        )
    answer, expected = device.__dlpack_device__(), tuple(array.__dlpack_device__())
    if answer != expected or type(answer) is not tuple:
        return Outcome(DEVIATION, f"array.device says {answer!r}; the array says {expected!r}")
    return Outcome(OK, f"array.device answers {answer!r}, as the array does")


def _empty(module: ModuleType, **keywords: Any) -> Outcome | Any:
    """``module.empty((2, 3), **keywords)``, or the outcome where it refuses."""
    empty = getattr(module, "empty", None)
    if empty is None:
        return Outcome(NOT_SUPPORTED, "has no empty() to ask")
    try:
        return empty((2, 3), **keywords)
    except Exception as exc:  # a refusal of any kind: the protocol is a proposal
        return Outcome(NOT_SUPPORTED, f"refuses it {PROPOSAL}: {error_line(exc)}")


def _takes_foreign_dtype(peer: Peer, module: ModuleType) -> Outcome:
    made = _empty(module, dtype=StrangerDType())
    if isinstance(made, Outcome):
        return made
    dtype = abi.describe(made).dtype
    if dtype != (2, 32, 1):
        return Outcome(DEVIATION, f"makes an array of DLPack dtype {dtype}, not float32")
    return Outcome(OK, "makes a float32 array")


def _takes_foreign_device(peer: Peer, module: ModuleType) -> Outcome:
    made = _empty(module, device=StrangerDevice())
    if isinstance(made, Outcome):
        return made
    device = tuple(made.__dlpack_device__())
    if device != CPU:
        return Outcome(DEVIATION, f"makes an array on device {device}, not the host")
    return Outcome(OK, "makes a host array")


#: The cases, in the order a child runs them (after the C exchange table's).
OBJECT_CASES: tuple[Case, ...] = (
    Case(
        "dtype_objects",
        "producer",
        "__dlpack_data_type__() of the library's float32 and its other standard dtypes",
        "each its DLPack (code, bits, lanes) as a tuple, or no such method (a proposal)",
        _dtype_objects,
    ),
    Case(
        "device_object",
        "producer",
        "__dlpack_device__() of a host array's device",
        "the array's (device_type, device_id), and no __dlpack__ on the device; or no "
        "such method (a proposal)",
        _device_object,
    ),
    Case(
        "foreign_dtype",
        "consumer",
        "empty((2, 3), dtype=d), d another library's float32 with __dlpack_data_type__",
        "a float32 array, or a refusal (a proposal)",
        _takes_foreign_dtype,
    ),
    Case(
        "foreign_device",
        "consumer",
        "empty((2, 3), device=d), d another library's host device with __dlpack_device__",
        "a host array, or a refusal (a proposal)",
        _takes_foreign_device,
    ),
)
