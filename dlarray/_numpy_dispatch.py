"""NumPy's dispatch protocols on dlarray arrays: NEP 13 (``__array_ufunc__``)
and NEP 18 (``__array_function__``).

Engines written against NumPy (Dask's chunk functions, for one) call NumPy's
functions and ufuncs on whatever arrays they hold: ``np.sum(chunk)``,
``np.concatenate(chunks)``, ``np.exp(chunk)``.  For a dlarray array these
calls run dlarray's own namespace function on the array's own device and
return a dlarray array, as CuPy does for its arrays.  The array class
(``dlarray._array``) only points its two protocol attributes at
:func:`array_ufunc` and :func:`array_function`.

What is covered, and what raises (docs/beyond.md says the same):

- the ufuncs of :data:`UFUNCS` (called directly: ``method="__call__"``),
  and ``reduce`` of :data:`REDUCTIONS` (``np.add.reduce`` is a sum), with
  NumPy's ``out=`` (dlarray arrays, written in place) and ``dtype=`` (the
  inputs cast first); other keywords only at their defaults;
- the NumPy functions of :data:`FUNCTIONS`, with NumPy's signatures, each
  argument either translated or accepted only at its default;
- any other NumPy function runs NumPy's own implementation, which reads
  dlarray arrays through ``__array__`` (zero-copy views of host memory; the
  ``TypeError`` naming ``x.to_device("cpu")`` for device memory) and returns
  NumPy's result, as before these protocols: libraries written against
  NumPy (SciPy's statistics, say) keep working;
- NumPy arrays mixed with dlarray arrays in one call raise the same
  ``TypeError`` as dlarray's operators (``ndarray + x`` is ``np.add``):
  dlarray does not convert another library's arrays behind the caller's back.

The dtype promotion rules stay dlarray's (the standard's): ``np.add(int
array, float array)`` raises as ``dlarray.add`` does.  :mod:`dlarray.compat`
is the namespace with NumPy's mixed-kind promotions.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from dlarray._api import NAMESPACE
from dlarray._core import ArrayBase
from dlarray._dtypes import as_python_scalar

__all__ = ["FUNCTIONS", "REDUCTIONS", "UFUNCS", "array_function", "array_ufunc", "mixing_error"]


def mixing_error(other: object, operator: str) -> TypeError:
    """The error for an operator (or a NumPy ufunc or function) between a
    DLArray and another library's array: the standard leaves mixing out, and
    a silent conversion could copy or move memory, so the message says how
    to convert instead."""
    library = type(other).__module__.split(".")[0]
    return TypeError(
        f"unsupported operand for {operator}: a dlarray array and a {library} "
        f"{type(other).__name__}; dlarray does not mix another library's arrays into its "
        f"operators.  Convert one side first: dlarray.asarray(other) brings it into "
        f"dlarray (zero-copy through DLPack where it can), or {library}.from_dlpack(x) "
        f"takes the dlarray array into {library}"
    )


def _is_foreign_array(value: object) -> bool:
    if isinstance(value, ArrayBase) or as_python_scalar(value) is not None:
        return False
    kind = type(value)
    return hasattr(kind, "__dlpack__") or hasattr(kind, "__array__")


def _refuse_mixing(values: Any, operator: str) -> None:
    for value in values:
        if isinstance(value, list | tuple):
            _refuse_mixing(value, operator)
        elif _is_foreign_array(value):
            raise mixing_error(value, operator)


# ---- NEP 13: ufuncs ----

#: NumPy ufunc name -> the dlarray function it runs (same meaning, the
#: standard's name).
UFUNCS: dict[str, str] = {
    **{
        name: name
        for name in (
            "add subtract multiply divide floor_divide remainder negative positive sign "
            "sqrt square reciprocal exp expm1 log log1p log2 log10 logaddexp "
            "sin cos tan sinh cosh tanh floor ceil trunc isnan isinf isfinite signbit "
            "copysign hypot nextafter maximum minimum equal not_equal less less_equal "
            "greater greater_equal logical_and logical_or logical_xor logical_not "
            "bitwise_and bitwise_or bitwise_xor matmul"
        ).split()
    },
    "power": "pow",
    "absolute": "abs",
    "arccos": "acos",
    "arcsin": "asin",
    "arctan": "atan",
    "arctan2": "atan2",
    "arccosh": "acosh",
    "arcsinh": "asinh",
    "arctanh": "atanh",
    "conjugate": "conj",
    "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
    "rint": "round",
}

#: NumPy ufunc name -> the dlarray reduction its ``reduce`` method is.
REDUCTIONS: dict[str, str] = {
    "add": "sum",
    "multiply": "prod",
    "maximum": "max",
    "minimum": "min",
    "logical_and": "all",
    "logical_or": "any",
}

# ufunc keywords dlarray accepts at NumPy's defaults only.
_UFUNC_DEFAULTS: dict[str, object] = {
    "where": True,
    "casting": "same_kind",
    "order": "K",
    "subok": True,
    "signature": None,
}


def _write_out(out: Any, result: Any, name: str) -> Any:
    """``result`` written into NumPy's ``out=`` (a dlarray array), or itself."""
    if out is None:
        return result
    target = out[0] if isinstance(out, tuple) else out
    if isinstance(out, tuple) and len(out) != 1:
        raise TypeError(f"{name}: out= must hold one dlarray array, got {len(out)}")
    if not isinstance(target, ArrayBase):
        raise mixing_error(target, name)
    target[...] = result  # type: ignore[index]
    return target


