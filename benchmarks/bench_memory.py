"""Whether exchanges leak: resident memory before and after 1 000 000 of each kind.

An exchange that leaks even a few bytes (a shape array, a managed tensor, a
reference) grows the process by megabytes over a million exchanges.  Each
case makes one kind of exchange, with the result dropped at once:

- ``dlarray.from_dlpack(torch_tensor)`` (when torch is installed: through
  torch's DLPack C exchange table);
- ``dlarray.from_dlpack(numpy_array)`` (through ``__dlpack__``);
- ``x.__dlpack__()`` with the capsule dropped unconsumed (its destructor
  deletes the tensor), ``x`` a dlarray array;
- ``x.__dlpack__(max_version=(1, 3))`` consumed by dlarray's C core
  (``dlarray._core.consume``, what ``from_dlpack`` does with a capsule);
- ``numpy.from_dlpack(x)`` and ``torch.from_dlpack(x)`` (both through
  ``x.__dlpack__``), and ``tvm_ffi.from_dlpack(x)`` (when installed: through
  dlarray's exchange table);
- from C, with the example extension ``examples/c_extension`` when a C
  compiler is here: ``borrow`` + ``release`` of a dlarray array and of a
  torch tensor, and ``managed`` (the table's
  ``managed_tensor_from_py_object_no_sync`` + deleter) of a dlarray array.

Method, per case: 10 000 exchanges to warm up (caches, free lists, lazily
made objects), a full garbage collection, the resident set size (RSS, from
``/proc/self/statm``; elsewhere the peak RSS from ``getrusage``), the
exchanges, another collection, the RSS again.  A case passes when the RSS
grew by less than 1 MB (1 000 000 bytes: the limit of issue 7) and the
source array's reference count is what it was (a leaked reference keeps the
array alive without growing the RSS).

Usage::

    python benchmarks/bench_memory.py [--quick] [--output PATH]

``--quick`` (CI) makes 200 000 exchanges per case, against the same limit.
The exit status is 1 when a case fails: unlike latency, memory growth does
not depend on how loaded the machine is.
"""

from __future__ import annotations

import gc
import importlib
import itertools
import json
import os
import platform
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy
from _harness import format_table, load_c_extension, parse_args

import dlarray
from dlarray import _core

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "memory.json"
FULL_EXCHANGES = 1_000_000
QUICK_EXCHANGES = 200_000
WARMUP = 10_000
LIMIT_BYTES = 1_000_000  # 1 MB
ELEMENTS = 1_000  # float32 elements in every source array
STATM = Path("/proc/self/statm")


def _progress(message: str) -> None:
    print(f"[bench_memory] {message}", file=sys.stderr, flush=True)


def rss_bytes() -> int:
    """The resident set size of this process now (Linux), else its peak."""
    try:
        resident_pages = int(STATM.read_text().split()[1])
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # bytes there, KiB here
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


@dataclass
class LeakCase:
    """``run(n)`` makes ``n`` exchanges of ``source``."""

    name: str
    source: Any
    run: Callable[[int], object]
    exchanges: int = 0
    rss_before: int = 0
    rss_after: int = 0
    refcount_delta: int = 0
    seconds: float = 0.0

    @property
    def growth(self) -> int:
        return self.rss_after - self.rss_before

    @property
    def passed(self) -> bool:
        return self.growth < LIMIT_BYTES and self.refcount_delta == 0


def _loop(call: Callable[[], object], n: int) -> None:
    for _ in itertools.repeat(None, n):
        call()


def _consume_versioned(x: Any) -> object:
    return _core.consume(x.__dlpack__(max_version=(1, 3)))


def _c_run(ext: Any, x: Any, how: str) -> Callable[[int], object]:
    return lambda n: ext.time_exchanges(x, n, how)


