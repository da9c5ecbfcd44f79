"""Run the official Array API conformance suite against dlarray and summarise the result.

The suite (data-apis/array-api-tests, with its data-apis/array-api spec submodule) is not
part of this repository: fetch it with ``fetch_suite.sh DEST`` and point this script at the
checkout with the environment variable ``ARRAY_API_TESTS_DIR``.  The script

1. checks that the directory is a checkout of the suite at the pinned commits below: with
   git where it is a git checkout, else (an unpacked archive) by the git hashes of the files
   the run reads (see ``PINNED_CONTENT``);
2. runs pytest on ``array_api_tests/`` from inside the checkout, with
   ``ARRAY_API_TESTS_MODULE=dlarray`` and ``ARRAY_API_TESTS_VERSION=2025.12``,
   derandomized hypothesis, no deadline, our skips file (when it has entries) and a JSON
   report in a temporary file; arguments after ``--`` go to pytest unchanged;
3. prints one summary line and the ids of the failed tests, optionally writes the summary
   as JSON (``--output``), and exits non-zero if any test failed.

Example::

    ARRAY_API_TESTS_DIR=.array-api-tests python array_api_conformance/run.py \\
        --max-examples 200 --output conformance.json -- -k test_sorting
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# Keep these equal to the SHAs in fetch_suite.sh; README.md says why these commits.
SUITE_COMMIT = "55fcc60179efa2680ddd6cd926ddf17b83530e2b"
SPEC_COMMIT = "5f847a3858875c682ae901aa22b0413bf24be9da"
# What a run reads from the checkout, with its git object id at those commits (``git
# rev-parse COMMIT:PATH``): where the checkout is not a git clone, run.py hashes these paths
# the way git does and compares.  Keep them equal to the commits above.
PINNED_CONTENT = {
    "suite": {
        "array_api_tests": "e532f03a425ec8f22171ec8303ee963c968084ef",
        "conftest.py": "f7d2d96e37f047329764efbb8392b154b8403ff7",
        "pytest.ini": "935c67fe0ae0a38ab5ba8b820ce4a71b31da4381",
        "reporting.py": "579aa211f6f0d2d8bc5f9ba279770f36f8b23907",
    },
    "spec": {  # in array-api/: the signatures (src) and the 2025.12 specification text
        "src": "4c4b444568758fb4acfb5cdcff6a8eecdba9ebbb",
        "spec/2025.12": "bb65a9db3e6c310c559efbba9fab093866ad9e7b",
    },
}
# Written by running the suite, not part of it: left out of the content hashes.
UNTRACKED_NAMES = frozenset({"__pycache__", ".pytest_cache", ".hypothesis"})
API_VERSION = "2025.12"
MODULE = "dlarray"
DIR_VARIABLE = "ARRAY_API_TESTS_DIR"
SKIPS_FILE = Path(__file__).resolve().parent / "skips.txt"
# The suite reads only the lines of a skips file that start with this.
SKIP_ID_PREFIX = "array_api_tests"
# Paths whose presence marks a checkout of the suite with its spec submodule.
SUITE_MARKERS = ("array_api_tests", "array-api/src", "conftest.py", "pytest.ini")
DEFAULT_MAX_EXAMPLES = 200
FAILED_OUTCOMES = ("failed", "error")


class ConformanceError(Exception):
    """A problem with the runner's setup (not a failing conformance test)."""


@dataclass
class Summary:
    """What one run of the suite found; written as JSON by ``--output``."""

    passed: int
    failed: int  # failed tests + tests with setup/teardown errors + collection errors
    skipped: int
    xfailed: int
    xpassed: int
    errors: int
    collection_errors: int
    total: int
    failed_tests: list[str]
    duration_s: float
    pytest_exit_code: int
    max_examples: int
    workers: int
    api_version: str = API_VERSION
    module: str = MODULE
    suite_commit: str = SUITE_COMMIT
    spec_commit: str = SPEC_COMMIT
    commits_verified: bool = False
    verified_by: str = ""  # "git", "content" (hashes of PINNED_CONTENT) or "" (not verified)
    pytest_args: list[str] = field(default_factory=list)
    versions: dict[str, str | None] = field(default_factory=dict)
    by_file: dict[str, dict[str, int]] = field(default_factory=dict)  # outcomes per test file
    date: str = ""  # when the run ended, UTC
    commit: str = ""  # the commit of the dlarray checkout holding run.py, when known

    def line(self) -> str:
        """The one-line result, e.g. for CI logs."""
        return (
            f"conformance: {self.passed} passed, {self.failed} failed, {self.skipped} skipped "
            f"(suite {self.suite_commit[:8]}, version {self.api_version}, "
            f"max-examples {self.max_examples})"
        )


