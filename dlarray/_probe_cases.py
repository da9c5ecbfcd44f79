"""The cases of ``python -m dlarray probe``: what the referee feeds and asks.

A :class:`Case` runs against one library (a :class:`dlarray._peers.Peer`
row and its imported module) in the probe's child process and returns an
:class:`Outcome`: ``"ok"`` (the library does what the DLPack specification
says), ``"deviation"`` (it does something else: wrong values, the wrong
error, a write through a read-only import, a deleter not called exactly
once), ``"not supported"`` (it refuses with the error the specification
names, for something the specification lets it refuse) or ``"needs
package"`` (the case cannot be judged here without an optional package:
bfloat16, fp8, fp6 and fp4 values are made and read back on NumPy's side
as ml_dtypes arrays; the outcome names the package and its install
command).

*Consumer* cases hand the library's ``from_dlpack`` a :class:`ToyArray`, a
producer whose capsules :class:`dlarray.abi.ToyProducer` builds field by
field (nonzero ``byte_offset``, negative strides, NULL strides, flags,
versions, every DLPack 1.3 dtype, devices), then read the import back
through the library's own API (``Peer.to_numpy``) and count the toy's
deleter calls.  *Producer* cases read the library's own capsules with
:func:`dlarray.abi.describe` (float32 arrays, and one array of each
extended float type) and wrap its deleter in a counter.

Messages are kept whole (the first line of an exception's message): the
probe's text report wraps them at word boundaries, its JSON carries them
as they are.

:data:`PROTOCOL_CASES` lists them in the order they run, and
:mod:`dlarray._probe_exchange_cases` has those of the C exchange table;
the parent process never runs one (a case may abort the process that runs
it).
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

import dlarray
from dlarray import abi
from dlarray._dtypes import dtypes
from dlarray._install import install_command
from dlarray._peers import FP8_DTYPES, SUBBYTE_DTYPES, Peer

OK, DEVIATION, NOT_SUPPORTED, NEEDS = "ok", "deviation", "not supported", "needs package"
CPU = (1, 0)

#: The dtypes whose values NumPy holds only as ml_dtypes arrays.
ML_DTYPES_HOLDS = frozenset(("bfloat16", *FP8_DTYPES, *SUBBYTE_DTYPES))


@dataclass(frozen=True)
class Outcome:
    """What one case found: ``verdict`` (ok, deviation, not supported, needs
    package), ``observed``, what the library did, in a few words, and
    ``needs``, the optional package a "needs package" outcome lacks."""

    verdict: str
    observed: str
    needs: str | None = None


def load_ml_dtypes() -> ModuleType | None:
    """ml_dtypes, imported, or None where it is not installed.

    Importing it registers its dtypes with NumPy, and on NumPy 2.5 or later
    in NumPy's registry of DLPack dtypes too: the probe's child imports it
    before the library, as a program exchanging bfloat16 would have."""
    try:  # ml_dtypes is optional: imported lazily, in the probe's child
        import ml_dtypes
    except ImportError:
        return None
    return ml_dtypes


def _needs_ml_dtypes(what: str) -> Outcome:
    return Outcome(
        NEEDS, f"{what} needs ml_dtypes: {install_command('ml-dtypes')}", needs="ml_dtypes"
    )


@dataclass(frozen=True)
class Case:
    """One check of the specification.

    Attributes
    ----------
    name : str
        Its key (in ``Peer.probe_links``, the JSON report, the docs).
    role : str
        ``"consumer"`` or ``"producer"``: which side of the library it checks.
    what : str
        What it feeds the library, or asks of it.
    spec : str
        What the specification says should happen.
    run : callable
        ``run(peer, module) -> Outcome``; it may raise, or abort the process.
    """

    name: str
    role: str
    what: str
    spec: str
    run: Callable[[Peer, ModuleType], Outcome]


def first_line(text: str) -> str:
    """The first line of a message, whole (later lines are backtraces, their
    addresses different on every run)."""
    lines = text.strip().splitlines()
    return lines[0].strip() if lines else ""


def error_line(exc: BaseException) -> str:
    """``Type: first line of the message``."""
    return f"{type(exc).__name__}: {first_line(str(exc))}".rstrip(": ")


# ---- the toy producer the consumer cases feed ----

#: Where a toy's memory starts: at a multiple of ALIGNMENT bytes.  A library
#: may import memory aligned that far without a copy and copy the rest (JAX
#: on the host does: 64 bytes), taking two roads that can disagree, so a
#: case must not leave the choice to wherever NumPy's allocator put it.
ALIGNMENT = 64
#: The second start :func:`_reads` tries: OFF_ALIGNMENT bytes past an
#: ALIGNMENT boundary, aligned for every element type (complex128's 16
#: bytes included) but not for such a zero-copy road.
OFF_ALIGNMENT = 16


def homed(memory: np.ndarray, past: int) -> np.ndarray:
    """A copy of ``memory`` starting ``past`` bytes after an ALIGNMENT boundary."""
    memory = np.ascontiguousarray(memory)
    raw = np.empty(memory.nbytes + 2 * ALIGNMENT, np.uint8)
    start = (past - raw.ctypes.data) % ALIGNMENT
    home = np.ndarray(memory.shape, memory.dtype, buffer=raw, offset=start)
    home[...] = memory
    return home


def where(past: int) -> str:
    """The words for a start ``past`` bytes after an ALIGNMENT boundary."""
    if past == 0:
        return f"at a {ALIGNMENT}-byte-aligned address"
    return f"at an address {past} bytes past a {ALIGNMENT}-byte boundary"


class ToyArray:
    """A DLPack producer over one tensor description, made by ToyProducer.

    It answers ``__dlpack__`` as the specification says a producer does:
    a versioned capsule when the consumer passes ``max_version`` of 1.0 or
    more, else a legacy one (refusing a read-only tensor a legacy capsule
    cannot mark, as NumPy does); it cannot copy or move.  ``asked`` records
    each call's ``max_version``.  Its memory is a copy of ``memory`` that
    starts ``past`` bytes after an ALIGNMENT boundary (:func:`homed`).
    """

    def __init__(
        self,
        memory: np.ndarray,
        *,
        answer: str = "asked",
        reuse: bool = False,
        device: tuple[int, int] = CPU,
        past: int = 0,
        **fields: Any,
    ) -> None:
        self.toy = abi.ToyProducer()
        self.memory = homed(memory, past)
        self.fields = fields
        self.answer = answer  # "asked", "legacy" or "versioned"
        self.device = device
        self.asked: list[tuple[int, int] | None] = []
        self._reused: Any = None
        self._reuse = reuse
        self.held: list[Any] = []
        self.made = 0

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        self.asked.append(None if max_version is None else tuple(max_version))  # type: ignore[arg-type]
        if copy:
            raise BufferError("the toy producer cannot copy")
        if dl_device is not None and tuple(dl_device) != self.device:
            raise BufferError("the toy producer cannot move its tensor")
        if self._reused is not None:
            return self._reused
        versioned = max_version is not None and max_version[0] >= 1
        if self.answer != "asked":
            versioned = self.answer == "versioned"
        if not versioned and self.fields.get("flags", 0) & abi.READ_ONLY:
            raise BufferError("a legacy capsule cannot carry READ_ONLY")
        fields = dict(self.fields)
        if not versioned:
            fields.pop("flags", None)
            fields.pop("version", None)
        capsule = self.toy.capsule(self.memory, versioned=versioned, device=self.device, **fields)
        # Held until drop(): a consumer that refuses the capsule drops it while
        # its exception propagates, and the toy's destructor, Python code, would
        # lose that exception (see ToyProducer).
        self.held.append(capsule)
        self.made += 1
        if self._reuse:
            self._reused = capsule
        return capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device

    def elsewhere(self, past: int) -> ToyArray:
        """A new toy of this one's tensor, its memory starting ``past`` bytes
        after an ALIGNMENT boundary."""
        return type(self)(
            self.memory, answer=self.answer, reuse=self._reuse, device=self.device, past=past,
            **self.fields,
        )  # fmt: skip

    def __repr__(self) -> str:
        # Libraries quote their argument in errors; no address, so that a
        # report says the same on every run.
        return "<the probe's toy producer>"

    def drop(self) -> None:
        """Let the capsules go: unconsumed ones release their tensor now."""
        self._reused = None
        self.held.clear()


def _same(got: Any, expected: np.ndarray) -> str | None:
    """None when ``got`` holds ``expected``'s elements, else what it holds."""
    got = np.asarray(got)
    if got.shape != expected.shape:
        return f"shape {got.shape}, not {expected.shape}"
    if got.size == 0:
        return None
    if got.dtype.itemsize == expected.dtype.itemsize:
        if np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(expected).tobytes():
            return None
    elif got.dtype.kind in "biufc" and np.array_equal(got, expected):
        return None  # the same values in the library's own default dtype (JAX: float32)
    shown = got.ravel()[:6].tolist()
    return f"the wrong elements {shown} (expected {expected.ravel()[:6].tolist()})"


