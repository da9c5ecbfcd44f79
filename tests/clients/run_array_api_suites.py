"""Run real projects' own Array API tests with dlarray and with
array-api-strict, and print the counts side by side.

For each project (scikit-learn, SciPy, array-api-extra), one pytest process
runs the project's tests from its installed wheel with ``array_api_plugin``
(beside this file) loaded: the plugin adds dlarray to the project's
backends, and keeps only the tests parametrised with dlarray or with
array-api-strict.  The table gives passed / failed (errors included) /
skipped / xfailed per project and backend.  Below it come the failures with
dlarray whose array-api-strict counterpart did not fail, each with what
array-api-strict's run did (a skip or xfail names its reason): the ones to
look at.

Usage (from anywhere: pytest runs in a temporary directory, so the
installed dlarray is imported, not the source tree)::

    python tests/clients/run_array_api_suites.py                 # every project
    python tests/clients/run_array_api_suites.py scipy --json counts.json
    python tests/clients/run_array_api_suites.py scipy --scipy-modules special linalg
    python tests/clients/run_array_api_suites.py scipy -- -k logsumexp   # to pytest

Needs the projects of requirements.txt and array-api-suites.txt (the
projects' own test dependencies).  Exit status 0 when every project's tests
ran (their failures are counted, not fatal); 1 when a pytest process could
not run them (its exit status 2 or more: interrupted, internal or usage
error, no tests collected; or a test module that could not be collected).
4 to 8 minutes on 2 cores (7 minutes of CPU time: 1000 + 5600 + 1200 tests
per backend).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent

#: The backends compared: dlarray, and the reference implementation.  A
#: test with both in its id (a mixed-input test) counts as dlarray's.
DLARRAY = "dlarray"
BACKENDS = (DLARRAY, "array_api_strict")
#: One test's result, as array_api_plugin.py's --array-api-report gives it:
#: {"backend": ..., "outcome": ..., "message": ..., "seconds": ...}.
Result = dict[str, Any]
#: The table's columns: "failed" counts errors too, "passed" xpasses.
COLUMNS = ("passed", "failed", "skipped", "xfailed")
FOLDED = {"error": "failed", "xpassed": "passed"}

#: SciPy's subpackages run by default (their tests ship in the wheel).
SCIPY_MODULES = ("special", "stats", "signal")

#: scikit-learn's test modules with Array API tests are the ones naming
#: one of these; ``tests/test_common.py`` runs each estimator's
#: ``check_array_api_input`` through ``parametrize_with_checks``.
SKLEARN_MARKERS = ("yield_namespace_device_dtype_combinations", "yield_namespaces")
SKLEARN_ALWAYS = ("tests/test_common.py",)

#: The backends' own spellings in test ids, made one, to pair a test run
#: with dlarray with the same test run with array-api-strict.  scikit-learn
#: gives dlarray float64 and float32 on its default device (None), and
#: array-api-strict float64 on CPU_DEVICE and float32 on device1.
SAME_TEST = (
    (re.compile(r"(?<![\w.])(dlarray|array_api_strict)(?![\w.])"), "XP"),
    (re.compile(r"(?<![\w.])(None|CPU_DEVICE|device1)(?=[-,)\]])"), "DEVICE"),
)


@dataclass(frozen=True)
class Project:
    """One project's Array API tests: where they are in the installed
    package, and the test ids (prefixes, relative to the package) left out
    unless ``--all``: one test function over thousands of sizes, which
    would take most of the time for little more coverage."""

    name: str
    package: str
    tests: Callable[[pathlib.Path, argparse.Namespace], list[pathlib.Path]]
    repetitive: tuple[str, ...] = ()


def _sklearn_tests(root: pathlib.Path, _: argparse.Namespace) -> list[pathlib.Path]:
    found = {
        path
        for path in root.glob("**/tests/test_*.py")
        if any(marker in path.read_text(encoding="utf-8") for marker in SKLEARN_MARKERS)
    }
    found.update(root / always for always in SKLEARN_ALWAYS)
    return sorted(found)


def _scipy_tests(root: pathlib.Path, options: argparse.Namespace) -> list[pathlib.Path]:
    return [root / module / "tests" for module in options.scipy_modules]


def _array_api_extra_tests(root: pathlib.Path, _: argparse.Namespace) -> list[pathlib.Path]:
    return [root / "tests" / "main"]


PROJECTS = {
    project.name: project
    for project in (
        Project("scikit-learn", "sklearn", _sklearn_tests),
        Project(
            "scipy",
            "scipy",
            _scipy_tests,
            repetitive=(
                # 9730 and 604 of signal's 13115 tests per backend: oaconvolve
                # and fftconvolve over every pair of lengths of a grid.
                "signal/tests/test_signaltools.py::TestOAConvolve::test_real_manylens",
                "signal/tests/test_signaltools.py::TestFFTConvolve::test_many_sizes",
            ),
        ),
        Project("array-api-extra", "array_api_extra", _array_api_extra_tests),
    )
}


def package_root(package: str) -> pathlib.Path:
    """The installed package's directory, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{package} is not installed: pip install -r {HERE}/requirements.txt")
    return pathlib.Path(next(iter(spec.submodule_search_locations)))


