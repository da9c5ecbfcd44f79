"""``__dlpack__`` keyword values, each with what it means for a CPU array.

Every drawn value carries a *meaning*, which :func:`expect` combines into
what the export must do:

``stream``       "none" (None), "no_sync" (-1, also as a NumPy integer), or
                 "bad" (any other int, str, float, bool: CPU has no streams).
``max_version``  "legacy" (None, or a major of 0), "versioned" (a major of 1
                 or more, also as NumPy integers), "bad" (not a tuple of two
                 ints) or "grey" (ints outside a DLPackVersion's uint32: any
                 allowed outcome).
``dl_device``    "none", "own" ((1, 0), also as NumPy integers), "other" (a
                 pair naming another device: a copy, or a refusal), "bad"
                 (not a pair of 32-bit ints).
``copy``         "none", "true", "false", "bad" (a str, a float) or "grey"
                 (ints and NumPy bools: either reading is defensible).
Any other keyword name, or a positional argument, is "bad".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st


@dataclass(frozen=True)
class Keywords:
    """The keywords of one ``__dlpack__`` call, with their meanings."""

    values: dict[str, Any] = field(default_factory=dict)
    meanings: dict[str, str] = field(default_factory=dict)
    positional: tuple[Any, ...] = ()


def _tagged(meaning: str, values: list[Any]) -> st.SearchStrategy[tuple[str, Any]]:
    return st.sampled_from(values).map(lambda v: (meaning, v))


HUGE = 2**70
NUMPY_INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def as_numpy(value: int) -> st.SearchStrategy[Any]:
    """``value`` as each NumPy integer type that holds it."""
    fitting = [t for t in NUMPY_INTS if np.iinfo(t).min <= value <= np.iinfo(t).max]
    return st.sampled_from(fitting).map(lambda t: t(value))


VALID_STREAMS = st.one_of(
    _tagged("none", [None]),
    _tagged("no_sync", [-1]),
    as_numpy(-1).map(lambda v: ("no_sync", v)),
)
STREAMS = st.one_of(
    VALID_STREAMS,
    _tagged("bad", [0, 1, 2, -2, HUGE, -HUGE, 2**63, "0", 1.0, -1.0, True, False, b"", ()]),
    st.integers().filter(lambda v: v != -1).map(lambda v: ("bad", v)),
    as_numpy(1).map(lambda v: ("bad", v)),
)


def _version_meaning(major: int, minor: int) -> str:
    if not (0 <= major < 2**32 and 0 <= minor < 2**32):
        return "grey"
    return "versioned" if major >= 1 else "legacy"


VERSION_INTS = st.one_of(st.sampled_from([0, 1, 2, 3, 2**32 - 1]), st.integers(0, 2**32 - 1))
ANY_INTS = st.one_of(st.sampled_from([-1, 2**32, HUGE, -HUGE]), st.integers(), VERSION_INTS)


@st.composite
def _int_versions(draw: st.DrawFn, ints: st.SearchStrategy[int] = ANY_INTS) -> tuple[str, Any]:
    major, minor = draw(ints), draw(ints)
    meaning = _version_meaning(major, minor)
    if meaning != "grey" and draw(st.booleans()):
        numpy_major = draw(st.one_of(as_numpy(major), st.just(major)))
        return meaning, (numpy_major, draw(st.one_of(as_numpy(minor), st.just(minor))))
    return meaning, (major, minor)


VALID_MAX_VERSIONS = st.one_of(
    _tagged("legacy", [None, (0, 0), (0, 9)]),
    _tagged("versioned", [(1, 0), (1, 3), (1, 99), (2, 0), (255, 255)]),
    _int_versions(VERSION_INTS),
)
MAX_VERSIONS = st.one_of(
    VALID_MAX_VERSIONS,
    _tagged("grey", [(HUGE, 0), (-HUGE, 0), (1, HUGE), (-1, 0), (1, -1), [1, 3], (True, 0)]),
    _tagged("bad", ["1.3", 1.3, 1, (1,), (1, 3, 0), (1.0, 3), ("1", "3"), (None, None), ()]),
    _int_versions(),
)


@st.composite
def _int_devices(draw: st.DrawFn) -> tuple[str, Any]:
    device_type = draw(st.one_of(st.sampled_from([1, 2, 3, 13, 14, 99, -1, 0]), st.integers()))
    device_id = draw(st.one_of(st.sampled_from([0, 1, -1, 7]), st.integers()))
    if not (-(2**31) <= device_type < 2**31 and -(2**31) <= device_id < 2**31):
        return "bad", (device_type, device_id)
    meaning = "own" if (device_type, device_id) == (1, 0) else "other"
    if draw(st.booleans()):
        return meaning, (draw(as_numpy(device_type)), draw(as_numpy(device_id)))
    return meaning, (device_type, device_id)


VALID_DL_DEVICES = st.one_of(
    _tagged("none", [None]),
    _tagged("own", [(1, 0)]),
    st.tuples(as_numpy(1), as_numpy(0)).map(lambda pair: ("own", pair)),
)
DL_DEVICES = st.one_of(
    VALID_DL_DEVICES,
    _tagged("other", [(2, 0), (3, 0), (13, 0), (1, 1), (1, -1), (99, 0), (-1, 0), (14, 0), (0, 0)]),
    _tagged("bad", [(HUGE, 0), (1, -HUGE), (2**31, 0), (1, 2**31), "cpu", 1, (1,), (1, 0, 0)]),
    _tagged("bad", [(1.0, 0), ("1", 0), (None, 0)]),
    _tagged("grey", [[1, 0], (True, False)]),
    _int_devices(),
)

VALID_COPIES = st.one_of(
    _tagged("none", [None]),
    _tagged("true", [True]),
    _tagged("false", [False]),
)
COPIES = st.one_of(
    VALID_COPIES,
    _tagged("bad", ["yes", 2.5, b""]),
    _tagged("grey", [1, 0, np.True_, np.False_]),
)

BY_NAME = {"stream": STREAMS, "max_version": MAX_VERSIONS, "dl_device": DL_DEVICES, "copy": COPIES}
VALID_BY_NAME = {
    "stream": VALID_STREAMS,
    "max_version": VALID_MAX_VERSIONS,
    "dl_device": VALID_DL_DEVICES,
    "copy": VALID_COPIES,
}
UNKNOWN_NAMES = ["streams", "device", "maxversion", "dl_devices", "Copy"]


@st.composite
def keywords(draw: st.DrawFn) -> Keywords:
    """Each keyword present or not; in two calls of three every value is
    valid, in the third any value may be bad, and a call may carry an
    unknown keyword or a positional argument."""
    hostile = draw(st.integers(0, 2)) == 0
    values: dict[str, Any] = {}
    meanings: dict[str, str] = {}
    for name, strategy in (BY_NAME if hostile else VALID_BY_NAME).items():
        if draw(st.booleans()):
            meanings[name], values[name] = draw(strategy)
    if hostile and draw(st.integers(0, 9)) == 0:
        name = draw(st.sampled_from(UNKNOWN_NAMES))
        values[name], meanings[name] = None, "bad"
    positional = (1,) if hostile and draw(st.integers(0, 9)) == 0 else ()
    return Keywords(values, meanings, positional)


@dataclass
class Expectation:
    """``kind``: "must_succeed", "must_raise" or "either"; for a success,
    whether the capsule is versioned and copied (None: not known in
    advance) and the device it must describe (None: the array's)."""

    kind: str
    versioned: bool | None = None
    copied: bool | None = None
    target: tuple[int, ...] | None = None


def expect(kw: Keywords, *, readonly: bool, padded: bool) -> Expectation:
    """What ``x.__dlpack__(*kw.positional, **kw.values)`` must do for a CPU
    array with those flags."""
    meaning = {name: kw.meanings.get(name, "none") for name in BY_NAME}
    extra = set(kw.meanings) - set(BY_NAME)
    version = meaning["max_version"]
    versioned = {"legacy": False, "versioned": True}.get(version)
    device = meaning["dl_device"]
    target = tuple(int(v) for v in kw.values["dl_device"]) if device == "other" else None
    copy = meaning["copy"]
    copied = True if device == "other" else {"true": True, "none": False, "false": False}.get(copy)
    if kw.positional or extra or "bad" in (version, device, copy):
        return Expectation("must_raise")
    if device == "other":
        if copy == "false":
            return Expectation("must_raise")
        return Expectation("either", versioned, True, target)
    if meaning["stream"] == "bad":
        return Expectation("must_raise")
    if "grey" in (version, device, copy):
        return Expectation("either", versioned, copied)
    if not versioned and ((readonly and not copied) or padded):
        return Expectation("must_raise")  # a legacy capsule cannot say so
    return Expectation("must_succeed", versioned, copied)
