"""``python -m dlarray``: what this installation is and whom it can talk to.

The interop doctor.  It prints an environment report (dlarray's version, the
DLPack version it speaks, the Python and platform, the devices found for
each memory kind or why there are none, the installed peer libraries and
their versions) and then a live matrix: for each installed peer, each
direction and each device kind found here that the peer supports, one
exchange of a small float32 array.  Each row says whether it worked,
whether the memory was shared (same first-element address on both sides),
the route it took (the C exchange table, or a versioned or legacy capsule),
whether the values survived, and how long one exchange takes.

Each peer is imported and exchanged with in a child process of its own
(``python -m dlarray --child NAME``), as the probe runs its libraries
(:func:`dlarray._probe.run_steps`): a peer that aborts, exits or hangs on
import is one line, "does not import", and one that dies or hangs in an
exchange fails that row, while the doctor goes on.  The time limit per
import and per exchange is ``--timeout``, else the environment variable
``DLARRAY_PEER_TIMEOUT``, else 60 s.

Every row is a pair that should work, so any failed row, and any installed
peer that does not import, makes the exit status 1.  ``--json`` prints the
same report as a JSON document.  ``python -m dlarray probe`` is the DLPack
referee instead (:mod:`dlarray._probe`).

Memory kinds are rows of :data:`DEVICE_PROBES` (and :data:`DEVICE_HINTS`,
what to install where a kind has no device); peers are rows of
:data:`dlarray._peers.PEERS`, or of the table ``--peer-table
module:attribute`` names (tests).  Supporting a new library or memory kind
means adding a row, not a branch.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from functools import partial
from types import ModuleType
from typing import Any

import numpy

import dlarray
from dlarray import _probe
from dlarray._cuda.runtime import runtime as cuda_runtime
from dlarray._install import install_command, pip_install
from dlarray._peers import PEERS, Peer
from dlarray._probe_cases import error_line
from dlarray._sycl import runtime as sycl_runtime

VALUES = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
HOST_VALUES = numpy.asarray(VALUES, dtype=numpy.float32)  # what each peer's array is made of
REPEATS = 300  # timing batches per exchange; the median batch is reported
BATCH = 10  # calls per timing batch, so timer overhead is spread thin


# ---- devices ----


def _listed(kind: str) -> list[dlarray.Device]:
    """The devices of ``kind`` that dlarray's namespace info lists."""
    return [d for d in dlarray.__array_namespace_info__().devices() if d.kind == kind]


def _cuda_probe(kind: str) -> list[dlarray.Device]:
    """The devices of a CUDA memory kind; raises naming what is missing."""
    cuda_runtime()  # CUDAUnavailableError names the missing package, driver or GPU
    return _listed(kind)


def _sycl_probe(kind: str) -> list[dlarray.Device]:
    """The devices of a SYCL USM kind; raises naming what is missing."""
    # Importing dpctl loads the SYCL runtime, so look before importing it.
    if importlib.util.find_spec("dpctl") is None:
        raise ModuleNotFoundError("dpctl not installed")
    if not sycl_runtime.root_devices():  # raises SYCLUnavailableError if dpctl breaks
        raise sycl_runtime.SYCLUnavailableError(sycl_runtime.no_device_reason())
    return _listed(kind)


#: memory kind -> function listing dlarray's devices of that kind, or raising
#: an exception whose message says why there are none.
DEVICE_PROBES: dict[str, Callable[[], list[dlarray.Device]]] = {
    "cpu": partial(_listed, "cpu"),
    "cuda": partial(_cuda_probe, "cuda"),
    "cuda_managed": partial(_cuda_probe, "cuda_managed"),
    "cuda_host": partial(_cuda_probe, "cuda_host"),
    "sycl": partial(_sycl_probe, "sycl"),
    "sycl_shared": partial(_sycl_probe, "sycl_shared"),
    "sycl_host": partial(_sycl_probe, "sycl_host"),
}


def _cuda_hint() -> str:
    return f"an NVIDIA GPU with its driver, and {install_command('cuda')}"