def _deleter_note(toy: ToyArray) -> str | None:
    """None when the toy's deleter ran exactly once, else what happened."""
    calls = len(toy.toy.deleted)
    if calls == toy.made:  # each tensor made, released once
        return None
    if calls == 0:
        return "the deleter never ran (a leak)"
    return f"the deleter ran {calls} times (a double free)"


def consume_toy(peer: Peer, module: ModuleType, toy: ToyArray) -> tuple[Any, BaseException | None]:
    try:
        return peer.from_dlpack(module)(toy), None
    except Exception as exc:  # judged by the caller
        return None, exc


def finish_toy(toy: ToyArray, verdict: Outcome) -> Outcome:
    """Release everything, then add the deleter count to the verdict."""
    toy.drop()
    gc.collect()
    note = _deleter_note(toy)
    if note is None:
        return verdict
    observed = note if verdict.verdict == OK else f"{verdict.observed}; {note}"
    return Outcome(DEVIATION, observed)


def _reads(
    make: Callable[[], tuple[ToyArray, np.ndarray]],
    *,
    check_values: bool = True,
    refusal_ok: bool = False,
    read: bool = True,
    held_by_ml_dtypes: bool = False,
) -> Callable[[Peer, ModuleType], Outcome]:
    """A case the library must import with the right values; refusing with
    BufferError is "not supported" (``refusal_ok``: "ok").
    ``held_by_ml_dtypes``: reading the values back may go through NumPy,
    which holds them only as ml_dtypes arrays.

    The tensor is read twice, from memory at an ALIGNMENT boundary and
    OFF_ALIGNMENT bytes past one: the verdict is the worse of the two."""

    def read_at(toy: ToyArray, expected: np.ndarray, peer: Peer, module: ModuleType) -> Outcome:
        result, exc = consume_toy(peer, module, toy)
        if read or exc is not None:
            verdict = judge_read(
                peer, result, exc, expected, check_values, refusal_ok, held_by_ml_dtypes
            )
        else:
            verdict = Outcome(OK, "imports it")
        del result, exc
        return finish_toy(toy, verdict)

    def run(peer: Peer, module: ModuleType) -> Outcome:
        toy, expected = make()
        aligned = read_at(toy, expected, peer, module)
        off = read_at(toy.elsewhere(OFF_ALIGNMENT), expected, peer, module)
        return worse(aligned, off)

    return run


