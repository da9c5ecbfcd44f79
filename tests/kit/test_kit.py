"""The DLPack conformance kit (``pytest --dlpack-library NAME``, issue 46):
each probe case a test, judged exactly as ``python -m dlarray probe``
judges it.

The runs are fresh ``pytest`` processes (kit_runner.py).  The subject
with known faults is shoddy (tests/kit/shoddy.py, five deliberate
deviations) through its adapter (tests/kit/adapters/shoddy_adapter.py); the kit
against the real peers is test_kit_peers.py."""

from __future__ import annotations

import importlib.metadata
import pathlib
import re
import textwrap
import xml.etree.ElementTree as ET

import pytest
from kit_runner import (
    C_API,
    HERE,
    OBJECTS,
    SHODDY,
    SHODDY_CANNOT,
    SHODDY_DEVIATES,
    SPEC,
    USAGE_ERROR,
    by_outcome,
    run_kit,
)

from dlarray._kit import read_known_deviations
from dlarray._probe import CASES

# The command-line tools' process orchestration (child processes, time
# limits, builds): CI runs it on the oldest and newest Python only
# (pyproject.toml's `tooling` marker; noxfile.py's TOOLING_PYTHONS).
pytestmark = pytest.mark.tooling

GUIDE = HERE.parents[1] / "docs" / "guide" / "test-your-dlpack.md"


def test_entry_point_is_declared() -> None:
    """pytest finds the kit through dlarray's pytest11 entry point."""
    found = [e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "dlarray"]
    assert [e.value for e in found] == ["_dlarray_pytest"], (
        f"installed entry points {found}: reinstall dlarray (pip install .)"
    )


def test_shoddy_is_judged_exactly(tmp_path: pathlib.Path) -> None:
    """Each deliberate deviation fails with the rule's words; nothing else fails."""
    process, results = run_kit(tmp_path, "--dlpack-library", str(SHODDY), "-rs")
    assert process.returncode == 1, process.stdout + process.stderr
    assert set(results) == {c.name for c in CASES}
    assert by_outcome(results, "failed") == SHODDY_DEVIATES
    for name in SHODDY_DEVIATES:
        message = results[name][1]
        assert "shoddy deviates from DLPack as a" in message and f"({name})" in message
        assert f"spec:     {SPEC[name]}" in message, message
    for name in by_outcome(results, "skipped"):  # what it cannot be asked, or ml_dtypes missing
        reason = results[name][1]
        assert (name in SHODDY_CANNOT and "not supported" in reason) or "needs ml_dtypes" in reason
    assert SHODDY_CANNOT <= by_outcome(results, "skipped")
    # The guide quotes this failure as its example.
    assert guide_block("text", "shoddy deviates") == results["byte_offset_1d"][1].strip()


def guide_block(language: str, containing: str) -> str:
    """The fenced ``language`` block of the guide page that holds ``containing``."""
    blocks = re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    (block,) = [b for b in blocks if containing in b]
    return str(block).strip()


def test_the_guides_adapter(tmp_path: pathlib.Path) -> None:
    """The adapter the guide shows, for its made-up tinyarray
    (tests/kit/tinyarray.py): every case passes but those it cannot be
    asked (no mark_read_only, no C exchange table, no dtype objects)."""
    adapter = tmp_path / "dlpack_adapter.py"
    adapter.write_text(guide_block("python", "import tinyarray"))
    assert len(adapter.read_text().splitlines()) < 30
    env = {"PYTHONPATH": str(HERE)}  # tinyarray is not installed: it sits beside this file
    process, results = run_kit(tmp_path, "--dlpack-library", str(adapter), env=env)
    assert process.returncode == 0, process.stdout + process.stderr
    assert set(results) == {c.name for c in CASES}
    classes = {c.get("classname") for c in ET.parse(tmp_path / "junit.xml").iter("testcase")}
    assert classes == {"dlpack[tinyarray]"}  # the adapter's name, read without running it
    skipped = by_outcome(results, "skipped")
    assert {"export_read_only", *C_API, *OBJECTS} <= skipped
    for name in skipped - {"export_read_only", *C_API, *OBJECTS}:
        assert "needs ml_dtypes" in results[name][1]


