"""NumPy's dispatch protocols on dlarray arrays: NEP 13 (``__array_ufunc__``)
and NEP 18 (``__array_function__``).

Engines written against NumPy (Dask's chunk functions, for one) call NumPy's
functions and ufuncs on whatever arrays they hold: ``np.sum(chunk)``,
``np.concatenate(chunks)``, ``np.exp(chunk)``.  For dlarray arrays these
calls run dlarray's own namespace function on the arrays' own device and
return dlarray arrays, as CuPy does for its arrays.  The array class
(``dlarray._array``) only points its two protocol attributes at
:func:`array_ufunc` and :func:`array_function`.

Who computes a NumPy call is one rule (:func:`dlarray_runs`):

- every array in the call is a dlarray array (Python scalars aside): dlarray
  runs the ufuncs of :data:`UFUNCS` (called directly), ``reduce`` of
  :data:`REDUCTIONS` (``np.add.reduce`` is a sum) and the functions of
  :data:`FUNCTIONS`, and returns dlarray arrays;
- any other array in the call (an ndarray, a NumPy integer scalar, another
  library's array), or a NumPy function dlarray does not run: the call is
  NumPy's own, as it is for array-api-strict's arrays.  NumPy reads the
  dlarray arrays through ``__array__`` (zero-copy views of host memory; the
  ``TypeError`` naming ``x.to_device("cpu")`` for device memory) and returns
  NumPy's result; dlarray arrays given as ``out=`` are written in place and
  returned.  So ``ndarray + x`` (NumPy's operator: ``np.add``) is NumPy's
  ndarray, while ``x + ndarray`` (dlarray's operator) keeps the standard's
  refusal.

dlarray keeps NumPy's keyword semantics where it runs a call: ``dtype=``
takes whatever NumPy takes for a dtype and picks NumPy's loop, with NumPy's
``casting=`` rule (default ``"same_kind"``) and NumPy's error where it
forbids the cast; ``out=`` is written with NumPy's casting and shape rules
(a ufunc's result may broadcast into it, a reduction's must have its shape);
keywords NumPy would reject raise NumPy's error type; other keywords are
taken at their defaults only (``TypeError`` otherwise, saying what to do).
Without ``dtype=`` the dtype promotion rules stay dlarray's (the
standard's): ``np.add(int array, float array)`` raises as ``dlarray.add``
does.  :mod:`dlarray.compat` is the namespace with NumPy's mixed-kind
promotions.  docs/guide/python-numpy.md says the same for users.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from dlarray._api import NAMESPACE
from dlarray._core import ArrayBase
from dlarray._dtypes import DType, as_python_scalar, dtype_argument

__all__ = [
    "FUNCTIONS",
    "REDUCTIONS",
    "UFUNCS",
    "array_function",
    "array_ufunc",
    "dlarray_runs",
    "mixing_error",
    "numpy_dtype_argument",
]


def mixing_error(other: object, operator: str) -> TypeError:
    """The error for one of dlarray's operators between a DLArray and another
    library's array (``x + ndarray``): the standard leaves mixing out, and a
    silent conversion could copy or move memory, so the message says how to
    convert instead.  (NumPy's own calls with another array in them are
    NumPy's: :func:`dlarray_runs`.)"""
    library = type(other).__module__.split(".")[0]
    return TypeError(
        f"unsupported operand for {operator}: a dlarray array and a {library} "
        f"{type(other).__name__}; dlarray does not mix another library's arrays into its "
        f"operators.  Convert one side first: dlarray.asarray(other) brings it into "
        f"dlarray (zero-copy through DLPack where it can), or {library}.from_dlpack(x) "
        f"takes the dlarray array into {library}"
    )


def _is_other_array(value: object) -> bool:
    """An array (or NumPy scalar) of another library: what NumPy would read
    through ``__array__`` or DLPack, and neither a DLArray nor a Python scalar."""
    if isinstance(value, ArrayBase) or as_python_scalar(value) is not None:
        return False
    kind = type(value)
    return hasattr(kind, "__dlpack__") or hasattr(kind, "__array__")


def dlarray_runs(values: Iterable[Any]) -> bool:
    """Whether dlarray runs a NumPy call with these arguments: the one rule.

    Only when every array among them (in lists and tuples too, as
    ``np.concatenate`` takes them) is a dlarray array.  With any other array
    in the call -- an ndarray, a NumPy integer scalar, another library's array
    -- the call is NumPy's own: NumPy reads the dlarray arrays through
    ``__array__`` (zero-copy on the host, the ``TypeError`` naming
    ``to_device`` for device memory) and returns its own result, as it does
    for array-api-strict's arrays.
    """
    for value in values:
        if isinstance(value, list | tuple):
            if not dlarray_runs(value):
                return False
        elif _is_other_array(value):
            return False
    return True


def _as_numpy(value: Any) -> Any:
    """``value`` with each DLArray in it as NumPy's view of its memory."""
    if isinstance(value, ArrayBase):
        return np.asarray(value)
    if isinstance(value, tuple):
        return tuple(_as_numpy(v) for v in value)
    if isinstance(value, list):
        return [_as_numpy(v) for v in value]
    return value


def numpy_dtype_argument(value: object, name: str) -> DType | None:
    """NumPy's ``dtype=`` argument as a dlarray dtype (None stays None).

    Whatever NumPy takes as a dtype is taken: a dlarray dtype, a NumPy dtype
    or scalar type, a Python type (``bool``, ``float``) or a string
    (``"f4"``), read by ``numpy.dtype`` as NumPy reads it.  What is no dtype
    raises NumPy's ``TypeError``; a dtype dlarray does not have (``object``,
    a non-native byte order) a ``TypeError`` saying so.
    """
    if value is None:
        return None
    found = dtype_argument(value)
    if found is not None:
        return found
    numpy_dtype = np.dtype(value)  # type: ignore[call-overload]
    found = dtype_argument(numpy_dtype)
    if found is None:
        raise TypeError(
            f"{name}: dtype={value!r} is NumPy's {numpy_dtype}, which dlarray has no dtype "
            f"for; call np.asarray(x) first to compute with NumPy (zero-copy on the host)"
        )
    return found


def _numpy_dtype(dtype: DType) -> np.dtype[Any]:
    """NumPy's dtype of a dlarray dtype, for NumPy's casting rules."""
    try:
        return dtype.dtype
    except AttributeError as error:  # an extended float without ml_dtypes
        raise TypeError(f"NumPy's casting rules cannot be applied: {error}") from None


def _require_defaults(name: str, kwargs: dict[str, Any], defaults: dict[str, object]) -> None:
    for key, value in kwargs.items():
        if key not in defaults or not _is_default(value, defaults[key]):
            raise TypeError(
                f"{name}: dlarray arrays take no {key}={value!r}; call "
                f"np.asarray(x) first to compute with NumPy (zero-copy on the host)"
            )


def _is_default(value: object, default: object) -> bool:
    if value is default:
        return True
    try:
        return bool(type(value) is type(default) and value == default)
    except (TypeError, ValueError):
        return False


# ---- writing into NumPy's out= ----

#: The casting rule of :func:`_write_out` for an index result (argmax,
#: argmin): NumPy takes an ``out=`` whose dtype casts safely to ``intp``.
INDEX_CASTING = "index"


def _write_out(out: Any, result: Any, name: str, casting: str, exact_shape: bool) -> Any:
    """``result`` written into NumPy's ``out=`` (a dlarray array, or a tuple
    holding one), which is returned; ``result`` itself without one.

    NumPy's rules: the result is cast to ``out``'s dtype under ``casting``
    (a ufunc call's own rule, ``"same_kind"`` by default; reductions and
    cumulative functions cast unsafely; :data:`INDEX_CASTING` for indices),
    and must have ``out``'s shape (``exact_shape``: reductions and scans) or
    broadcast to it (ufunc calls).
    """
    if out is None:
        return result
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"{name}: out= must hold one array, got {len(out)}")
        out = out[0]
    if not isinstance(out, ArrayBase):
        raise TypeError(f"{name}: out= must be an array, got {type(out).__name__}")
    if exact_shape and tuple(out.shape) != tuple(result.shape):
        raise ValueError(
            f"{name}: out= has shape {tuple(out.shape)}, but the result has shape "
            f"{tuple(result.shape)}; NumPy writes this result only into an out= of its shape"
        )
    if out.dtype != result.dtype:
        to, found = _numpy_dtype(out.dtype), _numpy_dtype(result.dtype)
        allowed = (
            np.can_cast(to, np.intp, "safe")
            if casting == INDEX_CASTING
            else np.can_cast(found, to, casting)  # type: ignore[arg-type]
        )
        if not allowed:
            raise TypeError(
                f"{name}: cannot cast the {found} result to out='s {to} with casting rule "
                f"{'safe to intp' if casting == INDEX_CASTING else repr(casting)} (NumPy's "
                f"rule); give an out= of a dtype it allows"
            )
        result = NAMESPACE["astype"](result, out.dtype)
    out[...] = result  # type: ignore[index]
    return out


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

