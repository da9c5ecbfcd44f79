"""The interop matrix every peer library goes through.

Each peer is a row of ``dlarray._peers.PEERS`` (how to make its arrays,
read their address and values, call its ``from_dlpack``, and which
deviations from the DLPack specification it has).  Each
``tests/interop/test_<peer>.py`` imports its peer, wraps the row in a
:class:`PeerUnderTest` and subclasses :class:`InteropSuite`.  The suite then checks, on every memory
kind the peer lives on:

* both directions, ``dlarray.from_dlpack(peer_array)`` and
  ``peer.from_dlpack(dlarray_array)``, for every dtype both sides have;
* zero copy, by pointer identity: the first element's address is the same on
  both sides;
* layouts: contiguous, transposed, sliced, negative strides, 0-d, zero-size;
* read-only propagation; lifetimes (either side dropped first, the deleter
  called exactly once); which capsule crosses (versioned or legacy) and the
  retry of a producer that predates DLPack 1.0; ``copy=`` and ``device=``.

Values are compared bit for bit (as unsigned integers of the element's
width), so NaN payloads and the extended float types need no special case.

A peer's deviation is never skipped silently: it is declared on its
row in ``dlarray._peers`` with a link to the peer's issue, and the suite asserts that the
deviation still behaves as written down, so the test fails, and the note gets
updated, the day the peer changes.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import Any, ClassVar

import abi
import numpy as np
import pytest

import dlarray
from dlarray import subbyte
from dlarray._engine import numpy_engine
from dlarray._peers import (
    FP8_DTYPES,
    STANDARD_DTYPES,
    SUBBYTE_DTYPES,
    TORCH_FP8_DTYPES,
    Deviation,
    Deviations,
    Peer,
    peer_named,
)

__all__ = ["FP8_DTYPES", "STANDARD_DTYPES", "SUBBYTE_DTYPES", "TORCH_FP8_DTYPES", "Deviation"]

# ---- requiring the peer ----

#: The nox sessions ``interop(<peer>)`` and ``latest`` set this (one name, or
#: several separated by commas), and then such a peer that fails to import is
#: an error, not a skip: the session exists to test it.
REQUIRED_PEERS = set(filter(None, os.environ.get("DLARRAY_INTEROP_PEER", "").split(",")))


def import_peer(name: str) -> ModuleType:
    """Import the peer library ``name`` (a row of ``dlarray._peers.PEERS``),
    or skip the module when it is not installed.

    Under ``nox -s interop(<name>)`` a missing peer fails instead.
    """
    try:
        return peer_named(name).import_module()
    except ImportError as exc:
        if name in REQUIRED_PEERS:
            raise RuntimeError(f"interop({name}) needs {name}, which failed: {exc}") from exc
        pytest.skip(
            f"{name} is not installed (nox -s 'interop({name})' installs it)",
            allow_module_level=True,
        )


# ---- dtypes and layouts ----

#: Views of a 4x6 array, written with indexing every peer's arrays support.
LAYOUTS: dict[str, Callable[[Any], Any]] = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "sliced": lambda a: a[1:, ::2],
    "negative_strides": lambda a: a[::-1, ::-2],
    "zero_d": lambda a: a[2, 3, ...],
    "zero_size": lambda a: a[:, 6:],
}


def host_sample(name: str, shape: tuple[int, ...] = (8,)) -> np.ndarray:
    """A host array of dtype ``name`` whose elements are not all equal.

    The extended float types are ml_dtypes arrays; sub-byte types hold one
    element per byte there, as ml_dtypes stores them.
    """
    n = int(np.prod(shape))
    if name == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    steps = np.arange(n) % 11
    if name.startswith(("int", "uint")):
        return (steps + (0 if name.startswith("u") else -5)).astype(name).reshape(shape)
    if name.startswith("complex"):
        return (steps - 4.5 + 1j * (steps % 4)).astype(name).reshape(shape)
    values = np.ldexp(1.0, steps % 5 - 2) * np.where(steps % 2, 1, -1)
    if name == "float8_e8m0fnu":  # powers of two only, no sign
        values = np.abs(values)
    dtype = np.dtype(name) if name in STANDARD_DTYPES else numpy_engine.numpy_dtype(dt(name))
    return values.astype(dtype).reshape(shape)


def dt(name: str) -> dlarray.DType:
    dtype: dlarray.DType = getattr(dlarray, name)
    return dtype


def address(x: dlarray.DLArray) -> int:
    """The address of a DLArray's first element."""
    return int(x._data + x._byte_offset)


