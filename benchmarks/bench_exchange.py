"""How fast dlarray exchanges arrays through DLPack, next to NumPy doing the same.

Every row pairs one operation on the dlarray side with the same operation done
by NumPy alone (or with a NumPy array), so the ratio answers "what does going
through dlarray cost compared with NumPy?":

- *import a numpy array*: ``dlarray.from_dlpack(numpy_array)`` against
  ``numpy.from_dlpack(numpy_array)``;
- *import own array*: ``dlarray.from_dlpack(dlarray_array)`` against
  ``numpy.from_dlpack(numpy_array)``;
- *export versioned capsule*: ``x.__dlpack__(max_version=(1, 3))`` on a
  dlarray array against the same call on a NumPy array;
- *numpy imports*: ``numpy.from_dlpack(dlarray_array)`` against
  ``numpy.from_dlpack(numpy_array)``;
- *import a torch tensor*: ``dlarray.from_dlpack(torch_tensor)`` against
  ``numpy.from_dlpack(torch_tensor)``;
- *torch imports*: ``torch.from_dlpack(dlarray_array)`` against
  ``torch.from_dlpack(numpy_array)``

(the torch rows only when torch is installed, and a last one against
``tvm_ffi.from_dlpack(torch_tensor)`` when tvm-ffi is), each for a 1-element and a
1M-element float32 array.  An exchange shares memory, so both sizes should
cost the same; a difference would reveal a copy.

Method, as :mod:`timeit` does it but interleaved:

1. Calibrate: for each case find a batch size N, a power of two, so that N
   calls take at least the target batch time.
2. Measure: R rounds; each round times one batch of every case in turn
   (round-robin), so drift in the machine (frequency, other load) touches all
   cases alike instead of whichever happened to run during it.
3. Report: per case, the median over the R rounds of (batch time / N), in ns.

Each call is a statement compiled inline in the timing loop, as
:mod:`timeit` does it, so it costs what it costs where a user writes it;
the loop's own small cost is the same on both sides.  (Until issue 32 the
calls were ``functools.partial`` objects, whose keyword dict added about
60 ns to both sides of the export row: half of what the export costs.)
The garbage collector is off while timing, as in :mod:`timeit`.

Usage::

    python benchmarks/bench_exchange.py [--quick] [--output PATH]
"""

from __future__ import annotations

import json
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy
from _harness import Case, calibrate, measure, optional_module, parse_args, statement_case

import dlarray

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "exchange.json"
SIZES = {"1": 1, "1M": 1_000_000}
# (rounds, target seconds per batch): a full run takes ~10 s, --quick ~1.5 s.
FULL = (101, 2e-3)
QUICK = (15, 2e-4)


@dataclass
class Row:
    """A dlarray-side case and its baseline, for one array size: NumPy's,
    or tvm-ffi's for the issue-32 torch row (``peer`` names it)."""

    name: str
    size: str
    subject: Case
    baseline: Case
    peer: str = "numpy"


def _progress(message: str) -> None:
    print(f"[bench_exchange] {message}", file=sys.stderr, flush=True)


