"""NumPy as the engine for CUDA managed and pinned memory, through host views.

Managed (``cuda_managed``) and pinned (``cuda_host``) memory are host
memory too: NumPy can compute on them once the host has waited for
dlarray's GPU work there (the memory family's ``before_compute``, called by
:mod:`dlarray._engine.routing`).  But NumPy puts its results in ordinary
host memory, and a result must stay on its input's device.  This engine
keeps every result on the input's memory kind, and no chapter knows:

* The engine view of such an array is an ``ndarray`` of a subclass per
  memory kind (:data:`VIEW_TYPES`: ``CudaManagedView``, ``CudaHostView``):
  a label saying which memory kind its results belong to.  Its ``device``
  is a :class:`ViewDevice`, which NumPy reads as ``"cpu"``.
* Every way a chapter can get a result from such an array labels the
  result with the subclass, whatever NumPy returned (a plain ``ndarray``, a
  NumPy scalar, a tuple or named tuple of them): a function of this engine's
  namespace (:func:`namespace`: NumPy's standard namespace, its fixes
  included, every function wrapped), an operator or ufunc
  (``__array_ufunc__``), a NumPy function called on the array
  (``__array_function__``), and indexing (``__getitem__``).  A creation
  function labels its result when given ``device=a.device``.  NumPy's own
  code only ever sees plain ``ndarray`` views, so its internals never meet
  the subclass.
* :func:`wrap` brings a labelled result back as a DLArray on that memory
  kind: zero-copy when the result is a view of its input's memory (its
  bytes lie inside the input's), otherwise copied on the host into new
  memory of that kind, allocated through dlarray's CUDA memory family.

``namespaces.namespace_of`` finds an array's engine by the root module of
its type's classes; the view types name :data:`ENGINE_MODULE` as theirs, so
that they get this engine's namespace rather than plain NumPy's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from numpy.lib.array_utils import byte_bounds

from dlarray._core import ArrayBase
from dlarray._device import CPU, KINDS, Device
from dlarray._engine import numpy_engine
from dlarray._engine.namespaces import Namespace, engine_namespace
from dlarray._storage.allocation import new_array
from dlarray._views import retag

#: This engine's name in the memory-kind table's engine column.
ENGINE_NAME = "numpy_host_views"
#: The root module the view types name as theirs, which
#: dlarray._engine.routing registers this engine's namespace under.
ENGINE_MODULE = "dlarray_host_views"

Spans = tuple[tuple[int, int], ...]


class ViewDevice(str):
    """``a.device`` of a host view: the string ``"cpu"`` to NumPy (whose
    creation functions take no other device), and to this engine's
    namespace the memory kind a new array belongs to."""

    view_type: type[HostView]

    def __new__(cls, view_type: type[HostView]) -> ViewDevice:
        device = super().__new__(cls, "cpu")
        device.view_type = view_type
        return device

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ViewDevice):
            return self.view_type is other.view_type
        return str.__eq__(self, other)

    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return f"{self.view_type.dlarray_device!r} (a host view)"


class HostView(np.ndarray[Any, Any]):
    """An ``ndarray`` whose results belong in memory of ``dlarray_device``
    (one subclass per memory kind, :data:`VIEW_TYPES`)."""

    dlarray_device: ClassVar[Device]
    view_device: ClassVar[ViewDevice]
    #: the byte ranges of the dlarray memory the array's inputs were views
    #: of: a result inside one is that memory itself (see wrap)
    _dlarray_spans: Spans = ()

    def __array_finalize__(self, obj: Any) -> None:
        self._dlarray_spans = getattr(obj, "_dlarray_spans", ())

    @property
    def device(self) -> ViewDevice:  # type: ignore[override]
        return type(self).view_device

    def __getitem__(self, key: Any) -> Any:
        # An integer index gives NumPy a scalar; the standard, a 0-d array.
        return _labelled(super().__getitem__(key), type(self), self._dlarray_spans)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        found = _Found()
        out = kwargs.get("out")  # (NumPy passes out= as a tuple)
        result = getattr(ufunc, method)(*found.plain(inputs), **found.plain_kwargs(kwargs))
        if method == "at":
            return None
        if out is not None:  # the out= arrays, labelled like a result
            result = out if len(out) > 1 else out[0]
        return _labelled(result, type(self), found.spans)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if not all(issubclass(t, np.ndarray) for t in types):
            return NotImplemented
        found = _Found()
        result = func(*found.plain(args), **found.plain_kwargs(kwargs))
        return _labelled(result, type(self), found.spans)


class _Found:
    """The host views met while unwrapping a call's arguments to plain
    ``ndarray`` views: the first one's type, and every one's spans."""

    def __init__(self) -> None:
        self.view_type: type[HostView] | None = None
        self.spans: Spans = ()

    def plain(self, value: Any) -> Any:
        if isinstance(value, HostView):
            if self.view_type is None:
                self.view_type = type(value)
            self.spans += value._dlarray_spans
            return value.view(np.ndarray)
        if type(value) is tuple or type(value) is list:  # concat([a, b]), out=(a,)
            return type(value)(self.plain(v) for v in value)
        if type(value) is ViewDevice and self.view_type is None:  # device=a.device
            self.view_type = value.view_type
        return value

    def plain_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {name: self.plain(value) for name, value in kwargs.items()}


def _labelled(result: Any, view_type: type[HostView], spans: Spans) -> Any:
    """``result`` with every array in it (NumPy scalars made 0-d arrays)
    labelled ``view_type``."""
    if isinstance(result, np.ndarray):
        if type(result) is not view_type:
            result = result.view(view_type)
        result._dlarray_spans = spans
        return result
    if isinstance(result, np.generic):
        return _labelled(np.asarray(result), view_type, spans)
    if isinstance(result, tuple):
        items = [_labelled(r, view_type, spans) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    if isinstance(result, list):
        return [_labelled(r, view_type, spans) for r in result]
    return result


def _labelling(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` of NumPy's namespace, run on plain views of its
    arguments, with its result labelled as its first host view argument
    (or its ``device=`` host view device) says."""

    @functools.wraps(function)
    def labelled(*args: Any, **kwargs: Any) -> Any:
        found = _Found()
        result = function(*found.plain(args), **found.plain_kwargs(kwargs))
        if found.view_type is None:
            return result
        return _labelled(result, found.view_type, found.spans)

    return labelled


