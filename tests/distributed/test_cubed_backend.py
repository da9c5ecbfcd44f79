"""Cubed with dlarray.compat as its backend array namespace
(``CUBED_BACKEND_ARRAY_API_MODULE``): the workload of examples/scale_out.py
on Cubed's processes executor and on a Dask cluster of worker processes,
every chunk a dlarray array, results against NumPy's on the same data, and
chunks round-tripped through Zarr.  Cubed reads its backend when imported,
so each backend runs in a fresh process (the example's ``--child``)."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

pytest.importorskip("cubed")
pytest.importorskip("distributed")
pytest.importorskip("zarr")

EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "scale_out.py"

# Reductions of a Gram matrix computed in another order than NumPy's: the
# documented tolerance (docs/beyond.md), relative to max(1, |value|).
TOLERANCE = 1e-12


def load_example():
    spec = importlib.util.spec_from_file_location("scale_out", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def report():
    # The CI size: 1200 x 120 in 300-row chunks (docs/beyond.md has 20000 x 2000).
    return load_example().cubed_runs(rows=1200, cols=120, chunk=300, workers=2)


@pytest.mark.parametrize("executor", ["processes", "dask"])
def test_dlarray_backend_equals_numpy(report, executor):
    runs = {r["backend"]: r for r in report if r["executor"] == executor}
    dl, reference = runs["dlarray.compat"], runs["numpy"]
    assert dl["chunk_type"] == "dlarray" and reference["chunk_type"] == "numpy"
    assert max(dl["errors"].values()) < TOLERANCE
    assert dl["zarr_round_trip"]
    assert dl["peak_mem"] > 0
