"""The error taxonomy, one rule for the whole library:

* ``BufferError`` -- the data cannot be exchanged (including a copy that is
  needed but forbidden by ``copy=False`` during an exchange);
* ``ValueError``  -- a consumed capsule, a bad stream, a bad value;
* ``TypeError``   -- wrong argument types, unknown keywords.

Each row names the call, the exception, and words the message must contain:
what was asked, what was found, what to do.
"""

from __future__ import annotations

import inspect
import pickle
import re
import sys
import warnings

import numpy as np
import pytest

import dlarray
import dlarray.compat
from dlarray import _core
from dlarray._rules import NUMPY_PROMOTING, SPELLINGS


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


def test_an_axis_out_of_range_says_which_axes_are_valid():
    # (before: "sum: axis 2 is out of range for an array with 2 axes", no range)
    matrix, scalar = dlarray.ones((2, 3)), dlarray.asarray(1.0)
    for call, words in (
        (lambda: dlarray.sum(matrix, axis=2), "sum: axis 2 is out of range for an array with "
         "2 axes (valid: -2 to 1)"),
        (lambda: dlarray.flip(matrix, axis=-3), "flip: axis -3 is out of range for an array "
         "with 2 axes (valid: -2 to 1)"),
        (lambda: dlarray.sum(scalar, axis=0), "sum: axis 0 is out of range for an array with "
         "0 axes (a 0-d array has no axis)"),
    ):  # fmt: skip
        with pytest.raises(ValueError) as caught:
            call()
        # NumPy's AxisError is both, and so is dlarray's.
        assert isinstance(caught.value, IndexError)
        assert str(caught.value) == words


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


# ---- every fix a refusal writes as code runs, and does what was meant ----
# A refusal's fixes are alternatives ("...; or ..."), each code between
# backticks that runs once its names are bound (dlarray/_rules.py, "fixes").
# Each is run here in a fresh namespace: its snippets in order, then, where
# the last one is a statement that prepared names ("x = dlarray.astype(x,
# ...)", "arrays = [...]"), the refused call again.  Its outcome must be what
# NumPy computes for the refused call (or, for an assignment, one of what
# NumPy stores and what a promoted array holds).  Before, the fixes named
# `dlarray.__setitem__`, dropped where's condition, swapped the operands
# of `0.5 - x`, and ended in "convert one operand explicitly".


def _np(x):
    return np.asarray(np.from_dlpack(x))


def _alternatives(message):
    """The fixes of a message: one list of code snippets per alternative."""
    found = [re.findall(r"`([^`]+)`", part) for part in message.split("; or ")]
    return [snippets for snippets in found if snippets]


def _run(snippets, names, call, assigns):
    """The outcome of one fix: its snippets run in ``names``; the value of a
    last expression, or the call run again after statements that prepared
    its names (an assignment ``x[key] = ...`` is the operation itself)."""
    *statements, last = snippets
    for snippet in statements:
        exec(snippet, names)
    try:
        code = compile(last, "<fix>", "eval")
    except SyntaxError:
        exec(last, names)
        return names["x"] if assigns else call(names)
    return eval(code, names)


def _same(outcome, expected):
    if isinstance(outcome, dlarray.DType):
        return outcome == expected
    got = _np(outcome)
    return got.dtype == expected.dtype and np.array_equal(got, expected)


def _setitem(key, value):
    def call(names):
        names["x"][key] = value(names) if callable(value) else value
        return names["x"]

    return call


_INTS = dlarray.asarray([1, 2, 3])
_FLOATS = dlarray.asarray([0.5, 1.5, 2.5])
_N_INTS = np.array([1, 2, 3])
_N_FLOATS = np.array([0.5, 1.5, 2.5])
_CONDITION = dlarray.asarray([True, False, True])
_N_CONDITION = np.array([True, False, True])
_UINTS = dlarray.asarray([3, 1, 2], dtype=dlarray.uint64)
_N_UINTS = np.array([3, 1, 2], dtype=np.uint64)
_INT8S = dlarray.asarray([2, 0, 1], dtype=dlarray.int8)
_N_INT8S = np.array([2, 0, 1], dtype=np.int8)


def _stored(array, key, value):
    """NumPy's array after ``array[key] = value`` (it casts, as NumPy does)."""
    out = array.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out[key] = value
    return out


