"""Sub-byte dtypes (fp6, fp4): packing, padding, codes, export flags, views.

DLPack packs sub-byte elements little bit-endian: element ``i`` occupies bits
``[i*bits, (i+1)*bits)`` of the buffer, counting from the least significant
bit of byte 0.  ``reference_pack`` below computes that layout with Python
integers, independently of the NumPy bit routines dlarray uses.
"""

from __future__ import annotations

import numpy as np
import pytest

import dlarray
from dlarray import _core, subbyte
from dlarray._engine import numpy_engine

ml_dtypes = pytest.importorskip("ml_dtypes")

SUBBYTE = [dlarray.float4_e2m1fn, dlarray.float6_e2m3fn, dlarray.float6_e3m2fn]
SUBBYTE_IDS = [d.name for d in SUBBYTE]
VERSIONED = (1, 3)
PADDED_FLAG = _core.FLAG_IS_SUBBYTE_TYPE_PADDED


def reference_pack(codes, bits: int) -> bytes:
    """Little bit-endian packing, from first principles."""
    flat = [int(c) for c in np.asarray(codes).reshape(-1)]
    stream = sum(c << (i * bits) for i, c in enumerate(flat))
    return stream.to_bytes((len(flat) * bits + 7) // 8, "little")


def packed(x: dlarray.DLArray) -> bytes:
    return numpy_engine.to_numpy(subbyte.packed_bytes(x)).tobytes()


def codes_of(x: dlarray.DLArray) -> np.ndarray:
    return numpy_engine.to_numpy(subbyte.to_codes(x))


def random_codes(shape, bits: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 1 << bits, size=shape, dtype=np.uint8)


def address(x: dlarray.DLArray) -> int:
    return x._data + x._byte_offset


# ---- the bit layout, by hand ----

HAND_PACKED = [
    # fp4: low nibble first.
    pytest.param(dlarray.float4_e2m1fn, [1, 2, 3, 15], b"\x21\xf3", id="fp4_even"),
    pytest.param(dlarray.float4_e2m1fn, [1, 2, 3], b"\x21\x03", id="fp4_odd"),
    pytest.param(dlarray.float4_e2m1fn, [15], b"\x0f", id="fp4_single"),
    # fp6 codes 1, 63, 42, 21 = 0b000001, 0b111111, 0b101010, 0b010101:
    #   byte 0 = c1[1:0] c0[5:0] = 11 000001      = 0xC1
    #   byte 1 = c2[3:0] c1[5:2] = 1010 1111      = 0xAF
    #   byte 2 = c3[5:0] c2[5:4] = 010101 10      = 0x56
    pytest.param(dlarray.float6_e2m3fn, [1, 63, 42, 21], b"\xc1\xaf\x56", id="fp6_four"),
    pytest.param(dlarray.float6_e3m2fn, [1, 63, 42, 21], b"\xc1\xaf\x56", id="fp6_e3m2_four"),
    # five fp6 codes: 30 bits in 4 bytes; c4 = 0b100011 fills bits 24..29,
    # the top two bits of byte 3 stay zero: 00 100011 = 0x23
    pytest.param(dlarray.float6_e2m3fn, [1, 63, 42, 21, 35], b"\xc1\xaf\x56\x23", id="fp6_odd"),
    # one fp6 code 0b111111 in the low six bits of a byte
    pytest.param(dlarray.float6_e2m3fn, [63], b"\x3f", id="fp6_single"),
]


@pytest.mark.parametrize(("dtype", "codes", "want"), HAND_PACKED)
def test_from_codes_packs_little_bit_endian(dtype, codes, want):
    x = subbyte.from_codes(codes, dtype)
    assert not x._padded
    assert x.dtype is dtype
    assert x.shape == (len(codes),)
    assert packed(x) == want
    assert reference_pack(codes, dtype.bits) == want  # the oracle agrees with the hand


@pytest.mark.parametrize(("dtype", "codes", "want"), HAND_PACKED)
def test_to_codes_unpacks_hand_packed_bytes(dtype, codes, want):
    x = dlarray.empty(len(codes), dtype=dtype)
    numpy_engine.to_numpy(subbyte.packed_bytes(x))[...] = np.frombuffer(want, np.uint8)
    got = subbyte.to_codes(x)
    assert got.dtype is dlarray.uint8
    assert np.from_dlpack(got).tolist() == codes


# ---- round trips over shapes ----

SHAPES = [(1,), (2,), (3,), (7,), (16,), (33,), (3, 5), (2, 3, 3), (4, 1, 5), ()]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_packed_round_trip_preserves_codes_and_matches_reference_bytes(dtype, shape):
    codes = random_codes(shape, dtype.bits)
    x = subbyte.from_codes(codes, dtype)
    assert x.shape == shape
    assert packed(x) == reference_pack(codes, dtype.bits)
    got = codes_of(x)
    assert got.shape == shape
    assert got.tolist() == codes.tolist()


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_padded_round_trip_stores_one_code_per_byte(dtype, shape):
    codes = random_codes(shape, dtype.bits, seed=1)
    x = subbyte.from_codes(codes, dtype, padded=True)
    assert x._padded
    assert x.shape == shape
    assert numpy_engine.to_numpy(x).view(np.uint8).tolist() == codes.tolist()
    assert codes_of(x).tolist() == codes.tolist()


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_pad_then_pack_restores_the_packed_bytes(dtype, shape):
    codes = random_codes(shape, dtype.bits, seed=2)
    x = subbyte.from_codes(codes, dtype)
    p = subbyte.pad(x)
    assert p._padded and p.shape == shape and p.dtype is dtype
    assert codes_of(p).tolist() == codes.tolist()
    q = subbyte.pack(p)
    assert not q._padded and q.shape == shape and q.dtype is dtype
    assert packed(q) == packed(x)
    assert address(q) != address(x)  # pack and pad copy


@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_every_code_survives_packing(dtype):
    codes = np.arange(1 << dtype.bits, dtype=np.uint8)
    x = subbyte.from_codes(codes, dtype)
    assert codes_of(x).tolist() == codes.tolist()
    assert packed(x) == reference_pack(codes, dtype.bits)


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4, 2)], ids=str)
@pytest.mark.parametrize("padded", [False, True], ids=["packed", "padded"])
@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_zero_size_round_trip(dtype, padded, shape):
    x = subbyte.from_codes(np.zeros(shape, dtype=np.uint8), dtype, padded=padded)
    assert x.shape == shape and x.size == 0 and x._padded == padded
    got = subbyte.to_codes(x)
    assert got.shape == shape
    assert subbyte.pad(x).shape == shape
    assert subbyte.pack(x).shape == shape
    if not padded:
        assert packed(x) == b""


