"""``python -m dlarray`` and ``benchmarks/bench_exchange.py``, run as a user runs them.

The doctor runs each peer in a child process; tests that hand it peers of
their own write them as a table module on a temporary PYTHONPATH
(``--peer-table module:PEERS``), which the children import too.  Fake
peers that break on import (a ``torch`` package that aborts, exits, hangs,
or whose version cannot be read) shadow the real one on PYTHONPATH, and
both tools, the doctor and the probe, must survive them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import dlarray
from dlarray import __main__ as cli
from dlarray import _probe
from dlarray._cuda.runtime import CUDAUnavailableError

# The command-line tools' process orchestration (child processes, time
# limits, builds): CI runs it on the oldest and newest Python only
# (pyproject.toml's `tooling` marker; noxfile.py's TOOLING_PYTHONS).
pytestmark = pytest.mark.tooling

REPO = Path(__file__).resolve().parents[2]
KINDS = ("cpu", "cuda", "cuda_managed", "cuda_host", "sycl", "sycl_shared", "sycl_host")


def run(
    *args: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    # Run outside the source tree, so that `python -m dlarray` imports the
    # installed package (with its compiled core) as a user's would.  The
    # doctor runs each installed peer in a child of its own (about 20 s with
    # torch, JAX, tvm-ffi and dpnp, longer on a loaded machine): the timeout
    # only catches a hang.
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


def on_pythonpath(folder: Path) -> dict[str, str]:
    """This process's environment with ``folder`` first on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(folder), env.get("PYTHONPATH", "")])
    return env


@pytest.fixture
def peer_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``peer_table(source)`` writes a module defining ``PEERS`` where this
    process and the doctor's children import it; returns ``--peer-table``'s
    ``module:PEERS``."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", on_pythonpath(tmp_path)["PYTHONPATH"])
    written: list[str] = []

    def write(source: str) -> str:
        name = f"doctor_peer_table_{len(written)}_{os.getpid()}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        written.append(name)
        return f"{name}:PEERS"

    yield write
    for name in written:
        sys.modules.pop(name, None)


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


REFUSING_TABLE = """
import dataclasses

import numpy

from dlarray._peers import peer_named


def _refuse_device_memory(x):
    if x.__dlpack_device__()[0] != 1:  # anything but kDLCPU
        raise BufferError("refused on purpose")
    return numpy.from_dlpack(x)


PEERS = (
    dataclasses.replace(peer_named("numpy"), from_dlpack=lambda module: _refuse_device_memory),
    dataclasses.replace(peer_named("numpy"), name="no_such_peer_library"),
)
"""


def test_a_failure_on_a_device_kind_sets_exit_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], peer_table: Any
) -> None:
    # Pretend pinned CUDA memory exists, and no other memory but the host's
    # (whatever this machine has).  Without a GPU dlarray cannot allocate it;
    # with one, this numpy refuses it: the row fails either way.
    for kind in cli.DEVICE_PROBES.keys() - {"cpu"}:
        monkeypatch.setitem(cli.DEVICE_PROBES, kind, list)
    monkeypatch.setitem(cli.DEVICE_PROBES, "cuda_host", lambda: [dlarray.Device("cuda_host")])
    table = peer_table(REFUSING_TABLE)
    assert cli.main(["--repeats", "2", "--peer-table", table]) == 1
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


def test_a_cpu_failure_names_the_error(capsys: pytest.CaptureFixture[str], peer_table: Any) -> None:
    table = peer_table(
        """
        import dataclasses

        from dlarray._peers import peer_named


        def refuse(x):
            raise BufferError("refused on purpose")


        PEERS = (dataclasses.replace(peer_named("numpy"), from_dlpack=lambda module: refuse),)
        """
    )
    assert cli.main(["--repeats", "2", "--json", "--peer-table", table]) == 1
    report = json.loads(capsys.readouterr().out)
    failed = exchange(report, "dlarray -> numpy", "cpu:0")
    assert failed["ok"] is False
    assert failed["error"] == "BufferError: refused on purpose"
    assert report["ok"] is False


def test_a_peer_that_dies_in_an_exchange_fails_that_row_only(
    capsys: pytest.CaptureFixture[str], peer_table: Any
) -> None:
    # The abort kills the child mid-survey; a new child carries on with the
    # next exchange, and the parent reports both.
    table = peer_table(
        """
        import dataclasses
        import os

        from dlarray._peers import peer_named


        def abort(numpy, host, device):
            os.abort()


        PEERS = (dataclasses.replace(peer_named("numpy"), make={"cpu": abort}),)
        """
    )
    assert cli.main(["--repeats", "2", "--peer-table", table]) == 1
    out = capsys.readouterr().out
    rows = table_rows(out)
    assert rows["numpy -> dlarray", "cpu:0"]["result"] == "FAILED"
    assert rows["dlarray -> numpy", "cpu:0"]["result"] == "ok"
    assert "numpy -> dlarray on cpu:0: aborts the process (SIGABRT)" in out
    assert "1 of 2 exchanges FAILED" in out


