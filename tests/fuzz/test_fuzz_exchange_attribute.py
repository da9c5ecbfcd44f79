"""Fuzzing how ``dlarray.from_dlpack`` reads a producer type's C exchange
table attribute: ``__dlpack_c_exchange_api__`` (DLPack 1.3, a capsule) and
``__c_dlpack_exchange_api__`` (1.2, an int address).

Only values that can be rejected without dereferencing anything are drawn:
bools, negative ints, 0, ints past 64 bits, other types, capsules of
another name, a descriptor that raises, and real tables (made with ctypes,
so reading them is safe) that dlarray must not use: another major version,
NULL functions, a ``prev_api`` chain, a ``prev_api`` cycle.  Addresses of
garbage are never drawn.

Whatever the attribute holds, from_dlpack must not crash, must raise only
BufferError, ValueError, TypeError or the producer's own exception, and
must release the tensor exactly once (a bad table is ignored and
``__dlpack__`` used, or the import refused).  Each example runs in a forked
child (:mod:`isolation`, tests/isolation.py): a crash fails the example, not the session.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import abi
import numpy as np
from fuzz_budget import fuzz
from fuzz_oracles import Result, assert_allowed, attempt, settled
from fuzz_stats import Outcome
from hypothesis import strategies as st
from isolation import isolated

import dlarray

CAPSULE_ATTRIBUTE = "__dlpack_c_exchange_api__"
INT_ATTRIBUTE = "__c_dlpack_exchange_api__"

#: Values that say nothing about memory; the tables are made in the child.
PLAIN_VALUES: dict[str, Any] = {
    "True": True,
    "False": False,
    "-1": -1,
    "-2**63": -(2**63),
    "-2**64": -(2**64),
    "-2**70": -(2**70),
    "0": 0,
    "2**64": 2**64,
    "2**70": 2**70,
    "str": "0x1000",
    "bytes": b"\x00" * 8,
    "None": None,
    "float": 1.5,
    "tuple": (),
    "numpy_int": np.int64(0),
    "object": object(),
}
TABLES = ["major_2", "major_0", "null_functions", "chain_to_null_functions", "cycle"]
SPECIAL = ["wrong_capsule", "raising_descriptor"]


@dataclass(frozen=True)
class Attribute:
    """What a producer type's exchange attribute(s) hold, and the route."""

    capsule_attribute: str | None
    int_attribute: str | None
    route: str


VALUE_NAMES = st.sampled_from([*PLAIN_VALUES, *TABLES, *SPECIAL])
ATTRIBUTES = st.builds(
    Attribute,
    capsule_attribute=st.one_of(st.none(), VALUE_NAMES),
    int_attribute=st.one_of(st.none(), VALUE_NAMES),
    route=st.sampled_from(["plain", "copy_false", "copy_true"]),
).filter(lambda a: a.capsule_attribute is not None or a.int_attribute is not None)


class RaisingDescriptor:
    """A class attribute whose lookup raises the producer's own error."""

    def __init__(self) -> None:
        self.error = RuntimeError("the producer's exchange attribute failed")

    def __get__(self, instance: Any, owner: Any) -> Any:
        raise self.error


def _table(kind: str, keep: list[Any]) -> Any:
    """A real, unusable exchange table (kept alive through ``keep``)."""
    table = abi.DLPackExchangeAPI()
    keep.append(table)
    table.header.version.major = {"major_2": 2, "major_0": 0}.get(kind, 1)
    table.header.version.minor = 3
    if kind == "chain_to_null_functions":
        older = _table("null_functions", keep)
        table.header.version.major = 2
        table.header.prev_api = ctypes.pointer(older.header)
    elif kind == "cycle":
        table.header.version.major = 2
        table.header.prev_api = ctypes.pointer(table.header)
    return table


_TABLE_NAME = ctypes.create_string_buffer(b"dlpack_exchange_api")
_OTHER_NAME = ctypes.create_string_buffer(b"not_an_exchange_api")


def _value(name: str, as_capsule: bool, keep: list[Any]) -> Any:
    if name in PLAIN_VALUES:
        return PLAIN_VALUES[name]
    if name == "raising_descriptor":
        return RaisingDescriptor()
    if name == "wrong_capsule":
        buffer = ctypes.create_string_buffer(64)
        keep.append(buffer)
        name_pointer = ctypes.cast(_OTHER_NAME, ctypes.c_char_p)
        return abi.PyCapsule_New(ctypes.addressof(buffer), name_pointer, abi.CapsuleDestructor())
    address = ctypes.addressof(_table(name, keep))
    if not as_capsule:
        return address
    name_pointer = ctypes.cast(_TABLE_NAME, ctypes.c_char_p)
    return abi.PyCapsule_New(address, name_pointer, abi.CapsuleDestructor())


def _producer_type(a: Attribute, keep: list[Any]) -> type:
    namespace: dict[str, Any] = {"_keep": keep}
    if a.capsule_attribute is not None:
        namespace[CAPSULE_ATTRIBUTE] = _value(a.capsule_attribute, True, keep)
    if a.int_attribute is not None:
        namespace[INT_ATTRIBUTE] = _value(a.int_attribute, False, keep)
    return type("ProducerWithTable", (abi.Producer,), namespace)


def import_with_exchange_attribute(a: Attribute) -> Outcome:
    keep: list[Any] = []
    p = _producer_type(a, keep)(payload=np.arange(4, dtype=np.float32).tobytes())
    kwargs = {"plain": {}, "copy_false": {"copy": False}, "copy_true": {"copy": True}}[a.route]
    result = attempt(lambda: dlarray.from_dlpack(p, **kwargs))
    own = [v.error for v in vars(type(p)).values() if isinstance(v, RaisingDescriptor)]
    assert_allowed(result, own=own[0] if own else None, what=f"from_dlpack with {a}")
    outcome = Outcome("imported" if result.error is None else "refused", result.raised)
    if result.error is None:
        x = result.value
        np.testing.assert_array_equal(np.from_dlpack(x), np.arange(4, dtype=np.float32))
        if a.route != "copy_true":
            assert p.deleter_calls == [], "released while the array lives"
        del x
    result = Result()
    p.drop_capsules()
    for address in p.capsule_addresses:
        assert settled(lambda a=address: p.deletes_of(a) == 1), "each tensor released once"
    return outcome


@fuzz(ATTRIBUTES)
def test_malformed_exchange_table_attribute_is_ignored_or_refused_without_crashing(
    a: Attribute,
) -> Outcome:
    """Bools, negative or huge ints, other types, other capsules and
    unusable tables as a type's exchange table: no crash, no foreign
    exception type, one release per tensor."""
    return isolated(import_with_exchange_attribute, a)
