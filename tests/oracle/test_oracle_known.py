"""The wrong numbers a hostile pass found (issue 28) that every earlier test
missed, deterministic: the layer's proof that it would have caught them.
Each is checked by the same oracle as the hypothesis-driven tests."""

from __future__ import annotations

import numpy as np
import pytest
from norm_oracle import check_vector_norm
from oracle_support import CONSTANTS, THRESHOLDS, anchors
from reduction_oracle import check_reduction

import dlarray as xp

LARGE = THRESHOLDS["numpy_reductions.LARGE"]
SUM_ROWS = THRESHOLDS["numpy_reductions.SUM_ROWS"]
#: The issue's own inputs: F2's period was the product's column count then
#: (``_PROD_COLUMNS = 1024``), kept literal so the case stays the issue's.
F2_PERIOD = 1024


def f1(n: int) -> np.ndarray:
    """±3e38 twice each, in the same column of sum's (SUM_ROWS, n // SUM_ROWS)."""
    values = np.zeros(n, np.float32)
    column = n // SUM_ROWS
    values[0] = values[column] = 3e38
    values[1] = values[column + 1] = -3e38
    return values


def f2(n: int) -> np.ndarray:
    """1e38 at every 1024th element and 1e-38 right after it."""
    values = np.ones(n, np.float32)
    values[::F2_PERIOD] = 1e38
    values[1::F2_PERIOD] = 1e-38
    return values


def f3(n: int) -> np.ndarray:
    values = np.zeros(n, np.float32)
    values[:4] = [3e38, 3e38, -3e38, -3e38]
    return values


CASES = [
    ("F1", f1, "sum"),
    ("F1", f1, "mean"),
    ("F1", f1, "var"),
    ("F1", f1, "std"),
    ("F2", f2, "prod"),
    ("F3", f3, "cumulative_sum"),
]


