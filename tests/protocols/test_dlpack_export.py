"""dlarray's exports, field by field, read through a ctypes mirror of the
DLPack 1.3 ABI (tests/abi.py), and the arguments ``__dlpack__`` accepts.

What is checked here is the binary contract a foreign consumer sees: capsule
names, version, flags, data/byte_offset, shape/strides pointers and values,
the deleter and the capsule destructor.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
import weakref

import abi
import numpy as np
import pytest

import dlarray

VERSIONED = "dltensor_versioned"
LEGACY = "dltensor"


def _grid():
    """A 4x6 float64 array holding 0..23, and the same as NumPy."""
    x = dlarray.reshape(
        dlarray.asarray([float(i) for i in range(24)], dtype=dlarray.float64), (4, 6)
    )
    return x, np.arange(24, dtype=np.float64).reshape(4, 6)


def _first_element(x) -> int:
    return x._data + x._byte_offset


def _gather_float64(info) -> np.ndarray:
    """Read a float64 tensor through nothing but the capsule's fields."""
    assert info["dtype"] == (2, 64, 1)
    out = np.empty(info["shape"], dtype=np.float64)
    base = info["data"] + info["byte_offset"]
    for index in np.ndindex(*info["shape"]):
        offset = sum(i * s for i, s in zip(index, info["strides"], strict=True)) * 8
        out[index] = ctypes.c_double.from_address(base + offset).value
    return out


# ---- capsule name and version ----


@pytest.mark.parametrize(
    ("max_version", "name", "version"),
    [
        (None, LEGACY, None),
        ((0, 0), LEGACY, None),
        ((0, 9), LEGACY, None),
        ((1, 0), VERSIONED, (1, 3)),
        ((1, 3), VERSIONED, (1, 3)),
        ((1, 7), VERSIONED, (1, 3)),
        ((2, 0), VERSIONED, (1, 3)),
        # Either side of the export's inline read of small ints (below
        # 2**30, one digit), and the largest version DLPack's uint32 holds.
        ((2**30 - 1, 0), VERSIONED, (1, 3)),
        ((2**30, 0), VERSIONED, (1, 3)),
        ((0, 2**30), LEGACY, None),
        ((1, 2**32 - 1), VERSIONED, (1, 3)),
        ((2**32 - 1, 2**32 - 1), VERSIONED, (1, 3)),
        ((np.int64(1), np.uint8(3)), VERSIONED, (1, 3)),
        ((np.int32(0), 2**31), LEGACY, None),
    ],
)
def test_capsule_name_and_version_follow_max_version(max_version, name, version):
    x, _ = _grid()
    kwargs = {} if max_version is None else {"max_version": max_version}
    info = abi.read_capsule(x.__dlpack__(**kwargs))
    assert info["name"] == name
    assert info["version"] == version


def test_versioned_export_of_a_plain_array_is_well_formed():
    x, expected = _grid()
    info = abi.read_capsule(x.__dlpack__(max_version=(1, 3)))
    assert info["flags"] == 0
    assert info["device"] == (abi.kDLCPU, 0)
    assert info["ndim"] == 2
    assert info["dtype"] == (2, 64, 1)
    assert info["shape"] == [4, 6]
    assert info["strides"] == [6, 1]
    assert info["byte_offset"] == 0
    assert info["data"] == _first_element(x)
    assert info["deleter"] is not None
    np.testing.assert_array_equal(_gather_float64(info), expected)


# ---- flags ----


def _plain():
    return dlarray.asarray([1.0, 2.0, 3.0])


def _readonly():
    return dlarray.asarray(b"abcd")


def _padded_fp4():
    return dlarray.subbyte.from_codes([1, 2, 3], dlarray.float4_e2m1fn, padded=True)


def _packed_fp4():
    return dlarray.subbyte.from_codes([1, 2, 3], dlarray.float4_e2m1fn)


