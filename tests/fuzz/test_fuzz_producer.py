"""Fuzzing dlarray's producer: ``x.__dlpack__(**kw)`` on every dtype, every
layout and every keyword value.

For each example (:mod:`fuzz_layouts` x :mod:`fuzz_keywords`):

* the call raises nothing but BufferError, ValueError or TypeError; it
  raises for the values :func:`fuzz_keywords.expect` calls bad, and
  succeeds for the valid ones (NumPy integers included);
* a returned capsule's name matches ``max_version``; a versioned one holds
  version 1.3 and exactly the READ_ONLY, IS_COPIED and PADDED flags due;
  shape, strides, dtype and device are the array's (a copy's strides are
  C-contiguous, its device the one asked for); ``data`` is NULL for size 0
  on the CPU, else the array's first element unless copied, with
  ``byte_offset`` folded in;
* the capsule holds one reference to the array (or to its copy), dropped
  exactly once whoever releases it: the capsule's destructor, dlarray's
  import, a C consumer calling the deleter, or a thread Python never saw;
* a failed call leaves the array's reference count as it was.

A second test checks that a NumPy integer means what the same Python int
means, for ``stream``, ``max_version`` and ``dl_device``.
"""

from __future__ import annotations

import ctypes
import sys
import weakref
from dataclasses import dataclass
from typing import Any

import abi
import fuzz_keywords
import fuzz_layouts
import fuzz_model
from fuzz_budget import fuzz
from fuzz_keywords import Expectation, Keywords
from fuzz_layouts import Layout
from fuzz_oracles import Result, assert_allowed, attempt
from fuzz_stats import Outcome
from hypothesis import strategies as st
from isolation import isolated, maybe_isolated

from dlarray import _core

RELEASES = ("drop", "dlarray", "c_consumer", "c_thread")


@dataclass(frozen=True)
class Export:
    """One export to fuzz, printed as the reproducer of a failure."""

    layout: Layout
    keywords: Keywords
    release: str


EXPORTS = st.builds(
    Export,
    layout=fuzz_layouts.layouts(),
    keywords=fuzz_keywords.keywords(),
    release=st.sampled_from(RELEASES),
)


def _first_element(x: Any) -> int:
    return x._data + x._byte_offset


def _check_flags(read: dict[str, Any], x: Any, copied: bool) -> None:
    want = (
        (abi.FLAG_READ_ONLY if x.readonly and not copied else 0)
        | (abi.FLAG_IS_COPIED if copied else 0)
        | (abi.FLAG_IS_SUBBYTE_TYPE_PADDED if x._padded else 0)
    )
    assert read["flags"] == want, f"flags {read['flags']:#x}, want {want:#x}"


def _check_capsule(capsule: Any, x: Any, want: Expectation) -> bool:
    """The capsule describes ``x`` (or a copy of it); returns whether it is
    a copy."""
    read = abi.read_capsule(capsule)
    assert read["name"] in ("dltensor", "dltensor_versioned")
    versioned = read["name"] == "dltensor_versioned"
    if want.versioned is not None:
        assert versioned == want.versioned, f"max_version asked for versioned={want.versioned}"
    assert read["versioned"] == versioned
    if versioned:
        assert read["version"] == (1, 3)
        copied = bool(read["flags"] & abi.FLAG_IS_COPIED) if want.copied is None else want.copied
        _check_flags(read, x, copied)
    else:
        assert not x._padded, "a legacy capsule cannot mark padding"
        copied = read["manager_ctx"] != id(x) if want.copied is None else want.copied
        assert not (x.readonly and not copied), "a legacy capsule cannot mark read-only memory"
    assert read["ndim"] == x.ndim
    assert tuple(read["shape"]) == x.shape
    assert read["dtype"] == x._dl_dtype
    assert read["deleter"], "a capsule's tensor needs a deleter"
    device = want.target if copied and want.target is not None else x._dl_device
    assert read["device"] == tuple(device)
    if copied:
        want_strides = fuzz_model.c_contiguous_strides(list(x.shape))
        assert read["manager_ctx"] != id(x)
    else:
        want_strides = list(x._strides)
        assert read["manager_ctx"] == id(x), "the capsule must own a reference to the array"
    assert fuzz_model.same_layout(list(x.shape), read["strides"], want_strides), read["strides"]
    if x.size == 0 and read["device"][0] == 1:
        assert read["data"] is None and read["byte_offset"] == 0, "size 0 on CPU: data=NULL"
    elif not copied:
        assert read["data"] == _first_element(x) and read["byte_offset"] == 0
    else:
        assert read["data"] is not None
    return copied


def _check_import(capsule: Any, x: Any, copied: bool) -> None:
    """dlarray imports its own capsule as the same array."""
    versioned = abi.capsule_name(capsule) == abi.VERSIONED_NAME
    y = _core.consume(capsule)
    assert abi.capsule_name(capsule) == b"used_" + (
        abi.VERSIONED_NAME if versioned else abi.LEGACY_NAME
    )
    assert y.shape == x.shape and y._dl_dtype == x._dl_dtype and y._padded == x._padded
    if not copied:
        assert y.readonly == x.readonly
        if x.size:
            assert y._strides == x._strides and _first_element(y) == _first_element(x)
    del y