def _sycl_hint() -> str:
    return f"{pip_install('sycl-cpu')} makes an x86-64 CPU a SYCL device (docs/sycl.md)"


#: memory kind -> what gets this machine a device of that kind: what to
#: install or run, in one line (the host always has one).
DEVICE_HINTS: dict[str, Callable[[], str]] = {
    "cuda": _cuda_hint,
    "cuda_managed": _cuda_hint,
    "cuda_host": _cuda_hint,
    "sycl": _sycl_hint,
    "sycl_shared": _sycl_hint,
    "sycl_host": _sycl_hint,
}


@dataclass(frozen=True)
class KindReport:
    """What a probe found for one memory kind.

    Attributes
    ----------
    devices : list of Device
        The devices of this kind; empty when there are none.
    reason : str or None
        Why there are none (the first line of the probe's exception), or
        None when devices were found.
    """

    devices: list[dlarray.Device]
    reason: str | None = None


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def probe_kind(kind: str) -> KindReport:
    """Run the probe of one memory kind, never raising.

    Parameters
    ----------
    kind : str
        A key of :data:`DEVICE_PROBES`.

    Returns
    -------
    KindReport
        The devices found, or why there are none.
    """
    try:
        devices = DEVICE_PROBES[kind]()
    except Exception as exc:  # a broken driver means "no such device", not a crash
        return KindReport([], _first_line(exc))
    if not devices:  # the runtime works but offers no memory of this kind
        return KindReport([], f"no device offers {kind} memory")
    return KindReport(devices)


def discover_devices() -> dict[str, KindReport]:
    """Probe every memory kind of :data:`DEVICE_PROBES`.

    Returns
    -------
    dict of str to KindReport
        Memory kind -> the devices found or why there are none.
    """
    return {kind: probe_kind(kind) for kind in DEVICE_PROBES}


# ---- one exchange ----


@dataclass
class Exchange:
    """The outcome of passing one array across, in one direction, on one device.

    ``route`` is how the tensor crossed: ``"table"`` through the producer's
    C exchange table (no capsule at all), or the kind of capsule: the one
    dlarray received (peer -> dlarray) or the one the peer asked dlarray for
    (dlarray -> peer).  ``zero_copy`` compares the first-element addresses
    on both sides; ``time_ns`` is one exchange's median time, whole ns.
    """

    peer: str
    direction: str
    device: str  # "kind:index", where the exchanged memory lives
    ok: bool = False
    error: str | None = None
    zero_copy: bool | None = None
    route: str | None = None  # "table", "versioned" or "legacy"
    values_equal: bool | None = None
    time_ns: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The fields, one per fact."""
        return asdict(self)


@contextlib.contextmanager
def _watching_dlpack_calls() -> Iterator[list[str]]:
    """Record the capsule kind of every ``DLArray.__dlpack__`` call made while
    active.  A consumer that takes a DLArray and makes no such call used
    dlarray's C exchange table."""
    kinds: list[str] = []
    cls = dlarray.DLArray
    own = cls.__dict__.get("__dlpack__")
    original = cls.__dlpack__

    def watched(self: dlarray.DLArray, *args: Any, **kwargs: Any) -> Any:
        capsule = original(self, *args, **kwargs)
        # A capsule's repr names it: <capsule object "dltensor_versioned" at ...>.
        kinds.append("versioned" if "dltensor_versioned" in repr(capsule) else "legacy")
        return capsule

    cls.__dlpack__ = watched  # type: ignore[method-assign,assignment]
    try:
        yield kinds
    finally:
        if own is None:
            del cls.__dlpack__
        else:
            cls.__dlpack__ = own  # type: ignore[method-assign]


def _address(x: dlarray.DLArray) -> int:
    return x._data + x._byte_offset


def _name(device: dlarray.Device) -> str:
    return f"{device.kind}:{device.index}"