def build_cases() -> tuple[list[LeakCase], list[str]]:
    """The cases this machine can run, and notes on those it cannot."""
    x = dlarray.zeros(ELEMENTS, dtype=dlarray.float32)
    a = numpy.zeros(ELEMENTS, dtype=numpy.float32)
    cases = [
        LeakCase(
            "dlarray.from_dlpack(numpy_array)", a, partial(_loop, partial(dlarray.from_dlpack, a))
        ),
        LeakCase("x.__dlpack__(), capsule dropped", x, partial(_loop, x.__dlpack__)),
        LeakCase(
            "dlarray._core.consume(x.__dlpack__(max_version=(1, 3)))",
            x,
            partial(_loop, partial(_consume_versioned, x)),
        ),
        LeakCase("numpy.from_dlpack(x)", x, partial(_loop, partial(numpy.from_dlpack, x))),
    ]
    notes = []
    try:
        torch = importlib.import_module("torch")
    except ImportError as exc:
        torch = None
        notes.append(f"torch cases skipped: torch is not installed ({exc})")
    t = None
    if torch is not None:
        t = torch.zeros(ELEMENTS, dtype=torch.float32)
        cases.insert(
            0,
            LeakCase(
                "dlarray.from_dlpack(torch_tensor)",
                t,
                partial(_loop, partial(dlarray.from_dlpack, t)),
            ),
        )
        cases.append(
            LeakCase("torch.from_dlpack(x)", x, partial(_loop, partial(torch.from_dlpack, x)))
        )
    try:
        tvm_ffi = importlib.import_module("tvm_ffi")
    except ImportError as exc:
        notes.append(f"tvm_ffi case skipped: tvm_ffi is not installed ({exc})")
    else:
        cases.append(
            LeakCase("tvm_ffi.from_dlpack(x)", x, partial(_loop, partial(tvm_ffi.from_dlpack, x)))
        )
    ext, why_not = load_c_extension()
    if ext is None:
        notes.append(f"C cases skipped: {why_not}")
    else:
        cases.append(LeakCase("C: borrow + release of x", x, _c_run(ext, x, "borrow")))
        cases.append(LeakCase("C: managed + deleter of x", x, _c_run(ext, x, "managed")))
        if t is not None:
            cases.append(
                LeakCase("C: borrow + release of torch_tensor", t, _c_run(ext, t, "borrow"))
            )
    return cases, notes


def measure_growth(case: LeakCase, exchanges: int) -> None:
    """Warm up, then ``exchanges`` exchanges between two RSS readings."""
    case.run(WARMUP)
    gc.collect()
    refs = sys.getrefcount(case.source)
    case.rss_before = rss_bytes()
    start = time.perf_counter()
    case.run(exchanges)
    case.seconds = time.perf_counter() - start
    gc.collect()
    case.rss_after = rss_bytes()
    case.refcount_delta = sys.getrefcount(case.source) - refs
    case.exchanges = exchanges


def format_report(cases: list[LeakCase], notes: list[str]) -> str:
    """One line per case: RSS, its growth in KiB, the verdict."""
    lines = [("case", "exchanges", "RSS MiB", "growth KiB", "refs", "s", "result")]
    for c in cases:
        lines.append(
            (
                c.name,
                f"{c.exchanges:,}",
                f"{c.rss_before / 2**20:.1f}",
                f"{c.growth / 1024:+.0f}",
                f"{c.refcount_delta:+d}",
                f"{c.seconds:.2f}",
                "PASS" if c.passed else "FAIL",
            )
        )
    text = format_table(lines, right=frozenset({1, 2, 3, 4, 5}))
    text += f"\nlimit: growth < {LIMIT_BYTES / 1024:.1f} KiB (1 MB) and refs +0 per case"
    return text + "".join(f"\n{note}" for note in notes)


def to_json(cases: list[LeakCase], notes: list[str], quick: bool) -> dict[str, Any]:
    """The results and the conditions they were taken under."""
    torch = sys.modules.get("torch")
    return {
        "benchmark": "memory",
        "method": {
            "exchanges_per_case": FULL_EXCHANGES if not quick else QUICK_EXCHANGES,
            "warmup": WARMUP,
            "limit_bytes": LIMIT_BYTES,
            "rss": str(STATM) if STATM.exists() else "getrusage ru_maxrss (peak)",
            # /proc/self/statm counts pages: their size, for the docs' chart.
            "page_bytes": os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else None,
            "source_elements": ELEMENTS,
            "quick": quick,
        },
        "versions": {
            "python": platform.python_version(),
            "dlarray": dlarray.__version__,
            "numpy": numpy.__version__,
            "torch": getattr(torch, "__version__", None),
            "tvm_ffi": getattr(sys.modules.get("tvm_ffi"), "__version__", None),
        },
        "platform": platform.platform(),
        "notes": notes,
        "cases": [
            {
                "case": c.name,
                "exchanges": c.exchanges,
                "rss_before_bytes": c.rss_before,
                "rss_after_bytes": c.rss_after,
                "growth_bytes": c.growth,
                "refcount_delta": c.refcount_delta,
                "seconds": c.seconds,
                "passed": c.passed,
            }
            for c in cases
        ],
        "all_passed": all(c.passed for c in cases),
    }


def main(argv: list[str] | None = None) -> int:
    """Run every case, print the report, write the JSON.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status: 1 when a case failed, else 0.
    """
    args = parse_args(__doc__, DEFAULT_OUTPUT, argv)
    exchanges = QUICK_EXCHANGES if args.quick else FULL_EXCHANGES
    cases, notes = build_cases()
    for i, case in enumerate(cases, 1):
        _progress(f"{i}/{len(cases)} {case.name}: {exchanges:,} exchanges")
        measure_growth(case, exchanges)
    print(format_report(cases, notes))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(to_json(cases, notes, args.quick), indent=2) + "\n")
    _progress(f"wrote {args.output}")
    return 0 if all(c.passed for c in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
