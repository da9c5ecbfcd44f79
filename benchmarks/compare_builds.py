"""Two builds of dlarray side by side: did a change make the namespace slower?

    python benchmarks/compare_builds.py --before /tmp/old-checkout --after . [--rounds 3] [--quick]

Each build is a source tree with its C core built in place
(``python setup.py build_ext --inplace``).  The script runs
``bench_namespace.py`` (this checkout's copy, for both) in a fresh process
per build, alternating ``before, after, before, after, ...`` for
``--rounds`` rounds, so that drift in the machine touches both alike.
Within one process every row is a ratio to NumPy's own time for the same
operation, so the ratios of the two builds compare even where the
machine's speed moved between processes.

For each row it prints the median ``dl/np`` ratio of each build over the
rounds and the change.  A row *regresses* when the after build's ratio is
more than ``--tolerance`` (5%) above the before build's; the last line
names those rows.  The exit status is 0 either way: a regression is a
result to read, and a loaded machine moves small rows by several percent.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent / "bench_namespace.py"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, required=True, help="the old source tree")
    parser.add_argument("--after", type=Path, default=Path("."), help="the new source tree")
    parser.add_argument("--rounds", type=int, default=3, help="runs per build (default 3)")
    parser.add_argument("--quick", action="store_true", help="bench_namespace.py --quick")
    parser.add_argument(
        "--tolerance", type=float, default=0.05, help="allowed growth of a ratio (default 0.05)"
    )
    parser.add_argument("--output", type=Path, help="write the comparison as JSON here")
    return parser.parse_args(argv)


def _run(tree: Path, quick: bool) -> dict[str, float]:
    """One bench_namespace.py run importing dlarray from ``tree``:
    case -> dl/np ratio."""
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp) / "namespace.json"
        env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
        command = [sys.executable, str(BENCH), "--output", str(output)]
        subprocess.run(
            command + (["--quick"] if quick else []), env=env, check=True, stdout=subprocess.DEVNULL
        )
        rows = json.loads(output.read_text())["rows"]
    return {
        f"{row['inputs']} {row['case']}": row["ratio_dlarray_numpy"]
        for row in rows
        if row["ratio_dlarray_numpy"] is not None
    }


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for index in range(args.rounds):
        for label in ("before", "after"):
            tree = args.before if label == "before" else args.after
            print(f"round {index + 1}/{args.rounds}: {label} ({tree})", file=sys.stderr, flush=True)
            runs[label].append(_run(tree, args.quick))

    cases = [c for c in runs["after"][0] if all(c in r for r in runs["before"] + runs["after"])]
    width = max(len(c) for c in cases)
    print(f"{'case':<{width}}  {'before':>7}  {'after':>7}  change")
    result, regressed = [], []
    for case in cases:
        before = statistics.median(r[case] for r in runs["before"])
        after = statistics.median(r[case] for r in runs["after"])
        change = after / before - 1
        if change > args.tolerance:
            regressed.append(case)
        print(f"{case:<{width}}  {before:6.2f}x  {after:6.2f}x  {change:+6.1%}")
        result.append({"case": case, "before": before, "after": after, "change": change})
    print(
        f"regressed (dl/np up by more than {args.tolerance:.0%}): "
        + (", ".join(regressed) if regressed else "none")
    )
    if args.output:
        args.output.write_text(json.dumps({"rounds": args.rounds, "rows": result}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
