"""The C core's fast paths on the host engine (NumPy).

Three pieces of C take the common case of a small computation out of
Python, and each must give exactly what the general path gives:

- host_adopt.c takes a NumPy result as a DLArray directly, without a
  DLPack capsule: every NumPy dtype DLPack carries, every layout;
- operators.c: ``x + y`` and the other binary operators and comparisons
  are C slots that compute the common case and call the Python methods for
  the rest;
- fast_function.c: the elementwise functions are C callables that do the
  same and otherwise call the Python function they wrap.

Whether the fast path was taken is observed by counting calls of the
Python side it falls back to.
"""

from __future__ import annotations

import inspect
import math
import operator
import pickle
import sys
import threading
import warnings
import weakref
from typing import Any, ClassVar

import numpy as np
import pytest

import dlarray as xp
from dlarray import _core
from dlarray._core import engine_call
from dlarray._engine import host_fast_path, routing

HOST_ENGINE = pytest.mark.skipif(
    host_fast_path.ARRAY_TYPE is not np.ndarray,
    reason="the host engine is not NumPy (DLARRAY_HOST_ENGINE names another): no fast path",
)


def adopt(result: np.ndarray) -> xp.DLArray:
    """``result`` as the host engine's kernel would return it."""
    return engine_call(lambda: result)


# ---- host_adopt.c: NumPy results taken directly ----

