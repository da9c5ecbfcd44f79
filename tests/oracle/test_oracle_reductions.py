"""Every reduction, scan and statistical function of dlarray against the
oracle (reduction_oracle.py): hypothesis-driven adversarial inputs at sizes
around every threshold the implementation switches on (discovered from its
constants, oracle_support.THRESHOLDS), in every dtype each function accepts,
in every layout.  README.md in this folder describes the layer."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from oracle_support import (
    ALL,
    COMPLEXES,
    CONSTANTS,
    FILLS,
    FLOATS,
    INTEGERS,
    LAYOUTS,
    NUMERIC,
    REAL,
    SCALES,
    SETTINGS,
    SIZES,
    THRESHOLDS,
    anchors,
    distances,
    fill,
    laid_out,
    place,
    real_name,
    scaled,
    specials,
)
from reduction_oracle import check_reduction

import dlarray as xp

#: The dtypes each function computes in (what it refuses is checked in
#: test_oracle_refusals.py).
DTYPES = {
    "sum": NUMERIC,
    "prod": NUMERIC,
    "mean": NUMERIC,
    "cumulative_sum": NUMERIC,
    "cumulative_prod": NUMERIC,
    "var": REAL,
    "std": REAL,
    "max": REAL,
    "min": REAL,
    "argmax": REAL,
    "argmin": REAL,
    "all": ALL,
    "any": ALL,
    "count_nonzero": ALL,
}
SCANS = ("cumulative_sum", "cumulative_prod")
FUNCTIONS = tuple(DTYPES)


def test_discovery_finds_the_known_thresholds():
    """The layer's sizes come from the code's constants: if discovery found
    nothing (a rename, a move), the layer would test nothing near them."""
    names = {name.split(".", 1)[1].lstrip("_") for name in THRESHOLDS}
    for known in ("LARGE", "SUM_ROWS", "SCAN_BLOCK", "SINGLE_SPREAD"):
        assert known in names, (known, THRESHOLDS)
    # prod's block constants (PROD_COLUMNS once; PROD_BLOCK, PROD_GROUP, ... since)
    assert any(name.startswith("PROD_") for name in names), THRESHOLDS
    for t in CONSTANTS:
        assert {t - 1, t, t + 1} <= set(SIZES), t


def negated(value, dtype):
    if dtype == "bool":
        return not value
    if dtype in INTEGERS:
        info = np.iinfo(dtype)
        return max(min(-value, int(info.max)), int(info.min))
    return -value


@st.composite
def adversarial(draw, dtype, sizes):
    """A 1-d array of ``dtype``: a fill, then extreme values at positions
    relative to the thresholds' blocks, rows and columns."""
    n = draw(st.sampled_from(sizes))
    kind = draw(st.sampled_from(FILLS))
    values = fill(kind, n, dtype, draw(st.integers(0, 2**32 - 1)))
    if n == 0:
        return values
    all_extremes = specials(dtype)
    # The largest magnitudes half of the time: their sums and products are
    # the ones that leave the range.
    extremes = st.one_of(st.sampled_from(all_extremes[:4]), st.sampled_from(all_extremes))
    for _ in range(draw(st.integers(1, 3))):
        _pattern(draw, values, dtype, extremes)
    return values


def _pattern(draw, values, dtype, extremes):
    n = values.size
    anchor = draw(st.sampled_from(anchors(n)))
    every = distances(n)
    step = draw(st.one_of(st.sampled_from(every[: 2 * len(CONSTANTS)]), st.sampled_from(every)))
    mode = draw(
        st.sampled_from(
            (
                "v v -v -v",
                "cancelling pairs",
                "periodic",
                "points",
                "v v -v -v",
                "cancelling pairs",
                "nan anywhere",
                "none",
            )
        )
    )
    if mode == "points":
        chosen = draw(st.lists(extremes, min_size=1, max_size=6))
        place(values, [(anchor + j * step, v) for j, v in enumerate(chosen)])
    elif mode == "v v -v -v":  # overflow, then cancellation, along one column or block (F3)
        v = draw(extremes)
        w = negated(v, dtype)
        place(
            values,
            [(anchor, v), (anchor + step, v), (anchor + 2 * step, w), (anchor + 3 * step, w)],
        )
    elif mode == "cancelling pairs":  # v, v in one column or block, -v, -v beside them (F1)
        v = draw(extremes)
        w = negated(v, dtype)
        place(values, [(anchor, v), (anchor + step, v), (anchor + 1, w), (anchor + step + 1, w)])
    elif mode == "periodic":  # v every step-th element and w right after it (F2)
        v, w = draw(extremes), draw(extremes)
        with np.errstate(all="ignore"):
            values[anchor % step :: step] = v
            values[(anchor + 1) % step :: step] = w
    elif mode == "nan anywhere":
        position = draw(st.integers(0, n - 1))
        place(
            values, [(position, specials(dtype)[-1] if dtype in (*INTEGERS, "bool") else math.nan)]
        )


