"""``linalg.vector_norm`` against the reference (norm_oracle.py): every
order (2, 1, ±inf, 0, integer powers formed by multiplication and by pow,
half and quarter orders, negative ones), every floating dtype, the
adversarial inputs of the reductions scaled towards both ends of the
dtype's range (where squares and powers leave it), at the threshold sizes
in every layout, and small arrays over every axis.  README.md in this
folder describes the layer."""

from __future__ import annotations

import itertools
import math

from hypothesis import event, given
from hypothesis import strategies as st
from norm_oracle import ORDERS, check_vector_norm
from oracle_support import (
    COMPLEXES,
    FLOATS,
    LAYOUTS,
    SCALES,
    SETTINGS,
    SIZES,
    SMALL_SIZES,
    laid_out,
    real_name,
    scaled,
)
from test_oracle_reductions import adversarial, shaped

DTYPES = FLOATS + COMPLEXES
#: Orders whose reference costs a few Decimal operations per element run at
#: every threshold size; the others (roots, powers) at the small ones.
CHEAP_ORDERS = (2, 1, math.inf, -math.inf, 0)


@st.composite
def norm_input(draw, dtype, sizes):
    values = draw(adversarial(dtype, sizes))
    factor = draw(st.sampled_from(SCALES[real_name(dtype)]), "scale")
    event(f"scale {factor:.3g}")
    return scaled(values, factor)


@SETTINGS
@given(data=st.data())
def test_norm_threshold_sizes(data):
    """1-d runs at every threshold size (the orders whose reference is cheap)
    or the small sizes (the others), contiguous, strided, reversed, as 2-d
    C or Fortran blocks over both axes, or 2-d blocks along one axis."""
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    p = data.draw(st.sampled_from(ORDERS), "ord")
    sizes = SIZES if p in CHEAP_ORDERS else SMALL_SIZES
    values = data.draw(norm_input(dtype, sizes), "values")
    layout = data.draw(st.sampled_from(LAYOUTS), "layout")
    keepdims = data.draw(st.booleans(), "keepdims")
    event(f"dtype {dtype}")
    a, view, axis = laid_out(values, layout)
    problems = check_vector_norm(dtype, a, view, axis, keepdims, p)
    assert not problems, "\n".join(problems)


@SETTINGS
@given(data=st.data())
def test_norm_every_axis_and_layout(data):
    """Small arrays of up to three dimensions: every axis, every tuple of
    axes (negative ones too), no axes, keepdims, 0-d and empty arrays, C and
    Fortran order, permuted, strided and reversed views."""
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    p = data.draw(st.sampled_from(ORDERS), "ord")
    factor = data.draw(st.sampled_from(SCALES[real_name(dtype)]), "scale")
    a, view = data.draw(shaped(dtype, factor), "array")
    ndim = view.ndim
    tuples = [t for r in range(ndim + 1) for t in itertools.combinations(range(ndim), r)]
    axis = data.draw(st.sampled_from([None, *range(-ndim, ndim), *tuples]), "axis")
    if isinstance(axis, tuple) and axis and data.draw(st.booleans(), "negative axes"):
        axis = tuple(d - ndim for d in axis)
    keepdims = data.draw(st.booleans(), "keepdims")
    problems = check_vector_norm(dtype, a, view, axis, keepdims, p)
    assert not problems, "\n".join(problems)
