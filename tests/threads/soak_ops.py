"""The exchanges a soak worker performs, one function each.

Every operation takes the :class:`Worker` that runs it, does one exchange,
checks the values that came through, and returns the label it is counted
under (a batch counts its other exchanges itself).  Half the time an
operation exports one of the long-lived :class:`Sources` (whose reference
counts must come back), otherwise a fresh array, a sample of which the
worker's tracker checks is freed.

The operations fall in groups by the thread a deleter runs on:

* ``HOLDING_THE_GIL``: NumPy and dlarray consumers, which call deleters
  holding the GIL; capsules handed to another thread through a queue.
* ``TORCH`` (soak_torch.py): PyTorch, which calls the deleters of dlarray's
  exports without the GIL.
* ``FOREIGN``: the consumer runs the deleter itself, on a Python thread with
  the GIL released, or on a C thread started for it and joined at once.
* ``DEFERRED``: deleters on C threads left running while this Python thread
  goes on working with the GIL, joined later.
"""

from __future__ import annotations

import queue
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import abi
import numpy as np
import soak_cthreads
from soak_measure import Tracker

import dlarray

N = 16  # elements of a fresh 1-D array: arange(N), so x[i] == i
FRESH_GRID = (6, 8)
#: How many C threads one deferred batch leaves running, and how many other
#: operations the worker performs before joining them.
DEFERRED_BATCH = 8
DEFERRED_WORK = 8


class Sources:
    """Arrays that live through the whole soak and are exported by every
    thread at once; their reference counts are compared at the end."""

    def __init__(self, torch: Any = None) -> None:
        self.grid_values = np.arange(48.0).reshape(FRESH_GRID)
        self.vector = dlarray.arange(64, dtype=dlarray.float64)
        self.grid = dlarray.asarray(self.grid_values)
        self.numpy = np.arange(64.0)
        self.readonly_numpy = np.arange(32.0)
        self.readonly_numpy.flags.writeable = False
        self.readonly = dlarray.from_dlpack(self.readonly_numpy)
        self.torch = None if torch is None else torch.arange(64, dtype=torch.float64)

    def named(self) -> dict[str, Any]:
        """The long-lived arrays, by name."""
        names = ("vector", "grid", "numpy", "readonly_numpy", "readonly", "torch")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}


@dataclass
class Worker:
    """What one soak thread owns, and what it shares (sources, handoff)."""

    sources: Sources
    handoff: queue.Queue[Any]
    rng: random.Random
    tracker: Tracker = field(default_factory=Tracker)
    counts: Counter[str] = field(default_factory=Counter)


