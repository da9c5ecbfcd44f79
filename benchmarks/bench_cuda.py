"""How fast dlarray imports CUDA tensors and copies GPU memory to the host, next to CuPy and torch.

Two kinds of rows, run only on a machine with an NVIDIA GPU, CuPy and a
CUDA build of PyTorch:

- *import latency*: ``dlarray.from_dlpack(t)`` of a PyTorch CUDA tensor,
  against ``cupy.from_dlpack(t)`` and ``torch.from_dlpack(t)`` (PyTorch
  consuming its own tensor), for a 1-element and a 64M-element (256 MiB)
  float32 tensor.  An import shares memory, so both sizes should cost the
  same; a difference would reveal a copy or a synchronisation.  dlarray is
  timed twice: before CuPy is imported (its work stream is then the legacy
  default stream, and the C fast path asks the producer with no stream), and
  after (it then asks CuPy for its current stream on every import).
- *1 GiB device-to-host bandwidth*: ``x.to_device("cpu")`` of a 1 GiB
  dlarray CUDA array, against ``cupy.asnumpy`` of the same memory (both
  into new pageable host memory); and ``x.to_device("cuda_host")`` against
  CuPy's ``get(out=...)`` into a pinned buffer.  ``to_device`` allocates its
  pinned result with ``cudaMallocHost`` on every call, which is part of
  what it costs, while the CuPy buffer is allocated once beforehand: that
  row compares a complete call with a bare copy.

Method.  Latency as in bench_exchange.py: calibrate a batch size per case
(a power of two whose batch takes the target time), then time R rounds,
each one batch of every case in turn (interleaved), and report the median of
(batch time / N).  Bandwidth: after one untimed call each, R rounds of one
call of every case in turn; the best round gives GB/s (10^9 bytes/s).
Ratios are dlarray's time over the other's (latency) and dlarray's
bandwidth over CuPy's (bandwidth): 1.00x is parity.

Without a GPU, or without CuPy or a CUDA build of PyTorch, the script prints
one line saying what is missing and exits 0.

Usage::

    python benchmarks/bench_cuda.py [--quick] [--output PATH]
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import platform
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy
from _harness import Case, calibrate, parse_args
from _harness import measure as harness_measure

import dlarray

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "cuda.json"
SIZES = {"1": 1, "64M": 64 * 1024 * 1024}
GIB = 1 << 30
# Latency: (rounds, target seconds per batch); bandwidth: rounds.
FULL = (101, 2e-3, 7)
QUICK = (15, 2e-4, 3)


@dataclass
class Row:
    """dlarray's case and the peers' cases of one operation."""

    name: str
    subject: Case
    peers: list[Case]


def _progress(message: str) -> None:
    print(f"[bench_cuda] {message}", file=sys.stderr, flush=True)


class Missing(Exception):
    """The machine lacks something the benchmark needs (the message says what)."""


def missing() -> str | None:
    """What this machine lacks for the benchmark, or None.  CuPy is looked
    for but not imported: dlarray's imports are timed without it first."""
    from dlarray._cuda.runtime import CUDAUnavailableError, runtime

    try:
        runtime()
    except CUDAUnavailableError as exc:
        return f"no usable CUDA GPU: {exc}"
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        return "torch is not installed; the CUDA benchmark compares dlarray with it"
    if not torch.cuda.is_available():
        return f"torch {torch.__version__} is installed but sees no CUDA GPU"
    if importlib.util.find_spec("cupy") is None:
        return "CuPy is not installed; the CUDA benchmark compares dlarray with it"
    return None


def _import_cupy() -> Any:
    cupy = importlib.import_module("cupy")
    if not cupy.is_available():
        raise Missing(f"CuPy {cupy.__version__} is installed but sees no CUDA GPU")
    return cupy


def latency_rows(torch: Any, cupy: Any | None) -> list[Row]:
    """dlarray and its peers importing the same PyTorch CUDA tensor; CuPy is
    a peer once imported (``cupy`` not None)."""
    when = "CuPy not imported" if cupy is None else "CuPy imported"
    rows = []
    for size, n in SIZES.items():
        t = torch.arange(n, dtype=torch.float32, device="cuda")
        peers = [] if cupy is None else [Case("cupy.from_dlpack(t)", partial(cupy.from_dlpack, t))]
        peers.append(Case("torch.from_dlpack(t)", partial(torch.from_dlpack, t)))
        rows.append(
            Row(
                f"torch tensor, {size} float32, {when}",
                Case("dlarray.from_dlpack(t)", partial(dlarray.from_dlpack, t)),
                peers,
            )
        )
    torch.cuda.synchronize()
    return rows


