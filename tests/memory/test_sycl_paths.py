"""SYCL code paths that need no SYCL device: device naming, the import
check's refusals, and what dlarray says when dpctl or a device is missing.
(The real device is tested in tests/sycl/, in the ``sycl`` nox session.)"""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys

import abi
import pytest

import dlarray
from dlarray._install import pip_install
from dlarray._sycl import runtime as sycl_runtime


def test_the_three_usm_kinds_share_kdloneapi():
    for kind in ("sycl", "sycl_shared", "sycl_host"):
        assert dlarray.Device(kind, 2).dlpack == (14, 2)
    # A bare pair names device memory.
    assert dlarray.Device.from_dlpack((14, 1)) == dlarray.Device("sycl", 1)


def test_import_dlarray_does_not_import_dpctl():
    code = "import sys, dlarray; dlarray.zeros(3); print('dpctl' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_kdloneapi_import_without_sycl_is_refused_and_left_to_the_producer(monkeypatch):
    def no_sycl():
        raise dlarray.SYCLUnavailableError("dpctl sees no SYCL device (test)")

    monkeypatch.setattr(sycl_runtime, "root_devices", no_sycl)
    producer = abi.Producer(device=(14, 0))
    try:
        dlarray._core.from_dlpack(producer)  # the C fast path, which hands over to the check
    except BufferError as exc:
        message = str(exc)
    else:
        raise AssertionError("imported without SYCL")
    assert "kDLOneAPI" in message and "no SYCL device" in message
    assert abi.capsule_name(producer.held_capsules[-1]) == b"dltensor_versioned"  # unconsumed
    producer.drop_capsules()
    gc.collect()
    assert len(producer.deleter_calls) == 1


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("dpctl") is not None, reason="dpctl is installed"
)
def test_sycl_memory_without_dpctl_names_the_extra():
    advice = re.escape(pip_install("sycl"))  # the command for this installation
    with pytest.raises(dlarray.SYCLUnavailableError, match=advice):
        dlarray.zeros(3, device="sycl")
    with pytest.raises(BufferError):  # also what a DLPack consumer catches
        dlarray.zeros(3, device="sycl_host")
    assert not any(d.kind.startswith("sycl") for d in dlarray.__array_namespace_info__().devices())


def test_no_device_reason_names_the_icd_variable(monkeypatch, tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libintelocl.so").write_bytes(b"")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.delenv("OCL_ICD_FILENAMES", raising=False)
    monkeypatch.delenv("ONEAPI_DEVICE_SELECTOR", raising=False)
    reason = sycl_runtime.no_device_reason()
    assert f"OCL_ICD_FILENAMES={os.path.join(str(tmp_path), 'lib', 'libintelocl.so')}" in reason


def test_no_device_reason_names_the_selector_trap(monkeypatch):
    monkeypatch.setenv("ONEAPI_DEVICE_SELECTOR", "opencl:cpu")
    assert "'*:cpu'" in sycl_runtime.no_device_reason()


def test_no_device_reason_suggests_a_runtime(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.delenv("ONEAPI_DEVICE_SELECTOR", raising=False)
    assert "intel-opencl-rt" in sycl_runtime.no_device_reason()