def time_per_call(call: Callable[[], Any], repeats: int = REPEATS) -> int:
    """Time one call.

    Parameters
    ----------
    call : callable
        Called with no arguments ``repeats * BATCH`` times.
    repeats : int
        Timing batches of :data:`BATCH` calls.

    Returns
    -------
    int
        The median batch's time divided by :data:`BATCH`, in whole ns (the
        timer's resolution and the run-to-run noise make fractions
        meaningless).
    """
    batches = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        for _ in range(BATCH):
            call()
        batches.append(time.perf_counter_ns() - start)
    return round(statistics.median(batches) / BATCH)


#: The two ways of an exchange: the peer's array imported by dlarray, and
#: dlarray's array imported by the peer.
TO_DLARRAY, TO_PEER = "to dlarray", "to peer"


def _direction(peer: Peer, way: str) -> str:
    return f"{peer.name} -> dlarray" if way == TO_DLARRAY else f"dlarray -> {peer.name}"


def planned(peer: Peer, kinds: Collection[str]) -> list[tuple[str, str]]:
    """The exchanges to try with ``peer`` where ``kinds`` have devices.

    Returns
    -------
    list of (str, str)
        ``(kind, way)`` per supported kind found: :data:`TO_DLARRAY` where
        the peer can make an array of that kind, then :data:`TO_PEER` where
        its ``from_dlpack`` accepts one.  Empty when no supported kind is here.
    """
    rows = []
    for kind in peer.kinds:
        if kind not in kinds:
            continue
        if kind in peer.make:
            rows.append((kind, TO_DLARRAY))
        if kind in peer.consumes:
            rows.append((kind, TO_PEER))
    return rows


def peer_to_dlarray(
    peer: Peer, module: ModuleType, device: dlarray.Device, repeats: int
) -> Exchange:
    """Import a peer array made on ``device`` with ``dlarray.from_dlpack``.

    Parameters
    ----------
    peer : Peer
        The producer; ``peer.make[device.kind]`` makes its array.
    module : module
        The peer's imported module.
    device : Device
        Where the peer's array lives.
    repeats : int
        Timing batches.

    Returns
    -------
    Exchange
        The outcome; a failure is recorded in ``error``, never raised.
    """
    result = Exchange(peer.name, _direction(peer, TO_DLARRAY), _name(device))
    try:
        source = peer.make[device.kind](module, HOST_VALUES, device)
        x = dlarray.from_dlpack(source)
        result.zero_copy = _address(x) == peer.pointer(source)
        if x._owner.via_table:
            result.route = "table"
        else:
            result.route = "versioned" if x._owner.versioned else "legacy"
        result.values_equal = numpy.from_dlpack(x.to_device("cpu")).tolist() == VALUES
        result.time_ns = time_per_call(lambda: dlarray.from_dlpack(source), repeats)
        result.ok = True
    except Exception as exc:
        result.error = error_line(exc)
    return result


def dlarray_to_peer(
    peer: Peer, module: ModuleType, device: dlarray.Device, repeats: int
) -> Exchange:
    """Export a DLArray allocated on ``device`` with the peer's ``from_dlpack``.

    Parameters
    ----------
    peer : Peer
        The consumer.
    module : module
        The peer's imported module.
    device : Device
        Where dlarray allocates the array it exports.
    repeats : int
        Timing batches.

    Returns
    -------
    Exchange
        The outcome; a failure is recorded in ``error``, never raised.
    """
    result = Exchange(peer.name, _direction(peer, TO_PEER), _name(device))
    try:
        consume = peer.from_dlpack(module)
        x = dlarray.asarray(VALUES, dtype="float32", device=device)
        with _watching_dlpack_calls() as capsules:
            received = consume(x)
        result.route = capsules[-1] if capsules else "table"
        result.zero_copy = peer.pointer(received) == _address(x)
        result.values_equal = peer.to_numpy(received).tolist() == VALUES
        result.time_ns = time_per_call(lambda: consume(x), repeats)
        result.ok = True
    except Exception as exc:
        result.error = error_line(exc)
    return result


