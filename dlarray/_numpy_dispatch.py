"""NumPy's dispatch protocols on dlarray arrays: NEP 13 (``__array_ufunc__``)
and NEP 18 (``__array_function__``).

Engines written against NumPy (Dask's chunk functions, for one) and
libraries that call NumPy on whatever they are given (SciPy, scikit-learn)
call NumPy's functions and ufuncs on dlarray arrays: ``np.sum(chunk)``,
``np.where(mask, 1, 0)``, ``np.exp(chunk)``.  The array class
(``dlarray._array``) only points its two protocol attributes at
:func:`array_ufunc` and :func:`array_function`.

**A NumPy call on dlarray arrays computes what NumPy computes.**  Who
computes it is one decision, taken from the arguments before anything runs:

- dlarray runs the call, on the arrays' own device, returning dlarray
  arrays, when every array in it is a dlarray array (:func:`dlarray_runs`)
  and dlarray's namespace function gives NumPy's answer for these
  arguments: a ufunc of :data:`UFUNCS`, the ``reduce`` of one of
  :data:`REDUCTIONS` or a function of :data:`FUNCTIONS`, on the dtypes its
  table row names (:data:`DOMAINS`), with dtypes that the standard's
  promotion and Python-scalar rules join as NumPy's do
  (:func:`standard_dtype`), and with arguments in forms dlarray's function
  takes or that translate exactly (NumPy's list axes and int shapes into
  the standard's tuples, ``stable=None`` into NumPy's own unstable sort).
- Every other call is NumPy's own, run on zero-copy host views of the
  dlarray arrays: a call with another array in it (an ndarray, a NumPy
  scalar, another library's array: as for array-api-strict's arrays), a
  NumPy function or ufunc dlarray has no equivalent for (``np.median``,
  ``np.fmod``, ``scipy.special.erf``), and inputs outside what dlarray's
  equivalent does the NumPy way: a non-bool condition of ``np.where``, a sum
  of bools, mixed kinds (``np.add(int array, float array)``), a Python int
  out of the dtype's range, an axis of a 0-d array, a keyword dlarray has no
  equivalent for (``where=``, ``decimals=1``), an argument form NumPy
  itself refuses (its error is then NumPy's).  The result is NumPy's (an
  ndarray or a NumPy scalar), and so are the errors; a dlarray array given
  as ``out=`` is written in place and returned, as is any dlarray array
  NumPy returns as it was given.  Device memory NumPy cannot read raises
  the ``TypeError`` naming ``x.to_device("cpu")``: nothing is copied behind
  the caller's back.

No exception of dlarray's is caught to retry with NumPy.
tests/protocols/test_numpy_dispatch.py checks the decision against NumPy on
plain ndarrays for every entry of the tables, over every dtype kind, special
values, Python scalars, list and tuple axes, 0-d and empty arrays.  Two
differences remain, both in rounding, not in the rule computed: dlarray's
sums, products, scans, means and variances of floating values accumulate
more accurately than NumPy's (within the bounds tests/oracle checks against
exact arithmetic), so their last digits can differ; and ``np.clip`` of
``-0.0`` against a bound of ``0`` gives ``0.0`` where NumPy keeps ``-0.0``.

Where dlarray runs a call it keeps NumPy's keyword semantics: ``dtype=``
takes whatever NumPy takes for a dtype and picks NumPy's loop, with NumPy's
``casting=`` rule (default ``"same_kind"``) and NumPy's error where it
forbids the cast; ``out=`` is written with NumPy's casting and shape rules
(a ufunc's result may broadcast into it, a reduction's must have its shape).
docs/guide/python-numpy.md says the same for users.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any, Final

import numpy as np

from dlarray._api import NAMESPACE
from dlarray._core import ArrayBase
from dlarray._dtypes import DTYPES_BY_NAME, SCALAR_TYPES, DType, dtype_argument
from dlarray._rules import CATEGORIES, DEFAULT_DTYPES, SCALAR_JOINS, promotion

__all__ = [
    "FUNCTIONS",
    "NUMPYS_OWN",
    "REDUCTIONS",
    "UFUNCS",
    "array_function",
    "array_ufunc",
    "dlarray_runs",
    "mixing_error",
    "standard_dtype",
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
    """An array or NumPy scalar of another library: what NumPy would read
    through ``__array__`` or DLPack.  NumPy's float64 and complex128 scalars
    count here too, although they subclass Python's: NumPy gives them their
    own dtype (``float32 array + np.float64(1)`` is float64), where a Python
    scalar takes the array's."""
    if isinstance(value, ArrayBase) or type(value) in SCALAR_TYPES:
        return False
    kind = type(value)
    return hasattr(kind, "__dlpack__") or hasattr(kind, "__array__")


def dlarray_runs(values: Iterable[Any]) -> bool:
    """Whether every array among ``values`` (in lists and tuples too, as
    ``np.concatenate`` takes them) is a dlarray array: the first condition
    for dlarray to run a NumPy call.

    With any other array in the call -- an ndarray, a NumPy scalar, another
    library's array -- the call is NumPy's own: NumPy reads the dlarray
    arrays through ``__array__`` (zero-copy on the host, the ``TypeError``
    naming ``to_device`` for device memory) and returns its own result, as
    it does for array-api-strict's arrays.
    """
    for value in values:
        if isinstance(value, list | tuple):
            if not dlarray_runs(value):
                return False
        elif _is_other_array(value):
            return False
    return True


# ---- the decision: where dlarray's function gives NumPy's answer ----


class _NumpysOwn:
    """The type of :data:`NUMPYS_OWN`."""

    def __repr__(self) -> str:
        return "NUMPYS_OWN"


#: What a runner of :data:`FUNCTIONS` returns, instead of computing, for
#: arguments outside what dlarray's function does the NumPy way: the call
#: is then NumPy's own.
NUMPYS_OWN: Final = _NumpysOwn()


