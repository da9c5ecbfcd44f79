"""dlarray <-> JAX (``nox -s 'interop(jax)'``).

JAX 0.10 has bfloat16 and every fp8 type through ml_dtypes.  Its
deviations, each asserted below:

* legacy capsules only, both ways: it never passes ``max_version`` and
  ignores it when asked (its DLPack version is 0.8;
  https://github.com/jax-ml/jax/issues/20200).  dlarray exports a legacy
  capsule and imports JAX's, which carries no flags, so a JAX array arrives
  writable although JAX arrays are immutable: do not write into it.  A
  read-only DLArray cannot go to JAX at all (``BufferError``: a legacy
  capsule cannot say read-only);
* only compact layouts import: sliced and negative-stride views raise
  (https://github.com/jax-ml/jax/issues/17784), and transposed and 0-d
  views are copied into JAX's own buffer rather than shared;
* ``from_dlpack(x, copy=True)`` of aligned CPU memory returns an array that
  shares ``x``'s memory: later writes to ``x`` show through the "copy"
  (jax 0.10.2; its copy semantics came with
  https://github.com/jax-ml/jax/pull/29963).  A real copy for JAX is
  ``jax.dlpack.from_dlpack(dlarray.asarray(x, copy=True))``;
* no fp6 (XLA has no such type, so there is nothing to exchange), and fp4
  goes one way only: JAX exports it (packed, as DLPack says) but refuses
  to import it on the CPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from peer_suite import (
    InteropSuite,
    PeerUnderTest,
    address,
    dlarray_sample,
    import_peer,
)

import dlarray
from dlarray._peers import peer_named

jax = import_peer("jax")
jax.config.update("jax_enable_x64", True)  # int64, float64, complex128
jnp = jax.numpy

PEER = PeerUnderTest(peer_named("jax"), jax, kinds=["cpu"])
pointer = PEER.pointer


class TestJax(InteropSuite):
    peer = PEER


# ---- JAX's deviations, and how dlarray copes ----


def test_jax_ignores_max_version_and_dlarray_takes_the_legacy_capsule() -> None:
    a = jnp.arange(4.0)
    capsule = a.__dlpack__(max_version=(1, 3))
    assert "dltensor_versioned" not in repr(capsule)
    x = dlarray.from_dlpack(a)
    assert x._owner.versioned is False
    assert address(x) == pointer(a)


def test_a_jax_array_arrives_writable_because_its_capsule_has_no_flags() -> None:
    # JAX arrays are immutable, but a legacy capsule cannot say so.
    x = dlarray.from_dlpack(jnp.arange(4.0))
    assert x.readonly is False


def test_read_only_dlarray_to_jax_is_refused_and_a_copy_works() -> None:
    a = np.arange(4.0)
    a.flags.writeable = False
    x = dlarray.from_dlpack(a)
    with pytest.raises(BufferError, match="legacy 'dltensor' capsule cannot mark"):
        jax.dlpack.from_dlpack(x)
    # jax's copy=True is its own copy, made after the export; the export
    # itself must be of writable memory: hand JAX a copy.
    with pytest.raises(BufferError, match="read-only"):
        jax.dlpack.from_dlpack(x, copy=True)
    copied = jax.dlpack.from_dlpack(dlarray.asarray(x, copy=True))
    assert copied.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_compact_copy_of_a_strided_view_goes_to_jax() -> None:
    view = dlarray_sample("float32", "cpu", (4, 6))[::-1, ::-2]
    compact = dlarray.asarray(view, copy=True)
    got = jax.dlpack.from_dlpack(compact)
    assert pointer(got) == address(compact)
    assert np.array_equal(np.asarray(got), np.from_dlpack(compact))


def test_jax_copy_true_shares_memory_so_copy_in_dlarray() -> None:
    x = dlarray_sample("float32", "cpu")
    aliased = jax.dlpack.from_dlpack(x, copy=True)
    x[0] = 100.0
    assert float(aliased[0]) == 100.0  # the "copy" saw the write
    y = dlarray_sample("float32", "cpu")
    copied = jax.dlpack.from_dlpack(dlarray.asarray(y, copy=True))
    y[0] = 100.0
    assert float(copied[0]) != 100.0


def test_jax_asks_for_the_stream_only() -> None:
    from peer_suite import CapsuleSpy

    spy = CapsuleSpy(dlarray.asarray([1.0]))
    jax.dlpack.from_dlpack(spy)
    assert spy.kwargs == {"stream": None}
