"""The order of dlarray's work on CUDA memory, checked against the call log
of the stand-in runtime (tests/fake_cuda.py).

The state machine is in dlarray/_cuda/streams.py and docs/cuda.md: each
CUDA memory (a GPU's device memory, the managed memory, the pinned memory)
is idle or has dlarray's work pending on one stream of one GPU, and every
reader on another stream -- a consumer, a computation on CuPy's current
stream, a copy queued on another GPU, the host -- is ordered after it.
CuPy's current stream is switched here with a stand-in (FakeCupy), as
``with cupy.cuda.Stream():`` switches it.
"""

from __future__ import annotations

import sys

import abi
import numpy as np
import pytest
from fake_cuda import FakeCupy, FakeRuntime, stand_in

import dlarray
from dlarray._cuda import runtime as cuda_runtime
from dlarray._cuda import streams
from dlarray._engine import routing
from dlarray._storage.memory import MEMORY

GPU0, GPU1 = dlarray.Device("cuda", 0), dlarray.Device("cuda", 1)
ORDERING = {"event_create", "event_record", "stream_wait_event", "event_destroy"}


@pytest.fixture
def fake():
    with stand_in(gpus=2) as rt:
        yield rt


@pytest.fixture
def cupy(fake, monkeypatch):
    """A stand-in for CuPy's current stream (dlarray's work stream)."""
    stand_in = FakeCupy(fake)
    monkeypatch.setitem(sys.modules, "cupy", stand_in)
    return stand_in


def ordering(fake):
    """The event calls logged, each with the GPU current when it was made."""
    return [c for c in fake.placed() if c[1] in ORDERING]


def wait(on_gpu, on_stream, waiting_gpu, waiting_stream, event=1):
    """The calls that make one stream wait for another's work so far."""
    return [
        (on_gpu, "event_create", event),
        (on_gpu, "event_record", event, on_stream),
        (waiting_gpu, "stream_wait_event", waiting_stream, event),
        (waiting_gpu, "event_destroy", event),
    ]


# ---- work queued on one stream, read on another ----


def test_a_consumer_on_another_stream_waits_for_the_memset_where_it_ran(fake, cupy):
    a, b = fake.new_stream(0), fake.new_stream(0)
    with cupy.use(a):
        x = dlarray.zeros(3, device="cuda")  # the memset runs on stream a
    assert fake.calls == [("malloc", 24, 0), ("memset", 24, a)]
    fake.calls.clear()
    with cupy.use(b):  # CuPy's current stream is now b
        x.__dlpack__(stream=b)  # (what cupy.from_dlpack(x) passes)
    # The event is recorded on a, where the memset is, not on today's stream.
    assert fake.placed() == wait(0, a, 0, b)


def test_a_consumer_on_a_third_stream_waits_through_the_work_stream(fake, cupy):
    a = fake.new_stream(0)
    with cupy.use(a):
        x = dlarray.zeros(3, device="cuda")
    fake.calls.clear()
    x.__dlpack__(stream=0x7F00)  # CuPy's null stream (1) is current
    # a's work is chained onto the work stream, which the consumer waits for.
    assert fake.placed() == [*wait(0, a, 0, 1), *wait(0, 1, 0, 0x7F00, event=2)]


def test_a_stream_the_user_dropped_lives_while_work_is_pending_on_it(fake, cupy):
    # As ``with cupy.cuda.Stream() as s: x = dlarray.zeros(...)`` then ``del s``:
    # CuPy destroys the stream with its object, and a later reader records an
    # event on it.  On an H100 that crashed the process (tests/cuda/test_gpu.py's
    # stream tests, one after another, each with its own CuPy stream).
    side = cupy.new_stream()
    handle = side.ptr
    with cupy.use(side):
        x = dlarray.zeros(3, device="cuda")  # the memset is pending on side
    del side
    assert handle not in fake.destroyed  # dlarray holds it while work is pending there
    fake.calls.clear()
    x.__dlpack__(stream=0x7F00)
    assert fake.placed()[:4] == wait(0, handle, 0, 1)
    # x's memory is on the null stream now: nothing holds the side stream.
    assert handle in fake.destroyed


def test_a_consumer_on_the_streams_own_stream_waits_for_nothing(fake, cupy):
    a = fake.new_stream(0)
    with cupy.use(a):
        x = dlarray.zeros(3, device="cuda")
        fake.calls.clear()
        x.__dlpack__(stream=a)
    assert fake.calls == []