def test_an_error_message_is_kept_whole(
    capsys: pytest.CaptureFixture[str], peer_table: Any
) -> None:
    # It was cut at 100 characters, mid-word; the text report wraps it
    # between words instead.
    said = "refused " + " ".join(f"word{i}" for i in range(60))
    table = peer_table(
        f"""
        import dataclasses

        from dlarray._peers import peer_named


        def refuse(x):
            raise BufferError({said!r})


        PEERS = (dataclasses.replace(peer_named("numpy"), from_dlpack=lambda module: refuse),)
        """
    )
    assert cli.main(["--repeats", "2", "--json", "--peer-table", table]) == 1
    report = json.loads(capsys.readouterr().out)
    assert exchange(report, "dlarray -> numpy", "cpu:0")["error"] == f"BufferError: {said}"
    text = cli.format_table(report)
    assert f"dlarray -> numpy on cpu:0: BufferError: {said}" in " ".join(text.split())
    # Lines are broken only between words: one longer than a line (a path
    # to a local wheel in an install hint) stands alone on its line.
    for line in text.splitlines():
        assert len(line) <= _probe.WIDTH or " " not in line.strip(), line


def test_a_peer_without_a_device_here_has_no_rows(
    monkeypatch: pytest.MonkeyPatch, peer_table: Any
) -> None:
    def no_gpu() -> list[dlarray.Device]:
        raise CUDAUnavailableError("no GPU in this test\nsecond line")

    monkeypatch.setitem(cli.DEVICE_PROBES, "cuda", no_gpu)
    table = peer_table(
        """
        import dataclasses

        from dlarray._peers import peer_named

        _numpy = peer_named("numpy")
        PEERS = (
            dataclasses.replace(_numpy, make={"cuda": _numpy.make["cpu"]}, consumes=("cuda",)),
        )
        """
    )
    report = cli.survey(repeats=2, table=table)
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


# ---- the doctor's pointers: --help, the probe, what to install ----


