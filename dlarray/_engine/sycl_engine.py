"""dpnp as the engine for SYCL USM (kDLOneAPI, every USM kind).

The namespace's chapter modules call NumPy's functions on engine views.
dpnp implements NumPy's API over ``dpnp.tensor`` (``dpctl.tensor`` in
older releases), but, unlike CuPy, not NumPy's dispatch protocols
(``__array_ufunc__`` and ``__array_function__``): dpnp arrays refuse
NumPy's functions.  :class:`EngineArray` adds the two protocols, sending
``numpy.f`` to ``dpnp.f`` (``numpy.linalg.f`` to ``dpnp.linalg.f``, ...),
and keeps the results of dpnp calls and methods as EngineArrays, so the
chapter modules run unchanged on SYCL memory.  dlarray's own rules
(dtypes, devices, errors) have been applied before any of this runs.

Views are made zero-copy through DLPack (``dpnp.from_dlpack``, which
lands on dpctl's cached queue of the device, dlarray's queue) and results
come back the same way.  Nothing here imports dpnp until a SYCL array is
computed on; without dpnp, SYCL arrays can still be made, copied and
exchanged, and computing raises ``BufferError`` saying what to install.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType
from typing import Any

import dlarray._core as _core
from dlarray._array import DLArray
from dlarray._engine.namespaces import Namespace

# dpnp array methods and properties whose array results must stay EngineArrays.
# fmt: off
_METHODS = (
    "__getitem__", "astype", "copy", "reshape", "transpose", "swapaxes", "flatten",
    "ravel", "squeeze", "conj", "conjugate", "view", "sum", "prod", "max", "min",
    "mean", "all", "any", "argmax", "argmin", "nonzero", "round", "clip", "cumsum",
)
_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
           "and", "or", "xor", "lshift", "rshift")
_OPERATORS = (
    *(f"__{prefix}{name}__" for name in _BINARY for prefix in ("", "r")),
    "__neg__", "__pos__", "__abs__", "__invert__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
)
# fmt: on
_PROPERTIES = ("T", "mT", "real", "imag")


@functools.cache
def _dpnp() -> ModuleType | None:
    try:
        return importlib.import_module("dpnp")
    except ImportError:
        return None


def available() -> bool:
    """Whether dpnp can be imported."""
    return _dpnp() is not None


def is_dpnp_array(a: Any) -> bool:
    """True for a dpnp array or ``dpnp.tensor`` array, EngineArrays included
    (checked without importing dpnp): the SYCL arrays engines return."""
    return hasattr(type(a), "__sycl_usm_array_interface__")


@functools.cache
def engine_type() -> type:
    """The dpnp array subclass with NumPy's dispatch protocols."""
    dpnp = _dpnp()
    assert dpnp is not None
    base = dpnp.ndarray

    def adopt(result: Any) -> Any:
        if isinstance(result, base) and type(result) is not cls:
            result.__class__ = cls  # same layout: a relabel, not a copy
        elif isinstance(result, tuple):
            return tuple(adopt(r) for r in result)
        elif isinstance(result, list):
            return [adopt(r) for r in result]
        return result

    def kernel_for(func: Any) -> Any:
        if func.__name__ in _ANSWERED_HERE:
            return _ANSWERED_HERE[func.__name__]
        module = importlib.import_module(func.__module__.replace("numpy", "dpnp", 1))
        kernel = getattr(module, func.__name__, None)
        if kernel is None:
            raise TypeError(
                f"{func.__module__}.{func.__name__} has no dpnp counterpart, so dlarray cannot "
                f"run it on SYCL memory; copy the array to the host with x.to_device('cpu')"
            )
        return kernel

    def array_ufunc(self: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "__call__":
            return adopt(kernel_for(ufunc)(*inputs, **kwargs))
        return adopt(_ufunc_method(dpnp, ufunc, method, *inputs, **kwargs))

    def array_function(self: Any, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return adopt(kernel_for(func)(*args, **kwargs))

    def keep(name: str) -> Any:
        method = getattr(base, name)

        def kept(self: Any, *args: Any, **kwargs: Any) -> Any:
            return adopt(method(self, *args, **kwargs))

        kept.__name__ = name
        return kept

    def keep_property(name: str) -> property:
        prop = getattr(base, name)
        return property(lambda self: adopt(prop.__get__(self)))

    namespace: dict[str, Any] = {
        "__slots__": (),
        "__doc__": "A dpnp array that NumPy's functions dispatch to dpnp.",
        "__array_ufunc__": array_ufunc,
        "__array_function__": array_function,
    }
    namespace.update({name: keep(name) for name in _METHODS + _OPERATORS if hasattr(base, name)})
    namespace.update({name: keep_property(name) for name in _PROPERTIES if hasattr(base, name)})
    cls = type("EngineArray", (base,), namespace)
    return cls


# NumPy functions dpnp lacks that dlarray answers itself.  "May share
# memory" is a question a conservative True always answers correctly.
_ANSWERED_HERE = {"may_share_memory": lambda a, b, max_work=None: True}

# NumPy's ufunc reductions and scans, as dpnp's functions (dpnp's
# elementwise functions are not ufuncs and have no such methods).
_UFUNC_METHODS = {
    ("add", "reduce"): "sum",
    ("multiply", "reduce"): "prod",
    ("maximum", "reduce"): "max",
    ("minimum", "reduce"): "min",
    ("logical_and", "reduce"): "all",
    ("logical_or", "reduce"): "any",
    ("add", "accumulate"): "cumsum",
    ("multiply", "accumulate"): "cumprod",
}


def _ufunc_method(
    dpnp: ModuleType,
    ufunc: Any,
    method: str,
    array: Any,
    axis: Any = 0,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    **kwargs: Any,
) -> Any:
    name = _UFUNC_METHODS.get((ufunc.__name__, method))
    if name is None or kwargs:
        raise TypeError(
            f"numpy.{ufunc.__name__}.{method} has no dpnp counterpart, so dlarray cannot run "
            f"it on SYCL memory; copy the array to the host with x.to_device('cpu')"
        )
    # ``out`` is where NumPy writes a full reduction (a host 0-d array, a
    # speed trick of the NumPy path); dpnp returns its result instead.
    options = {} if dtype is None else {"dtype": dtype}  # dpnp.max/min take no dtype
    if method == "reduce":
        options["keepdims"] = keepdims
    return getattr(dpnp, name)(array, axis=axis, **options)


def to_dpnp(x: DLArray) -> Any:
    """A zero-copy dpnp view (an :class:`EngineArray`) of a SYCL DLArray.

    Like the other engines, it views a twin of ``x`` so that caching the
    view on ``x`` makes no reference cycle through the capsule.
    """
    dpnp = _dpnp()
    if dpnp is None:
        raise BufferError(
            f"computing on {x.device} memory needs dpnp, which is not installed; install "
            f"it (pip install 'dlarray[dpnp]'), or copy the array to the host with "
            f"x.to_device('cpu')"
        )
    if x.dtype.kind == "extended floating":
        raise TypeError(
            f"dpnp has no {x.dtype.name} dtype, so dlarray cannot compute on {x.device} "
            f"with it; copy the array to the host with x.to_device('cpu')"
        )
    twin = x._view(x.shape, x._strides, x._byte_offset)
    view = dpnp.from_dlpack(twin)
    view.__class__ = engine_type()
    return view


def wrap(a: Any) -> DLArray:
    """A dpnp result brought back as a DLArray, zero-copy, keeping it as the
    engine view."""
    dpnp = _dpnp()
    assert dpnp is not None
    if not isinstance(a, dpnp.ndarray):  # a usm_ndarray from dpnp.tensor
        a = dpnp.ndarray._create_from_usm_ndarray(a)
    a.__class__ = engine_type()
    x = _core.from_dlpack(a)  # dlarray.from_dlpack: picks the queue
    x._engine_view = a
    return x


# dpnp's departures from the standard, fixed once for every chapter (see
# dlarray._engine.namespaces).
FIXES: dict[str, Any] = {}


def namespace() -> Namespace:
    """dpnp's namespace (standard-conforming itself), with :data:`FIXES`."""
    dpnp = _dpnp()
    assert dpnp is not None  # a dpnp array exists, so dpnp imported
    return Namespace("dpnp", dpnp, FIXES)