def warn(message: str) -> None:
    """Print a warning that does not stop the run."""
    print(f"run.py: warning: {message}", file=sys.stderr)


def xdist_available() -> bool:
    """Whether pytest-xdist (and so pytest's ``-n``) is installed."""
    return importlib.util.find_spec("xdist") is not None


def parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """Split ``argv`` at the first ``--``: our options before it, pytest's after it."""
    argv = list(argv)
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(
        description="Run data-apis/array-api-tests against dlarray "
        f"(checkout given by ${DIR_VARIABLE}). Arguments after -- go to pytest.",
    )
    parser.add_argument(
        "--max-examples",
        type=positive_int,
        default=DEFAULT_MAX_EXAMPLES,
        help=f"hypothesis examples per test (default {DEFAULT_MAX_EXAMPLES})",
    )
    parser.add_argument(
        "-n",
        "--workers",
        type=non_negative_int,
        default=2 if xdist_available() else 0,
        help="pytest-xdist workers, 0 for serial (default 2 if pytest-xdist is installed, else 0)",
    )
    parser.add_argument(
        "--output", type=Path, default=None, help="write the summary as JSON to this file"
    )
    return parser.parse_args(argv[:split]), argv[split + 1 :]


def positive_int(text: str) -> int:
    """argparse type: an integer of at least 1."""
    return bounded_int(text, 1)


def non_negative_int(text: str) -> int:
    """argparse type: an integer of at least 0."""
    return bounded_int(text, 0)


def bounded_int(text: str, minimum: int) -> int:
    """An integer of at least ``minimum``, or an argparse error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
    return value


def locate_suite(environ: dict[str, str]) -> Path:
    """The suite checkout named by $ARRAY_API_TESTS_DIR, checked for the expected layout."""
    value = environ.get(DIR_VARIABLE, "")
    if not value:
        raise ConformanceError(
            f"${DIR_VARIABLE} is not set; fetch the suite with "
            f"array_api_conformance/fetch_suite.sh DEST and export {DIR_VARIABLE}=DEST"
        )
    suite = Path(value).expanduser().resolve()
    if not suite.is_dir():
        raise ConformanceError(f"${DIR_VARIABLE}={value} is not a directory")
    missing = [marker for marker in SUITE_MARKERS if not (suite / marker).exists()]
    if missing:
        raise ConformanceError(
            f"${DIR_VARIABLE}={value} is not a checkout of data-apis/array-api-tests with its "
            f"array-api submodule (missing: {', '.join(missing)}); use fetch_suite.sh"
        )
    return suite


def git_head(directory: Path) -> str | None:
    """The commit checked out in ``directory``, or None if it is not its own git checkout."""
    # Look for .git here, not above: an unpacked archive inside another repository (such as
    # dlarray's own) would otherwise report that repository's commit.
    if not (directory / ".git").exists():
        return None
    try:
        result = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return result.stdout.strip()


def git_object_id(path: Path) -> str:
    """The id git gives ``path``'s content: a blob for a file, a tree for a directory.

    The files and folders that running the suite writes (``UNTRACKED_NAMES``, ``*.pyc``) are
    left out, as are empty folders (git stores none)."""
    if path.is_symlink():
        return _git_hash(b"blob", os.readlink(path).encode())
    if path.is_file():
        return _git_hash(b"blob", path.read_bytes())
    entries = []
    for child in path.iterdir():
        if child.name in UNTRACKED_NAMES or child.suffix == ".pyc":
            continue
        if child.is_dir() and not child.is_symlink():
            if not any(child.iterdir()):
                continue
            mode, key = b"40000", child.name + "/"  # git orders a tree as if named "name/"
        elif child.is_symlink():
            mode, key = b"120000", child.name
        else:
            mode = b"100755" if os.access(child, os.X_OK) else b"100644"
            key = child.name
        entry = mode + b" " + child.name.encode() + b"\0" + bytes.fromhex(git_object_id(child))
        entries.append((key.encode(), entry))
    return _git_hash(b"tree", b"".join(entry for _, entry in sorted(entries)))


def _git_hash(kind: bytes, body: bytes) -> str:
    return hashlib.sha1(kind + b" " + str(len(body)).encode() + b"\0" + body).hexdigest()


def content_matches(directory: Path, pinned: dict[str, str]) -> list[str]:
    """The paths of ``pinned`` whose content in ``directory`` differs (empty: all match)."""
    return [
        name
        for name, expected in pinned.items()
        if not (directory / name).exists() or git_object_id(directory / name) != expected
    ]


def verify_commits(suite: Path) -> str:
    """Check the suite and spec commits: with git in a git checkout, else by content.

    Returns how they were verified: "git", "content", or "" where the checkout is not a git
    clone and its content differs from the pinned commits' (with a warning)."""
    how = []
    for directory, expected, name, pinned in (
        (suite, SUITE_COMMIT, "suite", PINNED_CONTENT["suite"]),
        (suite / "array-api", SPEC_COMMIT, "spec submodule array-api", PINNED_CONTENT["spec"]),
    ):
        head = git_head(directory)
        if head is None:
            differ = content_matches(directory, pinned)
            if differ:
                warn(
                    f"cannot verify the {name} commit: {directory} is not a git checkout and "
                    f"{', '.join(differ)} differ from {expected[:8]}'s; assuming {expected[:8]}"
                )
                return ""
            how.append("content")
        elif head != expected:
            raise ConformanceError(
                f"the {name} in {directory} is at {head}, not the pinned {expected}; "
                "run fetch_suite.sh to move it"
            )
        else:
            how.append("git")
    return "git" if how == ["git", "git"] else "content"