class HostViewNamespace(Namespace):
    """NumPy's standard namespace (with its fixes) whose every function
    labels its results (see the module docstring)."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = getattr(self._base, attr)
        if attr in ("linalg", "fft") and "." not in self.__name__:  # the extensions
            value = HostViewNamespace(f"{self.__name__}.{attr}", value)
        elif callable(value) and not isinstance(value, type):  # dtypes stay dtypes
            value = _labelling(value)
        self.__dict__[attr] = value
        return value


@functools.cache
def namespace() -> Namespace:
    """The standard namespace of host views (built once)."""
    return HostViewNamespace("numpy host views", engine_namespace("numpy"))


def _view_type(kind: str) -> type[HostView]:
    class View(HostView):
        __module__ = ENGINE_MODULE

    View.__name__ = View.__qualname__ = "".join(p.title() for p in kind.split("_")) + "View"
    View.dlarray_device = Device(kind, 0)
    View.view_device = ViewDevice(View)
    return View


#: DLPack device type -> the host view type of the memory kinds NumPy
#: computes on through host views (the memory-kind table's rows whose engine
#: is this one: managed and pinned memory).
VIEW_TYPES: dict[int, type[HostView]] = {
    int(kind.device_type): _view_type(kind.name)
    for kind in KINDS.values()
    if kind.engine == ENGINE_NAME
}


def to_host_view(x: ArrayBase) -> HostView:
    """A zero-copy host view of a managed or pinned DLArray, labelled with
    its memory kind (the host must have waited for the GPU's work first)."""
    plain = numpy_engine.to_numpy(retag(x, x.dtype, dl_device=CPU.dlpack))
    view: HostView = plain.view(VIEW_TYPES[x._dl_device[0]])
    view._dlarray_spans = (byte_bounds(plain),) if plain.size else ()
    return view


def wrap(a: HostView) -> ArrayBase:
    """A labelled result as a DLArray on its memory kind: ``a``'s own memory
    when it is a view of an input's, else a copy in new memory of the kind."""
    device = type(a).dlarray_device
    plain = a.view(np.ndarray)
    host = numpy_engine.wrap(plain)  # a DLArray over the result, labelled host memory
    if plain.size and _inside(byte_bounds(plain), a._dlarray_spans):
        x = retag(host, host.dtype, dl_device=device.dlpack)
        x._engine_view = a
        return x
    out = new_array(host.shape, host.dtype, device, zero=False, padded=host._padded)
    out._copy_from(host)  # on the host: new managed or pinned memory has no GPU work
    return out


def _inside(bounds: tuple[int, int], spans: Spans) -> bool:
    low, high = bounds
    return any(start <= low and high <= end for start, end in spans)
