"""The DLPack kit against real libraries: for each peer the session
installed (and dlarray and shoddy where NumPy is one), case for case, the
kit's test outcome is the probe's verdict (``python -m dlarray probe
--library NAME --json``); on dlarray every case passes.

The peers are those ``nox -s 'interop(<peer>)'`` and ``nox -s latest``
name in DLARRAY_INTEROP_PEER (each runs in that session's fresh venv);
elsewhere this module is skipped: the test suite's runs check the kit on
shoddy (test_kit.py), which costs one probe run instead of two per
library."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from kit_runner import SHODDY, SHODDY_DEVIATES, USAGE_ERROR, run_kit

from dlarray._peers import peer_named

PEERS = [p for p in os.environ.get("DLARRAY_INTEROP_PEER", "").split(",") if p]
if not PEERS:
    pytest.skip(
        "the kit against installed peers runs where they are (nox -s 'interop(<peer>)')",
        allow_module_level=True,
    )

#: The test outcome each probe verdict gives (dlarray/_kit.py's table).
OUTCOME_OF = {"ok": "passed", "deviation": "failed", "not supported": "skipped",
              "needs package": "skipped"}  # fmt: skip


def probe_verdicts(library: str) -> dict[str, str]:
    """``python -m dlarray probe --library LIBRARY --json``: case -> verdict."""
    out = subprocess.run(
        [sys.executable, "-m", "dlarray", "probe", "--library", library, "--json"],
        capture_output=True, text=True, check=True, timeout=600,
    ).stdout  # fmt: skip
    (report,) = json.loads(out)["libraries"].values()
    assert "import_error" not in report, report
    return {r["case"]: r["verdict"] for r in report["results"]}


#: The peers whose arrays live in host memory, which the cases exchange,
#: and those whose arrays do not.
ON_HOST = [p for p in PEERS if {"cpu"} & {*peer_named(p).make, *peer_named(p).consumes}]
OFF_HOST = [p for p in PEERS if p not in ON_HOST]
#: dlarray itself and shoddy, where NumPy is a peer under test (interop(numpy)
#: and latest): once per CI run is enough for them.
OWN = ["dlarray", str(SHODDY)] if "numpy" in PEERS else []


@pytest.mark.parametrize("library", [*OWN, *ON_HOST])
def test_kit_agrees_with_the_probe(tmp_path: pathlib.Path, library: str) -> None:
    verdicts = probe_verdicts(library)
    _, results = run_kit(tmp_path, "--dlpack-library", library)
    assert {name: outcome for name, (outcome, _) in results.items()} == {
        case: OUTCOME_OF[verdict] for case, verdict in verdicts.items()
    }
    if library == "dlarray":
        assert set(verdicts.values()) <= {"ok", "needs package"}, verdicts
    if library == str(SHODDY):
        assert {c for c, v in verdicts.items() if v == "deviation"} == SHODDY_DEVIATES


@pytest.mark.skipif(
    not OFF_HOST,
    reason="every peer of this session lives on the host (nox -s 'interop(dpnp)' has one that "
    "does not)",
)
@pytest.mark.parametrize("library", OFF_HOST or ["(none)"])
def test_kit_refuses_a_library_off_host(tmp_path: pathlib.Path, library: str) -> None:
    """CuPy's and dpnp's arrays live on GPU or SYCL memory: the kit says
    so before any test, instead of skipping every case."""
    process, results = run_kit(tmp_path, "--dlpack-library", library)
    assert process.returncode == USAGE_ERROR and results == {}
    assert f"--dlpack-library {library}: its arrays live on " in process.stderr
    assert "the kit's cases exchange host memory" in process.stderr
