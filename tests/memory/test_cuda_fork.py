"""CUDA and ``os.fork``: a child forked after the parent loaded the CUDA
runtime cannot use it (the driver does not survive a fork), and dlarray says
so, as a CUDAUnavailableError naming the fix, instead of failing in the
driver (cudaErrorInitializationError, seen on an H100 in a forked test)."""

from __future__ import annotations

import os
import sys

import pytest
from fake_cuda import FakeRuntime
from isolation import isolated

import dlarray
from dlarray._cuda import runtime as cuda_runtime

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="this platform has no os.fork")


def _in_a_forked_child(call) -> str:
    """What ``call()`` raised in a forked child (its type and message), or
    "no error"."""

    def said() -> str:
        try:
            call()
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        return "no error"

    return isolated(said)


@pytest.fixture
def loaded(monkeypatch):
    """The parent has loaded a runtime (a stand-in here: what matters is that
    it was loaded before the fork), with no test override over it."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setattr(cuda_runtime, "_override", None)
    monkeypatch.setattr(cuda_runtime, "_loaded", FakeRuntime(gpus=1))
    monkeypatch.setattr(cuda_runtime, "_missing", None)


def test_a_child_forked_after_cuda_loaded_is_told_to_spawn(loaded):
    said = _in_a_forked_child(lambda: dlarray.zeros(3, device="cuda"))
    assert said.startswith("CUDAUnavailableError: CUDA was initialised in this process's parent")
    assert "'spawn'" in said
    assert cuda_runtime.available()  # the parent keeps its runtime


def test_the_child_refuses_exchanges_as_buffer_errors(loaded):
    # A copy to the GPU that cannot be made is an exchange that cannot happen.
    x = dlarray.asarray([1.0, 2.0])
    said = _in_a_forked_child(lambda: x.__dlpack__(max_version=(1, 3), dl_device=(2, 0)))
    assert said.startswith("CUDAUnavailableError: ")
    assert issubclass(dlarray.CUDAUnavailableError, BufferError)


def test_a_child_forked_before_cuda_loaded_loads_it_itself(monkeypatch):
    # Nothing was loaded before the fork, so the child looks for itself: the
    # same answer as the parent's (a GPU or the reason there is none).
    monkeypatch.setattr(cuda_runtime, "_override", None)
    monkeypatch.setattr(cuda_runtime, "_loaded", None)
    monkeypatch.setattr(cuda_runtime, "_missing", None)
    said = _in_a_forked_child(cuda_runtime.runtime)
    assert "CUDA was initialised" not in said