def dlarray_commit() -> str:
    """The short commit of the dlarray checkout that holds this script ("" if none)."""
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return ""
    try:
        result = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return ""
    return result.stdout.strip()


def warn_about_suite_lists(suite: Path) -> None:
    """The suite silently applies skips.txt/xfails.txt from its own root: say so."""
    for name in ("skips.txt", "xfails.txt"):
        if (suite / name).exists():
            warn(f"{suite / name} exists and will be applied by the suite")


def skip_entries(path: Path) -> list[str]:
    """The ids in a skips file, read the way the suite reads them."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [line for line in lines if line.startswith(SKIP_ID_PREFIX)]


def worker_args(workers: int) -> list[str]:
    """pytest arguments selecting ``workers`` xdist workers (none without xdist)."""
    if not xdist_available():
        if workers > 0:
            raise ConformanceError(f"-n {workers} needs pytest-xdist, which is not installed")
        return []
    return ["-n", str(workers)]


def pytest_command(
    suite: Path, args: argparse.Namespace, extra: list[str], report: Path
) -> list[str]:
    """The pytest command line, to be run from inside the suite checkout."""
    skips = ["--skips-file=" + str(SKIPS_FILE)] if skip_entries(SKIPS_FILE) else []
    # array_api_tests/ comes first and the suite's own pytest.ini is named: otherwise pytest
    # may take another directory in the arguments as its rootdir, which shortens node ids so
    # that skip ids no longer match (see the suite notes in README.md).
    return [
        sys.executable, "-m", "pytest", "array_api_tests/",
        "-c", str(suite / "pytest.ini"),
        "-p", "no:cacheprovider",
        "-q",
        "--tb=short",  # hypothesis' falsifying example stays; -- --tb=long restores the rest
        "--max-examples", str(args.max_examples),
        "--derandomize",
        "--disable-deadline",
        "--json-report", f"--json-report-file={report}",
        *worker_args(args.workers),
        *skips,
        *extra,
    ]  # fmt: skip


def run_pytest(command: list[str], suite: Path) -> int:
    """Run the suite on dlarray, streaming pytest's output; return pytest's exit code."""
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=MODULE, ARRAY_API_TESTS_VERSION=API_VERSION)
    print("run.py:", shlex.join(command), flush=True)
    return subprocess.run(command, cwd=suite, env=env, check=False).returncode


def package_versions() -> dict[str, str | None]:
    """Versions of the packages that decide the result, for the JSON summary."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("dlarray", "numpy", "hypothesis", "pytest", "ndindex", "pytest-xdist"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    if versions["dlarray"] is None:  # run from a source tree (PYTHONPATH), not installed
        try:
            import dlarray
        except ImportError:
            pass
        else:
            versions["dlarray"] = getattr(dlarray, "__version__", None)
    return versions


