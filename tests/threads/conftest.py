"""The thread soak's summary: one block per soaked scenario at the end of
the pytest run (operations by kind, resident size, reference counts)."""

from __future__ import annotations

from typing import Any

import pytest

# The soak's own modules (run in a subprocess; soak_torch imports PyTorch)
# hold no tests and no doctests: --doctest-modules (nox -s tests) must not
# import them.
collect_ignore_glob = ["soak*.py"]

MIB = 1 << 20
_REPORTS = pytest.StashKey[list[dict[str, Any]]]()


class SoakSummary:
    """Collects the reports of the soaks a session ran."""

    def __init__(self, reports: list[dict[str, Any]]) -> None:
        self.reports = reports

    def add(self, report: dict[str, Any]) -> None:
        self.reports.append(report)


@pytest.fixture
def soak_summary(request: pytest.FixtureRequest) -> SoakSummary:
    """Where a soak test records its report for the terminal summary."""
    return SoakSummary(request.config.stash.setdefault(_REPORTS, []))


def _mib(n: int | None) -> str:
    return "n/a" if n is None else f"{n / MIB:.1f} MiB"


def describe(report: dict[str, Any]) -> list[str]:
    """A soak report as a few lines of text."""
    ops = report["operations"]
    total = sum(ops.values())
    rate = total / report["seconds"] if report["seconds"] else 0.0
    kinds = ", ".join(f"{kind} {n:,}" for kind, n in sorted(ops.items()))
    start, warm, end = report["rss_start"], report["rss_after_warmup"], report["rss_end"]
    growth = "n/a" if warm is None or end is None else f"{(end - warm) / MIB:+.2f} MiB"
    refs_back = report["refcounts_before"] == report["refcounts_after"]
    tracked, alive = sum(report["tracked"].values()), sum(report["alive"].values())
    return [
        f"{report['scenario']}: Python {report['python']}, NumPy {report['numpy']}, "
        f"torch {report['torch'] or '-'}; {report['threads']} threads, "
        f"{report['seconds']:.2f} s, {total:,} operations ({rate:,.0f}/s), "
        f"{report['error_count']} errors",
        f"  operations: {kinds}",
        f"  RSS: start {_mib(start)}, after warm-up {_mib(warm)}, end {_mib(end)} "
        f"(growth over the soak {growth})",
        f"  refcounts of the long-lived arrays {'back' if refs_back else 'CHANGED'}; "
        f"tracked exported arrays alive: {alive} of {tracked}",
    ]


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    reports = config.stash.get(_REPORTS, [])
    if not reports:
        return
    terminalreporter.section("thread soak")
    for report in reports:
        for line in describe(report):
            terminalreporter.write_line(line)
