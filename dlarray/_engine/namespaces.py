"""The engine contract: each engine's Array API namespace.

The namespace's chapter modules compute through one interface, the Python
Array API standard, on engine arrays (zero-copy views of dlarray memory):

    xp = namespace_of(a)         # the engine's standard namespace for array a
    xp.sum(a, axis=0)            # never numpy.add.reduce, never a host out=

=================  ===========================  ==============================
engine             arrays                       namespace (``xp``)
=================  ===========================  ==============================
numpy              ``numpy.ndarray``            NumPy 2's main namespace
cupy               ``cupy.ndarray``             ``array_api_compat.cupy``
dpnp               ``dpnp.ndarray``             ``dpnp`` (standard-conforming)
array-api-strict   ``array_api_strict.Array``   ``array_api_strict`` (the
                                                *foreign engine*: the proof
                                                that chapters use only the
                                                standard)
=================  ===========================  ==============================

Where an engine departs from the standard (CuPy's silent linalg errors,
NumPy's special cases, dpnp's gaps), the fix is a function in that engine's
module (``numpy_engine.FIXES``, ``cupy_engine.FIXES``, ...), written in terms
of the standard, and :class:`Namespace` puts it in place of the engine's
own: every chapter gets the fix, and no chapter knows about it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from dlarray._dtypes import DType

# The standard's extensions: sub-namespaces of a namespace.
_EXTENSIONS = frozenset({"linalg", "fft"})


class EngineHooks(Protocol):
    """What an engine's namespace may offer dlarray beyond the standard.

    Each hook is optional: an engine without it gets the standard's way.
    An engine module provides a hook as an entry of its ``FIXES`` (the
    NumPy engine has all but ``_dlarray_write``, the CuPy engine that one);
    the chapters ask for one with :func:`hook`, by a name declared here.
    """

    #: The engine dtype for one of dlarray's extended floats (bfloat16,
    #: fp8...), or None where the engine has none.
    _dlarray_extended_dtype: Callable[[DType], Any]
    #: True where sum, prod and the cumulative ones accumulate float32 and
    #: complex64 within dlarray's documented bounds in the dtype itself, so
    #: the chapters need not accumulate in double precision
    #: (dlarray._api.statistical).
    _dlarray_accurate_accumulation: bool
    #: var's sum of squared deviations in one pass, or None where the
    #: engine has no faster way than the standard's.
    _dlarray_sum_of_squares: Callable[..., Any]
    #: x[key] and x[key] = value with dlarray's indexing (integer arrays and
    #: masks anywhere in the key, IndexError out of range), where the
    #: engine's own indexing is dlarray's (dlarray._api.indexing_object).
    _dlarray_getitem: Callable[[Any, Any], Any]
    _dlarray_setitem: Callable[[Any, Any, Any], None]
    #: function -> kernel(x1, x2, out) computing into ``out`` for the
    #: in-place operators (dlarray._array); without it they compute, then
    #: write.
    _dlarray_in_place: Callable[[Callable[..., Any]], Callable[[Any, Any, Any], Any]]
    #: target[key] = value as the engine runs a kernel (CuPy: on the array's
    #: GPU), for the writes of dlarray._engine.routing.
    _dlarray_write: Callable[[Any, Any, Any], None]


#: The names of the hooks (EngineHooks' attributes).
HOOKS = frozenset(EngineHooks.__annotations__)


def hook(xp: Any, name: str) -> Any:
    """Engine namespace ``xp``'s hook ``name`` (declared in
    :class:`EngineHooks`), or None where the engine has none."""
    if name not in HOOKS:
        raise AttributeError(f"{name!r} is not an engine hook: declare it in EngineHooks")
    return getattr(xp, name, None)


class Namespace:
    """An engine's standard namespace: ``base``'s names, with ``fixes`` in
    place of the functions where the engine departs from the standard.

    ``fixes`` maps a name (``"take"``, or ``"linalg.inv"`` for an extension
    function) to its replacement.  Names are looked up in ``base`` on first
    use and then kept, so a lookup costs one attribute read.
    """

    def __init__(self, name: str, base: Any, fixes: Mapping[str, Any] = {}) -> None:
        undeclared = sorted(k for k in fixes if k.startswith("_dlarray_") and k not in HOOKS)
        if undeclared:
            raise TypeError(f"{name}: {undeclared} are no engine hooks; declare them in "
                            f"dlarray._engine.namespaces.EngineHooks")  # fmt: skip
        self.__name__ = name
        self._base = base
        nested: dict[str, dict[str, Any]] = {}
        for key, fix in fixes.items():
            head, dot, rest = key.partition(".")
            if dot:
                nested.setdefault(head, {})[rest] = fix
            else:
                setattr(self, key, fix)
        for head, sub_fixes in nested.items():
            setattr(self, head, Namespace(f"{name}.{head}", getattr(base, head), sub_fixes))

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = getattr(self._base, attr)
        if attr in _EXTENSIONS and "." not in self.__name__:  # (fft.fft is a function)
            value = Namespace(f"{self.__name__}.{attr}", value)
        self.__dict__[attr] = value
        return value

    def __repr__(self) -> str:
        return f"<dlarray engine namespace {self.__name__!r} over {self._base.__name__}>"


# the root module of an engine's array type -> the function that makes the
# engine's namespace (registered by dlarray._engine.routing, which knows the
# engines; each loader imports its engine only when first asked).
_ENGINES: dict[str, Callable[[], Namespace]] = {}
_LOADED: dict[str, Namespace] = {}
_BY_TYPE: dict[type, Namespace] = {}


def register(root_module: str, load: Callable[[], Namespace]) -> None:
    """Make ``load()`` the namespace of arrays whose type is defined under
    ``root_module`` (``"numpy"``, ``"cupy"``, ...)."""
    _ENGINES[root_module] = load


def engine_namespace(name: str) -> Namespace:
    """The namespace of the engine called ``name`` (a key of ``_ENGINES``)."""
    try:
        return _LOADED[name]
    except KeyError:
        namespace = _LOADED[name] = _ENGINES[name]()
        return namespace


def namespace_of(a: Any) -> Namespace:
    """The standard namespace of the engine that made array ``a``."""
    t = type(a)
    try:
        return _BY_TYPE[t]
    except KeyError:
        pass
    for cls in t.__mro__:
        root = cls.__module__.partition(".")[0]
        if root in _ENGINES:
            namespace = _BY_TYPE[t] = engine_namespace(root)
            return namespace
    raise TypeError(
        f"{t.__module__}.{t.__qualname__} is not an engine array (NumPy, CuPy, dpnp or "
        f"array-api-strict); dlarray computes only through those"
    )


_DTYPES: dict[tuple[int, DType], Any] = {}


def engine_dtype(xp: Any, dtype: DType) -> Any:
    """The engine dtype of namespace ``xp`` for dlarray's ``dtype``."""
    key = (id(xp), dtype)
    try:
        return _DTYPES[key]
    except KeyError:
        pass
    extended = hook(xp, "_dlarray_extended_dtype")
    found = getattr(xp, dtype.name, None)
    if found is None and extended is not None:
        found = extended(dtype)
    if found is None:
        raise TypeError(
            f"the {xp.__name__} engine has no {dtype.name} dtype, so dlarray cannot compute "
            f"with it there; copy the array to the host with x.to_device('cpu')"
        )
    _DTYPES[key] = found
    return found