#: The order :func:`worse` ranks verdicts in, the best first.
RANK = (OK, NEEDS, NOT_SUPPORTED, DEVIATION)


def worse(aligned: Outcome, off: Outcome) -> Outcome:
    """One verdict for a tensor read from two starts (:func:`_reads`): the
    worse of the two, and where each was observed when they differ."""
    if aligned == off:
        return aligned
    pair = [(aligned, where(0)), (off, where(OFF_ALIGNMENT))]
    (first, at_first), (second, at_second) = sorted(pair, key=lambda p: -RANK.index(p[0].verdict))
    observed = f"{at_first}, {first.observed}; {at_second}, {second.observed}"
    return Outcome(first.verdict, observed, first.needs)


def judge_read(
    peer: Peer,
    result: Any,
    exc: BaseException | None,
    expected: np.ndarray,
    check_values: bool,
    refusal_ok: bool,
    held_by_ml_dtypes: bool = False,
) -> Outcome:
    if isinstance(exc, BufferError):
        return Outcome(OK if refusal_ok else NOT_SUPPORTED, f"refused: {error_line(exc)}")
    if exc is not None:
        return Outcome(DEVIATION, f"raises {error_line(exc)}")
    try:
        got = peer.to_numpy(result)
    except Exception as read_exc:
        # The library imported it; the probe's own read-back through NumPy
        # lacks ml_dtypes: that says nothing about the library.
        if held_by_ml_dtypes and load_ml_dtypes() is None:
            return _needs_ml_dtypes("imports it; reading its values back through NumPy")
        return Outcome(DEVIATION, f"imports, but reading it raises {error_line(read_exc)}")
    if not check_values:
        shape = tuple(np.shape(got))
        if shape[: len(expected.shape)] == expected.shape:
            return Outcome(OK, "imports with the right shape")
        return Outcome(DEVIATION, f"imports with shape {shape}, not {expected.shape}")
    wrong = _same(got, expected)
    if wrong is None:
        return Outcome(OK, "reads the right values")
    return Outcome(DEVIATION, f"reads {wrong}")