class CapsuleHolder:
    """A producer whose ``__dlpack__`` returns a capsule made earlier, on
    another thread."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        capsule, self.capsule = self.capsule, None
        return capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (abi.kDLCPU, 0)


def check(condition: Any, what: str) -> None:
    """Fail the operation (not via ``assert``, which -O would strip)."""
    if not condition:
        raise AssertionError(what)


def vector(w: Worker, kind: str) -> Any:
    """The shared dlarray vector, or a fresh one offered to the tracker."""
    if w.rng.random() < 0.5:
        return w.sources.vector
    x = dlarray.arange(N, dtype=dlarray.float64)
    w.tracker.offer(kind, x)
    return x


def export(w: Worker, kind: str) -> Any:
    """A consumer-owned capsule of a (shared or fresh) vector, versioned or
    legacy, sometimes of a copy, renamed as a consumer renames it."""
    x = vector(w, kind)
    versioned = w.rng.random() < 0.5
    capsule = x.__dlpack__(max_version=(1, 3) if versioned else None, copy=w.rng.random() < 0.25)
    abi.set_capsule_name(capsule, abi.USED_VERSIONED_NAME if versioned else abi.USED_LEGACY_NAME)
    return capsule


# ---- consumers that hold the GIL ----


def dlarray_to_numpy(w: Worker) -> str:
    a = np.from_dlpack(vector(w, "dlarray->numpy"))
    check(a[5] == 5.0, "np.from_dlpack(dlarray) read a wrong value")
    return "dlarray->numpy"


def numpy_to_dlarray(w: Worker) -> str:
    if w.rng.random() < 0.5:
        a = w.sources.numpy
    else:
        a = np.arange(float(N))
        w.tracker.offer("numpy->dlarray", a)
    check(float(dlarray.from_dlpack(a)[5]) == 5.0, "dlarray.from_dlpack(numpy) read a wrong value")
    return "numpy->dlarray"


def dlarray_to_dlarray(w: Worker) -> str:
    y = dlarray.from_dlpack(vector(w, "dlarray->dlarray"))
    check(float(y[5]) == 5.0, "dlarray.from_dlpack(dlarray) read a wrong value")
    return "dlarray->dlarray"


def copy_export(w: Worker) -> str:
    x = vector(w, "copy=True")
    copied: Any = np.from_dlpack(x, copy=True) if w.rng.random() < 0.5 else None
    if copied is None:
        copied = dlarray.from_dlpack(x, copy=True)
    copied[5] = -1.0
    check(float(x[5]) == 5.0, "writing a copy=True import changed its source")
    return "copy=True"


def read_only(w: Worker) -> str:
    s = w.sources
    check(dlarray.from_dlpack(s.readonly_numpy).readonly, "import of read-only NumPy is writable")
    check(not np.from_dlpack(s.readonly).flags.writeable, "read-only dlarray exported writable")
    check(dlarray.from_dlpack(s.readonly).readonly, "read-only dlarray imported writable")
    return "read-only"


_VIEWS: list[Callable[[Any], Any]] = [
    lambda g: g[::2, 1:],
    lambda g: g.T,
    lambda g: g[3],
    lambda g: g[1:5:2, ::-1],
]


def views(w: Worker) -> str:
    if w.rng.random() < 0.5:
        grid = w.sources.grid
    else:
        grid = dlarray.reshape(dlarray.arange(48, dtype=dlarray.float64), FRESH_GRID)
        w.tracker.offer("views", grid)
    take = w.rng.choice(_VIEWS)
    expected = take(w.sources.grid_values)
    check(np.array_equal(np.from_dlpack(take(grid)), expected), "a view exported wrong values")
    again = np.from_dlpack(dlarray.from_dlpack(take(grid)))
    check(np.array_equal(again, expected), "a view re-imported wrong values")
    return "views"


def handoff_put(w: Worker) -> str:
    """Export a capsule (unconsumed) and queue it for another thread."""
    x = vector(w, "handoff")
    versioned = w.rng.random() < 0.5
    capsule = x.__dlpack__(max_version=(1, 3) if versioned else None, copy=w.rng.random() < 0.25)
    try:
        w.handoff.put_nowait(capsule)
    except queue.Full:
        consume_capsule(w, capsule)
    return "handoff put"


def handoff_take(w: Worker) -> str:
    """Consume or drop a capsule some thread queued."""
    try:
        capsule = w.handoff.get_nowait()
    except queue.Empty:
        return "handoff idle"
    return consume_capsule(w, capsule)


def consume_capsule(w: Worker, capsule: Any) -> str:
    way = w.rng.randrange(3)
    if way == 0:
        check(np.from_dlpack(CapsuleHolder(capsule))[5] == 5.0, "queued capsule: wrong value")
        return "handoff -> numpy"
    if way == 1:
        y = dlarray.from_dlpack(CapsuleHolder(capsule))
        check(float(y[5]) == 5.0, "queued capsule: wrong value")
        return "handoff -> dlarray"
    del capsule  # the destructor releases the export, on this thread
    return "handoff dropped"


HOLDING_THE_GIL: dict[Callable[[Worker], str], int] = {
    dlarray_to_numpy: 3,
    numpy_to_dlarray: 3,
    dlarray_to_dlarray: 3,
    copy_export: 2,
    read_only: 1,
    views: 2,
    handoff_put: 2,
    handoff_take: 2,
}

# ---- deleters run by the consumer, off the GIL ----


def deleter_on_python_thread(w: Worker) -> str:
    """The deleter called through a C function pointer: the GIL is released."""
    capsule = export(w, "deleter, Python thread")
    delete = abi.raw_deleter(capsule)
    del capsule
    delete()
    return "deleter, Python thread"


def deleter_on_c_thread(w: Worker) -> str:
    """The deleter run on a fresh pthread, joined at once."""
    capsule = export(w, "deleter, C thread")
    abi.run_deleter_on_c_thread(capsule)
    return "deleter, C thread"


FOREIGN: dict[Callable[[Worker], str], int] = {deleter_on_python_thread: 4, deleter_on_c_thread: 4}


def deleters_on_c_threads_deferred(w: Worker) -> str:
    """Start a batch of pthreads, each running one export's deleter, keep
    doing Python work holding the GIL while they run, then join them."""
    label = "deleter, C thread, joined later"
    handles = []
    try:
        for _ in range(DEFERRED_BATCH):
            capsule = export(w, label)
            handles.append(soak_cthreads.start_deleter_thread(capsule))
            del capsule
        for op in w.rng.choices(list(HOLDING_THE_GIL), k=DEFERRED_WORK):
            w.counts[op(w)] += 1
    finally:
        for handle in handles:
            soak_cthreads.join(handle)
    w.counts[label] += DEFERRED_BATCH - 1
    return label


DEFERRED: dict[Callable[[Worker], str], int] = {deleters_on_c_threads_deferred: 2}