def bits(a: np.ndarray) -> np.ndarray:
    """A host array's elements as unsigned integers of the same width
    (complex128, 16 bytes wide, as two 8-byte halves)."""
    if not a.flags.c_contiguous:
        a = a.copy()  # (np.ascontiguousarray would make a 0-d array 1-d)
    if a.dtype == np.bool_:
        return a.view(np.uint8)
    return a.view(f"u{min(a.dtype.itemsize, 8)}")


def dlarray_bits(x: dlarray.DLArray) -> np.ndarray:
    """A DLArray's elements, copied to the host, as unsigned integers."""
    if x.device.kind != "cpu":
        x = x.to_device("cpu")
    if x.dtype.name in SUBBYTE_DTYPES:
        return np.from_dlpack(subbyte.to_codes(x)).copy()
    return bits(numpy_engine.to_numpy(x)).copy()


def dlarray_sample(name: str, kind: str, shape: tuple[int, ...] = (8,)) -> dlarray.DLArray:
    """A DLArray of dtype ``name`` on device kind ``kind``."""
    host = host_sample(name, shape)
    if name in SUBBYTE_DTYPES:
        x = subbyte.from_codes(host.view(np.uint8).ravel().tolist(), dt(name))
        x = dlarray.reshape(x, shape)
    else:
        # A copy in dlarray's own (256-byte aligned) memory, not a view of
        # NumPy's: some consumers copy data that is not aligned (JAX: 64).
        x = dlarray.asarray(numpy_engine.from_numpy(host), copy=True)
    return x if kind == "cpu" else x.to_device(dlarray.Device(kind, 0))


def churn() -> None:
    """Allocate and fill memory, so that a buffer freed too early is likely
    to be reused and overwritten before the test reads it."""
    for _ in range(8):
        np.full(1 << 16, 0xAB, dtype=np.uint8)
    gc.collect()


# ---- counting a peer's deleter ----

_CALLBACKS: list[Any] = []  # ctypes callbacks must outlive every call to them


class CountingProducer:
    """Hands out the peer's own capsule with its deleter wrapped in a
    counter, to see how often the consumer (dlarray) calls it."""

    def __init__(self, array: Any) -> None:
        self.array = array
        self.deleter_calls = 0

    def __dlpack_device__(self) -> Any:
        return self.array.__dlpack_device__()

    def __dlpack__(self, **kwargs: Any) -> Any:
        capsule = self.array.__dlpack__(**kwargs)
        managed = abi.managed_struct(capsule)
        deleter_type = (
            abi.VersionedDeleter
            if isinstance(managed, abi.DLManagedTensorVersioned)
            else abi.LegacyDeleter
        )
        # Copy the peer's function address out: the field object itself
        # aliases the struct, so it would read back the wrapper below.
        original = deleter_type(ctypes.cast(managed.deleter, ctypes.c_void_p).value)

        def counting(pointer: Any) -> None:
            self.deleter_calls += 1
            original(pointer)

        wrapped = deleter_type(counting)
        _CALLBACKS.append(wrapped)
        managed.deleter = ctypes.cast(wrapped, ctypes.c_void_p).value
        return capsule


class LegacyOnlyProducer:
    """The peer's array behind a ``__dlpack__`` that predates DLPack 1.0:
    it knows only ``stream``, so it raises TypeError at ``max_version``."""

    def __init__(self, array: Any) -> None:
        self.array = array
        self.calls: list[dict[str, Any]] = []

    def __dlpack_device__(self) -> Any:
        return self.array.__dlpack_device__()

    def __dlpack__(self, *, stream: Any = None) -> Any:
        self.calls.append({"stream": stream})
        return self.array.__dlpack__(stream=stream)


class CapsuleSpy:
    """A DLArray seen through a spy: records what a consumer asks for and
    which capsule it gets."""

    def __init__(self, array: dlarray.DLArray) -> None:
        self.array = array
        self.kwargs: dict[str, Any] | None = None
        self.capsule_name: bytes | None = None

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()

    def __dlpack__(self, **kwargs: Any) -> Any:
        self.kwargs = kwargs
        capsule = self.array.__dlpack__(**kwargs)
        self.capsule_name = abi.capsule_name(capsule)
        return capsule


# ---- the peer under test ----


