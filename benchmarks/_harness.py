"""What the benchmark scripts share: timed cases, calibrating and measuring
them round-robin, and their command line.

Imported by the scripts in this folder (run as ``python benchmarks/X.py``,
which puts this folder on ``sys.path``).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def time_batch(call: Callable[[], Any], n: int) -> int:
    """Nanoseconds that ``n`` back-to-back calls of ``call`` take."""
    start = time.perf_counter_ns()
    for _ in range(n):
        call()
    return time.perf_counter_ns() - start


@dataclass
class Case:
    """One timed call, with its per-call times in ns (one per round)."""

    label: str
    call: Callable[[], Any]
    batch: int = 1
    per_call_ns: list[float] = field(default_factory=list)

    @property
    def median_ns(self) -> float:
        return statistics.median(self.per_call_ns)

    @property
    def best_ns(self) -> float:
        return min(self.per_call_ns)


def calibrate(case: Case, target_s: float) -> None:
    """Double ``case.batch`` until one batch takes at least ``target_s``."""
    while time_batch(case.call, case.batch) < target_s * 1e9 and case.batch < 1 << 24:
        case.batch *= 2


def measure(cases: list[Case], rounds: int, progress: Callable[[str], None]) -> None:
    """Time ``rounds`` batches of every case, round-robin, filling
    ``per_call_ns``; ``progress`` gets a line about five times."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds):
            for case in cases:
                case.per_call_ns.append(time_batch(case.call, case.batch) / case.batch)
            if (r + 1) % max(1, rounds // 5) == 0 or r + 1 == rounds:
                progress(f"round {r + 1}/{rounds}")
    finally:
        if gc_was_enabled:
            gc.enable()


def parse_args(doc: str | None, default_output: Path, argv: list[str] | None) -> Any:
    """The options every benchmark takes: ``--quick`` and ``--output PATH``."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="few, short rounds (for CI; a few seconds)"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=default_output,
        help=f"where to write the JSON results (default {default_output})",
    )
    return parser.parse_args(argv)