def _any_own(*values: Any) -> bool:
    """Whether a translated argument is :data:`NUMPYS_OWN`."""
    return any(value is NUMPYS_OWN for value in values)


#: The dtypes a table row names: a category of the standard
#: (:data:`dlarray._rules.CATEGORIES`), or every dtype dlarray has, for the
#: functions that move elements without computing on them.
DOMAINS: Final[dict[str, frozenset[DType]]] = {
    **CATEGORIES,
    "every dtype": frozenset(DTYPES_BY_NAME.values()),
}

# A Python scalar with no array to join (np.where(mask, 1, 0)) takes NumPy's
# default dtype of its kind, which is dlarray's.
_SCALAR_DEFAULTS: Final[dict[type, DType]] = {
    bool: DTYPES_BY_NAME["bool"],
    int: DEFAULT_DTYPES["integral"],
    float: DEFAULT_DTYPES["real floating"],
    complex: DEFAULT_DTYPES["complex floating"],
}


def standard_dtype(operands: Iterable[Any]) -> DType | None:
    """The dtype the standard's rules give ``operands`` (dlarray arrays and
    Python scalars) where NumPy's rules give the same; None elsewhere.

    The arrays' dtypes meet on the standard's promotion lattice, which is
    NumPy's table wherever the standard has an entry.  A Python scalar then
    takes that dtype, as NumPy's weak scalars do (NEP 50), when it is of the
    dtype's kind or a lower one and an int fits in it; two scalars alone
    take the first one's default dtype, as NumPy's.  None for mixed kinds,
    ``int64`` with ``uint64``, a scalar of a higher kind (a float with an
    integer array), a Python int out of range, or anything else: NumPy has
    answers of its own there.
    """
    dtype: DType | None = None
    scalars = []
    for value in operands:
        if isinstance(value, ArrayBase):
            dtype = value.dtype if dtype is None else promotion(dtype, value.dtype)
            if dtype is None:
                return None
        elif type(value) in SCALAR_TYPES:
            scalars.append(value)
        else:
            return None
    if dtype is None:
        if not scalars:
            return None
        dtype = _SCALAR_DEFAULTS[type(scalars[0])]
    return dtype if all(_joins(scalar, dtype) for scalar in scalars) else None


def _joins(scalar: Any, dtype: DType) -> bool:
    """Whether the Python scalar takes ``dtype`` the same way under the
    standard's rules and NumPy's: of the dtype's kind or a lower one, and an
    int in its range (NumPy compares and selects out-of-range ints exactly:
    ``np.less(int8 array, 300)``; the standard leaves them undefined)."""
    joins = SCALAR_JOINS.get(type(scalar))
    if joins is None or dtype not in joins:
        return False
    if type(scalar) is not int:
        return True
    numpy_dtype = dtype.dtype
    limits = np.iinfo(numpy_dtype) if numpy_dtype.kind in "iu" else np.finfo(numpy_dtype)
    return bool(limits.min <= scalar <= limits.max)


def _within(value: Any, domain: str) -> bool:
    """Whether ``value`` is a dlarray array of a dtype of ``domain``."""
    return isinstance(value, ArrayBase) and value.dtype in DOMAINS[domain]


def _all_arrays(values: Any) -> bool:
    return (
        type(values) in (list, tuple)
        and bool(values)
        and all(isinstance(v, ArrayBase) for v in values)
    )


def _ints(value: Any) -> bool:
    return type(value) in (list, tuple) and all(type(i) is int for i in value)


# What an axis argument may be, by what NumPy's function takes: an int
# only; an int or a tuple of ints (reductions, squeeze); or any sequence of
# ints (NumPy's normalize_axis_tuple: expand_dims, moveaxis, flip, roll).
_INT_ONLY: tuple[type, ...] = ()
_TUPLES: tuple[type, ...] = (tuple,)
_SEQUENCES: tuple[type, ...] = (list, tuple)


def _axis(value: Any, ndim: int | None, sequences: tuple[type, ...]) -> Any:
    """NumPy's axis argument as dlarray's: None, an int, or a tuple made
    from a sequence of ints of a type NumPy takes there (``sequences``);
    :data:`NUMPYS_OWN` for any other form, and for an axis of a 0-d array
    (``ndim`` 0; None where the axis is not one of the input's: NumPy takes
    axis 0 and -1 of a 0-d array, the standard none)."""
    if value is None:
        return None
    if ndim == 0:
        return NUMPYS_OWN
    if type(value) is int:
        return value
    if type(value) in sequences and _ints(value):
        return tuple(value)
    return NUMPYS_OWN


def _shape(value: Any) -> Any:
    """NumPy's shape argument (an int, or a list or tuple of ints) as
    dlarray's tuple; :data:`NUMPYS_OWN` for any other form."""
    if type(value) is int:
        return (value,)
    return tuple(value) if _ints(value) else NUMPYS_OWN


def _dtype_keyword(value: Any) -> Any:
    """NumPy's ``dtype=`` as a dlarray dtype (None stays None).

    Whatever NumPy takes as a dtype is read as NumPy reads it: a dlarray
    dtype, a NumPy dtype or scalar type, a Python type (``bool``, ``float``)
    or a string (``"f4"``).  A dtype dlarray does not have (``object``, a
    non-native byte order) gives :data:`NUMPYS_OWN`; what is no dtype at all
    raises NumPy's own ``TypeError`` (``numpy.dtype`` reads it).
    """
    if value is None:
        return None
    found = dtype_argument(value)
    if found is None:
        found = dtype_argument(np.dtype(value))
    return NUMPYS_OWN if found is None else found


def _accumulates(x: DType, dtype: DType) -> bool:
    """Whether dlarray's sum, prod and cumulative functions with ``dtype=``
    compute NumPy's: a numeric ``dtype`` that ``x``'s values are cast to
    as NumPy casts them, not complex to real (NumPy drops the imaginary
    parts, dlarray refuses)."""
    complex_ = CATEGORIES["complex floating"]
    return dtype in CATEGORIES["numeric"] and (dtype in complex_ or x not in complex_)


