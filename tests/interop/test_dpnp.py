"""dlarray <-> dpnp on SYCL USM memory (``nox -s 'interop(dpnp)'``).

The session installs dpnp, dpctl and Intel's OpenCL runtime for x86-64
CPUs, which makes this machine's CPU a SYCL device with USM (docs/sycl.md).
Every test runs on each USM kind: ``sycl`` (device), ``sycl_shared`` and
``sycl_host``, all exchanged as ``(kDLOneAPI, device_id)``.

dpnp follows the specification (versioned capsules, READ_ONLY, ``copy``
and ``device`` keywords, queues as streams).  Its deviations, each asserted
by the shared suite or below:

* dpctl's exports put the allocation's base in ``data`` with a nonzero
  ``byte_offset`` (https://github.com/IntelPython/dpctl/issues/1397
  discusses its device ids; the offset is in ``dpctl/tensor/_dlpack.pyx``),
  which dlarray honours;
* no bfloat16, fp8, fp6 or fp4: those dtypes cannot be made in dpnp;
* a kDLOneAPI tensor's memory must belong to the device's default context;
  dlarray checks that before it takes ownership (see tests/sycl/).
"""

from __future__ import annotations

import numpy as np
import pytest
from peer_suite import (
    REQUIRED_PEERS,
    CapsuleSpy,
    InteropSuite,
    PeerUnderTest,
    address,
    dlarray_sample,
    import_peer,
)

import dlarray
from dlarray._peers import peer_named

dpnp = import_peer("dpnp")

from dlarray._sycl import runtime  # noqa: E402  (after the skip when dpnp is absent)

if not runtime.available():
    reason = runtime.no_device_reason()
    if "dpnp" in REQUIRED_PEERS:
        raise RuntimeError(f"interop(dpnp) needs a SYCL device: {reason}")
    pytest.skip(f"no SYCL device: {reason}", allow_module_level=True)

USM_TYPE = {"sycl": "device", "sycl_shared": "shared", "sycl_host": "host"}

PEER = PeerUnderTest(peer_named("dpnp"), dpnp, kinds=list(USM_TYPE))
pointer = PEER.pointer


class TestDpnp(InteropSuite):
    peer = PEER


def test_imports_are_labelled_with_the_usm_kind() -> None:
    for kind, usm_type in USM_TYPE.items():
        x = dlarray.from_dlpack(dpnp.arange(4.0, usm_type=usm_type))
        assert x.device == dlarray.Device(kind, 0)


def test_dpnp_computes_on_dlarray_memory_in_place() -> None:
    x = dlarray.asarray([1.0, 2.0, 3.0], device="sycl_shared")
    a = dpnp.from_dlpack(x)
    assert pointer(a) == address(x)
    a *= 2  # dpnp's kernel writes into dlarray's USM allocation
    assert np.from_dlpack(x.to_device("cpu")).tolist() == [2.0, 4.0, 6.0]


def test_dpnp_passes_a_queue_or_none_as_the_stream() -> None:
    spy = CapsuleSpy(dlarray_sample("float32", "sycl"))
    dpnp.from_dlpack(spy)
    assert spy.kwargs is not None
    stream = spy.kwargs.get("stream")
    assert stream is None or type(stream).__name__ == "SyclQueue"