def exchanges_with(
    peer: Peer,
    module: ModuleType,
    devices: Mapping[str, dlarray.Device],
    repeats: int,
    start: int = 0,
) -> Iterator[Exchange]:
    """The exchanges :func:`planned` lists, from the ``start``-th on.

    Parameters
    ----------
    peer : Peer
        An installed peer.
    module : module
        Its imported module.
    devices : mapping of str to Device
        Memory kind -> the device to try it on.
    repeats : int
        Timing batches per exchange.
    start : int
        How many of the planned exchanges to leave out (a child that
        carries on after one that died).

    Yields
    ------
    Exchange
        Each outcome as soon as it is known.
    """
    for kind, way in planned(peer, devices)[start:]:
        exchange = peer_to_dlarray if way == TO_DLARRAY else dlarray_to_peer
        yield exchange(peer, module, devices[kind], repeats)


def _doctor_child(
    peer: Peer, devices: Mapping[str, dlarray.Device], repeats: int, start: int
) -> int:
    """In a child process: import ``peer`` and report each exchange."""
    module = _probe.import_in_child(peer)
    if module is None:
        return 0
    for index, exchange in enumerate(exchanges_with(peer, module, devices, repeats, start), start):
        _probe.say({"index": index, "exchange": exchange.as_json()})
    return 0


# ---- the report ----


def _peer_table(table: str | None) -> tuple[Peer, ...]:
    """:data:`dlarray._peers.PEERS`, or the rows ``module:attribute`` names."""
    return PEERS if table is None else _probe.libraries(table)


@dataclass
class _Peers:
    """What the survey learned about the peers of the table."""

    versions: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    not_importing: dict[str, str] = field(default_factory=dict)
    without_device: dict[str, list[str]] = field(default_factory=dict)
    exchanges: list[Exchange] = field(default_factory=list)


def _survey_peer(
    peer: Peer,
    devices: Mapping[str, dlarray.Device],
    repeats: int,
    table: str | None,
    timeout: float,
    found: _Peers,
) -> None:
    """Run one installed peer's exchanges in child processes, into ``found``."""
    plan = planned(peer, devices)
    command = [sys.executable, "-m", "dlarray", "--child", peer.name, "--repeats", str(repeats)]
    kinds = dict.fromkeys(kind for kind, _ in plan)
    command += [arg for kind in kinds for arg in ("--device", _name(devices[kind]))]
    if table is not None:
        command += ["--peer-table", table]
    children = _probe.run_steps(command, len(plan), timeout)
    if "import_error" in children.info:
        found.not_importing[peer.name] = children.info["import_error"]
        return
    found.versions[peer.name] = children.info["version"]
    if not plan:
        found.without_device[peer.name] = list(peer.kinds)
    for index, (kind, way) in enumerate(plan):
        record = children.steps.get(index)
        if record is not None:
            found.exchanges.append(Exchange(**record["exchange"]))
        else:  # the child died or hung during this exchange
            error = children.broken.get(index, "not run")
            found.exchanges.append(
                Exchange(peer.name, _direction(peer, way), _name(devices[kind]), error=error)
            )