# Every NumPy type DLPack carries, by NumPy's own type names (the C integer
# types included: NumPy numbers them separately even where they have the
# same width).
ADOPTED = [
    "bool",
    "byte",
    "ubyte",
    "short",
    "ushort",
    "intc",
    "uintc",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


@HOST_ENGINE
@pytest.mark.parametrize("name", ADOPTED)
def test_every_dtype_dlpack_carries_is_adopted_without_a_capsule(name):
    values = np.arange(-3, 3).astype(name).reshape(2, 3)
    x = adopt(values)
    assert x._owner is values and x._engine_view is values  # no ImportedTensor
    assert x.dtype == xp.asarray(values, copy=True).dtype  # as DLPack would name it
    assert x.shape == values.shape
    back = np.from_dlpack(x)
    assert back.dtype == values.dtype
    assert np.shares_memory(back, values)
    np.testing.assert_array_equal(back, values)


@HOST_ENGINE
@pytest.mark.parametrize(
    "make",
    [
        lambda: np.array(2.5),  # 0-d
        lambda: np.zeros((0, 3)),  # no elements
        lambda: np.ones((2, 1, 3, 1, 2, 2)),  # more axes than stored inline
        lambda: np.arange(12.0).reshape(3, 4)[::-1, ::2],  # negative and gapped strides
        lambda: np.arange(12.0).reshape(3, 4).T,  # Fortran order
        lambda: np.broadcast_to(np.arange(3.0), (4, 3)),  # zero strides, read-only
    ],
    ids=["0-d", "empty", "6-d", "negative-strides", "transposed", "broadcast"],
)
def test_every_layout_is_adopted_as_it_is(make):
    values = make()
    x = adopt(values)
    assert x._owner is values
    assert x.shape == values.shape
    assert x._strides == tuple(s // values.itemsize for s in values.strides)
    assert x._readonly == (not values.flags.writeable)
    np.testing.assert_array_equal(np.from_dlpack(x), values)


@HOST_ENGINE
def test_a_read_only_result_stays_read_only():
    values = np.arange(3.0)
    values.flags.writeable = False
    x = adopt(values)
    assert x._readonly
    with pytest.raises(ValueError):
        x[0] = 1.0


@HOST_ENGINE
def test_an_adopted_result_keeps_its_numpy_array_alive_and_then_frees_it():
    values = np.arange(4.0)
    alive = weakref.ref(values)
    x = adopt(values)
    del values
    assert alive() is not None
    assert float(xp.sum(x)) == 6.0
    del x
    assert alive() is None


@HOST_ENGINE
def test_results_dlpack_cannot_carry_take_the_dlpack_route_and_its_errors():
    # Byte-swapped and long double: NumPy's own __dlpack__ refuses them, so
    # the refusal is DLPack's, as before the direct adoption.
    with pytest.raises(BufferError, match="byte order"):
        adopt(np.arange(3.0).astype(">f8"))
    if np.dtype(np.longdouble).itemsize > 8:
        with pytest.raises(BufferError):
            adopt(np.ones(2, np.longdouble))
    # Unaligned data goes through NumPy's export, which takes it.
    raw = np.zeros(17, np.uint8)
    unaligned = np.frombuffer(raw.data, dtype=np.float64, offset=1, count=2)
    x = adopt(unaligned)
    assert x._owner is not unaligned  # the DLPack route's owner
    np.testing.assert_array_equal(np.from_dlpack(x), unaligned)
    # A NumPy scalar becomes a 0-d array through the Python route.
    y = adopt(np.float32(1.5))
    assert y.shape == () and y.dtype == xp.float32


# ---- operators.c and fast_function.c: when the fast path is taken ----


@pytest.fixture
def general_calls(monkeypatch):
    """Counts the calls that reach the Python side of the operators and of
    the elementwise functions ``add`` and ``sin`` (names -> count)."""
    calls: dict[str, int] = {}

    def counted(name, method):
        def method_counted(*args):
            calls[name] = calls.get(name, 0) + 1
            return method(*args)

        return method_counted

    # The operators' general path: the method operators.c calls by name.
    general = xp.DLArray._operator

    def operator_counted(self, name, other, reflected, /):
        key = ("r" if reflected else "") + name
        calls[key] = calls.get(key, 0) + 1
        return general(self, name, other, reflected)

    monkeypatch.setattr(xp.DLArray, "_operator", operator_counted)
    for name in ("add", "sin"):
        function = getattr(xp, name)
        kernel, allowed = function._kernel, function._allowed
        nargs = 2 if name == "add" else 1
        wrapped = _core.fast_function(
            kernel, allowed, nargs, counted("f" + name, function.__wrapped__)
        )
        monkeypatch.setattr(xp, name, wrapped)
    yield calls


@HOST_ENGINE
def test_arrays_of_one_dtype_and_joining_scalars_never_reach_python(general_calls):
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    f32 = xp.asarray([1.0, 2.0], dtype=xp.float32)
    b = xp.asarray([True, False])
    results = [
        x + x,
        x - 1.0,
        2 * x,  # an int joins a floating array
        1.5 / x,
        x**2,
        x[0] + x,  # broadcasting is the kernel's, no rule of dlarray's
        x < x,
        1.0 < x,  # reflected by Python as x > 1.0
        x == 2,
        f32 + 1.0,  # stays float32 (the standard's and NEP 50's rule)
        b & True,
        xp.add(x, x),
        xp.add(x, 1.0),
        xp.add(1.0, x),
        xp.sin(x),
        xp.sin(x.T),  # a fresh view: its engine view is made on the way
    ]
    assert general_calls == {}
    assert (f32 + 1.0).dtype == xp.float32
    assert all(type(r) is xp.DLArray for r in results)


@HOST_ENGINE
def test_two_dtypes_the_standard_promotes_never_reach_python(general_calls):
    """Two arrays of two dtypes of one kind: NumPy's kernel promotes them as
    the standard does, in its loop (tests/oracle/test_oracle_promotions.py
    compares every such result with the general path's)."""
    i8, u8 = xp.asarray([1, -2], dtype=xp.int8), xp.asarray([3, 4], dtype=xp.uint8)
    i64 = xp.asarray([5, 6], dtype=xp.int64)
    f32, f64 = xp.asarray([1.5, 2.0], dtype=xp.float32), xp.asarray([0.25, 4.0])
    c64 = xp.asarray([1j, 2.0], dtype=xp.complex64)
    results = {
        "int8 + int64": i8 + i64,
        "uint8 - int8": u8 - i8,
        "int8 & uint8": i8 & u8,
        "float32 * float64": f32 * f64,
        "float64 < float32": f64 < f32,
        "complex64 + float64": c64 + f64,
        "add(int64, int8)": xp.add(i64, i8),
    }
    assert general_calls == {}
    assert {k: r.dtype for k, r in results.items()} == {
        "int8 + int64": xp.int64, "uint8 - int8": xp.int16, "int8 & uint8": xp.int16,
        "float32 * float64": xp.float64, "float64 < float32": xp.bool,
        "complex64 + float64": xp.complex128, "add(int64, int8)": xp.int64,
    }  # fmt: skip
    assert np.from_dlpack(results["uint8 - int8"]).tolist() == [2, 6]


@HOST_ENGINE
@pytest.mark.parametrize(
    ("left", "right", "reaches"),
    [
        ("int64", "uint64", "add"),  # no promotion in the standard
        ("int8", "float32", "add"),  # no mixing of kinds
        ("int8", "int16", "divide"),  # computed, then dropped: integer divide gives float64
    ],
)
def test_two_dtypes_without_the_standards_promotion_go_to_python(general_calls, left, right,
                                                                 reaches):  # fmt: skip
    x, y = xp.ones(2, dtype=getattr(xp, left)), xp.ones(2, dtype=getattr(xp, right))
    if reaches == "divide":
        assert (x / y).dtype == xp.float64
    else:
        with pytest.raises(TypeError, match="no promotion"):
            x + y
    assert general_calls == {reaches: 1}


@HOST_ENGINE
@pytest.mark.parametrize(
    ("call", "reaches"),
    [
        (lambda x, i: x + i, "add"),  # two dtypes: promotion
        (lambda x, i: i + 300, "add"),  # an int next to an integer array: range check
        (lambda x, i: x + 2**70, "add"),  # an int beyond 64 bits
        (lambda x, i: x + 1j, "add"),  # complex with a real array: promotion
        (lambda x, i: 1j - x, "rsubtract"),
        (lambda x, i: i * True, "multiply"),  # a bool with an integer array
        (lambda x, i: xp.add(x, i), "fadd"),
        (lambda x, i: xp.sin(i), "fsin"),  # an integer array: the general path's error
    ],
    ids=[
        "two-dtypes",
        "int-with-int8",
        "huge-int",
        "complex-scalar",
        "reflected",
        "bool-with-int",
        "function",
        "unary-error",
    ],
)
def test_operands_that_need_a_rule_go_to_python(general_calls, call, reaches):
    x = xp.asarray([1.0, 2.0])
    i = xp.asarray([1, 2], dtype=xp.int8)
    try:
        call(x, i)
    except (TypeError, OverflowError):
        pass  # the general path's own refusal
    assert general_calls == {reaches: 1}


@HOST_ENGINE
def test_operators_give_what_the_namespace_functions_give():
    rng = np.random.default_rng(7)
    x = xp.asarray(rng.standard_normal((3, 4)))
    y = xp.asarray(rng.standard_normal((3, 4)))
    n = xp.asarray(rng.integers(1, 9, (3, 4)))
    pairs = [
        (operator.add, xp.add, x, y),
        (operator.sub, xp.subtract, x, 2.5),
        (operator.mul, xp.multiply, 3, x),
        (operator.truediv, xp.divide, x, y),
        (operator.floordiv, xp.floor_divide, x, y),
        (operator.mod, xp.remainder, x, 0.75),
        (operator.pow, xp.pow, xp.abs(x), 0.5),
        (operator.and_, xp.bitwise_and, n, 6),
        (operator.or_, xp.bitwise_or, n, n),
        (operator.xor, xp.bitwise_xor, 5, n),
        (operator.lshift, xp.bitwise_left_shift, n, n),
        (operator.rshift, xp.bitwise_right_shift, n, 1),
        (operator.lt, xp.less, x, y),
        (operator.le, xp.less_equal, x, 0.0),
        (operator.eq, xp.equal, n, 4),
        (operator.ne, xp.not_equal, n, n),
        (operator.gt, xp.greater, 0.5, x),
        (operator.ge, xp.greater_equal, x, y),
    ]
    for op, function, a, b in pairs:
        got, want = op(a, b), function(a, b)
        assert got.dtype == want.dtype, op
        np.testing.assert_array_equal(np.from_dlpack(got), np.from_dlpack(want), err_msg=str(op))
    np.testing.assert_allclose(
        np.from_dlpack(x @ y.T), np.from_dlpack(x) @ np.from_dlpack(y).T, rtol=1e-12
    )


def test_operators_refuse_what_they_refused_before():
    x = xp.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="@"):
        x @ 2  # matmul takes no scalars
    with pytest.raises(TypeError):
        pow(x, 2, 3)
    with pytest.raises(TypeError, match="unsupported operand for \\+"):
        x + np.ones(2)  # no mixing with another library's arrays
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        "a" * x
    with pytest.raises(OverflowError, match="does not fit in int8"):
        xp.asarray([1], dtype=xp.int8) + 300
    assert (x == None) is False  # noqa: E711 - NotImplemented both ways: identity
    assert (x != "a") is True
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)


