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
    # ---- issue 28: each argument named, with what was found and what is taken ----
    # (before: a bare OverflowError "cannot convert float infinity to
    # integer", "'<' not supported between instances of 'NoneType' and
    # 'int'", "unhashable type: 'list'", BufferError "unknown DLPack device
    # type 1.5", AttributeError "'int' object has no attribute 'dtype'", ...)
    ("arange(inf)", lambda: dlarray.arange(float("inf")), ValueError, ["arange", "stop", "finite"]),
    (
        "arange of a nan step",
        lambda: dlarray.arange(0, 5, float("nan")),
        ValueError,
        ["arange", "step is nan", "finite"],
    ),
    (
        "arange length past a float",
        lambda: dlarray.arange(0.0, 1e300, 1e-300),
        ValueError,
        ["arange", "(stop - start) / step is inf", "larger step"],
    ),
    (
        "arange values past int64",
        lambda: dlarray.arange(0, 2**64),
        OverflowError,
        ["arange(0, 18446744073709551616, 1)", "int64", "floats"],
    ),
    (
        "linspace num None",
        lambda: dlarray.linspace(0, 1, None),
        TypeError,
        ["linspace", "num", "int", "None"],
    ),
    (
        "linspace num a float",
        lambda: dlarray.linspace(0, 1, 2.5),
        TypeError,
        ["linspace", "num", "float 2.5"],
    ),
    (
        "linspace start a string",
        lambda: dlarray.linspace("0", 1, 3),
        TypeError,
        ["linspace", "start", "str '0'"],
    ),
    (
        "linspace start past a float",
        lambda: dlarray.linspace(10**400, 1, 3),
        OverflowError,
        ["linspace", "start=1000", "too large for a float"],
    ),
    (
        "tril k None",
        lambda: dlarray.tril(dlarray.ones((2, 2)), k=None),
        TypeError,
        ["tril", "k must be an int (the diagonal's offset)", "NoneType None"],
    ),
    ("eye k a bool", lambda: dlarray.eye(2, k=True), TypeError, ["eye", "k", "bool True"]),
    ("eye n_rows a float", lambda: dlarray.eye(2.0), TypeError, ["eye", "n_rows", "float 2.0"]),
    (
        "Device.from_dlpack of lists",
        lambda: dlarray.Device.from_dlpack(([1], [2])),
        TypeError,
        ["Device.from_dlpack(([1], [2]))", "device_type must be an int", "list"],
    ),
    (
        "Device.from_dlpack of a float type",
        lambda: dlarray.Device.from_dlpack((1.5, 0)),
        TypeError,
        ["Device.from_dlpack((1.5, 0))", "device_type must be an int", "float 1.5"],
    ),
    (
        "Device.from_dlpack of a string id",
        lambda: dlarray.Device.from_dlpack((1, "0")),
        TypeError,
        ["device_id must be an int", "str '0'"],
    ),
    (
        "Device.from_dlpack of an unknown type",
        lambda: dlarray.Device.from_dlpack((99, 0)),
        BufferError,
        ["Device.from_dlpack((99, 0))", "unknown DLPack device type 99", "1 (cpu)"],
    ),
    (
        "subbyte.pad of an int",
        lambda: dlarray.subbyte.pad(3),
        TypeError,
        ["subbyte.pad(x)", "DLArray of a sub-byte dtype", "got int", "from_codes"],
    ),
    (
        "subbyte.to_codes of a list",
        lambda: dlarray.subbyte.to_codes([1, 2]),
        TypeError,
        ["subbyte.to_codes(x)", "got list"],
    ),
    (
        "subbyte.pack of a float64 array",
        lambda: dlarray.subbyte.pack(dlarray.zeros(2)),
        TypeError,
        ["subbyte.pack", "float64 is not a sub-byte dtype", "float4_e2m1fn"],
    ),
    # (before: a bool shape made an array of shape (1,); any padded= was
    # taken for its truth; full's OverflowError gave no range)
    ("shape a bool", lambda: dlarray.zeros(True), TypeError, ["shape", "True"]),
    ("shape holding a bool", lambda: dlarray.ones((2, False)), TypeError, ["shape", "False"]),
    (
        "padded not a bool",
        lambda: dlarray.zeros(2, padded="yes"),
        TypeError,
        ["zeros(padded='yes')", "True or False"],
    ),
    (
        "from_codes padded not a bool",
        lambda: dlarray.subbyte.from_codes([1], dlarray.float4_e2m1fn, padded=1),
        TypeError,
        ["subbyte.from_codes(padded=1)", "True or False"],
    ),
    (
        "full of an int past int64",
        lambda: dlarray.full(3, 2**64),
        OverflowError,
        ["full", "18446744073709551616", "int64", "9223372036854775807]", "dtype that holds"],
    ),
    (
        "negative extent",
        lambda: dlarray.empty((2, -1)),
        ValueError,
        ["(2, -1)", "negative", "0 or more"],
    ),
    (
        "asarray of an int below int64",
        lambda: dlarray.asarray(-(2**63) - 1),
        OverflowError,
        ["the Python int -9223372036854775809", "[-9223372036854775808, 18446744073709551615]"],
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
        OverflowError, match=r"the Python int 1180591620717411303424 in the data does not fit"
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


# ---- errors that teach (issue 33): a NumPy habit, a natural mistake ----
# Each: the call, the exception type, how the message starts, and the exact
# fix it must name.  Before, these gave a bare AttributeError, NumPy's own
# text, a chained memoryview TypeError, or a list of 18 device kinds.
TEACHING = [
    ("x.sum()", lambda: dlarray.arange(10).sum(), AttributeError,
     "'DLArray' object has no attribute 'sum'", "dlarray.sum(x)"),
    ("x.reshape(2, 5)", lambda: dlarray.arange(10).reshape(2, 5), AttributeError,
     "'DLArray' object has no attribute 'reshape'", "dlarray.reshape(x, shape)"),
    ("x.astype(float)", lambda: dlarray.arange(3).astype(float), AttributeError,
     "'DLArray' object has no attribute 'astype'", "dlarray.astype(x, dtype)"),
    ("x.tolist()", lambda: dlarray.arange(3).tolist(), AttributeError,
     "'DLArray' object has no attribute 'tolist'", "np.from_dlpack(x).tolist()"),
    ("int array + 1.5", lambda: dlarray.arange(3) + 1.5, TypeError,
     "add: a Python float cannot be combined with an array of dtype int64",
     "dlarray.astype(x, dlarray.float64) + 1.5"),
    ("maximum(int array, 1.5)", lambda: dlarray.maximum(dlarray.arange(3), 1.5), TypeError,
     "maximum: a Python float cannot be combined",
     "dlarray.maximum(dlarray.astype(x, dlarray.float64), 1.5)"),
    ("bool array + 2", lambda: dlarray.asarray([True]) + 2, TypeError,
     "add: a Python int cannot be combined with an array of dtype bool",
     "dlarray.astype(x, dlarray.int64) + 2"),
    ("asarray of mixed data", lambda: dlarray.asarray([1, 2.5, "x"]), TypeError,
     "asarray: the data holds a str ('x')", "pass numbers, bools or nested sequences"),
    ("asarray of a str", lambda: dlarray.asarray("abc"), TypeError,
     "asarray: the data holds a str ('abc')", "pass numbers, bools or nested sequences"),
    ("asarray of ragged data", lambda: dlarray.asarray([[1, 2], [3]]), ValueError,
     "asarray: the nested sequences are ragged", "make every sequence at each depth"),
    ("shapes that do not broadcast, operator", lambda: dlarray.ones(3) + dlarray.ones(4),
     ValueError, "add: shapes (3,) and (4,) do not broadcast together",
     "each pair must be equal, or one of them 1"),
    ("shapes that do not broadcast, general path",
     lambda: dlarray.ones(3, dtype=dlarray.int8) * dlarray.ones(4, dtype=dlarray.int16),
     ValueError, "multiply: shapes (3,) and (4,) do not broadcast together", "one of them 1"),
    ("to_device('gpu')", lambda: dlarray.zeros(1).to_device("gpu"), ValueError,
     "unknown device kind 'gpu'; did you mean 'cuda'?", "dlarray allocates memory of the kinds"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "exc", "starts", "fix"),
    [pytest.param(c, e, s, f, id=i) for i, c, e, s, f in TEACHING],
)
def test_a_message_that_teaches(call, exc, starts, fix):
    with pytest.raises(exc) as caught:
        call()
    message = str(caught.value)
    assert message.startswith(starts), message
    assert fix in message, message
    assert not message.endswith(" "), repr(message)
    # No NumPy text, and no chained traceback under dlarray's own check.
    assert "NumPy read it" not in message and "operands could not" not in message
    assert caught.value.__cause__ is None
    assert caught.value.__context__ is None or caught.value.__suppress_context__


def test_numpy_habits_stay_absent_from_hasattr_and_dir():
    # Consumers probe with hasattr; the habits are not attributes.
    x = dlarray.arange(3)
    assert not hasattr(x, "sum") and not hasattr(x, "reshape")
    assert "sum" not in dir(x) and "shape" in dir(x)


def test_public_exceptions_show_the_public_path():
    assert dlarray.CUDAUnavailableError.__module__ == "dlarray"
    assert dlarray.SYCLUnavailableError.__module__ == "dlarray"
    try:
        dlarray.zeros(1).to_device("cuda")
    except dlarray.CUDAUnavailableError as exc:
        import traceback

        line = traceback.format_exception_only(type(exc), exc)[-1]
        assert line.startswith("dlarray.CUDAUnavailableError: "), line
    else:  # a GPU machine: nothing to check
        pytest.skip("a GPU is reachable here: to_device('cuda') succeeds")
