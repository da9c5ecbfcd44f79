"""``dlarray.compat``: dlarray's namespace with NumPy's mixed-kind promotions
(each departure in its docstring), while ``dlarray`` keeps refusing them."""

from __future__ import annotations

import numpy as np
import pytest

import dlarray
import dlarray.compat as compat


def test_mixed_kinds_promote_as_numpy_does():
    total, count = dlarray.asarray([3.0, 5.0]), dlarray.asarray([2, 2])
    with pytest.raises(TypeError, match="no promotion"):
        dlarray.divide(total, count)
    got = compat.divide(total, count)
    assert got.dtype == dlarray.float64 and np.asarray(got).tolist() == [1.5, 2.5]
    pairs = [
        (dlarray.int64, dlarray.float32),
        (dlarray.int64, dlarray.uint64),
        (dlarray.bool, dlarray.int8),
        (dlarray.uint8, dlarray.complex64),
    ]
    for a, b in pairs:
        x, y = dlarray.ones(2, dtype=a), dlarray.ones(2, dtype=b)
        expected = np.result_type(np.dtype(a), np.dtype(b))
        assert np.dtype(compat.add(x, y).dtype) == expected
        assert np.dtype(compat.result_type(a, b)) == expected


def test_python_scalars_of_a_higher_kind():
    assert compat.add(dlarray.asarray([1, 2]), 0.5).dtype == dlarray.float64
    assert compat.multiply(dlarray.asarray([1.0], dtype=dlarray.float32), 1j).dtype == (
        dlarray.complex64
    )
    assert compat.add(dlarray.asarray([True]), 1).dtype == dlarray.int64
    # The standard's own promotions are left alone.
    assert compat.add(dlarray.asarray([1.0], dtype=dlarray.float32), 2.0).dtype == dlarray.float32


def test_mean_with_dtype_and_take_with_an_int():
    x = dlarray.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=dlarray.float32)
    assert compat.mean(x, axis=0, dtype=dlarray.float64).dtype == dlarray.float64
    assert np.asarray(compat.take(x, 1, axis=0)).tolist() == [3.0, 4.0]
    assert np.asarray(compat.take(x, 0, axis=1)).tolist() == [1.0, 3.0]
    assert np.asarray(compat.take(x, dlarray.asarray([1]), axis=1)).tolist() == [[2.0], [4.0]]


def test_can_cast_and_where_and_what_stays_refused():
    assert compat.can_cast(dlarray.int32, dlarray.float64)
    assert not dlarray.can_cast(dlarray.int32, dlarray.float64)
    got = compat.where(dlarray.asarray([True, False]), dlarray.asarray([1, 2]), 2.5)
    assert got.dtype == dlarray.float64 and np.asarray(got).tolist() == [1.0, 2.5]
    with pytest.raises(TypeError):
        compat.add(dlarray.ones(2, dtype=dlarray.bfloat16), dlarray.ones(2, dtype=dlarray.int8))
    # Everything else is dlarray's own.
    assert compat.sum is dlarray.sum and compat.float64 is dlarray.float64