@HOST_ENGINE
def test_floating_point_overflow_is_quiet_on_the_fast_path():
    x = xp.asarray([1.0, -1.0, 0.0], dtype=xp.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):  # the caller's NumPy state is not dlarray's
            inf = x + 1e300
            quotient = x / 0.0
    assert np.isinf(np.from_dlpack(inf)).all()
    assert np.isnan(np.from_dlpack(quotient))[2]


def test_fast_paths_stay_quiet_on_every_new_thread():
    # Each thread finds (and remembers) its own quiet context; threads that
    # come and go must not inherit another thread's.
    x = xp.asarray([1.0, 0.0])
    errors: list[BaseException] = []

    def divide():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                for _ in range(50):
                    x / 0.0
                    xp.divide(x, 0.0)
        except BaseException as exc:  # reported below
            errors.append(exc)

    for _ in range(5):
        threads = [threading.Thread(target=divide) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []


# ---- fast_function.c: what readers and tools see ----


def test_a_fast_function_reads_as_the_python_function_it_wraps():
    add = xp.add
    general = add.__wrapped__
    assert inspect.isfunction(general)
    assert add.__name__ == add.__qualname__ == "add"
    assert add.__doc__ == general.__doc__ and "Examples" in add.__doc__
    assert add.__module__ == general.__module__
    assert inspect.signature(add) == inspect.signature(general)
    assert str(inspect.signature(add)).startswith("(x1")
    assert inspect.isroutine(add)
    assert repr(add) == repr(general)
    assert pickle.loads(pickle.dumps(add)) is add
    assert sys.modules[add.__module__].add is add


@pytest.mark.parametrize("name", sorted(host_fast_path.CASES))
def test_every_accelerated_function_is_where_pickle_and_imports_find_it(name: str) -> None:
    function = getattr(xp, name)
    assert type(function) is type(xp.add)  # the fast path in front
    assert function.__module__.startswith("dlarray._api.")  # the chapter's, for its source
    assert getattr(sys.modules[function.__module__], name) is function
    assert pickle.loads(pickle.dumps(function)) is function


WHOLE_ARRAY_REDUCTIONS = ["sum", "prod", "max", "min", "argmax", "argmin", "all", "any"]


def _outcome(call: Any) -> Any:
    try:
        result = call()
    except Exception as exc:  # compared between the two calls
        return type(exc), str(exc)
    return result.dtype, result.shape, np.asarray(result).tobytes()


@pytest.mark.parametrize("name", WHOLE_ARRAY_REDUCTIONS)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (2, 3)])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "uint64", "float32", "complex128"])
def test_a_reduction_of_the_array_alone_is_its_call_with_default_keywords(
    name: str, shape: tuple[int, ...], dtype: str
) -> None:
    # The call with the array alone is the host fast path's, the one with
    # keywords the chapter's: empty and 0-d arrays included, they agree.
    x = xp.asarray(np.arange(math.prod(shape)).reshape(shape).astype(dtype))
    function = getattr(xp, name)
    alone = _outcome(lambda: function(x))
    assert alone == _outcome(lambda: function(x, axis=None, keepdims=False))
    assert alone == _outcome(lambda: function.__wrapped__(x))


