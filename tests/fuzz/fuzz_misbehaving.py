"""Producers whose ``__dlpack__`` or ``__dlpack_device__`` misbehave.

A :class:`Misbehaviour` names one way to misbehave; :func:`make` builds a
producer that does it, over a well-formed ``abi.Producer`` (``inner``,
four float32 in a real buffer) whose deleter counts its calls:

``raises``              ``__dlpack__`` raises an exception of a given type;
``internal_type_error`` it fails with a TypeError of its own (``len(5)``),
                        which says nothing about keywords;
``returns``             it returns something that is not an unconsumed
                        DLPack capsule (None, a str, an array, itself, a
                        capsule of another name, NULL name, or consumed);
``rejects_keywords``    a producer older than DLPack 1.0: it takes no
                        keywords (by its signature, or by raising TypeError);
``same_capsule``        it returns one capsule every time;
``not_callable``        ``__dlpack__`` is not a function at all;
``device``              ``__dlpack_device__`` raises or returns garbage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import abi
import numpy as np
from hypothesis import strategies as st

import dlarray


class CustomError(Exception):
    pass


class CustomBufferError(BufferError):
    pass


EXCEPTIONS = {
    cls.__name__: cls
    for cls in (
        BufferError,
        ValueError,
        RuntimeError,
        KeyError,
        AttributeError,
        ZeroDivisionError,
        NotImplementedError,
        OverflowError,
        MemoryError,
        IndexError,
        LookupError,
        UnicodeDecodeError,
        CustomError,
        CustomBufferError,
    )
}

RETURNS = [
    "None",
    "zero",
    "str",
    "bytes",
    "float",
    "object",
    "list",
    "tuple_of_capsule",
    "numpy_array",
    "dlarray_array",
    "itself",
    "wrong_name",
    "null_name",
    "used_name",
]

DEVICES = [
    "raises_RuntimeError",
    "raises_TypeError",
    "raises_ValueError",
    "raises_AttributeError",
    "raises_OverflowError",
    "None",
    "str_pair",
    "huge_pair",
    "one_item",
    "three_items",
    "list",
    "lies_cuda",
    "lies_oneapi",
    "negative_id",
]

REJECTIONS = ["no_parameters", "stream_only", "raises_in_body"]


@dataclass(frozen=True)
class Misbehaviour:
    """One misbehaviour, printed as the reproducer of a failure."""

    kind: str
    detail: str = ""
    versioned: bool = True
    route: str = "plain"


ROUTES = ["plain", "copy_false", "copy_true", "device_cpu"]


def _kinds() -> st.SearchStrategy[tuple[str, str]]:
    def tagged(kind: str, details: list[str]) -> st.SearchStrategy[tuple[str, str]]:
        return st.sampled_from(details).map(lambda d: (kind, d))

    return st.one_of(
        tagged("raises", list(EXCEPTIONS)),
        tagged("internal_type_error", ["len", "add", "call_none"]),
        tagged("returns", RETURNS),
        tagged("rejects_keywords", REJECTIONS),
        tagged("same_capsule", [""]),
        tagged("not_callable", ["int", "None"]),
        tagged("device", DEVICES),
    )


@st.composite
def misbehaviours(draw: st.DrawFn) -> Misbehaviour:
    kind, detail = draw(_kinds())
    return Misbehaviour(kind, detail, draw(st.booleans()), draw(st.sampled_from(ROUTES)))

FLOAT32 = (2, 32, 1)


def _new_exception(name: str) -> BaseException:
    cls = EXCEPTIONS[name]
    if cls is UnicodeDecodeError:
        return UnicodeDecodeError("utf-8", b"\xff", 0, 1, "producer")
    return cls(f"the producer failed ({name})")


def _internal_type_error(how: str) -> None:
    """Fail with a TypeError as buggy producer code does."""
    things: list[Any] = [5, "a", None]
    if how == "len":
        len(things[0])
    elif how == "add":
        _ = things[0] + things[1]
    else:
        things[2]()


class Misbehaving:
    """A producer misbehaving as ``m`` says; see the module docstring."""

    def __init__(self, m: Misbehaviour) -> None:
        self.m = m
        self.inner = abi.Producer(
            versioned=m.versioned,
            shape=(4,),
            dtype=FLOAT32,
            payload=np.arange(4, dtype=np.float32).tobytes(),
        )
        self.calls: list[dict[str, Any]] = []
        self.raised: BaseException | None = None
        self.renamed: list[int] = []  # tensors handed over under a non-DLPack name
        self.cached: Any = None

    def __dlpack__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        kind, detail = self.m.kind, self.m.detail
        if kind == "raises":
            self.raised = _new_exception(detail)
            raise self.raised
        if kind == "internal_type_error":
            try:
                _internal_type_error(detail)
            except TypeError as exc:
                self.raised = exc
                raise
        if kind == "returns":
            return self._returns(detail)
        if kind == "same_capsule":
            if self.cached is None:
                self.cached = self.inner.make_capsule()
            return self.cached
        if kind == "rejects_keywords" and kwargs:
            key = next(iter(kwargs))
            raise TypeError(f"__dlpack__() got an unexpected keyword argument {key!r}")
        return self.inner.make_capsule(versioned=False if kind == "rejects_keywords" else None)

    def _returns(self, what: str) -> Any:
        simple = {
            "None": None,
            "zero": 0,
            "str": "dltensor",
            "bytes": b"dltensor_versioned",
            "float": 1.5,
            "object": object(),
            "list": [],
            "numpy_array": np.arange(3.0),
            "dlarray_array": dlarray.zeros(3),
            "itself": self,
        }
        if what in simple:
            return simple[what]
        capsule = self.inner.make_capsule()
        if what == "tuple_of_capsule":
            return (capsule,)
        self.renamed.append(self.inner.capsule_addresses[-1])
        if what == "null_name":
            assert abi.PyCapsule_SetName(capsule, None) == 0
        elif what == "wrong_name":
            abi.set_capsule_name(capsule, b"tensor")
        else:
            abi.set_capsule_name(capsule, b"used_" + abi.capsule_name(capsule))
        return capsule

    def __dlpack_device__(self) -> Any:
        if self.m.kind != "device":
            return (1, 0)
        detail = self.m.detail
        if detail.startswith("raises_"):
            self.raised = _device_error(detail.removeprefix("raises_"))
            raise self.raised
        return {
            "None": None,
            "str_pair": ("cpu", "0"),
            "huge_pair": (2**70, 0),
            "one_item": (1,),
            "three_items": (1, 0, 0),
            "list": [1, 0],
            "lies_cuda": (2, 0),
            "lies_oneapi": (14, 0),
            "negative_id": (1, -1),
        }[detail]


def _device_error(name: str) -> BaseException:
    return {
        "RuntimeError": RuntimeError,
        "TypeError": TypeError,
        "ValueError": ValueError,
        "AttributeError": AttributeError,
        "OverflowError": OverflowError,
    }[name]("__dlpack_device__ failed")


class TakesNoKeywords(Misbehaving):
    """``__dlpack__(self)``: a pre-1.0 producer, by its signature."""

    def __dlpack__(self) -> Any:  # type: ignore[override]
        self.calls.append({})
        return self.inner.make_capsule(versioned=False)


class TakesStreamOnly(Misbehaving):
    """``__dlpack__(self, stream=None)``: a DLPack 0.x producer."""

    def __dlpack__(self, stream: Any = None) -> Any:  # type: ignore[override]
        self.calls.append({"stream": stream})
        return self.inner.make_capsule(versioned=False)


class NotCallableInt(Misbehaving):
    __dlpack__ = 5  # type: ignore[assignment]


class NotCallableNone(Misbehaving):
    __dlpack__ = None  # type: ignore[assignment]


def make(m: Misbehaviour) -> Misbehaving:
    if m.kind == "rejects_keywords" and m.detail == "no_parameters":
        return TakesNoKeywords(m)
    if m.kind == "rejects_keywords" and m.detail == "stream_only":
        return TakesStreamOnly(m)
    if m.kind == "not_callable":
        return NotCallableInt(m) if m.detail == "int" else NotCallableNone(m)
    return Misbehaving(m)