def survey(
    repeats: int = REPEATS, table: str | None = None, timeout: float | None = None
) -> dict[str, Any]:
    """Collect everything ``python -m dlarray`` reports.

    Parameters
    ----------
    repeats : int
        Timing batches per exchange.
    table : str, optional
        ``module:attribute`` of a table of peers to use instead of
        :data:`dlarray._peers.PEERS` (tests).
    timeout : float, optional
        Seconds each peer may take to import, and to finish each exchange
        (default: :func:`dlarray._probe.default_timeout`).

    Returns
    -------
    dict
        JSON-ready: versions, platform, ``devices`` (memory kind ->
        ``{"devices": [...], "reason": str or None}``), ``device_hints``
        (memory kind without devices -> what would give it one), installed
        peers with their versions, installed peers that do not import (->
        how the import failed), peers not installed, installed peers with
        no supported device here (with the kinds they support), one record
        per exchange, and ``ok``: whether every installed peer imported and
        every exchange worked with equal values.
    """
    limit = _probe.default_timeout() if timeout is None else timeout
    kinds = discover_devices()
    # Only the first device of each kind is tried: the exchange code is the
    # same for every index, and trying each GPU would multiply the run time.
    first = {kind: found.devices[0] for kind, found in kinds.items() if found.devices}
    peers = _Peers()
    # One peer at a time: the times of exchanges run side by side would
    # measure the machine's load.
    for peer in _peer_table(table):
        if peer.installed():
            _survey_peer(peer, first, repeats, table, limit, peers)
        else:
            peers.missing.append(peer.name)
    failed = [e for e in peers.exchanges if not (e.ok and e.values_equal)]
    return {
        "dlarray_version": dlarray.__version__,
        "dlpack_version": list(dlarray.__dlpack_version__),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "devices": {
            kind: {"devices": [_name(d) for d in found.devices], "reason": found.reason}
            for kind, found in kinds.items()
        },
        "device_hints": {
            kind: DEVICE_HINTS[kind]()
            for kind, found in kinds.items()
            if not found.devices and kind in DEVICE_HINTS
        },
        "peers": peers.versions,
        "peers_not_importing": peers.not_importing,
        "missing_peers": peers.missing,
        "peers_without_device": peers.without_device,
        "exchanges": [e.as_json() for e in peers.exchanges],
        "timeout_s": limit,
        "ok": not failed and not peers.not_importing,
    }


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _exchange_row(e: dict[str, Any]) -> tuple[str, ...]:
    values = {None: None, True: "equal", False: "DIFFER"}[e["values_equal"]]
    result = "ok" if e["ok"] else "FAILED"
    cells = (e["direction"], e["device"], result, e["zero_copy"], e["route"], values)
    return tuple(_cell(c) for c in (*cells, e["time_ns"]))


