"""Shared test fixtures."""

from __future__ import annotations

import gc
import os
import sys

import abi
import pytest

# The intel-opencl-rt wheel's ICD file names a placeholder path, so the
# OpenCL loader finds Intel's CPU runtime only through this variable, which
# must be set before dpctl is first imported (docs/sycl.md, troubleshooting).
_INTEL_OPENCL = os.path.join(sys.prefix, "lib", "libintelocl.so")
if os.path.exists(_INTEL_OPENCL) and "OCL_ICD_FILENAMES" not in os.environ:
    os.environ["OCL_ICD_FILENAMES"] = _INTEL_OPENCL


def pytest_collection_finish(session):
    """Move everything alive after collection (the modules and what the test
    modules made at import: NumPy, SciPy, PyTorch, ...) into the collector's
    permanent generation.  The full collections below then walk only what
    the tests made since, instead of a heap of millions of objects that no
    test can free (a collection took ~0.4 s with SciPy imported)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _release_ctypes_producers():
    """Release the capsules of every ctypes producer a test made, then check
    their callbacks ran cleanly.

    A ctypes producer (tests/abi.py) holds its capsules, and their destructor
    is Python code called through ctypes.  Left alive until interpreter
    shutdown, that code would run while modules are being torn down and crash
    the process, so each test lets go of its capsules when it ends.
    """
    start = len(abi._KEEPALIVE)
    yield
    made = abi._KEEPALIVE[start:]
    if not made:
        # Most tests make no ctypes producer.  A full collection after each
        # of them walked the whole heap (large once SciPy is imported) and
        # was 85% of the suite's time, for nothing to release.
        return
    for producer in made:
        producer.drop_capsules()
    gc.collect()  # capsules held in reference cycles: their destructors run now
    for producer in made:
        assert producer.callback_errors == []


# The test modules that run dlarray over the stand-in CUDA runtime
# (tests/fake_cuda.py).  Only they hide CuPy: every other test sees the
# process as a user's would, because a None in sys.modules is not a state
# consumers expect (SciPy's vendored array-api-compat looks CuPy up there and
# fails on a None with AttributeError).
_STAND_IN_TESTS = tuple(
    os.path.join("tests", name)
    for name in (
        "test_array_protocols.py",
        "test_cuda_paths.py",
        "test_cuda_stream_order.py",
        "test_managed_compute.py",
        "test_memory_kinds.py",
        "test_printing.py",
    )
)


@pytest.fixture(autouse=True)
def _no_cupy_over_the_stand_in(request, monkeypatch):
    """Hide a real CuPy from the tests of the stand-in CUDA runtime.

    CuPy imports without a GPU, and once a module of the run has imported it
    (the interop matrix does, at collection), dlarray asks it for its current
    stream (its work stream, see dlarray._cuda.streams) -- which needs a
    driver.  The stand-in tests are about dlarray's own calls, whichever
    module ran before them, so they see no CuPy unless they install a stand-in
    of their own (``monkeypatch.setitem(sys.modules, "cupy", ...)`` after
    this).  test_cupy_call_shapes.py is not listed: it runs a real CuPy over
    host memory, in a child process."""
    path = str(request.node.path)
    if any(path.endswith(name) for name in _STAND_IN_TESTS):
        monkeypatch.setitem(sys.modules, "cupy", None)


def pytest_terminal_summary(terminalreporter):
    """The skipped tests, one line per reason (what is missing), with counts.

    Without a GPU, a SYCL device or the optional peers several hundred tests
    skip, many for the same reason from many files; pytest's own list
    (``-rs``) repeats a reason once per file and line.  pyproject.toml's
    ``-r`` leaves skips out of that list, and this section says them once."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    reasons: dict[str, int] = {}
    for report in skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    terminalreporter.section(
        f"{len(skipped)} skipped, by reason (what this machine lacks)", sep="-"
    )
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        terminalreporter.line(f"{count:5d}  {reason}")
