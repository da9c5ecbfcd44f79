"""Real Array API consumers driven with dlarray arrays (``nox -s clients``).

Each ``test_<consumer>.py`` runs a table of that consumer's calls on
dlarray and on array-api-strict, comparing every result with NumPy's (see
client_calls.py).  A consumer that is not installed skips its module, so
the main ``tests`` session, which installs none of them, skips this folder
at no cost.  At the end of a run the table of passed / pinned / failed calls
per consumer and backend is printed.
"""

from __future__ import annotations

import os
import pathlib
import sys
from collections import Counter
from typing import Any

import pytest

from .client_calls import BACKENDS

# SciPy reads SCIPY_ARRAY_API once, when it is first imported (scikit-learn
# imports SciPy, and its array_api_dispatch refuses to work without it).
# This conftest is loaded before any test module here is imported; nox -s
# clients also sets the variable, for a SciPy imported earlier still.
if "scipy" not in sys.modules:
    os.environ["SCIPY_ARRAY_API"] = "1"

# The support module holds no tests or doctests (nox -s tests runs
# --doctest-modules over tests/).
collect_ignore = ["client_calls.py"]

_HERE = pathlib.Path(__file__).resolve().parent

#: nodeid -> (consumer, backend), for the closing table.
_CALLS: dict[str, tuple[str, str]] = {}
#: The table's columns: a strict xfail that passes counts as failed.
OUTCOMES = ("passed", "xfailed", "failed")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = pathlib.Path(str(item.path)).resolve()
        params = getattr(item, "callspec", None)
        if path.parent == _HERE and params is not None and "backend" in params.params:
            consumer = path.stem.removeprefix("test_")
            _CALLS[item.nodeid] = (consumer, params.params["backend"])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    counts = _count_outcomes(terminalreporter.stats)
    if counts:
        terminalreporter.section("consumer calls: passed / xfailed (consumer deviation) / failed")
        for line in _table(counts):
            terminalreporter.write_line(line)


def _count_outcomes(stats: dict[str, list[Any]]) -> Counter[tuple[str, str, str]]:
    """(consumer, backend, outcome) -> number of calls; an error (in a
    fixture) counts as a failure."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for category, reports in stats.items():
        outcome = "failed" if category == "error" else category
        if outcome not in OUTCOMES:
            continue
        for report in reports:
            where = _CALLS.get(getattr(report, "nodeid", ""))
            if where is not None and (outcome != "passed" or report.when == "call"):
                counts[(*where, outcome)] += 1
    return counts


def _table(counts: Counter[tuple[str, str, str]]) -> list[str]:
    def cell(consumer: str, backend: str) -> str:
        numbers = [
            sum(n for (c, b, o), n in counts.items()
                if b == backend and o == outcome and consumer in (c, "total"))
            for outcome in OUTCOMES
        ]
        return "/".join(map(str, numbers))

    consumers = sorted({consumer for consumer, _, _ in counts})
    lines = [f"{'consumer':<20}" + "".join(f"{backend:>20}" for backend in BACKENDS)]
    for consumer in [*consumers, "total"]:
        lines.append(f"{consumer:<20}" + "".join(f"{cell(consumer, b):>20}" for b in BACKENDS))
    return lines
