"""The tally behind the fuzz session's closing summary.

Each fuzz test records one outcome per example it ran: ``"accepted"`` or
``"refused"`` (and the like) and, when something raised, the exception's
type.  The counts are approximate (Hypothesis replays and shrinks examples),
which is all a summary needs.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Outcome:
    """What one example ended in: a verdict, and the exception type raised
    (None when nothing was)."""

    verdict: str
    raised: str | None = None


@dataclass
class Tally:
    cases: int = 0
    seconds: float = 0.0
    verdicts: Counter[str] = field(default_factory=Counter)
    raised: Counter[str] = field(default_factory=Counter)


TALLIES: dict[str, Tally] = {}


def record(test: str, outcome: Outcome | None) -> None:
    tally = TALLIES.setdefault(test, Tally())
    tally.cases += 1
    if outcome is not None:
        tally.verdicts[outcome.verdict] += 1
        if outcome.raised is not None:
            tally.raised[outcome.raised] += 1


def add_time(test: str, started: float) -> None:
    TALLIES.setdefault(test, Tally()).seconds += time.monotonic() - started


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{name} {n}" for name, n in counter.most_common()) or "-"


def summary_lines() -> list[str]:
    """One block per fuzz test that ran, then the totals."""
    lines = []
    for test, tally in sorted(TALLIES.items()):
        lines.append(f"{test}: {tally.cases} cases in {tally.seconds:.1f} s")
        lines.append(f"    outcomes: {_counts(tally.verdicts)}")
        lines.append(f"    raised:   {_counts(tally.raised)}")
    total = sum(t.cases for t in TALLIES.values())
    seconds = sum(t.seconds for t in TALLIES.values())
    lines.append(f"total: {total} cases in {seconds:.1f} s")
    return lines
