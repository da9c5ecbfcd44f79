"""``python -m dlarray``: what this installation is and whom it can talk to.

Prints dlarray's version, the DLPack version it speaks, the Python and
platform, the devices it finds, and a live zero-copy exchange in both
directions with every installed peer library: did it work, was the memory
shared (same first-element address on both sides), which capsule kind crossed,
did the values survive, and how long one exchange takes.

Peers are rows of :data:`PEERS`; devices come from :data:`DEVICE_PROBES`.
Supporting a new library or memory kind means adding a row, not a branch.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import Any

import dlarray

VALUES = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
REPEATS = 300  # timing batches per exchange; the median batch is reported
BATCH = 10  # calls per timing batch, so timer overhead is spread thin


# ---- devices ----


def _host_devices() -> list[dlarray.Device]:
    return [dlarray.Device("cpu")]


def _cuda_devices() -> list[dlarray.Device]:
    """Each GPU, then managed and pinned memory, where a CUDA runtime works."""
    from dlarray._device import CUDA_KINDS

    devices = dlarray.__array_namespace_info__().devices()
    return [d for d in devices if d.kind in CUDA_KINDS]


#: kind -> function listing the devices of that kind (a SYCL probe goes here).
DEVICE_PROBES: dict[str, Callable[[], list[dlarray.Device]]] = {
    "cpu": _host_devices,
    "cuda": _cuda_devices,
}


def discover_devices() -> list[dlarray.Device]:
    """List the devices dlarray can use here.

    Returns
    -------
    list of Device
        One entry per device found by a probe in :data:`DEVICE_PROBES`; a
        probe that fails contributes nothing.
    """
    found: list[dlarray.Device] = []
    for probe in DEVICE_PROBES.values():
        try:
            found.extend(probe())
        except Exception:  # a broken driver means "no such device", not a crash
            continue
    return found


# ---- peers ----


@dataclass(frozen=True)
class Peer:
    """One library dlarray exchanges arrays with.

    Attributes
    ----------
    name : str
        Display name and importable module name.
    make : callable
        ``make(module, values)``: a float32 peer array holding ``values``.
    from_dlpack : callable
        ``from_dlpack(module)``: the peer's DLPack consumer function.
    pointer : callable
        ``pointer(array)``: the address of a peer array's first element.
    to_list : callable
        ``to_list(array)``: a peer array's values as a Python list.
    device : str
        The dlarray device kind the peer's arrays live on.
    must_work : bool
        A failure here is an error (exit status 1), not just a finding.
    """

    name: str
    make: Callable[[ModuleType, list[float]], Any]
    from_dlpack: Callable[[ModuleType], Callable[[Any], Any]]
    pointer: Callable[[Any], int]
    to_list: Callable[[Any], list[float]]
    device: str = "cpu"
    must_work: bool = False


def _tvm_ffi_make(tvm_ffi: ModuleType, values: list[float]) -> Any:
    # tvm_ffi has no array constructor of its own; it wraps other producers.
    import numpy

    return tvm_ffi.from_dlpack(numpy.asarray(values, dtype=numpy.float32))


def _numpy_list(array: Any) -> list[float]:
    import numpy

    return numpy.from_dlpack(array).tolist()


# One row per peer reads best as a table, so the formatter leaves it alone.
# fmt: off
PEERS: tuple[Peer, ...] = (
    Peer("numpy", lambda m, v: m.asarray(v, dtype=m.float32), lambda m: m.from_dlpack,
         lambda a: a.ctypes.data, lambda a: a.tolist(), must_work=True),
    Peer("torch", lambda m, v: m.tensor(v, dtype=m.float32), lambda m: m.from_dlpack,
         lambda t: t.data_ptr(), lambda t: t.tolist(), must_work=True),
    Peer("jax", lambda m, v: m.numpy.asarray(v, dtype="float32"), lambda m: m.numpy.from_dlpack,
         lambda a: a.unsafe_buffer_pointer(), lambda a: a.tolist(), must_work=True),
    Peer("cupy", lambda m, v: m.asarray(v, dtype="float32"), lambda m: m.from_dlpack,
         lambda a: a.data.ptr, lambda a: a.get().tolist(), device="cuda"),
    Peer("dpnp", lambda m, v: m.asarray(v, dtype="float32"), lambda m: m.from_dlpack,
         lambda a: a.__sycl_usm_array_interface__["data"][0], lambda a: a.asnumpy().tolist(),
         device="sycl"),
    Peer("tvm_ffi", _tvm_ffi_make, lambda m: m.from_dlpack,
         lambda t: t.data_ptr(), _numpy_list),
)
# fmt: on


def import_peer(peer: Peer) -> ModuleType | None:
    """Import a peer's module, or return None when it is not installed."""
    try:
        return importlib.import_module(peer.name)
    except Exception:  # ImportError, or a module that breaks while importing
        return None


