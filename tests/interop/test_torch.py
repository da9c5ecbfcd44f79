"""dlarray <-> PyTorch (``nox -s 'interop(torch)'``, the CPU wheel torch==2.13.0).

PyTorch speaks DLPack 1.3 with versioned capsules both ways and has bfloat16
and five fp8 types.  Its deviations, each asserted below so that a change
in PyTorch shows up here:

* no read-only tensors: a READ_ONLY capsule imports writable
  (https://github.com/data-apis/array-api/issues/191; read-only export was
  proposed in https://github.com/pytorch/pytorch/pull/188554, not merged);
* negative strides: ``torch.from_dlpack`` refuses a tensor with negative
  strides (https://github.com/pytorch/pytorch/issues/188023): torch 2.13
  aborts the process (a C++ check, SIGABRT), 2.14.1 and 2.15.0 raise
  ``RuntimeError: Storage size calculation overflowed``.  dlarray cannot see
  who consumes its capsule, so the safe call is
  ``torch.from_dlpack(x, copy=True)``, which dlarray answers with a compact
  copy (tested below; the refusal in a subprocess, as it may abort);
* its own ``__dlpack__`` defaults to ``stream=-1``, not the spec's None
  (https://github.com/pytorch/pytorch/issues/163242): dlarray always passes
  ``stream`` explicitly, and accepts -1 on CPU memory;
* it raises ``RuntimeError``/``NotImplementedError``/``ValueError`` where the
  spec says ``BufferError`` for a device it cannot export to: dlarray turns
  those into its own copy, or into ``BufferError`` under ``copy=False``;
* fp4: ``float4_e2m1fn_x2`` is exported as (code 17, bits 4, lanes 2), two
  fp4 values per element; DLPack's fp4 has lanes 1, so dlarray refuses it
  with ``BufferError`` rather than guess the packing.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from peer_suite import (
    TORCH_FP8_DTYPES,
    InteropSuite,
    PeerUnderTest,
    address,
    bits,
    dlarray_bits,
    dlarray_sample,
    host_sample,
    import_peer,
)

import dlarray
from dlarray._peers import peer_named

torch = import_peer("torch")

PEER = PeerUnderTest(peer_named("torch"), torch, kinds=["cpu"])
to_host = PEER.host

# Whether this torch aborts on negative strides (up to 2.13) or raises
# (2.14 on): the deviation declared on torch's row says.
NEGATIVE_STRIDES_ABORT = PEER.deviations["export", "negative_strides"].aborts
TORCH_FP8 = list(TORCH_FP8_DTYPES)


class TestTorch(InteropSuite):
    peer = PEER


# ---- PyTorch's deviations, and how dlarray copes ----


def test_negative_strides_refused_by_torch_so_ask_for_a_copy() -> None:
    # In a child process: torch's import of a negative-stride tensor fails a
    # C++ check, which torch 2.13 lets abort the process (SIGABRT) and later
    # releases raise as RuntimeError.
    crash = textwrap.dedent(
        """
        import dlarray, torch
        x = dlarray.reshape(dlarray.arange(24.0), (4, 6))[::-1, ::-2]
        torch.from_dlpack(x)
        """
    )
    done = subprocess.run([sys.executable, "-c", crash], capture_output=True, text=True)
    refusal = "Storage size calculation overflowed with sizes=[4, 3] and strides=[-6, -2]"
    if NEGATIVE_STRIDES_ABORT:
        assert done.returncode == -signal.SIGABRT, done.stderr
        assert f"what():  {refusal}" in done.stderr
    else:
        assert done.returncode == 1, done.stderr
        assert f"RuntimeError: {refusal}" in done.stderr
    # The safe call: with copy=True dlarray exports a compact copy.
    x = dlarray_sample("float32", "cpu", (4, 6))[::-1, ::-2]
    t = torch.from_dlpack(x, copy=True)
    assert t.stride() == (3, 1)
    assert np.array_equal(bits(to_host(t)), dlarray_bits(x))
    assert t.data_ptr() != address(x)


def test_read_only_memory_reaches_torch_writable() -> None:
    a = np.arange(4.0)
    a.flags.writeable = False
    x = dlarray.from_dlpack(a)
    t = torch.from_dlpack(x)  # READ_ONLY is in the capsule; torch has no such tensors
    assert t.data_ptr() == a.ctypes.data
    # The safe call for a consumer that ignores the flag: hand it a copy.
    copied = torch.from_dlpack(x, copy=True)
    copied += 1
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_dlarray_accepts_torch_stream_default_on_cpu() -> None:
    x = dlarray.asarray([1.0, 2.0])
    capsule = x.__dlpack__(stream=-1, max_version=(1, 3))  # what torch sends by default
    assert torch.from_dlpack(capsule).tolist() == [1.0, 2.0]


def test_dlarray_passes_stream_none_to_torch_explicitly() -> None:
    seen: list[dict[str, object]] = []

    class Recorder:
        def __init__(self, t: torch.Tensor) -> None:
            self.t = t

        def __dlpack_device__(self) -> object:
            return self.t.__dlpack_device__()

        def __dlpack__(self, **kwargs: object) -> object:
            seen.append(kwargs)
            return self.t.__dlpack__(**kwargs)

    dlarray.from_dlpack(Recorder(torch.arange(3.0)))
    assert seen == [{"max_version": (1, 3), "stream": None}]


@pytest.mark.parametrize(
    ("device", "torch_raises"),
    [("cuda_host", "BufferError"), ("sycl", "RuntimeError")],
)
def test_torch_refusing_a_device_is_a_buffer_error_under_copy_false(
    device: str, torch_raises: str
) -> None:
    # PyTorch cannot export to these devices and says so with whatever
    # exception its backend raises; dlarray reports a BufferError naming it.
    t = torch.arange(3.0)
    with pytest.raises(BufferError, match=f"{torch_raises}.*copy=False"):
        dlarray.from_dlpack(t, device=device, copy=False)


@pytest.mark.parametrize(
    "make_tensor",
    [
        lambda: torch.ones(3, dtype=torch.complex64).conj(),
        lambda: torch.ones(3).to_sparse(),
        lambda: torch.ones(3, device="meta"),
    ],
    ids=["conjugate_bit", "sparse", "meta"],
)
@pytest.mark.parametrize("copy", [None, False])
def test_tensors_torch_will_not_export_are_buffer_errors(
    make_tensor: object, copy: bool | None
) -> None:
    # torch's exchange table refuses sparse and meta tensors with a
    # RuntimeError and exports conjugated ones as if they were not; dlarray
    # then asks __dlpack__, whose BufferError is what the user sees.
    with pytest.raises(BufferError, match=r"^Can't export|^Cannot pack"):
        dlarray.from_dlpack(make_tensor(), copy=copy)  # type: ignore[operator]


def test_tensors_that_require_grad_get_torchs_own_refusal() -> None:
    # PyTorch's __dlpack__ refuses a tensor that requires grad; its C
    # exchange table (made for kernels called inside autograd) exports it.
    # dlarray must not be the way around the refusal: such tensors take
    # the protocol, and torch's BufferError reaches the caller.
    t = torch.ones(3, requires_grad=True)
    with pytest.raises(BufferError, match="require gradient"):
        t.__dlpack__()
    for copy in (None, False, True):
        with pytest.raises(BufferError, match=r"require gradient.*detach"):
            dlarray.from_dlpack(t, copy=copy)
    with torch.no_grad():  # no_grad does not change what the tensor is
        with pytest.raises(BufferError, match="require gradient"):
            dlarray.from_dlpack(t)
    x = dlarray.from_dlpack(t.detach())  # the explicit way: shares memory
    assert x._data + x._byte_offset == t.data_ptr() and not x.readonly


def test_torch_conjugated_tensors_never_arrive_unconjugated() -> None:
    # torch's table hands out a conjugated tensor's memory without the
    # conjugation; dlarray does not import complex data through tables.
    t = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64)
    with pytest.raises(BufferError, match="conjugate"):
        dlarray.from_dlpack(t.conj())
    assert np.from_dlpack(dlarray.from_dlpack(t.conj().resolve_conj())).tolist() == [1 - 2j, 3 + 1j]


def test_torch_negative_bit_is_lost_by_torch_itself() -> None:
    # A deviation of PyTorch 2.13 that no consumer can detect: a tensor with
    # the negative bit (the imaginary part of a conjugated tensor) exports
    # its memory un-negated through __dlpack__ and through its table alike.
    t = torch.tensor([1 + 2j], dtype=torch.complex64).conj().imag
    assert t.is_neg() and t.tolist() == [-2.0]
    assert np.from_dlpack(dlarray.from_dlpack(t)).tolist() == [2.0]
    assert np.from_dlpack(t).tolist() == [2.0]
    assert np.from_dlpack(dlarray.from_dlpack(t.resolve_neg())).tolist() == [-2.0]


def test_torch_fp4_x2_is_refused_cleanly() -> None:
    # Two fp4 values per element (lanes=2); DLPack's fp4 is one per element.
    t = torch.zeros(4, dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
    with pytest.raises(BufferError, match="lanes=2"):
        dlarray.from_dlpack(t)


def test_torch_reads_dlarray_bfloat16_and_fp8_values() -> None:
    for name in ["bfloat16", *TORCH_FP8]:
        x = dlarray_sample(name, "cpu")
        t = torch.from_dlpack(x)
        want = host_sample(name).astype(np.float32)
        assert t.float().tolist() == want.tolist(), name