def test_help_names_the_probe(tmp_path: Path) -> None:
    done = run("-m", "dlarray", "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "python -m dlarray probe" in done.stdout
    assert "--timeout" in done.stdout


def test_the_report_ends_pointing_to_the_probe(json_report: dict[str, Any]) -> None:
    text = cli.format_table(json_report)
    assert text.splitlines()[-1].endswith("python -m dlarray probe")


def test_every_kind_without_devices_has_a_short_hint(json_report: dict[str, Any]) -> None:
    devices, hints = json_report["devices"], json_report["device_hints"]
    assert set(hints) == {kind for kind, found in devices.items() if not found["devices"]}
    for kind, hint in hints.items():
        # What to install, as this installation installs it.
        extra = "cuda" if kind.startswith("cuda") else "sycl-cpu"
        assert f"[{extra}]" in hint and "pip install" in hint, (kind, hint)
    text = cli.format_table(json_report)
    lines = text.splitlines()
    for kind in hints:
        # The kind's line says why there are none, in a few words, and the
        # next line what would get it some.
        (line,) = [i for i, t in enumerate(lines) if kind in t.strip().split(": ")[0].split(", ")]
        hint_at = next(i for i in range(line, len(lines)) if "to get them: " in lines[i])
        assert hint_at - line <= 2, text
    # The CUDA reason was a 300-character line; no line is longer than the width now.
    # Lines are broken only between words: one longer than a line (a path
    # to a local wheel in an install hint) stands alone on its line.
    for line in text.splitlines():
        assert len(line) <= _probe.WIDTH or " " not in line.strip(), line


# ---- peers that break on import: both tools survive them ----

FAKE_TORCH = {
    "aborts": "import os\nos.abort()\n",
    "exits": "raise SystemExit(3)\n",
    "hangs": "import time\nwhile True:\n    time.sleep(60)\n",
    "bad_version": (
        "class _Version:\n"
        "    def __str__(self):\n"
        "        raise RuntimeError('no version today')\n"
        "__version__ = _Version()\n"
    ),
}
#: What each tool says about the fake torch: "does not import (...)".
DOES_NOT_IMPORT = {
    "aborts": "aborts the process (SIGABRT)",
    "exits": "raises SystemExit: 3",
    "hangs": "hangs (no answer in {limit:g} s)",
}
HANG_LIMIT_S = 10.0  # the hanging fake's time limit; the others keep the default


def fake_torch(kind: str, folder: Path) -> dict[str, str]:
    """An environment where ``import torch`` finds the fake of ``kind``."""
    (folder / "torch").mkdir()
    (folder / "torch" / "__init__.py").write_text(FAKE_TORCH[kind])
    env = on_pythonpath(folder)
    if kind == "hangs":
        env[_probe.TIMEOUT_VARIABLE] = f"{HANG_LIMIT_S:g}"
    (folder / "only_torch.py").write_text(
        "from dlarray._peers import peer_named\nPEERS = (peer_named('torch'),)\n"
    )
    return env


def run_both_tools(
    kind: str, folder: Path
) -> dict[str, tuple[subprocess.CompletedProcess[str], float]]:
    """The doctor and the probe, as text and as JSON, side by side (each
    with its wall time), with the fake torch of ``kind`` installed.  Only
    the doctor with the aborting fake surveys every peer (the others, the
    fake alone: its import is what is tested, and the hanging one's clock
    must not run while other peers import)."""
    env = fake_torch(kind, folder)
    table = [] if kind == "aborts" else ["--peer-table", "only_torch:PEERS"]
    probe = ["probe", "--library", "torch", "--case", "byte_offset_*", "--case", "export_legacy"]
    commands = {
        "doctor": ["--repeats", "2", *table],
        "doctor --json": ["--repeats", "2", "--json", *table],
        "probe": [*probe, *table],
        "probe --json": [*probe, "--json", *table],
    }
    started = {
        name: (
            subprocess.Popen(
                [sys.executable, "-m", "dlarray", *args],
                cwd=folder,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
            time.monotonic(),
        )
        for name, args in commands.items()
    }
    done = {}
    for name, (process, began) in started.items():
        try:
            stdout, stderr = process.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            pytest.fail(f"{name} with a torch that {kind} did not end in 180 s")
        result = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        done[name] = (result, time.monotonic() - began)
    return done


@pytest.mark.parametrize("kind", ["aborts", "exits", "hangs"])
def test_a_peer_that_does_not_import_is_one_line_in_both_tools(kind: str, tmp_path: Path) -> None:
    done = run_both_tools(kind, tmp_path)
    said = DOES_NOT_IMPORT[kind].format(limit=HANG_LIMIT_S)
    for name, (result, seconds) in done.items():
        assert "Traceback" not in result.stderr, (name, result.stderr)
        if kind == "hangs":
            # Bounded: a hang costs one time limit, not one per case (nor forever).
            assert seconds < 3 * HANG_LIMIT_S, (name, seconds)
        else:
            # No time limit is waited out: an import that aborts or exits is
            # seen when its child ends.  (A wall-clock bound said the same
            # and failed under load: the survey of every peer took 110 s on
            # 3.13t beside CI's other lane.  run_both_tools bounds it at 180 s.)
            assert "no answer in" not in result.stdout, (name, result.stdout)

    doctor, _ = done["doctor"]
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    assert f"torch: does not import ({said}" in doctor.stdout
    assert re.search(r"^\d+ of \d+ exchanges FAILED|^all \d+ exchanges work", doctor.stdout, re.M)
    # (tvm_ffi imports torch where it finds it: then it does not import either.)
    assert re.search(r"; \d+ installed (peer does|peers do) not import$", doctor.stdout, re.M)
    assert not any(direction.startswith("torch") for direction, _ in table_rows(doctor.stdout))
    report = json.loads(done["doctor --json"][0].stdout)
    assert done["doctor --json"][0].returncode == 1
    assert report["peers_not_importing"]["torch"].startswith(said)
    assert "torch" not in report["peers"] and report["ok"] is False
    assert all(e["peer"] != "torch" for e in report["exchanges"])
    if kind == "aborts":  # the other peers were surveyed as usual
        assert exchange(report, "dlarray -> numpy", "cpu:0")["ok"] is True

    probe, _ = done["probe"]
    assert probe.returncode == 0, probe.stdout + probe.stderr
    assert f"torch: does not import ({said}" in probe.stdout
    assert "deviation" not in probe.stdout
    probe_report = json.loads(done["probe --json"][0].stdout)
    torch = probe_report["libraries"]["torch"]
    assert torch["import_error"].startswith(said)
    assert torch["results"] == [] and set(torch["summary"].values()) == {0}


def test_a_version_that_cannot_be_read_is_said_not_raised(tmp_path: Path) -> None:
    done = run_both_tools("bad_version", tmp_path)
    said = "unknown (reading __version__ raises RuntimeError)"
    for name, (result, _) in done.items():
        assert "Traceback" not in result.stderr, (name, result.stderr)
    doctor, _ = done["doctor"]
    # It imports, so its exchanges are tried; this fake has no arrays: they fail.
    assert doctor.returncode == 1
    assert f"torch {said}" in doctor.stdout
    assert json.loads(done["doctor --json"][0].stdout)["peers"]["torch"] == said
    probe, _ = done["probe"]
    assert probe.returncode == 0
    assert f"torch {said}: " in probe.stdout
    torch = json.loads(done["probe --json"][0].stdout)["libraries"]["torch"]
    assert torch["version"] == said and len(torch["results"]) == 4


def test_a_bad_time_limit_is_refused(tmp_path: Path) -> None:
    env = dict(os.environ, **{_probe.TIMEOUT_VARIABLE: "soon"})
    for args in (["--repeats", "2"], ["probe", "--library", "dlarray"]):
        done = run("-m", "dlarray", *args, cwd=tmp_path, env=env)
        assert done.returncode == 2, done.stdout
        assert f"{_probe.TIMEOUT_VARIABLE}: expected seconds above 0, got 'soon'" in done.stderr
        done = run("-m", "dlarray", *args, "--timeout", "0", cwd=tmp_path)
        assert done.returncode == 2 and "expected seconds above 0, got '0'" in done.stderr
