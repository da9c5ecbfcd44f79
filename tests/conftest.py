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
    for producer in made:
        producer.drop_capsules()
    gc.collect()
    for producer in made:
        assert producer.callback_errors == []


# The tests that see a real CuPy: those that compute with it (on a GPU in
# tests/cuda/, the interop matrix, the call-shape test in its child process)
# and the consumer suites (array-api-compat looks CuPy up in sys.modules and
# takes a None there for the module).
_REAL_CUPY_TESTS = (
    os.path.join("tests", "cuda") + os.sep,
    os.path.join("tests", "clients") + os.sep,
    os.path.join("tests", "interop", "test_cupy.py"),
    os.path.join("tests", "test_cupy_call_shapes.py"),
)


@pytest.fixture(autouse=True)
def _cupy_only_where_asked(request, monkeypatch):
    """Hide a real CuPy from every other test.

    CuPy imports without a GPU, and once a module of the run has imported it
    (the interop matrix does, at collection), dlarray asks it for its current
    stream (its work stream, see dlarray._cuda.streams) -- which needs a
    driver.  The tests of the stand-in CUDA runtime are about dlarray's own
    calls, whichever module ran before them, so they see no CuPy unless they
    install a stand-in of their own (``monkeypatch.setitem(sys.modules,
    "cupy", ...)`` after this)."""
    path = str(request.node.path)
    if not any(part in path for part in _REAL_CUPY_TESTS):
        monkeypatch.setitem(sys.modules, "cupy", None)