def bandwidth_rows(cupy: Any) -> list[Row]:
    """1 GiB copied from the GPU into pageable and into pinned host memory."""
    import cupyx

    x = dlarray.zeros(GIB // 4, dtype=dlarray.float32, device="cuda")
    c = cupy.from_dlpack(x)  # the very same memory
    pinned = cupyx.empty_pinned(c.shape, c.dtype)
    return [
        Row(
            "1 GiB GPU -> pageable host",
            Case('x.to_device("cpu")', partial(x.to_device, "cpu")),
            [Case("cupy.asnumpy(c)", partial(cupy.asnumpy, c))],
        ),
        Row(
            "1 GiB GPU -> pinned host",
            Case('x.to_device("cuda_host") (allocates)', partial(x.to_device, "cuda_host")),
            [Case("c.get(out=pinned) (preallocated)", partial(c.get, out=pinned))],
        ),
    ]


def measure(cases: list[Case], rounds: int, what: str) -> None:
    """The harness's round-robin measurement, its progress lines labelled ``what``."""
    harness_measure(cases, rounds, lambda line: _progress(f"{what}: {line}"))


def _cases(rows: list[Row]) -> list[Case]:
    return [case for row in rows for case in (row.subject, *row.peers)]


def time_latency(rows: list[Row], quick: bool, what: str) -> None:
    """Calibrate and measure the cases of latency ``rows``."""
    rounds, target_s, _ = QUICK if quick else FULL
    _progress(f"{what}: calibrating {len(_cases(rows))} cases")
    for case in _cases(rows):
        calibrate(case, target_s)
    measure(_cases(rows), rounds, what)


def run(quick: bool) -> tuple[list[Row], list[Row]]:
    """Build and measure both tables; see the module docstring."""
    import torch

    if "cupy" in sys.modules:
        raise RuntimeError("CuPy was imported before the benchmark's first phase")
    latency = latency_rows(torch, None)
    time_latency(latency, quick, "latency without CuPy")
    cupy = _import_cupy()
    with_cupy = latency_rows(torch, cupy)
    time_latency(with_cupy, quick, "latency with CuPy")

    copies = (QUICK if quick else FULL)[2]
    bandwidth = bandwidth_rows(cupy)
    _progress(f"bandwidth: one warm-up call each, then {copies} rounds")
    for case in _cases(bandwidth):
        case.call()  # first touch, CuPy's kernels and pools
    measure(_cases(bandwidth), copies, "bandwidth")
    return latency + with_cupy, bandwidth


def gb_per_s(case: Case) -> float:
    """The best round's bandwidth, in 10^9 bytes per second."""
    return GIB / case.best_ns


def _table(lines: list[tuple[str, ...]], numeric: set[int]) -> str:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join(
        "  ".join(
            c.rjust(w) if i in numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in lines
    )


def format_tables(latency: list[Row], bandwidth: list[Row]) -> str:
    """Median ns per import with ratios, then best GB/s per copy with ratios."""
    lines = [("import", "call", "ns", "ratio")]
    for row in latency:
        lines.append((row.name, row.subject.label, f"{row.subject.median_ns:.0f}", ""))
        for peer in row.peers:
            ratio = row.subject.median_ns / peer.median_ns
            lib = peer.label.split(".")[0]
            lines.append(("", peer.label, f"{peer.median_ns:.0f}", f"dlarray/{lib} = {ratio:.2f}x"))
    copies = [("copy", "call", "GB/s", "ratio")]
    for row in bandwidth:
        copies.append((row.name, row.subject.label, f"{gb_per_s(row.subject):.2f}", ""))
        for peer in row.peers:
            ratio = gb_per_s(row.subject) / gb_per_s(peer)
            copies.append(("", peer.label, f"{gb_per_s(peer):.2f}", f"dlarray/cupy = {ratio:.2f}x"))
    return _table(lines, {2}) + "\n\n" + _table(copies, {2})


def to_json(latency: list[Row], bandwidth: list[Row], quick: bool) -> dict[str, Any]:
    """The results and the conditions they were taken under."""
    import cupy
    import torch

    rounds, target_s, copies = QUICK if quick else FULL

    def case(c: Case) -> dict[str, Any]:
        return {
            "call": c.label,
            "ns_per_call": c.median_ns,
            "batch": c.batch,
            "min_ns": c.best_ns,
            "max_ns": max(c.per_call_ns),
        }

    return {
        "benchmark": "cuda",
        "method": {
            "latency": {"rounds": rounds, "target_batch_s": target_s, "statistic": "median"},
            "bandwidth": {"rounds": copies, "bytes": GIB, "statistic": "best"},
            "interleaved": True,
            "quick": quick,
        },
        "versions": {
            "dlarray": dlarray.__version__,
            "numpy": numpy.__version__,
            "torch": torch.__version__,
            "cupy": cupy.__version__,
            "python": platform.python_version(),
        },
        "gpu": torch.cuda.get_device_name(0),
        "platform": platform.platform(),
        "latency": [
            {
                "import": r.name,
                "dlarray": case(r.subject),
                "peers": [{**case(p), "ratio": r.subject.median_ns / p.median_ns} for p in r.peers],
            }
            for r in latency
        ],
        "bandwidth": [
            {
                "copy": r.name,
                "dlarray": {**case(r.subject), "gb_per_s": gb_per_s(r.subject)},
                "peers": [
                    {
                        **case(p),
                        "gb_per_s": gb_per_s(p),
                        "ratio": gb_per_s(r.subject) / gb_per_s(p),
                    }
                    for p in r.peers
                ],
            }
            for r in bandwidth
        ],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the tables and write the JSON results.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status, 0 (also when the machine lacks what the benchmark needs).
    """
    args = parse_args(__doc__, DEFAULT_OUTPUT, argv)
    why = missing()
    if why is None:
        try:
            latency, bandwidth = run(args.quick)
        except Missing as exc:
            why = str(exc)
    if why is not None:
        print(f"bench_cuda: skipped: {why}")
        return 0
    print(format_tables(latency, bandwidth))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(to_json(latency, bandwidth, args.quick), indent=2) + "\n")
    _progress(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
