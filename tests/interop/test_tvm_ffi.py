"""dlarray <-> tvm-ffi (``nox -s 'interop(tvm_ffi)'``, apache-tvm-ffi).

tvm-ffi is a consumer and a carrier, not an array library: it has no array
constructor, so its tensors here wrap dlarray memory (``tvm_ffi.from_dlpack``)
and are then handed back.  It knows every DLPack dtype dlarray has except
complex.  Its deviations, each asserted below:

* it asks for legacy capsules (it calls ``__dlpack__()`` with no
  ``max_version`` when the producer has no C exchange table; see
  ``favor_legacy_dlpack`` in https://github.com/apache/tvm-ffi/pull/301),
  so a read-only DLArray is refused with ``BufferError`` (a legacy capsule
  cannot say read-only); its own tensors export versioned capsules;
* complex tensors cross, zero-copy, but tvm-ffi cannot name their dtype:
  ``Tensor.dtype`` raises ``ValueError`` ("unknown type_code=5"); no upstream
  issue found as of 2026-11;
* its tensors cannot copy: ``__dlpack__(copy=True)`` raises
  ``BufferError("copy not yet supported")``, which
  ``dlarray.from_dlpack(t, copy=True)`` passes on unchanged (dlarray never
  second-guesses a producer's error); copy after importing instead:
  ``dlarray.asarray(dlarray.from_dlpack(t), copy=True)``;
* ``from_dlpack`` takes no ``device``/``copy`` keywords (``TypeError``).
"""

from __future__ import annotations

import numpy as np
import pytest
from peer_suite import (
    InteropSuite,
    PeerUnderTest,
    address,
    dlarray_bits,
    dlarray_sample,
    import_peer,
)

import dlarray
from dlarray._peers import peer_named

tvm_ffi = import_peer("tvm_ffi")


PEER = PeerUnderTest(peer_named("tvm_ffi"), tvm_ffi, kinds=["cpu"])


class TestTvmFfi(InteropSuite):
    peer = PEER


# ---- tvm-ffi's deviations ----


@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_tvm_ffi_carries_complex_but_cannot_name_it(name: str) -> None:
    x = dlarray_sample(name, "cpu")
    t = tvm_ffi.from_dlpack(x)
    assert t.data_ptr() == address(x)
    with pytest.raises(ValueError, match="type_code=5"):
        _ = t.dtype


def test_tvm_ffi_tensors_cannot_copy_so_copy_after_importing() -> None:
    x = dlarray_sample("float32", "cpu")
    t = tvm_ffi.from_dlpack(x)
    with pytest.raises(BufferError, match="copy"):
        t.__dlpack__(max_version=(1, 3), copy=True)
    with pytest.raises(BufferError, match="copy not yet supported"):
        dlarray.from_dlpack(t, copy=True)  # the producer's refusal, unchanged
    copied = dlarray.asarray(dlarray.from_dlpack(t), copy=True)
    assert address(copied) != address(x)
    assert np.array_equal(dlarray_bits(copied), dlarray_bits(x))


def test_tvm_ffi_from_dlpack_takes_no_copy_or_device() -> None:
    x = dlarray.asarray([1.0])
    with pytest.raises(TypeError):
        tvm_ffi.from_dlpack(x, copy=True)


def test_a_tvm_ffi_tensor_round_trips_through_numpy() -> None:
    x = dlarray_sample("float64", "cpu", (3, 4))
    t = tvm_ffi.from_dlpack(x.T)
    a = np.from_dlpack(t)
    assert a.ctypes.data == address(x)
    assert a.shape == (4, 3)
    assert np.array_equal(a, np.from_dlpack(x).T)