@pytest.mark.parametrize("n", [LARGE - 1, LARGE, LARGE + SUM_ROWS + 1])
@pytest.mark.parametrize(("name", "make", "func"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_known_wrong_numbers(name, make, func, n):
    values = make(n)
    problems = check_reduction(func, "float32", xp.asarray(values), values, None)
    assert not problems, f"{name} (issue 28), n={n}:\n" + "\n".join(problems)


NAN_FUNCTIONS = (
    "sum",
    "prod",
    "mean",
    "var",
    "max",
    "min",
    "argmax",
    "cumulative_sum",
    "cumulative_prod",
)


NAN_CASES = [
    (func, dtype)
    for func in NAN_FUNCTIONS
    for dtype in ("float32", "float64", "complex64")
    if not (dtype == "complex64" and func in ("var", "max", "min", "argmax"))  # (real only)
]


@pytest.mark.parametrize(("func", "dtype"), NAN_CASES)
def test_nan_at_every_block_position(func, dtype):
    """One NaN among ones at every position where a block, row or column of
    the blocked paths starts or ends (oracle_support.anchors), in a run of
    the largest threshold's length: the result is NaN (argmax: the NaN's
    index; scans: the running values, then NaN from the NaN on)."""
    n = max(CONSTANTS)
    wrong = []
    for position in anchors(n):
        values = np.ones(n, dtype)
        values[position] = np.nan
        got = np.asarray(getattr(xp, func)(xp.asarray(values)))
        if func == "argmax":
            right = int(got) == position
        elif func in ("cumulative_sum", "cumulative_prod"):
            before = np.arange(1, position + 1) if func == "cumulative_sum" else np.ones(position)
            right = bool((got[:position] == before).all() and np.isnan(got[position:]).all())
        else:
            right = bool(np.isnan(got))
        if not right:
            shown = got if got.ndim == 0 else got[max(position - 2, 0) : position + 3]
            wrong.append(f"{func}({dtype}) with NaN at {position} of {n}: got {shown}")
    assert not wrong, "\n".join(wrong[:8])


EMPTY_SHAPES = [
    ((0,), 0),
    ((0,), None),
    ((0, 3), 0),
    ((0, 3), 1),
    ((3, 0), 1),
    ((3, 0), None),
    ((), None),
]


@pytest.mark.parametrize(
    "func", ["sum", "prod", "mean", "var", "std", "cumulative_sum", "cumulative_prod"]
)
def test_empty_and_zero_d(func):
    """Every dtype, empty arrays over each axis and 0-d arrays: sums of
    nothing are 0, products 1, means and variances NaN, scans empty (0-d:
    the standard's scans need an axis, so only reductions)."""
    from test_oracle_reductions import DTYPES

    problems = []
    for dtype in DTYPES[func]:
        for shape, axis in EMPTY_SHAPES:
            scan = func.startswith("cumulative")
            if scan and (shape == () or (axis is None and len(shape) > 1)):
                continue
            values = np.ones(shape, dtype) if shape == () else np.empty(shape, dtype)
            try:
                problems += check_reduction(func, dtype, xp.asarray(values), values, axis)
            except Exception as error:  # a crash is as wrong as a wrong number
                where = f"{func}({dtype} of shape {shape}, axis={axis})"
                problems.append(f"{where}: {type(error).__name__}: {error}")
    assert not problems, "\n".join(problems)


RANGE_CASES = [
    (func, dtype, order)
    for func in ("prod", "cumulative_prod")
    for dtype in ("float32", "complex64")
    for order in ("tiny first", "huge first")
]


@pytest.mark.parametrize(("func", "dtype", "order"), RANGE_CASES)
def test_products_that_leave_double_range_and_return(func, dtype, order):
    """Twelve factors of 1e-30 and twelve of 1e30 (found by the layer at 500
    examples): the exact product is 1.0000002, but a running product in
    double precision passes 1e-360 or 1e360 on the way."""
    tiny, huge = [1e-30] * 12, [1e30] * 12
    values = np.array(tiny + huge if order == "tiny first" else huge + tiny, dtype)
    problems = check_reduction(func, dtype, xp.asarray(values), values, None)
    assert not problems, "\n".join(problems)


#: Issue R4: ``vector_norm`` gave inf or 0 where the norm fits, as NumPy
#: does (squares and powers leaving the range on the way).  The issue's
#: float32 inputs, their float64 and complex counterparts.
NORM_CASES = [
    ("float32", [3e38, 0.0], 2),
    ("float32", [3e38, 0.0], 3),
    ("float32", [3e38, 3e38], -2),
    ("float32", [1e-30, 1e-30], -2),
    ("float32", [1e-45] * 4, 2),
    ("float64", [1e300, 1e300], 2),
    ("float64", [1e200, 0.0], 3),
    ("float64", [1e-200, 1e-200], -2),
    ("float64", [1e-200] * 4, 2),
    ("float64", [5e-324] * 4, 2),
    ("complex64", [2e38 + 2e38j, 0.0], 2),
    ("complex64", [2e38 + 2e38j, 1.0], 3),
    ("complex128", [1e300 + 1e300j], 2),
    ("complex128", [1e-200 + 1e-200j] * 3, -2),
    ("complex128", [1e-310 + 1e-310j] * 3, 0.5),
]


@pytest.mark.parametrize(("dtype", "values", "p"), NORM_CASES, ids=str)
def test_norms_that_fit(dtype, values, p):
    array = np.array(values, dtype)
    problems = check_vector_norm(dtype, xp.asarray(array), array, None, False, p)
    assert not problems, "R4:\n" + "\n".join(problems)


#: Issue R5: float64 ``mean``/``std``/``var`` gave inf where the result
#: fits (sums and squared deviations beyond float64's range on the way),
#: and ``std`` 0 for deviations whose squares underflow.
SPREAD_CASES = [
    ("mean", [1.5e308] * 3),
    ("std", [1.5e308] * 3),
    ("var", [1.5e308] * 3),
    ("std", [1.5e308, -1.5e308]),
    ("mean", [1.5e308 + 1e308j, 1.5e308 - 1e308j, 1.6e308 + 0j]),
    ("std", [1e-200, -1e-200]),
    ("var", [1.7976931348623157e308] * 5),  # (found by the layer: a mean off by an ulp)
    ("std", [1.7976931348623157e308] * 5),
]


@pytest.mark.parametrize("n", [None, LARGE - 1, LARGE + 1])
@pytest.mark.parametrize(("func", "values"), SPREAD_CASES, ids=str)
def test_spreads_that_fit(func, values, n):
    """The issue's inputs, and as many copies as fill a run around the
    largest threshold (the same mean and spread)."""
    array = np.array(values)
    if n is not None:
        array = np.resize(array, n - n % array.size)
    dtype = str(array.dtype)
    problems = check_reduction(func, dtype, xp.asarray(array), array, None)
    assert not problems, "R5:\n" + "\n".join(problems)
