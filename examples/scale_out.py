"""Beyond one machine: dlarray as the chunk array of Cubed and Dask.

Cubed runs Array API code on chunked arrays in bounded memory, its
intermediate chunks in Zarr, over any Array API namespace
(``CUBED_BACKEND_ARRAY_API_MODULE``).  Pointed at ``dlarray.compat`` (dlarray
with NumPy's mixed-kind promotions, which Cubed's ``mean`` needs), every chunk
Cubed computes is a dlarray array.  This script runs one workload,
standardising the columns of a float64 matrix, multiplying its transpose by
it, then mean/variance/max along axes, twice on each executor (the NumPy
backend, then dlarray), in fresh processes, and checks dlarray's results
against NumPy's on the same data.

Then Dask: a Dask array whose chunks are dlarray arrays (``meta=``), computed
on a ``dask.distributed`` cluster of worker processes; the chunks cross
processes through pickle protocol 5's out-of-band buffers, without a copy.

Run ``python examples/scale_out.py`` for the quick size the tests run, or
``python examples/scale_out.py --rows 20000 --cols 2000`` for the size of
docs/beyond.md's figures.  It needs Cubed, Dask, dask.distributed and Zarr
(``INSTALL`` below); without them it prints that command and stops.

Cubed's Dask executor cannot run on dask.distributed 2026.x: there an
asynchronous ``Client.scheduler_info()`` carries no workers, and Cubed
(0.27, 0.28) checks the workers' memory through it, raising "Cluster has no
workers running" for every backend, NumPy's too.  The script asks the
cluster first and, where that is so, leaves the Cubed-on-Dask runs out with
one line saying why; plain Dask (the last part) runs on every release.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time

import numpy as np

import dlarray

REQUIRES = ("cubed", "dask", "distributed", "zarr")
# dask and distributed are released together and pinned to each other; named
# alone, pip may pair a new dask with an ancient distributed that fails on import.
INSTALL = 'pip install cubed zarr "dask[distributed]"'

BACKENDS = ("numpy", "dlarray.compat")
EXECUTORS = ("processes", "dask")


def importable(name):
    """Whether the package ``name`` imports here."""
    try:
        importlib.import_module(name)
    except ModuleNotFoundError:
        return False
    return True


def variance(xp, a, axis):
    """The variance as the mean of squared deviations: Cubed's own ``var``
    combines int64 counts and float64 means with operators (cubed/array_api/
    statistical_functions.py:311), a mixed-kind promotion dlarray's operators
    refuse."""
    return xp.mean(xp.square(a - xp.mean(a, axis=axis, keepdims=True)), axis=axis)


def workload(xp, x):
    """Standardise the columns, the Gram matrix z.T @ z, its reductions."""
    z = (x - xp.mean(x, axis=0)) / xp.sqrt(variance(xp, x, 0))
    g = xp.matmul(xp.matrix_transpose(z), z)
    return {"mean0": xp.mean(g, axis=0), "var1": variance(xp, g, 1), "max0": xp.max(g, axis=0)}


def reference(x):
    """The same workload in NumPy, in memory."""
    z = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0))
    g = z.T @ z
    return {"mean0": g.mean(axis=0), "var1": g.var(axis=1), "max0": g.max(axis=0)}


def run_child(store, executor_name, workers, out):
    """One backend on one executor, in this fresh process (Cubed reads its
    backend from the environment when it is imported)."""
    import cubed
    import cubed.array_api as xp
    from cubed.runtime.types import Callback

    class PeakMemory(Callback):
        def __init__(self):
            self.peak = {}

        def on_task_end(self, event):
            if event.peak_measured_mem_end is not None:
                self.peak[event.name] = max(
                    self.peak.get(event.name, 0), event.peak_measured_mem_end
                )

    work_dir = tempfile.mkdtemp(prefix="cubed-")
    spec = cubed.Spec(work_dir=work_dir, allowed_mem="1GB", reserved_mem="100MB")
    x = cubed.from_zarr(store, spec=spec)
    results = workload(xp, x)
    if executor_name == "processes":
        from cubed.runtime.executors.local import ProcessesExecutor

        # Backup tasks off: at 20000 x 2000 a backup raced its original creating
        # the same Zarr array (zarr.errors.ContainsArrayError), NumPy backend too.
        executor, options, cluster = (
            ProcessesExecutor(),
            {"max_workers": workers, "use_backups": False},
            None,
        )
    else:
        from cubed.runtime.executors.dask import DaskExecutor

        cluster = start_cluster(workers, memory_limit="2GB")
        executor, options = (
            DaskExecutor(),
            {"compute_kwargs": {"address": cluster.scheduler_address}},
        )
    peak = PeakMemory()
    start = time.perf_counter()
    values = cubed.compute(*results.values(), executor=executor, callbacks=[peak], **options)
    seconds = time.perf_counter() - start
    # The chunks of z round-trip through Zarr: stored, read back, equal.
    z = (x - xp.mean(x, axis=0)) / xp.sqrt(variance(xp, x, 0))
    z_store = os.path.join(work_dir, "z.zarr")
    cubed.to_zarr(z, z_store, executor=executor, **options)
    back = cubed.from_zarr(z_store, spec=spec)
    round_trip = bool(np.asarray(xp.all(back == z).compute(executor=executor, **options)))
    if cluster is not None:
        cluster.close()
    chunk_type = type(values[0]).__module__.split(".")[0]
    with open(out, "w") as f:
        json.dump(
            {
                "seconds": seconds,
                "peak_mem": max(peak.peak.values(), default=0),
                "chunk_type": chunk_type,
                "zarr_round_trip": round_trip,
                "values": {k: np.asarray(v).tolist() for k, v in zip(results, values, strict=True)},
            },
            f,
        )


def start_cluster(workers, **options):
    """A dask.distributed cluster of ``workers`` processes on loopback, with
    every worker up."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        # Any free port: the scheduler always serves HTTP (its default port
        # 8787 may be taken by another cluster, and then it warns).
        dashboard_address=":0",
        **options,
    )
    with Client(cluster) as client:  # Cubed checks the workers' memory first
        client.wait_for_workers(workers)
    return cluster


