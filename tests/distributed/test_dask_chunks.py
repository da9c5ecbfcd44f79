"""Dask arrays whose chunks are dlarray arrays (``meta=``) on
dask.distributed with worker processes, and the bytes that cross processes:
pickle protocol 5 sends the array's own memory out of band, no copy."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import dlarray

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

A = np.arange(48.0 * 40.0).reshape(48, 40) / 7.0


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0"
    ) as cluster:
        with distributed.Client(cluster) as c:
            c.wait_for_workers(2)
            yield c


def chunked():
    return da.from_array(
        dlarray.asarray(A), chunks=(12, 20), asarray=False, meta=dlarray.empty((0, 0))
    )


def test_elementwise_reductions_map_blocks_rechunk_on_worker_processes(client):
    d = chunked()
    assert isinstance(d._meta, dlarray.DLArray)
    y = (d * 2.0 - 1.0).rechunk((24, 40))
    cases = {
        "elementwise": (np.exp(d / 100.0), np.exp(A / 100.0)),
        "sum": (y.sum(axis=0), (A * 2 - 1).sum(0)),
        # d.mean() is out: dask/array/reductions.py:376 (mean_agg) calls the
        # NumPy method chunk.sum(), which dlarray arrays do not have.
        "mean": (d.sum(axis=1) / 40.0, A.mean(1)),
        "max": (d.max(), A.max()),
        "map_blocks": (d.map_blocks(dlarray.sqrt, meta=dlarray.empty((0, 0))), np.sqrt(A)),
        "rechunk": (y, A * 2 - 1),
    }
    futures = client.compute([case for case, _ in cases.values()])
    for (name, (_, expected)), future in zip(cases.items(), futures, strict=True):
        got = future.result()
        assert isinstance(got, dlarray.DLArray), name
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12, err_msg=name)


def test_pickle_5_sends_the_arrays_memory_out_of_band():
    x = dlarray.asarray(A)
    buffers = []
    header = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and buffers[0].raw().nbytes == A.nbytes
    assert len(header) < 200  # the bytes pickled in band: no copy of the data
    view = np.frombuffer(buffers[0].raw(), np.uint8)
    assert view.ctypes.data == np.asarray(x).ctypes.data  # the array's own memory
    received = bytearray(buffers[0].raw())  # what a transport writes on the other side
    back = pickle.loads(header, buffers=[received])
    assert np.asarray(back).ctypes.data == np.frombuffer(received, np.uint8).ctypes.data
    assert np.array_equal(np.asarray(back), A) and not back.readonly


def test_dask_serialisation_frames_are_the_arrays_memory():
    from distributed.protocol import deserialize, serialize

    x = dlarray.asarray(A)
    header, frames = serialize(x)
    big = [f for f in frames if memoryview(f).nbytes == A.nbytes]
    in_band = sum(memoryview(f).nbytes for f in frames) - A.nbytes
    assert len(big) == 1 and in_band < 200
    assert np.frombuffer(big[0], np.uint8).ctypes.data == np.asarray(x).ctypes.data
    assert np.array_equal(np.asarray(deserialize(header, frames)), A)