@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_packed_storage_is_exactly_ceil_bits_over_8_bytes(dtype):
    for n in range(1, 17):
        x = subbyte.from_codes(np.zeros(n, dtype=np.uint8), dtype)
        assert subbyte.packed_bytes(x).shape == ((n * dtype.bits + 7) // 8,)


# ---- argument checks ----


@pytest.mark.parametrize(
    ("codes", "dtype", "error"),
    [
        ([16], dlarray.float4_e2m1fn, ValueError),
        ([64], dlarray.float6_e2m3fn, ValueError),
        ([-1], dlarray.float4_e2m1fn, ValueError),
        ([0.5], dlarray.float4_e2m1fn, TypeError),
        ([1], dlarray.uint8, TypeError),
        ([1], dlarray.float8_e4m3fn, TypeError),
    ],
    ids=["fp4_too_big", "fp6_too_big", "negative", "float_codes", "uint8", "fp8"],
)
def test_from_codes_rejects_bad_codes_and_dtypes(codes, dtype, error):
    with pytest.raises(error):
        subbyte.from_codes(codes, dtype)


def test_packed_bytes_refuses_padded_arrays():
    x = subbyte.from_codes([1, 2], dlarray.float4_e2m1fn, padded=True)
    with pytest.raises(ValueError, match="padded"):
        subbyte.packed_bytes(x)


def test_numpy_cannot_view_packed_arrays():
    x = subbyte.from_codes([1, 2], dlarray.float4_e2m1fn)
    assert not numpy_engine.can_view(x)
    with pytest.raises(TypeError, match="packed"):
        numpy_engine.to_numpy(x)


def test_packed_bytes_shares_memory_and_read_only_state():
    raw = dlarray.asarray(b"\x21\xf3")  # read-only bytes
    assert raw.readonly
    fp4 = _core.new_array(raw._owner, raw._data, raw._byte_offset, (4,), None,
                          dlarray.float4_e2m1fn.dlpack, raw._dl_device, _core.ARRAY_READONLY)
    b = subbyte.packed_bytes(fp4)
    assert b.shape == (2,)
    assert address(b) == address(raw)
    assert b.readonly
    assert codes_of(fp4).tolist() == [1, 2, 3, 15]


# ---- export flags ----


@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_packed_export_has_no_padded_flag_and_reimports_packed(dtype):
    codes = random_codes((5,), dtype.bits, seed=3)
    x = subbyte.from_codes(codes, dtype)
    y = _core.consume(x.__dlpack__(max_version=VERSIONED))
    assert y._owner.versioned
    assert y._owner.flags & PADDED_FLAG == 0
    assert not y._padded
    assert y.dtype is dtype
    assert address(y) == address(x)
    assert codes_of(y).tolist() == codes.tolist()


@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_padded_export_sets_is_subbyte_type_padded(dtype):
    codes = random_codes((5,), dtype.bits, seed=4)
    x = subbyte.from_codes(codes, dtype, padded=True)
    y = _core.consume(x.__dlpack__(max_version=VERSIONED))
    assert y._owner.flags & PADDED_FLAG
    assert y._padded
    assert y.dtype is dtype
    assert address(y) == address(x)
    assert codes_of(y).tolist() == codes.tolist()


@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_padded_view_export_keeps_the_flag(dtype):
    x = subbyte.from_codes(random_codes((4, 3), dtype.bits), dtype, padded=True)
    v = x.T[::-1]
    y = _core.consume(v.__dlpack__(max_version=VERSIONED))
    assert y._owner.flags & PADDED_FLAG
    assert codes_of(y).tolist() == codes_of(x).T[::-1].tolist()


@pytest.mark.parametrize(
    ("dtype", "start", "stop"),
    [(dlarray.float4_e2m1fn, 2, 6), (dlarray.float4_e2m1fn, 4, 7), (dlarray.float6_e2m3fn, 4, 8)],
    ids=["fp4[2:6]", "fp4[4:7]", "fp6[4:8]"],
)
def test_packed_view_exports_from_its_first_byte(dtype, start, stop):
    x = subbyte.from_codes(CODES_8, dtype)
    v = x[start:stop]
    y = _core.consume(v.__dlpack__(max_version=VERSIONED))
    assert address(y) == address(x) + start * dtype.bits // 8
    assert y.shape == (stop - start,)
    assert codes_of(y).tolist() == CODES_8[start:stop]


def test_padded_export_refuses_legacy_capsule():
    x = subbyte.from_codes([1, 2, 3], dlarray.float4_e2m1fn, padded=True)
    with pytest.raises(BufferError, match="PADDED"):
        x.__dlpack__(max_version=None)


def test_packed_export_to_legacy_capsule_is_allowed():
    x = subbyte.from_codes([1, 2, 3], dlarray.float4_e2m1fn)
    y = _core.consume(x.__dlpack__(max_version=None))
    assert not y._owner.versioned
    assert not y._padded
    assert codes_of(y).tolist() == [1, 2, 3]


def test_from_dlpack_of_padded_array_keeps_it_padded():
    x = dlarray.asarray([0.5, 1.0, -2.0], dtype=dlarray.float4_e2m1fn)
    y = dlarray.from_dlpack(x)
    assert y._padded
    assert numpy_engine.to_numpy(y).tolist() == numpy_engine.to_numpy(x).tolist()



# ---- is_padded: the layout, through the public function ----


@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_is_padded_says_the_layout_of_arrays_views_and_imports(dtype):
    packed_x = subbyte.from_codes([1, 2, 3, 0], dtype)
    padded_x = subbyte.from_codes([1, 2, 3, 0], dtype, padded=True)
    assert subbyte.is_padded(packed_x) is False
    assert subbyte.is_padded(padded_x) is True
    assert subbyte.is_padded(subbyte.pad(packed_x)) is True
    assert subbyte.is_padded(subbyte.pack(padded_x)) is False
    assert subbyte.is_padded(padded_x[::-1]) is True  # views keep the layout
    assert subbyte.is_padded(packed_x[:2]) is False
    # it agrees with the private attribute it reads, and survives an exchange
    for x in (packed_x, padded_x):
        assert subbyte.is_padded(x) == x._padded
        assert subbyte.is_padded(dlarray.from_dlpack(x)) == x._padded
    assert subbyte.is_padded(dlarray.asarray([0.5, 1.0], dtype=dlarray.float4_e2m1fn))


@pytest.mark.parametrize(
    "x", [dlarray.arange(3), dlarray.asarray([1.0], dtype=dlarray.float8_e4m3fn)],
    ids=["int64", "fp8"],
)
def test_is_padded_rejects_dtypes_with_one_layout(x):
    with pytest.raises(TypeError, match="not a sub-byte dtype"):
        subbyte.is_padded(x)


@pytest.mark.parametrize(
    "x", [[1, 2], np.zeros(2, dtype=np.uint8), None], ids=["list", "ndarray", "None"]
)
def test_is_padded_rejects_non_arrays(x):
    with pytest.raises(TypeError, match="takes a DLArray"):
        subbyte.is_padded(x)

# ---- views of packed arrays stay on byte boundaries ----

CODES_8 = list(range(1, 9))


@pytest.mark.parametrize(
    ("dtype", "view", "want"),
    [
        (dlarray.float4_e2m1fn, lambda x: x[2:6], CODES_8[2:6]),
        (dlarray.float4_e2m1fn, lambda x: x[4:], CODES_8[4:]),
        (dlarray.float4_e2m1fn, lambda x: x[:3], CODES_8[:3]),
        (dlarray.float4_e2m1fn, lambda x: x[6:7], CODES_8[6:7]),
        (dlarray.float6_e2m3fn, lambda x: x[4:8], CODES_8[4:8]),
        (dlarray.float6_e2m3fn, lambda x: x[:5], CODES_8[:5]),
        (dlarray.float6_e3m2fn, lambda x: x[4:], CODES_8[4:]),
        (dlarray.float4_e2m1fn, lambda x: x[None, 2:4], [CODES_8[2:4]]),
        (dlarray.float4_e2m1fn, lambda x: dlarray.reshape(x, (2, 4))[1], CODES_8[4:]),
        (dlarray.float4_e2m1fn, lambda x: dlarray.reshape(x, (4, 2))[1:3], [[3, 4], [5, 6]]),
        (dlarray.float6_e2m3fn, lambda x: dlarray.reshape(x, (2, 4))[1:], [CODES_8[4:]]),
        (dlarray.float4_e2m1fn, lambda x: dlarray.reshape(x, (8, 1)).T, [CODES_8]),
        (dlarray.float4_e2m1fn, lambda x: x[2], 3),
    ],
    ids=["fp4[2:6]", "fp4[4:]", "fp4[:3]", "fp4[6:7]", "fp6[4:8]", "fp6[:5]", "fp6e3m2[4:]",
         "fp4[None,2:4]", "fp4_2x4[1]", "fp4_4x2[1:3]", "fp6_2x4[1:]", "fp4_8x1.T", "fp4[2]"],
)
def test_byte_aligned_contiguous_view_of_packed_array_works(dtype, view, want):
    x = subbyte.from_codes(CODES_8, dtype)
    v = view(x)
    got = codes_of(v)
    assert got.tolist() == want
    offset_bits = (address(v) - address(x)) * 8
    first = CODES_8.index(np.asarray(want).reshape(-1)[0])
    assert offset_bits == first * dtype.bits
    assert v._owner is x._owner


@pytest.mark.parametrize(
    ("dtype", "view"),
    [
        (dlarray.float4_e2m1fn, lambda x: x[1:3]),
        (dlarray.float4_e2m1fn, lambda x: x[3:]),
        (dlarray.float4_e2m1fn, lambda x: x[::2]),
        (dlarray.float4_e2m1fn, lambda x: x[::-1]),
        (dlarray.float4_e2m1fn, lambda x: x[1]),
        (dlarray.float6_e2m3fn, lambda x: x[1:]),
        (dlarray.float6_e2m3fn, lambda x: x[2:6]),
        (dlarray.float6_e3m2fn, lambda x: x[::2]),
        (dlarray.float4_e2m1fn, lambda x: dlarray.reshape(x, (2, 4)).T),
        (dlarray.float4_e2m1fn, lambda x: dlarray.reshape(x, (2, 4))[:, 2:]),
        (dlarray.float4_e2m1fn, lambda x: dlarray.reshape(x, (2, 4))[:, ::-1]),
        (dlarray.float6_e2m3fn, lambda x: dlarray.reshape(x, (4, 2))[:, :1]),
    ],
    ids=["fp4[1:3]", "fp4[3:]", "fp4[::2]", "fp4[::-1]", "fp4[1]", "fp6[1:]", "fp6[2:6]",
         "fp6e3m2[::2]", "fp4_2x4.T", "fp4_2x4[:,2:]", "fp4_2x4[:,::-1]", "fp6_4x2[:,:1]"],
)
def test_view_of_packed_array_off_byte_boundary_or_strided_raises(dtype, view):
    x = subbyte.from_codes(CODES_8, dtype)
    with pytest.raises(ValueError, match="packed"):
        view(x)


@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_padded_arrays_allow_any_view(dtype):
    codes = np.array(CODES_8, dtype=np.uint8)
    x = subbyte.from_codes(codes, dtype, padded=True)
    for dl_view, np_view in [
        (lambda x: x[1:3], lambda a: a[1:3]),
        (lambda x: x[::-3], lambda a: a[::-3]),
        (lambda x: x[5], lambda a: a[5]),
    ]:
        v = dl_view(x)
        assert v._padded
        assert codes_of(v).tolist() == np_view(codes).tolist()
        assert numpy_engine.to_numpy(v).view(np.uint8).tolist() == np_view(codes).tolist()


# ---- values, against ml_dtypes ----


def test_float4_asarray_stores_padded_values_equal_to_ml_dtypes():
    values = [0.5, 1.0, -2.0]
    x = dlarray.asarray(values, dtype=dlarray.float4_e2m1fn)
    assert x.dtype is dlarray.float4_e2m1fn
    assert x._padded
    want = np.array(values, dtype=ml_dtypes.float4_e2m1fn)
    got = numpy_engine.to_numpy(x)
    assert got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()
    assert got.astype(np.float64).tolist() == values
    # e2m1: 0.5 = 0b0001, 1.0 = 0b0010, -2.0 = sign | 0b100 = 0b1100
    assert codes_of(x).tolist() == [0b0001, 0b0010, 0b1100]
    assert packed(subbyte.pack(x)) == b"\x21\x0c"


@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_codes_decode_as_ml_dtypes_does(dtype):
    codes = np.arange(1 << dtype.bits, dtype=np.uint8)
    x = subbyte.pad(subbyte.from_codes(codes, dtype))
    got = numpy_engine.to_numpy(x).astype(np.float64)
    want = codes.view(getattr(ml_dtypes, dtype.name)).astype(np.float64)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", SUBBYTE, ids=SUBBYTE_IDS)
def test_asarray_of_values_encodes_as_ml_dtypes_does(dtype):
    ml = getattr(ml_dtypes, dtype.name)
    values = np.arange(1 << dtype.bits, dtype=np.uint8).view(ml).astype(np.float64)
    values = values[~np.isnan(values)]
    x = dlarray.asarray(values.tolist(), dtype=dtype)
    want_codes = values.astype(ml).view(np.uint8)
    assert codes_of(x).tolist() == want_codes.tolist()
    assert packed(subbyte.pack(x)) == reference_pack(want_codes, dtype.bits)
