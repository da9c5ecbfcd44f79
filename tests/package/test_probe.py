"""``python -m dlarray probe``, the DLPack referee, run as a user runs it.

The probe runs each library's cases in child processes, so these tests run
it as a subprocess too.  The committed run ``docs/_data/probe.json`` (the
pinned peer versions, rendered into docs/interop.md) is the pin: for each
library installed here at the committed version, today's outcomes must be
the committed ones, so an upstream fix shows up as a changed row.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dlarray import _probe
from dlarray._install import install_command
from dlarray._peers import (
    FP8_DTYPES,
    NUMPY_HAS_DLPACK_REGISTRY,
    PEERS,
    SELF,
    SUBBYTE_DTYPES,
    peer_named,
)
from dlarray._probe import CASES
from dlarray._probe_cases import ALIGNMENT, ML_DTYPES_HOLDS, ToyArray, homed, load_ml_dtypes

# The command-line tools' process orchestration (child processes, time
# limits, builds): CI runs it on the oldest and newest Python only
# (pyproject.toml's `tooling` marker; noxfile.py's TOOLING_PYTHONS).
pytestmark = pytest.mark.tooling

REPO = Path(__file__).resolve().parents[2]
COMMITTED = json.loads((REPO / "docs" / "_data" / "probe.json").read_text())
VERDICTS = {"ok", "deviation", "not supported", "needs package"}


def probe(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dlarray", "probe", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``probe --json`` of dlarray and NumPy (always installed)."""
    done = probe("--json", "--library", "dlarray", "--library", "numpy",
                 cwd=tmp_path_factory.mktemp("probe"))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def outcomes(library: dict[str, Any]) -> dict[str, str]:
    return {r["case"]: r["verdict"] for r in library["results"]}


def test_json_schema(report: dict[str, Any]) -> None:
    assert set(report) == {
        "dlarray_version", "dlpack_version", "python", "platform", "ml_dtypes", "timeout_s",
        "cases", "libraries", "skipped", "duration_s",
    }  # fmt: skip
    assert [c["name"] for c in report["cases"]] == [c.name for c in CASES]
    assert {c["role"] for c in report["cases"]} == {"consumer", "producer"}
    assert set(report["libraries"]) == {"dlarray", "numpy"}
    assert report["timeout_s"] == _probe.TIMEOUT_S
    for library in report["libraries"].values():
        assert isinstance(library["version"], str)
        assert [r["case"] for r in library["results"]] == [c.name for c in CASES]
        for r in library["results"]:
            assert set(r) == {"case", "role", "verdict", "observed", "spec", "link", "needs"}
            assert r["verdict"] in VERDICTS and r["observed"]
            assert r["link"] is None or (
                r["verdict"] == "deviation" and r["link"].startswith("https://")
            )
            assert (r["needs"] is not None) == (r["verdict"] == "needs package")
        counts = {v: list(outcomes(library).values()).count(v) for v in VERDICTS}
        assert library["summary"] == counts


def test_dlarray_follows_every_case(report: dict[str, Any]) -> None:
    found = outcomes(report["libraries"]["dlarray"])
    assert set(found.values()) == {"ok"}, found


def test_numpy_real_outcomes(report: dict[str, Any]) -> None:
    results = {r["case"]: r for r in report["libraries"]["numpy"]["results"]}
    # What every NumPy dlarray supports (>= 2.2.5) does, case by case.
    for case in ("versioned", "legacy_capsule", "byte_offset_1d", "byte_offset_nd",
                 "byte_offset_0d", "negative_strides", "zero_strides", "non_compact",
                 "transposed", "null_strides_old", "zero_d", "zero_size", "is_copied",
                 "newer_major", "capsule_reuse", "dtype_float64", "dtype_bool",
                 "export_versioned", "export_legacy", "export_zero_copy", "export_read_only",
                 "export_copy_true", "export_copy_false", "export_deleter"):  # fmt: skip
        assert results[case]["verdict"] == "ok", results[case]
    assert results["asks_max_version"]["observed"] == "passes max_version=(1, 0)"
    assert "read-only" in results["read_only"]["observed"]
    assert results["newer_major"]["observed"].startswith("refuses: BufferError")
    assert results["export_copy_true"]["observed"] == "copies and sets IS_COPIED"