def _axis_for(func, values, axis):
    if func in SCANS and values.ndim > 1:  # a 2-d block is scanned along its longer axis
        return axis if isinstance(axis, int) else int(np.argmax(values.shape))
    return axis


@pytest.mark.parametrize("func", FUNCTIONS)
@SETTINGS
@given(data=st.data())
def test_threshold_sizes(func, data):
    """1-d runs of every size around every threshold, laid out contiguous,
    strided, reversed, as a 2-d C or Fortran-order block reduced over
    both axes (scans: down its columns), or a 2-d block reduced down its
    columns or along its rows."""
    dtype = data.draw(st.sampled_from(DTYPES[func]), "dtype")
    values = data.draw(adversarial(dtype, SIZES), "values")
    layout = data.draw(st.sampled_from(LAYOUTS), "layout")
    event(f"size {'>=' if values.size >= max(CONSTANTS) else '<'} {max(CONSTANTS)}")
    event(f"dtype {dtype}")
    a, view, axis = laid_out(values, layout)
    axis = _axis_for(func, view, axis)
    if func in ("max", "min", "argmax", "argmin") and values.size == 0:
        with pytest.raises(ValueError):
            getattr(xp, func)(a, axis=axis)
        return
    kwargs = {}
    if func in ("var", "std"):
        kwargs["correction"] = data.draw(
            st.sampled_from([0, 1] if values.size > 1 else [0]), "correction"
        )
    if func in SCANS:
        kwargs["include_initial"] = data.draw(st.booleans(), "include_initial")
    elif func not in ("argmax", "argmin") or axis is None or isinstance(axis, int):
        kwargs["keepdims"] = data.draw(st.booleans(), "keepdims")
    if func in ("argmax", "argmin") and isinstance(axis, tuple):
        axis = None
        a = xp.reshape(a, (-1,))
        view = view.reshape(-1)
    problems = check_reduction(func, dtype, a, view, axis, **kwargs)
    assert not problems, "\n".join(problems)


@st.composite
def shaped(draw, dtype, scale=1.0):
    """A small array of 0 to 3 dimensions (some of length 0 or 1), its
    values adversarial (times ``scale``), laid out C, Fortran, permuted,
    strided or reversed."""
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=3)))
    n = math.prod(shape)
    values = scaled(draw(adversarial(dtype, [n])), scale).reshape(shape)
    layout = draw(st.sampled_from(("C", "F", "permuted", "strided", "reversed")))
    if layout == "F" or (layout == "permuted" and values.ndim < 2):
        view = np.asfortranarray(values)
        return xp.from_dlpack(view) if view.ndim else xp.asarray(view), view
    if layout == "permuted":
        order = tuple(reversed(range(values.ndim)))
        base = np.ascontiguousarray(np.transpose(values, order))
        return xp.permute_dims(xp.asarray(base), order), np.transpose(base, order)
    if layout in ("strided", "reversed") and values.ndim:
        step = 2 if layout == "strided" else -1
        big = (
            np.zeros(tuple(s * 2 for s in shape), values.dtype)
            if step == 2
            else values[(slice(None, None, -1),) * values.ndim].copy()
        )
        if step == 2:
            big[(slice(None, None, 2),) * values.ndim] = values
        index = (slice(None, None, step),) * values.ndim
        return xp.asarray(big)[index], big[index]
    return xp.asarray(values), values