@pytest.mark.parametrize(
    ("make", "copy", "flags"),
    [
        (_plain, None, 0),
        (_plain, False, 0),
        (_plain, True, abi.FLAG_IS_COPIED),
        (_readonly, None, abi.FLAG_READ_ONLY),
        (_readonly, False, abi.FLAG_READ_ONLY),
        # The copy is new, writable memory.
        (_readonly, True, abi.FLAG_IS_COPIED),
        (_padded_fp4, None, abi.FLAG_IS_SUBBYTE_TYPE_PADDED),
        (_padded_fp4, True, abi.FLAG_IS_SUBBYTE_TYPE_PADDED | abi.FLAG_IS_COPIED),
        (_packed_fp4, None, 0),
    ],
    ids=lambda v: getattr(v, "__name__", repr(v)),
)
def test_export_flags(make, copy, flags):
    x = make()
    info = abi.read_capsule(x.__dlpack__(max_version=(1, 3), copy=copy))
    assert info["flags"] == flags


def test_padded_and_packed_fp4_export_the_fp4_dtype():
    assert abi.read_capsule(_padded_fp4().__dlpack__(max_version=(1, 3)))["dtype"] == (17, 4, 1)
    assert abi.read_capsule(_packed_fp4().__dlpack__(max_version=(1, 3)))["dtype"] == (17, 4, 1)


@pytest.mark.parametrize("max_version", [None, (0, 0), (0, 5)])
@pytest.mark.parametrize("make", [_readonly, _padded_fp4], ids=["read-only", "padded-fp4"])
def test_legacy_export_refuses_what_a_legacy_capsule_cannot_say(make, max_version):
    x = make()
    kwargs = {} if max_version is None else {"max_version": max_version}
    with pytest.raises(BufferError):
        x.__dlpack__(**kwargs)


def test_legacy_export_of_packed_fp4_is_allowed():
    info = abi.read_capsule(_packed_fp4().__dlpack__())
    assert info["name"] == LEGACY
    assert info["dtype"] == (17, 4, 1)


# ---- copy ----


@pytest.mark.parametrize("copy", [None, False, True])
@pytest.mark.parametrize("max_version", [None, (1, 3)])
def test_copy_decides_whether_the_capsule_aliases_the_array(copy, max_version):
    x, expected = _grid()
    capsule = x.__dlpack__(max_version=max_version, copy=copy)  # owns a copy's memory
    info = abi.read_capsule(capsule)
    if copy:
        assert info["data"] != _first_element(x)
    else:
        assert info["data"] == _first_element(x)
    np.testing.assert_array_equal(_gather_float64(info), expected)


# ---- shape, strides, data, byte_offset ----

VIEWS = {
    "whole": lambda a: a,
    "reversed rows": lambda a: a[::-1],
    "transposed": lambda a: a.T,
    "sliced, stepped": lambda a: a[1:, ::2],
    "reversed columns": lambda a: a[:, ::-1],
    "both reversed": lambda a: a[::-2, ::-3],
    "one row": lambda a: a[2],
    "one element": lambda a: a[3, 5, ...],
    "transposed slice": lambda a: a[1:3, 2:].T,
    "offset column": lambda a: a[:, 3],
}