def test_a_computation_on_another_stream_waits_for_the_memset(fake, cupy):
    a, b = fake.new_stream(0), fake.new_stream(0)
    with cupy.use(a):
        x = dlarray.zeros(3, device="cuda")
    fake.calls.clear()
    with cupy.use(b):
        routing.engine_view(x)  # what every computation on x starts with
    # b waits for a once; CuPy's import of the view (on b) then waits for nothing.
    assert fake.placed() == wait(0, a, 0, b)
    assert streams.pending(GPU0)[:2] == (0, b)
    fake.calls.clear()
    with cupy.use(b):
        routing.engine_view(x)  # the view is cached; the order is checked again
    assert fake.calls == []


def test_a_cached_view_still_orders_a_later_stream(fake, cupy):
    a, b = fake.new_stream(0), fake.new_stream(0)
    x = dlarray.zeros(3, device="cuda")  # on the legacy default stream, 1
    with cupy.use(a):
        routing.engine_view(x)
    fake.calls.clear()
    with cupy.use(b):
        routing.engine_view(x)
    assert fake.placed() == wait(0, a, 0, b, event=2)


def test_work_on_one_stream_makes_no_events(fake, cupy):
    a = fake.new_stream(0)
    with cupy.use(a):
        x = dlarray.zeros(3, device="cuda")
        routing.engine_view(x)
        y = x.to_device(GPU0)  # itself
        x.__dlpack__(stream=a)
        dlarray.from_dlpack(abi.Producer(device=(2, 0)))
    assert y is x
    assert ordering(fake) == []


def test_the_result_of_a_computation_is_pending_on_its_stream(fake, cupy):
    # A CuPy result comes back through dlarray's consumer, which passes its
    # work stream; the memory's work is then on that stream.
    b = fake.new_stream(0)
    with cupy.use(b):
        producer = abi.Producer(device=(2, 0))
        result = dlarray.from_dlpack(producer)
    assert producer.dlpack_calls[0]["stream"] == b
    fake.calls.clear()
    result.__dlpack__(stream=1)
    assert fake.placed() == wait(0, b, 0, 1)


def test_a_stream_switch_chains_every_earlier_stream(fake, cupy):
    a, b, c = (fake.new_stream(0) for _ in range(3))
    with cupy.use(a):
        x = dlarray.zeros(3, device="cuda")
    with cupy.use(b):
        y = dlarray.zeros(3, device="cuda")  # b waits for a: one line of work
    fake.calls.clear()
    with cupy.use(c):
        x.__dlpack__(stream=c)  # waits on b, which comes after a
    assert fake.placed() == wait(0, b, 0, c, event=2)
    assert y.device == x.device


# ---- the host ----


def test_a_copy_to_the_host_waits_for_work_on_another_stream(fake, cupy):
    a, b = fake.new_stream(0), fake.new_stream(0)
    with cupy.use(a):
        x = dlarray.zeros(3, device="cuda")
    fake.calls.clear()
    with cupy.use(b):
        h = x.to_device("cpu")
    assert [c[1:] for c in fake.placed() if c[1] != "event_destroy"] == [
        ("event_create", 1),
        ("event_record", 1, a),
        ("stream_wait_event", b, 1),
        ("memcpy", 24, b),
        ("stream_synchronize", b),
    ]
    assert np.from_dlpack(h).tolist() == [0.0, 0.0, 0.0]
    # The host waited for b, and b for a: nothing of dlarray's is pending,
    # and a consumer waits for the work stream alone.
    assert streams.pending(GPU0) is None
    fake.calls.clear()
    x.__dlpack__(stream=0x7F00)
    assert fake.placed() == wait(0, 1, 0, 0x7F00, event=2)


@pytest.mark.parametrize("kind", ["cuda_managed", "cuda_host"])
def test_the_host_waits_for_work_on_managed_and_pinned_memory(fake, cupy, kind):
    a = fake.new_stream(0)
    with cupy.use(a):
        x = dlarray.zeros(3, device=kind)  # a memset on GPU 0's stream a
    fake.calls.clear()
    assert np.asarray(x).tolist() == [0.0, 0.0, 0.0]  # __array__: the host reads
    assert fake.placed() == [*wait(0, a, 0, 1), (0, "stream_synchronize", 1)]
    assert streams.pending(x.device) is None
    fake.calls.clear()
    # Idle now: each host access waits for the work stream alone.
    np.asarray(x)  # __array__
    np.from_dlpack(x)  # stream=None: the host reads at once
    dlarray.sin(x)  # NumPy computes on the memory
    calls = [c for c in fake.calls if not c[0].startswith("malloc")]
    assert calls == [("stream_synchronize", 1)] * 3