def why_cubed_cannot_use_dask():
    """None where Cubed's Dask executor can run here, else why not.

    Cubed's executor opens an asynchronous Client and reads the workers from
    its ``scheduler_info()``; from dask.distributed 2026.x on, an
    asynchronous client's answer is a cached summary without them.  This
    asks a one-worker cluster the same way Cubed does."""
    import distributed
    from distributed import Client

    async def workers_seen(address):
        async with Client(address, asynchronous=True) as client:
            return len(client.scheduler_info().get("workers") or {})

    with start_cluster(1) as cluster:
        if asyncio.run(workers_seen(cluster.scheduler_address)):
            return None
    return (
        f"dask.distributed {distributed.__version__}'s asynchronous "
        "Client.scheduler_info() carries no workers, so Cubed's Dask executor "
        "refuses every cluster ('Cluster has no workers running'), whatever the "
        "backend; it runs with dask and distributed 2025.9.1"
    )


def cubed_runs(rows, cols, chunk, workers, executors=EXECUTORS):
    """Every backend on every executor, each in its own process; an executor
    that cannot run here is left out with one line saying why."""
    import zarr

    if "dask" in executors and (reason := why_cubed_cannot_use_dask()):
        print(f"left out: Cubed on Dask: {reason}")
        executors = tuple(e for e in executors if e != "dask")

    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, cols)) * rng.uniform(0.5, 4.0, cols) + rng.uniform(-5, 5, cols)
    folder = tempfile.mkdtemp(prefix="scale-out-")
    store = os.path.join(folder, "x.zarr")
    zarr.create_array(store, shape=x.shape, chunks=(chunk, cols), dtype=x.dtype)[...] = x
    expected = reference(x)
    print(f"workload: {rows} x {cols} float64 in {chunk}-row chunks, {workers} workers")
    report = []
    for executor_name in executors:
        for backend in BACKENDS:
            out = os.path.join(folder, f"{executor_name}-{backend}.json")
            env = {**os.environ, "CUBED_BACKEND_ARRAY_API_MODULE": backend}
            subprocess.run(
                [sys.executable, __file__, "--child", store, executor_name, str(workers), out],
                env=env,
                check=True,
            )
            with open(out) as f:
                result = json.load(f)
            errors = {
                k: float(
                    np.max(
                        np.abs(np.asarray(v) - expected[k]) / np.maximum(1.0, np.abs(expected[k]))
                    )
                )
                for k, v in result["values"].items()
            }
            result.update(executor=executor_name, backend=backend, errors=errors)
            report.append(result)
            print(
                f"  {executor_name:9s} {backend:14s} {result['seconds']:7.2f} s  peak "
                f"{result['peak_mem'] / 2**20:6.0f} MiB/task  chunks: {result['chunk_type']:7s} "
                f"zarr round trip: {result['zarr_round_trip']}  "
                f"max rel. error vs NumPy: {max(errors.values()):.1e}"
            )
    return report