def array_ufunc(x: ArrayBase, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``x.__array_ufunc__``: the NumPy ufunc run by dlarray's namespace."""
    name = f"numpy.{ufunc.__name__}"
    out = kwargs.pop("out", None)
    _refuse_mixing(inputs, name)
    dtype = kwargs.pop("dtype", None)
    axis = kwargs.pop("axis", 0)
    keepdims = kwargs.pop("keepdims", False)
    for key, value in kwargs.items():
        if key not in _UFUNC_DEFAULTS or not _is_default(value, _UFUNC_DEFAULTS[key]):
            raise TypeError(
                f"{name}: dlarray arrays take no {key}={value!r}; call "
                f"np.asarray(x) first to compute with NumPy (zero-copy on the host)"
            )
    if method == "__call__":
        target = UFUNCS.get(ufunc.__name__)
        if target is None:
            raise TypeError(
                f"{name} has no dlarray equivalent; call np.asarray(x) first to compute "
                f"with NumPy (zero-copy on the host), or use the namespace's functions "
                f"(x.__array_namespace__())"
            )
        if dtype is not None:
            inputs = tuple(
                NAMESPACE["astype"](v, dtype) if isinstance(v, ArrayBase) else v for v in inputs
            )
        return _write_out(out, NAMESPACE[target](*inputs), name)
    if method == "reduce" and ufunc.__name__ in REDUCTIONS:
        reduction = REDUCTIONS[ufunc.__name__]
        options: dict[str, Any] = {"axis": axis, "keepdims": keepdims}
        if dtype is not None and reduction in ("sum", "prod"):
            options["dtype"] = dtype
        elif dtype is not None:
            raise TypeError(f"{name}.reduce: dlarray's {reduction} takes no dtype")
        return _write_out(out, NAMESPACE[reduction](*inputs, **options), name)
    raise TypeError(
        f"{name}.{method} is not run on dlarray arrays; call np.asarray(x) first to "
        f"compute with NumPy (zero-copy on the host)"
    )


# ---- NEP 18: functions ----


def _is_default(value: object, default: object) -> bool:
    if value is default:
        return True
    try:
        return bool(type(value) is type(default) and value == default)
    except (TypeError, ValueError):
        return False


# NumPy's signatures of the C functions that carry none before NumPy 2.3
# (inspect.signature raises there), as NumPy documents them.
_P = inspect.Parameter
_DOCUMENTED_SIGNATURES = {
    "concatenate": inspect.Signature([
        _P("arrays", _P.POSITIONAL_ONLY),
        _P("axis", _P.POSITIONAL_OR_KEYWORD, default=0),
        _P("out", _P.POSITIONAL_OR_KEYWORD, default=None),
        _P("dtype", _P.KEYWORD_ONLY, default=None),
        _P("casting", _P.KEYWORD_ONLY, default="same_kind"),
    ]),
    "empty_like": inspect.Signature([
        _P("prototype", _P.POSITIONAL_ONLY),
        _P("dtype", _P.POSITIONAL_OR_KEYWORD, default=None),
        _P("order", _P.POSITIONAL_OR_KEYWORD, default="K"),
        _P("subok", _P.POSITIONAL_OR_KEYWORD, default=True),
        _P("shape", _P.POSITIONAL_OR_KEYWORD, default=None),
        _P("device", _P.KEYWORD_ONLY, default=None),
    ]),
}  # fmt: skip


def _signature(func: Any) -> inspect.Signature:
    try:
        return inspect.signature(func)
    except ValueError:  # a C function of an older NumPy
        return _DOCUMENTED_SIGNATURES[func.__name__]


def _arguments(func: Any, args: Any, kwargs: Any, used: tuple[str, ...]) -> dict[str, Any]:
    """The arguments of NumPy's ``func`` call by NumPy's parameter names;
    those outside ``used`` must be at their defaults."""
    signature = _signature(func)
    bound = signature.bind(*args, **kwargs)
    for key, value in bound.arguments.items():
        if key in used:
            continue
        parameter = signature.parameters[key]
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if not _is_default(value, parameter.default):
            raise TypeError(
                f"numpy.{func.__name__}: dlarray arrays take no {key}={value!r}; call the "
                f"namespace's function (x.__array_namespace__()) or np.asarray(x) first"
            )
    return dict(bound.arguments)


def _given(arguments: dict[str, Any], **wanted: str) -> dict[str, Any]:
    """dlarray keyword -> value, for the NumPy parameters given
    (``wanted`` maps dlarray's keyword to NumPy's parameter name)."""
    return {ours: arguments[theirs] for ours, theirs in wanted.items() if theirs in arguments}


def _keepdims(arguments: dict[str, Any]) -> dict[str, Any]:
    value = arguments.get("keepdims", np._NoValue)
    return {} if value is np._NoValue else {"keepdims": bool(value)}


def _reduction(name: str, numpy_func: Any, *keywords: str) -> Callable[..., Any]:
    used = ("a", "axis", "keepdims", "out", *keywords)

    def run(*args: Any, **kwargs: Any) -> Any:
        arguments = _arguments(numpy_func, args, kwargs, used)
        options = {**_given(arguments, axis="axis"), **_keepdims(arguments)}
        if "dtype" in arguments and arguments["dtype"] is not None:
            options["dtype"] = arguments["dtype"]
        if arguments.get("ddof", 0) != 0:
            options["correction"] = arguments["ddof"]
        if arguments.get("correction", np._NoValue) is not np._NoValue:
            options["correction"] = arguments["correction"]
        result = NAMESPACE[name](arguments["a"], **options)
        return _write_out(arguments.get("out"), result, f"numpy.{numpy_func.__name__}")

    return run


def _cumulative(name: str, numpy_func: Any) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        arguments = _arguments(numpy_func, args, kwargs, ("a", "axis", "dtype", "out"))
        x, axis = arguments["a"], arguments.get("axis")
        if axis is None:  # NumPy flattens first
            x, axis = NAMESPACE["reshape"](x, (-1,)), 0
        dtype = arguments.get("dtype")
        result = NAMESPACE[name](x, axis=axis, **({} if dtype is None else {"dtype": dtype}))
        return _write_out(arguments.get("out"), result, f"numpy.{numpy_func.__name__}")

    return run


def _direct(name: str, numpy_func: Any, *parameters: str, **keywords: str) -> Callable[..., Any]:
    """A function whose leading NumPy ``parameters`` are dlarray's positional
    arguments and ``keywords`` (dlarray name = NumPy name) its keywords."""
    used = (*parameters, *keywords.values())

    def run(*args: Any, **kwargs: Any) -> Any:
        arguments = _arguments(numpy_func, args, kwargs, used)
        positional = [arguments[p] for p in parameters if p in arguments]
        return NAMESPACE[name](*positional, **_given(arguments, **keywords))

    return run


def _transpose(*args: Any, **kwargs: Any) -> Any:
    arguments = _arguments(np.transpose, args, kwargs, ("a", "axes"))
    x, axes = arguments["a"], arguments.get("axes")
    return NAMESPACE["permute_dims"](x, tuple(reversed(range(x.ndim))) if axes is None else axes)


def _squeeze(*args: Any, **kwargs: Any) -> Any:
    arguments = _arguments(np.squeeze, args, kwargs, ("a", "axis"))
    x, axis = arguments["a"], arguments.get("axis")
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    return NAMESPACE["squeeze"](x, axis=axis)


def _take(*args: Any, **kwargs: Any) -> Any:
    arguments = _arguments(np.take, args, kwargs, ("a", "indices", "axis"))
    x, axis, indices = arguments["a"], arguments.get("axis"), arguments["indices"]
    if axis is None:
        x, axis = NAMESPACE["reshape"](x, (-1,)), 0
    if isinstance(indices, int | list):  # NumPy's Python indices (an int drops the axis)
        values = [indices] if isinstance(indices, int) else indices
        index = NAMESPACE["asarray"](values, device=x.device)
        taken = NAMESPACE["take"](x, index, axis=axis)
        return NAMESPACE["squeeze"](taken, axis=axis) if isinstance(indices, int) else taken
    return NAMESPACE["take"](x, indices, axis=axis)


def _round(*args: Any, **kwargs: Any) -> Any:
    arguments = _arguments(np.round, args, kwargs, ("a", "out"))
    return _write_out(arguments.get("out"), NAMESPACE["round"](arguments["a"]), "numpy.round")


def _like(numpy_func: Any, fill: str | None) -> Callable[..., Any]:
    """``np.empty_like`` and its kin, with NumPy's ``shape=``."""
    used = ("prototype", "a", "dtype", "shape", "device", "fill_value")

    def run(*args: Any, **kwargs: Any) -> Any:
        arguments = _arguments(numpy_func, args, kwargs, used)
        x: Any = arguments.get("prototype", arguments.get("a"))
        dtype = arguments.get("dtype") or x.dtype
        device = arguments.get("device") or x.device
        shape = arguments.get("shape")
        shape = x.shape if shape is None else shape
        if fill is None:
            return NAMESPACE["full"](shape, arguments["fill_value"], dtype=dtype, device=device)
        return NAMESPACE[fill](shape, dtype=dtype, device=device)

    return run


def _copy(*args: Any, **kwargs: Any) -> Any:
    arguments = _arguments(np.copy, args, kwargs, ("a",))
    return NAMESPACE["asarray"](arguments["a"], copy=True)


def _attribute(numpy_func: Any, attribute: str) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        return getattr(_arguments(numpy_func, args, kwargs, ("a",))["a"], attribute)

    return run


def _where(*args: Any, **kwargs: Any) -> Any:
    if len(args) == 1 and not kwargs:
        return NAMESPACE["nonzero"](args[0])
    if kwargs or len(args) != 3:  # NumPy's where takes its arguments by position only
        raise TypeError(f"numpy.where: expected (condition[, x, y]), got {len(args)} arguments")
    condition, x1, x2 = args
    if not isinstance(x1, ArrayBase) and not isinstance(x2, ArrayBase):
        # np.where(mask, 1, 0): NumPy takes two scalars; the standard wants
        # an array among them, so the first becomes one (of its Python kind).
        x1 = NAMESPACE["asarray"](x1, device=condition.device)
    return NAMESPACE["where"](condition, x1, x2)


#: NumPy function -> what runs it on dlarray arrays (NumPy's signature).
FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.sum: _reduction("sum", np.sum, "dtype"),
    np.prod: _reduction("prod", np.prod, "dtype"),
    np.mean: _reduction("mean", np.mean),
    np.std: _reduction("std", np.std, "ddof", "correction"),
    np.var: _reduction("var", np.var, "ddof", "correction"),
    np.max: _reduction("max", np.max),
    np.amax: _reduction("max", np.amax),
    np.min: _reduction("min", np.min),
    np.amin: _reduction("min", np.amin),
    np.all: _reduction("all", np.all),
    np.any: _reduction("any", np.any),
    np.argmax: _reduction("argmax", np.argmax),
    np.argmin: _reduction("argmin", np.argmin),
    np.count_nonzero: _direct(
        "count_nonzero", np.count_nonzero, "a", axis="axis", keepdims="keepdims"
    ),
    np.cumsum: _cumulative("cumulative_sum", np.cumsum),
    np.cumprod: _cumulative("cumulative_prod", np.cumprod),
    np.concatenate: _direct("concat", np.concatenate, "arrays", axis="axis"),
    np.stack: _direct("stack", np.stack, "arrays", axis="axis"),
    np.reshape: _direct("reshape", np.reshape, "a", "shape", copy="copy"),
    np.transpose: _transpose,
    np.permute_dims: _transpose,
    np.matrix_transpose: _direct("matrix_transpose", np.matrix_transpose, "x"),
    np.expand_dims: _direct("expand_dims", np.expand_dims, "a", axis="axis"),
    np.squeeze: _squeeze,
    np.moveaxis: _direct("moveaxis", np.moveaxis, "a", "source", "destination"),
    np.broadcast_to: _direct("broadcast_to", np.broadcast_to, "array", "shape"),
    np.broadcast_arrays: lambda *arrays, **kwargs: NAMESPACE["broadcast_arrays"](*arrays),
    np.where: _where,
    np.nonzero: _direct("nonzero", np.nonzero, "a"),
    np.clip: _direct("clip", np.clip, "a", "a_min", "a_max"),
    np.sort: _direct("sort", np.sort, "a", axis="axis", stable="stable"),
    np.argsort: _direct("argsort", np.argsort, "a", axis="axis", stable="stable"),
    np.flip: _direct("flip", np.flip, "m", axis="axis"),
    np.roll: _direct("roll", np.roll, "a", "shift", axis="axis"),
    np.tile: _direct("tile", np.tile, "A", "reps"),
    np.repeat: _direct("repeat", np.repeat, "a", "repeats", axis="axis"),
    np.take: _take,
    np.searchsorted: _direct(
        "searchsorted", np.searchsorted, "a", "v", side="side", sorter="sorter"
    ),
    np.diff: _direct("diff", np.diff, "a", n="n", axis="axis", prepend="prepend", append="append"),
    np.round: _round,
    np.around: _round,
    np.tensordot: _direct("tensordot", np.tensordot, "a", "b", axes="axes"),
    np.empty_like: _like(np.empty_like, "empty"),
    np.zeros_like: _like(np.zeros_like, "zeros"),
    np.ones_like: _like(np.ones_like, "ones"),
    np.full_like: _like(np.full_like, None),
    np.copy: _copy,
    np.astype: _direct("astype", np.astype, "x", "dtype", copy="copy", device="device"),
    np.ndim: _attribute(np.ndim, "ndim"),
    np.shape: _attribute(np.shape, "shape"),
    np.size: _attribute(np.size, "size"),
}