def test_numpy_extended_floats_as_this_numpy_does(report: dict[str, Any]) -> None:
    # NumPy 2.5's registry of DLPack dtypes, filled by ml_dtypes (>= 0.7) on
    # import, exchanges bfloat16 and fp8 both ways; fp6/fp4 (packed in
    # DLPack, a byte each in ml_dtypes) stay out.  NumPy 2.4 has no registry:
    # it exports none of them (BufferError) and imports none (RuntimeError).
    results = {r["case"]: r for r in report["libraries"]["numpy"]["results"]}
    registered = ("bfloat16", *FP8_DTYPES)
    if load_ml_dtypes() is None:
        pytest.skip("ml_dtypes is not installed here (pip install ml_dtypes)")
    for name in (*registered, *SUBBYTE_DTYPES):
        imported, exported = results[f"dtype_{name}"], results[f"export_dtype_{name}"]
        if NUMPY_HAS_DLPACK_REGISTRY and name in registered:
            assert imported["verdict"] == "ok", imported
            assert imported["observed"] == "reads the right values"
            assert exported["verdict"] == "ok", exported
            assert exported["observed"].startswith("exports DLPack type code ")
        elif NUMPY_HAS_DLPACK_REGISTRY:
            assert imported["verdict"] == exported["verdict"] == "not supported"
            assert imported["observed"].startswith("refused: BufferError: ")
        else:
            assert imported["verdict"] == "deviation", imported
            assert imported["observed"] == "raises RuntimeError: Unsupported dtype in DLTensor."
            assert exported["verdict"] == "not supported", exported
            assert exported["observed"].startswith("refused: BufferError: ")


def test_text_report(tmp_path: Path) -> None:
    done = probe("--library", "numpy", "--case", "byte_offset_*", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("dlarray ") and "3 cases per library" in lines[0]
    assert any(line.startswith("numpy ") and line.endswith("3 ok, 0 deviations, 0 not supported")
               for line in lines)  # fmt: skip


def test_skipped_libraries_are_named() -> None:
    names = [p.name for p in PEERS if not p.installed()]
    report = _probe.probe(names=names)  # spawns no child: none is installed
    assert report["libraries"] == {}
    for peer in PEERS:
        if peer.name in names:
            # The command that installs it (dlarray's extra for CuPy and dpnp).
            assert report["skipped"][peer.name] == f"not installed ({peer.install})"


def test_a_peer_installed_by_an_extra_is_advised_by_that_extra() -> None:
    fake_cupy = dataclasses.replace(peer_named("cupy"), name="no_such_cupy_module")
    assert _probe._skip_reason(fake_cupy) == f"not installed ({install_command('cupy')})"
    assert "[cupy12]" in _probe._skip_reason(fake_cupy)
    assert "cupy-cuda12x" not in _probe._skip_reason(fake_cupy)  # the CUDA 12 wheel, before


ABORTING_PEER = """
import os

import numpy as np

from dlarray import abi
from dlarray._peers import SELF, Peer
import dataclasses


def from_dlpack(module):
    def consume(x):
        strides = abi.describe(x.__dlpack__(max_version=(1, 3))).strides or ()
        if any(s < 0 for s in strides):
            os.abort()  # as torch < 2.14 does
        return np.from_dlpack(x)
    return consume


PEERS = (dataclasses.replace(SELF, name="probe_abort_peer", from_dlpack=from_dlpack,
                             to_numpy=np.asarray),)
"""


def test_an_abort_is_reported_and_the_next_case_runs(tmp_path: Path) -> None:
    (tmp_path / "probe_abort_peer.py").write_text(textwrap.dedent(ABORTING_PEER))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    cases = ("--case", "byte_offset_1d", "--case", "negative_strides", "--case", "zero_d")
    done = probe("--json", "--peer-table", "probe_abort_peer:PEERS", *cases, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["libraries"]["probe_abort_peer"]["results"]
    found = {r["case"]: r for r in results}
    assert list(found) == ["byte_offset_1d", "negative_strides", "zero_d"]
    assert found["negative_strides"]["verdict"] == "deviation"
    assert found["negative_strides"]["observed"].startswith("aborts the process (SIGABRT)")
    assert found["byte_offset_1d"]["verdict"] == found["zero_d"]["verdict"] == "ok"


# ---- without ml_dtypes: what a plain `pip install dlarray` gives ----

#: Hides ml_dtypes from every process started with it on PYTHONPATH (the
#: probe's children too), as if it were not installed.
NO_ML_DTYPES = 'import sys\nsys.modules["ml_dtypes"] = None  # as if not installed\n'


def without_ml_dtypes(folder: Path) -> dict[str, str]:
    (folder / "sitecustomize.py").write_text(NO_ML_DTYPES)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(folder), env.get("PYTHONPATH", "")])
    return env


