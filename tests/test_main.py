"""``python -m dlarray`` and ``benchmarks/bench_exchange.py``, run as a user runs them."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dlarray
from dlarray import __main__ as cli

REPO = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    # Run outside the source tree, so that `python -m dlarray` imports the
    # installed package (with its compiled core) as a user's would.
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def table_rows(text: str) -> dict[str, dict[str, str]]:
    """The exchange table of ``python -m dlarray``, keyed by direction."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("direction"))
    header = re.split(r"\s{2,}", lines[start].strip())
    rows = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


def test_table_shows_zero_copy_with_numpy(tmp_path: Path) -> None:
    done = run("-m", "dlarray", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"dlarray {dlarray.__version__}" in done.stdout
    assert "DLPack 1.3" in done.stdout
    rows = table_rows(done.stdout)
    for direction in ("numpy -> dlarray", "dlarray -> numpy"):
        assert rows[direction]["result"] == "ok"
        assert rows[direction]["zero-copy"] == "yes"
        assert rows[direction]["values"] == "equal"
        assert float(rows[direction]["µs/exchange"]) > 0


def test_json_report(tmp_path: Path) -> None:
    done = run("-m", "dlarray", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["dlarray_version"] == dlarray.__version__
    assert report["dlpack_version"] == [1, 3]
    assert "cpu:0" in report["devices"]
    assert report["ok"] is True
    numpy_exchanges = [e for e in report["exchanges"] if e["peer"] == "numpy"]
    assert len(numpy_exchanges) == 2
    for exchange in numpy_exchanges:
        assert exchange["ok"] and exchange["zero_copy"] and exchange["values_equal"]
        assert exchange["capsule"] == "versioned"


def test_a_required_failure_sets_exit_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(x: object) -> object:
        raise BufferError("refused on purpose")

    numpy_peer = cli.PEERS[0]
    broken = dataclasses.replace(numpy_peer, from_dlpack=lambda module: refuse, must_work=True)
    absent = dataclasses.replace(numpy_peer, name="no_such_peer_library")
    monkeypatch.setattr(cli, "PEERS", (broken, absent))
    assert cli.main(["--repeats", "2"]) == 1
    out = capsys.readouterr().out
    assert "dlarray -> numpy: BufferError: refused on purpose" in out
    assert "not installed: no_such_peer_library" in out


def test_benchmark_quick_writes_json(tmp_path: Path) -> None:
    output = tmp_path / "nested" / "exchange.json"
    # --quick takes about two seconds; the timeout only catches a hang.
    script = REPO / "benchmarks" / "bench_exchange.py"
    done = run(str(script), "--quick", "--output", str(output), cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dlarray/numpy =" in done.stdout
    results = json.loads(output.read_text())
    assert results["method"]["quick"] is True
    assert {row["size"] for row in results["rows"]} == {"1", "1M"}
    for row in results["rows"]:
        assert row["dlarray_side"]["ns_per_call"] > 0
        assert row["numpy_side"]["ns_per_call"] > 0
        assert row["ratio"] > 0
