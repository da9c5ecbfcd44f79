"""The GPU check (tests/cuda/device_check.sh) on a machine without a GPU:
it must say so and exit 3 quickly, before building anything, so that a run
on the wrong machine costs seconds and is told apart from a failed check."""

from __future__ import annotations

import ctypes
import pathlib
import shutil
import subprocess
import time

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "cuda" / "device_check.sh"


def _gpu_visible() -> bool:
    """The script's own question, asked the same way (the CUDA driver)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return False
    return count.value > 0


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")
@pytest.mark.skipif(
    _gpu_visible(), reason="an NVIDIA GPU is visible: the no-GPU exit cannot be seen here"
)
def test_without_a_gpu_the_check_exits_3_at_once(tmp_path):
    started = time.monotonic()
    done = subprocess.run(
        ["bash", str(SCRIPT), str(tmp_path / "report")],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    assert "no NVIDIA GPU visible" in done.stdout
    assert elapsed < 60
    # It stopped before building or testing: no report folder was made.
    assert not (tmp_path / "report").exists()