def _refuses(
    make: Callable[[], ToyArray], *, any_error: bool = False, needs_versioned: bool = False
) -> Callable[[Peer, ModuleType], Outcome]:
    """A case the library must refuse with BufferError (``any_error``: with
    any exception, never by importing or crashing)."""

    def run(peer: Peer, module: ModuleType) -> Outcome:
        toy = make()
        result, exc = consume_toy(peer, module, toy)
        if toy._reuse and exc is None:  # the same capsule, a second time
            first = result
            result, exc = consume_toy(peer, module, toy)
            del first
        if needs_versioned and not any(toy.asked):
            verdict = Outcome(NOT_SUPPORTED, "asks for legacy capsules only: none was sent")
        elif exc is None:
            verdict = Outcome(DEVIATION, "imports it")
        elif isinstance(exc, BufferError) or any_error:
            verdict = Outcome(OK, f"refuses: {error_line(exc)}")
        else:
            verdict = Outcome(DEVIATION, f"raises {error_line(exc)}, not BufferError")
        del result, exc
        return finish_toy(toy, verdict)

    return run


def float64_memory(n: int = 12) -> np.ndarray:
    return np.arange(n, dtype=np.float64) + 10.0


def _layout(
    shape: tuple[int, ...],
    strides: tuple[int, ...] | str | None,
    first: int,
    expected: Callable[[np.ndarray], np.ndarray],
    **fields: Any,
) -> Callable[[], tuple[ToyArray, np.ndarray]]:
    """float64 memory 10, 11, ...; the tensor starts at element ``first``."""

    def make() -> tuple[ToyArray, np.ndarray]:
        memory = float64_memory()
        toy = ToyArray(memory, shape=shape, strides=strides, byte_offset=first * 8, **fields)
        return toy, expected(memory)

    return make


def _read_only(peer: Peer, module: ModuleType) -> Outcome:
    memory = float64_memory(6)
    toy = ToyArray(memory, flags=abi.READ_ONLY)
    result, exc = consume_toy(peer, module, toy)
    verdict = judge_read(peer, result, exc, memory.copy(), True, False)
    if verdict.verdict == OK:
        if peer.write_first is None:
            verdict = Outcome(OK, "imports; its arrays cannot be written")
        else:
            try:
                peer.write_first(result)
                refused = None
            except Exception as write_exc:
                refused = error_line(write_exc)
            if toy.memory[0] != 10.0:
                verdict = Outcome(DEVIATION, "writes through the read-only import")
            elif refused is None:
                verdict = Outcome(OK, "imports a copy; writing leaves the producer's memory alone")
            else:
                verdict = Outcome(OK, f"imports read-only; a write raises {refused}")
    del result, exc
    return finish_toy(toy, verdict)


def _asks_max_version(peer: Peer, module: ModuleType) -> Outcome:
    toy = ToyArray(float64_memory(4))
    result, exc = consume_toy(peer, module, toy)
    del result
    asked = toy.asked[0] if toy.asked else "nothing"
    if exc is not None:
        verdict = Outcome(DEVIATION, f"raises {error_line(exc)}")
    elif isinstance(asked, tuple) and asked >= (1, 0):
        verdict = Outcome(OK, f"passes max_version={asked}")
    else:
        verdict = Outcome(DEVIATION, f"passes max_version={asked}: it asks for legacy capsules")
    del exc
    return finish_toy(toy, verdict)


# ---- dtypes ----


