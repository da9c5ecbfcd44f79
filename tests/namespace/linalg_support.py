"""What the linear algebra and FFT tests share: arrays from host values,
host copies of results, and random values of a real or complex dtype."""

from __future__ import annotations

import numpy as np

import dlarray as xp

RNG = np.random.default_rng(19)


def arr(values, dtype=None):
    """A dlarray array of ``values`` (host data, built through NumPy)."""
    return xp.asarray(np.asarray(values, dtype=dtype))


def host(x):
    """A NumPy copy of a dlarray result."""
    return np.from_dlpack(x).copy()


def close(x, expected, dtype, *, rtol=1e-6):
    assert x.dtype == dtype
    np.testing.assert_allclose(host(x), expected, rtol=rtol, atol=rtol)


def random(shape, dtype="float64", rng=None):
    """Random values of ``dtype``, from ``rng`` (default: this module's
    generator, whose draws depend on which tests ran before)."""
    rng = RNG if rng is None else rng
    values = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)