# The keywords of a ufunc call dlarray takes at NumPy's defaults only
# (axes, axis and keepdims reach here only for matmul, NumPy's one
# generalised ufunc among UFUNCS; NumPy rejects them on the others itself).
_CALL_DEFAULTS: dict[str, object] = {
    "where": True,
    "order": "K",
    "subok": True,
    "signature": None,
    "axes": None,
    "axis": None,
    "keepdims": False,
}
# ... and of ufunc.reduce (axis, keepdims, dtype and out are translated).
_REDUCE_DEFAULTS: dict[str, object] = {"where": True, "initial": np._NoValue}


def array_ufunc(x: ArrayBase, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``x.__array_ufunc__``: the NumPy ufunc run by dlarray's namespace, or
    NumPy's own with another array in the call (:func:`dlarray_runs`)."""
    if not (dlarray_runs(inputs) and dlarray_runs(kwargs.values())):
        return _numpys_own_ufunc(ufunc, method, inputs, kwargs)
    name = f"numpy.{ufunc.__name__}"
    if method == "__call__":
        return _ufunc_call(x, ufunc, name, inputs, kwargs)
    if method == "reduce" and ufunc.__name__ in REDUCTIONS:
        return _ufunc_reduce(ufunc, f"{name}.reduce", inputs, kwargs)
    raise TypeError(
        f"{name}.{method} is not run on dlarray arrays; call np.asarray(x) first to "
        f"compute with NumPy (zero-copy on the host)"
    )


def _numpys_own_ufunc(ufunc: Any, method: str, inputs: Any, kwargs: dict[str, Any]) -> Any:
    result = getattr(ufunc, method)(
        *_as_numpy(inputs), **{k: _as_numpy(v) for k, v in kwargs.items()}
    )
    out = kwargs.get("out")  # NumPy always passes a tuple
    if out is None or method == "at":
        return result
    # NumPy returns the out= arrays it was given: the caller's, not the views.
    return out[0] if len(out) == 1 else out


def _operand_dtype(value: Any, name: str) -> Any:
    """What NumPy's ``resolve_dtypes`` takes for an operand: a NumPy dtype,
    or the type of a Python scalar (weak, as NumPy treats it; a bool is
    NumPy's bool)."""
    if isinstance(value, ArrayBase):
        return _numpy_dtype(value.dtype)
    scalar = as_python_scalar(value)
    if scalar is None:
        raise TypeError(
            f"{name}: dlarray computes with dlarray arrays and Python scalars, got "
            f"{type(value).__name__}"
        )
    return np.dtype(bool) if isinstance(scalar, bool) else type(scalar)


def _ufunc_call(x: ArrayBase, ufunc: Any, name: str, inputs: Any, kwargs: dict[str, Any]) -> Any:
    target = UFUNCS.get(ufunc.__name__)
    if target is None:
        raise TypeError(
            f"{name} has no dlarray equivalent; call np.asarray(x) first to compute "
            f"with NumPy (zero-copy on the host), or use the namespace's functions "
            f"(x.__array_namespace__())"
        )
    out = kwargs.pop("out", None)
    dtype = numpy_dtype_argument(kwargs.pop("dtype", None), name)
    casting = kwargs.pop("casting", "same_kind")
    _require_defaults(name, kwargs, _CALL_DEFAULTS)
    if dtype is None and casting == "same_kind" and out is None:
        return NAMESPACE[target](*inputs)  # the common call: the standard's promotion
    # NumPy's loop for these operands, dtype= and out=: NumPy raises its own
    # error where it has none, or where casting= forbids a cast it needs.
    target_out = out[0] if isinstance(out, tuple) else out
    operands = [_operand_dtype(v, name) for v in inputs]
    operands.append(None if target_out is None else _operand_dtype(target_out, name))
    options: dict[str, Any] = {"casting": casting}
    if dtype is not None:  # dtype= is NumPy's signature=(None, ..., dtype)
        options["signature"] = (*(None,) * ufunc.nin, _numpy_dtype(dtype))
    loop = ufunc.resolve_dtypes(tuple(operands), **options)
    if dtype is not None:
        # dtype= picks NumPy's loop: the operands are cast to its dtypes
        # first (unsafely only under casting="unsafe"), as NumPy casts them.
        inputs = [_cast(v, loop[i], x, name) for i, v in enumerate(inputs)]
    result = NAMESPACE[target](*inputs)
    if dtype is not None:
        result = _cast(result, loop[ufunc.nin], x, name)
    return _write_out(out, result, name, casting, exact_shape=False)


def _cast(value: Any, numpy_dtype: np.dtype[Any], x: ArrayBase, name: str) -> Any:
    """``value`` (an array or a Python scalar) as an array of NumPy's
    ``numpy_dtype`` on ``x``'s device."""
    dtype = dtype_argument(numpy_dtype)
    if dtype is None:
        raise TypeError(
            f"{name}: NumPy's loop computes in {numpy_dtype}, which dlarray has no dtype for"
        )
    if not isinstance(value, ArrayBase):
        # NumPy converts a Python scalar to the loop's dtype itself
        # (OverflowError for an int out of its range).
        scalar = np.array(value, dtype=numpy_dtype).item()
        return NAMESPACE["asarray"](scalar, dtype=dtype, device=x.device)
    return value if value.dtype == dtype else NAMESPACE["astype"](value, dtype)


def _ufunc_reduce(ufunc: Any, name: str, inputs: Any, kwargs: dict[str, Any]) -> Any:
    reduction = REDUCTIONS[ufunc.__name__]
    out = kwargs.pop("out", None)
    dtype = numpy_dtype_argument(kwargs.pop("dtype", None), name)
    options: dict[str, Any] = {
        "axis": kwargs.pop("axis", 0),  # NumPy's default for reduce
        "keepdims": kwargs.pop("keepdims", False),
    }
    _require_defaults(name, kwargs, _REDUCE_DEFAULTS)
    if dtype is not None and reduction not in ("sum", "prod"):
        raise TypeError(f"{name}: dlarray's {reduction} takes no dtype")
    if dtype is not None:
        options["dtype"] = dtype
    # A reduction writes into an out= of its own shape, cast unsafely (NumPy's rules).
    return _write_out(out, NAMESPACE[reduction](*inputs, **options), name, "unsafe", True)


# ---- NEP 18: functions ----


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
    those outside ``used`` must be at their defaults.  A ``dtype`` is read
    as NumPy reads it (:func:`numpy_dtype_argument`)."""
    signature = _signature(func)
    bound = signature.bind(*args, **kwargs)  # NumPy's TypeError for an unknown keyword
    if "dtype" in used and "dtype" in bound.arguments:
        dtype = bound.arguments["dtype"]
        bound.arguments["dtype"] = numpy_dtype_argument(dtype, f"numpy.{func.__name__}")
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


def _correction(arguments: dict[str, Any], name: str) -> dict[str, Any]:
    """NumPy's ``ddof`` or ``correction`` (std, var) as dlarray's ``correction``."""
    ddof, correction = arguments.get("ddof", 0), arguments.get("correction", np._NoValue)
    if correction is np._NoValue:
        return {} if ddof == 0 else {"correction": ddof}
    if ddof != 0:  # NumPy's rule, and its error type
        raise ValueError(f"{name}: ddof and correction can't be provided simultaneously; give one")
    return {"correction": correction}


def _reduction(name: str, numpy_func: Any, *keywords: str) -> Callable[..., Any]:
    used = ("a", "axis", "keepdims", "out", *keywords)
    numpy_name = f"numpy.{numpy_func.__name__}"
    # NumPy casts a reduction into out= unsafely; an index only into a dtype
    # that casts safely to intp.
    casting = INDEX_CASTING if name in ("argmax", "argmin") else "unsafe"

    def run(*args: Any, **kwargs: Any) -> Any:
        arguments = _arguments(numpy_func, args, kwargs, used)
        options = {**_given(arguments, axis="axis"), **_keepdims(arguments)}
        if arguments.get("dtype") is not None:
            options["dtype"] = arguments["dtype"]
        options.update(_correction(arguments, numpy_name))
        result = NAMESPACE[name](arguments["a"], **options)
        return _write_out(arguments.get("out"), result, numpy_name, casting, exact_shape=True)

    return run


def _cumulative(name: str, numpy_func: Any) -> Callable[..., Any]:
    numpy_name = f"numpy.{numpy_func.__name__}"

    def run(*args: Any, **kwargs: Any) -> Any:
        arguments = _arguments(numpy_func, args, kwargs, ("a", "axis", "dtype", "out"))
        x, axis = arguments["a"], arguments.get("axis")
        if axis is None:  # NumPy flattens first
            x, axis = NAMESPACE["reshape"](x, (-1,)), 0
        dtype = arguments.get("dtype")
        result = NAMESPACE[name](x, axis=axis, **({} if dtype is None else {"dtype": dtype}))
        # NumPy's scans write into an out= of the result's shape, cast unsafely.
        return _write_out(arguments.get("out"), result, numpy_name, "unsafe", exact_shape=True)

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
    result = NAMESPACE["round"](arguments["a"])
    # np.round is the ufunc rint underneath: same_kind casting, out= of the result's shape.
    return _write_out(arguments.get("out"), result, "numpy.round", "same_kind", exact_shape=True)


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
    """``x.__array_function__``: the NumPy function run by dlarray's namespace,
    or NumPy's own (:func:`dlarray_runs`)."""
    run = FUNCTIONS.get(func)
    if run is not None and dlarray_runs(args) and dlarray_runs(kwargs.values()):
        return run(*args, **kwargs)
    # NumPy's own implementation: for a NumPy function dlarray does not run
    # (libraries written against NumPy, SciPy's statistics among them, call
    # such functions on whatever they are given), and for any call with
    # another array in it (scikit-learn's np.may_share_memory(ndarray, x),
    # np.average(ndarray, weights=x)).  It reads dlarray arrays through
    # __array__: zero-copy views of host memory, and the TypeError naming
    # x.to_device("cpu") for device memory.  The result is NumPy's.
    implementation = getattr(func, "_implementation", None)
    if implementation is None:
        name = f"numpy.{getattr(func, '__name__', func)}"
        raise TypeError(
            f"{name} is not run on dlarray arrays (dlarray runs the NumPy functions "
            f"listed in dlarray._numpy_dispatch.FUNCTIONS); call the namespace's function "
            f"(x.__array_namespace__()), or np.asarray(x) first to compute with NumPy "
            f"(zero-copy on the host)"
        )
    return implementation(*args, **kwargs)
