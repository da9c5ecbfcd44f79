"""Instructions per call, counted by valgrind: the benchmark gate noise cannot fool.

The wall-clock benchmarks (bench_exchange.py, bench_namespace.py,
bench_peers.py) give the headline figures, but on a shared 2-core machine
they move by 10% between runs, so a gate on them needs so much slack that a
real slowdown slips through, and it still flaps.  This script counts the
instructions the CPU executes per call instead.  On the same build and the
same versions that number repeats run after run (to a few instructions), so
the gate can be tight.

Every row pairs dlarray's call with a peer's call doing the same thing
(NumPy's, or tvm-ffi's for importing a torch tensor), counted in the same
run, and prints both and their ratio.

Method
------
The script runs itself again under ``valgrind --tool=callgrind
--dump-before=getppid``.  Callgrind writes its counters to a new file, and
zeroes them, each time the process enters libc's ``getppid``, which nothing
measured here calls; so ``os.getppid()`` is a marker that cuts the run into
windows.  For each call the inner process runs: a warm-up (caches, lazy
imports), marker, the call N times, marker, the call 2N times, marker.  The
count per call is ``(I(2N) - I(N)) / N``: whatever a window costs once (the
loop's setup, the marker itself) cancels.  What one iteration of the loop
costs on its own is counted the same way on an empty call,
``partial(id, None)``, and taken off every row, so the figures are the
calls' own.  Python's hash seed is fixed and the garbage collector is off,
as in :mod:`timeit`.

Callgrind starts with its instrumentation off (``--instr-atstart=no``): the
inner process imports the peers and builds the rows at valgrind's plain
speed, then switches the instrumentation on through a three-line C helper
(``CALLGRIND_START_INSTRUMENTATION``, from valgrind's ``callgrind.h``),
compiled here at each run, before the first window.  Instrumenting PyTorch's
import alone took over four minutes on the project's machines; the windows
count the same either way.  Where the header or a C compiler is missing, the
run instruments from the start, and says so.

The gate
--------
``benchmarks/instruction_budgets.json`` holds, per row, the count measured
when the budget was set, the peer's count then, the budget and the date,
and the versions it was measured with.  A row whose count is over its
budget fails the run and names itself.  Counts depend on the Python and
NumPy builds, so where the versions differ from the recorded ones the gate
compares ratios instead: a row fails when its ratio to the peer grew by more
than the slack.  A row with a budget that could not be measured (a peer
missing) fails too, unless ``--allow-missing``.

Usage::

    python benchmarks/bench_instructions.py                  # measure and gate
    python benchmarks/bench_instructions.py --rows export    # rows whose name has "export"
    python benchmarks/bench_instructions.py --record         # set the budgets from this run
    python benchmarks/bench_instructions.py --profile "x + y [4x4]"
        # keep the callgrind files of that row's dlarray side, for callgrind_annotate

``--output PATH`` writes the results as JSON.  Needs ``valgrind`` on PATH;
without it the script says so and exits 2.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _harness import optional_module

HERE = Path(__file__).resolve().parent
BUDGETS = HERE / "instruction_budgets.json"
#: A budget is the measured count plus this fraction: counts repeat to well
#: under 1% on one build, and one extra dict look-up on the export path
#: (about 40 instructions of ~400) must fail.
SLACK = 0.04
#: The marker function: callgrind dumps and zeroes its counters on entry.
MARKER = "getppid"


@dataclass
class Row:
    """One gated row: dlarray's statement and the peer's, for the same work.

    Statements, as :mod:`timeit` takes them, run in ``names``: a call is
    counted as a user writes it, ``x.__dlpack__(max_version=v)``, not
    through a ``functools.partial``, whose keyword dict costs more than an
    export does and would hide half of dlarray's difference from NumPy.
    """

    name: str
    dlarray: str
    peer: str
    baseline: str
    names: dict[str, Any]
    #: calls per window: N, then 2N
    calls: int = 1000


def build_rows() -> tuple[list[Row], list[str]]:
    """Every row this environment can measure, and a line per row it cannot."""
    import numpy

    import dlarray as dl

    rows: list[Row] = []
    missing: list[str] = []
    torch, tvm_ffi = optional_module("torch"), optional_module("tvm_ffi")
    for size, n in (("1", 1), ("1M", 1_000_000)):
        names = {
            "dl": dl,
            "numpy": numpy,
            "tvm_ffi": tvm_ffi,
            "v": dl.__dlpack_version__,
            "a": numpy.arange(n, dtype=numpy.float32),
            "x": dl.zeros(n, dtype=dl.float32),  # memory dlarray allocated itself
        }
        rows += [
            Row(
                f"export versioned capsule [{size}]",
                "x.__dlpack__(max_version=v)",
                "numpy",
                "a.__dlpack__(max_version=v)",
                names,
            ),
            Row(
                f"import a numpy array [{size}]",
                "dl.from_dlpack(a)",
                "numpy",
                "numpy.from_dlpack(a)",
                names,
            ),
            Row(
                f"import own array [{size}]",
                "dl.from_dlpack(x)",
                "numpy",
                "numpy.from_dlpack(a)",
                names,
            ),
            Row(
                f"numpy imports [{size}]",
                "numpy.from_dlpack(x)",
                "numpy",
                "numpy.from_dlpack(a)",
                names,
            ),
        ]
        if torch is None or tvm_ffi is None:
            missing.append(f"import a torch tensor [{size}]: needs torch and tvm_ffi")
        else:
            names = dict(names, t=torch.zeros(n, dtype=torch.float32))
            rows.append(
                Row(
                    f"import a torch tensor [{size}]",
                    "dl.from_dlpack(t)",
                    "tvm_ffi",
                    "tvm_ffi.from_dlpack(t)",
                    names,
                )
            )

    # The small operations, on the shapes bench_namespace.py times.
    rng = numpy.random.default_rng(0)
    a, b = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    small = {"dl": dl, "numpy": numpy, "a": a, "b": b, "mask": a > 0}
    small.update(x=dl.asarray(a), y=dl.asarray(b), m=dl.asarray(small["mask"]))
    for name, ours, theirs in (
        ("x + y", "x + y", "a + b"),
        ("x + 1.0", "x + 1.0", "a + 1.0"),
        ("add(x, y)", "dl.add(x, y)", "numpy.add(a, b)"),
        ("sin(x)", "dl.sin(x)", "numpy.sin(a)"),
        ("x @ y", "x @ y", "a @ b"),
        ("x[mask]", "x[m]", "a[mask]"),
    ):
        rows.append(Row(f"{name} [4x4]", ours, "numpy", theirs, small))
    # Two dtypes the standard promotes: the fast path's promotion table.
    mixed = {"i": a.astype(numpy.int32), "j": b.astype(numpy.int64)}
    mixed.update(small, u=dl.asarray(mixed["i"]), v=dl.asarray(mixed["j"]))
    rows.append(Row("x + y int32 + int64 [4x4]", "u + v", "numpy", "i + j", mixed))

    # float32 reductions over 1M elements: each call is ~10^5-10^7
    # instructions, so fewer calls make a window.
    big = rng.standard_normal(1_000_000).astype(numpy.float32)
    large = {"dl": dl, "numpy": numpy, "a": big, "x": dl.asarray(big)}
    for name in ("sum", "prod", "mean", "var"):
        rows.append(
            Row(f"{name} float32 [1M]", f"dl.{name}(x)", "numpy", f"numpy.{name}(a)", large, 8)
        )
    return rows, missing


# ---- the inner process, under callgrind ----


def compile_window(statement: str, names: dict[str, Any]) -> Any:
    """``window(n)``: run ``statement`` n times, then the marker (as timeit
    compiles its loop, so the statement costs what it costs inline)."""
    source = (
        f"def window(_n):\n    for _ in _repeat(None, _n):\n        {statement}\n    _marker()\n"
    )
    scope = dict(names, _repeat=itertools.repeat, _marker=os.getppid)
    exec(compile(source, f"<row: {statement}>", "exec"), scope)
    return scope["window"]


def inner(names: list[str], instrument_with: str | None = None) -> None:
    """Run the windows of the named rows, in order; print their order as JSON.

    ``instrument_with``: the helper library whose ``start_instrumentation``
    turns callgrind's instrumentation on (it starts off), called once the
    rows are built and before the first window."""
    import gc

    rows, _ = build_rows()
    chosen = [r for r in rows if r.name in names]
    plan: list[tuple[str, str, Any, int]] = [
        ("empty loop", "loop", compile_window("pass", {}), 1000)
    ]
    for r in chosen:
        plan.append((r.name, "dlarray", compile_window(r.dlarray, r.names), r.calls))
        plan.append((r.name, r.peer, compile_window(r.baseline, r.names), r.calls))
    if instrument_with is not None:
        import ctypes

        start = ctypes.CDLL(instrument_with).start_instrumentation
        start.restype = None
        start()
    gc.collect()
    gc.disable()
    for _, _, window, n in plan:
        window(min(n, 50))  # warm-up: caches, lazy imports (its marker dumps too)
    os.getppid()  # the windows start here
    for _, _, window, n in plan:
        window(1)  # settle
        window(n)
        window(2 * n)
    gc.enable()
    print(json.dumps({"plan": [(name, side, n) for name, side, _, n in plan]}))


# ---- the outer process ----


def _instructions(path: Path) -> int:
    """The total instruction count in one callgrind dump."""
    text = path.read_text()
    match = re.search(r"^(?:summary|totals):\s+(\d+)", text, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"{path}: no instruction total in a callgrind dump")
    return int(match.group(1))


def _dump_number(path: Path) -> int:
    """N in callgrind.out.N-01 (dump N of thread 1)."""
    return int(path.name.rsplit(".", 1)[1].split("-")[0])


#: The helper that switches callgrind's instrumentation on from Python.
START_HELPER = """\
#include <valgrind/callgrind.h>
void start_instrumentation(void) { CALLGRIND_START_INSTRUMENTATION; }
"""


def build_start_helper(workdir: Path) -> Path | None:
    """Compile :data:`START_HELPER` into ``workdir``; None (and a line on
    stderr) where valgrind's header or a C compiler is missing."""
    source, library = workdir / "start.c", workdir / "start.so"
    source.write_text(START_HELPER)
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    try:
        result = subprocess.run(
            [compiler, "-shared", "-fPIC", "-O1", "-o", str(library), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        result = subprocess.CompletedProcess([compiler], 1, "", str(exc))
    if result.returncode != 0:
        why = (result.stderr.strip().splitlines() or ["no output"])[-1]
        _progress(
            "cannot build the helper that starts callgrind's instrumentation "
            f"({compiler}: {why}); instrumenting from the start, several minutes slower"
        )
        return None
    return library


def count(names: list[str], keep: Path | None = None) -> dict[tuple[str, str], float]:
    """Instructions per call for every (row, side), the loop's cost taken off."""
    workdir = Path(tempfile.mkdtemp(prefix="dlarray-callgrind-"))
    helper = build_start_helper(workdir)
    # One thread for the peers' thread pools; and the counts are the main
    # thread's alone (--separate-threads): a pool thread spinning while it
    # waits for work would otherwise add to whichever window it ran in.
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1")
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--dump-before={MARKER}",
        "--dump-instr=no",
        "--compress-strings=no",
        "--separate-threads=yes",
        f"--instr-atstart={'no' if helper else 'yes'}",
        f"--callgrind-out-file={workdir}/callgrind.out",
        sys.executable,
        str(Path(__file__).resolve()),
        "--inner",
        json.dumps(names),
        *(["--instrument-with", str(helper)] if helper else []),
    ]
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.stderr.write(result.stderr[-4000:])
        raise RuntimeError(f"the callgrind run failed with status {result.returncode}")
    plan = json.loads(result.stdout.strip().splitlines()[-1])["plan"]
    dumps = sorted(workdir.glob("callgrind.out.*-01"), key=_dump_number)
    # dumps: one per warm-up and one up to the start (len(plan) + 1), then
    # per plan entry: settle, N, 2N; then the rest of the run.
    per_call: dict[tuple[str, str], float] = {}
    for i, (name, side, n) in enumerate(plan):
        first = len(plan) + 1 + 3 * i
        once, twice = _instructions(dumps[first + 1]), _instructions(dumps[first + 2])
        per_call[(name, side)] = (twice - once) / n
    loop = per_call.pop(("empty loop", "loop"))
    for key in per_call:
        per_call[key] -= loop
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        for path in dumps:
            shutil.copy(path, keep / path.name)
        (keep / "plan.json").write_text(json.dumps(plan, indent=1))
    shutil.rmtree(workdir)
    return per_call


def versions() -> dict[str, str | None]:
    """What the counts depend on besides dlarray's own code, and how that
    code was built: without link-time optimisation (a toolchain that cannot
    link with -flto, see setup.py) the small rows run up to 7% more."""
    import numpy

    import dlarray._core

    def version_of(name: str) -> str | None:
        module = optional_module(name)
        return getattr(module, "__version__", None) if module else None

    return {
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "torch": version_of("torch"),
        "tvm_ffi": version_of("tvm_ffi"),
        "machine": platform.machine(),
        "core_lto": "yes" if dlarray._core.LINK_TIME_OPTIMISED else "no",
    }


def _load_budgets() -> dict[str, Any]:
    return json.loads(BUDGETS.read_text()) if BUDGETS.exists() else {"rows": {}}


def judge(results: list[dict[str, Any]], budgets: dict[str, Any], same_versions: bool) -> list[str]:
    """One line per row over its budget (empty: the gate passes)."""
    failures = []
    for r in results:
        budget = budgets["rows"].get(r["row"])
        if budget is None:
            continue
        if same_versions:
            if r["dlarray"] > budget["budget"]:
                failures.append(
                    f"{r['row']}: {r['dlarray']:.0f} instructions per call, over its "
                    f"budget of {budget['budget']} (measured {budget['dlarray']} on "
                    f"{budget['date']})"
                )
        else:
            recorded = budget["dlarray"] / budget["peer_instructions"]
            if r["ratio"] > recorded * (1 + SLACK):
                failures.append(
                    f"{r['row']}: {r['ratio']:.3f}x the {r['peer']} call's instructions, "
                    f"over the recorded {recorded:.3f}x (+{SLACK:.0%}) of {budget['date']}"
                )
    return failures


def format_table(results: list[dict[str, Any]], budgets: dict[str, Any]) -> str:
    lines = [("row", "dlarray", "peer", "peer instr", "ratio", "budget", "")]
    for r in results:
        budget = budgets["rows"].get(r["row"], {}).get("budget")
        verdict = "" if budget is None else ("over" if r["dlarray"] > budget else "ok")
        lines.append(
            (
                r["row"],
                f"{r['dlarray']:.0f}",
                r["peer"],
                f"{r['peer_instructions']:.0f}",
                f"{r['ratio']:.2f}x",
                "-" if budget is None else str(budget),
                verdict,
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join(
        "  ".join(
            c.rjust(w) if 0 < i < 6 and i != 2 else c.ljust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in lines
    )


def record(results: list[dict[str, Any]], budgets: dict[str, Any]) -> dict[str, Any]:
    """The budgets file with this run's rows set: budget = measured + SLACK."""
    today = datetime.date.today().isoformat()
    rows = dict(budgets.get("rows", {}))
    for r in results:
        measured = round(r["dlarray"])
        rows[r["row"]] = {
            "dlarray": measured,
            "peer": r["peer"],
            "peer_instructions": round(r["peer_instructions"]),
            "budget": round(measured * (1 + SLACK)),  # from the count the file keeps
            "date": today,
        }
    return {
        "about": (
            "Instructions per call on dlarray's side of each row of "
            "benchmarks/bench_instructions.py, and the budget the gate holds it "
            "to. Set with --record; lower a budget when a row gets faster."
        ),
        "slack": SLACK,
        "versions": versions(),
        "rows": rows,
    }


def _progress(message: str) -> None:
    print(f"[bench_instructions] {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Measure, print, gate; the exit status is 1 when a row is over budget."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    parser.add_argument("--instrument-with", help=argparse.SUPPRESS)
    parser.add_argument("--rows", help="only the rows whose name contains this text")
    parser.add_argument("--record", action="store_true", help="set the budgets from this run")
    parser.add_argument("--profile", metavar="ROW", help="keep the callgrind dumps of one row")
    parser.add_argument("--output", type=Path, help="write the results as JSON")
    parser.add_argument(
        "--allow-missing", action="store_true", help="pass when a budgeted row cannot run"
    )
    args = parser.parse_args(argv)
    if args.inner is not None:
        inner(json.loads(args.inner), args.instrument_with)
        return 0
    if shutil.which("valgrind") is None:
        print("bench_instructions: valgrind is not on PATH; install it to count", file=sys.stderr)
        return 2

    rows, missing = build_rows()
    if args.profile:
        rows = [r for r in rows if r.name == args.profile]
        if not rows:
            parser.error(f"--profile {args.profile!r}: no such row")
    elif args.rows:
        rows = [r for r in rows if args.rows in r.name]
    budgets = _load_budgets()
    recorded_versions = budgets.get("versions", {})
    now = versions()
    same = all(recorded_versions.get(k) == v for k, v in now.items())
    _progress(
        f"{len(rows)} rows under callgrind (~1 minute); versions "
        + ", ".join(f"{k} {v}" for k, v in now.items())
    )
    keep = Path(tempfile.mkdtemp(prefix="dlarray-profile-")) if args.profile else None
    per_call = count([r.name for r in rows], keep)
    results = [
        {
            "row": r.name,
            "dlarray": per_call[(r.name, "dlarray")],
            "peer": r.peer,
            "peer_instructions": per_call[(r.name, r.peer)],
            "ratio": per_call[(r.name, "dlarray")] / per_call[(r.name, r.peer)],
        }
        for r in rows
    ]
    print(format_table(results, budgets))
    for line in missing:
        print(f"not measured: {line}")
    if keep is not None:
        print(f"callgrind dumps and their plan kept in {keep}: callgrind_annotate <file>")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps({"versions": now, "rows": results}, indent=2) + "\n")
    if args.record:
        BUDGETS.write_text(json.dumps(record(results, budgets), indent=2) + "\n")
        _progress(f"budgets of {len(results)} rows written to {BUDGETS}")
        return 0
    if args.profile:
        return 0
    mode = (
        "instruction budgets"
        if same
        else (f"ratios (versions differ from the budgets' {recorded_versions})")
    )
    failures = judge(results, budgets, same)
    measured = {r["row"] for r in results}
    if not args.rows and not args.allow_missing:
        failures += [
            f"{name}: has a budget but was not measured here"
            for name in budgets["rows"]
            if name not in measured
        ]
    if failures:
        print(f"\nFAILED, {len(failures)} row(s) over budget (compared by {mode}):")
        for line in failures:
            print(f"  {line}")
        return 1
    print(f"\nall {len(results)} rows within budget (compared by {mode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
