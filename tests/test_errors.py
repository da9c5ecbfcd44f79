"""The error taxonomy, one rule for the whole library:

* ``BufferError`` -- the data cannot be exchanged (including a copy that is
  needed but forbidden by ``copy=False`` during an exchange);
* ``ValueError``  -- a consumed capsule, a bad stream, a bad value;
* ``TypeError``   -- wrong argument types, unknown keywords.

Each row names the call, the exception, and words the message must contain:
what was asked, what was found, what to do.
"""

from __future__ import annotations

import numpy as np
import pytest

import dlarray
from dlarray import _core


def _float_array():
    return dlarray.asarray([[1.0, 2.0], [3.0, 4.0]])


def _readonly_array():
    return dlarray.asarray(b"abcd")


def _consumed_capsule():
    capsule = _float_array().__dlpack__(max_version=(1, 3))
    _core.consume(capsule)
    return capsule


CASES = [
    # ---- BufferError: cannot be exchanged ----
    (
        "legacy export of read-only data",
        lambda: _readonly_array().__dlpack__(),
        BufferError,
        ["max_version=None", "read-only", "max_version=(1, 0)"],
    ),
    (
        "export to another device without copy",
        lambda: _float_array().__dlpack__(max_version=(1, 3), dl_device=(2, 0), copy=False),
        BufferError,
        ["copy=False", "(2, 0)", "copy=True"],
    ),
    (
        "export to a device dlarray cannot reach",
        lambda: _float_array().__dlpack__(max_version=(1, 3), dl_device=(4, 0)),
        BufferError,
        ["cannot copy", "Device('opencl', 0)", "CUDA memory kinds"],
    ),
    (
        "export to the CPU of memory dlarray cannot read",
        lambda: _core.new_array(None, 0, 0, (0,), None, (2, 32, 1), (4, 0), 0).__dlpack__(
            max_version=(1, 3), dl_device=(1, 0)
        ),
        BufferError,
        ["cannot copy from Device('opencl', 0)"],
    ),
    (
        "legacy export of padded sub-byte data",
        lambda: dlarray.subbyte.from_codes([1, 2], dlarray.float4_e2m1fn, padded=True).__dlpack__(),
        BufferError,
        ["padded", "max_version"],
    ),
    (
        "engine view of memory no engine computes on is an exchange failure",
        lambda: dlarray._engine.routing.engine_view(
            _core.new_array(None, 0, 0, (0,), None, (2, 32, 1), (7, 0), 0)
        ),
        BufferError,
        ["host memory", "CuPy", "vulkan", "to_device('cpu')"],
    ),
    # ---- ValueError: consumed capsule, bad stream, bad value ----
    (
        "capsule consumed twice",
        lambda: _core.consume(_consumed_capsule()),
        ValueError,
        ["already consumed", "__dlpack__() again"],
    ),
    (
        "a CUDA stream number for CPU memory",
        lambda: _float_array().__dlpack__(stream=1),
        ValueError,
        ["stream=1", "CPU", "None"],
    ),
    (
        "stream 0 for CPU memory",
        lambda: _float_array().__dlpack__(stream=0),
        ValueError,
        ["stream=0", "None"],
    ),
    (
        "a device that is not a (type, id) pair",
        lambda: dlarray.Device.from_dlpack("x"),
        ValueError,
        ["(device_type, device_id) pair", "__dlpack_device__()", "'x'"],
    ),
    (
        "writing to read-only memory",
        lambda: _readonly_array().__setitem__(0, 1),
        ValueError,
        ["read-only", "copy=True"],
    ),
    (
        "asarray(copy=False) of Python data",
        lambda: dlarray.asarray([1, 2], copy=False),
        ValueError,
        ["copy=False", "copies", "copy=None"],
    ),
    (
        "asarray(copy=False) needing a dtype change",
        lambda: dlarray.asarray(_float_array(), dtype=dlarray.float32, copy=False),
        ValueError,
        ["float32", "float64", "copy=None"],
    ),
    (
        "reshape(copy=False) of a non-contiguous view",
        lambda: dlarray.reshape(_float_array().T, (4,), copy=False),
        ValueError,
        ["copy=False", "copy=None"],
    ),
    (
        "reshape to an impossible shape",
        lambda: dlarray.reshape(_float_array(), (3,)),
        ValueError,
        ["size 4", "(3,)"],
    ),
    ("unknown device kind", lambda: dlarray.Device("gpu"), ValueError, ["'gpu'", "cpu"]),
    ("negative extent", lambda: dlarray.empty((2, -1)), ValueError, ["negative", "(2, -1)"]),
    (
        "allocating on a device dlarray cannot reach",
        lambda: dlarray.empty(3, device=dlarray.Device("opencl", 0)),
        ValueError,
        ["opencl", "'cpu'", "'cuda'"],
    ),
    (
        "fp4 codes out of range",
        lambda: dlarray.subbyte.from_codes([16], dlarray.float4_e2m1fn),
        ValueError,
        ["[0, 16)"],
    ),
    # ---- TypeError: wrong types, unknown keywords ----
    (
        "eye with a diagonal offset that is not an int",
        lambda: dlarray.eye(2, k=1.5),
        TypeError,
        ["eye", "k must be an int", "1.5"],
    ),
    (
        "unknown __dlpack__ keyword",
        lambda: _float_array().__dlpack__(colour="red"),
        TypeError,
        ["'colour'", "max_version"],
    ),
    (
        "positional __dlpack__ argument",
        lambda: _float_array().__dlpack__(None),
        TypeError,
        ["keyword", "positional"],
    ),
    (
        "max_version not a pair",
        lambda: _float_array().__dlpack__(max_version="1.3"),
        TypeError,
        ["max_version='1.3'", "(major, minor)"],
    ),
    (
        "copy not a bool",
        lambda: _float_array().__dlpack__(copy=1),
        TypeError,
        ["copy=1", "None, True or False"],
    ),
    (
        "dl_device not a pair",
        lambda: _float_array().__dlpack__(dl_device="cpu"),
        TypeError,
        ["dl_device='cpu'", "(device_type, device_id)"],
    ),
    (
        "stream of a wrong type",
        lambda: _float_array().__dlpack__(stream="fast"),
        TypeError,
        ["stream='fast'", "int"],
    ),
    (
        "constructing DLArray directly",
        lambda: dlarray.DLArray(),
        TypeError,
        ["cannot be constructed directly", "dlarray.asarray"],
    ),
    (
        "consume of a non-capsule",
        lambda: _core.consume(np.zeros(3)),
        TypeError,
        ["DLPack capsule", "ndarray"],
    ),
    (
        "from_dlpack(copy=) not a bool",
        lambda: dlarray.from_dlpack(np.zeros(3), copy="no"),
        TypeError,
        ["copy='no'"],
    ),
    (
        "unknown dtype name",
        lambda: dlarray.zeros(3, dtype="float128"),
        TypeError,
        ["'float128'", "float64"],
    ),
    ("shape of a wrong type", lambda: dlarray.zeros("3"), TypeError, ["shape", "'3'"]),
    ("index of a wrong type", lambda: _float_array()[1.5], TypeError, ["1.5", "slices"]),
    ("asarray of an object", lambda: dlarray.asarray(object()), TypeError, ["object"]),
    ("device of a wrong type", lambda: dlarray.zeros(3, device=3.0), TypeError, ["3.0", "cpu"]),
    (
        "packed sub-byte data viewed by NumPy",
        lambda: dlarray._engine.numpy_engine.to_numpy(
            dlarray.subbyte.from_codes([1, 2], dlarray.float4_e2m1fn)
        ),
        TypeError,
        ["packed", "to_codes"],
    ),
]