def test_a_faulty_exchange_table_is_judged_exactly(tmp_path: pathlib.Path) -> None:
    """A producer whose table has a NULL current_work_stream and stubs for
    the importer and the allocator (tests/kit/adapters/fake_table_adapter.py)
    fails exactly those cases; as a producer only, its consumer cases are
    not supported."""
    adapter = HERE / "adapters" / "fake_table_adapter.py"
    process, results = run_kit(tmp_path, "--dlpack-library", str(adapter))
    assert process.returncode == 1
    failed = {"c_api_table", "c_api_work_stream", "c_api_to_py", "c_api_allocator",
              "c_api_allocator_error"}  # fmt: skip
    assert by_outcome(results, "failed") == failed
    for name in failed:
        assert f"spec:     {SPEC[name]}" in results[name][1]
    assert "with NULL current_work_stream" in results["c_api_table"][1]
    assert "returns -1 and calls SetError 0 times" in results["c_api_allocator_error"][1]
    assert {"c_api_from_py", "c_api_dltensor_from_py"} <= by_outcome(results, "passed")
    consumer = {c.name for c in CASES if c.role == "consumer"}
    assert consumer <= by_outcome(results, "skipped")
    assert all("has no from_dlpack for host memory" in results[n][1] for n in consumer)


def test_known_deviations_expected_and_fixed(tmp_path: pathlib.Path) -> None:
    """A listed deviation is an expected failure with its reason; a listed
    case that now passes fails, saying it is fixed."""
    known = tmp_path / "deviations.toml"
    known.write_text(textwrap.dedent("""\
        [deviations]
        device_unknown = "https://example.org/shoddy/issues/1"
        versioned = "was wrong before shoddy 0.0.1"
        """))  # fmt: skip
    process, results = run_kit(
        tmp_path, "--dlpack-library", str(SHODDY), "--dlpack-known-deviations", str(known),
        "-k", "device_unknown or versioned and not export or byte_offset_1d",
    )  # fmt: skip
    assert process.returncode == 1
    assert set(results) == {"device_unknown", "versioned", "byte_offset_1d"}, results
    outcome, reason = results["device_unknown"]
    assert outcome == "xfailed" and "https://example.org/shoddy/issues/1" in reason
    outcome, message = results["versioned"]
    assert outcome == "failed" and message.startswith("fixed: versioned now follows")
    assert str(known) in message
    assert results["byte_offset_1d"][0] == "failed"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('[deviations]\nbyte_ofset_1d = "x"\n', "did you mean byte_offset_1d"),
        ('[deviations]\nversioned = ""\n', "versioned needs a reason or an issue link"),
        ("[deviations]\nversioned = 1\n", "versioned needs a reason or an issue link"),
        ('versioned = "x"\n', "has no [deviations] table"),
        ("[deviations\n", "is not TOML"),
    ],
    ids=["unknown case", "empty reason", "not a string", "no table", "not toml"],
)
def test_known_deviations_file_errors(tmp_path: pathlib.Path, content: str, said: str) -> None:
    """A file that could hide a deviation is refused, saying why."""
    known = tmp_path / "deviations.toml"
    known.write_text(content)
    with pytest.raises(pytest.UsageError, match=re.escape(said)):
        read_known_deviations(known)


def test_a_bad_known_deviations_file_stops_the_run(tmp_path: pathlib.Path) -> None:
    """...before any test runs, with pytest's usage-error status."""
    known = tmp_path / "deviations.toml"
    known.write_text('[deviations]\nnegative_stride = "typo"\n')
    process, results = run_kit(
        tmp_path, "--dlpack-library", str(SHODDY), "--dlpack-known-deviations", str(known)
    )
    assert process.returncode == USAGE_ERROR, process.stdout + process.stderr
    assert "did you mean negative_strides" in process.stderr and results == {}