def frames_of(x):
    """pickle protocol 5: the header bytes and the out-of-band buffers."""
    buffers = []
    header = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
    return header, buffers


def dask_with_dlarray_chunks(workers):
    """A Dask array of dlarray chunks on a cluster of worker processes."""
    import dask.array as da
    from distributed import Client

    x = dlarray.reshape(dlarray.arange(64.0 * 64.0), (64, 64))
    header, buffers = frames_of(x)
    same_memory = np.frombuffer(buffers[0].raw(), np.uint8).ctypes.data == np.asarray(x).ctypes.data
    print(
        f"pickle 5 of a 64x64 float64: {len(header)} header bytes, "
        f"{len(buffers)} out-of-band buffer of {buffers[0].raw().nbytes} bytes, "
        f"the array's own memory (no copy): {same_memory}"
    )
    with start_cluster(workers) as cluster, Client(cluster):
        d = da.from_array(x, chunks=(16, 16), asarray=False, meta=dlarray.empty((0, 0)))
        y = (d * 2.0 + 1.0).rechunk((32, 64))
        total = y.sum(axis=0).compute()
        mapped = y.map_blocks(dlarray.sqrt, meta=dlarray.empty((0, 0))).compute()
    expected = np.arange(64.0 * 64.0).reshape(64, 64) * 2 + 1
    print(
        f"dask on {workers} worker processes: sum -> {type(total).__name__}, equal: "
        f"{np.allclose(np.asarray(total), expected.sum(0))}; map_blocks(sqrt) -> "
        f"{type(mapped).__name__}, equal: {np.allclose(np.asarray(mapped), np.sqrt(expected))}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--cols", type=int, default=200)
    parser.add_argument("--chunk", type=int, default=500, help="rows per chunk")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="write the report here")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    # Run by the tests through runpy, sys.argv holds pytest's arguments: left unread.
    args, _ = parser.parse_known_args(argv if argv is not None else sys.argv[1:])
    missing = [name for name in REQUIRES if not importable(name)]
    if missing:
        print(f"scale_out.py: skipped: it needs {', '.join(missing)}; {INSTALL}")
        return
    if args.child:
        store, executor_name, workers, out = args.child
        run_child(store, executor_name, int(workers), out)
        return
    report = cubed_runs(args.rows, args.cols, args.chunk, args.workers)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{k: v for k, v in r.items() if k != "values"} for r in report], f, indent=1)
    dask_with_dlarray_chunks(args.workers)


if __name__ == "__main__":
    main()
