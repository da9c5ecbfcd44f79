"""``python -m dlarray probe``: every installed library, refereed against DLPack.

For each library of :data:`dlarray._peers.PEERS` that is installed, and for
dlarray itself (:data:`dlarray._peers.SELF`), the probe runs every case of
:data:`CASES` (:mod:`dlarray._probe_cases`; the C exchange table's in
:mod:`dlarray._probe_exchange_cases`, the dtype and device objects' in
:mod:`dlarray._probe_object_cases`): as a consumer, the library's
``from_dlpack`` is fed toy capsules with any field values; as a producer,
its capsules are read field by field.  Each case ends ``ok``, ``deviation``
(what happened, what the specification says, the upstream issue where one
is known: ``Peer.probe_links``), ``not supported``, or ``needs package``
(the case cannot be judged without an optional package, named with its
install command).

A library's cases run in a child process (``python -m dlarray probe --child
NAME``), which imports the library and then reports each result on stdout
as soon as it has it.  A case that kills the child (torch before 2.14
aborts on negative strides), or leaves it silent for the time limit, is
reported as "aborts the process" or "hangs", and a new child carries on
from the next case.  A library whose import fails, aborts, ends the process
or hangs is one line, "does not import", whatever the number of cases.
Libraries are probed in parallel, one child each.  The time limit
(:data:`TIMEOUT_S`, ``--timeout`` or the environment variable
:data:`TIMEOUT_VARIABLE`) applies to the import and to each case.

``python -m dlarray`` (the doctor) runs its peers in children the same way,
through :func:`run_steps`.

``--json`` prints the report as a JSON document, each message whole; the
text report wraps long lines at word boundaries.  ``docs/_data/probe.json``
is one such report, from the pinned versions, which the documentation
renders and the tests compare against.
"""

from __future__ import annotations

import argparse
import fnmatch
import gc
import importlib
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import queue
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any

import dlarray
from dlarray._peers import PEERS, SELF, Peer, module_version
from dlarray._probe_adapter import AdapterPeer, adapter_row, is_adapter_path
from dlarray._probe_cases import (
    DEVIATION,
    NEEDS,
    NOT_SUPPORTED,
    OK,
    PROTOCOL_CASES,
    Case,
    Outcome,
    error_line,
    load_ml_dtypes,
)
from dlarray._probe_exchange_cases import EXCHANGE_CASES
from dlarray._probe_object_cases import OBJECT_CASES

#: Every case, in the order a child process runs them: the Python
#: protocol's, the C exchange table's, the dtype and device objects'.
CASES: tuple[Case, ...] = (*PROTOCOL_CASES, *EXCHANGE_CASES, *OBJECT_CASES)
MARK = "dlarray-probe: "  # starts each line a child reports on (libraries print too)
VERDICTS = (OK, DEVIATION, NOT_SUPPORTED, NEEDS)
#: Seconds a library may take to import, or to finish one case (the probe)
#: or one exchange (the doctor), before it counts as hanging.  Importing
#: JAX or torch takes seconds; a case, milliseconds.
TIMEOUT_S = 60.0
#: The environment variable that sets the limit when ``--timeout`` is not given.
TIMEOUT_VARIABLE = "DLARRAY_PEER_TIMEOUT"
WIDTH = 100  # the text reports wrap here, at word boundaries


# ---- libraries in child processes (the probe's and the doctor's) ----


