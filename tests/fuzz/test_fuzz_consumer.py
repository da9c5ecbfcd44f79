"""Fuzzing dlarray's consumer with hostile ctypes producers.

Every example builds one ``abi.Producer`` from a :class:`fuzz_hostile.Hostile`
configuration and imports it through ``dlarray.from_dlpack`` (the C fast
path, the Python path with ``copy=False``, ``copy=True`` or ``device="cpu"``)
or ``dlarray._core.consume``, and checks against :mod:`fuzz_model`:

* the import raises nothing but BufferError, ValueError or TypeError;
* a tensor the rules forbid is refused, a well-formed one accepted;
* a refused capsule stays the producer's: its name is unchanged and the
  deleter has not run; its destructor then releases the tensor once;
* a tensor of another major version is taken and released at once;
* an accepted tensor's capsule is renamed ``used_...``, its deleter runs
  exactly once, after the last array over it dies, and the array shows
  exactly the shape, strides, dtype, device, first-element address,
  read-only and padding flags the producer sent (and its elements, where
  they lie in a real buffer);
* views of an accepted tensor (an index, a reversal, a slice, a
  transposition; none reads an element) either raise one of the three
  types or start at exactly the address the strides say: layout
  arithmetic never wraps around;
* dlarray never writes to the producer's tensor struct.

PYTEST_DONT_REWRITE: pytest's assertion rewriting would print the arrays an
assertion names, reading memory that an accepted hostile tensor only claims
to have; every assertion here says what it needs in its own message.
"""

from __future__ import annotations

from typing import Any

import abi
import fuzz_hostile
import fuzz_model
import numpy as np
import pytest
from fuzz_budget import fuzz
from fuzz_hostile import Hostile, RecordingProducer
from fuzz_oracles import Result, assert_allowed, attempt, producers_of_one_example, settled
from fuzz_stats import Outcome
from isolation import maybe_isolated

import dlarray
from dlarray import _core

NUMPY_DTYPES = {
    (0, 8): "i1",
    (0, 16): "i2",
    (0, 32): "i4",
    (0, 64): "i8",
    (1, 8): "u1",
    (1, 16): "u2",
    (1, 32): "u4",
    (1, 64): "u8",
    (2, 16): "f2",
    (2, 32): "f4",
    (2, 64): "f8",
    (5, 64): "c8",
    (5, 128): "c16",
    (6, 8): "?",
}


def _import(route: str, producer: RecordingProducer) -> Result:
    if route == "consume":
        capsule = producer.make_capsule()
        return attempt(lambda: _core.consume(capsule))
    kwargs: dict[str, Any] = {
        "from_dlpack": {},
        "from_dlpack_copy_false": {"copy": False},
        "from_dlpack_copy_true": {"copy": True},
        "from_dlpack_device_cpu": {"device": "cpu"},
    }[route]
    return attempt(lambda: dlarray.from_dlpack(producer, **kwargs))


def _check_refused(case: Hostile, p: RecordingProducer, verdict: fuzz_model.Verdict) -> None:
    [capsule] = p.held_capsules
    name = p.capsule_name_given()
    if verdict.kind == "other_major":
        assert abi.capsule_name(capsule) == b"used_" + name, "another major's capsule is taken"
        want = 1 if case.deleter else 0
        assert len(p.deleter_calls) == want, "another major's tensor is released at once"
        return
    assert abi.capsule_name(capsule) == name, "a refused capsule must keep its name"
    assert p.deleter_calls == [], "dlarray released a tensor it refused"


