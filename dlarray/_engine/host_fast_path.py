"""The host fast path, as Python declares it: which calls the C core
computes without entering Python, with which kernels, on which dtypes.

The C core runs the common case of the elementwise functions, ``matmul``,
the reductions over every axis and the array's operators itself
(``fast_function.c``, ``operators.c``, and the one check of
``engine_call.c``'s ``dla_engine_fast``): NumPy's kernel on cached NumPy
views of arrays of one allowed dtype on one device, of an array and a
Python scalar that joins its dtype, or of two dtypes whose promotion
NumPy's loop gives as the standard does.  Everything it needs from Python is
declared here, once:

- :data:`CASES`: per namespace function, a :class:`FastCase` (the host
  engine's kernel, the dtypes it takes, the positional arguments);
- :data:`OPERATOR_KERNELS`: the same for the operators (``x + y``);
- :data:`ENGINE`: the engine the C core calls (:class:`HostEngine`).

The namespace (:mod:`dlarray._api`) puts each case in front of its
chapter's function (:func:`accelerated`); the array class hands the
operators' kernels and the engine to ``_core.register_array_type``.  The
chapters compute through the standard alone (``namespace_of(a)``); a call
the C core does not take reaches them unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._dtypes import DTYPES_BY_NAME, DType
from dlarray._engine import numpy_engine
from dlarray._engine.namespaces import engine_namespace, hook
from dlarray._engine.routing import HOST_ENGINE, engine_view, wrap
from dlarray._rules import (
    BINARY_INPUTS,
    CATEGORIES,
    SYMBOLS,
    UNARY_INPUTS,
    allowed_dtypes,
    default_accumulation_dtype,
)

__all__ = ["CASES", "ENGINE", "OPERATOR_KERNELS", "FastCase", "HostEngine", "accelerated"]


class _NoFastPath:
    """The array type the C fast paths take when the host engine is not
    NumPy: a type no engine array has, so every call takes the chapters'
    general path, through the engine's namespace."""


#: The engine array type the C core's fast paths serve (its kernels are
#: NumPy's ufuncs and numpy_engine's fixes of them).
ARRAY_TYPE: type = np.ndarray if HOST_ENGINE == "numpy" else _NoFastPath


class FastCase(NamedTuple):
    """One namespace function's fast path: ``kernel(*views)`` computes the
    call when its ``arity`` positional arguments (no keywords) are arrays
    whose dtype is in ``allowed`` (for two: of one dtype, or of two whose
    promotion is in :attr:`HostEngine.promotions`), or an array and a
    Python scalar that joins its dtype."""

    kernel: Callable[..., Any]
    allowed: frozenset[DType]
    arity: int


class HostEngine(NamedTuple):
    """The host engine as the C core's fast paths call it
    (``DLArray._host_engine``, read once, field by field in this order, by
    ``_core.register_array_type``)."""

    #: The engine's array type: the fast paths take arrays viewed as it.
    array_type: type
    #: NumPy's error-state context variable, and its value with every error quiet.
    error_state: Any
    quiet: Any
    #: routing's wrap and engine_view.
    wrap: Callable[[Any], ArrayBase]
    engine_view: Callable[[ArrayBase], Any]
    #: The kernels' type (numpy.ufunc) that take Python scalars ...
    scalar_kernel_type: type
    #: ... {scalar type: the dtypes it joins unchanged} ...
    scalar_joins: dict[type, frozenset[DType]]
    #: ... and two arrays of two dtypes: {(dtype, dtype): their promoted dtype}.
    promotions: dict[tuple[DType, DType], DType]


#: None where NumPy's error state cannot be reached from C: then every call
#: takes the Python path.
ENGINE: HostEngine | None = (
    None
    if numpy_engine.ERROR_STATE is None
    else HostEngine(
        array_type=ARRAY_TYPE,
        error_state=numpy_engine.ERROR_STATE[0],
        quiet=numpy_engine.ERROR_STATE[1],
        wrap=wrap,
        engine_view=engine_view,
        scalar_kernel_type=numpy_engine.SCALAR_KERNEL_TYPE,
        scalar_joins=numpy_engine.SCALARS_JOINING,
        promotions=numpy_engine.PROMOTIONS,
    )
)