def _release(capsule: Any, how: str, x: Any, copied: bool) -> None:
    if how == "dlarray":
        _check_import(capsule, x, copied)
    elif how in ("c_consumer", "c_thread"):
        versioned = abi.capsule_name(capsule) == abi.VERSIONED_NAME
        used = abi.USED_VERSIONED_NAME if versioned else abi.USED_LEGACY_NAME
        abi.set_capsule_name(capsule, used)
        if how == "c_consumer":
            abi.raw_deleter(capsule)()
        else:
            abi.run_deleter_on_c_thread(capsule)


def _exported_object(capsule: Any) -> Any:
    """The object the capsule's manager_ctx holds a reference to."""
    address = abi.read_capsule(capsule)["manager_ctx"]
    return ctypes.cast(address, ctypes.py_object).value


def export(case: Export) -> Outcome:
    x = fuzz_layouts.build(case.layout)
    kw = case.keywords
    want = fuzz_keywords.expect(kw, readonly=x.readonly, padded=x._padded)
    before = sys.getrefcount(x)
    result = attempt(lambda: x.__dlpack__(*kw.positional, **kw.values))
    assert_allowed(result, what="__dlpack__")
    state = "exported" if result.error is None else "raised"
    outcome = Outcome(f"{state} ({want.kind})", result.raised)
    if result.error is not None:
        assert want.kind != "must_succeed", f"a valid export raised:\n{result.trace}"
        result = Result()
        assert sys.getrefcount(x) == before, "a failed export leaked a reference to the array"
        return outcome
    assert want.kind != "must_raise", "an export that must fail returned a capsule"
    capsule, result = result.value, Result()
    copied = _check_capsule(capsule, x, want)
    if copied:
        exported = weakref.ref(_exported_object(capsule))
    else:
        assert sys.getrefcount(x) == before + 1, "the capsule holds one reference to the array"
    _release(capsule, case.release, x, copied)
    del capsule
    if copied:
        assert exported() is None, "the copy outlived its capsule"
    assert sys.getrefcount(x) == before, "the capsule's reference was not dropped exactly once"
    return outcome


@fuzz(EXPORTS)
def test_export_of_every_dtype_layout_and_keyword_is_consistent_and_released_once(
    case: Export,
) -> Outcome:
    """Every dtype x layout x keyword: only the three error types, the
    errors and successes the keywords call for, capsule fields that
    describe the array, and one reference released once."""
    if case.release == "c_thread":
        # A deleter on a foreign thread racing the interpreter crashes the
        # process if dlarray gets the GIL wrong: make that a failure.
        return isolated(export, case)
    return maybe_isolated(export, case)


# ---- NumPy integers mean what Python ints mean ----


@st.composite
def _int_keyword(draw: st.DrawFn) -> tuple[str, Any, Any]:
    """(keyword, Python value, the same value with NumPy integers)."""
    name = draw(st.sampled_from(["stream", "max_version", "dl_device"]))
    small = st.sampled_from([-1, 0, 1, 2, 3, 13, 255])
    if name == "stream":
        value = draw(st.one_of(small, st.sampled_from([2**31, -(2**31), 2**63 - 1])))
        return name, value, draw(fuzz_keywords.as_numpy(value))
    pair = (draw(small), draw(small))
    as_numpy = tuple(draw(fuzz_keywords.as_numpy(v)) for v in pair)
    return name, pair, as_numpy


def _signature(result: Result) -> tuple[Any, ...]:
    if result.error is not None:
        return ("raised", type(result.error).__name__)
    read = abi.read_capsule(result.value)
    return ("exported", read["name"], read["flags"], read["device"])


def _export_with(x: Any, name: str, value: Any) -> Result:
    kwargs = {"max_version": (1, 3), name: value}
    return attempt(lambda: x.__dlpack__(**kwargs))


def numpy_integers_mean_python_ints(case: tuple[Layout, tuple[str, Any, Any]]) -> Outcome:
    layout, (name, value, as_numpy) = case
    x = fuzz_layouts.build(layout)
    plain = _export_with(x, name, value)
    numpy = _export_with(x, name, as_numpy)
    assert_allowed(plain, what=f"__dlpack__({name}={value!r})")
    assert_allowed(numpy, what=f"__dlpack__({name}={as_numpy!r})")
    assert _signature(numpy) == _signature(plain), (
        f"{name}={as_numpy!r} ({type(as_numpy).__name__}) does not mean what {name}={value!r} "
        f"means:\n{numpy.trace or 'exported'}"
    )
    return Outcome("same" if numpy.error is None else "same error", numpy.raised)


@fuzz(st.tuples(fuzz_layouts.layouts(kinds=("contiguous", "zero_d", "size_zero")), _int_keyword()))
def test_numpy_integer_keywords_mean_what_python_ints_mean(
    case: tuple[Layout, tuple[str, Any, Any]],
) -> Outcome:
    """``stream``, ``max_version`` and ``dl_device`` given as NumPy integers
    export (or fail) exactly as the same Python ints do."""
    return maybe_isolated(numpy_integers_mean_python_ints, case)