# (id, names, the refused call on them, what NumPy gives: one or more
# acceptable outcomes, whether a last statement is the operation itself)
FIXES = [
    ("int array + 0.5", {"x": _INTS}, lambda n: n["x"] + 0.5, [_N_INTS + 0.5], False),
    ("0.5 - int array", {"x": _INTS}, lambda n: 0.5 - n["x"], [0.5 - _N_INTS], False),
    ("maximum(int array, 1.5)", {"x": _INTS}, lambda n: dlarray.maximum(n["x"], 1.5),
     [np.maximum(_N_INTS, 1.5)], False),
    ("pow(2.5, int array)", {"x": _INTS}, lambda n: dlarray.pow(2.5, n["x"]),
     [np.power(2.5, _N_INTS)], False),
    ("int array + 1j", {"x": _INTS}, lambda n: n["x"] + 1j, [_N_INTS + 1j], False),
    ("bool array + 2", {"x": _CONDITION}, lambda n: n["x"] + 2, [_N_CONDITION + 2], False),
    ("int array - True", {"x": _INTS}, lambda n: n["x"] - True, [_N_INTS - 1], False),
    ("where(condition, int array, 0.5)", {"x": _INTS, "condition": _CONDITION},
     lambda n: dlarray.where(n["condition"], n["x"], 0.5),
     [np.where(_N_CONDITION, _N_INTS, 0.5)], False),
    ("where(condition, 0.5, int array)", {"x": _INTS, "condition": _CONDITION},
     lambda n: dlarray.where(n["condition"], 0.5, n["x"]),
     [np.where(_N_CONDITION, 0.5, _N_INTS)], False),
    ("where of an int and a float array", {"x1": _INTS, "x2": _FLOATS, "condition": _CONDITION},
     lambda n: dlarray.where(n["condition"], n["x1"], n["x2"]),
     [np.where(_N_CONDITION, _N_INTS, _N_FLOATS)], False),
    ("int array + float array", {"x1": _INTS, "x2": _FLOATS}, lambda n: n["x1"] + n["x2"],
     [_N_INTS + _N_FLOATS], False),
    ("float32 array - int array", {"x1": dlarray.astype(_FLOATS, dlarray.float32), "x2": _INTS},
     lambda n: n["x1"] - n["x2"], [_N_FLOATS.astype(np.float32) - _N_INTS], False),
    ("int64 / uint64", {"x1": _INTS, "x2": dlarray.astype(_INTS, dlarray.uint64)},
     lambda n: dlarray.divide(n["x1"], n["x2"]), [_N_INTS / _N_INTS.astype(np.uint64)], False),
    ("bool array * int8 array", {"x1": _CONDITION, "x2": dlarray.astype(_INTS, dlarray.int8)},
     lambda n: n["x1"] * n["x2"], [_N_CONDITION * _N_INTS.astype(np.int8)], False),
    ("int array @ float array", {"x1": _INTS, "x2": _FLOATS}, lambda n: n["x1"] @ n["x2"],
     [_N_INTS @ _N_FLOATS], False),
    ("int64 array @ uint64 array", {"x1": _INTS, "x2": dlarray.astype(_INTS, dlarray.uint64)},
     lambda n: n["x1"] @ n["x2"], [_N_INTS @ _N_INTS.astype(np.uint64)], False),
    ("concat of int and float arrays", {"arrays": [_INTS, _FLOATS]},
     lambda n: dlarray.concat(n["arrays"]), [np.concatenate([_N_INTS, _N_FLOATS])], False),
    ("stack of int and float arrays", {"arrays": [_INTS, _FLOATS]},
     lambda n: dlarray.stack(n["arrays"], axis=1), [np.stack([_N_INTS, _N_FLOATS], axis=1)],
     False),
    ("searchsorted(int array, 1.5)", {"x": _INTS}, lambda n: dlarray.searchsorted(n["x"], 1.5),
     [np.searchsorted(_N_INTS, 1.5)], False),
    ("result_type(int array, 0.5)", {"x": _INTS}, lambda n: dlarray.result_type(n["x"], 0.5),
     [np.result_type(_N_INTS, 0.5)], False),
    ("result_type(int64, float32)", {"x1": dlarray.int64, "x2": dlarray.float32},
     lambda n: dlarray.result_type(n["x1"], n["x2"]), [np.result_type(np.int64, np.float32)],
     False),
    ("sin(int array)", {"x": _INTS}, lambda n: dlarray.sin(n["x"]), [np.sin(_N_INTS)], False),
    ("sum(bool array)", {"x": _CONDITION}, lambda n: dlarray.sum(n["x"]),
     [np.sum(_N_CONDITION)], False),
    ("where(int condition, ...)", {"x": _INTS, "x1": _INTS, "x2": _INTS},
     lambda n: dlarray.where(n["x"], n["x1"], n["x2"]), [np.where(_N_INTS, _N_INTS, _N_INTS)],
     False),
    ("bitwise_and(float array, 1)", {"x": _FLOATS}, lambda n: dlarray.bitwise_and(n["x"], 1),
     [np.bitwise_and(_N_FLOATS.astype(np.int64), 1)], False),
    ("floor(complex array)", {"x": dlarray.asarray([1.5 + 2j])}, lambda n: dlarray.floor(n["x"]),
     [np.floor(np.array([1.5])), np.floor(np.abs(np.array([1.5 + 2j])))], False),
    ("x[0] = 1.5, int array", {"x": _INTS, "key": 0}, _setitem(0, 1.5),
     [_stored(_N_INTS, 0, 1.5), _stored(_N_INTS.astype(np.float64), 0, 1.5)], True),
    ("x[0] = True, int array", {"x": _INTS, "key": 0}, _setitem(0, True),
     [_stored(_N_INTS, 0, True)], True),
    ("x[1] = 2, bool array", {"x": _CONDITION, "key": 1}, _setitem(1, 2),
     [_stored(_N_CONDITION, 1, 2), _stored(_N_CONDITION.astype(np.int64), 1, 2)], True),
    ("x[2] = 1 + 2j, float array", {"x": _FLOATS, "key": 2}, _setitem(2, 1 + 2j),
     [_stored(_N_FLOATS.astype(np.complex128), 2, 1 + 2j)], True),
    ("x[:2] = float array, int array", {"x": _INTS, "key": slice(2), "value": _FLOATS[:2]},
     _setitem(slice(2), lambda n: n["value"]),
     [_stored(_N_INTS, slice(2), _N_FLOATS[:2]),
      _stored(_N_INTS.astype(np.float64), slice(2), _N_FLOATS[:2])], True),
    # Functions of integers only: NumPy's promotion, a float, is refused too
    # (before, these fixes converted to float64 or named dlarray.compat, and
    # both raised again).  What runs: one 64-bit integer dtype for both, or
    # the floating operand truncated; NumPy computes the same on them.
    ("int64 & uint64", {"x1": _INTS, "x2": _UINTS}, lambda n: n["x1"] & n["x2"],
     [_N_INTS & _N_UINTS.astype(np.int64), _N_INTS.astype(np.uint64) & _N_UINTS], False),
    ("bitwise_left_shift(uint64, int8)", {"x1": _UINTS, "x2": _INT8S},
     lambda n: dlarray.bitwise_left_shift(n["x1"], n["x2"]),
     [_N_UINTS.astype(np.int64) << _N_INT8S, _N_UINTS << _N_INT8S.astype(np.uint64)], False),
    ("int64 >> uint64", {"x1": _INTS, "x2": _UINTS}, lambda n: n["x1"] >> n["x2"],
     [_N_INTS >> _N_UINTS.astype(np.int64), _N_INTS.astype(np.uint64) >> _N_UINTS], False),
    ("uint64 ^ int8", {"x1": _UINTS, "x2": _INT8S}, lambda n: n["x1"] ^ n["x2"],
     [_N_UINTS.astype(np.int64) ^ _N_INT8S, _N_UINTS ^ _N_INT8S.astype(np.uint64)], False),
    ("int array | float array", {"x1": _INTS, "x2": _FLOATS}, lambda n: n["x1"] | n["x2"],
     [_N_INTS | _N_FLOATS.astype(np.int64)], False),
    ("bitwise_and(int array, 1.5)", {"x": _INTS}, lambda n: dlarray.bitwise_and(n["x"], 1.5),
     [_N_INTS & 1], False),
    ("2.5 & int array", {"x": _INTS}, lambda n: 2.5 & n["x"], [2 & _N_INTS], False),
    ("float array & True", {"x": _FLOATS}, lambda n: n["x"] & True,
     [_N_FLOATS.astype(np.int64) & 1], False),
    ("bool array << float array", {"x1": _CONDITION, "x2": _FLOATS},
     lambda n: n["x1"] << n["x2"],
     [_N_CONDITION.astype(np.int64) << _N_FLOATS.astype(np.int64)], False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("names", "call", "expected", "assigns"),
    [pytest.param(n, c, e, a, id=i) for i, n, c, e, a in FIXES],
)
def test_every_fix_a_refusal_writes_runs_and_computes_what_numpy_does(
    names, call, expected, assigns
):
    def fresh():
        # Arrays are copied: a fix that assigns must not change the case.
        copied = {
            k: dlarray.asarray(v, copy=True) if isinstance(v, dlarray.DLArray) else v
            for k, v in names.items()
        }
        return {"dlarray": dlarray, "np": np, **copied}

    with pytest.raises(TypeError) as refused:
        call(fresh())
    alternatives = _alternatives(str(refused.value))
    assert alternatives, str(refused.value)
    for snippets in alternatives:
        outcome = _run(snippets, fresh(), call, assigns)
        assert any(_same(outcome, e) for e in expected), (snippets, outcome, expected)


def test_the_64_bit_integer_fixes_of_bitwise_functions_keep_the_bits():
    # The values the int64/uint64 fixes warn about: they wrap around, and the
    # bits of and/or/xor are those of the exact integers (modulo 2**64).
    signed, unsigned = [-1, -(2**63), 5], [2**63, 2**64 - 1, 3]
    x1, x2 = dlarray.asarray(signed), dlarray.asarray(unsigned, dtype=dlarray.uint64)
    exact = {"bitwise_and": int.__and__, "bitwise_or": int.__or__, "bitwise_xor": int.__xor__}
    for name, operation in exact.items():
        with pytest.raises(TypeError) as refused:
            getattr(dlarray, name)(x1, x2)
        alternatives = _alternatives(str(refused.value))
        assert len(alternatives) == 2, str(refused.value)
        for snippets in alternatives:
            names = {"dlarray": dlarray, "x1": x1, "x2": x2}
            got = _np(_run(snippets, names, None, False)).tolist()
            wanted = [operation(a, b) % 2**64 for a, b in zip(signed, unsigned, strict=True)]
            assert [v % 2**64 for v in got] == wanted, (snippets, got)
    assert "2**63 - 1 wrap around to negative ones" in str(refused.value)
    assert _np(dlarray.astype(x2, dlarray.int64)).tolist()[:2] == [-(2**63), -1]
    assert "negative values wrap around to 2**64 plus the value" in str(refused.value)
    assert _np(dlarray.astype(x1, dlarray.uint64)).tolist()[:2] == [2**64 - 1, 2**63]


# Refusals where NumPy's promotion is no dtype the function takes, and no
# conversion computes what was meant: nothing to run, and neither NumPy's
# conversion nor dlarray.compat (which keeps the refusal) is offered.
OUTSIDE_THE_CATEGORY = [
    ("maximum(int array, 1j)", lambda: dlarray.maximum(_INTS, 1j),
     "maximum takes real-valued dtypes only, and NumPy's promotion of the operands, "
     "complex128, is not one of them: take the real parts or the magnitudes"),
    ("int array < complex array", lambda: _INTS < dlarray.asarray([1j, 2j, 3j]),
     "less takes real-valued dtypes only"),
    ("atan2(int array, 1j)", lambda: dlarray.atan2(_INTS, 1j),
     "atan2 takes real floating dtypes only"),
    ("int array % 1j", lambda: _INTS % 1j, "remainder takes real-valued dtypes only"),
    ("int array & 1j", lambda: _INTS & 1j,
     "bitwise_and takes integer or boolean dtypes only, and NumPy's promotion of the "
     "operands, complex128, is not one of them (NumPy refuses them too): pass integer"),
    ("int array & nan", lambda: _INTS & float("nan"), "(NumPy refuses them too): pass integer"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "words"), [pytest.param(c, w, id=i) for i, c, w in OUTSIDE_THE_CATEGORY]
)
def test_a_refusal_outside_the_functions_category_offers_nothing_that_raises_again(call, words):
    with pytest.raises(TypeError) as refused:
        call()
    message = str(refused.value)
    assert words in message, message
    assert "`" not in message and "compat" not in message, message


def test_mixed_kind_refusals_of_compat_functions_name_dlarray_compat():
    # dlarray.compat exists for these (NumPy's mixed-kind promotions).
    for call in (
        lambda: dlarray.arange(3) + 0.5,
        lambda: dlarray.add(dlarray.arange(3), dlarray.ones(3)),
        lambda: dlarray.where(dlarray.arange(3) > 0, dlarray.arange(3), 0.5),
        lambda: dlarray.result_type(dlarray.int64, dlarray.uint64),
    ):
        with pytest.raises(TypeError, match=r"dlarray\.compat"):
            call()
    # ... and a function compat does not change keeps to dlarray's own fix.
    with pytest.raises(TypeError) as refused:
        dlarray.concat([dlarray.arange(3), dlarray.ones(3)])
    assert "compat" not in str(refused.value)


def test_the_compat_functions_named_in_refusals_are_compats_promoting_ones():
    # A refusal names dlarray.compat.<func> for each of NUMPY_PROMOTING: each
    # must be compat's own, promoting where dlarray refuses (not dlarray's
    # function, re-exported unchanged).
    ints, floats = dlarray.asarray([1, 2]), dlarray.asarray([0.5, 4.0])
    operands = {"where": (dlarray.asarray([True, False]), ints, floats)}
    for name in sorted(NUMPY_PROMOTING):
        compats = getattr(dlarray.compat, name)
        assert compats is not getattr(dlarray, name), name
        if name.startswith("bitwise"):  # integers (and bools) only
            args = (dlarray.asarray([True, False]), ints)
        else:
            args = operands.get(name, (ints, floats))
        expected = getattr(np, name)(*(_np(a) for a in args))
        with pytest.raises(TypeError):
            getattr(dlarray, name)(*args)
        got = compats(*args)
        if name == "result_type":
            assert got == expected, name
        else:
            assert _same(got, expected), (name, _np(got), expected)


def test_extended_float_refusals_write_conversions_that_run():
    x = dlarray.asarray([1.0, 2.0], dtype=dlarray.bfloat16)
    for call in (lambda: x + x, lambda: x + 1.0):
        with pytest.raises(TypeError) as refused:
            call()
        # Its calls (between backticks in the one refusal; written out in the
        # scalar's, whose words tests/namespace/test_extended_floats.py keeps).
        snippets = re.findall(r"dlarray\.as\w+\([^()]*\)", str(refused.value))
        assert snippets
        for snippet in snippets:
            out = eval(snippet, {"dlarray": dlarray, "x": x, "value": 1.0})
            assert out.dtype in (dlarray.float32, dlarray.bfloat16)


# ---- other libraries' spellings: one table, hints that run ----
# (before: a bare AttributeError for dlarray.array, dlarray.concatenate and
# x.nbytes, "'DType' object is not callable", "round() got an unexpected
# keyword argument 'decimals'")

# The package's own names get their hint from Python 3.15 on (a module
# __getattr__ costs every dlarray.<function> its specialised load before it:
# dlarray/__init__.py); before, their AttributeError is Python's own.
MODULE_HINTS = sys.version_info >= (3, 15)

SPELLING_ERRORS = [
    ("dlarray.array", lambda: dlarray.array, AttributeError,
     "module 'dlarray' has no attribute 'array'", "`dlarray.asarray(obj)`"),
    ("dlarray.concatenate", lambda: dlarray.concatenate, AttributeError,
     "module 'dlarray' has no attribute 'concatenate'", "`dlarray.concat(arrays, axis=0)`"),
    ("dlarray.arcsin", lambda: dlarray.arcsin, AttributeError,
     "module 'dlarray' has no attribute 'arcsin'", "`dlarray.asin(x)`"),
    ("dlarray.float32(3)", lambda: dlarray.float32(3), TypeError,
     "dlarray.float32 is a dtype, not a function", "`dlarray.asarray(3, dtype=dlarray.float32)`"),
    ("dlarray.round(x, decimals=2)",
     lambda: dlarray.round(dlarray.asarray([1.234]), decimals=2), TypeError,
     "round() got an unexpected keyword argument 'decimals'", "`round(x, decimals)`"),
    ("x.numel()", lambda: dlarray.arange(3).numel(), AttributeError,
     "'DLArray' object has no attribute 'numel'", "`x.size`"),
]  # fmt: skip


def _needs_module_hints(spelling: str) -> list[pytest.MarkDecorator]:
    module_name = spelling.startswith("dlarray.") and "(" not in spelling
    if not module_name or MODULE_HINTS:
        return []
    return [
        pytest.mark.skip(
            reason="the package's spelling hints need Python >= 3.15 (nox -s tests_python-3.15)"
        )
    ]


@pytest.mark.parametrize(
    ("call", "exc", "starts", "fix"),
    [
        pytest.param(c, e, s, f, id=i, marks=_needs_module_hints(i))
        for i, c, e, s, f in [*TEACHING, *SPELLING_ERRORS]
    ],
)
def test_a_message_that_teaches(call, exc, starts, fix):
    """Each refusal starts with what was asked and found, and carries the
    fix; another library's spelling (SPELLING_ERRORS, below) names the
    standard's."""
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


def test_unknown_names_and_keywords_keep_pythons_plain_errors():
    with pytest.raises(AttributeError, match=r"^module 'dlarray' has no attribute 'colour'$"):
        _ = dlarray.colour
    with pytest.raises(TypeError, match=r"^round\(\) got an unexpected keyword argument 'x2'$"):
        dlarray.round(dlarray.asarray([1.5]), x2=1)
    assert not hasattr(dlarray, "array") and "array" not in dir(dlarray)
    assert dlarray.round(dlarray.asarray([2.5])).dtype == dlarray.float64  # the C path too
    assert str(inspect.signature(dlarray.round)) == str(inspect.signature(dlarray.floor))


def _spelling_environments():
    """Names every row of the table may use: a float, an int and a complex
    matrix, a row, and a 0-d array as ``x`` (a row runs in at least one)."""
    common = {
        "dlarray": dlarray,
        "np": np,
        "obj": [[1.0, 2.0], [3.0, 4.0]],
        "a": np.ones((2, 2)),
        "axes": (1, 0),
        "axis": 0,
        "shape": (4,),
        "dtype": dlarray.float32,
        "value": 1.0,
        "indices": dlarray.asarray([0]),
        "repeats": 2,
        "min": 0.0,
        "max": 1.0,
        "decimals": 2,
    }
    floats = dlarray.asarray([[1.0, 2.0], [3.0, 4.0]])
    ints = dlarray.asarray([[1, 2], [3, 4]])
    complexes = dlarray.astype(floats, dlarray.complex128)
    for x in (floats, ints, complexes, dlarray.asarray([[1.0, 2.0]]), dlarray.asarray(1.5)):
        x = dlarray.asarray(x, copy=True)
        yield {**common, "x": x, "x1": x, "x2": x, "arrays": [x, x]}


def test_every_spelling_hint_runs():
    for spelling, hint in SPELLINGS.items():
        snippets = re.findall(r"`([^`]+)`", hint)
        assert snippets, spelling
        for snippet in snippets:
            failures = []
            for names in _spelling_environments():
                try:
                    exec(snippet, names)
                    break
                except dlarray.CUDAUnavailableError:
                    break  # x.to_device("cuda") on a machine without CUDA: it ran
                except Exception as exc:  # collected, shown below
                    failures.append(repr(exc))
            else:
                raise AssertionError(f"{spelling}: {snippet!r} runs nowhere: {failures}")


def test_every_spelling_is_what_the_errors_say():
    x = dlarray.asarray([1.0])
    for spelling, hint in SPELLINGS.items():
        owner, _, name = spelling.partition(".")
        if "(" in name:  # a keyword: dlarray.<func>(<keyword>=)
            func, _, keyword = name.rstrip("=)").partition("(")
            with pytest.raises(TypeError) as caught:
                getattr(dlarray, func)(x, **{keyword: 1})
        else:
            with pytest.raises(AttributeError) as caught:
                getattr(dlarray if owner == "dlarray" else x, name)
            assert not hasattr(dlarray if owner == "dlarray" else x, name)
            if owner == "dlarray" and not MODULE_HINTS:
                assert str(caught.value) == f"module 'dlarray' has no attribute {name!r}"
                continue
        assert hint in str(caught.value), spelling


def test_the_package_has_a_module_getattr_only_where_it_costs_nothing():
    """Before Python 3.15 a module with a __getattr__ has every attribute
    load unspecialised: dlarray.add would cost 300 instructions more per call
    (the instruction gate's rows)."""
    assert ("__getattr__" in vars(dlarray)) == MODULE_HINTS


def test_dtype_called_like_numpys_scalar_type_is_a_type_error_with_the_way():
    for call, shown in ((lambda: dlarray.int8(3), "3"), (lambda: dlarray.float64(), "value")):
        with pytest.raises(TypeError) as caught:
            call()
        snippets = re.findall(r"`([^`]+)`", str(caught.value))
        made = eval(snippets[0], {"dlarray": dlarray, "value": 3})
        assert made.ndim == 0 and int(made) == 3 and f"asarray({shown}," in snippets[0]


# ---- NumPy's words no longer leak ----
# (before: "only integer scalar arrays can be converted to a scalar index",
# BufferError "DLPack only supports native byte order." / "... signed/unsigned
# integers, float and complex dtypes.", "only integers, slices, Ellipsis (...)
# and None are valid indices", "axis must be an int" for a list,
# linspace's "got an array of dtype int32", no "cannot be broadcast")

OWN_WORDS = [
    ("x[[0, 2]]", lambda: dlarray.arange(3)[[0, 2]], TypeError,
     "only integers, slices, Ellipsis (...), None and integer or boolean arrays are valid",
     "`x[dlarray.asarray([0, 2])]`"),
    ("x[[0, 2]] = 1", lambda: dlarray.arange(3).__setitem__([0, 2], 1), TypeError,
     "only integers, slices", "integer or boolean arrays"),
    ("asarray of an object ndarray", lambda: dlarray.asarray(np.array([1, None], dtype=object)),
     TypeError, "asarray: the NumPy array holds Python objects (dtype object)",
     "`dlarray.asarray(a.tolist())`"),
    ("asarray of a str ndarray", lambda: dlarray.asarray(np.array(["a"])), TypeError,
     "asarray: the NumPy array holds strings", "`a.astype(np.float64)`"),
    ("asarray of a long double ndarray", lambda: dlarray.asarray(np.zeros(2, np.longdouble)),
     TypeError, "asarray: the NumPy array holds", "no dlarray dtype holds"),
    ("asarray of a big-endian ndarray without a copy",
     lambda: dlarray.asarray(np.arange(3, dtype=">f8"), copy=False), ValueError,
     "asarray(copy=False): the NumPy array's elements are '>f8'", "pass copy=None"),
    ("moveaxis of a list", lambda: dlarray.moveaxis(dlarray.zeros((2, 3, 4)), [1, 2], (0, 1)),
     TypeError, "moveaxis: source must be an int or a tuple of ints, got the list [1, 2]",
     "write (1, 2)"),
    ("sum over a list of axes", lambda: dlarray.sum(dlarray.zeros((2, 3)), axis=[0, 1]),
     TypeError, "sum: axis must be an int or a tuple of ints, got the list [0, 1]",
     "write (0, 1)"),
    ("linspace with an integer dtype", lambda: dlarray.linspace(0, 10, 5, dtype=dlarray.int32),
     TypeError, "linspace: dtype=int32 was passed, but linspace makes floating-point values",
     "float64"),
    ("arange with a bool dtype", lambda: dlarray.arange(3, dtype=dlarray.bool), TypeError,
     "arange: dtype=bool was passed, but arange makes numeric values", "complex128"),
    ("operands that do not broadcast", lambda: dlarray.ones(3) + dlarray.ones(4), ValueError,
     "add: shapes (3,) and (4,) do not broadcast together", "cannot be broadcast"),
    ("broadcast_to", lambda: dlarray.broadcast_to(dlarray.ones((3, 3)), (2, 3)), ValueError,
     "broadcast_to: an array of shape (3, 3) cannot be broadcast to (2, 3)",
     "only extents of 1 may grow"),
    ("broadcast_arrays", lambda: dlarray.broadcast_arrays(dlarray.ones((3, 3)), dlarray.ones(2)),
     ValueError, "broadcast_arrays: shapes (3, 3) and (2,) do not broadcast together",
     "cannot be broadcast"),
    ("broadcast_shapes", lambda: dlarray.broadcast_shapes((3,), (1,), (2,)), ValueError,
     "broadcast_shapes: shapes (3,), (1,) and (2,) do not broadcast together",
     "cannot be broadcast"),
    ("in-place operand that does not broadcast",
     lambda: dlarray.ones((2, 3)).__iadd__(dlarray.ones(2)), ValueError,
     "in-place add: shapes (2, 3) and (2,) do not broadcast together", "cannot be broadcast"),
    ("in-place result of another shape",
     lambda: dlarray.ones(3).__iadd__(dlarray.ones((2, 3))), ValueError,
     "in-place add: the result has shape (2, 3)", "cannot be broadcast"),
    ("index arrays that do not broadcast",
     lambda: dlarray.ones((3, 3))[dlarray.asarray([0, 1]), dlarray.asarray([0, 1, 2])],
     IndexError, "indexing: shapes (2,) and (3,) do not broadcast together",
     "cannot be broadcast"),
    ("x[...] = a value that does not broadcast",
     lambda: dlarray.ones((3, 3)).__setitem__(Ellipsis, dlarray.ones(2)), ValueError,
     "__setitem__: a value of shape (2,) cannot be broadcast to (3, 3)", "x[key] selects"),
    ("x[int array] = a value that does not broadcast",
     lambda: dlarray.ones((3, 3)).__setitem__(dlarray.asarray([0, 1]), dlarray.ones(2)),
     ValueError, "__setitem__: a value of shape (2,) cannot be broadcast to (2, 3)",
     "x[key] selects"),
    ("x[mask] = a value that does not broadcast",
     lambda: dlarray.ones(3).__setitem__(dlarray.asarray([True, False, True]), dlarray.ones(3)),
     ValueError, "__setitem__: a value of shape (3,) cannot be broadcast to (2,)",
     "x[key] selects"),
    ("where of shapes that do not broadcast",
     lambda: dlarray.where(dlarray.asarray([True, False, True]), dlarray.ones(2), 0.0),
     ValueError, "where: shapes (3,), (2,) and () do not broadcast together",
     "cannot be broadcast to one shape, as extents 3 and 2 meet on axis -1"),
    ("take_along_axis off its axis",
     lambda: dlarray.take_along_axis(
         dlarray.ones((2, 3)), dlarray.zeros((3, 3), dtype=dlarray.int64), axis=1),
     ValueError, "take_along_axis: x of shape (2, 3) and indices of shape (3, 3) cannot be "
     "broadcast together", "extents 2 and 3 meet on axis 0"),
    ("matmul of stacks that do not broadcast",
     lambda: dlarray.ones((2, 3, 3)) @ dlarray.ones((4, 3, 3)), ValueError,
     "matmul: the stack shapes (2,) and (4,) do not broadcast together",
     "cannot be broadcast to one shape, as extents 2 and 4 meet on axis -1"),
    ("linalg.solve of stacks that do not broadcast",
     lambda: dlarray.linalg.solve(dlarray.ones((2, 3, 3)), dlarray.ones((4, 3, 3))), ValueError,
     "solve: the stack shapes (2,) and (4,) do not broadcast together", "cannot be broadcast"),
    ("vecdot off its axis", lambda: dlarray.vecdot(dlarray.ones((2, 3)), dlarray.ones((4, 3))),
     ValueError, "vecdot: shapes (2, 3) and (4, 3) do not broadcast together",
     "cannot be broadcast to one shape, as extents 2 and 4 meet on axis -2"),
    ("linalg.cross off its axis",
     lambda: dlarray.linalg.cross(dlarray.ones((2, 3)), dlarray.ones((4, 3))), ValueError,
     "cross: shapes (2, 3) and (4, 3) do not broadcast together", "cannot be broadcast"),
    ("matrix_rank with an rtol of another stack",
     lambda: dlarray.linalg.matrix_rank(dlarray.ones((2, 3, 3)), rtol=dlarray.ones(3)),
     ValueError, "matrix_rank: rtol of shape (3,) cannot be broadcast to (2,)",
     "extent 3 meets 2 on axis -1"),
    ("repeat with repeats of another length",
     lambda: dlarray.repeat(dlarray.ones(3), dlarray.asarray([1, 2])), ValueError,
     "repeat: repeats of shape (2,) cannot be broadcast to (3,)", "extent 2 meets 3"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "exc", "starts", "words"),
    [pytest.param(c, e, s, w, id=i) for i, c, e, s, w in OWN_WORDS],
)
def test_dlaray_says_it_in_its_own_words(call, exc, starts, words):
    with pytest.raises(exc) as caught:
        call()
    message = str(caught.value)
    assert type(caught.value) is exc
    assert message.startswith(starts), message
    assert words in message, message
    numpy_words = ("DLPack only supports", "could not broadcast", "scalar index", "shape mismatch")
    assert not any(words in message for words in numpy_words), message


def test_the_c_core_and_the_python_path_refuse_a_key_in_the_same_words():
    x = dlarray.arange(3)
    with pytest.raises(TypeError) as from_c:
        x._basic_view(1.5)  # the C core's check (subscript.c)
    with pytest.raises(TypeError) as from_python:
        x[1.5]  # the indexing chapter's
    assert str(from_c.value) == str(from_python.value)


# ---- unpickling checks every field (R11) ----
# (before: shape (-1,) gave an array of the data's length from a writable
# buffer, and an unknown dtype raised a bare KeyError('float99'))

_GOOD = (1, "float64", (2,), False, "cpu", 0)


def _crafted(*fields, payload):
    return (dlarray._unpickle, (*fields, payload))


class _Crafted:
    def __init__(self, reduced):
        self.reduced = reduced

    def __reduce__(self):
        return self.reduced


CRAFTED = [
    ("negative extent, writable data", (1, "float64", (-1,), False, "cpu", 0), bytearray(16),
     ValueError, ["shape (-1,)", "negative"]),
    ("negative extent, read-only data", (1, "float64", (-1,), False, "cpu", 0), bytes(16),
     ValueError, ["shape (-1,)", "negative"]),
    ("unknown dtype", (1, "float99", (2,), False, "cpu", 0), bytes(16), ValueError,
     ["dtype", "'float99'", "float64"]),
    ("dtype not a str", (1, 7, (2,), False, "cpu", 0), bytes(16), TypeError,
     ["dtype", "must be a str"]),
    ("shape not a tuple", (1, "float64", [2], False, "cpu", 0), bytes(16), TypeError,
     ["shape", "a tuple of ints", "[2]"]),
    ("shape of floats", (1, "float64", (2.0,), False, "cpu", 0), bytes(16), TypeError,
     ["shape", "a tuple of ints"]),
    ("too many axes", (1, "float64", (1,) * 65, False, "cpu", 0), bytes(8), ValueError,
     ["shape", "65 axes"]),
    ("data too short, writable", (1, "float64", (3,), False, "cpu", 0), bytearray(16),
     ValueError, ["16 bytes", "24", "shape (3,)"]),
    ("data too long", (1, "int8", (2,), False, "cpu", 0), bytes(3), ValueError,
     ["3 bytes", "2 contiguous bytes"]),
    ("sub-byte data too short", (1, "float4_e2m1fn", (4,), False, "cpu", 0), bytes(2),
     ValueError, ["2 bytes", "4 contiguous"]),
    ("data not bytes", (1, "float64", (2,), False, "cpu", 0), 3.5, TypeError,
     ["data", "bytes-like", "float"]),
    ("bool bytes other than 0 and 1", (1, "bool", (2,), False, "cpu", 0), bytes([1, 2]),
     ValueError, ["bool", "0 and 1"]),
    ("padded not a bool", (1, "float64", (2,), 1, "cpu", 0), bytes(16), TypeError,
     ["padded", "True or False"]),
    ("unknown device kind", (1, "float64", (2,), False, "gpu", 0), bytes(16), ValueError,
     ["device", "'gpu'"]),
    ("device index not an int", (1, "float64", (2,), False, "cuda", "0"), bytes(16), TypeError,
     ["device", "index"]),
    ("format version not an int", ("1", "float64", (2,), False, "cpu", 0), bytes(16), TypeError,
     ["format version", "an int"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "payload", "exc", "words"),
    [pytest.param(f, p, e, w, id=i) for i, f, p, e, w in CRAFTED],
)
def test_a_crafted_pickle_is_refused_naming_the_field(fields, payload, exc, words):
    data = pickle.dumps(_Crafted(_crafted(*fields, payload=payload)))
    with pytest.raises(exc) as caught:
        pickle.loads(data)
    message = str(caught.value)
    assert type(caught.value) is exc
    assert message.startswith("pickle.loads: "), message
    for word in words:
        assert word in message, f"{word!r} missing from: {message}"


def test_a_well_formed_pickle_still_loads_through_each_path():
    for payload in (bytes(16), bytearray(16)):
        x = pickle.loads(pickle.dumps(_Crafted(_crafted(*_GOOD, payload=payload))))
        assert x.shape == (2,) and x.dtype == dlarray.float64 and _np(x).tolist() == [0.0, 0.0]
    y = dlarray.asarray([[True, False]])
    for protocol in (2, 5):
        assert _np(pickle.loads(pickle.dumps(y, protocol=protocol))).tolist() == [[True, False]]