def _align(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
    # Text columns align left; the last column, a number, aligns right.
    return [
        "  ".join([*map(str.ljust, row[:-1], widths), row[-1].rjust(widths[-1])]) for row in rows
    ]


def _short(reason: str) -> str:
    """A reason as the text report shows it: its first clause, without
    asides in parentheses (the JSON report keeps it whole)."""
    clause = reason.split("; ")[0]
    while True:
        shorter = re.sub(r"\s*\([^()]*\)", "", clause)
        if shorter == clause:
            return clause.strip()
        clause = shorter


def _device_lines(devices: dict[str, dict[str, Any]], hints: dict[str, str]) -> list[str]:
    # Kinds that say the same thing share a line: the three CUDA kinds
    # usually have one reason, and so do the three SYCL kinds.
    groups: dict[tuple[str, str | None], list[str]] = {}
    for kind, found in devices.items():
        said = ", ".join(found["devices"]) or f"none ({_short(found['reason'])})"
        groups.setdefault((said, hints.get(kind)), []).append(kind)
    lines = []
    for (said, hint), kinds in groups.items():
        lines += _probe.wrap(f"  {', '.join(kinds)}: {said}", later="      ")
        if hint is not None:
            lines += _probe.wrap(f"to get them: {hint}", "      ", "        ")
    return lines


def _environment_lines(report: dict[str, Any]) -> list[str]:
    major, minor = report["dlpack_version"]
    lines = [
        f"dlarray {report['dlarray_version']}, speaking DLPack {major}.{minor}",
        f"{report['python']} on {report['platform']}",
        "devices per kind:",
        *_device_lines(report["devices"], report["device_hints"]),
        *_probe.wrap(
            "peers: " + (", ".join(f"{n} {v}" for n, v in report["peers"].items()) or "none")
        ),
    ]
    for name, why in report["peers_not_importing"].items():
        lines += _probe.wrap(f"{name}: does not import ({why})")
    if report["missing_peers"]:
        lines += _probe.wrap(f"not installed: {', '.join(report['missing_peers'])}")
    for name, kinds in report["peers_without_device"].items():
        lines.append(f"{name}: no supported device here (it supports {', '.join(kinds)})")
    return lines


#: The exchange table's columns, and the legend printed under it.
HEADER = ("direction", "device", "result", "zero-copy", "route", "values", "ns/exchange")
LEGEND = (
    "route: table = the producer's C exchange table, no capsule; versioned = a",
    '  "dltensor_versioned" capsule (DLPack >= 1.0, with flags); legacy = a "dltensor"',
    "  capsule (before 1.0, no flags).  zero-copy: both sides see the same first-element",
    "  address.  ns/exchange: the median of batches of 10 calls.",
)
#: The last line of the text report: where to go next.
PROBE_POINTER = (
    "which of these libraries follow the DLPack specification, case by case: "
    "python -m dlarray probe"
)


def format_table(report: dict[str, Any]) -> str:
    """Render :func:`survey`'s report as text.

    Parameters
    ----------
    report : dict
        What :func:`survey` returned.

    Returns
    -------
    str
        The environment report, the aligned exchange table and its legend,
        the error of each failed exchange, a verdict line, and the pointer
        to the probe.
    """
    exchanges = report["exchanges"]
    rows = [HEADER, *map(_exchange_row, exchanges)]
    lines = [*_environment_lines(report), "", *_align(rows), "", *LEGEND, ""]
    for e in exchanges:
        if e["error"]:
            lines += _probe.wrap(f"{e['direction']} on {e['device']}: {e['error']}")
    failed = sum(not (e["ok"] and e["values_equal"]) for e in exchanges)
    verdict = (
        f"all {len(exchanges)} exchanges work"
        if not failed
        else f"{failed} of {len(exchanges)} exchanges FAILED"
    )
    broken = len(report["peers_not_importing"])
    if broken:
        verdict += f"; {broken} installed {'peer does' if broken == 1 else 'peers do'} not import"
    lines += [verdict, "", *_probe.wrap(PROBE_POINTER)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the survey, print it, and return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        0 when every installed peer imported and every exchange tried (each
        installed peer, direction and supported device kind found here)
        worked with equal values, else 1; ``probe``'s status after ``probe``.
    """
    parser = argparse.ArgumentParser(
        prog="python -m dlarray",
        usage="python -m dlarray [-h] [--json] [--repeats N] [--timeout S]\n"
        "       python -m dlarray probe [-h] [--json] [--library NAME] [--case PATTERN] ...",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description="The interop doctor: dlarray's version, its devices per memory kind (and "
        "what to install where there are none), and live DLPack exchanges with the installed "
        f"peer libraries ({', '.join(p.name for p in PEERS)}) on each device kind they "
        "support, each peer in a child process; exit status 1 if an exchange fails or an "
        "installed peer does not import.",
        epilog="python -m dlarray probe: the DLPack referee. It runs every case of the "
        "specification against each installed library and dlarray, as consumer and producer, "
        "and reports each deviation (python -m dlarray probe --help).",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the report as a JSON document instead"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=REPEATS,
        metavar="N",
        help=f"timing batches of {BATCH} calls per exchange; fewer is faster and rougher",
    )
    parser.add_argument(
        "--timeout",
        type=_probe.seconds,
        default=argparse.SUPPRESS,  # not given: the environment, else the default
        metavar="S",
        help="seconds a peer may take to import, or to finish one exchange, before it counts "
        f"as hanging (default: ${_probe.TIMEOUT_VARIABLE}, else {_probe.TIMEOUT_S:g})",
    )
    parser.add_argument("--peer-table", help=argparse.SUPPRESS)  # module:attribute (tests)
    parser.add_argument("--child", help=argparse.SUPPRESS)  # one peer's exchanges, here
    parser.add_argument("--device", action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["probe"]:  # the DLPack referee: dlarray/_probe.py
        return _probe.main(argv[1:])
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.child is not None:
        (peer,) = [p for p in _peer_table(args.peer_table) if p.name == args.child]
        devices = {}
        for said in args.device:
            kind, _, index = said.partition(":")
            devices[kind] = dlarray.Device(kind, int(index))
        return _doctor_child(peer, devices, args.repeats, args.start)
    try:
        timeout = getattr(args, "timeout", None) or _probe.default_timeout()
    except ValueError as exc:
        parser.error(str(exc))
    # JAX would take 75% of the GPU's memory on its first exchange there: a
    # survey needs a few kilobytes, and may run beside the user's own work.
    # Set here, the children inherit it.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    report = survey(args.repeats, args.peer_table, timeout)
    print(json.dumps(report, indent=2) if args.json else format_table(report))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