def _is_default(value: object, default: object) -> bool:
    if value is default:
        return True
    try:
        return bool(type(value) is type(default) and value == default)
    except (TypeError, ValueError):
        return False


def _at_defaults(kwargs: dict[str, Any], defaults: dict[str, object]) -> bool:
    return all(key in defaults and _is_default(v, defaults[key]) for key, v in kwargs.items())


# ---- NumPy's own call, on zero-copy host views ----


def _as_numpy(value: Any, views: dict[int, tuple[Any, ArrayBase]]) -> Any:
    """``value`` with each DLArray in it as NumPy's view of its memory
    (``np.asarray``: zero-copy on the host, the ``TypeError`` naming
    ``x.to_device("cpu")`` for device memory); ``views`` records each view
    with its array."""
    if isinstance(value, ArrayBase):
        view = np.asarray(value)
        views[id(view)] = (view, value)
        return view
    if isinstance(value, tuple):
        return tuple(_as_numpy(v, views) for v in value)
    if isinstance(value, list):
        return [_as_numpy(v, views) for v in value]
    return value


def _given_back(result: Any, views: dict[int, tuple[Any, ArrayBase]]) -> Any:
    """NumPy's result, where NumPy returns an array it was given (``out=``,
    ``np.atleast_1d``) the dlarray array it was given as."""
    if isinstance(result, tuple):
        return tuple(_given_back(r, views) for r in result)
    view, array = views.get(id(result), (None, None))
    return array if view is result else result