def test_a_fast_function_refuses_bad_calls_as_the_python_function_does():
    x = xp.asarray([1.0])
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        xp.add(x)
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3"):
        xp.add(x, x, x)
    with pytest.raises(TypeError, match="positional-only arguments passed as keyword"):
        xp.sin(x=x)


def test_fast_function_checks_its_arguments():
    with pytest.raises(ValueError, match="nargs"):
        _core.fast_function(np.add, frozenset(), 3, len)
    with pytest.raises(TypeError):
        _core.fast_function(np.add, set(), 2, len)
    with pytest.raises(TypeError, match="callable"):
        _core.fast_function(np.add, frozenset(), 2, None)


def test_register_array_type_checks_the_whole_class_before_keeping_anything():
    """The one registration reads what the C core calls from the class; a
    class missing an attribute, or with a bad operator row or engine, is
    refused naming it, and the registered class stays as it was."""

    class Bare(_core.ArrayBase):
        pass

    with pytest.raises(TypeError, match="_dtype_objects"):
        _core.register_array_type(Bare)

    class BadRow(xp.DLArray):
        _operator_kernels: ClassVar[dict[str, Any]] = dict(
            xp.DLArray._operator_kernels, add=(None, None)
        )

    with pytest.raises(TypeError, match="add"):
        _core.register_array_type(BadRow)

    class BadEngine(xp.DLArray):
        _host_engine = (np.ndarray, None, None, len, len, np.ufunc, "not a dict", {})

    with pytest.raises(TypeError, match="_host_engine"):
        _core.register_array_type(BadEngine)

    class ShortEngine(xp.DLArray):  # the HostEngine of before promotions
        _host_engine = tuple(host_fast_path.ENGINE or ())[:7] or (None,)

    refusal = r"_host_engine must be None or a host_fast_path\.HostEngine"
    with pytest.raises(TypeError, match=refusal):
        _core.register_array_type(ShortEngine)

    class BadPromotion(xp.DLArray):
        _host_engine = (host_fast_path.ENGINE or host_fast_path.HostEngine(
            np.ndarray, None, None, len, len, np.ufunc, {}, {}))._replace(
            promotions={(xp.int8, "int16"): xp.int16})  # fmt: skip

    with pytest.raises(TypeError, match="'int16' is no dlarray dtype"):
        _core.register_array_type(BadPromotion)
    x = xp.asarray([1.0])
    assert type(x + x) is xp.DLArray  # the registered class is unchanged
    assert float((x + x)[0]) == 2.0
    assert float((x + xp.asarray([1.0], dtype=xp.float32))[0]) == 2.0  # and its general path


