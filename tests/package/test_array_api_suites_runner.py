"""tests/clients/run_array_api_suites.py: what it counts as tests that did
not run (CI runs it on array-api-extra's suite: nox -s array_api_suites)."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

_RUNNER = pathlib.Path(__file__).parents[1] / "clients" / "run_array_api_suites.py"
_spec = importlib.util.spec_from_file_location("run_array_api_suites", _RUNNER)
runner = importlib.util.module_from_spec(_spec)
sys.modules.setdefault(_spec.name, runner)  # its dataclasses look their module up
_spec.loader.exec_module(runner)


def outcomes(*kinds: str) -> dict:
    return {
        f"test_{i}[dlarray]": {"backend": "dlarray", "outcome": kind, "message": ""}
        for i, kind in enumerate(kinds)
    }


def test_errors_of_no_test_are_modules_that_did_not_collect():
    # pytest-xdist's run of a suite whose 24 modules failed to collect (the
    # markers of a configuration it should not have read): exit status 1,
    # and only the tests of the modules that did collect in the report.
    assert runner.collection_errors("..\n32 passed, 24 errors in 4.01s\n", outcomes("passed")) == 24


def test_errors_of_tests_are_counted_as_the_tests_outcomes():
    said = "10 passed, 2 failed, 2 errors in 3.2s"
    assert runner.collection_errors(said, outcomes("error", "error", "failed")) == 0
    assert runner.collection_errors(said, outcomes("error")) == 1


def test_a_run_without_errors_has_none():
    assert runner.collection_errors("1187 passed, 64 skipped in 80.1s", outcomes("passed")) == 0
    assert runner.collection_errors("", {}) == 0