def _run_numpys_own(call: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    views: dict[int, tuple[Any, ArrayBase]] = {}
    numpy_args = _as_numpy(args, views)
    numpy_kwargs = {key: _as_numpy(value, views) for key, value in kwargs.items()}
    return _given_back(call(*numpy_args, **numpy_kwargs), views)


# ---- writing into NumPy's out= ----

#: The casting rule of :func:`_write_out` for an index result (argmax,
#: argmin): NumPy takes an ``out=`` whose dtype casts safely to ``intp``.
INDEX_CASTING = "index"


def _numpy_dtype(dtype: DType) -> np.dtype[Any]:
    """NumPy's dtype of a dlarray dtype, for NumPy's casting rules."""
    try:
        return dtype.dtype
    except AttributeError as error:  # an extended float without ml_dtypes
        raise TypeError(f"NumPy's casting rules cannot be applied: {error}") from None


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


def _same_names(domain: str, names: str) -> dict[str, tuple[str, str]]:
    return {name: (name, domain) for name in names.split()}


#: NumPy ufunc name -> (the dlarray function that computes it, the domain of
#: :data:`DOMAINS` on which that function gives the ufunc's results).  The
#: domains are the standard's categories of these functions, on which NumPy
#: agrees with it, except where a comment says otherwise.
UFUNCS: dict[str, tuple[str, str]] = {
    **_same_names(
        "numeric",
        "add subtract multiply divide negative positive square isnan isinf isfinite matmul",
    ),
    "power": ("pow", "numeric"),
    "absolute": ("abs", "numeric"),
    "conjugate": ("conj", "numeric"),
    **_same_names("all", "equal not_equal"),
    **_same_names(
        "real-valued",
        "remainder maximum minimum floor ceil trunc less less_equal greater greater_equal",
    ),
    **_same_names(
        "floating-point",
        "sqrt reciprocal exp log log1p log2 log10 sin cos tan sinh cosh",
    ),
    # Where dlarray's function gives the standard's special values and
    # NumPy's kernel others, NumPy's own computes those dtypes
    # (dlarray._engine.special_values): floats in floor_divide (NumPy's
    # inf // 3 is NaN, 1 // -inf is -1), complex numbers in expm1 and tanh
    # at non-finite inputs, and in sign (NumPy's |z| rounds and overflows
    # in the input's precision).
    "floor_divide": ("floor_divide", "integer"),
    **_same_names("real floating", "expm1 tanh"),
    "sign": ("sign", "real-valued"),
    "arccos": ("acos", "floating-point"),
    "arcsin": ("asin", "floating-point"),
    "arctan": ("atan", "floating-point"),
    "arccosh": ("acosh", "floating-point"),
    "arcsinh": ("asinh", "floating-point"),
    "arctanh": ("atanh", "floating-point"),
    # NumPy's rint gives floats for integers (float16 for int8); dlarray's
    # round keeps integers as they are.
    "rint": ("round", "floating-point"),
    **_same_names("real floating", "copysign hypot nextafter logaddexp signbit"),
    "arctan2": ("atan2", "real floating"),
    **_same_names("bool", "logical_and logical_or logical_xor logical_not"),
    **_same_names("integer or boolean", "bitwise_and bitwise_or bitwise_xor"),
    "invert": ("bitwise_invert", "integer or boolean"),
    "left_shift": ("bitwise_left_shift", "integer"),
    "right_shift": ("bitwise_right_shift", "integer"),
}

#: NumPy ufunc name -> (the dlarray reduction its ``reduce`` method is, the
#: domain on which it gives NumPy's results).
REDUCTIONS: dict[str, tuple[str, str]] = {
    "add": ("sum", "numeric"),
    "multiply": ("prod", "numeric"),
    "maximum": ("max", "real-valued"),
    "minimum": ("min", "real-valued"),
    "logical_and": ("all", "all"),
    "logical_or": ("any", "all"),
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
    """``x.__array_ufunc__``: the NumPy ufunc run by dlarray's namespace
    where it gives NumPy's answer, NumPy's own otherwise (module docstring)."""
    if dlarray_runs(inputs) and dlarray_runs(kwargs.values()):
        name = ufunc.__name__
        # NumPy's own ufuncs only: another library's may share a name (scipy.special.log1p).
        if getattr(np, name, None) is ufunc:
            result: Any = NUMPYS_OWN
            if method == "__call__" and name in UFUNCS:
                result = _ufunc_call(x, ufunc, inputs, dict(kwargs))
            elif method == "reduce" and name in REDUCTIONS:
                result = _ufunc_reduce(ufunc, inputs, dict(kwargs))
            if result is not NUMPYS_OWN:
                return result
    return _run_numpys_own(getattr(ufunc, method), inputs, kwargs)


def _operand_dtype(value: Any) -> Any:
    """What NumPy's ``resolve_dtypes`` takes for an operand: a NumPy dtype,
    or the type of a Python scalar (weak, as NumPy treats it; a bool is
    NumPy's bool)."""
    if isinstance(value, ArrayBase):
        return _numpy_dtype(value.dtype)
    return np.dtype(bool) if type(value) is bool else type(value)


def _ufunc_call(x: ArrayBase, ufunc: Any, inputs: Any, kwargs: dict[str, Any]) -> Any:
    target, domain = UFUNCS[ufunc.__name__]
    name = f"numpy.{ufunc.__name__}"
    out = kwargs.pop("out", None)
    dtype = _dtype_keyword(kwargs.pop("dtype", None))
    casting = kwargs.pop("casting", "same_kind")
    if dtype is NUMPYS_OWN or not _at_defaults(kwargs, _CALL_DEFAULTS):
        return NUMPYS_OWN
    if ufunc.signature is not None and not _all_arrays(inputs):
        return NUMPYS_OWN  # matmul's core dimensions: arrays only
    if dtype is None:
        computing = standard_dtype(inputs)
        if computing is None or computing not in DOMAINS[domain]:
            return NUMPYS_OWN
        if casting == "same_kind" and out is None:
            return NAMESPACE[target](*inputs)  # the common call
        _numpy_loop(ufunc, inputs, out, casting, None)  # NumPy's error where casting forbids
        result = NAMESPACE[target](*inputs)
    else:
        # dtype= picks NumPy's loop: the operands are cast to its dtypes
        # first (unsafely only under casting="unsafe"), as NumPy casts them.
        loop = _numpy_loop(ufunc, inputs, out, casting, dtype)
        computing, result_dtype = dtype_argument(loop[0]), dtype_argument(loop[ufunc.nin])
        if (
            computing is None
            or computing not in DOMAINS[domain]
            or result_dtype is None
            or any(d != loop[0] for d in loop[: ufunc.nin])
        ):
            return NUMPYS_OWN
        cast = [_cast(v, computing, x) for v in inputs]
        result = _cast(NAMESPACE[target](*cast), result_dtype, x)
    return _write_out(out, result, name, casting, exact_shape=False)


def _numpy_loop(ufunc: Any, inputs: Any, out: Any, casting: str, dtype: DType | None) -> Any:
    """NumPy's loop for these operands, ``dtype=`` and ``out=``: NumPy
    raises its own error where it has none, or where ``casting=`` forbids a
    cast it needs."""
    target_out = out[0] if isinstance(out, tuple) else out
    operands = [_operand_dtype(v) for v in inputs]
    operands.append(None if target_out is None else _operand_dtype(target_out))
    options: dict[str, Any] = {"casting": casting}
    if dtype is not None:  # dtype= is NumPy's signature=(None, ..., dtype)
        options["signature"] = (*(None,) * ufunc.nin, _numpy_dtype(dtype))
    return ufunc.resolve_dtypes(tuple(operands), **options)


def _cast(value: Any, dtype: DType, x: ArrayBase) -> Any:
    """``value`` (an array or a Python scalar) as an array of ``dtype`` on
    ``x``'s device."""
    if not isinstance(value, ArrayBase):
        # NumPy converts a Python scalar to the loop's dtype itself
        # (OverflowError for an int out of its range).
        scalar = np.array(value, dtype=dtype.dtype).item()
        return NAMESPACE["asarray"](scalar, dtype=dtype, device=x.device)
    return value if value.dtype == dtype else NAMESPACE["astype"](value, dtype)


def _ufunc_reduce(ufunc: Any, inputs: Any, kwargs: dict[str, Any]) -> Any:
    reduction, domain = REDUCTIONS[ufunc.__name__]
    if len(inputs) != 1 or not _within(inputs[0], domain):
        return NUMPYS_OWN
    x = inputs[0]
    out = kwargs.pop("out", None)
    dtype = _dtype_keyword(kwargs.pop("dtype", None))
    axis = _axis(kwargs.pop("axis", 0), x.ndim, _TUPLES)  # NumPy's default for reduce: 0
    keepdims = bool(kwargs.pop("keepdims", False))
    if _any_own(dtype, axis) or not _at_defaults(kwargs, _REDUCE_DEFAULTS):
        return NUMPYS_OWN
    # The array alone where the keywords are the defaults: that call is the
    # one the host fast path computes (dlarray/_engine/host_fast_path.py).
    options: dict[str, Any] = (
        {} if axis is None and not keepdims else {"axis": axis, "keepdims": keepdims}
    )
    if dtype is not None:
        if reduction not in ("sum", "prod") or not _accumulates(x.dtype, dtype):
            return NUMPYS_OWN
        options["dtype"] = dtype
    # A reduction writes into an out= of its own shape, cast unsafely (NumPy's rules).
    result = NAMESPACE[reduction](x, **options)
    return _write_out(out, result, f"numpy.{ufunc.__name__}.reduce", "unsafe", True)


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


Runner = Callable[..., Any]


def _runner(numpy_func: Any, *used: str) -> Callable[[Callable[[dict[str, Any]], Any]], Runner]:
    """Make a function of NumPy's signature from ``body``, which gets the
    call's arguments by NumPy's parameter names and returns dlarray's result
    or :data:`NUMPYS_OWN`.  The call is NumPy's own before ``body`` runs
    where NumPy's signature does not bind the arguments (NumPy raises its
    own ``TypeError``) or a parameter outside ``used`` is not at its default
    (a keyword dlarray has no equivalent for: ``where=``, ``order=``)."""
    signature = _signature(numpy_func)

    def wrap(body: Callable[[dict[str, Any]], Any]) -> Runner:
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:  # inspect's, before anything ran
                return NUMPYS_OWN
            for key, value in bound.arguments.items():
                parameter = signature.parameters[key]
                if key not in used and not _is_default(value, parameter.default):
                    return NUMPYS_OWN
            return body(dict(bound.arguments))

        return run

    return wrap


def _keepdims(arguments: dict[str, Any]) -> dict[str, Any]:
    value = arguments.get("keepdims", np._NoValue)
    return {} if value is np._NoValue else {"keepdims": bool(value)}


def _correction(arguments: dict[str, Any]) -> Any:
    """NumPy's ``ddof`` or ``correction`` (std, var) as dlarray's
    ``correction``; :data:`NUMPYS_OWN` for both (NumPy raises) or a number
    of another type."""
    ddof, correction = arguments.get("ddof", 0), arguments.get("correction", np._NoValue)
    if correction is np._NoValue:
        correction = ddof
    elif ddof != 0:
        return NUMPYS_OWN
    return {"correction": correction} if type(correction) in (int, float) else NUMPYS_OWN


def _reduction(name: str, numpy_func: Any, domain: str, *keywords: str) -> Runner:
    """A reduction over ``axis`` (an int or a tuple of ints; an int only for
    argmax and argmin), with NumPy's ``keepdims`` and ``out=`` and the
    ``keywords`` among ``dtype``, ``ddof`` and ``correction``."""
    index = name in ("argmax", "argmin")
    # NumPy casts a reduction into out= unsafely; an index only into a dtype
    # that casts safely to intp.
    casting = INDEX_CASTING if index else "unsafe"

    @_runner(numpy_func, "a", "axis", "keepdims", "out", *keywords)
    def run(arguments: dict[str, Any]) -> Any:
        x = arguments["a"]
        if not _within(x, domain):
            return NUMPYS_OWN
        axis = _axis(arguments.get("axis"), x.ndim, _INT_ONLY if index else _TUPLES)
        dtype = _dtype_keyword(arguments.get("dtype"))
        correction = _correction(arguments) if "ddof" in keywords else {}
        if _any_own(axis, dtype, correction):
            return NUMPYS_OWN
        # Without axis=None, numpy.sum(x) is dlarray.sum(x): the call the host
        # fast path computes.
        options = {**({} if axis is None else {"axis": axis}), **_keepdims(arguments)}
        options.update(correction)
        if dtype is not None:
            if not _accumulates(x.dtype, dtype):
                return NUMPYS_OWN
            options["dtype"] = dtype
        result = NAMESPACE[name](x, **options)
        return _write_out(
            arguments.get("out"), result, f"numpy.{numpy_func.__name__}", casting, True
        )

    return run


def _cumulative(name: str, numpy_func: Any) -> Runner:
    @_runner(numpy_func, "a", "axis", "dtype", "out")
    def run(arguments: dict[str, Any]) -> Any:
        x = arguments["a"]
        if not _within(x, "numeric"):
            return NUMPYS_OWN
        axis = _axis(arguments.get("axis"), x.ndim, _INT_ONLY)
        dtype = _dtype_keyword(arguments.get("dtype"))
        if _any_own(axis, dtype) or (dtype is not None and not _accumulates(x.dtype, dtype)):
            return NUMPYS_OWN
        if axis is None:  # NumPy flattens first
            x, axis = NAMESPACE["reshape"](x, (-1,)), 0
        result = NAMESPACE[name](x, axis=axis, **({} if dtype is None else {"dtype": dtype}))
        # NumPy's scans write into an out= of the result's shape, cast unsafely.
        numpy_name = f"numpy.{numpy_func.__name__}"
        return _write_out(arguments.get("out"), result, numpy_name, "unsafe", exact_shape=True)

    return run


def _joining(name: str, numpy_func: Any) -> Runner:
    """``np.concatenate`` and ``np.stack``: arrays whose dtypes the
    standard promotes as NumPy does."""

    @_runner(numpy_func, "arrays", "axis")
    def run(arguments: dict[str, Any]) -> Any:
        arrays, axis = arguments["arrays"], arguments.get("axis", 0)
        if not _all_arrays(arrays) or standard_dtype(arrays) is None:
            return NUMPYS_OWN
        if (axis is None and name == "stack") or _axis(axis, None, _INT_ONLY) is NUMPYS_OWN:
            return NUMPYS_OWN
        return NAMESPACE[name](arrays, axis=axis)

    return run


@_runner(np.reshape, "a", "shape", "copy")
def _reshape(arguments: dict[str, Any]) -> Any:
    x, shape = arguments["a"], _shape(arguments.get("shape"))
    if not isinstance(x, ArrayBase) or shape is NUMPYS_OWN:
        return NUMPYS_OWN
    return NAMESPACE["reshape"](x, shape, copy=arguments.get("copy"))


def _transpose(numpy_func: Any) -> Runner:
    @_runner(numpy_func, "a", "axes")
    def run(arguments: dict[str, Any]) -> Any:
        x, axes = arguments["a"], arguments.get("axes")
        if not isinstance(x, ArrayBase) or not (axes is None or _ints(axes)):
            return NUMPYS_OWN
        axes = tuple(reversed(range(x.ndim))) if axes is None else tuple(axes)
        return NAMESPACE["permute_dims"](x, axes)

    return run


@_runner(np.matrix_transpose, "x")
def _matrix_transpose(arguments: dict[str, Any]) -> Any:
    x = arguments["x"]  # (dlarray's, a linear algebra function, takes no extended float)
    return NAMESPACE["matrix_transpose"](x) if _within(x, "all") else NUMPYS_OWN


@_runner(np.expand_dims, "a", "axis")
def _expand_dims(arguments: dict[str, Any]) -> Any:
    x, axis = arguments["a"], _axis(arguments["axis"], None, _SEQUENCES)
    if not isinstance(x, ArrayBase) or axis is NUMPYS_OWN or axis is None:
        return NUMPYS_OWN
    return NAMESPACE["expand_dims"](x, axis=axis)


@_runner(np.squeeze, "a", "axis")
def _squeeze(arguments: dict[str, Any]) -> Any:
    x = arguments["a"]
    if not isinstance(x, ArrayBase):
        return NUMPYS_OWN
    axis = _axis(arguments.get("axis"), x.ndim, _TUPLES)
    if axis is NUMPYS_OWN:
        return NUMPYS_OWN
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    return NAMESPACE["squeeze"](x, axis=axis)


@_runner(np.moveaxis, "a", "source", "destination")
def _moveaxis(arguments: dict[str, Any]) -> Any:
    x = arguments["a"]
    source = _axis(arguments["source"], None, _SEQUENCES)
    destination = _axis(arguments["destination"], None, _SEQUENCES)
    if not isinstance(x, ArrayBase) or _any_own(source, destination):
        return NUMPYS_OWN
    return NAMESPACE["moveaxis"](x, source, destination)


@_runner(np.broadcast_to, "array", "shape")
def _broadcast_to(arguments: dict[str, Any]) -> Any:
    x, shape = arguments["array"], _shape(arguments["shape"])
    if not isinstance(x, ArrayBase) or shape is NUMPYS_OWN:
        return NUMPYS_OWN
    return NAMESPACE["broadcast_to"](x, shape)


@_runner(np.broadcast_arrays, "args")
def _broadcast_arrays(arguments: dict[str, Any]) -> Any:
    arrays = arguments.get("args", ())
    if not _all_arrays(arrays):
        return NUMPYS_OWN
    return tuple(NAMESPACE["broadcast_arrays"](*arrays))  # NumPy's is a tuple


def _where(*args: Any, **kwargs: Any) -> Any:
    if kwargs:  # NumPy's where takes its arguments by position only
        return NUMPYS_OWN
    if len(args) == 1:
        return NAMESPACE["nonzero"](args[0]) if isinstance(args[0], ArrayBase) else NUMPYS_OWN
    if len(args) != 3:
        return NUMPYS_OWN
    condition, x1, x2 = args
    dtype = standard_dtype((x1, x2))
    if not _within(condition, "bool") or dtype is None:
        return NUMPYS_OWN  # NumPy takes any condition's truth
    if not isinstance(x1, ArrayBase) and not isinstance(x2, ArrayBase):
        # np.where(mask, 1, 0): NumPy takes two scalars; the standard wants
        # an array among them, of the dtype NumPy gives them.
        x1 = NAMESPACE["asarray"](x1, dtype=dtype, device=condition.device)
    return NAMESPACE["where"](condition, x1, x2)


@_runner(np.nonzero, "a")
def _nonzero(arguments: dict[str, Any]) -> Any:
    x = arguments["a"]
    return NAMESPACE["nonzero"](x) if isinstance(x, ArrayBase) else NUMPYS_OWN


@_runner(np.clip, "a", "a_min", "a_max")
def _clip(arguments: dict[str, Any]) -> Any:
    x = arguments["a"]
    if not _within(x, "real-valued"):
        return NUMPYS_OWN
    bounds = [arguments.get(key, np._NoValue) for key in ("a_min", "a_max")]
    bounds = [None if bound is np._NoValue else bound for bound in bounds]
    # NumPy's result takes the promoted dtype of x and its bounds; dlarray's keeps x's.
    if any(b is not None and standard_dtype((x, b)) is not x.dtype for b in bounds):
        return NUMPYS_OWN
    return NAMESPACE["clip"](x, *bounds)


def _sorting(name: str, numpy_func: Any) -> Runner:
    @_runner(numpy_func, "a", "axis", "stable")
    def run(arguments: dict[str, Any]) -> Any:
        x, stable = arguments["a"], arguments.get("stable")
        if not _within(x, "real-valued") or type(stable) not in (bool, type(None)):
            return NUMPYS_OWN
        axis = _axis(arguments.get("axis", -1), x.ndim, _INT_ONLY)
        if axis is None or axis is NUMPYS_OWN:  # None: NumPy sorts the flattened array
            return NUMPYS_OWN
        # NumPy's default (stable=None) is its unstable sort, which
        # dlarray's stable=False runs on the host.
        return NAMESPACE[name](x, axis=axis, stable=bool(stable))

    return run


@_runner(np.flip, "m", "axis")
def _flip(arguments: dict[str, Any]) -> Any:
    x = arguments["m"]
    if not isinstance(x, ArrayBase):
        return NUMPYS_OWN
    axis = _axis(arguments.get("axis"), x.ndim, _SEQUENCES)
    return NUMPYS_OWN if axis is NUMPYS_OWN else NAMESPACE["flip"](x, axis=axis)


@_runner(np.roll, "a", "shift", "axis")
def _roll(arguments: dict[str, Any]) -> Any:
    x, shift = arguments["a"], arguments["shift"]
    if not isinstance(x, ArrayBase):
        return NUMPYS_OWN
    axis = _axis(arguments.get("axis"), x.ndim, _SEQUENCES)
    if type(shift) is not int:
        # A sequence of shifts, one per axis (NumPy also broadcasts them).
        if not _ints(shift) or type(axis) is not tuple or len(axis) != len(shift):
            return NUMPYS_OWN
        shift = tuple(shift)
    return NUMPYS_OWN if axis is NUMPYS_OWN else NAMESPACE["roll"](x, shift, axis=axis)


@_runner(np.tile, "A", "reps")
def _tile(arguments: dict[str, Any]) -> Any:
    x, reps = arguments["A"], _shape(arguments["reps"])
    if not isinstance(x, ArrayBase) or reps is NUMPYS_OWN:
        return NUMPYS_OWN
    return NAMESPACE["tile"](x, reps)


@_runner(np.repeat, "a", "repeats", "axis")
def _repeat(arguments: dict[str, Any]) -> Any:
    x, repeats = arguments["a"], arguments["repeats"]
    if not isinstance(x, ArrayBase) or not (type(repeats) is int or _within(repeats, "integer")):
        return NUMPYS_OWN
    axis = _axis(arguments.get("axis"), x.ndim, _INT_ONLY)
    return NUMPYS_OWN if axis is NUMPYS_OWN else NAMESPACE["repeat"](x, repeats, axis=axis)


@_runner(np.take, "a", "indices", "axis")
def _take(arguments: dict[str, Any]) -> Any:
    x, indices = arguments["a"], arguments["indices"]
    if not isinstance(x, ArrayBase):
        return NUMPYS_OWN
    axis = _axis(arguments.get("axis"), x.ndim, _INT_ONLY)
    python_indices = type(indices) is int or (type(indices) is list and indices and _ints(indices))
    if axis is NUMPYS_OWN or not (python_indices or _within(indices, "integer")):
        return NUMPYS_OWN
    if axis is None:
        x, axis = NAMESPACE["reshape"](x, (-1,)), 0
    if python_indices:  # NumPy's Python indices (an int drops the axis)
        values = [indices] if type(indices) is int else indices
        taken = NAMESPACE["take"](x, NAMESPACE["asarray"](values, device=x.device), axis=axis)
        return NAMESPACE["squeeze"](taken, axis=axis) if type(indices) is int else taken
    return NAMESPACE["take"](x, indices, axis=axis)


@_runner(np.searchsorted, "a", "v", "side", "sorter")
def _searchsorted(arguments: dict[str, Any]) -> Any:
    x, v = arguments["a"], arguments["v"]
    side, sorter = arguments.get("side", "left"), arguments.get("sorter")
    if (
        not _within(x, "real-valued")
        or x.ndim != 1
        or standard_dtype((x, v)) is not x.dtype
        or side not in ("left", "right")
        or not (sorter is None or _within(sorter, "integer"))
    ):
        return NUMPYS_OWN
    return NAMESPACE["searchsorted"](x, v, side=side, sorter=sorter)


@_runner(np.diff, "a", "n", "axis", "prepend", "append")
def _diff(arguments: dict[str, Any]) -> Any:
    x, n = arguments["a"], arguments.get("n", 1)
    if not _within(x, "numeric") or type(n) is not int or n < 0:
        return NUMPYS_OWN
    axis = _axis(arguments.get("axis", -1), x.ndim, _INT_ONLY)
    ends = {
        key: value
        for key in ("prepend", "append")
        if (value := arguments.get(key, np._NoValue)) is not np._NoValue
    }
    # NumPy broadcasts scalar ends and promotes their dtypes.
    if axis is NUMPYS_OWN or any(
        not isinstance(end, ArrayBase) or end.dtype != x.dtype for end in ends.values()
    ):
        return NUMPYS_OWN
    return NAMESPACE["diff"](x, axis=axis, n=n, **ends)


@_runner(np.round, "a", "decimals", "out")
def _round(arguments: dict[str, Any]) -> Any:
    x, decimals = arguments["a"], arguments.get("decimals", 0)
    if not _within(x, "numeric") or type(decimals) is not int or decimals != 0:
        return NUMPYS_OWN
    # np.round is the ufunc rint underneath: same_kind casting, out= of the result's shape.
    name = f"numpy.{np.round.__name__}"
    return _write_out(arguments.get("out"), NAMESPACE["round"](x), name, "same_kind", True)


def _tensordot_axes(axes: Any) -> Any:
    """NumPy's ``axes`` of tensordot (an int, or a pair of ints or of
    sequences of ints) as dlarray's; :data:`NUMPYS_OWN` for other forms."""
    if type(axes) is int:
        return axes
    if type(axes) not in (list, tuple) or len(axes) != 2:
        return NUMPYS_OWN
    pair = [(side,) if type(side) is int else side for side in axes]
    return tuple(tuple(side) for side in pair) if all(_ints(s) for s in pair) else NUMPYS_OWN


@_runner(np.tensordot, "a", "b", "axes")
def _tensordot(arguments: dict[str, Any]) -> Any:
    a, b = arguments["a"], arguments["b"]
    axes = _tensordot_axes(arguments.get("axes", 2))
    dtype = standard_dtype((a, b)) if _all_arrays((a, b)) else None
    if dtype not in DOMAINS["numeric"] or axes is NUMPYS_OWN:
        return NUMPYS_OWN
    return NAMESPACE["tensordot"](a, b, axes=axes)


def _like(numpy_func: Any, fill: str | None, domain: str) -> Runner:
    """``np.empty_like`` and its kin, with NumPy's ``dtype=`` and
    ``shape=``, for a result dtype of ``domain``; ``np.full_like`` (``fill``
    None) with a Python scalar that the result's dtype takes as NumPy does."""

    @_runner(numpy_func, "prototype", "a", "dtype", "shape", "fill_value")
    def run(arguments: dict[str, Any]) -> Any:
        x: Any = arguments.get("prototype", arguments.get("a"))
        dtype = _dtype_keyword(arguments.get("dtype"))
        shape = arguments.get("shape")
        shape = x.shape if shape is None and isinstance(x, ArrayBase) else _shape(shape)
        if not isinstance(x, ArrayBase) or _any_own(dtype, shape):
            return NUMPYS_OWN
        dtype = x.dtype if dtype is None else dtype
        if dtype not in DOMAINS[domain]:
            return NUMPYS_OWN
        if fill is not None:
            return NAMESPACE[fill](shape, dtype=dtype, device=x.device)
        value = arguments["fill_value"]
        if not _joins(value, dtype):  # NumPy casts any value (2.5 into int64: 2)
            return NUMPYS_OWN
        return NAMESPACE["full"](shape, value, dtype=dtype, device=x.device)

    return run


@_runner(np.copy, "a")
def _copy(arguments: dict[str, Any]) -> Any:
    x = arguments["a"]
    return NAMESPACE["asarray"](x, copy=True) if isinstance(x, ArrayBase) else NUMPYS_OWN


@_runner(np.astype, "x", "dtype", "copy")
def _astype(arguments: dict[str, Any]) -> Any:
    x, dtype = arguments["x"], _dtype_keyword(arguments["dtype"])
    if not isinstance(x, ArrayBase) or dtype is None or dtype is NUMPYS_OWN:
        return NUMPYS_OWN
    complex_ = CATEGORIES["complex floating"]
    if x.dtype in complex_ and dtype not in complex_:
        return NUMPYS_OWN  # NumPy drops the imaginary parts (ComplexWarning); dlarray refuses
    return NAMESPACE["astype"](x, dtype, copy=bool(arguments.get("copy", True)))


def _attribute(numpy_func: Any, attribute: str) -> Runner:
    @_runner(numpy_func, "a")
    def run(arguments: dict[str, Any]) -> Any:
        x = arguments["a"]
        return getattr(x, attribute) if isinstance(x, ArrayBase) else NUMPYS_OWN

    return run


#: NumPy function -> what runs it on dlarray arrays (NumPy's signature):
#: dlarray's result, or :data:`NUMPYS_OWN` for arguments outside what
#: dlarray's function does the NumPy way.  The domain a reduction names is
#: where dlarray's equals NumPy's: NumPy sums bools as integers, takes the
#: mean of integers in float64 and the variance of complex numbers, orders
#: bools and complex numbers (the standard defines none of those), and its
#: complex mean divides by the count as a complex number (the mean of
#: inf + 1j alone is inf + nanj; dlarray's divides each part).
FUNCTIONS: dict[Any, Runner] = {
    np.sum: _reduction("sum", np.sum, "numeric", "dtype"),
    np.prod: _reduction("prod", np.prod, "numeric", "dtype"),
    np.mean: _reduction("mean", np.mean, "real floating"),
    np.std: _reduction("std", np.std, "real floating", "ddof", "correction"),
    np.var: _reduction("var", np.var, "real floating", "ddof", "correction"),
    np.max: _reduction("max", np.max, "real-valued"),
    np.amax: _reduction("max", np.amax, "real-valued"),
    np.min: _reduction("min", np.min, "real-valued"),
    np.amin: _reduction("min", np.amin, "real-valued"),
    np.all: _reduction("all", np.all, "all"),
    np.any: _reduction("any", np.any, "all"),
    np.argmax: _reduction("argmax", np.argmax, "real-valued"),
    np.argmin: _reduction("argmin", np.argmin, "real-valued"),
    np.count_nonzero: _reduction("count_nonzero", np.count_nonzero, "every dtype"),
    np.cumsum: _cumulative("cumulative_sum", np.cumsum),
    np.cumprod: _cumulative("cumulative_prod", np.cumprod),
    np.concatenate: _joining("concat", np.concatenate),
    np.stack: _joining("stack", np.stack),
    np.reshape: _reshape,
    np.transpose: _transpose(np.transpose),
    np.permute_dims: _transpose(np.permute_dims),
    np.matrix_transpose: _matrix_transpose,
    np.expand_dims: _expand_dims,
    np.squeeze: _squeeze,
    np.moveaxis: _moveaxis,
    np.broadcast_to: _broadcast_to,
    np.broadcast_arrays: _broadcast_arrays,
    np.where: _where,
    np.nonzero: _nonzero,
    np.clip: _clip,
    np.sort: _sorting("sort", np.sort),
    np.argsort: _sorting("argsort", np.argsort),
    np.flip: _flip,
    np.roll: _roll,
    np.tile: _tile,
    np.repeat: _repeat,
    np.take: _take,
    np.searchsorted: _searchsorted,
    np.diff: _diff,
    np.round: _round,
    np.around: _round,
    np.tensordot: _tensordot,
    np.empty_like: _like(np.empty_like, "empty", "every dtype"),
    np.zeros_like: _like(np.zeros_like, "zeros", "every dtype"),
    np.ones_like: _like(np.ones_like, "ones", "all"),
    np.full_like: _like(np.full_like, None, "all"),
    np.copy: _copy,
    np.astype: _astype,
    np.ndim: _attribute(np.ndim, "ndim"),
    np.shape: _attribute(np.shape, "shape"),
    np.size: _attribute(np.size, "size"),
}


def array_function(x: ArrayBase, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    """``x.__array_function__``: the NumPy function run by dlarray's namespace
    where it gives NumPy's answer, NumPy's own otherwise (module docstring)."""
    run = FUNCTIONS.get(func)
    if run is not None and dlarray_runs(args) and dlarray_runs(kwargs.values()):
        result = run(*args, **kwargs)
        if result is not NUMPYS_OWN:
            return result
    # NumPy's own implementation, on zero-copy host views of the dlarray
    # arrays: for a NumPy function dlarray does not run (libraries written
    # against NumPy, SciPy's statistics among them, call such functions on
    # whatever they are given), for arguments outside what dlarray's function
    # does the NumPy way, and for any call with another array in it
    # (scikit-learn's np.may_share_memory(ndarray, x)).
    implementation = getattr(func, "_implementation", None)
    if implementation is None:
        name = f"numpy.{getattr(func, '__name__', func)}"
        raise TypeError(
            f"{name} is not run on dlarray arrays (it has no NumPy implementation to run "
            f"on their memory); call the namespace's function (x.__array_namespace__()), "
            f"or np.asarray(x) first to compute with NumPy (zero-copy on the host)"
        )
    return _run_numpys_own(implementation, args, kwargs)
