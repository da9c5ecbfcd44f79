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