def seconds(text: str) -> float:
    """A time limit given as text: a number of seconds above 0 (argparse's type)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected seconds above 0, got {text!r}")
    return value


def default_timeout() -> float:
    """:data:`TIMEOUT_VARIABLE` where it is set, else :data:`TIMEOUT_S`.

    Raises
    ------
    ValueError
        If the variable is set to anything but a number of seconds above 0.
    """
    said = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not said:
        return TIMEOUT_S
    try:
        return seconds(said)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(f"{TIMEOUT_VARIABLE}: {exc}") from None


def say(record: dict[str, Any]) -> None:
    """In a child: report one record to the parent (a line of stdout)."""
    print(MARK + json.dumps(record), flush=True)


def import_in_child(peer: Peer) -> Any:
    """In a child: import ``peer`` and report ``{"version": ...}``, or report
    ``{"import_error": ...}`` and return None.  A library that aborts or
    hangs on import never returns: the parent sees that."""
    try:
        module = peer.import_module()
    except (Exception, SystemExit) as exc:  # SystemExit too: a library may call sys.exit
        say({"import_error": f"raises {error_line(exc)}"})
        return None
    say({"version": module_version(module)})
    return module


@dataclass
class Children:
    """What the child processes of one library reported (:func:`run_steps`).

    Attributes
    ----------
    info : dict
        The records that are not steps: ``version``, or ``import_error``
        (what the import raised, or how the child ended or hung before its
        import finished).
    steps : dict of int to dict
        Step index -> the record the child reported for it.
    broken : dict of int to str
        Step index -> how the child ended (or hung) during that step.
    """

    info: dict[str, Any]
    steps: dict[int, dict[str, Any]]
    broken: dict[int, str]


def run_steps(command: Sequence[str], count: int, timeout: float) -> Children:
    """Run steps ``0 .. count - 1`` of one library in child processes.

    ``command`` followed by ``--start I`` starts a child that imports the
    library (:func:`import_in_child`) and then reports ``{"index": i, ...}``
    for each step from ``I`` on.  A child that dies during step ``i``, or
    says nothing for ``timeout`` seconds, has step ``i`` broken, and a new
    child starts at ``i + 1``.  One that dies or hangs before its import
    finished gets an ``import_error`` and no successor: a library that
    cannot be imported costs one child and at most ``timeout`` seconds.
    """
    found = Children({}, {}, {})
    start = 0
    while True:
        records, ending = _run_child([*command, "--start", str(start)], timeout)
        reached, imported = start, False
        for record in records:
            if "index" in record:
                found.steps[record["index"]] = record
                reached = record["index"] + 1
            else:
                found.info.update(record)
                imported = imported or "version" in record
        if "import_error" in found.info:
            break
        if not imported:
            found.info["import_error"] = ending
            break
        if reached >= count:
            break
        found.broken[reached] = ending
        start = reached + 1
    return found


def _run_child(command: Sequence[str], timeout: float) -> tuple[list[dict[str, Any]], str]:
    """Run one child: the records it reported, and how it ended."""
    records: list[dict[str, Any]] = []
    with tempfile.TemporaryFile() as stderr:  # a file: a chatty library cannot block on it
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr
        )
        assert process.stdout is not None
        lines: queue.Queue[bytes | None] = queue.Queue()
        reader = threading.Thread(target=_pump, args=(process.stdout, lines), daemon=True)
        reader.start()
        hung = False
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                # Silent for the whole limit (or exited, its stdout held open
                # by a process it started).
                hung = process.poll() is None
                break
            if line is None:
                break
            text = line.decode(errors="replace")
            if not text.startswith(MARK):
                continue  # the library's own output
            try:
                records.append(json.loads(text[len(MARK) :]))
            except ValueError:
                continue
            deadline = time.monotonic() + timeout  # each report restarts the clock
        if hung:
            process.kill()
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:  # closed its output, and lives on
            process.kill()
            returncode, hung = process.wait(), True
        reader.join(timeout=1.0)
        if not reader.is_alive():
            process.stdout.close()
        stderr.seek(0)
        said = stderr.read().decode(errors="replace")
    if hung:
        return records, f"hangs (no answer in {timeout:g} s)"
    return records, _death(returncode, said)


def _pump(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _death(returncode: int, stderr: str) -> str:
    """How a child ended, with its last words (the first line of stderr, or
    a C++ abort's ``what():`` line)."""
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
    return f"{what}: {message[0]}" if message else what


# ---- the probe ----


def libraries(table: str | None = None) -> tuple[Peer, ...]:
    """dlarray and the peers, or the rows ``module:attribute`` names (tests)."""
    if table is None:
        return (SELF, *PEERS)
    module, _, attribute = table.partition(":")
    rows: tuple[Peer, ...] = tuple(getattr(importlib.import_module(module), attribute))
    return rows


def library(name: str, table: str | None = None) -> Peer:
    """The row of one library: an adapter file's (a path ending in ``.py``:
    :mod:`dlarray._probe_adapter`; the file is not run), else the table's
    row of that name.

    Raises
    ------
    LookupError
        If no row has that name (the message lists the names).
    """
    if is_adapter_path(name):
        return adapter_row(name)
    rows = libraries(table)
    for row in rows:
        if row.name == name:
            return row
    names = ", ".join(r.name for r in rows)
    raise LookupError(
        f"no library named {name!r} in the probe's table ({names}); for another library, "
        "give the path of an adapter file (docs/guide/test-your-dlpack.md)"
    )


def installed_version(name: str) -> str | None:
    """The version of the installed distribution that provides module
    ``name``, read from its metadata (None where it is missing).  Only the
    children import it: ml_dtypes takes most of a second to import, which
    the parent would add to every run."""
    if importlib.util.find_spec(name) is None:
        return None
    try:
        return importlib.metadata.version(name.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def select_cases(patterns: Sequence[str] | None) -> list[Case]:
    """The cases whose names match one of the shell-style ``patterns`` (all if none)."""
    if not patterns:
        return list(CASES)
    return [c for c in CASES if any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]


def child(peer: Peer, cases: Sequence[Case], start: int) -> int:
    """Run ``cases[start:]`` against ``peer`` in this process, reporting each."""
    load_ml_dtypes()  # before the library: NumPy >= 2.5 then knows its DLPack dtypes
    module = import_in_child(peer)
    if module is None:
        return 0
    if isinstance(peer, AdapterPeer):  # what the adapter defines, now that it is imported
        peer = peer.loaded(module)
    # The cases collect garbage after every read, to count the deleters' calls;
    # what the imports made lives as long as this process and cannot be their
    # garbage, so the collector stops walking it (a full walk of NumPy's and a
    # peer's objects was most of a child's time).
    gc.freeze()
    for index in range(start, len(cases)):
        try:
            outcome = _unasked(peer, cases[index]) or cases[index].run(peer, module)
        except Exception as exc:  # the case itself broke: say so, go on
            outcome = Outcome(DEVIATION, f"the probe's case raised {error_line(exc)}")
        say(
            {
                "index": index,
                "verdict": outcome.verdict,
                "observed": outcome.observed,
                "needs": outcome.needs,
            }
        )
    return 0


def _unasked(peer: Peer, case: Case) -> Outcome | None:
    """A consumer case of a library without a host consumer (an adapter
    that defines no from_dlpack) cannot be asked: not supported."""
    if case.role == "consumer" and "cpu" not in peer.consumes:
        return Outcome(NOT_SUPPORTED, "has no from_dlpack for host memory")
    return None


def probe_library(
    peer: Peer,
    cases: Sequence[Case],
    extra: Sequence[str] = (),
    timeout: float = TIMEOUT_S,
) -> dict[str, Any]:
    """Every case against one library, in child processes.

    Returns
    -------
    dict
        ``version`` (or ``import_error``: the library does not import),
        ``results`` (one per case, in order: case, role, verdict, observed,
        spec, link, needs; none when it does not import) and ``summary``
        (verdict -> count).
    """
    # An adapter's child loads the file again, by its path.
    which = peer.path if isinstance(peer, AdapterPeer) else peer.name
    command = [sys.executable, "-m", "dlarray", "probe", "--child", which, *extra]
    children = run_steps(command, len(cases), timeout)
    info: dict[str, Any] = dict(children.info)
    found = {
        index: Outcome(r["verdict"], r["observed"], r.get("needs"))
        for index, r in children.steps.items()
    }
    found.update({index: Outcome(DEVIATION, ending) for index, ending in children.broken.items()})
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
                "needs": outcome.needs,
            }
        )
    info["results"] = results
    info["summary"] = {v: sum(r["verdict"] == v for r in results) for v in VERDICTS}
    return info