@pytest.mark.parametrize("max_version", [None, (1, 3)])
@pytest.mark.parametrize("view", list(VIEWS.values()), ids=list(VIEWS))
def test_views_export_their_layout_with_data_at_the_first_element(view, max_version):
    x, base = _grid()
    v, expected = view(x), view(base)
    info = abi.read_capsule(v.__dlpack__(max_version=max_version))
    assert info["ndim"] == expected.ndim
    assert info["shape"] == list(expected.shape)
    assert info["strides"] == [s // expected.itemsize for s in expected.strides]
    # dlarray folds byte_offset into data for address-based devices.
    assert info["byte_offset"] == 0
    element_offset = expected.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    assert info["data"] == _first_element(x) + element_offset
    np.testing.assert_array_equal(_gather_float64(info), expected)


@pytest.mark.parametrize("max_version", [None, (1, 3)])
@pytest.mark.parametrize("shape", [(1,), (3,), (2, 3), (2, 1, 3), (1, 1), (2, 3, 4, 5, 2)])
def test_shape_and_strides_pointers_are_never_null(shape, max_version):
    info = abi.read_capsule(dlarray.zeros(shape).__dlpack__(max_version=max_version))
    assert not info["shape_is_null"]
    assert not info["strides_is_null"]
    assert info["shape"] == list(shape)
    assert info["data"] is not None


@pytest.mark.parametrize("max_version", [None, (1, 3)])
def test_zero_dimensional_export_has_non_null_shape_and_strides(max_version):
    x = dlarray.asarray(2.5)
    info = abi.read_capsule(x.__dlpack__(max_version=max_version))
    assert info["ndim"] == 0
    assert not info["shape_is_null"]
    assert not info["strides_is_null"]
    assert info["data"] == _first_element(x)
    assert ctypes.c_double.from_address(info["data"]).value == 2.5


@pytest.mark.parametrize("max_version", [None, (1, 3)])
@pytest.mark.parametrize("shape", [(0,), (4, 0, 4), (0, 3), (3, 0)])
def test_zero_size_export_has_null_data(shape, max_version):
    info = abi.read_capsule(dlarray.zeros(shape).__dlpack__(max_version=max_version))
    assert info["data"] is None
    assert info["byte_offset"] == 0
    assert info["shape"] == list(shape)
    assert not info["strides_is_null"]


def test_zero_size_view_of_nonempty_array_has_null_data():
    x, _ = _grid()
    info = abi.read_capsule(x[2:2].__dlpack__(max_version=(1, 3)))
    assert info["shape"] == [0, 6]
    assert info["data"] is None


# ---- dl_device and stream ----


@pytest.mark.parametrize("copy", [None, False, True])
def test_dl_device_of_the_arrays_own_device_is_accepted(copy):
    x, expected = _grid()
    capsule = x.__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=copy)
    info = abi.read_capsule(capsule)
    assert info["device"] == (1, 0)
    np.testing.assert_array_equal(_gather_float64(info), expected)


@pytest.mark.parametrize("dl_device", [(2, 0), (1, 1), (13, 0)])
@pytest.mark.parametrize("copy", [None, False, True])
def test_dl_device_of_another_device_is_a_buffer_error(dl_device, copy, no_gpu):
    # Without a GPU (hidden where there is one): no copy to CUDA memory can
    # be made, and another host id is no device at all.
    x, _ = _grid()
    with pytest.raises(BufferError):
        x.__dlpack__(max_version=(1, 3), dl_device=dl_device, copy=copy)


def test_dl_device_elsewhere_with_copy_false_says_a_copy_is_needed():
    x, _ = _grid()
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(max_version=(1, 3), dl_device=(2, 0), copy=False)


@pytest.mark.parametrize("stream", [None, -1])
def test_cpu_export_accepts_no_stream_and_minus_one(stream):
    x, _ = _grid()
    assert abi.read_capsule(x.__dlpack__(stream=stream, max_version=(1, 3)))["name"] == VERSIONED


@pytest.mark.parametrize("stream", [0, 1, 2, -2, 2**40])
def test_cpu_export_refuses_a_stream_number(stream):
    x, _ = _grid()
    with pytest.raises(ValueError, match="stream"):
        x.__dlpack__(stream=stream, max_version=(1, 3))


@pytest.mark.parametrize("stream", ["x", 1.0, True, object()])
def test_cpu_export_refuses_a_stream_of_the_wrong_type(stream):
    x, _ = _grid()
    with pytest.raises(TypeError, match="stream"):
        x.__dlpack__(stream=stream, max_version=(1, 3))


# ---- argument errors ----

