"""Regression tests for the hardening pass (issue 16): deleters on threads
that do not hold the GIL, layout arithmetic that must not overflow, an
exception kept across a producer's deleter, argument errors that name the
argument, and sub-interpreters refused.

Each test reproduces one failure the pass found on the code before it; the
comment on each says what used to happen.
"""

from __future__ import annotations

import ctypes
import gc
import os
import subprocess
import sys
import sysconfig
import textwrap
import threading
import time
import weakref

import abi
import numpy as np
import pytest

import dlarray
from dlarray import _core

LINUX = sys.platform.startswith("linux")
# Free-threaded CPython (3.13t): no GIL, so nothing waits for one.
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))

# ---- 1. deleters called on a thread that does not hold the GIL ----


def _start_deleter_thread_holding_the_gil(capsule):
    """Start a pthread whose start routine is the deleter of the tensor in
    ``capsule``, *without* releasing the GIL (PyDLL keeps it), and return a
    function that joins it (through CDLL, which releases the GIL so the
    deleter can take it)."""
    managed = abi.managed_struct(capsule)
    deleter = ctypes.cast(managed.deleter, ctypes.c_void_p).value
    thread = ctypes.c_ulong()
    rc = ctypes.PyDLL(None).pthread_create(
        ctypes.byref(thread), None, ctypes.c_void_p(deleter),
        ctypes.c_void_p(ctypes.addressof(managed)),
    )  # fmt: skip
    assert rc == 0, f"pthread_create failed: {rc}"

    def join():
        assert ctypes.CDLL(None).pthread_join(thread, None) == 0

    return join


def _hold_the_gil_while(condition_holds, seconds):
    """Run pure Python for ``seconds`` (the GIL is not given up: the switch
    interval is longer) and return False as soon as ``condition_holds()``
    is False."""
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        if not condition_holds():
            return False
    return True


@pytest.mark.skipif(not LINUX, reason="uses pthread_create from libc")
@pytest.mark.parametrize("max_version", [None, (1, 3)])
@pytest.mark.parametrize("copy", [None, True])
def test_a_c_thread_deleter_waits_for_the_gil_the_main_thread_holds(max_version, copy):
    """The deterministic form of the 3.10/3.11 crash.  The deleter runs on
    a C thread while this thread holds the GIL; it must wait for the GIL
    before touching any reference count.  It used to drop the reference at
    once, unlocked (3.10/3.11 saw the GIL holder's thread state and took it
    for its own), racing the interpreter: SIGSEGV, 'object already
    tracked'.  With copy=True the deleter frees the last reference of the
    copy, so it deallocates a whole array and its host buffer."""
    x = dlarray.asarray([1.0, 2.0, 3.0])
    capsule = x.__dlpack__(max_version=max_version, copy=copy)
    abi.set_capsule_name(capsule, abi.USED_VERSIONED_NAME if max_version else abi.USED_LEGACY_NAME)
    exported = abi.read_capsule(capsule)
    owner_address = ctypes.cast(abi.managed_struct(capsule).manager_ctx, ctypes.c_void_p).value
    exported_object = ctypes.cast(owner_address, ctypes.py_object).value
    assert (exported_object is x) == (copy is None)
    released = weakref.ref(exported_object)
    del exported_object
    refs_before = sys.getrefcount(x)
    if FREE_THREADED:
        # No GIL to wait for: the deleter attaches a thread state of its own
        # (apache/tvm-ffi#529 crashed for skipping that) and releases the
        # export at once; the counts below say it did, exactly once.
        _start_deleter_thread_holding_the_gil(capsule)()
    else:
        interval = sys.getswitchinterval()
        sys.setswitchinterval(60.0)  # this thread keeps the GIL while it runs Python
        try:
            join = _start_deleter_thread_holding_the_gil(capsule)
            # 0.2 s of pure Python: the C thread has long started and, before
            # the fix, had long dropped its reference.
            held = _hold_the_gil_while(
                lambda: released() is not None and sys.getrefcount(x) >= refs_before, 0.2
            )
            join()
            assert held, "the deleter released the export while another thread held the GIL"
        finally:
            sys.setswitchinterval(interval)
    gc.collect()
    if copy is None:
        assert sys.getrefcount(x) == refs_before - 1  # the capsule's reference is gone
    else:
        assert released() is None  # the copy died with its export
    assert exported["shape"] == [3]