def test_without_ml_dtypes_dlarray_has_no_deviation(tmp_path: Path) -> None:
    # Issue 42: a plain install reported 12 deviations for dlarray itself,
    # each "imports, but reading it raises TypeError: ... need the ml_dtypes
    # package for NumPy to hold them; ins" (cut mid-word).
    env = without_ml_dtypes(tmp_path)
    done = probe("--json", "--library", "dlarray", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ml_dtypes"] is None
    dlarray_row = report["libraries"]["dlarray"]
    needs = {r["case"] for r in dlarray_row["results"] if r["verdict"] == "needs package"}
    # The cases of the types NumPy holds only through ml_dtypes, and only those.
    extended = {c.name for c in CASES if c.name.removeprefix("export_").removeprefix("dtype_")
                in ML_DTYPES_HOLDS}  # fmt: skip
    assert needs == extended
    assert dlarray_row["summary"] == {
        "ok": len(CASES) - len(extended), "deviation": 0, "not supported": 0,
        "needs package": len(extended),
    }  # fmt: skip
    for r in dlarray_row["results"]:
        if r["verdict"] == "needs package":
            assert r["needs"] == "ml_dtypes"
            assert r["observed"].endswith(f"needs ml_dtypes: {install_command('ml-dtypes')}")
    text = probe("--library", "dlarray", cwd=tmp_path, env=env).stdout
    assert ", without ml_dtypes (" in text.splitlines()[0]
    assert (
        f"dlarray {report['dlarray_version']}: {len(CASES) - len(extended)} ok, 0 deviations, "
        f"0 not supported, {len(extended)} need a package"
    ) in text.splitlines()
    assert "deviations:" not in text and "\nneed a package:\n" in text
    # docs/interop.md quotes that line.
    interop = " ".join((REPO / "docs" / "interop.md").read_text().split())
    quoted = (
        f"`{len(CASES) - len(extended)} ok, 0 deviations, 0 not supported, "
        f"{len(extended)} need a package`"
    )
    assert quoted in interop


def test_the_text_report_wraps_messages_whole(report: dict[str, Any]) -> None:
    text = _probe.format_report(report)
    flat = " ".join(text.split())
    for library in report["libraries"].values():
        for r in library["results"]:
            if r["verdict"] != "ok":
                assert " ".join(r["observed"].split()) in flat, r
    for line in text.splitlines():
        assert len(line) <= _probe.WIDTH or " " not in line.strip(), line


LONG_MESSAGE_PEER = """
import dataclasses

from dlarray._peers import SELF

SAID = "refused " + " ".join(f"reason{i}" for i in range(40))


def from_dlpack(module):
    def consume(x):
        raise BufferError(SAID)
    return consume


PEERS = (dataclasses.replace(SELF, name="probe_long_message_peer", from_dlpack=from_dlpack),)
"""


def test_a_long_message_is_kept_whole(tmp_path: Path) -> None:
    # The probe cut every message at 90 characters, mid-word.
    (tmp_path / "probe_long_message_peer.py").write_text(textwrap.dedent(LONG_MESSAGE_PEER))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    table = ("--peer-table", "probe_long_message_peer:PEERS", "--case", "versioned")
    done = probe("--json", *table, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["libraries"]["probe_long_message_peer"]["results"]
    said = "refused " + " ".join(f"reason{i}" for i in range(40))
    assert result["observed"] == f"refused: BufferError: {said}"
    text = probe(*table, cwd=tmp_path, env=env).stdout
    assert f"refused: BufferError: {said}" in " ".join(text.split())


def test_the_docs_tables_keep_messages_whole() -> None:
    # The tables interop.md includes, rendered from the committed run.
    sys.path.insert(0, str(REPO / "docs" / "_ext"))
    try:
        figures = importlib.import_module("dlarray_docs_figures")
    finally:
        sys.path.remove(str(REPO / "docs" / "_ext"))
    fragments = figures.probe_fragments(REPO / "docs")
    tables = fragments["probe_deviations.md"] + fragments["probe_not_supported.md"]
    for library in COMMITTED["libraries"].values():
        for r in library["results"]:
            if r["verdict"] in ("deviation", "not supported"):
                assert figures._cell(r["observed"]) in tables, r


# ---- the pins: the committed run, per library at its committed version ----

LIBRARIES = {p.name: p for p in (SELF, *PEERS)}


@pytest.mark.parametrize("name", list(COMMITTED["libraries"]))
def test_committed_outcomes_still_hold(name: str, tmp_path: Path) -> None:
    peer = LIBRARIES[name]
    if not peer.installed():
        # Worded as tests/conftest.py's skip summary reads it: the module's name.
        pytest.skip(f"{name} is not installed ({peer.install})")
    committed = COMMITTED["libraries"][name]
    if name != "dlarray" and peer.version() != committed["version"]:
        pinned = committed["version"].split("+")[0]
        pytest.skip(
            f"{name} {peer.version()} installed; the pins are for {committed['version']} "
            f"(pip install '{peer.pip}=={pinned}')"
        )
    numpy_pin = COMMITTED["libraries"]["numpy"]["version"]
    if name != "dlarray" and np.__version__ != numpy_pin:
        # The peers' arrays are made and read back through NumPy, and
        # array-api-strict imports through numpy.from_dlpack: their outcomes
        # hold for the NumPy they were recorded with.
        pytest.skip(
            f"numpy {np.__version__} installed; the pins are for {numpy_pin} "
            f"(pip install 'numpy=={numpy_pin}')"
        )
    if COMMITTED["ml_dtypes"] and load_ml_dtypes() is None:
        pytest.skip(
            f"the committed run had ml_dtypes {COMMITTED['ml_dtypes']}, this environment has "
            f"none ({install_command('ml-dtypes')})"
        )
    done = probe("--json", "--library", name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    now = json.loads(done.stdout)["libraries"][name]
    changed = {
        case: (verdict, outcomes(now).get(case))
        for case, verdict in outcomes(committed).items()
        if outcomes(now).get(case) != verdict
    }
    assert not changed, (
        f"{name}'s outcomes changed (committed, now): {changed}; rerun "
        "`python -m dlarray probe --json > docs/_data/probe.json` with the pinned versions"
    )
    assert list(outcomes(now)) == list(outcomes(committed))


@pytest.mark.parametrize("past", [0, 8, 16, 48])
@pytest.mark.parametrize("size", [0, 1, 7, 12, 100])
def test_homed_memory_starts_where_asked(past: int, size: int) -> None:
    """The toy's memory is a copy at a chosen distance from a 64-byte
    boundary: a consumer's zero-copy road must not depend on the allocator."""
    memory = np.arange(size, dtype=np.float64)[::-1]  # not contiguous, not where asked
    home = homed(memory, past)
    assert home.ctypes.data % ALIGNMENT == past
    assert home.dtype == memory.dtype and home.flags.c_contiguous
    assert home.tobytes() == memory.tobytes()
    toy = ToyArray(memory, dtype=(2, 64, 1))
    assert toy.memory.ctypes.data % ALIGNMENT == 0
    assert toy.elsewhere(past).memory.ctypes.data % ALIGNMENT == past
    assert toy.elsewhere(past).fields == toy.fields