def _check_fields(x: Any, sent: dict[str, Any]) -> None:
    """The imported array describes exactly what the producer sent."""
    shape, _ = fuzz_model.dims_of(sent)
    want_strides = fuzz_model.expected_strides(sent)
    first = (sent["data"] or 0) + sent["byte_offset"]
    readonly = bool(sent["versioned"] and sent["flags"] & fuzz_model.FLAG_READ_ONLY)
    owner = x._owner
    assert isinstance(owner, _core.ImportedTensor), type(owner)
    got = {
        "shape": x.shape,
        "strides agree": fuzz_model.same_layout(shape, list(x._strides), want_strides),
        "dtype": x._dl_dtype,
        "device": x._dl_device,
        "readonly": x.readonly,
        "padded": x._padded,
        "first element": x._data + x._byte_offset,
        "owner.pointer": owner.pointer,
        "owner.device": owner.device,
        "owner.versioned": owner.versioned,
        "owner.version": owner.version,
        "owner.flags": owner.flags,
    }
    want = {
        "shape": tuple(shape),
        "strides agree": True,
        "dtype": sent["dtype"],
        "device": fuzz_model.expected_device(sent),
        "readonly": readonly,
        "padded": fuzz_model.is_padded(sent),
        "first element": first,
        "owner.pointer": first,
        "owner.device": sent["device"],
        "owner.versioned": sent["versioned"],
        "owner.version": sent["version"] if sent["versioned"] else (0, 0),
        "owner.flags": sent["flags"] if sent["versioned"] else 0,
    }
    wrong = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
    assert not wrong, f"the import differs from what was sent (got, sent): {wrong}"


def _check_elements(x: Any, case: Hostile, p: RecordingProducer, sent: dict[str, Any]) -> None:
    """Where the elements lie in the producer's buffer, dlarray reads them
    there (NumPy reads the array through dlarray's export)."""
    numpy_dtype = NUMPY_DTYPES.get(sent["dtype"][:2])
    if numpy_dtype is None or sent["dtype"][2] != 1 or sent["device"][0] != 1:
        return
    if not fuzz_hostile.buffer_safe(case) or not 0 < x.size <= 256:
        return
    shape, _ = fuzz_model.dims_of(sent)
    strides = fuzz_model.expected_strides(sent)
    itemsize = np.dtype(numpy_dtype).itemsize
    got = np.from_dlpack(x)
    if got.dtype == np.bool_:
        got = got.view(np.uint8)  # a NumPy bool scalar reads any nonzero byte as 1
    raw = p.buffer.raw
    first = case.data_offset + case.byte_offset
    for index in np.ndindex(*shape):
        at = first + sum(i * s for i, s in zip(index, strides, strict=True)) * itemsize
        element, stored = got[index].tobytes(), raw[at : at + itemsize]
        assert element == stored, f"element {index} reads {element!r}, the buffer has {stored!r}"


def _address(x: Any) -> int:
    return x._data + x._byte_offset


def _check_views(x: Any, sent: dict[str, Any]) -> None:
    """Views along the first axis start where the strides say, or raise
    (a view without elements has no address to check)."""
    if x.ndim == 0 or x.shape[0] < 2 or x.size == 0:
        return
    item_bits = fuzz_model.storage_bits(sent["dtype"], x._padded)
    if item_bits % 8:
        return  # packed sub-byte elements have no address of their own
    step = x._strides[0] * item_bits // 8
    last = x.shape[0] - 1
    views = {
        "x[-1]": (lambda: x[last], _address(x) + last * step),
        "x[::-1]": (lambda: x[::-1], _address(x) + last * step),
        "x[1:]": (lambda: x[1:], _address(x) + step),
        "axes reversed": (lambda: dlarray.permute_dims(x, tuple(range(x.ndim))[::-1]), _address(x)),
    }
    for name, (make, want) in views.items():
        view = attempt(make)
        assert_allowed(view, what=name)
        if view.error is None:
            got = _address(view.value)
            assert got == want, f"{name} starts at {got:#x}, its strides say {want:#x}"


def _check_accepted(
    x: Any, case: Hostile, p: RecordingProducer, sent: dict[str, Any], route: str
) -> None:
    [capsule] = p.held_capsules
    name = p.capsule_name_given()
    assert abi.capsule_name(capsule) == b"used_" + name, "a taken capsule is renamed used_..."
    is_import = isinstance(x._owner, _core.ImportedTensor)
    if route != "from_dlpack_copy_true" or is_import:
        assert p.deleter_calls == [], "the tensor was released while an array uses it"
        _check_fields(x, sent)
    else:  # dlarray's own copy
        shape, _ = fuzz_model.dims_of(sent)
        got = (x.shape, x._dl_dtype, x.readonly)
        assert got == (tuple(shape), sent["dtype"], False), f"the copy: {got}"
    _check_elements(x, case, p, sent)
    _check_views(x, sent)
    if route == "consume":
        again = attempt(lambda: _core.consume(capsule))
        assert isinstance(again.error, ValueError), "a consumed capsule is refused next time"
        assert p.deleter_calls == [], "a second import released the tensor"