@dataclass
class PeerUnderTest:
    """A row of ``dlarray._peers.PEERS`` as the suite drives it: the peer's
    imported module, and the memory kinds tested here.

    Everything else (how to make, read and consume arrays, the capsules,
    the read-only behaviour, the deviations) is the row's; this class only
    binds it to the module and to the suite's layouts and sample arrays.
    """

    peer: Peer
    module: ModuleType
    kinds: list[str]

    def __post_init__(self) -> None:
        # The row as the installed version behaves (Peer.revised).
        self.peer = self.peer.as_installed(self.module)

    @property
    def name(self) -> str:
        return self.peer.name

    @property
    def dtypes(self) -> list[str]:
        return list(self.peer.dtypes)

    @property
    def exports_versioned(self) -> bool:
        return self.peer.exports_versioned

    @property
    def asks_versioned(self) -> bool:
        return self.peer.asks_versioned

    @property
    def consume_keywords(self) -> tuple[str, ...]:
        return self.peer.consume_keywords

    @property
    def read_only_import(self) -> str:
        return self.peer.read_only_import

    @property
    def exports_read_only(self) -> bool:
        return self.peer.exports_read_only

    @cached_property
    def deviations(self) -> Deviations:
        return self.peer.deviations(self.module)

    def deviation(self, direction: str, case: str) -> Deviation | None:
        return self.deviations.get((direction, case))

    def make(self, host: np.ndarray, kind: str) -> Any:
        """The peer's array with ``host``'s elements on device 0 of ``kind``."""
        return self.peer.make[kind](self.module, host, dlarray.Device(kind, 0))

    @property
    def make_read_only(self) -> Callable[[np.ndarray, str], Any] | None:
        """Like :meth:`make`, read-only; None when the peer has no read-only arrays."""
        mark = self.peer.mark_read_only
        if mark is None:
            return None
        return lambda host, kind: mark(self.make(host, kind))

    def host(self, array: Any) -> np.ndarray:
        """A host NumPy array of a peer array's elements."""
        return self.peer.to_numpy(array)

    def pointer(self, array: Any) -> int:
        return int(self.peer.pointer(array))

    def consume(self, obj: Any, **kwargs: Any) -> Any:
        """The peer's ``from_dlpack(obj, **kwargs)``."""
        return self.peer.from_dlpack(self.module)(obj, **kwargs)

    @property
    def view_layouts(self) -> list[str]:
        """Layouts the peer can make as views of its own arrays (peer -> dlarray)."""
        if self.peer.negative_steps:
            return list(LAYOUTS)
        return [layout for layout in LAYOUTS if layout != "negative_strides"]

    def view(self, base: Any, layout: str) -> Any:
        """A view of the peer's array ``base`` with ``layout``.  A peer that
        cannot index gets the view made in dlarray, over the same memory,
        and wrapped again."""
        if self.peer.indexes:
            return LAYOUTS[layout](base)
        return self.consume(LAYOUTS[layout](dlarray.from_dlpack(base)))


# ---- the suite ----


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize a suite's tests from its class's :class:`PeerUnderTest`; each
    ``test_<peer>.py`` imports this hook."""
    cls = metafunc.cls
    if cls is None or not issubclass(cls, InteropSuite):
        return
    peer = cls.peer
    if "kind" in metafunc.fixturenames:
        metafunc.parametrize("kind", peer.kinds)
    if "dtype_name" in metafunc.fixturenames:
        metafunc.parametrize("dtype_name", peer.dtypes)
    if "layout" in metafunc.fixturenames:  # views made by dlarray
        metafunc.parametrize("layout", list(LAYOUTS))
    if "peer_layout" in metafunc.fixturenames:  # views the peer can make
        metafunc.parametrize("peer_layout", peer.view_layouts)


def _check_deviation(deviation: Deviation, call: Callable[[], Any]) -> Any:
    """Run ``call`` under a declared deviation: it must still raise what the
    peer's issue says.  Returns the result when the deviation is a copy."""
    if deviation.aborts:
        pytest.skip(f"{deviation.what} ({deviation.link})")
    if deviation.raises is not None:
        with pytest.raises(deviation.raises):
            call()
        return None
    return call()