@pytest.mark.skipif(not LINUX, reason="uses pthread_create from libc")
def test_c_thread_deleters_racing_python_threads_leave_every_count_right():
    """Many exports released on C threads while Python threads keep
    exporting and dropping arrays: every export is released once, under the
    GIL (the repository's own c-thread test used to crash about once in 3000
    runs on 3.10/3.11)."""
    x = dlarray.asarray(np.arange(16.0))
    before = sys.getrefcount(x)
    stop = threading.Event()

    def churn():
        while not stop.is_set():
            y = x[1:]
            np.from_dlpack(y).sum()
            del y

    workers = [threading.Thread(target=churn) for _ in range(2)]
    for w in workers:
        w.start()
    try:
        for _ in range(300):
            capsule = x.__dlpack__(max_version=(1, 3))
            abi.set_capsule_name(capsule, abi.USED_VERSIONED_NAME)
            abi.run_deleter_on_c_thread(capsule)
            del capsule
    finally:
        stop.set()
        for w in workers:
            w.join()
    gc.collect()
    assert sys.getrefcount(x) == before


_TORCH_THREADS = textwrap.dedent(
    """
    import threading, time, sys
    import torch, dlarray
    stop = time.monotonic() + float(sys.argv[1])
    counts = [0] * 4
    def work(i):
        while time.monotonic() < stop:
            x = dlarray.asarray([float(i), 2.0, 3.0])
            t = torch.from_dlpack(x)        # torch runs our deleter without the GIL
            assert float(t.sum()) == i + 5.0
            del t, x
            counts[i] += 1
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    print("exchanges", sum(counts))
    """
)


def test_torch_from_dlpack_on_four_threads_does_not_crash():
    """torch.from_dlpack of dlarray arrays from four threads: PyTorch
    calls the deleter without the GIL.  Used to crash within seconds on
    3.10/3.11 (SIGSEGV, 'object already tracked')."""
    pytest.importorskip("torch")
    seconds = os.environ.get("DLARRAY_SOAK_SECONDS", "3")  # nox -s threads: 30
    done = subprocess.run(
        [sys.executable, "-c", _TORCH_THREADS, seconds],
        capture_output=True, text=True, timeout=float(seconds) + 120, env=_env_with_our_path(),
    )  # fmt: skip
    assert done.returncode == 0, _describe(done)
    assert int(done.stdout.split()[-1]) > 100


# ---- 2. layout arithmetic that used to overflow (undefined behaviour) ----


def test_empty_with_a_zero_extent_still_checks_the_other_extents():
    # dla_shape_product stopped checking after the 0; the C-contiguous
    # strides 4 * 2**62 then overflowed.
    with pytest.raises(ValueError, match="too big"):
        dlarray.empty((0, 2**62, 4))
    assert dlarray.empty((0, 2**20, 4)).shape == (0, 2**20, 4)


@pytest.mark.parametrize("step", [2**62, 2**63 - 1, -(2**63) + 1])
def test_a_step_past_the_end_keeps_a_representable_stride(step):
    # stride 2 * step overflowed int64; one element is taken, so the stride
    # is never used and the parent's is kept.
    x = dlarray.reshape(dlarray.arange(10), (5, 2))
    v = x[::step]
    assert v.shape == (1, 2)
    assert np.from_dlpack(v).tolist() == ([[0, 1]] if step > 0 else [[8, 9]])


def test_a_producer_layout_beyond_the_address_space_is_refused_when_indexed():
    # A producer's strides so large that start * stride overflows int64: the
    # import refuses them (their span passes 2**63 - 1 bytes), and the same
    # layout made as a view is refused when indexed.
    p = abi.Producer(shape=(3,), strides=(2**62,), dtype=(2, 32, 1))
    with pytest.raises(BufferError, match="span more than 2"):
        dlarray.from_dlpack(p)
    x = dlarray.zeros(3, dtype=dlarray.float32)._view((3,), (2**62,), 0)
    assert x[0].shape == ()
    with pytest.raises(ValueError, match="overflow"):
        x[2]
    with pytest.raises(ValueError, match="overflow"):
        x[1:]
    del x


@pytest.mark.parametrize("byte_offset", [2**63, 2**64 - 1])
def test_a_byte_offset_past_the_address_space_is_refused_and_released_once(byte_offset):
    # data + byte_offset used to overflow the pointer.
    p = abi.Producer(byte_offset=byte_offset)
    with pytest.raises(BufferError, match="byte_offset"):
        dlarray.from_dlpack(p)
    p.drop_capsules()
    gc.collect()
    assert len(p.deleter_calls) == 1  # by the producer's own capsule destructor


# ---- 3. an exception kept while a producer's deleter runs ----


def test_an_imported_array_dying_while_an_exception_propagates_keeps_it():
    # imported_dealloc called the deleter (Python code here) with the
    # TypeError set: SystemError 'error return without exception set'.
    p = abi.Producer(shape=(2,))
    with pytest.raises(TypeError):
        int(dlarray.from_dlpack(p), 10)
    gc.collect()
    assert len(p.deleter_calls) == 1