# ---- one exchange ----


@dataclass
class Exchange:
    """The outcome of passing one array across, in one direction.

    ``capsule`` is the kind of capsule that crossed: the one dlarray received
    (peer -> dlarray) or the one the peer asked dlarray for (dlarray -> peer).
    ``zero_copy`` compares the first-element addresses on both sides.
    """

    peer: str
    direction: str
    ok: bool = False
    error: str | None = None
    zero_copy: bool | None = None
    capsule: str | None = None  # "versioned" or "legacy"
    values_equal: bool | None = None
    time_us: float | None = None
    must_work: bool = False


class _CapsuleSpy:
    """Stands in for a DLArray to see which capsule kind a consumer asks for."""

    def __init__(self, array: dlarray.DLArray) -> None:
        self._array = array
        self.capsule: str | None = None

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._array.__dlpack_device__()

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        capsule = self._array.__dlpack__(*args, **kwargs)
        # A capsule's repr names it: <capsule object "dltensor_versioned" at ...>.
        self.capsule = "versioned" if "dltensor_versioned" in repr(capsule) else "legacy"
        return capsule


def _address(x: dlarray.DLArray) -> int:
    return x._data + x._byte_offset


def time_per_call(call: Callable[[], Any], repeats: int = REPEATS) -> float:
    """Median time of one call, in µs, over ``repeats`` batches of :data:`BATCH` calls."""
    batches = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        for _ in range(BATCH):
            call()
        batches.append(time.perf_counter_ns() - start)
    return statistics.median(batches) / BATCH / 1000


def _dlarray_values(x: dlarray.DLArray, peer: Peer, module: ModuleType) -> list[float]:
    if x.device.kind == "cpu":
        return _numpy_list(x)
    return peer.to_list(peer.from_dlpack(module)(x))  # device memory: read it back via the peer


def _dlarray_source(peer: Peer, module: ModuleType) -> dlarray.DLArray:
    if peer.device == "cpu":
        return dlarray.asarray(VALUES, dtype="float32")
    # dlarray cannot allocate device memory yet, so it borrows the peer's.
    return dlarray.from_dlpack(peer.make(module, VALUES))


def peer_to_dlarray(peer: Peer, module: ModuleType, repeats: int) -> Exchange:
    """Import a peer array with ``dlarray.from_dlpack`` and check the result."""
    result = Exchange(peer.name, f"{peer.name} -> dlarray", must_work=peer.must_work)
    try:
        source = peer.make(module, VALUES)
        x = dlarray.from_dlpack(source)
        result.zero_copy = _address(x) == peer.pointer(source)
        result.capsule = "versioned" if x._owner.versioned else "legacy"
        result.values_equal = _dlarray_values(x, peer, module) == VALUES
        result.time_us = time_per_call(lambda: dlarray.from_dlpack(source), repeats)
        result.ok = True
    except Exception as exc:
        result.error = _describe(exc)
    return result


