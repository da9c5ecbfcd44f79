"""The DLPack rules a consumer must apply, written out in Python.

``judge(sent, name)`` says what dlarray must do with a tensor a producer
sent in a capsule of that name: refuse it, accept it, or either.  "Either"
covers tensors the rules leave to the consumer (a kDLOneAPI tensor needs
dpctl, a versioned tensor with NULL strides is forbidden only from DLPack
1.2, an element span that overflows in bytes but not in elements...).

The must-refuse list includes a first-element address that overflows
(``data + byte_offset`` past 2**64, or a ``byte_offset`` above INT64_MAX)
and a shape NumPy could not hold: nonzero extents times the element's
bytes past INT64_MAX, even when a zero extent leaves no elements.
Strides whose element offsets overflow int64 are "either": dlarray may
refuse them at import, or import them and refuse every view whose address
it cannot compute (the consumer test checks each view's address exactly).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dlarray import _core

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
ADDRESS_LIMIT = 2**64

KNOWN_DEVICE_TYPES = frozenset([1, 2, 3, 4, *range(7, 19)])
#: Memory kinds of which a machine has one: a producer's device id is
#: normalised to 0 (DLPack: "for vanilla CPU memory, pinned memory, or
#: managed memory, [device_id] is set to 0").
ONE_PER_MACHINE = frozenset([1, 3, 13])
KDL_CPU, KDL_ONEAPI = 1, 14
MAX_PLAIN_NDIM = 64

DTYPE_TABLE = {(code, bits): name for name, code, bits, _ in _core.dtype_table()}

FLAG_READ_ONLY, FLAG_IS_COPIED, FLAG_PADDED = 1, 2, 4

DLPACK_NAMES = (b"dltensor", b"dltensor_versioned")


@dataclass
class Verdict:
    """``kind``: "not_dlpack" (a capsule of another name), "consumed" (a
    "used_..." name), "other_major" (refused, but the deleter must run at
    once), "must_refuse", "must_accept" or "either".  ``reasons`` say why."""

    kind: str
    reasons: list[str] = field(default_factory=list)


def c_contiguous_strides(shape: list[int]) -> list[int]:
    strides, step = [], 1
    for extent in reversed(shape):
        strides.insert(0, step)
        step *= max(extent, 1)
    return strides


def element_count(shape: list[int]) -> int:
    return math.prod(shape) if all(s >= 0 for s in shape) else -1


def offset_range(shape: list[int], strides: list[int]) -> tuple[int, int]:
    """The lowest and highest element offset (in elements) from the first
    element, exactly (Python ints do not overflow)."""
    low = high = 0
    for extent, stride in zip(shape, strides, strict=True):
        if extent > 1:
            reach = (extent - 1) * stride
            if reach < 0:
                low += reach
            else:
                high += reach
    return low, high


def storage_bits(dtype: tuple[int, int, int], padded: bool) -> int:
    bits = dtype[1]
    return (8 if padded else bits) if bits < 8 else bits


def is_packed_c_order(shape: list[int], strides: list[int] | None) -> bool:
    if strides is None:
        return True
    expected = 1
    for extent, stride in zip(reversed(shape), reversed(strides), strict=True):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


def dims_of(sent: dict[str, Any]) -> tuple[list[int], list[int] | None]:
    """The shape and strides the tensor describes (NULL shape: 0-d)."""
    shape = sent["shape"] if sent["shape"] is not None and sent["ndim"] > 0 else []
    strides = sent["strides"] if sent["ndim"] > 0 else []
    return list(shape), None if strides is None else list(strides)


def is_padded(sent: dict[str, Any]) -> bool:
    return bool(sent["versioned"] and sent["dtype"][1] < 8 and sent["flags"] & FLAG_PADDED)


def element_bytes(dtype: tuple[int, int, int]) -> int:
    """Bytes per element as NumPy holds it: a sub-byte element takes one."""
    bits = dtype[1]
    return 1 if bits < 8 else bits // 8


def too_big_for_numpy(shape: list[int], dtype: tuple[int, int, int]) -> bool:
    """dlarray's size limit, which is NumPy's: the nonzero extents (which
    C-contiguous strides multiply up) times the element's bytes pass
    INT64_MAX, for an empty shape too."""
    return math.prod(extent for extent in shape if extent) * element_bytes(dtype) > INT64_MAX


def judge(sent: dict[str, Any], name: bytes | None) -> Verdict:
    """What dlarray must do with ``sent`` (abi.read_capsule's fields, read
    when the capsule was made) arriving in a capsule named ``name``."""
    if name not in DLPACK_NAMES:
        if name is not None and name.startswith(b"used_dltensor"):
            return Verdict("consumed")
        return Verdict("not_dlpack")
    if sent["versioned"] and sent["version"][0] != 1:
        return Verdict("other_major")
    refuse: list[str] = []
    either: list[str] = []
    ndim = sent["ndim"]
    if ndim < 0:
        return Verdict("must_refuse", ["negative ndim"])
    if ndim > 0 and sent["shape"] is None:
        return Verdict("must_refuse", ["NULL shape with ndim > 0"])
    shape, strides = dims_of(sent)
    code, bits, lanes = sent["dtype"]
    device_type = sent["device"][0]
    if device_type not in KNOWN_DEVICE_TYPES:
        refuse.append(f"unknown device type {device_type}")
    if lanes != 1 or (code, bits) not in DTYPE_TABLE:
        refuse.append(f"dtype {sent['dtype']} not in the table")
    if any(s < 0 for s in shape):
        refuse.append("negative extent")
    if refuse:
        return Verdict("must_refuse", refuse)
    padded = is_padded(sent)
    count = element_count(shape)
    if too_big_for_numpy(shape, sent["dtype"]):
        refuse.append("nonzero extents times the element's bytes pass INT64_MAX")
    if count > INT64_MAX or count * storage_bits(sent["dtype"], padded) > INT64_MAX - 7:
        refuse.append("element count or byte size overflows int64")
    if count > 0 and not sent["data"]:
        refuse.append("data=NULL with elements")
    if bits < 8 and not padded and count > 0 and not is_packed_c_order(shape, strides):
        refuse.append("packed sub-byte elements not in C order")
    data = sent["data"] or 0
    if sent["byte_offset"] > INT64_MAX:
        refuse.append("byte_offset above INT64_MAX")
    if data + sent["byte_offset"] >= ADDRESS_LIMIT:
        refuse.append("data + byte_offset overflows the address space")
    if count > 0 and strides is not None and not (bits < 8 and not padded):
        # Packed sub-byte data is held to C order above instead.
        low, high = offset_range(shape, strides)
        if (high - low) * element_bytes(sent["dtype"]) > INT64_MAX:
            refuse.append("strides span more than INT64_MAX bytes (cupy/cupy#10172)")
    if refuse:
        return Verdict("must_refuse", refuse)
    if count > 0:
        low, high = offset_range(shape, strides or c_contiguous_strides(shape))
        item_bits = storage_bits(sent["dtype"], padded)
        first = data + sent["byte_offset"]
        low_byte = first + low * item_bits // 8
        high_byte = first + (high + 1) * item_bits // 8
        if low * item_bits // 8 < INT64_MIN or high * item_bits // 8 > INT64_MAX:
            either.append("element offsets overflow int64")
        if low_byte < 0 or high_byte > ADDRESS_LIMIT:
            either.append("elements outside the address space")
    if device_type == KDL_ONEAPI:
        either.append("kDLOneAPI needs dpctl")
    if sent["versioned"] and strides is None and ndim > 0:
        either.append("versioned tensor with NULL strides")
    if ndim > MAX_PLAIN_NDIM:
        either.append(f"ndim {ndim}")
    return Verdict("either", either) if either else Verdict("must_accept")


def expected_device(sent: dict[str, Any]) -> tuple[int, int]:
    device_type, device_id = sent["device"]
    return (device_type, 0 if device_type in ONE_PER_MACHINE else device_id)


def expected_strides(sent: dict[str, Any]) -> list[int]:
    shape, strides = dims_of(sent)
    return strides if strides is not None else c_contiguous_strides(shape)


def same_layout(shape: list[int], got: list[int], want: list[int]) -> bool:
    """Strides agree wherever they address memory: on axes longer than 1
    of a tensor with elements."""
    if element_count(shape) == 0:
        return len(got) == len(want)
    return all(g == w for s, g, w in zip(shape, got, want, strict=True) if s > 1)