@pytest.mark.parametrize("func", FUNCTIONS)
@SETTINGS
@given(data=st.data())
def test_every_axis_and_layout(func, data):
    """Small arrays of up to three dimensions: every axis, every tuple of
    axes (negative ones too), keepdims, 0-d and empty arrays, C and Fortran
    order, permuted, strided and reversed views."""
    dtype = data.draw(st.sampled_from(DTYPES[func]), "dtype")
    a, view = data.draw(shaped(dtype), "array")
    ndim = view.ndim
    if func in SCANS:
        include_initial = data.draw(st.booleans(), "include_initial")
        if ndim == 0:  # the standard's scans need an axis to scan
            with pytest.raises((ValueError, IndexError, TypeError)):
                getattr(xp, func)(a)
            return
        axis = data.draw(st.integers(-ndim, ndim - 1), "axis")
        if ndim == 1 and data.draw(st.booleans(), "axis=None"):
            axis = None  # (allowed for 1-d)
        problems = check_reduction(func, dtype, a, view, axis, include_initial=include_initial)
        assert not problems, "\n".join(problems)
        return
    if func in ("argmax", "argmin"):
        axis = data.draw(st.sampled_from([None, *list(range(-ndim, ndim))]), "axis")
    else:
        choices = [None, *list(range(-ndim, ndim))]
        tuples = [t for r in range(ndim + 1) for t in itertools.combinations(range(ndim), r)]
        axis = data.draw(st.sampled_from(choices + tuples), "axis")
        if isinstance(axis, tuple) and axis and data.draw(st.booleans(), "negative axes"):
            axis = tuple(x - ndim for x in axis)
    keepdims = data.draw(st.booleans(), "keepdims")
    reduced = range(ndim) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    empty_reduction = any(view.shape[d] == 0 for d in reduced) and view.size == 0
    if (
        func in ("max", "min", "argmax", "argmin")
        and empty_reduction
        and math.prod(view.shape[d] for d in reduced) == 0
    ):
        with pytest.raises(ValueError):
            getattr(xp, func)(a, axis=axis, keepdims=keepdims)
        return
    kwargs = {"keepdims": keepdims}
    if func in ("var", "std"):
        count = math.prod(view.shape[d] for d in reduced)
        kwargs["correction"] = data.draw(
            st.sampled_from([0, 1] if count > 1 else [0]), "correction"
        )
    problems = check_reduction(func, dtype, a, view, axis, **kwargs)
    assert not problems, "\n".join(problems)


#: (x's dtype, dtype=) pairs the standard allows for sum, prod and the scans:
#: the same kind or wider kind (integers to integers of any width).
DTYPE_ARGUMENTS = (
    [(a, b) for a in INTEGERS for b in INTEGERS]
    + [(a, b) for a in INTEGERS for b in FLOATS]
    + [(a, b) for a in FLOATS for b in FLOATS + COMPLEXES]
    + [(a, b) for a in COMPLEXES for b in COMPLEXES]
)


@pytest.mark.parametrize("func", ("sum", "prod", "cumulative_sum", "cumulative_prod"))
@SETTINGS
@given(data=st.data())
def test_dtype_argument(func, data):
    """``dtype=``: the standard casts first, then accumulates in ``dtype``;
    the oracle casts with NumPy (IEEE: float64 values beyond float32's range
    become ±inf) and checks the result as ``dtype``'s own."""
    source, target = data.draw(st.sampled_from(DTYPE_ARGUMENTS), "dtypes")
    values = data.draw(adversarial(source, SIZES), "values")
    layout = data.draw(st.sampled_from(LAYOUTS), "layout")
    a, view, axis = laid_out(values, layout)
    axis = _axis_for(func, view, axis)
    with np.errstate(all="ignore"):
        cast = view.astype(target)
    problems = check_reduction(func, target, a, cast, axis, dtype_argument=getattr(xp, target))
    assert not problems, f"{func}(x of {source}, dtype={target}):\n" + "\n".join(problems)


@pytest.mark.parametrize("func", ("mean", "var", "std"))
@SETTINGS
@given(data=st.data())
def test_values_near_the_ends_of_the_range(func, data):
    """The adversarial inputs scaled towards the largest values of their
    dtype (sums, deviations and squares beyond its range, where the exact
    mean, variance or deviation is not) and the smallest (squares below
    it), at every threshold size in every layout: no infinity, NaN or
    zero where the exact result is a finite nonzero number."""
    dtypes = FLOATS + (COMPLEXES if func == "mean" else ())
    dtype = data.draw(st.sampled_from(dtypes), "dtype")
    factor = data.draw(st.sampled_from(SCALES[real_name(dtype)]), "scale")
    values = scaled(data.draw(adversarial(dtype, SIZES), "values"), factor)
    layout = data.draw(st.sampled_from(LAYOUTS), "layout")
    a, view, axis = laid_out(values, layout)
    kwargs = {"keepdims": data.draw(st.booleans(), "keepdims")}
    if func in ("var", "std"):
        kwargs["correction"] = data.draw(
            st.sampled_from([0, 1] if values.size > 1 else [0]), "correction"
        )
    problems = check_reduction(func, dtype, a, view, axis, **kwargs)
    assert not problems, "\n".join(problems)