def _outcome(verdict: fuzz_model.Verdict, result: Result) -> Outcome:
    state = "accepted" if result.error is None else "refused"
    return Outcome(f"{state} ({verdict.kind})", result.raised)


def _check_released(p: RecordingProducer, case: Hostile, verdict: fuzz_model.Verdict) -> None:
    """Once the capsule died too, the deleter has run exactly once in all
    (never for a tensor that was not handed over in a DLPack capsule)."""
    want = 1 if case.deleter and verdict.kind not in ("not_dlpack", "consumed") else 0
    address = p.capsule_addresses[0]
    p.drop_capsules()
    assert settled(lambda: p.deletes_of(address) == want), (
        f"the deleter ran {p.deletes_of(address)} times in all, not {want}"
    )


def import_hostile_tensor(case: Hostile) -> Outcome:
    with producers_of_one_example():
        p = fuzz_hostile.make_producer(case)
        result = _import(case.route, p)
        assert_allowed(result, what=f"import through {case.route}")
        assert len(p.sent) == 1, "the producer is asked once"
        sent = p.sent[0]
        verdict = fuzz_model.judge(sent, p.capsule_name_given())
        outcome = _outcome(verdict, result)
        if result.error is None:
            assert verdict.kind in ("must_accept", "either"), (
                f"dlarray accepted a tensor it must refuse ({verdict.kind}: {verdict.reasons})"
            )
            _check_accepted(result.value, case, p, sent, case.route)
        else:
            assert verdict.kind != "must_accept", f"a valid tensor was refused:\n{result.trace}"
            _check_refused(case, p, verdict)
        accepted = result.error is None
        result = Result()  # drops the array, or a traceback that may hold the capsule
        if accepted:
            want = 1 if case.deleter else 0
            assert settled(lambda: len(p.deleter_calls) == want), (
                f"the deleter ran {len(p.deleter_calls)} times once the arrays died, not {want}"
            )
        if verdict.kind not in ("not_dlpack", "consumed"):
            [capsule] = p.held_capsules
            now = abi.read_capsule(capsule) | {"name": sent["name"]}
            changed = {k: (sent[k], now[k]) for k in sent if now[k] != sent[k]}
            assert not changed, f"dlarray wrote to the producer's tensor: {changed}"
            del capsule
        _check_released(p, case, verdict)
    return outcome


@fuzz(fuzz_hostile.hostile())
def test_hostile_tensor_is_refused_or_imported_faithfully_and_released_once(
    case: Hostile,
) -> Outcome:
    """Hostile tensors through every import route: only the three error
    types, the model's refusals, faithful imports, one release each."""
    return maybe_isolated(import_hostile_tensor, case)


#: Empty shapes at NumPy's size limit, where the model and the consumer
#: once disagreed (CI, stop 38): the nonzero extents times the element's
#: bytes decide, not the nonzero extents alone.
EMPTY_AT_THE_LIMIT = [
    # (shape, dtype, what the model must say)
    ((0, 2**62), (0, 16, 1), "must_refuse"),  # 2**63 bytes
    ((0, 2**62 - 1), (0, 16, 1), "must_accept"),  # 2**63 - 2 bytes
    ((2**62, 0), (2, 64, 1), "must_refuse"),
    ((0, 2**63 - 1), (0, 8, 1), "must_accept"),
    ((0, 2**63 - 1), (17, 4, 1), "must_accept"),  # a sub-byte element holds one byte
    ((0, 2**62, 2), (15, 6, 1), "must_refuse"),
    ((0, 2**31, 2**31), (2, 16, 1), "must_refuse"),
]


@pytest.mark.parametrize(("shape", "dtype", "kind"), EMPTY_AT_THE_LIMIT)
def test_empty_shape_at_numpys_size_limit_is_judged_and_handled_alike(
    shape: tuple[int, ...], dtype: tuple[int, int, int], kind: str
) -> None:
    case = Hostile(versioned=False, version=(1, 0), shape=shape, dtype=dtype, buffer_size=2)
    outcome = maybe_isolated(import_hostile_tensor, case)
    want = ("accepted" if kind == "must_accept" else "refused") + f" ({kind})"
    assert outcome.verdict == want, f"{shape} {dtype}: {outcome}, not {want}"
