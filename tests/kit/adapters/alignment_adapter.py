"""A made-up library whose consumer takes two roads, as JAX's does on the
host: memory at a 64-byte boundary is imported without a copy, other
memory is copied.  One road is broken, the one DLARRAY_TEST_BROKEN_ROAD
names ("aligned" or "copied"): it raises RuntimeError, where the
specification allows only BufferError.  The probe must find the broken
road on every run, wherever NumPy's allocator put the tensor
(tests/kit/test_kit.py)."""

import os

import numpy as np

from dlarray import abi

name = "alignment"
__version__ = "0.0.1"
BROKEN = os.environ.get("DLARRAY_TEST_BROKEN_ROAD", "aligned")


def from_dlpack(obj):
    capsule = obj.__dlpack__(max_version=(1, 3))
    d = abi.describe(capsule)
    road = "aligned" if (d.data + d.byte_offset) % 64 == 0 else "copied"
    if road == BROKEN:
        raise RuntimeError(f"the {road} road is broken")
    imported = np.from_dlpack(abi.consume(capsule))
    return imported if road == "aligned" else imported.copy()


def to_numpy(array):
    return np.asarray(array)