def _dtype_case(name: str, triple: tuple[int, int, int]) -> Case:
    code, bits, _ = triple

    def make() -> tuple[ToyArray, np.ndarray]:
        if name == "bool":
            memory = (np.arange(8) % 3 == 0).view(np.uint8)
        elif name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                      "float16", "float32", "float64", "complex64", "complex128"):  # fmt: skip
            memory = (np.arange(8) + 1).astype(name).view(np.uint8)
        else:  # bfloat16, fp8: bytes 1, 2, ... are small finite values
            memory = (np.arange(8 * bits // 8, dtype=np.uint8) % 50) + 1
        if bits < 8:  # fp6, fp4 packed: 8 bytes hold 64 // bits elements
            memory = np.arange(8, dtype=np.uint8) % 4
            shape = (64 // bits,)
            toy = ToyArray(memory, shape=shape, dtype=triple)
            return toy, np.zeros(shape, np.uint8)
        toy = ToyArray(memory, shape=(8,), dtype=triple)
        width = bits // 8
        standard = name not in ("bfloat16",) and not name.startswith("float8")
        expected = memory.view(name if standard else f"u{width}")
        return toy, expected

    return Case(
        f"dtype_{name}",
        "consumer",
        f"an 8-element {name} tensor (DLPack type code {code}, {bits} bits)",
        "imports it with its values, or raises BufferError",
        _reads(make, check_values=bits >= 8, held_by_ml_dtypes=name in ML_DTYPES_HOLDS),
    )


def _extended_values(ml_dtypes: ModuleType, name: str) -> np.ndarray:
    """Eight ``name`` values as an ml_dtypes array (powers of two: every
    extended type holds them, e8m0fnu included, rounded where it must)."""
    values = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 0.125, 1.0]
    return np.asarray(values, dtype=np.dtype(getattr(ml_dtypes, name)))


def _export_dtype_case(name: str, triple: tuple[int, int, int]) -> Case:
    code, bits, _ = triple

    def run(peer: Peer, module: ModuleType) -> Outcome:
        if "cpu" not in peer.make:
            return Outcome(NOT_SUPPORTED, "makes no host arrays here")
        ml_dtypes = load_ml_dtypes()
        if ml_dtypes is None:
            return _needs_ml_dtypes("making the values on NumPy's side")
        host = _extended_values(ml_dtypes, name)
        try:
            array = peer.make["cpu"](module, host, dlarray.Device("cpu", 0))
        except Exception as exc:
            if name not in peer.dtypes:  # as its row in dlarray._peers says
                return Outcome(NOT_SUPPORTED, "has no array of this type")
            return Outcome(NOT_SUPPORTED, f"makes no array of this type: {error_line(exc)}")
        try:
            capsule = array.__dlpack__(max_version=(1, 3))
        except BufferError as exc:
            return Outcome(NOT_SUPPORTED, f"refused: {error_line(exc)}")
        except Exception as exc:
            return Outcome(DEVIATION, f"raises {error_line(exc)}, not BufferError")
        d = abi.describe(capsule)
        if d.dtype != triple or d.device != CPU or d.shape != host.shape:
            return Outcome(
                DEVIATION, f"exports dtype {d.dtype}, device {d.device}, shape {d.shape}"
            )
        if bits < 8:  # packed in DLPack, one per byte in ml_dtypes: only the type is checked
            return Outcome(OK, f"exports DLPack type code {code}, {bits} bits (packed)")
        if d.strides not in (None, (1,)):
            return Outcome(DEVIATION, f"exports a compact array with strides {d.strides}")
        exported = ctypes.string_at(d.data + d.byte_offset, host.nbytes)  # the capsule holds it
        del capsule
        if exported != host.tobytes():
            return Outcome(DEVIATION, "exports other bytes than the array holds")
        return Outcome(OK, f"exports DLPack type code {code}, {bits} bits, its own values")

    return Case(
        f"export_dtype_{name}",
        "producer",
        f"__dlpack__(max_version=(1, 3)) of 8 {name} values (DLPack type code {code}, "
        f"{bits} bits), made from an ml_dtypes array",
        "the type's DLPack code and bits, lanes 1, and the array's bytes; or BufferError",
        run,
    )


# ---- producer cases ----

_KEEP: list[Any] = []  # counting deleters must outlive every capsule they are put in


def host_array(peer: Peer, module: ModuleType, host: np.ndarray | None = None) -> Any:
    """One of the library's arrays in host memory: ``host``'s values (by
    default a float32 (2, 3) array of 0 to 5)."""
    if host is None:
        host = np.arange(6, dtype=np.float32).reshape(2, 3)
    return peer.make["cpu"](module, host, dlarray.Device("cpu", 0))


def _describe_call(array: Any, **keywords: Any) -> abi.TensorDescription:
    capsule = array.__dlpack__(**keywords)
    return abi.describe(capsule)


def producer_case(
    check: Callable[[Peer, ModuleType, Any], Outcome],
) -> Callable[[Peer, ModuleType], Outcome]:
    """A case's run from ``check(peer, module, array)`` on one of the
    library's host arrays: not supported where it makes none or refuses
    with ``BufferError``, a deviation where it raises anything else."""

    def run(peer: Peer, module: ModuleType) -> Outcome:
        if "cpu" not in peer.make:
            return Outcome(NOT_SUPPORTED, "makes no host arrays here")
        array = host_array(peer, module)
        try:
            return check(peer, module, array)
        except BufferError as exc:
            return Outcome(NOT_SUPPORTED, f"refused: {error_line(exc)}")
        except Exception as exc:
            return Outcome(DEVIATION, f"raises {error_line(exc)}")

    return run


def _export_versioned(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    d = _describe_call(array, max_version=(1, 3))
    if d.capsule_name != "dltensor_versioned":
        return Outcome(DEVIATION, f"answers max_version=(1, 3) with a {d.capsule_name!r} capsule")
    if d.version is None or d.version[0] != 1:
        return Outcome(DEVIATION, f"answers with version {d.version}")
    return Outcome(OK, f"a versioned capsule, version {d.version[0]}.{d.version[1]}")


def _export_legacy(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    d = _describe_call(array)
    if d.capsule_name != "dltensor":
        return Outcome(DEVIATION, f"answers no max_version with a {d.capsule_name!r} capsule")
    return Outcome(OK, "a legacy capsule")


def _export_strides(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    d = _describe_call(array, max_version=(1, 3))
    if d.strides is not None:
        return Outcome(OK, f"strides {d.strides}")
    if d.version is not None and d.version >= (1, 2):
        return Outcome(DEVIATION, f"NULL strides in a version {d.version} tensor")
    return Outcome(OK, f"NULL strides, allowed for version {d.version or '< 1.0'}")


def _export_zero_copy(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    d = _describe_call(array, max_version=(1, 3))
    if d.data + d.byte_offset == peer.pointer(array):
        return Outcome(OK, "exports its own memory")
    return Outcome(DEVIATION, "exports other memory than the array's")


def _export_read_only(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    if peer.mark_read_only is None:
        return Outcome(NOT_SUPPORTED, "has no read-only arrays")
    d = _describe_call(peer.mark_read_only(array), max_version=(1, 3))
    if d.flags is None:
        return Outcome(DEVIATION, "exports a read-only array in a legacy capsule, without flags")
    if d.flags & abi.READ_ONLY:
        return Outcome(OK, "sets READ_ONLY")
    return Outcome(DEVIATION, "does not set READ_ONLY")


def _export_copy_true(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    d = _describe_call(array, max_version=(1, 3), copy=True)
    if d.data + d.byte_offset == peer.pointer(array):
        return Outcome(DEVIATION, "copy=True exports the array's own memory")
    if d.flags is None:
        return Outcome(DEVIATION, "copies, in a legacy capsule that cannot say IS_COPIED")
    if not d.flags & abi.IS_COPIED:
        return Outcome(DEVIATION, "copies but does not set IS_COPIED")
    return Outcome(OK, "copies and sets IS_COPIED")


def _export_copy_false(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    d = _describe_call(array, max_version=(1, 3), copy=False)
    if d.data + d.byte_offset != peer.pointer(array):
        return Outcome(DEVIATION, "copy=False exports other memory")
    if d.flags is not None and d.flags & abi.IS_COPIED:
        return Outcome(DEVIATION, "copy=False sets IS_COPIED")
    return Outcome(OK, "exports its own memory")


def _export_dl_device(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    d = _describe_call(array, max_version=(1, 3), dl_device=CPU)
    if d.device != CPU:
        return Outcome(DEVIATION, f"dl_device=(1, 0) exports device {d.device}")
    return Outcome(OK, "exports on kDLCPU")


def _export_dl_device_foreign(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    try:
        d = _describe_call(array, max_version=(1, 3), dl_device=(99, 0))
    except BufferError as exc:
        return Outcome(OK, f"refuses: {error_line(exc)}")
    except Exception as exc:
        return Outcome(DEVIATION, f"raises {error_line(exc)}, not BufferError")
    return Outcome(DEVIATION, f"exports on device {d.device} when asked for (99, 0)")


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _count_deleter(capsule: Any) -> list[int]:
    """Wrap the capsule's deleter in one that counts its calls."""
    m = abi.managed(capsule)
    original = _Deleter(m.deleter)
    calls: list[int] = []

    def counting(address: int) -> None:
        calls.append(address)
        original(address)

    wrapper = _Deleter(counting)
    _KEEP.append((wrapper, original))
    m.deleter = ctypes.cast(wrapper, ctypes.c_void_p).value
    del m
    return calls


def _export_deleter(peer: Peer, module: ModuleType, array: Any) -> Outcome:
    keywords: dict[str, Any] = {"max_version": (1, 3)}
    unconsumed = array.__dlpack__(**keywords)
    calls = _count_deleter(unconsumed)
    del unconsumed
    gc.collect()
    consumed = array.__dlpack__(**keywords)
    consumed_calls = _count_deleter(consumed)
    imported = abi.consume(consumed)
    del imported, consumed
    gc.collect()
    if (len(calls), len(consumed_calls)) == (1, 1):
        return Outcome(OK, "once for an unconsumed capsule, once after an import")
    if (len(calls), len(consumed_calls)) == (0, 1):
        return Outcome(
            OK,
            "once after an import; an unconsumed capsule is freed by a destructor "
            "that does not go through the struct's deleter, which cannot be counted",
        )
    return Outcome(
        DEVIATION,
        f"the deleter ran {len(calls)} time(s) for an unconsumed capsule and "
        f"{len(consumed_calls)} after an import; DLPack says once",
    )


# ---- the table ----


def _consumer_cases() -> list[Case]:
    reads = "imports it with the right values"
    cases = [
        Case(
            "versioned",
            "consumer",
            "a 2x3 float64 tensor in a versioned capsule",
            reads,
            _reads(_layout((2, 3), "contiguous", 0, lambda m: m[:6].reshape(2, 3))),
        ),
        Case(
            "asks_max_version",
            "consumer",
            "a producer that records what the consumer asks",
            "a DLPack >= 1.0 consumer passes max_version",
            _asks_max_version,
        ),
        Case(
            "legacy_capsule",
            "consumer",
            "a producer older than DLPack 1.0: a legacy 'dltensor' capsule whatever is asked",
            "a consumer still accepts legacy capsules",
            _reads(lambda: (ToyArray(float64_memory(6), answer="legacy"), float64_memory(6))),
        ),
        Case(
            "byte_offset_1d",
            "consumer",
            "data at the buffer's start, byte_offset = 2 elements, shape (4,)",
            "the first element is at data + byte_offset",
            _reads(_layout((4,), "contiguous", 2, lambda m: m[2:6])),
        ),
        Case(
            "byte_offset_nd",
            "consumer",
            "byte_offset = 3 elements, shape (2, 3)",
            "the first element is at data + byte_offset",
            _reads(_layout((2, 3), "contiguous", 3, lambda m: m[3:9].reshape(2, 3))),
        ),
        Case(
            "byte_offset_0d",
            "consumer",
            "byte_offset = 5 elements, shape ()",
            "the first element is at data + byte_offset",
            _reads(_layout((), None, 5, lambda m: m[5].reshape(()))),
        ),
        Case(
            "negative_strides",
            "consumer",
            "shape (5,), strides (-1,), first element at byte_offset",
            "strides may be negative (it imports them, or raises BufferError)",
            _reads(_layout((5,), (-1,), 4, lambda m: m[4::-1])),
        ),
        Case(
            "zero_strides",
            "consumer",
            "shape (3, 4), strides (0, 1): a broadcast row",
            "strides may be 0 (it imports them, or raises BufferError)",
            _reads(_layout((3, 4), (0, 1), 0, lambda m: np.broadcast_to(m[:4], (3, 4)))),
        ),
        Case(
            "non_compact",
            "consumer",
            "shape (2, 3), strides (6, 2): every other element",
            "any strides (it imports them, or raises BufferError)",
            _reads(_layout((2, 3), (6, 2), 0, lambda m: m.reshape(2, 6)[:, ::2])),
        ),
        Case(
            "transposed",
            "consumer",
            "shape (3, 2), strides (1, 3): column-major",
            "any strides (it imports them, or raises BufferError)",
            _reads(_layout((3, 2), (1, 3), 0, lambda m: m[:6].reshape(2, 3).T)),
        ),
        Case(
            "null_strides_old",
            "consumer",
            "NULL strides, ndim 2, in a version 1.0 tensor",
            "NULL strides mean row-major before DLPack 1.2: a consumer still reads them",
            _reads(_layout((2, 3), None, 0, lambda m: m[:6].reshape(2, 3), version=(1, 0))),
        ),
        Case(
            "null_strides_new",
            "consumer",
            "NULL strides, ndim 2, in a version 1.3 tensor",
            "forbidden since DLPack 1.2 (dlpack#177): BufferError, or read as row-major",
            _reads(_layout((2, 3), None, 0, lambda m: m[:6].reshape(2, 3)), refusal_ok=True),
        ),
        Case(
            "zero_d",
            "consumer",
            "shape (), NULL strides",
            reads,
            _reads(_layout((), None, 0, lambda m: m[0].reshape(()))),
        ),
        Case(
            "zero_size",
            "consumer",
            "shape (2, 0, 3)",
            reads,
            _reads(_layout((2, 0, 3), "contiguous", 0, lambda m: m[:0].reshape(2, 0, 3))),
        ),
        Case(
            "read_only",
            "consumer",
            "flags = READ_ONLY; then a write through the import",
            "the consumer must not write into the producer's memory",
            _read_only,
        ),
        Case(
            "is_copied",
            "consumer",
            "flags = IS_COPIED",
            reads,
            _reads(
                _layout((2, 3), "contiguous", 0, lambda m: m[:6].reshape(2, 3), flags=abi.IS_COPIED)
            ),
        ),
        Case(
            "newer_major",
            "consumer",
            "a versioned capsule of DLPack 2.0, above the max_version asked",
            "BufferError, and the deleter called",
            _refuses(lambda: ToyArray(float64_memory(4), version=(2, 0)), needs_versioned=True),
        ),
        Case(
            "capsule_reuse",
            "consumer",
            "the same capsule handed over twice",
            "a consumed capsule ('used_dltensor...') is refused, not read again",
            _refuses(lambda: ToyArray(float64_memory(4), reuse=True), any_error=True),
        ),
        Case(
            "device_unknown",
            "consumer",
            "device type 99 (no such DLPack device)",
            "BufferError",
            _refuses(lambda: ToyArray(float64_memory(4), device=(99, 0))),
        ),
        Case(
            "device_cuda_host",
            "consumer",
            "kDLCUDAHost (pinned host memory; here plain host memory)",
            "imports it, or raises BufferError",
            _reads(
                lambda: (ToyArray(float64_memory(4), device=(3, 0)), float64_memory(4)), read=False
            ),
        ),
        Case(
            "device_cuda_managed",
            "consumer",
            "kDLCUDAManaged (managed memory; here plain host memory)",
            "imports it, or raises BufferError",
            _reads(
                lambda: (ToyArray(float64_memory(4), device=(13, 0)), float64_memory(4)), read=False
            ),
        ),
        Case(
            "lanes_2",
            "consumer",
            "float32 with lanes = 2 (a vector type)",
            "BufferError (no library has vector elements)",
            _refuses(lambda: ToyArray(np.zeros(4, np.float32), shape=(2,), dtype=(2, 32, 2))),
        ),
    ]
    return cases


def _producer_cases() -> list[Case]:
    cases = [
        (
            "export_versioned",
            "__dlpack__(max_version=(1, 3))",
            "a 'dltensor_versioned' capsule of major version 1",
            _export_versioned,
        ),
        (
            "export_legacy",
            "__dlpack__() (no max_version)",
            "a legacy 'dltensor' capsule",
            _export_legacy,
        ),
        (
            "export_strides",
            "a 2x3 array's strides",
            "not NULL for ndim != 0 from DLPack 1.2 on",
            _export_strides,
        ),
        (
            "export_zero_copy",
            "data + byte_offset of the export",
            "the array's own first element",
            _export_zero_copy,
        ),
        (
            "export_read_only",
            "a read-only array, max_version=(1, 3)",
            "flags has READ_ONLY",
            _export_read_only,
        ),
        (
            "export_copy_true",
            "copy=True",
            "a copy, with IS_COPIED set (or BufferError)",
            _export_copy_true,
        ),
        (
            "export_copy_false",
            "copy=False",
            "the array's own memory, IS_COPIED clear",
            _export_copy_false,
        ),
        (
            "export_dl_device",
            "dl_device=(1, 0) for a host array",
            "a kDLCPU tensor",
            _export_dl_device,
        ),
        ("export_dl_device_foreign", "dl_device=(99, 0)", "BufferError", _export_dl_device_foreign),
        (
            "export_deleter",
            "a capsule dropped unconsumed, another imported then freed",
            "each deleter runs once",
            _export_deleter,
        ),
    ]
    return [
        Case(name, "producer", what, spec, producer_case(check))
        for name, what, spec, check in cases
    ]


#: The cases of the Python protocol, in the order a child process runs
#: them (dlarray._probe.CASES adds the C exchange table's).
PROTOCOL_CASES: tuple[Case, ...] = (
    *_consumer_cases(),
    *(_dtype_case(d.name, d.dlpack) for d in dtypes()),
    *_producer_cases(),
    *(_export_dtype_case(d.name, d.dlpack) for d in dtypes() if d.name in ML_DTYPES_HOLDS),
)
