"""Cubed with dlarray.compat as its backend array namespace
(``CUBED_BACKEND_ARRAY_API_MODULE``): the workload of examples/scale_out.py
on Cubed's processes executor and on a Dask cluster of worker processes,
every chunk a dlarray array, results against NumPy's on the same data, and
chunks round-tripped through Zarr.  Cubed reads its backend when imported,
so each backend runs in a fresh process (the example's ``--child``)."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("cubed")
pytest.importorskip("distributed")
zarr = pytest.importorskip("zarr")

EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "scale_out.py"

# Reductions of a Gram matrix computed in another order than NumPy's: the
# documented tolerance (docs/beyond.md), relative to max(1, |value|).
TOLERANCE = 1e-12


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("scale_out", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def dask_unusable(example):
    """Why Cubed's Dask executor cannot run with this dask.distributed, or None."""
    return example.why_cubed_cannot_use_dask()


@pytest.fixture(scope="module")
def report(example):
    # The CI size: 1200 x 120 in 300-row chunks (docs/beyond.md has 20000 x 2000).
    return example.cubed_runs(rows=1200, cols=120, chunk=300, workers=2)


@pytest.mark.parametrize("executor", ["processes", "dask"])
def test_dlarray_backend_equals_numpy(report, executor, dask_unusable):
    if executor == "dask" and dask_unusable:
        pytest.skip(f"upstream: {dask_unusable}")
    runs = {r["backend"]: r for r in report if r["executor"] == executor}
    dl, reference = runs["dlarray.compat"], runs["numpy"]
    assert dl["chunk_type"] == "dlarray" and reference["chunk_type"] == "numpy"
    assert max(dl["errors"].values()) < TOLERANCE
    assert dl["zarr_round_trip"]
    assert dl["peak_mem"] > 0


def test_cubed_on_dask_is_left_out_exactly_where_cubed_refuses_the_cluster(
    example, dask_unusable, report, tmp_path
):
    """The example's check agrees with Cubed itself: where it says Cubed's Dask
    executor cannot run, Cubed does refuse a cluster of running workers with
    NumPy's own backend; where it says it can, the Dask runs are there.  A
    Cubed or distributed release that fixes the refusal fails this test, so
    the left-out line goes when the cause does."""
    if dask_unusable is None:
        assert {r["executor"] for r in report} == {"processes", "dask"}
        return
    assert {r["executor"] for r in report} == {"processes"}
    store = str(tmp_path / "x.zarr")
    zarr.create_array(store, shape=(8, 4), chunks=(4, 4), dtype="f8")[...] = 1.0
    child = subprocess.run(
        [sys.executable, str(EXAMPLE), "--child", store, "dask", "1", str(tmp_path / "out.json")],
        env={**os.environ, "CUBED_BACKEND_ARRAY_API_MODULE": "numpy"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode != 0
    assert "Cluster has no workers running" in child.stderr