def run_project(
    project: Project, options: argparse.Namespace, workdir: pathlib.Path
) -> tuple[dict[str, Result], int, float]:
    """Run one project's tests for both backends: ({nodeid: result},
    pytest's exit status, seconds)."""
    root = package_root(project.package)
    report = (options.reports or workdir) / f"{project.package}.json"
    # An empty configuration of our own: without one pytest looks for one
    # above the project's directory and, in a virtualenv under a checkout
    # (nox's .nox/), finds that checkout's pyproject.toml (dlarray's strict
    # markers, its warnings filters) and applies it to the project's tests.
    ini = workdir / "pytest.ini"
    ini.write_text("[pytest]\n")
    command = [
        sys.executable, "-m", "pytest", "-c", str(ini),
        "-p", "array_api_plugin", f"--array-api-only={','.join(BACKENDS)}",
        f"--array-api-report={report}",
        *(["--array-api-mixed"] if options.mixed else []),
        "-p", "no:cacheprovider", "-q", "--no-header", "-rN", "--tb=no",
        # The project's directory is the root: its conftest.py is loaded,
        # and the test ids read as in the project's own runs.
        "--rootdir", str(root),
        *(["-n", str(options.workers)] if options.workers else []),
        *(f"--deselect={nodeid}" for nodeid in ([] if options.all else project.repetitive)),
        *map(str, project.tests(root, options)),
        *options.pytest_args,
    ]  # fmt: skip
    env = {
        **os.environ,
        "SCIPY_ARRAY_API": "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
    }
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, check=False,
    )  # fmt: skip
    seconds = time.monotonic() - started
    outcomes = json.loads(report.read_text()) if report.exists() else {}
    uncollected = collection_errors(done.stdout, outcomes)
    if uncollected:
        print(
            f"{project.name}: {uncollected} error(s) outside any test (a test module that "
            "could not be collected): its tests did not run"
        )
    if options.verbose or done.returncode > 1 or not outcomes or uncollected:
        print(done.stdout[-4000:])
    status = done.returncode if not uncollected else max(done.returncode, 2)
    return outcomes, status, seconds


def collection_errors(output: str, outcomes: dict[str, Result]) -> int:
    """How many of the errors pytest's last line counts are no test's (a
    module that failed to import or to collect): pytest-xdist reports those
    with exit status 1, as if tests had failed, and their tests are missing
    from the counts."""
    summary = output.strip().splitlines()[-1] if output.strip() else ""
    said = re.search(r"(\d+) errors?\b", summary)
    per_test = sum(1 for result in outcomes.values() if result["outcome"] == "error")
    return max(0, int(said.group(1)) - per_test) if said else 0


def by_backend(results: dict[str, Result]) -> dict[str, dict[str, Result]]:
    return {
        backend: {nodeid: r for nodeid, r in results.items() if r["backend"] == backend}
        for backend in BACKENDS
    }


def count(results: dict[str, Result]) -> Counter[str]:
    return Counter(FOLDED.get(r["outcome"], r["outcome"]) for r in results.values())


