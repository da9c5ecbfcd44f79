"""How much the fuzz tests run: a number of examples, or a wall-clock budget.

``DLARRAY_FUZZ_EXAMPLES``
    Examples per fuzz test in the quick mode (default 40), which the normal
    test suite uses.
``DLARRAY_FUZZ_SECONDS``
    A wall-clock budget for all the fuzz tests of the session together.
    Each test then runs batches of examples until its share is spent: the
    time left divided by the fuzz tests still to run, so that a test that
    overran is made up for by the ones after it.

:func:`fuzz` turns ``check(case)`` into a pytest test running it over a
Hypothesis strategy within that budget.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from fuzz_stats import Outcome, add_time, record
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _env_number(name: str, kind: type, default: Any) -> Any:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number") from None
    if value <= 0:
        raise ValueError(f"{name}={raw!r} must be positive")
    return value


EXAMPLES: int = _env_number("DLARRAY_FUZZ_EXAMPLES", int, 40)
SECONDS: float | None = _env_number("DLARRAY_FUZZ_SECONDS", float, None)

#: Examples per Hypothesis run in the timed mode: enough for Hypothesis to
#: grow its examples from simple to complex within one run.
BATCH = 300

SETTINGS = settings(
    max_examples=EXAMPLES if SECONDS is None else BATCH,
    deadline=None,
    derandomize=False,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
        HealthCheck.function_scoped_fixture,
    ],
)


class Budget:
    """The session's fuzzing time, shared out among the fuzz tests."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.tests_left = 1
        self.session_end: float | None = None
        self.test_end: float | None = None

    def plan(self, fuzz_tests: int) -> None:
        """Called at collection with the number of fuzz tests selected."""
        self.tests_left = max(fuzz_tests, 1)

    def begin_test(self) -> None:
        if self.seconds is None:
            return
        now = time.monotonic()
        if self.session_end is None:
            self.session_end = now + self.seconds
        share = max(self.session_end - now, 0.0) / max(self.tests_left, 1)
        self.test_end = now + share

    def end_test(self) -> None:
        self.tests_left = max(self.tests_left - 1, 1)
        self.test_end = None

    def spent(self) -> bool:
        """True once the running test's share of the time is used up."""
        return self.test_end is not None and time.monotonic() >= self.test_end

    def run(self, one_run: Callable[[], None]) -> None:
        """One Hypothesis run in the quick mode; runs until the share is
        spent in the timed mode (at least one)."""
        self.begin_test()
        try:
            one_run()
            while self.seconds is not None and not self.spent():
                one_run()
        finally:
            self.end_test()


BUDGET = Budget(SECONDS)


def fuzz(strategy: st.SearchStrategy[Any]) -> Callable[[Callable[[Any], Outcome]], Any]:
    """Decorator: ``check(case) -> Outcome`` becomes a test of the same name
    and docstring that runs ``check`` on examples of ``strategy`` within
    the budget, and tallies the outcomes for the session summary."""

    def decorate(check: Callable[[Any], Outcome]) -> Callable[[], None]:
        name = check.__name__

        def one_example(case: Any) -> None:
            if BUDGET.spent():
                return  # the rest of this run costs only generation
            record(name, check(case))

        # The Hypothesis database keys examples by the test's source, which
        # every test made here shares: tell them apart by the check's name.
        one_example._hypothesis_internal_add_digest = name.encode()  # type: ignore[attr-defined]
        one_run = SETTINGS(given(case=strategy)(one_example))

        def test() -> None:
            started = time.monotonic()
            try:
                BUDGET.run(one_run)
            finally:
                add_time(name, started)

        test.__name__ = name
        test.__qualname__ = check.__qualname__
        test.__doc__ = check.__doc__
        test.__module__ = check.__module__
        return test

    return decorate