@pytest.mark.parametrize(
    ("call", "exc", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_error_type_and_message(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    # The exact type, not a subclass standing in for it.
    assert type(info.value) is exc
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} missing from: {message}"


def test_from_dlpack_of_non_producer_is_attribute_error():
    # The Python DLPack spec: a missing dunder is an AttributeError.
    with pytest.raises(AttributeError, match="no __dlpack__ method"):
        dlarray.from_dlpack([1, 2, 3])
    with pytest.raises(AttributeError, match="no __dlpack__ method"):
        dlarray.from_dlpack([1, 2, 3], copy=True)


def test_index_errors_for_out_of_bounds_and_too_many_indices():
    x = _float_array()
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 2"):
        x[0, 2]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]


def test_producer_exceptions_propagate_unchanged():
    class Broken:
        def __dlpack__(self, **kwargs):
            raise RuntimeError("producer exploded")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(RuntimeError, match="producer exploded"):
        dlarray.from_dlpack(Broken())


def test_python_ints_beyond_64_bits_overflow():
    with pytest.raises(
        OverflowError, match=r"does not fit in 64 bits \(the largest is -?1180591620717411303424\)"
    ):
        dlarray.asarray([1, 2**70])
    with pytest.raises(OverflowError):
        dlarray.asarray([2**64])
    assert dlarray.asarray([2**62]).dtype == dlarray.int64
    with pytest.raises(OverflowError, match=r"does not fit in int64.*dlarray.uint64"):
        dlarray.asarray([2**64 - 1])  # the default integer dtype is int64
    with pytest.raises(OverflowError, match="does not fit in int8"):
        dlarray.asarray([300], dtype=dlarray.int8)
    assert dlarray.asarray([2**64 - 1], dtype=dlarray.uint64).dtype == dlarray.uint64