# ---- the quiet context and NumPy's memory handler (docs/design.md) ----


def _handler_named(name: bytes) -> Any:
    """A NumPy memory handler (a "mem_handler" capsule) that allocates as
    NumPy's default one does, under another name: its PyDataMem_Handler is
    the default's struct copied, so no Python code runs inside allocations."""
    import ctypes

    import abi

    api = ctypes.cast(
        abi.capsule_pointer(np._core._multiarray_umath._ARRAY_API),
        ctypes.POINTER(ctypes.c_void_p),
    )
    # PyArray_API[306] is PyDataMem_DefaultHandler, a PyObject ** (numpy's
    # __multiarray_api.h, feature version 1.22 and later).
    default = ctypes.cast(api[306], ctypes.POINTER(ctypes.py_object)).contents.value
    handler_size = 128 + 5 * ctypes.sizeof(ctypes.c_void_p)  # name, version; ctx, 4 functions
    struct = ctypes.create_string_buffer(handler_size)
    ctypes.memmove(struct, abi.capsule_pointer(default), handler_size)
    ctypes.memmove(struct, name + b"\0", len(name) + 1)
    # A capsule keeps the pointer to its name, and arrays allocated through
    # the handler name it as long as they live: both buffers are kept.
    capsule_name = ctypes.create_string_buffer(b"mem_handler")
    name_pointer = ctypes.cast(capsule_name, ctypes.c_char_p)
    capsule = abi.PyCapsule_New(ctypes.addressof(struct), name_pointer, abi.CapsuleDestructor())
    _KEEP_ALIVE.append((struct, capsule_name))
    # PYFUNCTYPE: called with the GIL held (CFUNCTYPE would release it).
    set_handler = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)(api[304])
    return capsule, set_handler


_KEEP_ALIVE: list[Any] = []


@HOST_ENGINE
@pytest.mark.parametrize("computed_first", [False, True], ids=["installed-first", "computed-first"])
def test_results_use_the_memory_handler_the_thread_had_at_its_first_computation(computed_first):
    # The price of the quiet context written down in docs/design.md: inside
    # a kernel, context variables keep the values they had when the thread
    # first computed, and NumPy's memory handler is one.  A fresh thread
    # has a context of its own, so the handler set here stays in it.
    name_of = np._core.multiarray.get_handler_name
    x = xp.asarray([1.0, 2.0, 3.0])
    seen: dict[str, Any] = {}

    def thread() -> None:
        capsule, set_handler = _handler_named(b"dlarray_test_handler")
        if computed_first:
            x + x
        set_handler(capsule)
        seen["numpy"] = name_of(np.ones(3))
        seen["dlarray"] = name_of(routing.engine_view(x + x))

    worker = threading.Thread(target=thread)
    worker.start()
    worker.join()
    assert seen["numpy"] == "dlarray_test_handler"
    assert seen["dlarray"] == ("default_allocator" if computed_first else "dlarray_test_handler")