# ---- 4. argument errors that name the argument ----


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"max_version": (2**70, 0)}, "max_version"),
        ({"max_version": (1, -1)}, "max_version"),
        ({"dl_device": (2**70, 0)}, "dl_device"),
        ({"dl_device": (1, -(2**70))}, "dl_device"),
    ],
)
def test_out_of_range_export_arguments_are_value_errors_naming_them(kwargs, words):
    # These were bare OverflowErrors naming nothing.
    with pytest.raises(ValueError, match=rf"{words}=.*\[0, \d+\]"):
        dlarray.asarray([1.0]).__dlpack__(**kwargs)


def test_numpy_integer_scalars_are_accepted_where_ints_are():
    x = dlarray.asarray([1.0, 2.0])
    capsule = x.__dlpack__(
        stream=np.int64(-1), max_version=(np.int32(1), np.uint8(3)),
        dl_device=(np.int64(1), np.int16(0)),
    )  # fmt: skip
    assert abi.capsule_name(capsule) == b"dltensor_versioned"
    y = dlarray.from_dlpack(x, device=(np.int64(1), np.int64(0)))
    assert y.device == x.device


def test_bools_are_not_integers_here():
    with pytest.raises(TypeError, match="max_version"):
        dlarray.asarray([1.0]).__dlpack__(max_version=(True, 0))
    with pytest.raises(TypeError, match="stream"):
        dlarray.asarray([1.0]).__dlpack__(stream=False)


def test_an_unknown_device_type_as_an_argument_is_a_value_error_with_the_range():
    # Was a BufferError with no range; a capsule from that device stays one.
    with pytest.raises(ValueError, match=r"99 is not a DLPack device type.*1 \(cpu\)"):
        dlarray.from_dlpack(dlarray.asarray([1.0]), device=(99, 0))


def test_a_torch_style_device_string_says_how_to_give_an_index():
    with pytest.raises(ValueError, match=r"Device\('cuda', 1\).*\(2, 1\)"):
        dlarray.from_dlpack(dlarray.asarray([1.0]), device="cuda:1")


class _RaisesTypeErrorInside:
    """A DLPack >= 1.0 producer whose __dlpack__ fails inside with a
    TypeError of its own."""

    def __init__(self):
        self.calls = []

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(max_version)
        return len(5)  # TypeError: object of type 'int' has no len()

    def __dlpack_device__(self):
        return (1, 0)


@pytest.mark.parametrize("kwargs", [{}, {"copy": True}])
def test_a_type_error_inside_a_producer_is_not_taken_for_a_refused_keyword(kwargs):
    # It triggered the keyword-less retry, and the original error was lost.
    p = _RaisesTypeErrorInside()
    with pytest.raises(TypeError, match="has no len"):
        dlarray.from_dlpack(p, **kwargs)
    assert p.calls == [(1, 3)]  # asked once, not again without keywords


def test_a_pre_1_0_producer_is_still_asked_again_without_keywords():
    p = abi.Producer(accepts_keywords=False, shape=(2,))
    x = dlarray.from_dlpack(p)
    assert x.shape == (2,)
    assert [sorted(c) for c in p.dlpack_calls] == [["max_version", "stream"], []]
    del x


def test_a_failed_retry_keeps_the_refusal_as_its_context():
    class Old:
        calls = 0

        def __dlpack__(self, stream=None):
            Old.calls += 1
            raise BufferError("cannot export this one")

    with pytest.raises(BufferError, match="cannot export") as info:
        _core.from_dlpack(Old())
    assert isinstance(info.value.__context__, TypeError)
    assert "max_version" in str(info.value.__context__)


@pytest.mark.parametrize("table", [True, False, -1, 0, 1, 4097, 2**70, "0x1000", None, 1.5])
def test_an_exchange_table_attribute_that_cannot_be_a_table_is_ignored(table):
    # True and negative ints were dereferenced as addresses: a crash.
    class Producer:
        __c_dlpack_exchange_api__ = table

        def __init__(self):
            self.a = np.arange(3.0)

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    assert np.from_dlpack(dlarray.from_dlpack(Producer())).tolist() == [0.0, 1.0, 2.0]


# ---- 5. sub-interpreters ----

