"""Kernels where NumPy's results differ from the standard's special cases.

The standard fixes the result of every elementwise function for NaN,
infinities and signed zeros.  NumPy follows it almost everywhere; the
kernels here replace NumPy's for the cases where it does not.  Each takes
and returns NumPy arrays; :mod:`dlarray._api.elementwise` picks them up by
name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: name -> kernel(a) replacing NumPy's for a unary function.
UNARY: dict[str, Callable[[Any], Any]] = {}
#: name -> kernel(a1, a2) replacing NumPy's for a binary function.
BINARY: dict[str, Callable[[Any, Any], Any]] = {}