BAD_CALLS = {
    "unknown keyword": lambda x: x.__dlpack__(foo=1),
    "misspelled keyword": lambda x: x.__dlpack__(maxversion=(1, 3)),
    "positional stream": lambda x: x.__dlpack__(None),
    "two positionals": lambda x: x.__dlpack__(None, (1, 3)),
    "max_version a string": lambda x: x.__dlpack__(max_version="1.3"),
    "max_version a list": lambda x: x.__dlpack__(max_version=[1, 3]),
    "max_version one int": lambda x: x.__dlpack__(max_version=1),
    "max_version too short": lambda x: x.__dlpack__(max_version=(1,)),
    "max_version too long": lambda x: x.__dlpack__(max_version=(1, 3, 0)),
    "max_version floats": lambda x: x.__dlpack__(max_version=(1.0, 3)),
    "max_version minor a string": lambda x: x.__dlpack__(max_version=(1, "3")),
    "dl_device a string": lambda x: x.__dlpack__(max_version=(1, 3), dl_device="cpu"),
    "dl_device too short": lambda x: x.__dlpack__(max_version=(1, 3), dl_device=(1,)),
    "copy an int": lambda x: x.__dlpack__(max_version=(1, 3), copy=1),
    "copy a string": lambda x: x.__dlpack__(max_version=(1, 3), copy="yes"),
}


@pytest.mark.parametrize(
    ("max_version", "error"),
    [
        ((2**32, 0), ValueError),
        ((1, 2**32), ValueError),
        ((1, 2**64), ValueError),
        ((-1, 3), ValueError),
        ((1, -(2**30)), ValueError),
        ((1, -(2**70)), ValueError),
        ((True, 3), TypeError),
        ((1, False), TypeError),
    ],
)
def test_max_version_out_of_range_or_bool_is_refused_by_value_or_type(max_version, error):
    x, _ = _grid()
    with pytest.raises(error, match="max_version"):
        x.__dlpack__(max_version=max_version)


@pytest.mark.parametrize(
    ("dl_device", "error"),
    [((1, 2**31), ValueError), ((-1, 0), ValueError), ((1, True), TypeError)],
)
def test_dl_device_out_of_range_or_bool_is_refused_by_value_or_type(dl_device, error):
    x, _ = _grid()
    with pytest.raises(error, match="dl_device"):
        x.__dlpack__(max_version=(1, 3), dl_device=dl_device)


@pytest.mark.parametrize("call", list(BAD_CALLS.values()), ids=list(BAD_CALLS))
def test_bad_arguments_are_type_errors_and_leave_no_reference(call):
    x, _ = _grid()
    before = sys.getrefcount(x)
    with pytest.raises(TypeError):
        call(x)
    assert sys.getrefcount(x) == before


# ---- the capsule destructor and the deleter ----


@pytest.mark.parametrize("max_version", [None, (1, 3)])
def test_unconsumed_capsule_releases_the_export_when_it_dies(max_version):
    x, _ = _grid()
    before = sys.getrefcount(x)
    capsule = x.__dlpack__(max_version=max_version)
    assert sys.getrefcount(x) == before + 1
    del capsule
    gc.collect()
    assert sys.getrefcount(x) == before


@pytest.mark.parametrize("max_version", [None, (1, 3)])
def test_copying_export_holds_the_copy_not_the_source(max_version):
    x, _ = _grid()
    before = sys.getrefcount(x)
    capsule = x.__dlpack__(max_version=max_version, copy=True)
    assert sys.getrefcount(x) == before
    assert abi.read_capsule(capsule)["manager_ctx"] != id(x)
    del capsule


@pytest.mark.parametrize(
    ("max_version", "used"), [(None, abi.USED_LEGACY_NAME), ((1, 3), abi.USED_VERSIONED_NAME)]
)
def test_consumed_capsule_destructor_leaves_the_tensor_to_its_consumer(max_version, used):
    x, _ = _grid()
    before = sys.getrefcount(x)
    capsule = x.__dlpack__(max_version=max_version)
    abi.set_capsule_name(capsule, used)  # what a consumer does when it takes the tensor
    delete = abi.raw_deleter(capsule)
    del capsule
    gc.collect()
    assert sys.getrefcount(x) == before + 1, "the destructor released a consumed tensor"
    delete()
    assert sys.getrefcount(x) == before