class InteropSuite:
    """Tests every peer passes; a subclass sets :attr:`peer`."""

    peer: ClassVar[PeerUnderTest]

    # -- both directions, every dtype --

    def test_import_every_dtype_zero_copy(self, kind: str, dtype_name: str) -> None:
        source = self.peer.make(host_sample(dtype_name), kind)
        deviation = self.peer.deviation("import", dtype_name)
        if deviation is not None:
            _check_deviation(deviation, lambda: dlarray.from_dlpack(source))
            return
        x = dlarray.from_dlpack(source)
        assert x.dtype is dt(dtype_name)
        assert x.device.kind == kind
        assert address(x) == self.peer.pointer(source)
        assert np.array_equal(dlarray_bits(x), bits(self.peer.host(source)))

    def test_export_every_dtype_zero_copy(self, kind: str, dtype_name: str) -> None:
        x = dlarray_sample(dtype_name, kind)
        deviation = self.peer.deviation("export", dtype_name)
        if deviation is not None:
            _check_deviation(deviation, lambda: self.peer.consume(x))
            return
        received = self.peer.consume(x)
        assert self.peer.pointer(received) == address(x)
        assert np.array_equal(bits(self.peer.host(received)), dlarray_bits(x))

    # -- layouts --

    def test_import_layout(self, kind: str, peer_layout: str) -> None:
        base = self.peer.make(host_sample("float32", (4, 6)), kind)
        view = self.peer.view(base, peer_layout)
        deviation = self.peer.deviation("import", peer_layout)
        if deviation is not None:
            _check_deviation(deviation, lambda: dlarray.from_dlpack(view))
            return
        x = dlarray.from_dlpack(view)
        want = self.peer.host(view)
        assert x.shape == want.shape
        assert np.array_equal(dlarray_bits(x), bits(want))
        if want.size:
            assert address(x) == self.peer.pointer(view)

    def test_export_layout(self, kind: str, layout: str) -> None:
        x = LAYOUTS[layout](dlarray_sample("float32", kind, (4, 6)))
        deviation = self.peer.deviation("export", layout)
        received = (
            _check_deviation(deviation, lambda: self.peer.consume(x))
            if deviation is not None
            else self.peer.consume(x)
        )
        if received is None:
            return
        got = self.peer.host(received)
        assert got.shape == x.shape
        assert np.array_equal(bits(got), dlarray_bits(x))
        if got.size:
            same = self.peer.pointer(received) == address(x)
            assert same is (deviation is None), deviation and deviation.what

    # -- read-only --

    def test_read_only_export(self, kind: str) -> None:
        x = self._read_only_dlarray(kind)
        if self.peer.read_only_import == "refused":
            # The peer asks for a legacy capsule, which cannot carry READ_ONLY.
            with pytest.raises(BufferError, match="read-only"):
                self.peer.consume(x)
            return
        received = self.peer.consume(x)
        assert self.peer.pointer(received) == address(x)
        writable = self._peer_writable(received)
        assert writable is (self.peer.read_only_import == "ignored")

    def test_read_only_import(self, kind: str) -> None:
        if self.peer.make_read_only is None:
            # Immutable arrays: read-only exactly where the export says so.
            source = self.peer.make(host_sample("float32"), kind)
            assert dlarray.from_dlpack(source).readonly is self.peer.exports_read_only
            return
        source = self.peer.make_read_only(host_sample("float32"), kind)
        x = dlarray.from_dlpack(source)
        assert x.readonly is True
        with pytest.raises(ValueError, match="read-only"):
            x[0] = 1.0

    def _read_only_dlarray(self, kind: str) -> dlarray.DLArray:
        # In dlarray's own (256-byte aligned) memory: a peer may copy memory
        # less aligned than its own buffers (JAX does), which is no deviation.
        host = np.from_dlpack(dlarray_sample("float32", "cpu"))
        host.flags.writeable = False
        x = dlarray.from_dlpack(host)
        if kind != "cpu":
            if self.peer.make_read_only is None:
                pytest.skip(f"no read-only producer of {kind} memory here")
            x = dlarray.from_dlpack(self.peer.make_read_only(host_sample("float32"), kind))
        assert x.readonly
        return x

    def _peer_writable(self, array: Any) -> bool:
        """Whether the peer lets its array be written (it may ignore READ_ONLY)."""
        if self.peer.exports_read_only:
            return False  # immutable arrays (JAX)
        flags = getattr(array, "flags", None)
        for name in ("writeable", "writable"):  # NumPy's spelling, dpctl's
            if hasattr(flags, name):
                return bool(getattr(flags, name))
        return True  # the peer has no read-only arrays (torch, CuPy)

    # -- lifetimes --

    def test_import_outlives_the_peer_array(self, kind: str) -> None:
        source = self.peer.make(host_sample("float64", (64,)), kind)
        want = bits(self.peer.host(source)).copy()
        x = dlarray.from_dlpack(source)
        del source
        churn()
        assert np.array_equal(dlarray_bits(x), want)

    def test_import_calls_the_peer_deleter_once(self, kind: str) -> None:
        source = self.peer.make(host_sample("float64", (64,)), kind)
        counting = CountingProducer(source)
        x = dlarray.from_dlpack(counting)
        view = x[::2]
        assert counting.deleter_calls == 0
        del x
        gc.collect()
        assert counting.deleter_calls == 0  # the view still holds the memory
        del view
        gc.collect()
        assert counting.deleter_calls == 1
        gc.collect()
        assert counting.deleter_calls == 1
        assert np.array_equal(  # the peer's array is untouched by the release
            bits(self.peer.host(source)), bits(host_sample("float64", (64,)))
        )

    def test_export_outlives_the_dlarray(self, kind: str) -> None:
        x = dlarray_sample("float64", kind, (64,))
        want = dlarray_bits(x)
        received = self.peer.consume(x)
        del x
        churn()
        assert np.array_equal(bits(self.peer.host(received)), want)

    def test_export_releases_dlarray_once(self, kind: str) -> None:
        x = dlarray_sample("float64", kind, (64,))
        before = sys.getrefcount(x)
        received = self.peer.consume(x)
        assert sys.getrefcount(x) == before + 1  # the exported tensor's reference
        del received
        gc.collect()
        assert sys.getrefcount(x) == before  # released, exactly once

    # -- versions --

    def test_import_capsule_kind(self, kind: str) -> None:
        source = self.peer.make(host_sample("float32"), kind)
        x = dlarray.from_dlpack(source)
        assert x._owner.versioned is self.peer.exports_versioned
        if self.peer.exports_versioned:
            assert x._owner.version[0] == 1

    def test_export_capsule_kind(self, kind: str) -> None:
        spy = CapsuleSpy(dlarray_sample("float32", kind))
        self.peer.consume(spy)
        assert spy.kwargs is not None
        max_version = spy.kwargs.get("max_version")
        asked_versioned = max_version is not None and max_version[0] >= 1
        assert asked_versioned is self.peer.asks_versioned
        want = abi.VERSIONED_NAME if asked_versioned else abi.LEGACY_NAME
        assert spy.capsule_name in (want, b"used_" + want)

    def test_import_retries_a_pre_1_0_producer(self, kind: str) -> None:
        source = self.peer.make(host_sample("float32"), kind)
        legacy = LegacyOnlyProducer(source)
        x = dlarray.from_dlpack(legacy)
        assert x._owner.versioned is False
        assert address(x) == self.peer.pointer(source)
        assert len(legacy.calls) == 1  # the retry; the versioned ask raised TypeError

    # -- copy= and device= --

    def test_import_copy(self, kind: str) -> None:
        source = self.peer.make(host_sample("float32"), kind)
        deviation = self.peer.deviation("import", "copy=True")
        if deviation is not None:  # the producer cannot copy; dlarray copies after importing
            _check_deviation(deviation, lambda: dlarray.from_dlpack(source, copy=True))
            copied = dlarray.asarray(dlarray.from_dlpack(source), copy=True)
        else:
            copied = dlarray.from_dlpack(source, copy=True)
        assert address(copied) != self.peer.pointer(source)
        assert np.array_equal(dlarray_bits(copied), bits(self.peer.host(source)))
        shared = dlarray.from_dlpack(source, copy=False)
        assert address(shared) == self.peer.pointer(source)

    def test_import_to_the_same_device_and_to_the_host(self, kind: str) -> None:
        source = self.peer.make(host_sample("float32"), kind)
        here = dlarray.from_dlpack(source, device=dlarray.Device(kind, 0), copy=False)
        assert address(here) == self.peer.pointer(source)
        host = dlarray.from_dlpack(source, device="cpu")
        assert host.device == dlarray.Device("cpu")
        assert np.array_equal(dlarray_bits(host), bits(self.peer.host(source)))
        if kind != "cpu":
            with pytest.raises(BufferError, match="copy=False"):
                dlarray.from_dlpack(source, device="cpu", copy=False)

    def test_export_copy(self, kind: str) -> None:
        if "copy" not in self.peer.consume_keywords:
            pytest.skip(f"{self.peer.name}.from_dlpack takes no copy keyword")
        x = dlarray_sample("float32", kind)
        copied = self.peer.consume(x, copy=True)
        aliases = self.peer.deviation("export", "copy=True") is not None
        assert (self.peer.pointer(copied) == address(x)) is aliases
        assert np.array_equal(bits(self.peer.host(copied)), dlarray_bits(x))
        shared = self.peer.consume(x, copy=False)
        assert self.peer.pointer(shared) == address(x)
