"""dlarray <-> CuPy on CUDA memory (``nox -s 'interop(cupy)'``, or the whole
suite on a GPU machine with ``nox -s cuda``).

Runs only where a GPU and CuPy exist; elsewhere every test skips, saying
which is missing (the ``interop(cupy)`` session says so and exits 0 before
installing anything).  CuPy speaks versioned capsules (1.0) and follows the
spec's stream rules.  Its deviations, each asserted below:

* READ_ONLY is ignored on import (a TODO in ``cupy/_core/dlpack.pyx``;
  https://github.com/data-apis/array-api/issues/191): read-only memory
  arrives writable;
* as producer, ``__dlpack__(copy=True)`` raises ``BufferError`` on the same
  device ("copy=True only supported for copy to CPU",
  https://github.com/cupy/cupy/issues/9842), so
  ``dlarray.from_dlpack(cupy_array, copy=True)`` passes that refusal on;
  import, then copy in dlarray.  (As consumer CuPy forwards ``copy=True``
  to dlarray, which copies and sets IS_COPIED.)
* ``dl_device=(kDLCPU, 0)`` with ``copy=False`` raises ``ValueError``
  instead of ``BufferError``; dlarray's consumer reports a ``BufferError``;
* a stream of 0 is accepted with a warning (the spec forbids it; dlarray
  refuses it, see tests/cuda/);
* up to 14.2 (at least), a negative stride is exported divided as unsigned
  numbers (https://github.com/cupy/cupy/issues/10172): ``a[::-1, ::-2]`` of
  float32 arrives with strides (2**62 - 6, 2**62 - 2) instead of (-6, -2).
  dlarray refuses such strides at import with ``BufferError`` naming the
  issue; ask CuPy for a contiguous copy first.
"""

from __future__ import annotations

import re
from typing import Any

import abi
import numpy as np
import pytest
from peer_suite import (
    LAYOUTS,
    CapsuleSpy,
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
from dlarray import _core
from dlarray._cuda import runtime
from dlarray._peers import peer_named

try:
    runtime.runtime()
except runtime.CUDAUnavailableError as missing:
    pytest.skip(f"no usable GPU for the CuPy interop tests: {missing}", allow_module_level=True)

cupy = import_peer("cupy")

PEER = PeerUnderTest(peer_named("cupy"), cupy, kinds=["cuda"])
# cupy/cupy#10172, declared in dlarray/_peers.py for the CuPy releases that have it.
NEGATIVE_STRIDES_WRONG = PEER.deviation("import", "negative_strides") is not None


class TestCupy(InteropSuite):
    peer = PEER


def test_the_refusal_of_cupys_negative_strides_names_its_issue() -> None:
    if not NEGATIVE_STRIDES_WRONG:
        pytest.skip(f"CuPy {cupy.__version__} exports negative strides right")
    view = LAYOUTS["negative_strides"](cupy.zeros((4, 6), dtype=cupy.float32))
    with pytest.raises(BufferError, match=re.escape("cupy/cupy/issues/10172")):
        dlarray.from_dlpack(view)


def test_cupy_capsule_strides_of_a_negative_stride_view() -> None:
    # What the deviation is, read in CuPy's own capsule: element strides
    # (-6, -2), or, with cupy#10172, the byte strides (-24, -8) divided by 4
    # as unsigned 64-bit numbers.
    a = LAYOUTS["negative_strides"](cupy.zeros((4, 6), dtype=cupy.float32))
    assert a.strides == (-24, -8)
    capsule = a.__dlpack__(max_version=(1, 0))
    strides = abi.read_capsule(capsule)["strides"]
    del capsule  # never consumed: CuPy's destructor releases it
    assert strides == ([2**62 - 6, 2**62 - 2] if NEGATIVE_STRIDES_WRONG else [-6, -2])


def test_cupy_negative_strides_import_through_a_contiguous_copy() -> None:
    # The way round cupy#10172: a contiguous copy has no negative stride.
    host = host_sample("float32", (4, 6))
    view = LAYOUTS["negative_strides"](cupy.asarray(host))
    x = dlarray.from_dlpack(cupy.ascontiguousarray(view))
    assert np.array_equal(dlarray_bits(x), bits(LAYOUTS["negative_strides"](host)))


class FlagSpy(CapsuleSpy):
    """A CapsuleSpy that also reads the flags of the capsule handed out."""

    flags: int | None = None

    def __dlpack__(self, **kwargs: Any) -> Any:
        capsule = super().__dlpack__(**kwargs)
        self.flags = abi.read_capsule(capsule)["flags"]
        return capsule


def test_cupy_copy_true_gets_a_copy_from_dlarray() -> None:
    # CuPy as consumer forwards copy=True; dlarray, the producer, copies on
    # the same GPU and says so with IS_COPIED.
    x = dlarray_sample("float32", "cuda")
    spy = FlagSpy(x)
    copied = cupy.from_dlpack(spy, copy=True)
    assert spy.kwargs is not None and spy.kwargs["copy"] is True
    assert spy.flags is not None and spy.flags & _core.FLAG_IS_COPIED
    assert int(copied.data.ptr) != address(x)
    assert copied.device.id == 0
    before = dlarray_bits(x)
    assert np.array_equal(cupy.asnumpy(copied).view("u4"), before)
    copied[0] = -1  # the copy is CuPy's to write; x keeps its values
    assert np.array_equal(dlarray_bits(x), before)


def test_dlarray_copy_true_of_a_cupy_array_is_copied_in_dlarray() -> None:
    # CuPy as producer refuses copy=True (the deviation above): import, then copy.
    a = cupy.arange(4.0)
    with pytest.raises(BufferError, match="copy=True"):
        dlarray.from_dlpack(a, copy=True)
    copied = dlarray.asarray(dlarray.from_dlpack(a), copy=True)
    assert address(copied) != int(a.data.ptr)
    assert np.from_dlpack(copied.to_device("cpu")).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_cupy_to_the_host_under_copy_false_is_a_buffer_error() -> None:
    a = cupy.arange(4.0)
    with pytest.raises(BufferError, match="copy=False"):
        dlarray.from_dlpack(a, device="cpu", copy=False)


def test_cupy_computes_on_dlarray_memory_in_place() -> None:
    x = dlarray.asarray([1.0, 2.0, 3.0], device="cuda")
    a = cupy.from_dlpack(x)
    a *= 2
    cupy.cuda.get_current_stream().synchronize()
    assert np.from_dlpack(x.to_device("cpu")).tolist() == [2.0, 4.0, 6.0]