def dlarray_to_peer(peer: Peer, module: ModuleType, repeats: int) -> Exchange:
    """Export a DLArray with the peer's ``from_dlpack`` and check the result."""
    result = Exchange(peer.name, f"dlarray -> {peer.name}", must_work=peer.must_work)
    try:
        consume = peer.from_dlpack(module)
        x = _dlarray_source(peer, module)
        spy = _CapsuleSpy(x)
        received = consume(spy)
        result.capsule = spy.capsule
        result.zero_copy = peer.pointer(received) == _address(x)
        result.values_equal = peer.to_list(received) == VALUES
        result.time_us = time_per_call(lambda: consume(x), repeats)
        result.ok = True
    except Exception as exc:
        result.error = _describe(exc)
    return result


def _describe(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:100]}" if lines else type(exc).__name__


# ---- the report ----


def survey(repeats: int = REPEATS) -> dict[str, Any]:
    """Collect everything ``python -m dlarray`` reports.

    Parameters
    ----------
    repeats : int
        Timing batches per exchange.

    Returns
    -------
    dict
        JSON-ready: versions, platform, devices, installed and missing peers,
        and one record per exchange.
    """
    peers: dict[str, str] = {}
    missing: list[str] = []
    exchanges: list[Exchange] = []
    for peer in PEERS:
        module = import_peer(peer)
        if module is None:
            missing.append(peer.name)
            continue
        peers[peer.name] = str(getattr(module, "__version__", "unknown"))
        exchanges.append(peer_to_dlarray(peer, module, repeats))
        exchanges.append(dlarray_to_peer(peer, module, repeats))
    failed = [e for e in exchanges if e.must_work and not (e.ok and e.values_equal)]
    return {
        "dlarray_version": dlarray.__version__,
        "dlpack_version": list(dlarray.__dlpack_version__),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "devices": [f"{d.kind}:{d.index}" for d in discover_devices()],
        "peers": peers,
        "missing_peers": missing,
        "exchanges": [asdict(e) for e in exchanges],
        "ok": not failed,
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
    cells = (e["direction"], result, e["zero_copy"], e["capsule"], values, e["time_us"])
    return tuple(_cell(c) for c in cells)


def _align(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
    # Text columns align left; the last column, a number, aligns right.
    return [
        "  ".join([*map(str.ljust, row[:-1], widths), row[-1].rjust(widths[-1])]) for row in rows
    ]


def format_table(report: dict[str, Any]) -> str:
    """Render :func:`survey`'s report as aligned text."""
    major, minor = report["dlpack_version"]
    lines = [
        f"dlarray {report['dlarray_version']}, speaking DLPack {major}.{minor}",
        f"{report['python']} on {report['platform']}",
        f"devices: {', '.join(report['devices']) or 'none'}",
        "peers: " + (", ".join(f"{n} {v}" for n, v in report["peers"].items()) or "none"),
    ]
    if report["missing_peers"]:
        lines.append(f"not installed: {', '.join(report['missing_peers'])}")
    header = ("direction", "result", "zero-copy", "capsule", "values", "µs/exchange")
    rows: list[tuple[str, ...]] = [header]
    rows += [_exchange_row(e) for e in report["exchanges"]]
    lines += ["", *_align(rows), ""]
    lines += [f"{e['direction']}: {e['error']}" for e in report["exchanges"] if e["error"]]
    lines.append("all required exchanges work" if report["ok"] else "REQUIRED EXCHANGES FAILED")
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
        0 when every exchange that must work (CPU with numpy, torch, jax)
        worked, else 1.
    """
    parser = argparse.ArgumentParser(
        prog="python -m dlarray",
        description="Show dlarray's version, devices, and live DLPack exchanges with "
        "the installed peer libraries (numpy, torch, jax, cupy, dpnp, tvm_ffi).",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON document instead")
    parser.add_argument("--repeats", type=int, default=REPEATS, metavar="N", help="timing batches")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    report = survey(args.repeats)
    print(json.dumps(report, indent=2) if args.json else format_table(report))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
