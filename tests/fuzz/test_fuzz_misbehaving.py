"""Fuzzing ``dlarray.from_dlpack`` with producers that misbehave (see
:mod:`fuzz_misbehaving`), through each of its routes.

What must hold whatever the misbehaviour:

* nothing but BufferError, ValueError or TypeError comes out, except the
  producer's own exception, passed through (or as the cause of dlarray's);
* ``__dlpack__`` is called once -- twice only to ask a producer that
  rejected DLPack 1.0's keywords for a legacy capsule, which happens only
  when that TypeError is about keywords and neither ``copy`` nor
  ``device`` was asked for (a TypeError from the producer's own code is
  its error, not a reason to ask again);
* anything that is not an unconsumed DLPack capsule is refused, and a
  capsule returned twice is imported once;
* every tensor handed over in a DLPack-named capsule is released exactly
  once in the end, by dlarray after the array dies or by the capsule's
  destructor; tensors handed over under another name are never released
  by dlarray.
"""

from __future__ import annotations

from typing import Any

import fuzz_misbehaving
from fuzz_budget import fuzz
from fuzz_misbehaving import Misbehaving, Misbehaviour
from fuzz_oracles import (
    Result,
    assert_allowed,
    attempt,
    from_producer,
    producers_of_one_example,
    settled,
)
from fuzz_stats import Outcome
from isolation import maybe_isolated

import dlarray

KWARGS: dict[str, dict[str, Any]] = {
    "plain": {},
    "copy_false": {"copy": False},
    "copy_true": {"copy": True},
    "device_cpu": {"device": "cpu"},
}


def _import(p: Misbehaving, route: str) -> Result:
    kwargs = KWARGS[route]
    return attempt(lambda: dlarray.from_dlpack(p, **kwargs))


def _check_calls(m: Misbehaviour, p: Misbehaving, result: Result) -> None:
    calls = len(p.calls)
    if m.kind == "rejects_keywords":
        # A signature that rejects the keywords records no call.
        refusals = 1 if m.detail == "raises_in_body" else 0
        if m.route == "plain":
            assert result.error is None, f"an old producer is asked again:\n{result.trace}"
            assert calls == refusals + 1 and "max_version" not in p.calls[-1], p.calls
        else:
            assert isinstance(result.error, TypeError), "device/copy cannot be dropped silently"
            assert calls == refusals, p.calls
    elif m.kind in ("raises", "internal_type_error", "returns"):
        assert calls == 1, f"__dlpack__ was called {calls} times: {p.calls}"
    elif m.kind == "device":
        assert calls <= 2, p.calls


def _check_error(m: Misbehaviour, p: Misbehaving, result: Result) -> None:
    error = result.error
    if m.kind in ("raises", "internal_type_error"):
        assert error is not None and (
            from_producer(error, p.raised) or isinstance(error, type(p.raised))
        ), f"the producer's failure was lost:\n{result.trace or 'no error'}"
    if m.kind in ("returns", "not_callable"):
        assert error is not None, f"from_dlpack accepted {m.detail}"


def _check_release(p: Misbehaving, arrays: list[Any], route: str) -> None:
    """No tensor released while an array uses it (``copy=True`` gives an
    array of dlarray's own); each DLPack-named one released exactly once
    after everything is dropped."""
    inner = p.inner
    if arrays and route != "copy_true":
        assert inner.deleter_calls == [], "a tensor was released while an array uses it"
    arrays.clear()
    p.cached = None
    inner.drop_capsules()
    for address in inner.capsule_addresses:
        want = 0 if address in p.renamed else 1
        assert settled(lambda a=address, w=want: inner.deletes_of(a) == w), (
            f"tensor {address:#x} released {inner.deletes_of(address)} times, not {want}"
        )


def import_from_misbehaving_producer(m: Misbehaviour) -> Outcome:
    with producers_of_one_example():
        p = fuzz_misbehaving.make(m)
        result = _import(p, m.route)
        assert_allowed(result, own=p.raised, what=f"from_dlpack through {m.route}")
        _check_calls(m, p, result)
        _check_error(m, p, result)
        arrays = [] if result.error is not None else [result.value]
        outcome = Outcome("imported" if arrays else "refused", result.raised)
        result = Result()
        if m.kind == "same_capsule" and arrays:
            again = _import(p, m.route)
            assert isinstance(again.error, ValueError), "a capsule can be imported only once"
        p.raised = None  # its traceback holds the frames of the import
        _check_release(p, arrays, m.route)
    return outcome


@fuzz(fuzz_misbehaving.misbehaviours())
def test_misbehaving_producer_cannot_make_from_dlpack_crash_leak_or_double_free(
    m: Misbehaviour,
) -> Outcome:
    """Misbehaving ``__dlpack__``/``__dlpack_device__``, every route: only
    the allowed errors or the producer's own, no needless second call, and
    each tensor released exactly once."""
    return maybe_isolated(import_from_misbehaving_producer, m)