@pytest.mark.parametrize("kind", ["cuda_managed", "cuda_host"])
def test_the_host_waits_for_a_gpu_reading_the_memory_before_writing_it(fake, cupy, kind):
    # A copy to GPU memory reads the managed or pinned source on a stream;
    # the host must not overwrite the source before that copy is done.
    a = fake.new_stream(0)
    x = dlarray.asarray([1.0, 2.0], device=kind)
    with cupy.use(a):
        y = x.to_device("cuda")  # reads x on stream a
    fake.calls.clear()
    x[0] = 5.0
    assert fake.placed()[:5] == [*wait(0, a, 0, 1), (0, "stream_synchronize", 1)]
    assert np.from_dlpack(y.to_device("cpu")).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("kind", ["cuda_managed", "cuda_host"])
def test_idle_memory_is_ordered_after_the_work_stream_alone(fake, cupy, kind):
    # Readers wait for the work stream (CuPy's current one, where whoever
    # hands arrays between CuPy and dlarray works) even with nothing pending.
    b = fake.new_stream(0)
    x = dlarray.empty(3, device=kind)  # no memset, no copy
    fake.calls.clear()
    with cupy.use(b):
        np.from_dlpack(x)
        x.__dlpack__(stream=0x7F00)
    assert fake.placed() == [(0, "stream_synchronize", b), *wait(0, b, 0, 0x7F00)]


@pytest.mark.parametrize("kind", ["cuda_managed", "cuda_host"])
def test_a_consumer_stream_for_managed_memory_waits_on_the_gpu(fake, cupy, kind):
    a = fake.new_stream(0)
    with cupy.use(a):
        x = dlarray.zeros(3, device=kind)
        fake.calls.clear()
        x.__dlpack__(stream=0x7F00)  # a stream: the consumer reads on the GPU
    assert fake.placed() == wait(0, a, 0, 0x7F00)


# ---- two GPUs ----


def test_a_copy_between_gpus_waits_for_the_source_gpus_work(fake, cupy):
    s0, s1 = fake.new_stream(0), fake.new_stream(1)
    with cupy.use(s0, gpu=0), cupy.use(s1, gpu=1):
        x = dlarray.zeros(3, device=GPU0)  # a memset on GPU 0's stream
        fake.calls.clear()
        y = x.to_device(GPU1)
    # The event is made and recorded on GPU 0, the wait and the copy are on
    # GPU 1's stream (the fake runtime checks each stream's GPU).
    assert [c for c in fake.placed() if c[1] != "set_device"] == [
        (1, "malloc", 24, 1),
        *wait(0, s0, 1, s1),
        (1, "memcpy", 24, s1),
    ]
    assert y.device == GPU1
    assert np.from_dlpack(y.to_device("cpu")).tolist() == [0.0, 0.0, 0.0]


def test_work_on_the_source_gpu_after_a_copy_waits_for_the_copy(fake, cupy):
    s0, s1 = fake.new_stream(0), fake.new_stream(1)
    with cupy.use(s0, gpu=0), cupy.use(s1, gpu=1):
        x = dlarray.zeros(3, device=GPU0)
        x.to_device(GPU1)  # GPU 1 reads x on s1
        fake.calls.clear()
        routing.engine_view(x)  # a kernel on s0 may overwrite x next
    assert ordering(fake) == wait(1, s1, 0, s0, event=2)


def test_a_copy_to_another_gpu_without_pending_work_waits_for_nothing(fake, cupy):
    x = dlarray.empty(3, device=GPU0)
    fake.calls.clear()
    x.to_device(GPU1)
    assert ordering(fake) == []


def test_each_gpu_keeps_its_own_state(fake, cupy):
    s1 = fake.new_stream(1)
    with cupy.use(s1, gpu=1):
        dlarray.zeros(3, device=GPU1)
    x = dlarray.zeros(3, device=GPU0)  # GPU 0, stream 1: nothing to wait for
    assert streams.pending(GPU0)[:2] == (0, 1)
    assert streams.pending(GPU1)[:2] == (1, s1)
    fake.calls.clear()
    x.__dlpack__(stream=2)
    assert fake.placed() == wait(0, 1, 0, 2, event=1)


