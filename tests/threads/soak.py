"""The soak itself, run as a script in a subprocess of the tests
(test_thread_soak.py), so that a crash is a failed test instead of a dead
pytest:

    python tests/threads/soak.py SCENARIO --seconds S --threads N --report OUT.json

N worker threads perform the scenario's mix of operations (soak_ops.py), in
two phases with the same threads: a warm-up, then the soak.  Between phases
every worker is parked, so the process is quiet while it is measured.  The
report (JSON) holds the operations counted, the errors the workers met, the
reference counts of the long-lived arrays at the start and the end, how
many tracked arrays are still alive, and the resident size after the warm-up
and at the end.  The script only measures; the test judges.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import platform
import queue
import random
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import soak_ops
import soak_scenarios
from soak_measure import refcounts, settled_rss

import dlarray

#: Errors kept with their traceback per worker (all are counted).
KEPT_ERRORS = 5
#: The queue of capsules handed between threads.
HANDOFF_SIZE = 64


class Phases:
    """Runs every worker through the same phases: the main thread opens a
    phase, lets it run, closes it and waits until every worker is parked."""

    def __init__(self, workers: int, timeout: float) -> None:
        self.barrier = threading.Barrier(workers + 1, timeout=timeout)
        self.running = threading.Event()
        self.finished = False

    def run(self, seconds: float) -> None:
        """One phase, from the main thread."""
        self.running.set()
        self.barrier.wait()  # the workers start
        time.sleep(seconds)
        self.running.clear()
        self.barrier.wait()  # the workers are parked

    def finish(self) -> None:
        self.finished = True
        self.barrier.wait()


class SoakThread(threading.Thread):
    """A worker: performs weighted random operations while a phase runs."""

    def __init__(
        self, index: int, scenario: soak_scenarios.Scenario, worker: soak_ops.Worker, phases: Phases
    ) -> None:
        super().__init__(name=f"soak-{index}", daemon=True)
        self.worker = worker
        self.phases = phases
        self.operations = list(scenario.mix)
        self.weights = list(scenario.mix.values())
        self.error_count = 0
        self.errors: list[str] = []

    def run(self) -> None:
        rng = self.worker.rng
        while True:
            self.phases.barrier.wait()
            if self.phases.finished:
                return
            while self.phases.running.is_set():
                for op in rng.choices(self.operations, self.weights, k=32):
                    self.perform(op)
            self.phases.barrier.wait()

    def perform(self, op: Callable[[soak_ops.Worker], str]) -> None:
        try:
            self.worker.counts[op(self.worker)] += 1
        except Exception:
            self.error_count += 1
            if len(self.errors) < KEPT_ERRORS:
                self.errors.append(f"{self.name}, {op.__name__}:\n{traceback.format_exc()}")


def drain(handoff: queue.Queue[Any]) -> None:
    """Drop the capsules left in the queue (their destructors release them)."""
    while True:
        try:
            handoff.get_nowait()
        except queue.Empty:
            return


def settle(threads: list[SoakThread], handoff: queue.Queue[Any]) -> dict[str, Any]:
    """With every worker parked: free what the phase left, count the tracked
    arrays still alive, and measure the resident size."""
    drain(handoff)
    settled_rss()  # collects garbage
    alive: Counter[str] = Counter()
    for thread in threads:
        alive.update(thread.worker.tracker.alive())
        thread.worker.tracker.forget()
    return {"alive": dict(alive), "rss": settled_rss()}


def soak(args: argparse.Namespace) -> dict[str, Any]:
    """Run the scenario's two phases; return the report."""
    scenario = soak_scenarios.build(args.scenario)
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    if scenario.torch is not None:
        scenario.torch.set_num_threads(1)  # no intra-op threads on top of the workers
    sources = soak_ops.Sources(scenario.torch)
    handoff: queue.Queue[Any] = queue.Queue(maxsize=HANDOFF_SIZE)
    warmup = max(0.1, args.seconds * args.warmup_share)
    phases = Phases(args.threads, timeout=args.seconds + 60)
    threads = [
        SoakThread(i, scenario, soak_ops.Worker(sources, handoff, random.Random(i)), phases)
        for i in range(args.threads)
    ]
    watched = sources.named()
    refs_before = refcounts(watched)
    rss_start = settled_rss()
    for thread in threads:
        thread.start()
    started = time.perf_counter()
    phases.run(warmup)
    after_warmup = settle(threads, handoff)
    phases.run(args.seconds - warmup)
    at_end = settle(threads, handoff)
    elapsed = time.perf_counter() - started
    phases.finish()
    for thread in threads:
        thread.join()
    counts: Counter[str] = Counter()
    tracked: Counter[str] = Counter()
    for thread in threads:
        counts.update(thread.worker.counts)
        tracked.update(thread.worker.tracker.tracked)
    alive = Counter(after_warmup["alive"]) + Counter(at_end["alive"])
    return {
        "scenario": args.scenario,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": getattr(scenario.torch, "__version__", None),
        "dlarray": dlarray.__file__,
        "threads": args.threads,
        "seconds": round(elapsed, 3),
        "warmup_seconds": warmup,
        "operations": dict(counts),
        "expected": list(scenario.expected),
        "error_count": sum(t.error_count for t in threads),
        "errors": [e for t in threads for e in t.errors],
        "refcounts_before": refs_before,
        "refcounts_after": refcounts(watched),
        "tracked": dict(tracked),
        "alive": dict(alive),
        "rss_start": rss_start,
        "rss_after_warmup": after_warmup["rss"],
        "rss_end": at_end["rss"],
    }


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=soak_scenarios.NAMES)
    parser.add_argument("--seconds", type=float, default=2.0, help="warm-up and soak together")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--warmup-share", type=float, default=0.25)
    parser.add_argument("--switch-interval", type=float, default=0.0, help="sys.setswitchinterval")
    parser.add_argument("--report", help="write the JSON report here (default: stdout)")
    return parser.parse_args(argv)


def no_core_dumps() -> None:
    """A crash is expected in a soak that finds a bug: no core file."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main(argv: list[str]) -> int:
    args = parse(argv)
    no_core_dumps()
    faulthandler.enable()  # a crash prints every thread's stack
    # A hang prints the stacks and ends the process before the test's timeout.
    faulthandler.dump_traceback_later(args.seconds * 2 + 45, exit=True)
    report = json.dumps(soak(args), indent=1)
    faulthandler.cancel_dump_traceback_later()
    if args.report:
        with open(args.report, "w") as out:
            out.write(report)
    else:
        print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
