"""What the reduction and searching tests share: the dtypes by kind, the
axes they reduce over, NumPy values that no reduction here overflows, and
the check of a result against NumPy's."""

from __future__ import annotations

import math

import numpy as np

INTEGER = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
REAL = (*INTEGER, "float32", "float64")
NUMERIC = (*REAL, "complex64", "complex128")
ALL = ("bool", *NUMERIC)
AXES = (None, 0, -1, (0, 2), (), (2, 0, 1))


def host(x):
    return np.from_dlpack(x)


def values(name, shape=(2, 3, 4), seed=0):
    """NumPy values of dtype ``name`` that no reduction here overflows."""
    rng = np.random.default_rng(seed)
    size = math.prod(shape)
    if name == "bool":
        return (rng.integers(0, 2, size) == 1).reshape(shape)
    if name in INTEGER:
        low = 0 if name.startswith("u") else -3
        return rng.integers(low, 4, size).astype(name).reshape(shape)
    a = rng.uniform(-2.0, 2.0, size)
    if name.startswith("complex"):
        a = a + 1j * rng.uniform(-2.0, 2.0, size)
    return a.astype(name).reshape(shape)


def np_axis(axis):
    return tuple(axis) if isinstance(axis, tuple) else axis


def assert_result(out, expected, dtype, exact=True):
    assert out.dtype is dtype
    got = host(out)
    assert got.shape == np.shape(expected)
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, equal_nan=True)
