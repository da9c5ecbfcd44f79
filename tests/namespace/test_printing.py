"""repr and str of arrays (dlarray._api.printing).

The oracles are independent of the code under test: NumPy's own ``str`` and
``tolist`` of the same values, ``eval`` of the repr, ml_dtypes' reading of
the extended formats' codes, and the stand-in CUDA runtime's log of what was
copied.
"""

from __future__ import annotations

import ast
import json
import math
import re
import subprocess
import sys
import textwrap

import abi
import numpy as np
import pytest
from fake_cuda import FakeRuntime, stand_in

import dlarray
from dlarray import subbyte
from dlarray._api import printing
from dlarray._array import retag
from dlarray._dtypes import DTYPES_BY_NAME
from dlarray._engine import numpy_engine
from dlarray._float_formats import decode_all

NATIVE = [d for d in DTYPES_BY_NAME.values() if d.kind != "extended floating"]
EXTENDED = [d for d in DTYPES_BY_NAME.values() if d.kind == "extended floating"]
EVAL_NAMES = {"dlarray": dlarray, "Device": dlarray.Device, "inf": math.inf, "nan": math.nan}


def sample(dtype, n: int = 6) -> np.ndarray:
    """n values of a native dtype, with its extremes, and inf, nan, -0.0 for floats."""
    np_dtype = np.dtype(dtype.name)
    if np_dtype.kind == "b":
        return np.arange(n) % 3 == 0
    if np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        return np.array([info.min, info.max, *range(n - 2)], dtype=np_dtype)
    special = [np.inf, -np.inf, np.nan, -0.0, 0.1, 2.5e-3]
    reals = np.array(special + list(range(n - len(special))))
    values = np.empty(n, dtype=np_dtype)
    if np_dtype.kind == "c":
        values.real, values.imag = reals, reals[::-1]
    else:
        values[...] = reals
    return values


def host(a: np.ndarray) -> dlarray.DLArray:
    return dlarray.asarray(a, copy=True)


def extended_from_codes(codes, dtype, *, packed: bool = False) -> dlarray.DLArray:
    """An extended-dtype array holding ``codes``, built without ml_dtypes."""
    codes = np.asarray(codes)
    if dtype.is_subbyte:
        return subbyte.from_codes(codes, dtype, padded=not packed)
    return retag(dlarray.asarray(codes.astype(f"u{dtype.bits // 8}")), dtype)


def all_codes(dtype) -> np.ndarray:
    """Every code of an 8-bit-or-narrower format; 600 spread codes of bfloat16."""
    if dtype.bits == 16:
        return np.linspace(0, 0xFFFF, 600).astype(np.uint16)
    return np.arange(1 << dtype.bits, dtype=np.uint8)


def ml_values(codes: np.ndarray, dtype) -> np.ndarray:
    """The values ml_dtypes reads from ``codes``, as float64."""
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is the reference reader")
    with np.errstate(invalid="ignore"):
        return codes.view(getattr(ml_dtypes, dtype.name)).astype(np.float64)


def assert_same_values(a: np.ndarray, b: np.ndarray) -> None:
    """Equal shape and values, NaN equal to NaN (of either sign: a NaN's
    sign does not print), -0.0 told from 0.0."""
    assert a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    if a.dtype.kind in "fc":
        numbers = ~np.isnan(a.real)
        assert (np.signbit(a.real) == np.signbit(b.real))[numbers].all()


def stated_shape(text: str) -> tuple[int, ...]:
    return ast.literal_eval(re.search(r"shape=(\([\d, ]*\))", text).group(1))


def listing_of(text: str):
    """The nested list of a summarised repr, ``...`` read as Ellipsis."""
    body = text[len("dlarray.asarray(") : text.index(", shape=")]
    return ast.literal_eval(body)


# ---- small arrays: the asarray call, byte for byte ----


