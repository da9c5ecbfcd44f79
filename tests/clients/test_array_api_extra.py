"""array-api-extra: the functions it builds on top of the standard.

Every function is called with the backend's arrays and with NumPy's; the
results must agree (client_calls.check).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from .client_calls import BACKENDS, Call, call, check, import_client, namespace, parametrize

xpx = import_client("array_api_extra", "array-api-extra")

rng = np.random.default_rng(18)
M = rng.normal(size=(3, 5))
V = np.array([0.0, 0.5, -1.25, 2.0, 3.5])
W = np.array([1.0, 2.0, 0.5, 1.0, 3.0])
NANS = np.array([1.0, np.nan, 3.0, np.inf, -np.inf, 0.5])
INTS = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], dtype=np.int64)
OTHERS = np.array([1, 5, 7, 8], dtype=np.int64)
SORTED = np.array([0.0, 1.0, 2.5, 4.0, 8.0])
Z = np.array([1 + 1j, -2 + 0.5j, 3j, -1 - 1j])
MASK = np.array([True, False, True, True, False])
HOLES = np.where(np.eye(3, 5, dtype=bool), np.nan, M)  # a NaN in each row, none in a whole column

# expand_dims and broadcast_shapes are deprecated (the standard has both
# since 2025.12) but still called by consumers; their warning is expected.
DEPRECATED = (pytest.mark.filterwarnings("ignore:`xpx.*is deprecated:DeprecationWarning"),)


def _at_set(xp: Any, x: Any) -> Any:
    # The default copy=None writes in place into a writeable array: both
    # the result and x itself must hold the new values.
    y = xpx.at(x)[1:3].set(9.0)
    return y, x


def _at_add(xp: Any, x: Any) -> Any:
    return xpx.at(x, (slice(None, None, 2),)).add(1.5)


def _at_multiply_masked(xp: Any, x: Any, mask: Any) -> Any:
    return xpx.at(x, mask).multiply(-2.0)


def _at_min(xp: Any, x: Any) -> Any:
    return xpx.at(x)[::2].min(1.0)


def _at_divide(xp: Any, x: Any) -> Any:
    return xpx.at(x)[1:4].divide(4.0)


def _at_power(xp: Any, x: Any) -> Any:
    return xpx.at(x)[-2:].power(2.0)


def _at_max_copy(xp: Any, x: Any) -> Any:
    # copy=True: x itself is left alone; both are returned.
    y = xpx.at(x)[:3].max(0.25, copy=True)
    return y, x


def _apply_where(xp: Any, x: Any) -> Any:
    return xpx.apply_where(x > 0, (x,), xp.sqrt, fill_value=-1.0)


def _apply_where_two(xp: Any, x: Any, y: Any) -> Any:
    return xpx.apply_where(x > 0, (x, y), lambda a, b: a * b, lambda a, b: a - b)


def _lazy_apply(xp: Any, x: Any) -> Any:
    return xpx.lazy_apply(lambda a: a * 2.0, x, shape=x.shape, dtype=x.dtype)


def _lazy_apply_numpy(xp: Any, x: Any) -> Any:
    # as_numpy=True: the function is given NumPy arrays (np.asarray of the
    # inputs) and its result is turned back into the backend's array.
    return xpx.lazy_apply(np.cumsum, x, shape=x.shape, dtype=x.dtype, as_numpy=True)


CALLS: list[Call] = [
    call("atleast_nd", xpx.atleast_nd, V, ndim=3),
    call("atleast_nd-keeps", xpx.atleast_nd, M, ndim=1),
    call("cov", xpx.cov, M),
    call("cov-correction0", xpx.cov, M, correction=0),
    call("cov-axis0", xpx.cov, M.T, axis=0),
    call(
        "cov-weights",
        lambda m, f, a: xpx.cov(m, fweights=f, aweights=a),
        M, np.array([1, 2, 1, 3, 1]), W,
    ),
    call("create_diagonal", xpx.create_diagonal, V),
    call("create_diagonal-offset", xpx.create_diagonal, V, offset=-2),
    call("create_diagonal-batch", xpx.create_diagonal, M),
    call("expand_dims", xpx.expand_dims, M, axis=(0, -1), call_marks=DEPRECATED),
    call("expand_dims-middle", xpx.expand_dims, V, axis=(1, 2), call_marks=DEPRECATED),
    call("kron", xpx.kron, M[:2, :2], M[:2, 2:4]),
    call("kron-1d", xpx.kron, V, W),
    call("nunique", xpx.nunique, INTS),
    call("pad", xpx.pad, M, 2),
    call("pad-widths", xpx.pad, M, ((1, 0), (0, 2)), constant_values=-1.0),
    call("setdiff1d", xpx.setdiff1d, INTS, OTHERS),
    call("setdiff1d-unique", xpx.setdiff1d, np.unique(INTS), OTHERS, assume_unique=True),
    call("union1d", xpx.union1d, INTS, OTHERS),
    call("isin", xpx.isin, INTS, OTHERS),
    call("isin-invert", xpx.isin, INTS, OTHERS, invert=True),
    call("sinc", xpx.sinc, V),
    call("isclose", xpx.isclose, V, V + 1e-9),
    call("isclose-nan", xpx.isclose, NANS, NANS, equal_nan=True),
    call("isclose-tolerances", xpx.isclose, V, W, rtol=0.5, atol=0.1),
    call("isclose-ints", xpx.isclose, INTS, INTS[::-1]),
    call("nan_to_num", xpx.nan_to_num, NANS),
    call("nan_to_num-fill", xpx.nan_to_num, NANS, fill_value=-7.0),
    call("nansum", xpx.nansum, NANS[:3]),
    call("nanmean-axis", xpx.nanmean, HOLES, axis=0),
    call("nanmin", xpx.nanmin, NANS[:3]),
    call("nanmax-axis", xpx.nanmax, HOLES, axis=1),
    call("one_hot", xpx.one_hot, INTS, 10),
    call("one_hot-axis0", xpx.one_hot, OTHERS, 9, axis=0),
    call("partition", lambda x: xpx.partition(x, 4)[4], INTS),
    call("argpartition", lambda x: x[xpx.argpartition(x, 2)][2], INTS),
    call("searchsorted", xpx.searchsorted, SORTED, V),
    call("searchsorted-right", xpx.searchsorted, SORTED, SORTED, side="right"),
    call("angle", xpx.angle, Z),
    call("angle-deg", xpx.angle, Z, deg=True),
    call("deg2rad", xpx.deg2rad, V),
    call("rad2deg", xpx.rad2deg, V),
    call("unravel_index", xpx.unravel_index, OTHERS, (3, 4)),
    Call(
        "broadcast_shapes",
        lambda xp: xpx.broadcast_shapes((3, 1), (1, 4), (4,)),
        marks=DEPRECATED,
    ),
    Call("diag_indices", lambda xp: xpx.diag_indices(4, xp=xp)),
    Call("tril_indices", lambda xp: xpx.tril_indices(4, offset=-1, xp=xp)),
    Call("triu_indices", lambda xp: xpx.triu_indices(3, m=5, xp=xp)),
    Call("at-set", _at_set, (V,)),
    Call("at-add", _at_add, (V,)),
    Call("at-multiply-mask", _at_multiply_masked, (V, MASK)),
    Call("at-min", _at_min, (V,)),
    Call("at-divide", _at_divide, (V,)),
    Call("at-power", _at_power, (V,)),
    Call("at-max-copy", _at_max_copy, (V,)),
    Call("apply_where", _apply_where, (V,)),
    Call("apply_where-two", _apply_where_two, (V, W)),
    Call("lazy_apply", _lazy_apply, (M,)),
    Call("lazy_apply-as_numpy", _lazy_apply_numpy, (V,)),
]


@parametrize(CALLS)
def test_call_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["real floating", "complex floating", "integral", "indexing"])
def test_default_dtype_is_the_backends_own(backend: str, kind: str) -> None:
    xp = namespace(backend)
    assert xpx.default_dtype(xp, kind) == xp.__array_namespace_info__().default_dtypes()[kind]