def same_test(nodeid: str) -> str:
    """The test id with the backends' own spellings made one."""
    for pattern, replacement in SAME_TEST:
        nodeid = pattern.sub(replacement, nodeid)
    return nodeid


def dlarray_only_failures(
    dlarray: dict[str, Result], strict: dict[str, Result]
) -> dict[str, dict[str, Result]]:
    """The failures with dlarray whose array-api-strict counterpart did not
    fail (it passed, skipped, xfailed or does not exist):
    {nodeid: {"dlarray": result, "array_api_strict": result}}."""
    failing = ("failed", "error")
    strict_by_test = {same_test(nodeid): result for nodeid, result in strict.items()}
    failures = {}
    for nodeid, result in sorted(dlarray.items()):
        none = {"backend": "array_api_strict", "outcome": "none", "message": ""}
        counterpart = strict_by_test.get(same_test(nodeid), none)
        if result["outcome"] in failing and counterpart["outcome"] not in failing:
            failures[nodeid] = {DLARRAY: result, "array_api_strict": counterpart}
    return failures


def table(counts: dict[str, dict[str, Counter[str]]]) -> list[str]:
    lines = [f"{'project':<18}{'backend':<18}" + "".join(f"{c:>9}" for c in COLUMNS)]
    for project, by in counts.items():
        for backend in BACKENDS:
            numbers = "".join(f"{by[backend][column]:>9}" for column in COLUMNS)
            lines.append(f"{project:<18}{backend:<18}{numbers}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="*", help=f"some of {', '.join(PROJECTS)} (all)")
    parser.add_argument("--scipy-modules", nargs="+", default=list(SCIPY_MODULES))
    parser.add_argument("--all", action="store_true", help="run the repetitive tests too")
    parser.add_argument("--mixed", action="store_true", help="scikit-learn's mixed inputs too")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (0: none)")
    parser.add_argument("--json", type=pathlib.Path, help="write the counts and failures here")
    parser.add_argument(
        "--reports", type=pathlib.Path, help="keep each project's outcome of every test here"
    )
    parser.add_argument("--verbose", action="store_true", help="print pytest's output")
    argv = sys.argv[1:] if argv is None else argv
    # What follows "--" goes to every pytest process.
    split = argv.index("--") if "--" in argv else len(argv)
    options = parser.parse_args(argv[:split])
    options.pytest_args = argv[split + 1 :]
    unknown = set(options.projects) - set(PROJECTS)
    if unknown:
        parser.error(f"unknown project(s) {sorted(unknown)}: choose from {list(PROJECTS)}")

    if options.reports is not None:
        options.reports.mkdir(parents=True, exist_ok=True)
    counts: dict[str, dict[str, Counter[str]]] = {}
    failures: dict[str, dict[str, dict[str, Result]]] = {}
    broken = False
    with tempfile.TemporaryDirectory(prefix="array-api-suites-") as tmp:
        for name in options.projects or PROJECTS:
            outcomes, status, seconds = run_project(PROJECTS[name], options, pathlib.Path(tmp))
            print(f"{name}: pytest exit status {status}, {seconds:.0f} s", flush=True)
            broken |= status > 1 or not outcomes
            split_outcomes = by_backend(outcomes)
            counts[name] = {b: count(split_outcomes[b]) for b in BACKENDS}
            failures[name] = dlarray_only_failures(*(split_outcomes[b] for b in BACKENDS))

    print("\n" + "\n".join(table(counts)))
    for name, found in failures.items():
        print(
            f"\n{name}: {len(found)} failures with dlarray whose array-api-strict run did not fail"
        )
        for nodeid, results in found.items():
            ours, theirs = results[DLARRAY], results["array_api_strict"]
            why = f": {theirs['message'][:200]}" if theirs["message"] else ""
            print(f"  {ours['outcome']} {nodeid}\n      {ours['message'][:300]}")
            print(f"      array_api_strict: {theirs['outcome']}{why}")
    if options.json is not None:
        written = {
            name: {
                "counts": {b: dict(counts[name][b]) for b in BACKENDS},
                "dlarray_only_failures": failures[name],
            }
            for name in counts
        }
        options.json.write_text(json.dumps(written, indent=1))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