@pytest.mark.parametrize("dtype", NATIVE, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(), (6,), (2, 3), (3, 1, 2)], ids=str)
def test_small_repr_is_the_asarray_call_of_the_nested_list(dtype, shape):
    a = sample(dtype).reshape(shape) if shape else sample(dtype)[4]
    x = host(np.asarray(a))
    assert repr(x) == f"dlarray.asarray({np.asarray(a).tolist()!r}, dtype=dlarray.{dtype.name})"


def test_repr_of_the_docs_examples_is_unchanged():
    assert repr(dlarray.asarray([1, 2], dtype=dlarray.int8)) == (
        "dlarray.asarray([1, 2], dtype=dlarray.int8)"
    )
    assert repr(dlarray.asarray([[1.0, 2.0], [3.0, 4.0]])) == (
        "dlarray.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=dlarray.float64)"
    )
    assert repr(dlarray.sum(dlarray.asarray([1.0, 2.0]))) == (
        "dlarray.asarray(3.0, dtype=dlarray.float64)"
    )


@pytest.mark.parametrize("dtype", NATIVE, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(), (6,), (3, 2)], ids=str)
def test_repr_evaluates_to_an_equal_array(dtype, shape):
    a = sample(dtype).reshape(shape) if shape else np.asarray(sample(dtype)[2])
    if a.dtype.kind == "c":
        # Python writes complex(nan, inf) as (nan+infj), which does not
        # evaluate; real inf and nan do, given the names.
        a = np.where(np.isfinite(a), a, 1.5 - 0.0j)
    y = eval(repr(host(a)), EVAL_NAMES)
    assert (y.dtype, y.shape) == (dtype, shape)
    assert_same_values(np.from_dlpack(y), a)


@pytest.mark.parametrize(
    ("dtype", "packed"),
    [*((d, False) for d in EXTENDED), *((d, True) for d in EXTENDED if d.is_subbyte)],
    ids=lambda v: v.name if isinstance(v, dlarray.DType) else ("packed" if v else "padded"),
)
def test_repr_of_an_extended_dtype_evaluates_to_an_equal_array(dtype, packed):
    codes = all_codes(dtype)
    expected = ml_values(codes, dtype)  # asarray of floats to these dtypes needs ml_dtypes too
    y = eval(repr(extended_from_codes(codes, dtype, packed=packed)), EVAL_NAMES)
    assert (y.dtype, y.shape) == (dtype, codes.shape)
    if dtype.is_subbyte and not y._padded:
        y = subbyte.pad(y)
    with np.errstate(invalid="ignore"):
        assert_same_values(numpy_engine.to_numpy(y).astype(np.float64), expected)


# ---- views and flags ----


def test_views_with_negative_strides_and_read_only_arrays_print_their_elements():
    a = np.arange(12.0).reshape(3, 4)
    view = host(a)[::-1, ::-2]
    assert repr(view) == f"dlarray.asarray({a[::-1, ::-2].tolist()!r}, dtype=dlarray.float64)"
    assert str(view) == str(a[::-1, ::-2])
    frozen = dlarray.asarray(b"abc")
    assert frozen.readonly
    assert repr(frozen) == "dlarray.asarray([97, 98, 99], dtype=dlarray.uint8)"
    assert str(frozen) == "[97 98 99]"


# ---- summarised arrays ----


def test_the_repr_of_ten_million_elements_is_short():
    x = dlarray.arange(10_000_000)
    text = repr(x)
    assert len(text) < 1000
    assert text == (
        "dlarray.asarray([0, 1, 2, ..., 9999997, 9999998, 9999999], "
        "shape=(10000000,), dtype=dlarray.int64)"
    )
    assert len(str(x)) < 200


def test_summarising_starts_above_numpys_threshold():
    at = repr(dlarray.arange(printing.THRESHOLD))
    above = repr(dlarray.arange(printing.THRESHOLD + 1))
    assert "..." not in at and "shape=" not in at
    assert "..." in above and stated_shape(above) == (printing.THRESHOLD + 1,)
    assert (printing.THRESHOLD, printing.EDGE_ITEMS) == (
        np.get_printoptions()["threshold"],
        np.get_printoptions()["edgeitems"],
    )