def _skip_reason(peer: Peer) -> str | None:
    if not peer.installed():
        return f"not installed ({peer.install})"
    if "cpu" not in peer.consumes and "cpu" not in peer.make:
        kinds = ", ".join(peer.kinds)
        return f"lives on {kinds} memory; the probe's tensors are host memory"
    return None


def probe(
    names: Sequence[str] | None = None,
    case_patterns: Sequence[str] | None = None,
    table: str | None = None,
    jobs: int | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Probe every installed library (or those ``names`` lists).

    ``timeout``: seconds for each import and each case (default:
    :func:`default_timeout`).

    Returns
    -------
    dict
        JSON-ready: versions (ml_dtypes' too: None where it is missing),
        platform, the time limit, the cases, per library its version and
        results, the libraries skipped and why, the time taken.
    """
    began = time.perf_counter()
    limit = default_timeout() if timeout is None else timeout
    cases = select_cases(case_patterns)
    extra = [arg for p in case_patterns or () for arg in ("--case", p)]
    if table is not None:
        extra += ["--peer-table", table]
    adapters = [adapter_row(n) for n in names or () if is_adapter_path(n)]
    rows = [p for p in libraries(table) if names is None or p.name in names] + adapters
    skipped = {p.name: r for p in rows if (r := _skip_reason(p)) is not None}
    probed = [p for p in rows if p.name not in skipped]
    workers = max(1, min(jobs or os.cpu_count() or 2, len(probed) or 1))
    with ThreadPoolExecutor(workers) as pool:
        reports = list(pool.map(lambda p: probe_library(p, cases, extra, limit), probed))
    return {
        "dlarray_version": dlarray.__version__,
        "dlpack_version": list(dlarray.__dlpack_version__),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "ml_dtypes": installed_version("ml_dtypes"),
        "timeout_s": limit,
        "cases": [{"name": c.name, "role": c.role, "what": c.what, "spec": c.spec} for c in cases],
        "libraries": {p.name: r for p, r in zip(probed, reports, strict=True)},
        "skipped": skipped,
        "duration_s": round(time.perf_counter() - began, 1),
    }


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def summary_line(name: str, library: dict[str, Any]) -> str:
    """``torch 2.13.0: 50 ok, 6 deviations, 3 not supported`` (and ``, 12
    need a package`` where some do), or ``torch: does not import (...)``."""
    if "import_error" in library:
        return f"{name}: does not import ({library['import_error']})"
    s = library["summary"]
    line = (
        f"{name} {library['version']}: {s[OK]} ok, "
        f"{_plural(s[DEVIATION], 'deviation', 'deviations')}, {s[NOT_SUPPORTED]} not supported"
    )
    if s.get(NEEDS):
        line += f", {_plural(s[NEEDS], 'needs a package', 'need a package')}"
    return line


def wrap(text: str, indent: str = "", later: str | None = None) -> list[str]:
    """``text`` as lines of at most :data:`WIDTH` characters, broken only
    between words (a word longer than a line, a URL, stays whole)."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "    " if later is None else later,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent]


#: The sections of the text report after the summary lines.
SECTIONS = ((DEVIATION, "deviations"), (NOT_SUPPORTED, "not supported"), (NEEDS, "need a package"))


def format_report(report: dict[str, Any]) -> str:
    """The report as text: a summary line per library, then each deviation,
    each case not supported and each case that needs a package."""
    major, minor = report["dlpack_version"]
    ml_dtypes = report.get("ml_dtypes")
    with_ml_dtypes = f"ml_dtypes {ml_dtypes}" if ml_dtypes else "without ml_dtypes"
    lines = wrap(
        f"dlarray {report['dlarray_version']} probe: {len(report['cases'])} cases per library, "
        f"against DLPack {major}.{minor}, {with_ml_dtypes} ({report['duration_s']} s)"
    )
    for name, library in report["libraries"].items():
        lines += wrap(summary_line(name, library))
    for name, why in report["skipped"].items():
        lines += wrap(f"skipped {name}: {why}")
    for verdict, title in SECTIONS:
        rows = [
            (name, r)
            for name, lib in report["libraries"].items()
            for r in lib.get("results", [])
            if r["verdict"] == verdict
        ]
        if not rows:
            continue
        lines += ["", f"{title}:"]
        same = ("observed", "spec", "link") if verdict == DEVIATION else ("observed",)
        for name, cases, r in grouped(rows, same):
            lines += wrap(f"{name} {cases}: {r['observed']}", "  ", "      ")
            if verdict == DEVIATION:
                spec = f"spec: {r['spec']}" + (f"; see {r['link']}" if r["link"] else "")
                lines += wrap(spec, "      ", "        ")
    return "\n".join(lines)


def grouped(
    rows: Sequence[tuple[str, dict[str, Any]]], same: Sequence[str] = ("observed", "spec", "link")
) -> list[tuple[str, str, dict[str, Any]]]:
    """Rows of one library that say the same thing (the same values of the
    keys ``same``), as one: ``(library, "case, case", first row)``, in
    order (the dtypes one library lacks)."""
    out: list[tuple[str, list[str], dict[str, Any]]] = []
    for name, r in rows:
        last = out[-1] if out else None
        if last and last[0] == name and all(last[2][k] == r[k] for k in same):
            last[1].append(r["case"])
        else:
            out.append((name, [r["case"]], r))
    return [(name, ", ".join(cases), r) for name, cases, r in out]


def main(argv: list[str] | None = None) -> int:
    """``python -m dlarray probe``; returns the exit status (0 unless misused:
    deviations, and libraries that do not import, are findings)."""
    parser = argparse.ArgumentParser(
        prog="python -m dlarray probe",
        description="Referee every installed array library (and dlarray) against the DLPack "
        "specification, as a consumer and as a producer; each library runs in a child process. "
        "python -m dlarray (without 'probe') is the interop doctor: live exchanges with each "
        "installed library on each device kind found here.",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--library",
        action="append",
        metavar="NAME",
        help="probe only this library (repeatable); NAME may be the path of an adapter file "
        "for a library outside the table (docs/guide/test-your-dlpack.md)",
    )
    parser.add_argument(
        "--case", action="append", metavar="PATTERN", help="run only matching cases (repeatable)"
    )
    parser.add_argument("--jobs", type=int, metavar="N", help="children at once (default: CPUs)")
    parser.add_argument(
        "--timeout",
        type=seconds,
        metavar="S",
        help="seconds a library may take to import, or to answer one case, before it counts as "
        f"hanging (default: ${TIMEOUT_VARIABLE}, else {TIMEOUT_S:g})",
    )
    parser.add_argument("--peer-table", help=argparse.SUPPRESS)  # module:attribute (tests)
    parser.add_argument("--child", help=argparse.SUPPRESS)  # run one library's cases here
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        return child(library(args.child, args.peer_table), select_cases(args.case), args.start)
    try:
        timeout = default_timeout() if args.timeout is None else args.timeout
    except ValueError as exc:
        parser.error(str(exc))
    try:
        report = probe(args.library, args.case, args.peer_table, args.jobs, timeout)
    except FileNotFoundError as exc:  # an adapter path that names no file
        parser.error(str(exc))
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0
