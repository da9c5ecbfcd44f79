"""What the benchmark scripts share: timed cases, calibrating and measuring
them round-robin, their command line, a plain-text table, and the example C
extension (``examples/c_extension``) that times exchanges from C.

Imported by the scripts in this folder (run as ``python benchmarks/X.py``,
which puts this folder on ``sys.path``).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import itertools
import statistics
import tempfile
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The example extension's builder (see examples/c_extension/README.md).
C_EXTENSION_BUILDER = Path(__file__).resolve().parents[1] / "examples" / "c_extension" / "build.py"


def optional_module(name: str) -> types.ModuleType | None:
    """The module ``name``, or None where it is not installed (a peer's
    column or row then says n/a)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def time_batch(call: Callable[[], Any], n: int) -> int:
    """Nanoseconds that ``n`` back-to-back calls of ``call`` take."""
    start = time.perf_counter_ns()
    for _ in range(n):
        call()
    return time.perf_counter_ns() - start


@dataclass
class Case:
    """One timed call, with its per-call times in ns (one per round).

    ``timer``, when set, times a batch itself: ``timer(n)`` makes ``n``
    calls and returns the mean ns per call (code that times itself, such as
    a C loop, which Python's loop would only slow down).  ``call`` is then
    one call, for checks.
    """

    label: str
    call: Callable[[], Any]
    batch: int = 1
    per_call_ns: list[float] = field(default_factory=list)
    timer: Callable[[int], float] | None = None

    @property
    def median_ns(self) -> float:
        return statistics.median(self.per_call_ns)

    @property
    def best_ns(self) -> float:
        return min(self.per_call_ns)


def self_timed_case(label: str, timer: Callable[[int], float]) -> Case:
    """A :class:`Case` whose ``timer(n)`` times ``n`` calls itself."""
    return Case(label, lambda: timer(1), timer=timer)


def statement_case(label: str, statement: str, names: dict[str, Any]) -> Case:
    """A :class:`Case` timing ``statement`` as :mod:`timeit` does: compiled
    inline in the timing loop, run in ``names``.  So the call costs what it
    costs where a user writes it: ``x.__dlpack__(max_version=v)`` with no
    ``functools.partial`` between, whose keyword dict alone costs more than
    the export (and so would hide most of a difference)."""
    source = (
        "def timer(_n):\n"
        "    _start = _now()\n"
        "    for _ in _repeat(None, _n):\n"
        f"        {statement}\n"
        "    return (_now() - _start) / _n\n"
    )
    scope = dict(names, _now=time.perf_counter_ns, _repeat=itertools.repeat)
    exec(compile(source, f"<{label}>", "exec"), scope)
    return self_timed_case(label, scope["timer"])


def batch_ns(case: Case) -> float:
    """Nanoseconds one batch of ``case`` takes."""
    if case.timer is None:
        return time_batch(case.call, case.batch)
    return case.timer(case.batch) * case.batch


def calibrate(case: Case, target_s: float) -> None:
    """Double ``case.batch`` until one batch takes at least ``target_s``."""
    while batch_ns(case) < target_s * 1e9 and case.batch < 1 << 24:
        case.batch *= 2


def measure(cases: list[Case], rounds: int, progress: Callable[[str], None]) -> None:
    """Time ``rounds`` batches of every case, round-robin, filling
    ``per_call_ns``; ``progress`` gets a line about five times."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds):
            for case in cases:
                case.per_call_ns.append(batch_ns(case) / case.batch)
            if (r + 1) % max(1, rounds // 5) == 0 or r + 1 == rounds:
                progress(f"round {r + 1}/{rounds}")
    finally:
        if gc_was_enabled:
            gc.enable()


def parse_args(
    doc: str | None,
    default_output: Path,
    argv: list[str] | None,
    extra: Callable[[argparse.ArgumentParser], None] | None = None,
) -> Any:
    """The options every benchmark takes: ``--quick`` and ``--output PATH``;
    ``extra(parser)`` adds a script's own."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    if extra is not None:
        extra(parser)
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


def format_table(lines: Sequence[Sequence[str]], right: frozenset[int] = frozenset()) -> str:
    """``lines`` (the first is the header) as aligned columns, two spaces
    apart; the columns numbered in ``right`` align right."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join(
        "  ".join(
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in lines
    )


def load_c_extension() -> tuple[types.ModuleType | None, str | None]:
    """Build and import the example C extension (``examples/c_extension``),
    whose ``time_exchanges(x, n, how)`` times exchanges in C.

    Returns
    -------
    tuple
        ``(module, None)``, or ``(None, reason)`` when it cannot be had here
        (the example is missing, no usable C compiler, the build failed).
    """
    if not C_EXTENSION_BUILDER.is_file():
        return None, f"the example C extension's builder {C_EXTENSION_BUILDER} is missing"
    spec = importlib.util.spec_from_file_location("c_extension_build", C_EXTENSION_BUILDER)
    if spec is None or spec.loader is None:
        return None, f"{C_EXTENSION_BUILDER} cannot be imported"
    builder = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(builder)
        # The library stays mapped once imported: its folder can go.
        with tempfile.TemporaryDirectory(prefix="dlarray-bench-") as build_dir:
            module: types.ModuleType = builder.build(Path(build_dir))
    except Exception as exc:  # any failure means "no C rows", with the reason
        first_line = (str(exc).strip().splitlines() or [""])[0]
        return None, f"building the C extension failed: {type(exc).__name__}: {first_line}"
    if not hasattr(module, "time_exchanges"):
        return None, f"{module.__name__} has no time_exchanges()"
    return module, None