def corners_match(listing, a: np.ndarray) -> None:
    """``listing`` shows ``a``: in full along short axes, its first and last
    three entries around an Ellipsis along long ones."""
    if a.ndim == 0:
        assert listing == a.item()
        return
    if len(a) > 6:
        assert listing[3] is Ellipsis and len(listing) == 7
        pairs = [*zip(listing[:3], a[:3], strict=True), *zip(listing[4:], a[-3:], strict=True)]
    else:
        assert len(listing) == len(a)
        pairs = list(zip(listing, a, strict=True))
    for shown, part in pairs:
        corners_match(shown, part)


SUMMARISED = [(1001,), (2, 1000), (1000, 2), (40, 40), (10, 11, 12), (3, 400), (7, 7, 7, 7)]


@pytest.mark.parametrize("shape", SUMMARISED, ids=str)
@pytest.mark.parametrize("layout", ["c", "reversed", "transposed"])
def test_summarised_repr_shows_the_corners_and_states_the_shape(shape, layout):
    a = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
    x = host(a)
    if layout == "reversed":
        a, x = a[::-1], x[::-1]
    elif layout == "transposed":
        a, x = a.T, x.T
    text = repr(x)
    assert stated_shape(text) == a.shape
    assert text.endswith(f", shape={a.shape}, dtype=dlarray.int32)")
    corners_match(listing_of(text), a)


@pytest.mark.parametrize("shape", [*SUMMARISED, (1000,), (5, 5)], ids=str)
def test_str_is_numpys_str_of_the_same_values(shape):
    a = np.linspace(-1e3, 1e5, math.prod(shape)).reshape(shape)
    a.flat[1] = np.nan
    assert str(host(a)) == str(a)
    assert str(host(a)[::-1]) == str(a[::-1])


@pytest.mark.parametrize("dtype", NATIVE, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(), (6,), (2, 3)], ids=str)
def test_str_of_every_dtype_and_rank_is_numpys(dtype, shape):
    a = sample(dtype).reshape(shape) if shape else np.asarray(sample(dtype)[3])
    assert str(host(a)) == str(a)


def test_str_follows_numpys_print_options():
    a = np.array([1 / 3, 2 / 3, 1e-9])
    with np.printoptions(precision=3, suppress=True):
        assert str(host(a)) == str(a) == "[0.333 0.667 0.   ]"


def test_print_uses_str(capsys):
    print(dlarray.asarray([1.0, 2.0, 3.0]))
    assert capsys.readouterr().out == "[1. 2. 3.]\n"


# ---- arrays with no elements ----


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4)], ids=str)
@pytest.mark.parametrize("dtype", [dlarray.float64, dlarray.bool, dlarray.bfloat16], ids=str)
def test_an_empty_array_prints_its_shape(shape, dtype):
    x = dlarray.empty(shape, dtype=dtype)
    assert repr(x) == f"dlarray.empty({shape}, dtype={dtype!r})"
    y = eval(repr(x), EVAL_NAMES)
    assert (y.shape, y.dtype) == (shape, dtype)
    assert str(x) == str(np.empty(shape)) == "[]"


# ---- the extended floating dtypes ----


@pytest.mark.parametrize("dtype", EXTENDED, ids=lambda d: d.name)
def test_extended_values_print_as_ml_dtypes_reads_them(dtype):
    codes = all_codes(dtype)
    expected = ml_values(codes, dtype)
    x = extended_from_codes(codes, dtype)
    assert repr(x) == f"dlarray.asarray({expected.tolist()!r}, dtype={dtype!r})"
    assert str(x) == str(expected)


