"""Running the DLPack kit as its users do: a fresh ``pytest`` process in
a temporary folder, the kit loaded the way pytest loads it (the
``_dlarray_pytest`` module its entry point names) and no other plugin;
its results read from its JUnit XML report."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

from dlarray._probe import CASES
from dlarray._probe_exchange_cases import EXCHANGE_CASES
from dlarray._probe_object_cases import OBJECT_CASES

HERE = pathlib.Path(__file__).resolve().parent
SHODDY = HERE / "adapters" / "shoddy_adapter.py"
#: shoddy's deliberate deviations (its docstring), and the cases it cannot
#: be asked (it has no read-only arrays, no C exchange table, no dtype or
#: device objects).
SHODDY_DEVIATES = {"byte_offset_1d", "byte_offset_nd", "byte_offset_0d", "device_unknown",
                   "export_legacy",
                   # the byte_offset bug again: the table cases' tensor has one
                   "c_api_import", "c_api_import_newer_major"}  # fmt: skip
#: The producer cases of the C exchange table, which a library without one
#: cannot be asked.
C_API = {c.name for c in EXCHANGE_CASES if c.role == "producer"}
#: The cases of dtype and device objects, which an adapter without them cannot be asked.
OBJECTS = {c.name for c in OBJECT_CASES}
SHODDY_CANNOT = {"export_read_only", *C_API, *OBJECTS}
SPEC = {c.name: c.spec for c in CASES}
#: A usage error: pytest's exit status 4.
USAGE_ERROR = 4


def run_kit(
    tmp_path: pathlib.Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], dict[str, tuple[str, str]]]:
    """``pytest -p _dlarray_pytest ARGS`` in ``tmp_path`` (``env``: more
    environment variables): the process, and per test name its outcome
    (passed, failed, skipped, xfailed) and message."""
    report = tmp_path / "junit.xml"
    report.unlink(missing_ok=True)
    env = {**os.environ, **(env or {}), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    command = [sys.executable, "-m", "pytest", "-p", "_dlarray_pytest", "-p", "no:cacheprovider",
               f"--junitxml={report}", "-q", *args]  # fmt: skip
    process = subprocess.run(
        command,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    results: dict[str, tuple[str, str]] = {}
    if report.exists():
        for case in ET.parse(report).iter("testcase"):
            outcome, message = "passed", ""
            for child in case:
                if child.tag in ("failure", "error"):
                    outcome, message = "failed", child.text or child.get("message", "")
                elif child.tag == "skipped":
                    xfailed = child.get("type") == "pytest.xfail"
                    outcome = "xfailed" if xfailed else "skipped"
                    message = child.get("message", "")
            results[case.get("name", "")] = (outcome, message)
    return process, results


def by_outcome(results: dict[str, tuple[str, str]], outcome: str) -> set[str]:
    return {name for name, (o, _) in results.items() if o == outcome}