# ---- imports and the exchange table ----


def test_an_import_is_ordered_on_the_work_stream_and_stays_there(fake, cupy):
    a, b = fake.new_stream(0), fake.new_stream(0)
    with cupy.use(a):
        dlarray.zeros(3, device="cuda")
    fake.calls.clear()
    with cupy.use(b):
        producer = abi.Producer(device=(2, 0))
        dlarray.from_dlpack(producer)  # the producer is told b ...
    assert producer.dlpack_calls[0]["stream"] == b
    assert fake.placed() == wait(0, a, 0, b)  # ... which first waits for a


def test_the_exchange_tables_work_stream_comes_after_dlarrays_work(fake, cupy):
    a, b = fake.new_stream(0), fake.new_stream(0)
    with cupy.use(a):
        dlarray.zeros(3, device="cuda")
    fake.calls.clear()
    with cupy.use(b):
        assert MEMORY.work_stream(2, 0) == b
    assert fake.placed() == wait(0, a, 0, b)


def test_an_import_through_a_producers_table_orders_both(fake, cupy):
    a, b = fake.new_stream(0), fake.new_stream(0)
    producer_stream = 0x7A00
    with cupy.use(a):
        dlarray.zeros(3, device="cuda")
    fake.calls.clear()
    with cupy.use(b):
        assert MEMORY.order_import(2, 0, producer_stream)
    assert fake.placed() == [*wait(0, a, 0, b), *wait(0, producer_stream, 0, b, event=2)]
    assert streams.pending(GPU0)[:2] == (0, b)


@pytest.mark.parametrize("device_type", [3, 13])
def test_a_managed_or_pinned_import_through_a_table_waits_on_the_host(fake, device_type):
    assert MEMORY.order_import(device_type, 0, 0x7A00)
    assert fake.calls == [("stream_synchronize", 0x7A00)]


# ---- the state itself ----


def test_a_new_runtime_starts_idle(fake):
    dlarray.zeros(3, device="cuda")
    assert streams.pending(GPU0) is not None
    with cuda_runtime.use_runtime(FakeRuntime(gpus=1)):
        assert streams.pending(GPU0) is None
    assert streams.pending(GPU0) is not None


def test_nothing_is_pending_without_a_runtime():
    x = dlarray.from_dlpack(abi.Producer(device=(2, 0)))
    assert streams.pending(x.device) is None
    x.__dlpack__(stream=5)  # nothing to order, and nothing to order it with


class BusyRuntime(FakeRuntime):
    """A runtime in which other work is queued while the host waits (as
    another thread would queue it)."""

    meanwhile = None

    def stream_synchronize(self, stream):
        super().stream_synchronize(stream)
        work, self.meanwhile = self.meanwhile, None
        if work is not None:
            work()


def test_a_synchronisation_leaves_work_queued_during_it_pending():
    with cuda_runtime.use_runtime(BusyRuntime(gpus=2)) as busy:
        x = dlarray.zeros(3, device=GPU0)
        y = dlarray.zeros(3, device=GPU1)
        assert streams.pending(GPU1)[:2] == (1, 1)  # stream 1 of GPU 1
        busy.meanwhile = lambda: dlarray.zeros(3, device=GPU0)
        x.to_device("cpu")  # waits for stream 1 of GPU 0; meanwhile, a memset there
        assert streams.pending(GPU0)[:2] == (0, 1)  # the memset's, not yet done
        assert streams.pending(GPU1)[:2] == (1, 1)  # another GPU's stream
        y.to_device("cpu")
        assert streams.pending(GPU1) is None


def test_the_hosts_fast_path_ends_once_ordered_memory_is_met(fake, monkeypatch):
    # engine_view returns cached views at once until the process first meets
    # a view of memory with device work to order: made, or a result wrapped.
    monkeypatch.setattr(routing, "_RETURN_CACHED", True)
    x = dlarray.zeros(3, device="cuda_managed")
    view = routing.engine_view(x)
    assert routing._RETURN_CACHED is False
    monkeypatch.setattr(routing, "_RETURN_CACHED", True)
    y = routing.wrap(np.sin(view))  # a result met through wrap
    assert routing._RETURN_CACHED is False
    routing.engine_view(y)
    fake.calls.clear()
    routing.engine_view(y)  # cached, and still ordered
    assert fake.calls == [("stream_synchronize", 1)]