# The kernels: the NumPy engine namespace's functions of the standard's
# names, so they carry that engine's fixes (numpy_engine.FIXES, such as the
# standard's special values).
_HOST = engine_namespace("numpy")

# Elementwise functions whose NumPy kernel does not give the standard's
# result on every allowed input, so every call takes the chapter's function:
# ceil, floor and trunc of an integer (NumPy gives a float), real and imag
# (NumPy gives views, the standard new arrays), and nextafter (the chapter's
# own function takes the standard's floats only).
_NOT_NUMPYS = frozenset({"ceil", "floor", "trunc", "real", "imag", "nextafter"})

# The dtypes whose sum and prod over every axis the kernel gives in the
# dtype the standard asks for: the dtypes those reductions keep (int64,
# uint64 and the floats), the single-precision ones only where the engine
# accumulates them accurately itself (numpy_reductions; statistical.py's
# bound).
_ACCURATE = bool(hook(_HOST, "_dlarray_accurate_accumulation"))
_SINGLE = frozenset({DTYPES_BY_NAME["float32"], DTYPES_BY_NAME["complex64"]})
_KEPT_BY_SUMS = frozenset(
    d
    for d in CATEGORIES["numeric"]
    if default_accumulation_dtype(d) is d and (_ACCURATE or d not in _SINGLE)
)
_REAL = CATEGORIES["real-valued"]
# argmax and argmin: where NumPy's index type is the standard's (int64).
_INDEXES_IN_INT64 = np.dtype(np.intp) == np.dtype(np.int64)


def _cases() -> dict[str, FastCase]:
    cases = {
        name: FastCase(getattr(_HOST, name), allowed_dtypes(category, name), 1)
        for name, category in UNARY_INPUTS.items()
        if name not in _NOT_NUMPYS
    }
    cases.update(
        (name, FastCase(getattr(_HOST, name), allowed_dtypes(category, name), 2))
        for name, category in BINARY_INPUTS.items()
        if name not in _NOT_NUMPYS
    )
    cases["matmul"] = FastCase(_HOST.matmul, CATEGORIES["numeric"], 2)
    # Reductions over every axis, called with the array alone.  An empty
    # array's max or argmax makes the kernel raise ValueError, which sends
    # the call to the chapter's function (the C core's rule for kernels'
    # ValueErrors), where the standard's error is raised.
    for name in ("sum", "prod"):
        cases[name] = FastCase(getattr(_HOST, name), _KEPT_BY_SUMS, 1)
    for name in ("max", "min") + (("argmax", "argmin") if _INDEXES_IN_INT64 else ()):
        cases[name] = FastCase(getattr(_HOST, name), _REAL, 1)
    for name in ("all", "any"):
        cases[name] = FastCase(getattr(_HOST, name), CATEGORIES["all"], 1)
    return cases


#: Namespace function name -> its fast path.
CASES: dict[str, FastCase] = _cases()

#: The operators' fast paths (``x + y`` tries NumPy's add itself):
#: function name -> (kernel, allowed dtypes), which ``register_array_type``
#: reads through ``DLArray._operator_kernels``.
OPERATOR_KERNELS: dict[str, tuple[Callable[..., Any], frozenset[DType]]] = {
    name: (CASES[name].kernel, CASES[name].allowed) for name in SYMBOLS if name in CASES
}


def accelerated(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (the chapter's ``name``, one of :data:`CASES`) with its
    fast path in front: a ``_core.fast_function`` whose ``__wrapped__`` is
    ``function`` and whose name, docstring and signature are its."""
    case = CASES[name]
    return _core.fast_function(case.kernel, case.allowed, case.arity, function)
