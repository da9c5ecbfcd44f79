"""The dtypes dlarray refuses for a function are not wrong numbers: a
TypeError is checked here, and anything a function accepts in dlarray's
extended floating formats (float16, bfloat16, the fp8 formats) is checked
against NumPy on the same values (ml_dtypes' loops, or float32 rounded
back).  README.md lists the refusals found."""

from __future__ import annotations

import numpy as np
import pytest
from oracle_support import ALL, EXTENDED, equal_ieee
from test_oracle_elementwise import BINARY, UNARY, numpy_function

import dlarray as xp

REDUCTIONS = (
    "sum",
    "prod",
    "mean",
    "var",
    "std",
    "max",
    "min",
    "argmax",
    "argmin",
    "cumulative_sum",
    "cumulative_prod",
    "all",
    "any",
    "count_nonzero",
)
NUMPY_NAMES = {"cumulative_sum": "cumsum", "cumulative_prod": "cumprod"}


def _numpy_twin(dtype):
    """A few values rounded to ``dtype`` (ml_dtypes' NumPy type)."""
    values = np.array([0.5, -1.5, 2.0, 0.0, 3.0, 1.0], np.float32)
    with np.errstate(all="ignore"):
        return values.astype(np.dtype(_ml(dtype)))


def _ml(dtype):
    import ml_dtypes

    return getattr(ml_dtypes, dtype) if hasattr(ml_dtypes, dtype) else np.dtype(dtype)


@pytest.mark.parametrize("dtype", EXTENDED)
def test_extended_formats_refused_or_right(dtype):
    """Each function either refuses ``dtype`` with TypeError or gives
    NumPy's result on the same values (computed in float32, rounded to
    ``dtype``)."""
    twin = _numpy_twin(dtype)
    a = xp.asarray(np.asarray(twin, np.float32), dtype=getattr(xp, dtype))
    wrong = []
    for name in REDUCTIONS + UNARY + BINARY:
        function = getattr(xp, name)
        try:
            got = function(a, a) if name in BINARY else function(a)
        except TypeError:
            continue  # a refusal
        with np.errstate(all="ignore"):
            wide = np.asarray(twin, np.float32)
            numpy_name = NUMPY_NAMES.get(name, name)
            expected = (
                numpy_function(numpy_name)(wide, wide)
                if name in BINARY
                else numpy_function(numpy_name)(wide)
            )
            expected = np.asarray(expected)
            if expected.dtype == np.float32:
                expected = expected.astype(_ml(dtype)).astype(np.float32)
        got = np.asarray(xp.astype(got, xp.float32) if got.dtype == getattr(xp, dtype) else got)
        if not equal_ieee(got.astype(expected.dtype), expected).all():
            wrong.append(f"{name}({dtype}): got {got!r}, NumPy {expected!r}")
    assert not wrong, "\n".join(wrong)


def refusals():
    """``{function: [dtypes it refuses]}`` over every dtype (the report's table)."""
    table = {}
    for dtype in ALL + EXTENDED:
        a = xp.asarray(np.ones(3, np.float32), dtype=getattr(xp, dtype))
        for name in REDUCTIONS + UNARY + BINARY:
            try:
                function = getattr(xp, name)
                function(a, a) if name in BINARY else function(a)
            except TypeError:
                table.setdefault(name, []).append(dtype)
    return table
