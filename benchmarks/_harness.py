"""What the benchmark scripts share: timing one batch, and their command line.

Imported by the scripts in this folder (run as ``python benchmarks/X.py``,
which puts this folder on ``sys.path``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def time_batch(call: Callable[[], Any], n: int) -> int:
    """Nanoseconds that ``n`` back-to-back calls of ``call`` take."""
    start = time.perf_counter_ns()
    for _ in range(n):
        call()
    return time.perf_counter_ns() - start


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
