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

from typing import Any

import numpy as np
import pytest
from peer_suite import (
    FP8_DTYPES,
    LAYOUTS,
    STANDARD_DTYPES,
    SUBBYTE_DTYPES,
    Deviation,
    InteropSuite,
    Peer,
    address,
    dlarray_bits,
    dlarray_sample,
    import_peer,
)

import dlarray
from dlarray._engine import numpy_engine

tvm_ffi = import_peer("tvm_ffi", "tvm_ffi")


def make(host: np.ndarray, kind: str) -> Any:
    """A tvm-ffi tensor over a fresh dlarray array holding ``host``'s bits."""
    if host.dtype.name in SUBBYTE_DTYPES:
        x = dlarray_sample(host.dtype.name, kind, host.shape)  # same values, packed
    else:
        x = dlarray.asarray(numpy_engine.from_numpy(host), copy=True)
        x = x if kind == "cpu" else x.to_device(dlarray.Device(kind, 0))
    return tvm_ffi.from_dlpack(x)


def view(base: Any, layout: str) -> Any:
    """A tvm-ffi tensor with ``layout``: tvm-ffi cannot slice, so the view is
    made in dlarray over the same memory and wrapped again."""
    return tvm_ffi.from_dlpack(LAYOUTS[layout](dlarray.from_dlpack(base)))


PEER = Peer(
    name="tvm_ffi",
    module=tvm_ffi,
    kinds=["cpu"],
    dtypes=[*STANDARD_DTYPES, "bfloat16", *FP8_DTYPES, *SUBBYTE_DTYPES],
    make=make,
    # Read back through dlarray; that the import itself is zero-copy and
    # exact is what test_import_every_dtype_zero_copy checks.
    host=lambda t: dlarray_bits(dlarray.from_dlpack(t)),
    pointer=lambda t: t.data_ptr(),
    consume=tvm_ffi.from_dlpack,
    view=view,
    asks_versioned=False,
    consume_keywords=(),
    # tvm-ffi takes DLArrays through dlarray's C exchange table, whose
    # versioned tensors carry READ_ONLY, and has no read-only tensors: it
    # ignores the flag (before dlarray had a table, it asked __dlpack__ for
    # a legacy capsule, which dlarray refused for read-only memory).
    read_only_import="ignored",
    deviations={
        ("import", "copy=True"): Deviation(
            "tvm-ffi tensors cannot copy: BufferError('copy not yet supported')",
            "https://github.com/apache/tvm-ffi/pull/301",
            raises=BufferError,
        ),
    },
)


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
