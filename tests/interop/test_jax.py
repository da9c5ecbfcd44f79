"""dlarray <-> JAX (``nox -s 'interop(jax)'``; ``nox -s latest`` runs the newest).

JAX has bfloat16 and every fp8 type through ml_dtypes.  Its deviations,
each asserted below, depend on the release (``dlarray._peers``: JAX's row
and its ``revised`` fields):

* before 0.12, legacy capsules only, both ways: it never passes
  ``max_version`` and ignores it when asked (DLPack 0.8;
  https://github.com/jax-ml/jax/issues/20200).  dlarray exports a legacy
  capsule and imports JAX's, which carries no flags, so a JAX array arrives
  writable although JAX arrays are immutable: do not write into it.  A
  read-only DLArray cannot go to JAX at all (``BufferError``: a legacy
  capsule cannot say read-only).  From 0.12 JAX asks for and exports
  versioned capsules, and its arrays arrive read-only;
* only compact layouts import: sliced and negative-stride views raise
  (https://github.com/jax-ml/jax/issues/17784), and transposed and 0-d
  views are copied into JAX's own buffer rather than shared;
* before 0.12, ``from_dlpack(x, copy=True)`` of aligned CPU memory returns
  an array that shares ``x``'s memory: later writes to ``x`` show through the
  "copy" (its copy semantics came with https://github.com/jax-ml/jax/pull/29963).
  A real copy for those releases is
  ``jax.dlpack.from_dlpack(dlarray.asarray(x, copy=True))``;
* no fp6 (XLA has no such type, so there is nothing to exchange), and fp4
  goes one way only before 0.12.1: JAX exports it (packed, as DLPack says)
  but refuses to import it on the CPU.
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


#: JAX before 0.12 speaks DLPack 0.8 (the row's revised fields say which).
LEGACY = not PEER.exports_versioned


def test_dlarray_takes_the_capsule_kind_jax_exports() -> None:
    a = jnp.arange(4.0)
    capsule = a.__dlpack__(max_version=(1, 3))
    assert ("dltensor_versioned" in repr(capsule)) is not LEGACY
    x = dlarray.from_dlpack(a)
    assert x._owner.versioned is not LEGACY
    assert address(x) == pointer(a)


def test_a_jax_array_arrives_read_only_where_its_capsule_can_say_so() -> None:
    # JAX arrays are immutable; a legacy capsule cannot say so, a versioned one does.
    x = dlarray.from_dlpack(jnp.arange(4.0))
    assert x.readonly is not LEGACY


def test_read_only_dlarray_to_jax() -> None:
    a = np.from_dlpack(dlarray_sample("float64", "cpu"))  # aligned: JAX copies other memory
    a.flags.writeable = False
    x = dlarray.from_dlpack(a)
    if not LEGACY:  # a versioned capsule carries READ_ONLY, and JAX arrays are immutable
        shared = jax.dlpack.from_dlpack(x)
        assert pointer(shared) == address(x)
        assert np.array_equal(np.asarray(shared), a)
        return
    with pytest.raises(BufferError, match="legacy 'dltensor' capsule cannot mark"):
        jax.dlpack.from_dlpack(x)
    # jax's copy=True is its own copy, made after the export; the export
    # itself must be of writable memory: hand JAX a copy.
    with pytest.raises(BufferError, match="read-only"):
        jax.dlpack.from_dlpack(x, copy=True)
    copied = jax.dlpack.from_dlpack(dlarray.asarray(x, copy=True))
    assert np.array_equal(np.asarray(copied), a)


def test_a_compact_copy_of_a_strided_view_goes_to_jax() -> None:
    view = dlarray_sample("float32", "cpu", (4, 6))[::-1, ::-2]
    compact = dlarray.asarray(view, copy=True)
    got = jax.dlpack.from_dlpack(compact)
    assert pointer(got) == address(compact)
    assert np.array_equal(np.asarray(got), np.from_dlpack(compact))


def test_jax_copy_true_copies_from_0_12_and_a_dlarray_copy_works_on_every_release() -> None:
    x = dlarray_sample("float32", "cpu")
    copied_by_jax = jax.dlpack.from_dlpack(x, copy=True)
    x[0] = 100.0
    assert (float(copied_by_jax[0]) == 100.0) is LEGACY  # before 0.12 the "copy" saw the write
    y = dlarray_sample("float32", "cpu")
    copied = jax.dlpack.from_dlpack(dlarray.asarray(y, copy=True))
    y[0] = 100.0
    assert float(copied[0]) != 100.0


def test_jax_asks_for_the_stream_and_from_0_12_a_versioned_capsule() -> None:
    from peer_suite import CapsuleSpy

    spy = CapsuleSpy(dlarray.asarray([1.0]))
    jax.dlpack.from_dlpack(spy)
    assert spy.kwargs == ({"stream": None} if LEGACY else {"stream": None, "max_version": (1, 3)})
