"""Exchanges per second on 1, 2, ... threads: does DLPack scale without the GIL?

    python benchmarks/bench_threads.py [--seconds S] [--threads 1,2] [--output PATH]

Each thread runs the same loop on arrays of its own (nothing shared, so the
figure is about the library, not about contention on one object): import a
NumPy array with ``dlarray.from_dlpack``, export a dlarray array with
``np.from_dlpack``, and import it back through dlarray's own C exchange
table -- three exchanges per turn.  The total over all threads, per second,
is printed for each thread count with its speed-up over one thread.

Run it with free-threaded CPython (``python3.13t``) and with the same
interpreter forced to take the GIL (``python3.13t -X gil=1``): the GIL run's
threads take turns, so its speed-up stays near 1; without the GIL each
thread has a core (on a machine with that many), and the speed-up is the
point of free-threading.  ``nox -s free_threaded`` runs both and prints the
ratios; ``docs/_data/threads.json`` holds a committed pair of runs, which
the documentation's benchmark page draws.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import threading
import time
from pathlib import Path

import numpy as np

import dlarray

EXCHANGES_PER_TURN = 3


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="per thread count (default 2)")
    cores = os.cpu_count() or 1
    default_threads = ",".join(str(n) for n in sorted({1, 2, min(cores, 4), cores}) if n <= cores)
    parser.add_argument(
        "--threads", default=default_threads, help=f"thread counts (default {default_threads})"
    )
    parser.add_argument("--output", type=Path, help="write the results as JSON here")
    return parser.parse_args(argv)


def _turns(stop: threading.Event, counts: list[int], slot: int) -> None:
    a = np.arange(16.0)
    x = dlarray.arange(16.0)
    turns = 0
    while not stop.is_set():
        for _ in range(100):
            dlarray.from_dlpack(a)
            np.from_dlpack(x)
            dlarray.from_dlpack(x)
        turns += 100
    counts[slot] = turns


def exchanges_per_second(threads: int, seconds: float) -> float:
    """Total exchanges per second of ``threads`` threads running at once."""
    stop = threading.Event()
    counts = [0] * threads
    workers = [threading.Thread(target=_turns, args=(stop, counts, i)) for i in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    time.sleep(seconds)
    stop.set()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - start
    return sum(counts) * EXCHANGES_PER_TURN / elapsed


def gil_state() -> str:
    """'free-threaded' when this interpreter runs without the GIL now,
    'GIL' otherwise (a regular build, or a free-threaded one with -X gil=1)."""
    enabled = getattr(sys, "_is_gil_enabled", lambda: True)()
    return "GIL" if enabled else "free-threaded"


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    counts = [int(n) for n in args.threads.split(",")]
    state = gil_state()
    python = f"{platform.python_implementation()} {sys.version.split()[0]}"
    print(f"[bench_threads] {python}, {state}, {os.cpu_count()} cores; "
          f"{args.seconds:g} s per thread count", file=sys.stderr)  # fmt: skip
    exchanges_per_second(1, 0.2)  # warm up: caches, engine views, the table cache
    rows = []
    for n in counts:
        rate = exchanges_per_second(n, args.seconds)
        rows.append({"threads": n, "exchanges_per_second": rate})
    one = rows[0]["exchanges_per_second"]
    print(f"{'threads':>7}  {'exchanges/s':>12}  {'speed-up':>8}   ({state})")
    for row in rows:
        row["speedup"] = row["exchanges_per_second"] / one
        print(
            f"{row['threads']:>7}  {row['exchanges_per_second']:>12,.0f}  {row['speedup']:>7.2f}x"
        )
    if args.output is not None:
        result = {
            "gil": state,
            "python": sys.version.split()[0],
            "numpy": np.__version__,
            "dlarray": dlarray.__version__,
            "cores": os.cpu_count(),
            "machine": platform.platform(),
            "seconds": args.seconds,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "rows": rows,
        }
        args.output.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