@pytest.mark.parametrize("max_version", [None, (1, 3)])
def test_capsule_dying_inside_an_except_block_keeps_the_handled_exception(max_version):
    x, _ = _grid()
    # The count is read at one place, at the top of each round: Python 3.14
    # loads `x` there as a borrowed reference before a `try` and as a new one
    # after it, so counts read on both sides of the block differ by one
    # without any leak.  A capsule that kept `x` would add one per round.
    counts = []
    for _ in range(3):
        counts.append(sys.getrefcount(x))
        try:
            raise KeyError("marker")
        except KeyError:
            handled = sys.exc_info()
            capsule = x.__dlpack__(max_version=max_version)
            del capsule
            assert sys.exc_info() == handled
    assert counts == [counts[0]] * 3


@pytest.mark.parametrize("max_version", [None, (1, 3)])
def test_capsule_dying_while_an_exception_propagates_keeps_that_exception(max_version):
    x, _ = _grid()
    before = sys.getrefcount(x)
    # The capsule is a temporary: the interpreter drops it while int()'s
    # TypeError is already set, so the destructor runs with it in flight.
    with pytest.raises(TypeError, match="PyCapsule"):
        int(x.__dlpack__(max_version=max_version))
    assert sys.getrefcount(x) == before


@pytest.mark.parametrize("max_version", [None, (1, 3)])
def test_last_reference_dying_in_a_destructor_keeps_the_propagating_exception(max_version):
    # The capsule holds the only reference to the array, so the array and its
    # memory are freed inside the destructor while the TypeError is set.
    with pytest.raises(TypeError, match="PyCapsule"):
        int(dlarray.asarray([1.0, 2.0]).__dlpack__(max_version=max_version))


@pytest.mark.parametrize(
    ("max_version", "used"), [(None, abi.USED_LEGACY_NAME), ((1, 3), abi.USED_VERSIONED_NAME)]
)
def test_export_deleter_called_from_another_python_thread_drops_the_reference(max_version, used):
    x, _ = _grid()
    before = sys.getrefcount(x)
    capsule = x.__dlpack__(max_version=max_version)
    abi.set_capsule_name(capsule, used)
    delete = abi.raw_deleter(capsule)
    del capsule
    errors = []

    def run():
        try:
            delete()  # a ctypes call: the GIL is released around the deleter
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "the deleter deadlocked"
    assert errors == []
    assert sys.getrefcount(x) == before


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses pthread_create from libc")
@pytest.mark.parametrize(
    ("max_version", "used"), [(None, abi.USED_LEGACY_NAME), ((1, 3), abi.USED_VERSIONED_NAME)]
)
def test_export_deleter_called_from_a_c_thread_drops_the_reference(max_version, used):
    x, _ = _grid()
    before = sys.getrefcount(x)
    capsule = x.__dlpack__(max_version=max_version)
    abi.set_capsule_name(capsule, used)
    abi.run_deleter_on_c_thread(capsule)
    assert sys.getrefcount(x) == before
    del capsule  # consumed: its destructor must not release a second time
    gc.collect()
    assert sys.getrefcount(x) == before


def test_export_deleter_frees_the_last_reference_from_a_c_thread():
    x = dlarray.asarray([1.0, 2.0, 3.0])
    capsule = x.__dlpack__(max_version=(1, 3))
    abi.set_capsule_name(capsule, abi.USED_VERSIONED_NAME)
    collected = threading.Event()
    ref = weakref.ref(x, lambda _: collected.set())
    del x
    assert ref() is not None
    abi.run_deleter_on_c_thread(capsule)
    assert ref() is None and collected.is_set()