@pytest.mark.parametrize("dtype", [d for d in EXTENDED if d.is_subbyte], ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(5,), (3, 7), (41, 50), (2001,)], ids=str)
def test_packed_and_padded_subbyte_arrays_print_the_same_values(dtype, shape):
    codes = np.random.default_rng(1).integers(0, 1 << dtype.bits, size=shape, dtype=np.uint8)
    packed = extended_from_codes(codes, dtype, packed=True)
    padded = extended_from_codes(codes, dtype)
    assert repr(packed) == repr(padded)
    assert str(packed) == str(padded)
    # The values, read from the table (tests/namespace/test_extended_floats.py checks it
    # against ml_dtypes), laid out by NumPy.
    values = np.array(decode_all(codes.ravel().tolist(), dtype)).reshape(shape)
    assert str(packed) == str(values)


def test_a_packed_view_prints_its_own_elements():
    codes = np.arange(16, dtype=np.uint8)
    x = extended_from_codes(codes, dlarray.float4_e2m1fn, packed=True)
    view = x[2:7]  # starts at byte 1; ends inside byte 3
    assert view._byte_offset == 1
    assert str(view) == str(np.array(decode_all(codes[2:7].tolist(), dlarray.float4_e2m1fn)))
    assert repr(view) == "dlarray.asarray([1.0, 1.5, 2.0, 3.0, 4.0], dtype=dlarray.float4_e2m1fn)"


def test_a_summarised_bfloat16_array_shows_its_corners():
    a = np.arange(5000, dtype=np.float64).reshape(50, 100)
    x = dlarray.astype(host(a), dlarray.bfloat16) if _has_ml_dtypes() else None
    if x is None:
        pytest.skip("casting to bfloat16 needs ml_dtypes")
    shown = listing_of(repr(x))
    rounded = ml_values(numpy_engine.to_numpy(retag(x, dlarray.uint16)).copy(), dlarray.bfloat16)
    corners_match(shown, rounded)


def _has_ml_dtypes() -> bool:
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        return False
    return True


_WITHOUT_ML_DTYPES = textwrap.dedent(
    """
    import json, sys
    sys.modules["ml_dtypes"] = None          # import ml_dtypes now fails
    import numpy as np
    import dlarray
    from dlarray import subbyte
    from dlarray._array import retag
    try:
        import ml_dtypes
        raise SystemExit("ml_dtypes is still importable")
    except ImportError:
        pass
    arrays = [
        retag(dlarray.asarray(np.arange(0, 65536, 97, dtype=np.uint16)), dlarray.bfloat16),
        retag(dlarray.asarray(np.arange(256, dtype=np.uint8)), dlarray.float8_e4m3fn),
        retag(dlarray.asarray(np.arange(256, dtype=np.uint8).reshape(16, 16)),
              dlarray.float8_e5m2fnuz),
        subbyte.from_codes(np.arange(64, dtype=np.uint8) % 16, dlarray.float4_e2m1fn),
        subbyte.from_codes(np.arange(3000, dtype=np.uint8).reshape(30, 100) % 64,
                           dlarray.float6_e3m2fn),
    ]
    print(json.dumps([[repr(x), str(x)] for x in arrays]))
    """
)


def test_extended_dtypes_print_the_same_without_ml_dtypes():
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_ML_DTYPES], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    without = json.loads(done.stdout)
    arrays = [
        extended_from_codes(np.arange(0, 65536, 97, dtype=np.uint16), dlarray.bfloat16),
        extended_from_codes(np.arange(256), dlarray.float8_e4m3fn),
        extended_from_codes(np.arange(256).reshape(16, 16), dlarray.float8_e5m2fnuz),
        extended_from_codes(np.arange(64) % 16, dlarray.float4_e2m1fn, packed=True),
        extended_from_codes(
            np.arange(3000).reshape(30, 100) % 64, dlarray.float6_e3m2fn, packed=True
        ),
    ]
    assert without == [[repr(x), str(x)] for x in arrays]
    for text, _ in without:
        assert "elements>" not in text and "<unreadable>" not in text