def test_known_deviations_file_reads(tmp_path: pathlib.Path) -> None:
    known = tmp_path / "deviations.toml"
    known.write_text('[deviations]\nnegative_strides = "https://example.org/1"\n')
    assert read_known_deviations(known) == {"negative_strides": "https://example.org/1"}
    with pytest.raises(pytest.UsageError, match="cannot read"):
        read_known_deviations(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    ("library", "said"),
    [
        ("nosuch", "no library named 'nosuch' in the probe's table"),
        ("missing_adapter.py", "no adapter file at"),
    ],
)
def test_unknown_library_is_a_usage_error(tmp_path: pathlib.Path, library: str, said: str) -> None:
    process, _ = run_kit(tmp_path, "--dlpack-library", library)
    assert process.returncode == USAGE_ERROR
    assert f"--dlpack-library {library}: " in process.stderr and said in process.stderr


def test_timeout_must_be_seconds(tmp_path: pathlib.Path) -> None:
    process, _ = run_kit(tmp_path, "--dlpack-library", "numpy", "--dlpack-timeout", "soon")
    assert process.returncode == USAGE_ERROR
    assert "--dlpack-timeout: expected seconds above 0, got 'soon'" in process.stderr


def test_an_adapter_that_defines_nothing_fails_every_case(tmp_path: pathlib.Path) -> None:
    """The adapter is read in the probe's child: its error is each test's."""
    adapter = tmp_path / "empty.py"
    adapter.write_text('"""An adapter that says nothing."""\n')
    process, results = run_kit(tmp_path, "--dlpack-library", str(adapter), "-k", "versioned")
    assert process.returncode == 1
    outcome, message = results["versioned"]
    assert outcome == "failed"
    assert "empty does not import: raises TypeError:" in message, message
    assert "defines neither from_dlpack" in message


def test_a_case_that_kills_the_process_fails_alone(tmp_path: pathlib.Path) -> None:
    """A consumer that aborts on negative strides (torch before 2.14 did)
    fails that case, reported as an abort; the cases after it still run."""
    adapter = tmp_path / "aborts.py"
    adapter.write_text(textwrap.dedent("""\
        import os
        import numpy as np
        import dlarray

        def from_dlpack(x):
            if getattr(x, "fields", {}).get("strides") == (-1,):  # the probe's toy producer
                os.abort()
            return dlarray.from_dlpack(x)

        def to_numpy(array):
            return np.asarray(array)
        """))  # fmt: skip
    process, results = run_kit(
        tmp_path, "--dlpack-library", str(adapter),
        "-k", "byte_offset_0d or negative_strides or zero_strides",
    )  # fmt: skip
    assert process.returncode == 1
    assert by_outcome(results, "passed") == {"byte_offset_0d", "zero_strides"}
    outcome, message = results["negative_strides"]
    assert outcome == "failed" and "aborts the process (SIGABRT)" in message


@pytest.mark.parametrize("broken", ["aligned", "copied"])
def test_a_consumer_broken_at_one_alignment_deviates(tmp_path: pathlib.Path, broken: str) -> None:
    """A consumer that imports 64-byte-aligned memory zero-copy and copies
    the rest (JAX does) is judged on both roads, whichever the allocator
    would have chosen: a tensor is read at both starts, each named.  (Before
    that, the toy's memory started at a 64-byte boundary one time in four,
    and the verdict followed; test_probe.py checks where it starts now.)"""
    adapter = HERE / "adapters" / "alignment_adapter.py"
    env = {"DLARRAY_TEST_BROKEN_ROAD": broken}
    _, results = run_kit(tmp_path, "--dlpack-library", str(adapter), "-k", "dtype_float64",
                         env=env)  # fmt: skip
    outcome, message = results["dtype_float64"]
    assert outcome == "failed", results
    bad = ("at a 64-byte-aligned address" if broken == "aligned"
           else "at an address 16 bytes past a 64-byte boundary")  # fmt: skip
    good = ("at an address 16 bytes past a 64-byte boundary" if broken == "aligned"
            else "at a 64-byte-aligned address")  # fmt: skip
    assert f"{bad}, raises RuntimeError: the {broken} road is broken" in message, message
    assert f"{good}, reads the right values" in message, message