def build_rows(size: str, torch: Any | None, tvm_ffi: Any | None = None) -> list[Row]:
    """The rows for arrays of ``SIZES[size]`` float32 elements."""
    names: dict[str, Any] = {
        "dlarray": dlarray,
        "numpy": numpy,
        "v": dlarray.__dlpack_version__,
        "a": numpy.arange(SIZES[size], dtype=numpy.float32),  # the NumPy array
        # A dlarray array in memory dlarray allocated itself (asarray of a
        # NumPy array would keep NumPy's memory behind an import).
        "x": dlarray.zeros(SIZES[size], dtype=dlarray.float32),
    }

    def row(name: str, subject: str, baseline: str, peer: str = "numpy") -> Row:
        return Row(
            name,
            size,
            statement_case(subject, subject, names),
            statement_case(baseline, baseline, names),
            peer,
        )

    rows = [
        row("import a numpy array", "dlarray.from_dlpack(a)", "numpy.from_dlpack(a)"),
        row("import own array", "dlarray.from_dlpack(x)", "numpy.from_dlpack(a)"),
        row(
            "export versioned capsule", "x.__dlpack__(max_version=v)", "a.__dlpack__(max_version=v)"
        ),
        row("numpy imports", "numpy.from_dlpack(x)", "numpy.from_dlpack(a)"),
    ]
    if torch is not None:
        names.update(torch=torch, tvm_ffi=tvm_ffi, t=torch.from_numpy(names["a"].copy()))
        rows += [
            row("import a torch tensor", "dlarray.from_dlpack(t)", "numpy.from_dlpack(t)"),
            row("torch imports", "torch.from_dlpack(x)", "torch.from_dlpack(a)"),
        ]
        if tvm_ffi is not None:
            # The issue-32 target: dlarray's import of a torch tensor against
            # tvm-ffi's, the fastest peer's (both use torch's C table).
            rows.append(
                row(
                    "import a torch tensor (vs tvm-ffi)",
                    "dlarray.from_dlpack(t)",
                    "tvm_ffi.from_dlpack(t)",
                    "tvm_ffi",
                )
            )
    return rows


def run(quick: bool) -> list[Row]:
    """Build, calibrate and measure every row; see the module docstring."""
    rounds, target_s = QUICK if quick else FULL
    torch = optional_module("torch")
    tvm_ffi = optional_module("tvm_ffi")
    rows = [row for size in SIZES for row in build_rows(size, torch, tvm_ffi)]
    cases = [case for row in rows for case in (row.subject, row.baseline)]
    _progress(f"{len(cases)} cases{'' if torch else ' (torch not installed)'}; calibrating")
    for case in cases:
        calibrate(case, target_s)
    _progress(f"measuring {rounds} rounds, batches of >= {target_s * 1e3:g} ms")
    measure(cases, rounds, _progress)
    return rows


def format_table(rows: list[Row]) -> str:
    """ns per call for both sides of every row, and their ratio."""
    table = [("size", "exchange", "dlarray side", "ns", "peer side", "ns", "ratio")]
    for r in rows:
        ratio = r.subject.median_ns / r.baseline.median_ns
        table.append(
            (
                r.size,
                r.name,
                r.subject.label,
                f"{r.subject.median_ns:.0f}",
                r.baseline.label,
                f"{r.baseline.median_ns:.0f}",
                f"dlarray/{r.peer} = {ratio:.2f}x",
            )
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    numeric = {3, 5}  # the ns columns align right
    return "\n".join(
        "  ".join(
            c.rjust(w) if i in numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in table
    )


def to_json(rows: list[Row], quick: bool) -> dict[str, Any]:
    """The results and the conditions they were taken under."""
    rounds, target_s = QUICK if quick else FULL
    torch = optional_module("torch")

    def case(c: Case) -> dict[str, Any]:
        return {
            "call": c.label,
            "ns_per_call": c.median_ns,
            "batch": c.batch,
            "min_ns": min(c.per_call_ns),
            "max_ns": max(c.per_call_ns),
        }

    return {
        "benchmark": "exchange",
        "method": {
            "rounds": rounds,
            "target_batch_s": target_s,
            "statistic": "median",
            "interleaved": True,
            "quick": quick,
        },
        "versions": {
            "dlarray": dlarray.__version__,
            "numpy": numpy.__version__,
            "torch": getattr(torch, "__version__", None),
            "python": platform.python_version(),
        },
        "platform": platform.platform(),
        "rows": [
            {
                "exchange": r.name,
                "size": r.size,
                "dlarray_side": case(r.subject),
                "numpy_side": case(r.baseline),  # (the peer's side: the key is older)
                "peer": r.peer,
                "ratio": r.subject.median_ns / r.baseline.median_ns,
            }
            for r in rows
        ],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table and write the JSON results.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status, 0.
    """
    args = parse_args(__doc__, DEFAULT_OUTPUT, argv)
    rows = run(args.quick)
    print(format_table(rows))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(to_json(rows, args.quick), indent=2) + "\n")
    _progress(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