def summarise(report: dict[str, Any], exit_code: int, args: argparse.Namespace) -> Summary:
    """Count outcomes from a pytest-json-report report."""
    tests: list[dict[str, Any]] = report.get("tests", [])
    broken = [c for c in report.get("collectors", []) if c.get("outcome") == "failed"]

    def count(outcome: str) -> int:
        return sum(1 for test in tests if test.get("outcome") == outcome)

    failed_ids = [t["nodeid"] for t in tests if t.get("outcome") in FAILED_OUTCOMES]
    by_file: dict[str, dict[str, int]] = {}
    for test in tests:
        name = test["nodeid"].split("::")[0].rsplit("/", 1)[-1]
        outcome = test.get("outcome", "unknown")
        outcome = "failed" if outcome in FAILED_OUTCOMES else outcome
        counts = by_file.setdefault(name, {})
        counts[outcome] = counts.get(outcome, 0) + 1
    return Summary(
        passed=count("passed"),
        failed=len(failed_ids) + len(broken),
        skipped=count("skipped"),
        xfailed=count("xfailed"),
        xpassed=count("xpassed"),
        errors=count("error"),
        collection_errors=len(broken),
        total=len(tests),
        failed_tests=failed_ids + [f"{c['nodeid']} (collection error)" for c in broken],
        duration_s=round(float(report.get("duration", 0.0)), 1),
        pytest_exit_code=exit_code,
        max_examples=args.max_examples,
        workers=args.workers,
        by_file=dict(sorted(by_file.items())),
    )


def print_summary(summary: Summary) -> None:
    """The summary line, any rarer outcomes, then the failed test ids."""
    print()
    print(summary.line())
    if summary.xfailed or summary.xpassed:
        print(f"             ({summary.xfailed} xfailed, {summary.xpassed} xpassed)")
    if summary.failed_tests:
        print("failed tests:")
        for nodeid in summary.failed_tests:
            print(f"  {nodeid}")


def write_output(path: Path, summary: Summary) -> None:
    """Write the summary as JSON (the documentation's conformance table reads it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(summary), indent=2) + "\n", encoding="utf-8")
    print(f"run.py: summary written to {path}")


def exit_status(summary: Summary) -> int:
    """1 if any test failed, pytest's own code if it stopped for another reason, else 0."""
    if summary.failed:
        return 1
    if summary.pytest_exit_code != 0:
        # 2 interrupted, 3 internal error, 4 usage error, 5 no tests collected.
        print(f"run.py: pytest exited with code {summary.pytest_exit_code}", file=sys.stderr)
        return summary.pytest_exit_code
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite; return the process exit status."""
    args, extra = parse_args(sys.argv[1:] if argv is None else argv)
    commit = dlarray_commit()  # before the run, which may outlast the checkout's HEAD
    try:
        suite = locate_suite(dict(os.environ))
        verified = verify_commits(suite)
        warn_about_suite_lists(suite)
        with tempfile.TemporaryDirectory(prefix="dlarray-conformance-") as tmp:
            report_path = Path(tmp) / "report.json"
            command = pytest_command(suite, args, extra, report_path)
            exit_code = run_pytest(command, suite)
            if not report_path.exists():
                raise ConformanceError(f"pytest (exit code {exit_code}) wrote no JSON report")
            report = json.loads(report_path.read_text(encoding="utf-8"))
    except ConformanceError as error:
        print(f"run.py: error: {error}", file=sys.stderr)
        return 2
    summary = summarise(report, exit_code, args)
    summary.commits_verified = bool(verified)
    summary.verified_by = verified
    summary.date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    summary.commit = commit
    summary.pytest_args = extra
    summary.versions = package_versions()
    print_summary(summary)
    if args.output is not None:
        write_output(args.output, summary)
    return exit_status(summary)


if __name__ == "__main__":
    sys.exit(main())
