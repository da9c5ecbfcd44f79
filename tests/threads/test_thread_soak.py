"""A bounded thread soak of dlarray's DLPack exchanges.

Each test runs one scenario of soak.py in a subprocess (a crash fails the
test with the signal named and the output shown, instead of killing pytest)
and checks that, over the soak, no worker met an error, every kind of
exchange the scenario mixes ran, the long-lived arrays' reference counts
came back, the exported arrays were freed and the resident size stayed flat.

DLARRAY_SOAK_SECONDS is the time for all the scenarios together (default 2,
shared equally); DLARRAY_SOAK_THREADS the worker threads (default 8).
"""

from __future__ import annotations

import os
import sys
import sysconfig

import pytest
import soak_scenarios
from soak_launch import run_soak

import dlarray

SECONDS = float(os.environ.get("DLARRAY_SOAK_SECONDS", "2"))
THREADS = int(os.environ.get("DLARRAY_SOAK_THREADS", "8"))
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
#: Resident growth allowed between the end of the warm-up and the end of
#: the soak.  A quiet soak grows well under 1 MiB; leaking one export block
#: per operation would cost hundreds of MiB in a 30 s soak.
RSS_GROWTH_LIMIT = 8 << 20

needs_c_threads = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="starts C threads with pthread_create from libc"
)


def soak_and_check(scenario: str, tmp_path, soak_summary) -> None:
    outcome = run_soak(
        scenario,
        seconds=SECONDS / len(soak_scenarios.NAMES),
        threads=THREADS,
        workdir=tmp_path,
    )
    failure = outcome.failure()
    if failure is not None:
        pytest.fail(failure, pytrace=False)
    report = outcome.report
    assert report is not None
    soak_summary.add(report)

    assert report["dlarray"] == dlarray.__file__, "the soak imported another dlarray"
    assert report["error_count"] == 0, "\n".join(report["errors"])
    missing = [kind for kind in report["expected"] if not report["operations"].get(kind)]
    assert not missing, f"never performed: {missing}"
    assert report["refcounts_after"] == report["refcounts_before"]
    assert sum(report["alive"].values()) == 0, (
        f"exported arrays still alive: {report['alive']} (of {report['tracked']})"
    )
    warm, end = report["rss_after_warmup"], report["rss_end"]
    # Under AddressSanitizer (nox -s sanitize) RSS means nothing: its
    # quarantine keeps freed memory mapped.  Refcounts and weakrefs above
    # still prove nothing leaked there.
    sanitized = os.environ.get("DLARRAY_SANITIZED") == "1"
    # Free-threaded CPython 3.13 keeps about 4.6 KiB for every C thread that
    # ever attached a thread state: NumPy's own deleters on fresh C threads
    # grow RSS exactly as dlarray's do (test_races.py compares the two), so
    # the scenario that starts thousands of them is not measured here.
    fresh_c_threads = FREE_THREADED and report["operations"].get("deleter, C thread")
    if warm is not None and end is not None and not sanitized and not fresh_c_threads:
        assert end - warm < RSS_GROWTH_LIMIT, (
            f"RSS grew {(end - warm) / 2**20:.1f} MiB over the soak "
            f"(limit {RSS_GROWTH_LIMIT >> 20} MiB)"
        )


def test_exchanges_holding_the_gil(tmp_path, soak_summary):
    """NumPy -> dlarray, dlarray -> NumPy, dlarray -> dlarray, copy=True
    exports, read-only arrays and views, from many threads at once, with
    capsules made on one thread and consumed or dropped on another: every
    deleter runs holding the GIL.  Proves the exchanges themselves are
    thread-safe and leak nothing (the other scenarios add to this mix)."""
    soak_and_check("holding-the-gil", tmp_path, soak_summary)


@pytest.mark.skipif(not soak_scenarios.torch_available(), reason="PyTorch is not installed")
def test_torch_exchanges(tmp_path, soak_summary):
    """dlarray -> torch and torch -> dlarray from many threads, mixed with
    the exchanges above.  PyTorch calls the deleters of dlarray's exports
    without the GIL, so this proves a deleter takes the GIL itself when its
    thread lacks it."""
    soak_and_check("torch", tmp_path, soak_summary)


@needs_c_threads
def test_deleters_on_foreign_threads(tmp_path, soak_summary):
    """Consumers run the deleters themselves: on a Python thread with the
    GIL released, and on a fresh C thread (joined at once) while the other
    workers hold the GIL.  Proves a deleter on a thread that does not hold
    the GIL never touches the array or the block pool unlocked."""
    soak_and_check("foreign-threads", tmp_path, soak_summary)


@needs_c_threads
def test_c_thread_deleters_while_python_holds_the_gil(tmp_path, soak_summary):
    """Each worker starts a batch of C threads running deleters (some of
    copy=True exports), goes on with Python work holding the GIL, and joins
    them later.  Proves a deleter waits for the GIL rather than mistaking
    the holder's thread state for its own (the Python 3.10/3.11 trap)."""
    soak_and_check("deferred-c-threads", tmp_path, soak_summary)
