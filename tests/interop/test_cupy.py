"""dlarray <-> CuPy on CUDA memory (``nox -s 'interop(cupy)'``, or the whole
suite on a GPU machine with ``nox -s cuda``).

Runs only where a GPU and CuPy exist; elsewhere every test skips, saying
which is missing (the ``interop(cupy)`` session says so and exits 0 before
installing anything).  CuPy speaks versioned capsules (1.0) and follows the
spec's stream rules.  Its deviations, each asserted below:

* READ_ONLY is ignored on import (a TODO in ``cupy/_core/dlpack.pyx``;
  https://github.com/data-apis/array-api/issues/191): read-only memory
  arrives writable;
* ``from_dlpack(x, copy=True)`` raises ``BufferError`` on the same device
  (https://github.com/cupy/cupy/issues/9842); copy in dlarray first;
* ``dl_device=(kDLCPU, 0)`` with ``copy=False`` raises ``ValueError``
  instead of ``BufferError``; dlarray's consumer reports a ``BufferError``;
* a stream of 0 is accepted with a warning (the spec forbids it; dlarray
  refuses it, see tests/cuda/).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from peer_suite import (
    STANDARD_DTYPES,
    InteropSuite,
    Peer,
    address,
    dlarray_bits,
    dlarray_sample,
    import_peer,
)

import dlarray
from dlarray._cuda import runtime

try:
    runtime.runtime()
except runtime.CUDAUnavailableError as missing:
    pytest.skip(f"no usable GPU for the CuPy interop tests: {missing}", allow_module_level=True)

cupy = import_peer("cupy", "cupy")


def make(host: np.ndarray, kind: str) -> Any:
    with cupy.cuda.Device(0):
        return cupy.asarray(host)


PEER = Peer(
    name="cupy",
    module=cupy,
    kinds=["cuda"],
    dtypes=STANDARD_DTYPES,
    make=make,
    host=cupy.asnumpy,
    pointer=lambda a: int(a.data.ptr),
    consume=cupy.from_dlpack,
    consume_keywords=(),  # copy=True raises on the same device: tested below
    read_only_import="ignored",
)


class TestCupy(InteropSuite):
    peer = PEER


def test_cupy_copy_true_raises_so_copy_in_dlarray() -> None:
    x = dlarray_sample("float32", "cuda")
    with pytest.raises(BufferError):
        cupy.from_dlpack(x, copy=True)
    copied = cupy.from_dlpack(dlarray.asarray(x, copy=True))
    assert int(copied.data.ptr) != address(x)
    assert np.array_equal(cupy.asnumpy(copied).view("u4"), dlarray_bits(x))


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
