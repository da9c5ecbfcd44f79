"""The fuzz tests' budget and closing summary (see README.md in this folder).

The ctypes producers' capsules are released, and their callbacks checked,
by the autouse fixture of tests/conftest.py, as for every other test.
"""

from __future__ import annotations

import pathlib
import warnings

import fuzz_budget
import fuzz_stats
import pytest

# The fuzzer's helper modules hold no tests and no doctests: --doctest-modules (nox -s tests)
# must not import them.
collect_ignore_glob = ["fuzz_*.py"]

# A failing Hypothesis example imports its patch writer, whose libcst import
# raises a DeprecationWarning; under filterwarnings=error that would turn a
# readable failure into an INTERNALERROR.  Import it now, quietly.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:  # pragma: no cover - libcst not installed
        pass

_HERE = pathlib.Path(__file__).resolve().parent


def _is_fuzz_test(item: pytest.Item) -> bool:
    return _HERE in pathlib.Path(str(item.path)).resolve().parents


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    fuzz_budget.BUDGET.plan(sum(_is_fuzz_test(item) for item in items))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not fuzz_stats.TALLIES:
        return
    budget = (
        f"{fuzz_budget.SECONDS:g} s in all"
        if fuzz_budget.SECONDS is not None
        else f"{fuzz_budget.EXAMPLES} examples per test"
    )
    terminalreporter.section(f"dlarray fuzz summary ({budget})")
    for line in fuzz_stats.summary_lines():
        terminalreporter.write_line(line)