def test_extended_dtypes_print_when_the_engine_cannot_reach_ml_dtypes(monkeypatch):
    x = extended_from_codes([0x3F80, 0xC000, 0x7F80], dlarray.bfloat16)

    def missing():
        raise TypeError("ml_dtypes is not installed")

    monkeypatch.setattr(numpy_engine, "_ml_dtypes", missing)
    monkeypatch.setattr(numpy_engine, "_NUMPY_DTYPES", {})
    assert repr(x) == "dlarray.asarray([1.0, -2.0, inf], dtype=dlarray.bfloat16)"
    assert str(x) == "[ 1. -2. inf]"


# ---- memory the host cannot read directly ----


@pytest.fixture
def fake():
    with stand_in(gpus=2) as rt:
        yield rt


def on_device(text: str, device: dlarray.Device) -> str:
    """A host repr with the device argument added."""
    assert text.endswith(")")
    return f"{text[:-1]}, device={device!r})"


def copied_bytes(rt: FakeRuntime) -> list[int]:
    return [call[1] for call in rt.calls if call[0] == "memcpy"]


@pytest.mark.parametrize("kind", ["cuda", "cuda_managed", "cuda_host"])
def test_a_small_device_array_prints_its_values_and_device(fake, kind):
    a = np.arange(6.0).reshape(2, 3)
    x = dlarray.asarray(a, device=kind)
    fake.calls.clear()
    text = repr(x)
    assert copied_bytes(fake) == [a.nbytes]  # one copy of the whole array
    assert text == on_device(repr(host(a)), x.device)
    assert str(x) == str(a)  # str leaves the device out, as NumPy and CuPy do
    y = eval(text, EVAL_NAMES)
    assert y.device == x.device
    assert_same_values(np.from_dlpack(y.to_device("cpu")), a)


@pytest.mark.parametrize("layout", ["c", "transposed", "stepped"])
def test_a_summarised_device_array_copies_only_its_corners(fake, layout):
    a = np.arange(1_000_000.0).reshape(1000, 1000)
    x = dlarray.asarray(a, device=dlarray.Device("cuda", 1))
    if layout == "transposed":
        a, x = a.T, x.T
    elif layout == "stepped":
        a, x = a[::-3, ::7], x[::-3, ::7]
    fake.calls.clear()
    text = repr(x)
    copied = copied_bytes(fake)
    assert len(copied) == 7 * 2  # a run at each end of 7 rows
    if layout == "c":
        assert sum(copied) == 7 * 7 * 8  # 49 float64s, not 8 MB
    assert text == on_device(repr(host(np.ascontiguousarray(a))), x.device)
    assert str(x) == str(a)


def test_extended_dtypes_on_a_device_print_their_values(fake):
    codes = np.arange(0, 65536, 37, dtype=np.uint16)
    b = extended_from_codes(codes, dlarray.bfloat16).to_device("cuda")
    assert repr(b) == on_device(repr(extended_from_codes(codes, dlarray.bfloat16)), b.device)
    fp4 = np.arange(3001) % 16
    p = extended_from_codes(fp4, dlarray.float4_e2m1fn, packed=True).to_device("cuda")
    assert not p._padded
    host_twin = extended_from_codes(fp4, dlarray.float4_e2m1fn, packed=True)
    assert repr(p) == on_device(repr(host_twin), p.device)
    assert str(p) == str(host_twin)


def test_an_empty_device_array_prints_without_a_copy(fake):
    x = dlarray.zeros((0, 3), device="cuda")
    fake.calls.clear()
    assert repr(x) == "dlarray.empty((0, 3), dtype=dlarray.float64, device=Device('cuda', 0))"
    assert str(x) == "[]"
    assert copied_bytes(fake) == []


def test_memory_dlarray_cannot_copy_prints_shape_dtype_and_device():
    x = dlarray.from_dlpack(abi.Producer(device=(10, 0), shape=(2, 3)))  # ROCm memory
    expected = (
        "dlarray.asarray(<unreadable>, shape=(2, 3), dtype=dlarray.float32, "
        "device=Device('rocm', 0))"
    )
    assert repr(x) == expected
    assert str(x) == expected
