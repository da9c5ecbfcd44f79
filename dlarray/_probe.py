"""``python -m dlarray probe``: every installed library, refereed against DLPack.

For each library of :data:`dlarray._peers.PEERS` that is installed, and for
dlarray itself (:data:`dlarray._peers.SELF`), the probe runs every case of
:data:`dlarray._probe_cases.CASES`: as a consumer, the library's
``from_dlpack`` is fed toy capsules with any field values; as a producer,
its capsules are read field by field.  Each case ends ``ok``, ``deviation``
(what happened, what the specification says, the upstream issue where one
is known: ``Peer.probe_links``) or ``not supported``.

A library's cases run in a child process (``python -m dlarray probe --child
NAME``), which reports each result on stdout as soon as it has it.  A case
that kills the child (torch before 2.14 aborts on negative strides) is
reported as "aborts the process", and a new child carries on from the next
case.  Libraries are probed in parallel, one child each.

``--json`` prints the report as a JSON document; ``docs/_data/probe.json``
is one such report, from the pinned versions, which the documentation
renders and the tests compare against.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import json
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import dlarray
from dlarray._peers import PEERS, SELF, Peer
from dlarray._probe_cases import CASES, DEVIATION, NOT_SUPPORTED, OK, Case, Outcome

MARK = "dlarray-probe: "  # starts each line a child reports on (libraries print too)
VERDICTS = (OK, DEVIATION, NOT_SUPPORTED)
CHILD_TIMEOUT_S = 120.0  # per child; a case still running then is reported as hanging


def libraries(table: str | None = None) -> tuple[Peer, ...]:
    """dlarray and the peers, or the rows ``module:attribute`` names (tests)."""
    if table is None:
        return (SELF, *PEERS)
    module, _, attribute = table.partition(":")
    rows: tuple[Peer, ...] = tuple(getattr(importlib.import_module(module), attribute))
    return rows


def select_cases(patterns: Sequence[str] | None) -> list[Case]:
    """The cases whose names match one of the shell-style ``patterns`` (all if none)."""
    if not patterns:
        return list(CASES)
    return [c for c in CASES if any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]


def _say(record: dict[str, Any]) -> None:
    print(MARK + json.dumps(record), flush=True)


def child(peer: Peer, cases: Sequence[Case], start: int) -> int:
    """Run ``cases[start:]`` against ``peer`` in this process, reporting each."""
    try:
        module = peer.import_module()
    except Exception as exc:
        _say({"import_error": f"{type(exc).__name__}: {exc}"[:200]})
        return 0
    _say({"version": str(getattr(module, "__version__", "unknown"))})
    for index in range(start, len(cases)):
        try:
            outcome = cases[index].run(peer, module)
        except Exception as exc:  # the case itself broke: say so, go on
            outcome = Outcome(DEVIATION, f"the probe's case raised {type(exc).__name__}: {exc}")
        _say({"index": index, "verdict": outcome.verdict, "observed": outcome.observed})
    return 0


def _death(returncode: int, stderr: str) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        said = "aborts the process" if name == "SIGABRT" else "kills the process"
        what = f"{said} ({name})"
    else:
        what = f"ends the process (exit status {returncode})"
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    # A C++ abort prints "what(): <message>" and then a backtrace.
    message = [line for line in lines if "what():" in line] or lines[:1]
    return f"{what}: {message[0][:120]}" if message else what


def probe_library(
    peer: Peer,
    cases: Sequence[Case],
    extra: Sequence[str] = (),
    timeout: float = CHILD_TIMEOUT_S,
) -> dict[str, Any]:
    """Every case against one library, in child processes.

    Returns
    -------
    dict
        ``version`` (or ``import_error``), ``results`` (one per case, in
        order: case, role, verdict, observed, spec, link) and ``summary``
        (verdict -> count).
    """
    found: dict[int, Outcome] = {}
    info: dict[str, Any] = {}
    start = 0
    while start < len(cases):
        command = [sys.executable, "-m", "dlarray", "probe", "--child", peer.name]
        command += ["--start", str(start), *extra]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            stdout, stderr, returncode = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired as exc:
            stdout = _text(exc.stdout)
            stderr, returncode = "", None
        reached = start
        for line in stdout.splitlines():
            if not line.startswith(MARK):
                continue
            record = json.loads(line[len(MARK) :])
            if "index" in record:
                found[record["index"]] = Outcome(record["verdict"], record["observed"])
                reached = record["index"] + 1
            else:
                info.update(record)
        if "import_error" in info or reached >= len(cases):
            break
        if returncode is None:
            found[reached] = Outcome(DEVIATION, f"hangs (no answer in {timeout:.0f} s)")
        else:
            found[reached] = Outcome(DEVIATION, _death(returncode, stderr))
        start = reached + 1
    results = []
    for index, case in enumerate(cases):
        outcome = found.get(index)
        if outcome is None:
            continue
        link = peer.probe_links.get(case.name) if outcome.verdict == DEVIATION else None
        results.append(
            {
                "case": case.name,
                "role": case.role,
                "verdict": outcome.verdict,
                "observed": outcome.observed,
                "spec": case.spec,
                "link": link,
            }
        )
    info["results"] = results
    info["summary"] = {v: sum(r["verdict"] == v for r in results) for v in VERDICTS}
    return info


def _text(output: bytes | str | None) -> str:
    if output is None:
        return ""
    return output if isinstance(output, str) else output.decode(errors="replace")


def _skip_reason(peer: Peer) -> str | None:
    if not peer.installed():
        return f"not installed (pip install {peer.pip})"
    if "cpu" not in peer.consumes and "cpu" not in peer.make:
        kinds = ", ".join(peer.kinds)
        return f"lives on {kinds} memory; the probe's tensors are host memory"
    return None


def probe(
    names: Sequence[str] | None = None,
    case_patterns: Sequence[str] | None = None,
    table: str | None = None,
    jobs: int | None = None,
) -> dict[str, Any]:
    """Probe every installed library (or those ``names`` lists).

    Returns
    -------
    dict
        JSON-ready: versions, platform, the cases, per library its version
        and results, the libraries skipped and why, the time taken.
    """
    began = time.perf_counter()
    cases = select_cases(case_patterns)
    extra = [arg for p in case_patterns or () for arg in ("--case", p)]
    if table is not None:
        extra += ["--peer-table", table]
    rows = [p for p in libraries(table) if names is None or p.name in names]
    skipped = {p.name: r for p in rows if (r := _skip_reason(p)) is not None}
    probed = [p for p in rows if p.name not in skipped]
    workers = max(1, min(jobs or os.cpu_count() or 2, len(probed) or 1))
    with ThreadPoolExecutor(workers) as pool:
        reports = list(pool.map(lambda p: probe_library(p, cases, extra), probed))
    return {
        "dlarray_version": dlarray.__version__,
        "dlpack_version": list(dlarray.__dlpack_version__),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "cases": [{"name": c.name, "role": c.role, "what": c.what, "spec": c.spec} for c in cases],
        "libraries": {p.name: r for p, r in zip(probed, reports, strict=True)},
        "skipped": skipped,
        "duration_s": round(time.perf_counter() - began, 1),
    }


def summary_line(name: str, library: dict[str, Any]) -> str:
    """``torch 2.13.0: 50 ok, 6 deviations, 3 not supported``."""
    if "import_error" in library:
        return f"{name}: does not import ({library['import_error']})"
    s = library["summary"]
    deviations = "deviation" if s[DEVIATION] == 1 else "deviations"
    return (
        f"{name} {library['version']}: {s[OK]} ok, {s[DEVIATION]} {deviations}, "
        f"{s[NOT_SUPPORTED]} not supported"
    )


def format_report(report: dict[str, Any]) -> str:
    """The report as text: a summary line per library, then each deviation
    and each case not supported."""
    major, minor = report["dlpack_version"]
    lines = [
        f"dlarray {report['dlarray_version']} probe: {len(report['cases'])} cases per library, "
        f"against DLPack {major}.{minor} ({report['duration_s']} s)",
        *(summary_line(n, lib) for n, lib in report["libraries"].items()),
    ]
    lines += [f"skipped {name}: {why}" for name, why in report["skipped"].items()]
    for verdict, title in ((DEVIATION, "deviations"), (NOT_SUPPORTED, "not supported")):
        rows = [
            (name, r)
            for name, lib in report["libraries"].items()
            for r in lib.get("results", [])
            if r["verdict"] == verdict
        ]
        if not rows:
            continue
        lines += ["", f"{title}:"]
        for name, cases, r in grouped(rows):
            lines.append(f"  {name} {cases}: {r['observed']}")
            if verdict == DEVIATION:
                lines.append(
                    f"      spec: {r['spec']}" + (f"; see {r['link']}" if r["link"] else "")
                )
    return "\n".join(lines)


def grouped(rows: Sequence[tuple[str, dict[str, Any]]]) -> list[tuple[str, str, dict[str, Any]]]:
    """Rows of one library that say the same thing, as one: ``(library,
    "case, case", first row)``, in order (the dtypes one library lacks)."""
    out: list[tuple[str, list[str], dict[str, Any]]] = []
    for name, r in rows:
        last = out[-1] if out else None
        same = ("observed", "spec", "link")
        if last and last[0] == name and all(last[2][k] == r[k] for k in same):
            last[1].append(r["case"])
        else:
            out.append((name, [r["case"]], r))
    return [(name, ", ".join(cases), r) for name, cases, r in out]


def main(argv: list[str] | None = None) -> int:
    """``python -m dlarray probe``; returns the exit status (0 unless misused)."""
    parser = argparse.ArgumentParser(
        prog="python -m dlarray probe",
        description="Referee every installed array library (and dlarray) against the DLPack "
        "specification, as a consumer and as a producer; each library runs in a child process.",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--library", action="append", metavar="NAME", help="probe only this library (repeatable)"
    )
    parser.add_argument(
        "--case", action="append", metavar="PATTERN", help="run only matching cases (repeatable)"
    )
    parser.add_argument("--jobs", type=int, metavar="N", help="children at once (default: CPUs)")
    parser.add_argument("--peer-table", help=argparse.SUPPRESS)  # module:attribute (tests)
    parser.add_argument("--child", help=argparse.SUPPRESS)  # run one library's cases here
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        (peer,) = [p for p in libraries(args.peer_table) if p.name == args.child]
        return child(peer, select_cases(args.case), args.start)
    report = probe(args.library, args.case, args.peer_table, args.jobs)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0
