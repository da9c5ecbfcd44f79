"""Races: many threads on shared arrays and capsules, everything exactly once.

Each test starts its threads together (a barrier) and repeats the race, so
that on free-threaded CPython (the ``free_threaded`` nox session: no GIL)
they really run at once; with the GIL they interleave at the switch
interval and the same assertions hold.  What must hold in every race:

- a capsule consumed by many threads gives exactly one array and a clean
  ``ValueError`` to every other thread, and its deleter runs exactly once;
- shared arrays read, exported, imported, viewed, pickled and read through
  the buffer protocol from every thread give the right values, and their
  reference counts come back when the threads are done;
- the engine view an array caches on first use, made by many threads at
  once, is made and dropped without a crash or a wrong result;
- disjoint views of one array written from different threads (in-place
  operators) keep every write.  (Two threads writing the *same* elements is
  the user's race, as in NumPy, and is not tested.)

THREADS x ROUNDS per test: DLARRAY_RACE_THREADS (default 8) and
DLARRAY_RACE_ROUNDS (default 50); the free_threaded session raises both.
"""

from __future__ import annotations

import gc
import os
import pickle
import sys
import threading
from collections.abc import Callable
from typing import Any

import abi as capsule_tools  # tests/abi.py: capsule names, deleters on C threads
import numpy as np
import pytest

import dlarray
from dlarray import abi

THREADS = int(os.environ.get("DLARRAY_RACE_THREADS", "8"))
ROUNDS = int(os.environ.get("DLARRAY_RACE_ROUNDS", "50"))