_LEGACY_SUBINTERPRETER = textwrap.dedent(
    """
    import sys, _testcapi
    code = (
        "import sys; sys.path[:0] = " + repr(sys.path) + "\\n"
        "try:\\n"
        "    import dlarray\\n"
        "    print('IMPORTED')\\n"
        "except ImportError as e:\\n"
        "    print('REFUSED', e)\\n"
    )
    first = sys.argv[1] == "sub-first"
    if not first:
        import dlarray
        x = dlarray.arange(3.0)
    assert _testcapi.run_in_subinterp(code) == 0
    import dlarray                      # after the sub-interpreter is gone
    y = dlarray.asarray([1.0, 2.0])
    print("MAIN", repr(y), repr(y + y), repr(dlarray.from_dlpack(y)))
    """
)


@pytest.mark.parametrize("order", ["sub-first", "main-first"])
def test_a_legacy_sub_interpreter_is_refused_and_the_main_one_unharmed(order):
    # A legacy sub-interpreter could import the core; once it was destroyed
    # the main interpreter kept using its class and functions
    # ("ImportError: __import__ not found" from repr).
    pytest.importorskip("_testcapi")
    done = subprocess.run(
        [sys.executable, "-c", _LEGACY_SUBINTERPRETER, order],
        capture_output=True, text=True, timeout=120, env=_env_with_our_path(),
    )  # fmt: skip
    assert done.returncode == 0, _describe(done)
    assert "REFUSED dlarray._core cannot be imported in a sub-interpreter" in done.stdout
    assert "IMPORTED" not in done.stdout
    assert "MAIN dlarray.asarray([1.0, 2.0]" in done.stdout


_ISOLATED_SUBINTERPRETER = textwrap.dedent(
    """
    import sys
    try:
        import _interpreters as interpreters
    except ImportError:
        import _xxsubinterpreters as interpreters
    out = sys.argv[1]
    code = (
        "import sys; sys.path[:0] = " + repr(sys.path) + "\\n"
        "try:\\n"
        "    import dlarray\\n"
        "    result = 'IMPORTED'\\n"
        "except ImportError as e:\\n"
        "    result = 'REFUSED ' + str(e)\\n"
        "open(" + repr(out) + ", 'w').write(result)\\n"
    )
    iid = interpreters.create()          # isolated: its own GIL
    interpreters.run_string(iid, code)
    interpreters.destroy(iid)
    import dlarray
    print("MAIN", repr(dlarray.asarray([1.0, 2.0]) * 2))
    """
)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="isolated interpreters arrived in 3.12")
def test_an_isolated_sub_interpreter_is_refused(tmp_path):
    out = tmp_path / "result.txt"
    done = subprocess.run(
        [sys.executable, "-c", _ISOLATED_SUBINTERPRETER, str(out)],
        capture_output=True, text=True, timeout=120, env=_env_with_our_path(),
    )  # fmt: skip
    assert done.returncode == 0, _describe(done)
    assert out.read_text().startswith("REFUSED "), out.read_text()
    assert "MAIN dlarray.asarray([2.0, 4.0]" in done.stdout


def test_reimporting_the_core_in_the_main_interpreter_shares_its_one_state():
    # Multi-phase init makes a new module object on a second import; the
    # process-wide state (the registered class, the types) is the first
    # import's, and both modules keep working.
    code = (
        "import sys, numpy, dlarray, dlarray._core as a\n"
        "del sys.modules['dlarray._core']\n"
        "import dlarray._core as b\n"
        "assert a is not b and a.ArrayBase is b.ArrayBase\n"
        "x, y = a.from_dlpack(numpy.arange(2.0)), b.from_dlpack(numpy.arange(2.0))\n"
        "assert type(x) is type(y) is dlarray.DLArray, (type(x), type(y))\n"
        "del a, b, sys.modules['dlarray._core']  # no module's death frees the state\n"
        "import gc; gc.collect()\n"
        "print(repr(dlarray.asarray([1.0]) + y))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        env=_env_with_our_path(),
    )  # fmt: skip
    assert done.returncode == 0, _describe(done)
    assert "dlarray.asarray([1.0, 2.0]" in done.stdout, done.stdout


# ---- helpers ----


def _env_with_our_path():
    """The environment for a child Python that imports this dlarray."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def _describe(done):
    return f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"


def test_cuda_stream_numbers_accept_numpy_integers_and_refuse_non_pointers():
    # The CUDA stream rule lives in Python (the C core checks CPU streams);
    # it refused NumPy's integer scalars, and took any huge int.
    from dlarray._cuda.streams import parse_stream

    assert parse_stream(np.int64(2), "__dlpack__") == 2
    assert parse_stream(np.uint64(2**63), "__dlpack__") == 2**63
    with pytest.raises(ValueError, match="below 2\\*\\*64"):
        parse_stream(2**70, "__dlpack__")
    with pytest.raises(TypeError, match="stream=True"):
        parse_stream(True, "__dlpack__")