def array_function(x: ArrayBase, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    """``x.__array_function__``: the NumPy function run by dlarray's namespace."""
    name = f"numpy.{getattr(func, '__name__', func)}"
    for kind in types:
        if not issubclass(kind, ArrayBase):
            _refuse_mixing((*args, *kwargs.values()), name)
            raise TypeError(f"{name}: dlarray arrays do not mix with {kind.__name__}")
    run = FUNCTIONS.get(func)
    if run is not None:
        return run(*args, **kwargs)
    # A NumPy function dlarray does not run: NumPy's own implementation, as
    # before these protocols existed (libraries written against NumPy, SciPy's
    # statistics among them, call such functions on whatever they are given).
    # It reads dlarray arrays through __array__: zero-copy views of host
    # memory, and the TypeError naming x.to_device("cpu") for device memory.
    # The result is NumPy's, computed on the host.
    implementation = getattr(func, "_implementation", None)
    if implementation is None:
        raise TypeError(
            f"{name} is not run on dlarray arrays (dlarray runs the NumPy functions "
            f"listed in dlarray._numpy_dispatch.FUNCTIONS); call the namespace's function "
            f"(x.__array_namespace__()), or np.asarray(x) first to compute with NumPy "
            f"(zero-copy on the host)"
        )
    return implementation(*args, **kwargs)
