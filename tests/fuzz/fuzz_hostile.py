"""Hostile DLPack producers: configurations of ``abi.Producer`` to fuzz with.

A configuration (:class:`Hostile`) is drawn in two steps.  :func:`tame`
draws a well-formed tensor over a real buffer big enough for every element
it describes; :func:`hostile` then replaces a few of its fields with
malformed values (negative or huge ndim, extents, strides and offsets,
every dtype code/bits/lanes, other versions, every flag bit, unknown
devices, NULL data or shape, wrong or consumed capsule names, no deleter).
A tensor whose fields stayed tame can be read safely; the others are never
read (``buffer_safe``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

import abi
import fuzz_model
from hypothesis import strategies as st

#: The capsule is renamed to NULL (a capsule may have no name at all).
NULL_NAME = "NULL"

#: Ways to import: through from_dlpack (the C fast path, or the Python path
#: with copy=False) or by consuming a capsule.  The reading routes copy the
#: data, so they are drawn only for tensors whose elements lie in the buffer.
ROUTES = ("from_dlpack", "from_dlpack_copy_false", "consume")
READING_ROUTES = ("from_dlpack_copy_true", "from_dlpack_device_cpu")


@dataclass(frozen=True)
class Hostile:
    """One producer configuration, printed as the reproducer of a failure."""

    versioned: bool = True
    version: tuple[int, int] = (1, 3)
    flags: int = 0
    shape: tuple[int, ...] = (4,)
    ndim: int | None = None
    strides: str | tuple[int, ...] = "default"  # or "NULL"
    null_shape: bool = False
    dtype: tuple[int, int, int] = (2, 32, 1)
    buffer_size: int = 16
    data: str | int | None = "buffer"
    data_offset: int = 0
    byte_offset: int = 0
    device: tuple[int, int] = (1, 0)
    deleter: bool = True
    rename: bytes | str | None = None  # None: keep the DLPack name
    route: str = "from_dlpack"
    seed: int = 0

    def producer_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = dict(
            versioned=self.versioned,
            version=self.version,
            flags=self.flags,
            shape=self.shape,
            ndim=self.ndim,
            null_shape=self.null_shape,
            dtype=self.dtype,
            payload=random.Random(self.seed).randbytes(self.buffer_size),
            data=self.data,
            data_offset=self.data_offset,
            byte_offset=self.byte_offset,
            device=self.device,
            deleter=self.deleter,
        )
        if self.strides == "NULL":
            kwargs["strides"] = None
        elif self.strides != "default":
            kwargs["strides"] = self.strides
        return kwargs


class RecordingProducer(abi.Producer):
    """An ``abi.Producer`` that keeps what each of its tensors held when it
    was made (``sent``), then renames the capsule if asked to."""

    def __init__(self, *, rename: bytes | str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rename = rename
        self.sent: list[dict[str, Any]] = []

    def make_capsule(self, *, versioned: bool | None = None) -> Any:
        capsule = super().make_capsule(versioned=versioned)
        self.sent.append(abi.read_capsule(capsule))
        if self.rename == NULL_NAME:
            if abi.PyCapsule_SetName(capsule, None) != 0:
                raise RuntimeError("PyCapsule_SetName failed")
        elif self.rename is not None:
            abi.set_capsule_name(capsule, self.rename)
        return capsule

    def capsule_name_given(self) -> bytes | None:
        """The name the capsule was handed over with."""
        if self.rename is None:
            return abi.VERSIONED_NAME if self.sent[-1]["versioned"] else abi.LEGACY_NAME
        return None if self.rename == NULL_NAME else self.rename


def make_producer(case: Hostile) -> RecordingProducer:
    return RecordingProducer(rename=case.rename, **case.producer_kwargs())


# ---- the tame tensor ----

TABLE_DTYPES = [(code, bits, 1) for (code, bits) in fuzz_model.DTYPE_TABLE]


@st.composite
def tame(draw: st.DrawFn) -> Hostile:
    """A well-formed tensor over a buffer that holds every element."""
    dtype = draw(st.sampled_from(TABLE_DTYPES))
    versioned = draw(st.booleans())
    padded = versioned and dtype[1] < 8 and draw(st.booleans())
    shape = draw(st.lists(st.integers(0, 4), max_size=4))
    packed = dtype[1] < 8 and not padded
    strides_kind = draw(st.sampled_from(["default", "NULL", "given"]))
    strides: str | tuple[int, ...] = strides_kind
    if strides_kind == "given":
        if packed:
            strides = tuple(fuzz_model.c_contiguous_strides(shape))
        else:
            n = len(shape)
            strides = tuple(draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)))
    elif strides_kind == "NULL" and versioned and shape:
        strides = "default"  # NULL strides are a legacy tensor's only
    effective = fuzz_model.c_contiguous_strides(shape) if isinstance(strides, str) else strides
    item_bits = fuzz_model.storage_bits(dtype, padded)
    count = fuzz_model.element_count(shape)
    low, high = fuzz_model.offset_range(shape, list(effective)) if count else (0, -1)
    low_byte = low * item_bits // 8
    high_byte = ((high + 1) * item_bits + 7) // 8 if count else 0
    data_offset = draw(st.integers(0, 3))
    byte_offset = -low_byte + draw(st.integers(0, 8))
    flags = draw(st.sets(st.sampled_from([1, 2])).map(sum)) | (4 if padded else 0)
    device_id = draw(st.sampled_from([0, 0, 0, 1, 7]))
    return Hostile(
        versioned=versioned,
        version=(1, draw(st.integers(0, 5))),
        flags=flags if versioned else 0,
        shape=tuple(shape),
        strides=strides,
        dtype=dtype,
        buffer_size=data_offset + byte_offset + high_byte + draw(st.integers(0, 8)),
        data_offset=data_offset,
        byte_offset=byte_offset,
        device=(draw(st.sampled_from([1, 1, 1, 2, 3, 13, 4, 7, 10, 12, 14, 18])), device_id),
        seed=draw(st.integers(0, 2**32)),
    )


# ---- the hostile mutations ----

INT64S = st.one_of(
    st.sampled_from([-(2**63), -(2**62), -1, 0, 1, 2**31, 2**62, 2**63 - 1]),
    st.integers(-(2**63), 2**63 - 1),
)
UINT64S = st.one_of(
    st.sampled_from([2**63, 2**64 - 1, 2**63 - 1, 2**62, 2**32, 2**64 - 4096]),
    st.integers(0, 2**64 - 1),
)
INT32S = st.integers(-(2**31), 2**31 - 1)
UINT32S = st.integers(0, 2**32 - 1)

BAD_NAMES = [
    b"tensor",
    b"DLTENSOR",
    b"dltensor_v2",
    b"dltensor_versioned2",
    b"used_tensor",
    b"",
    b"used_dltensor",
    b"used_dltensor_versioned",
    NULL_NAME,
]


def _ndim_mutation(case: Hostile, draw: st.DrawFn) -> Hostile:
    kind = draw(st.sampled_from(["negative", "more", "fewer", "many"]))
    if kind == "negative":
        return replace(case, ndim=draw(st.integers(-(2**31), -1)))
    if kind == "more":
        return replace(case, ndim=len(case.shape) + draw(st.integers(1, 3)), strides="default")
    if kind == "fewer":
        return replace(case, ndim=draw(st.integers(0, len(case.shape))))
    # Many dimensions, each really there in the shape array.
    n = draw(st.integers(65, 4096))
    extents = [1] * n
    for _ in range(draw(st.integers(0, 3))):
        extents[draw(st.integers(0, n - 1))] = draw(st.sampled_from([0, 2, 2**62, -1]))
    return replace(case, shape=tuple(extents), strides="default")


def _mutate(case: Hostile, field_name: str, draw: st.DrawFn) -> Hostile:
    if field_name == "ndim":
        return _ndim_mutation(case, draw)
    if field_name == "shape":
        n = draw(st.integers(0, 5))
        shape = tuple(draw(st.lists(INT64S, min_size=n, max_size=n)))
        return replace(case, shape=shape, strides="default", ndim=None)
    if field_name == "strides":
        n = case.ndim if case.ndim is not None else len(case.shape)
        n = min(max(n, 0), len(case.shape))
        strides = tuple(draw(st.lists(INT64S, min_size=n, max_size=n)))
        return replace(case, strides=draw(st.sampled_from([strides, "NULL"])))
    if field_name == "null_shape":
        return replace(case, null_shape=True)
    if field_name == "byte_offset":
        return replace(case, byte_offset=draw(UINT64S))
    if field_name == "data":
        data = draw(st.sampled_from([None, 1, 2**63, 2**64 - 1, 2**64 - 16, 4096]))
        return replace(case, data=data)
    if field_name == "dtype":
        code = draw(st.one_of(st.integers(0, 20), st.integers(0, 255)))
        some_bits = st.sampled_from([0, 1, 4, 6, 8, 16, 24, 32, 64, 128, 255])
        bits = draw(st.one_of(some_bits, st.integers(0, 255)))
        lanes = draw(st.one_of(st.sampled_from([0, 1, 2, 4, 65535]), st.integers(0, 65535)))
        return replace(case, dtype=(code, bits, lanes))
    if field_name == "version":
        major = draw(st.one_of(st.sampled_from([0, 1, 2, 255, 2**32 - 1]), UINT32S))
        return replace(case, versioned=True, version=(major, draw(UINT32S)))
    if field_name == "flags":
        flags = draw(st.one_of(st.integers(0, 7), st.integers(0, 2**64 - 1)))
        return replace(case, versioned=True, flags=flags)
    if field_name == "device":
        device_type = draw(
            st.one_of(st.sampled_from([-1, 0, 5, 6, 19, 20, 99, 2**31 - 1, -(2**31)]), INT32S)
        )
        return replace(case, device=(device_type, draw(INT32S)))
    if field_name == "device_id":
        return replace(case, device=(case.device[0], draw(INT32S)))
    if field_name == "name":
        return replace(case, rename=draw(st.sampled_from(BAD_NAMES)))
    if field_name == "deleter":
        return replace(case, deleter=False)
    raise AssertionError(field_name)


MUTABLE_FIELDS = [
    "ndim",
    "shape",
    "strides",
    "null_shape",
    "byte_offset",
    "data",
    "dtype",
    "version",
    "flags",
    "device",
    "device_id",
    "name",
    "deleter",
]


@st.composite
def hostile(draw: st.DrawFn) -> Hostile:
    """A tame tensor with up to three fields made hostile, and a route."""
    case = draw(tame())
    fields = draw(st.lists(st.sampled_from(MUTABLE_FIELDS), max_size=3, unique=True))
    for field_name in fields:
        case = _mutate(case, field_name, draw)
    routes = ROUTES + (READING_ROUTES if buffer_safe(case) and case.device[0] == 1 else ())
    return replace(case, route=draw(st.sampled_from(routes)))


def buffer_safe(case: Hostile) -> bool:
    """Every element the tensor describes lies in the producer's buffer
    (so it may be read), as far as the fields are concerned."""
    if case.data != "buffer" or case.null_shape:
        return False
    ndim = len(case.shape) if case.ndim is None else case.ndim
    if ndim < 0 or ndim > len(case.shape) or ndim > 32:
        return False
    shape = list(case.shape[:ndim])
    count = fuzz_model.element_count(shape)
    if count < 0 or count > 4096:
        return False
    if count == 0:
        return True
    strides = (
        fuzz_model.c_contiguous_strides(shape)
        if isinstance(case.strides, str)
        else list(case.strides[:ndim])
    )
    if len(strides) != ndim:
        return False
    padded = case.versioned and case.dtype[1] < 8 and bool(case.flags & fuzz_model.FLAG_PADDED)
    if case.dtype[1] < 8 and not padded and not fuzz_model.is_packed_c_order(shape, strides):
        return True  # refused before anything is read
    item_bits = fuzz_model.storage_bits(case.dtype, padded)
    low, high = fuzz_model.offset_range(shape, strides)
    first = case.data_offset + case.byte_offset
    return first + low * item_bits // 8 >= 0 and (
        first + ((high + 1) * item_bits + 7) // 8 <= case.buffer_size
    )