def run_together(work: Callable[[int], Any], threads: int = THREADS) -> list[Any]:
    """``work(i)`` on ``threads`` threads released at once; their results
    (an exception counts as a result, and is returned, not raised)."""
    barrier = threading.Barrier(threads)
    results: list[Any] = [None] * threads

    def body(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except BaseException as exc:  # each thread's outcome is its result
            results[i] = exc

    workers = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return results


def no_errors(results: list[Any]) -> list[Any]:
    errors = [r for r in results if isinstance(r, BaseException)]
    assert not errors, errors[:3]
    return results


def test_one_capsule_consumed_by_every_thread_gives_one_array_and_one_deleter_call():
    producer = abi.ToyProducer()
    memory = np.arange(6, dtype=np.float64)
    for _ in range(ROUNDS):
        calls_before = len(producer.deleted)
        capsule = producer.capsule(memory)
        results = run_together(lambda i, c=capsule: abi.consume(c))
        arrays = [r for r in results if isinstance(r, dlarray.DLArray)]
        refused = [r for r in results if isinstance(r, ValueError)]
        assert len(arrays) == 1, results
        assert len(refused) == THREADS - 1, results
        assert all("already consumed" in str(e) for e in refused)
        assert np.from_dlpack(arrays[0]).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        arrays = refused = results = capsule = None  # the array dies: its deleter runs
        gc.collect()  # (the refusals' tracebacks hold the threads' frames)
        assert len(producer.deleted) == calls_before + 1
    assert producer.alive == 0


def test_one_dlarray_capsule_consumed_by_every_thread_releases_its_export_once():
    x = dlarray.arange(5.0)
    refs = sys.getrefcount(x)
    for _ in range(ROUNDS):
        capsule = x.__dlpack__(max_version=(1, 3))
        results = run_together(lambda i, c=capsule: abi.consume(c))
        assert sum(isinstance(r, dlarray.DLArray) for r in results) == 1, results
        assert sum(isinstance(r, ValueError) for r in results) == THREADS - 1
        results = capsule = None
        gc.collect()
    assert sys.getrefcount(x) == refs


def test_exports_and_imports_of_one_shared_array_from_every_thread():
    x = dlarray.reshape(dlarray.arange(12.0), (3, 4))
    a = np.arange(12.0).reshape(3, 4)
    refs_x, refs_a = sys.getrefcount(x), sys.getrefcount(a)

    def work(i: int) -> bool:
        for _ in range(ROUNDS):
            out = np.from_dlpack(x)  # dlarray's export (its C table or a capsule)
            back = dlarray.from_dlpack(a)  # NumPy's export, dlarray's import
            through = dlarray.from_dlpack(x)  # dlarray's own table, both sides
            if not (out[2, 3] == 11.0 and float(back[1, 1]) == 5.0 and float(through[0, 1]) == 1.0):
                return False
        return True

    assert all(no_errors(run_together(work)))
    assert (sys.getrefcount(x), sys.getrefcount(a)) == (refs_x, refs_a)


def test_views_pickles_and_the_buffer_protocol_of_one_shared_array():
    x = dlarray.reshape(dlarray.arange(24, dtype=dlarray.int32), (2, 3, 4))
    refs = sys.getrefcount(x)

    def work(i: int) -> bool:
        for _ in range(ROUNDS):
            row = x[1, i % 3]
            if int(row[2]) != 12 + 4 * (i % 3) + 2 or x.T.shape != (4, 3, 2):
                return False
            if dlarray.reshape(x, (6, 4))[5, 3] != 23:
                return False
            copy = pickle.loads(pickle.dumps(x, protocol=5))
            if not bool(dlarray.all(copy == x)):
                return False
            if memoryview(x)[1, 2, 3] != 23:
                return False
        return True

    assert all(no_errors(run_together(work)))
    assert sys.getrefcount(x) == refs


def test_the_engine_view_made_by_many_threads_at_once():
    for _ in range(ROUNDS):
        # A fresh array each round: no engine view cached yet, so every
        # thread's first operation races to make and cache one.
        x = dlarray.asarray(np.arange(8.0))[1:]
        results = no_errors(run_together(lambda i, x=x: np.from_dlpack(x + x * 2.0).tolist()))
        assert all(r == [3.0 * v for v in range(1, 8)] for r in results)


def test_in_place_operators_on_disjoint_views_of_one_array():
    x = dlarray.zeros((THREADS, 16), dtype=dlarray.int64)

    def work(i: int) -> None:
        row = x[i]
        for _ in range(ROUNDS):
            row += 1
            row *= 1

    no_errors(run_together(work))
    assert np.from_dlpack(x).tolist() == [[ROUNDS] * 16] * THREADS


@pytest.mark.parametrize("versioned", [True, False])
def test_deleters_of_exports_dropped_on_every_thread(versioned):
    # Capsules made on one thread die on others, unconsumed: each destructor
    # calls the deleter there, and every export is released exactly once.
    x = dlarray.arange(3.0)
    refs = sys.getrefcount(x)
    version = (1, 3) if versioned else None
    capsules = [[x.__dlpack__(max_version=version) for _ in range(ROUNDS)] for _ in range(THREADS)]
    no_errors(run_together(lambda i: capsules[i].clear()))
    capsules.clear()
    assert sys.getrefcount(x) == refs


def _rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pthread_create and /proc")
@pytest.mark.skipif(
    os.environ.get("DLARRAY_SANITIZED") == "1",
    reason="AddressSanitizer's quarantine keeps freed memory mapped: RSS means nothing there",
)
def test_deleters_on_fresh_c_threads_keep_no_memory_of_their_own():
    """Each export's deleter runs on a C thread the interpreter has never
    seen.  Free-threaded CPython 3.13 keeps some memory for every such
    thread (its thread state's heaps); dlarray's deleters must keep no more
    than NumPy's own do for the same number of threads."""
    n = 3000

    def grow(make: Callable[[], Any]) -> float:
        before = _rss_mib()
        for _ in range(n):
            capsule = make().__dlpack__(max_version=(1, 3))
            capsule_tools.set_capsule_name(capsule, capsule_tools.USED_VERSIONED_NAME)
            capsule_tools.run_deleter_on_c_thread(capsule)
        return _rss_mib() - before

    grow(lambda: np.arange(3.0))  # the first threads' one-off costs
    numpy_growth = grow(lambda: np.arange(3.0))
    dlarray_growth = grow(lambda: dlarray.arange(3.0))
    assert dlarray_growth <= 1.25 * numpy_growth + 2.0, (dlarray_growth, numpy_growth)
