"""``python -m dlarray`` and ``benchmarks/bench_exchange.py``, run as a user runs them."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import dlarray
from dlarray import __main__ as cli
from dlarray._cuda.runtime import CUDAUnavailableError

REPO = Path(__file__).resolve().parents[2]
KINDS = ("cpu", "cuda", "cuda_managed", "cuda_host", "sycl", "sycl_shared", "sycl_host")


def run(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    # Run outside the source tree, so that `python -m dlarray` imports the
    # installed package (with its compiled core) as a user's would.
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def table_rows(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """The exchange table of ``python -m dlarray``, keyed by (direction, device)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("direction"))
    header = re.split(r"\s{2,}", lines[start].strip())
    rows = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0], cells[1]] = dict(zip(header, cells, strict=True))
    return rows


@pytest.fixture(scope="module")
def json_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``python -m dlarray --json --repeats 2`` run, shared by the JSON tests."""
    done = run("-m", "dlarray", "--json", "--repeats", "2", cwd=tmp_path_factory.mktemp("doctor"))
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def exchange(report: dict[str, Any], direction: str, device: str) -> dict[str, Any]:
    """The one exchange of ``report`` in ``direction`` on ``device``."""
    (found,) = [
        e for e in report["exchanges"] if e["direction"] == direction and e["device"] == device
    ]
    return found


def test_table_shows_zero_copy_with_numpy(tmp_path: Path) -> None:
    done = run("-m", "dlarray", "--repeats", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"dlarray {dlarray.__version__}" in done.stdout
    assert "DLPack 1.3" in done.stdout
    assert "  cpu: cpu:0" in done.stdout  # the devices-per-kind report
    rows = table_rows(done.stdout)
    for direction in ("numpy -> dlarray", "dlarray -> numpy"):
        row = rows[direction, "cpu:0"]
        assert row["result"] == "ok"
        assert row["zero-copy"] == "yes"
        assert row["values"] == "equal"
        assert int(row["ns/exchange"]) > 0  # whole ns, as the docs give times
    # The legend under the table, and then the verdict.
    legend = "\n".join(cli.LEGEND)
    assert legend in done.stdout
    assert done.stdout.index(legend) > done.stdout.index("dlarray -> numpy")
    assert re.search(r"^all \d+ exchanges work$", done.stdout, re.MULTILINE)


def test_json_report(json_report: dict[str, Any]) -> None:
    assert json_report["dlarray_version"] == dlarray.__version__
    assert json_report["dlpack_version"] == [1, 3]
    assert json_report["ok"] is True
    numpy_exchanges = [e for e in json_report["exchanges"] if e["peer"] == "numpy"]
    assert {e["device"] for e in numpy_exchanges} >= {"cpu:0"}
    for direction in ("numpy -> dlarray", "dlarray -> numpy"):
        found = exchange(json_report, direction, "cpu:0")
        assert found["ok"] and found["zero_copy"] and found["values_equal"]
        assert found["route"] == "versioned"
        assert isinstance(found["time_ns"], int) and found["time_ns"] > 0
        # One field per fact: the route is not repeated as a capsule kind.
        assert set(found) == {f.name for f in dataclasses.fields(cli.Exchange)}


def test_json_devices_report_every_kind(json_report: dict[str, Any]) -> None:
    devices = json_report["devices"]
    assert set(devices) == set(KINDS)
    assert devices["cpu"] == {"devices": ["cpu:0"], "reason": None}
    listed = {f"{d.kind}:{d.index}" for d in dlarray.__array_namespace_info__().devices()}
    for kind, found in devices.items():
        # Each kind has devices or a reason, never both, never neither.
        assert bool(found["devices"]) != bool(found["reason"]), (kind, found)
        assert set(found["devices"]) == {d for d in listed if d.split(":")[0] == kind}


def test_json_cuda_reason_names_what_is_missing(json_report: dict[str, Any]) -> None:
    from dlarray._cuda.runtime import runtime

    try:
        runtime()
    except CUDAUnavailableError as exc:
        missing = str(exc).splitlines()[0]
    else:
        pytest.skip("this machine has a working CUDA runtime")
    # The doctor ran in another process, where an ImportError may word the
    # missing module differently: compare up to the first parenthesis.
    for kind in ("cuda", "cuda_managed", "cuda_host"):
        found = json_report["devices"][kind]
        assert found["devices"] == []
        assert found["reason"].split("(")[0] == missing.split("(")[0]
    assert re.search(r"driver|GPU|cuda-bindings", missing)


@pytest.mark.parametrize("peer", ["torch", "jax", "tvm_ffi"])
def test_peer_cpu_rows_are_zero_copy(json_report: dict[str, Any], peer: str) -> None:
    pytest.importorskip(peer)
    for direction in (f"{peer} -> dlarray", f"dlarray -> {peer}"):
        found = exchange(json_report, direction, "cpu:0")
        assert found["ok"], found["error"]
        assert found["zero_copy"] is True
        assert found["values_equal"] is True
        assert found["route"] in ("table", "versioned", "legacy")
        assert found["time_ns"] > 0


@pytest.mark.parametrize(
    ("peer", "direction"),
    [("torch", "torch -> dlarray"), ("tvm_ffi", "dlarray -> tvm_ffi")],
)
def test_exchanges_through_a_c_exchange_table_say_so(
    json_report: dict[str, Any], peer: str, direction: str
) -> None:
    # torch.Tensor carries a table dlarray uses; tvm-ffi uses dlarray's.
    pytest.importorskip(peer)
    found = exchange(json_report, direction, "cpu:0")
    assert found["ok"], found["error"]
    assert found["route"] == "table"


def _refuse_device_memory(x: Any) -> Any:
    import numpy

    if x.__dlpack_device__()[0] != 1:  # anything but kDLCPU
        raise BufferError("refused on purpose")
    return numpy.from_dlpack(x)


def test_a_failure_on_a_device_kind_sets_exit_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Pretend pinned CUDA memory exists, and no other memory but the host's
    # (whatever this machine has).  Without a GPU dlarray cannot allocate it;
    # with one, this numpy refuses it: the row fails either way.
    for kind in cli.DEVICE_PROBES.keys() - {"cpu"}:
        monkeypatch.setitem(cli.DEVICE_PROBES, kind, list)
    monkeypatch.setitem(cli.DEVICE_PROBES, "cuda_host", lambda: [dlarray.Device("cuda_host")])
    refusing = dataclasses.replace(cli.PEERS[0], from_dlpack=lambda module: _refuse_device_memory)
    absent = dataclasses.replace(cli.PEERS[0], name="no_such_peer_library")
    monkeypatch.setattr(cli, "PEERS", (refusing, absent))
    assert cli.main(["--repeats", "2"]) == 1
    out = capsys.readouterr().out
    rows = table_rows(out)
    assert set(rows) == {
        ("numpy -> dlarray", "cpu:0"),
        ("dlarray -> numpy", "cpu:0"),
        ("dlarray -> numpy", "cuda_host:0"),
    }
    assert rows["dlarray -> numpy", "cpu:0"]["result"] == "ok"
    assert rows["dlarray -> numpy", "cuda_host:0"]["result"] == "FAILED"
    assert re.search(r"^dlarray -> numpy on cuda_host:0: \w+Error: ", out, re.MULTILINE)
    assert "not installed: no_such_peer_library" in out
    assert "1 of 3 exchanges FAILED" in out


def test_a_cpu_failure_names_the_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(x: object) -> object:
        raise BufferError("refused on purpose")

    broken = dataclasses.replace(cli.PEERS[0], from_dlpack=lambda module: refuse)
    monkeypatch.setattr(cli, "PEERS", (broken,))
    assert cli.main(["--repeats", "2", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    failed = exchange(report, "dlarray -> numpy", "cpu:0")
    assert failed["ok"] is False
    assert failed["error"] == "BufferError: refused on purpose"
    assert report["ok"] is False


def test_a_peer_without_a_device_here_has_no_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_gpu() -> list[dlarray.Device]:
        raise CUDAUnavailableError("no GPU in this test\nsecond line")

    monkeypatch.setitem(cli.DEVICE_PROBES, "cuda", no_gpu)
    numpy_peer = cli.PEERS[0]
    gpu_only = dataclasses.replace(
        numpy_peer, make={"cuda": numpy_peer.make["cpu"]}, consumes=("cuda",)
    )
    monkeypatch.setattr(cli, "PEERS", (gpu_only,))
    report = cli.survey(repeats=2)
    assert report["exchanges"] == []
    assert report["peers_without_device"] == {"numpy": ["cuda"]}
    assert report["devices"]["cuda"] == {"devices": [], "reason": "no GPU in this test"}
    text = cli.format_table(report)
    assert "numpy: no supported device here (it supports cuda)" in text
    assert "  cuda: none (no GPU in this test)" in text
    assert table_rows(text) == {}


def test_a_probe_that_breaks_becomes_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> list[dlarray.Device]:
        raise RuntimeError("the driver fell over")

    monkeypatch.setitem(cli.DEVICE_PROBES, "sycl_host", broken)
    monkeypatch.setitem(cli.DEVICE_PROBES, "sycl_shared", list)  # works, finds nothing
    found = cli.discover_devices()
    assert found["sycl_host"] == cli.KindReport([], "the driver fell over")
    assert found["sycl_shared"].devices == []
    assert found["sycl_shared"].reason == "no device offers sycl_shared memory"
    assert found["cpu"] == cli.KindReport([dlarray.Device("cpu")])


def test_dpnp_exchanges_on_every_sycl_kind(tmp_path: Path) -> None:
    pytest.importorskip("dpnp")
    from dlarray._sycl.runtime import no_device_reason

    found = {d.kind for d in dlarray.__array_namespace_info__().devices()}
    if "sycl" not in found:
        pytest.skip(f"dpnp is installed but dlarray has no SYCL device: {no_device_reason()}")
    done = run("-m", "dlarray", "--json", "--repeats", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    for kind in ("sycl", "sycl_shared", "sycl_host"):
        assert report["devices"][kind] == {"devices": [f"{kind}:0"], "reason": None}
        for direction in ("dpnp -> dlarray", "dlarray -> dpnp"):
            row = exchange(report, direction, f"{kind}:0")
            assert row["ok"], row["error"]
            assert row["zero_copy"] is True
            assert row["values_equal"] is True
            assert row["route"] == "versioned"


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


def test_peer_benchmark_quick_reports_every_library_and_target(tmp_path: Path) -> None:
    output = tmp_path / "peers.json"
    script = REPO / "benchmarks" / "bench_peers.py"
    done = run(str(script), "--quick", "--output", str(output), cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "targets:" in done.stdout
    results = json.loads(output.read_text())
    libraries = {cell["library"] for cell in results["cells"]}
    assert libraries == {"dlarray", "numpy", "torch", "tvm_ffi", "jax"}
    for cell in results["cells"]:
        if cell["library"] in ("dlarray", "numpy") and cell["na"] is None:
            assert cell["ns_per_call"] > 0
    # Four targets, each at two sizes, each measured or with a reason.
    assert len(results["targets"]) == 8
    for target in results["targets"]:
        assert isinstance(target["met"], bool)
        assert target["reason"] is not None or target["subject_ns"] > 0


@pytest.mark.skipif(
    os.environ.get("DLARRAY_SANITIZED") == "1",
    reason="RSS means nothing under AddressSanitizer: its quarantine keeps freed memory mapped "
    "(nox -s sanitize sets DLARRAY_SANITIZED)",
)
def test_memory_benchmark_quick_finds_no_growth(tmp_path: Path) -> None:
    output = tmp_path / "memory.json"
    script = REPO / "benchmarks" / "bench_memory.py"
    done = run(str(script), "--quick", "--output", str(output), cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(output.read_text())
    assert results["all_passed"] is True
    cases = {case["case"] for case in results["cases"]}
    assert "dlarray.from_dlpack(numpy_array)" in cases
    for case in results["cases"]:
        assert case["exchanges"] >= 200_000
        assert case["growth_bytes"] < 1_000_000 and case["refcount_delta"] == 0


def _doctor_examples(path: Path) -> list[list[str]]:
    """The exchange tables shown in ``path``: each ```text block that holds
    the doctor's header, as its lines from the header on."""
    blocks = re.findall(r"```text\n(.*?)```", path.read_text(), re.DOTALL)
    found = []
    for block in blocks:
        lines = block.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("direction ")]
        found += [lines[i:] for i in starts]
    return found


@pytest.mark.parametrize("page", ["README.md", "docs/guide/installing.md"])
def test_the_docs_show_the_doctors_real_columns_and_legend(page: str) -> None:
    # The example output in README and the guide has the columns, the
    # values and the legend the doctor prints (cli.HEADER and cli.LEGEND
    # are what format_table prints, as the test above checks).
    (example,) = _doctor_examples(REPO / page)
    assert re.split(r"\s{2,}", example[0].strip()) == list(cli.HEADER)
    rows = example[1 : example.index("")]
    assert rows, "no exchange rows under the header"
    for row in rows:
        direction, device, result, zero_copy, route, values, ns = re.split(r"\s{2,}", row.strip())
        assert re.fullmatch(r"\w+ -> \w+", direction) and re.fullmatch(r"\w+:\d+", device)
        assert (result, zero_copy, values) == ("ok", "yes", "equal")
        assert route in ("table", "versioned", "legacy")
        assert ns.isdigit()
    legend_at = example.index(cli.LEGEND[0])
    assert tuple(example[legend_at : legend_at + len(cli.LEGEND)]) == cli.LEGEND
