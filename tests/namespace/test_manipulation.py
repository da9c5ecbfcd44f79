"""Manipulation functions that make new arrays, computed with the standard's
functions on any engine (run under ``DLARRAY_HOST_ENGINE=array_api_strict``
too)."""

from __future__ import annotations

import numpy as np
import pytest

import dlarray as xp


def as_numpy(x):
    return np.array(np.from_dlpack(x), copy=True)


# ---- new arrays ----


def test_tile_of_an_empty_read_only_array_is_new_writable_memory():
    source = np.zeros((0, 3))
    source.flags.writeable = False
    x = xp.from_dlpack(source)
    tiled = xp.tile(x, (2, 2))
    assert tiled.shape == (0, 6) and not tiled.readonly


def test_repeat_checks_its_counts():
    x = xp.asarray([1, 2, 3])
    with pytest.raises(ValueError):
        xp.repeat(x, xp.asarray([1, -1, 2]))
    with pytest.raises(ValueError):
        xp.repeat(x, xp.asarray([1, 2**63, 2], dtype=xp.uint64))
    got = xp.repeat(x, xp.asarray([2, 0, 1], dtype=xp.uint64))
    assert as_numpy(got).tolist() == [1, 1, 3]
