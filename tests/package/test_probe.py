"""``python -m dlarray probe``, the DLPack referee, run as a user runs it.

The probe runs each library's cases in child processes, so these tests run
it as a subprocess too.  The committed run ``docs/_data/probe.json`` (the
pinned peer versions, rendered into docs/interop.md) is the pin: for each
library installed here at the committed version, today's outcomes must be
the committed ones, so an upstream fix shows up as a changed row.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from dlarray import _probe
from dlarray._peers import PEERS, SELF
from dlarray._probe_cases import CASES

REPO = Path(__file__).resolve().parents[2]
COMMITTED = json.loads((REPO / "docs" / "_data" / "probe.json").read_text())
VERDICTS = {"ok", "deviation", "not supported"}


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
        "dlarray_version", "dlpack_version", "python", "platform", "cases", "libraries",
        "skipped", "duration_s",
    }  # fmt: skip
    assert [c["name"] for c in report["cases"]] == [c.name for c in CASES]
    assert {c["role"] for c in report["cases"]} == {"consumer", "producer"}
    assert set(report["libraries"]) == {"dlarray", "numpy"}
    for library in report["libraries"].values():
        assert isinstance(library["version"], str)
        assert [r["case"] for r in library["results"]] == [c.name for c in CASES]
        for r in library["results"]:
            assert set(r) == {"case", "role", "verdict", "observed", "spec", "link"}
            assert r["verdict"] in VERDICTS and r["observed"]
            assert r["link"] is None or (
                r["verdict"] == "deviation" and r["link"].startswith("https://")
            )
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
    for name in names:
        assert (
            "not installed" in report["skipped"][name] or "host memory" in report["skipped"][name]
        )


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


# ---- the pins: the committed run, per library at its committed version ----

LIBRARIES = {p.name: p for p in (SELF, *PEERS)}


@pytest.mark.parametrize("name", list(COMMITTED["libraries"]))
def test_committed_outcomes_still_hold(name: str, tmp_path: Path) -> None:
    peer = LIBRARIES[name]
    if not peer.installed():
        pytest.skip(f"{peer.pip} is not installed (pip install {peer.pip})")
    committed = COMMITTED["libraries"][name]
    if name != "dlarray" and peer.version() != committed["version"]:
        pytest.skip(f"{name} {peer.version()} installed; the pins are for {committed['version']}")
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
