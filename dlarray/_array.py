"""The array class: :class:`DLArray`, at the top of the package.

``DLArray`` is the Python half of ``_core.ArrayBase``: the C half holds the
memory and layout, speaks DLPack, and runs the common operations in C; this
half gives them Python names and rules, calling the namespace below it
directly (``x + y`` that C does not finish is ``dlarray.add(x, y)``,
``x[key]`` is the indexing chapter's ``getitem``).  Every lower layer
types against ``_core.ArrayBase`` and makes arrays through the C core, which
makes them instances of this class once it is registered.

What the C core calls in Python, it reads from this class, once, when
``dlarray/__init__.py`` registers it (``_core.register_array_type``): see
"What the C core reads" at the end of the class.  Arrays are made only by
the library (``asarray``, ``empty``, ``zeros``, ``from_dlpack``, views);
calling ``DLArray()`` raises ``TypeError``.

The rules of the array object's protocols that are more than a namespace
call live here too: the in-place operators, the conversions to Python
scalars, ``round``/``format``, NumPy's ``__array__``, copying and pickling.
"""

from __future__ import annotations

import math
import pickle
import sys
from typing import TYPE_CHECKING, Any, ClassVar, SupportsIndex, cast

import numpy as np

import dlarray._core as _core
import dlarray._float_formats as float_formats
from dlarray import subbyte
from dlarray._api import NAMESPACE
from dlarray._api._operands import binary
from dlarray._api.creation import to_device
from dlarray._api.indexing_object import getitem, setitem
from dlarray._api.printing import repr_of, str_of
from dlarray._consumer import from_dlpack
from dlarray._core import ArrayBase
from dlarray._creation import empty
from dlarray._device import CPU, Device, device_of
from dlarray._dtypes import DTYPES_BY_NAME, SCALAR_TYPES, DType, as_python_scalar, dtype_named
from dlarray._engine import host_fast_path, numpy_engine
from dlarray._engine.namespaces import hook
from dlarray._engine.routing import call, engine_view, namespace_of, wrap, write
from dlarray._numpy_dispatch import array_function, array_ufunc, mixing_error
from dlarray._rules import (
    BINARY_INPUTS,
    CATEGORIES,
    DEFAULT_DTYPES,
    EXTENDED_FLOATS,
    REAL_OF,
    SPELLINGS,
    SYMBOLS,
    allowed_dtypes,
    broadcast_result,
    check_dtype,
    check_writable,
    common_device,
)
from dlarray._storage.family import order_export, prepare_host_access
from dlarray._storage.memory import MEMORY
from dlarray._transfer import copy_to_device
from dlarray._views import permute_dims, retag
from dlarray.subbyte import _storage_codes

_SUPPORTED_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

# The namespace x.__array_namespace__() returns: the dlarray package, which
# imports this module while it initialises (and so is in sys.modules).
_PACKAGE = sys.modules[__name__.rpartition(".")[0]]


def _operand(other: Any, scalars: bool, operator: str) -> Any:
    """``other`` as the other operand of a DLArray's operator: a DLArray, a Python
    scalar (instances of subclasses such as ``numpy.float64`` become the
    Python scalar), or NotImplemented for anything else, so that Python can
    try ``other``'s reflected method.  Another library's array raises the
    mixing error at once."""
    if isinstance(other, ArrayBase):
        return other
    if scalars:
        scalar = as_python_scalar(other)
        if scalar is not None:
            return scalar
    kind = type(other)
    if hasattr(kind, "__dlpack__") or hasattr(kind, "__array__"):
        raise mixing_error(other, operator)
    return NotImplemented


# NumPy's and PyTorch's array attributes that the Array API spells another
# way (mostly as namespace functions): the rows "x.<name>" of the one table
# of other libraries' spellings, _rules.SPELLINGS.  Reading one on a DLArray
# raises the usual AttributeError, saying how dlarray writes it; ``hasattr``
# stays False.
_NUMPY_HABITS: dict[str, str] = {
    spelling[2:]: hint for spelling, hint in SPELLINGS.items() if spelling.startswith("x.")
}


class _NumPyHabit:
    """A class attribute for one name of ``_NUMPY_HABITS``: reading it from
    an array raises AttributeError naming dlarray's spelling."""

    __slots__ = ("name",)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        raise AttributeError(
            f"'DLArray' object has no attribute {self.name!r}: dlarray follows the Array "
            f"API standard; write {_NUMPY_HABITS[self.name]}"
        )


_INTEGER = CATEGORIES["integer"]
_REAL_FLOATING = CATEGORIES["real floating"]
_INT_MAX = {
    d: (1 << (d.bits - 1)) - 1 if d.kind == "signed integer" else (1 << d.bits) - 1
    for d in _INTEGER
}
_EXTENDED = frozenset(float_formats.FORMATS)
# float16, bfloat16 and the fp8/fp6/fp4 formats are real numbers outside the
# Array API's dtypes: they convert with int(), float(), complex() and bool().
_CONVERSION_CATEGORY = {
    "all": CATEGORIES["all"] | EXTENDED_FLOATS,
    "integer": CATEGORIES["integer"],
    "real-valued or bool": CATEGORIES["real-valued"] | CATEGORIES["bool"] | EXTENDED_FLOATS,
}


# An operator's function name -> the dtypes its operands may have.
_OPERANDS = {
    name: allowed_dtypes(BINARY_INPUTS[name], name) for name in SYMBOLS if name in BINARY_INPUTS
}


def _in_place(name: str, x: ArrayBase, other: Any) -> ArrayBase:
    """``x <op>= other``: ``name(x, other)`` written straight into ``x``.

    The standard forbids an in-place operation from changing ``x``'s dtype
    or shape: a result of another dtype raises ``TypeError``, one of another
    shape (``other`` broadcasting ``x`` up) raises ``ValueError``.  Both are
    checked before anything is written.  The engine then computes
    ``name(x, other)`` and writes it into ``x``'s memory with the standard's
    ``__setitem__``; the NumPy engine writes a ufunc's result there directly
    (its ``out=``, as NumPy's own ``x += y`` does: see :func:`_in_place_kernel`).
    """
    check_writable(x, f"in-place {name}")
    if name == "matmul":
        return _assign(name, x, NAMESPACE[name](x, other))
    allowed = _OPERANDS[name]
    dtype = x.dtype
    if name == "divide" and dtype in _INTEGER:
        # The one operator whose result dtype is not its operands' promoted
        # one: integer true division gives the default float.
        raise _dtype_change(name, x, DEFAULT_DTYPES["real floating"])
    if type(other) is DLArray and other.dtype is dtype and dtype in allowed:
        # The common case, kept short: it is the whole cost on small arrays.
        if other.device != x.device:
            common_device((x, other), name)
        a1, a2 = engine_view(x), engine_view(other)
    else:
        a1, a2, result_dtype = binary(x, other, allowed, BINARY_INPUTS[name], name)
        if result_dtype is not dtype:
            raise _dtype_change(name, x, result_dtype)
    other_shape = a2.shape
    if other_shape != x.shape and other_shape != ():
        _check_broadcast(name, x, other_shape)
    # In the engine call's quiet floating-point context: the standard's
    # special values (1/0 = inf) are results, not warnings.
    call(_in_place_kernel(a1, name), a1, a2, a1)
    return x


# (engine array type, function name) -> the kernel that writes the function's
# result into its third argument.
_IN_PLACE: dict[tuple[type, str], Any] = {}


def _in_place_kernel(a: Any, name: str) -> Any:
    """The kernel ``kernel(x1, x2, out)`` that writes ``name(x1, x2)`` into
    ``out`` (and returns it), for engine arrays like ``a``: the engine's
    own where its namespace has one (``_dlarray_in_place``, a NumPy engine
    fix that writes a ufunc's result straight into ``out``), else the
    standard's: compute, then ``out[...] = result``."""
    key = (type(a), name)
    try:
        return _IN_PLACE[key]
    except KeyError:
        pass
    xp = namespace_of(a)
    make = hook(xp, "_dlarray_in_place") or _computed_then_written
    kernel = _IN_PLACE[key] = make(getattr(xp, name))
    return kernel


def _computed_then_written(function: Any) -> Any:
    def kernel(x1: Any, x2: Any, out: Any) -> Any:
        write(out, Ellipsis, function(x1, x2))
        return out

    return kernel


def _check_broadcast(name: str, x: ArrayBase, other_shape: tuple[int, ...]) -> None:
    shape = broadcast_result(f"in-place {name}", x.shape, other_shape)
    if shape != x.shape:
        raise _shape_change(name, x, shape)


def _assign(name: str, x: ArrayBase, result: ArrayBase) -> ArrayBase:
    if result.dtype is not x.dtype:
        raise _dtype_change(name, x, result.dtype)
    if result.shape != x.shape:
        raise _shape_change(name, x, result.shape)
    write(engine_view(x), Ellipsis, engine_view(result))  # the standard's __setitem__
    return x


def _dtype_change(name: str, x: ArrayBase, dtype: DType) -> TypeError:
    return TypeError(
        f"in-place {name}: the result has dtype {dtype.name}, but x is {x.dtype.name} and "
        f"an in-place operation cannot change it; use x = dlarray.{name}(x, other) instead"
    )


def _shape_change(name: str, x: ArrayBase, shape: tuple[int, ...]) -> ValueError:
    return ValueError(
        f"in-place {name}: the result has shape {shape}, but x has shape {x.shape}; an "
        f"in-place operation cannot broadcast x (x cannot be broadcast to {shape} in its own "
        f"memory): write x = dlarray.{name}(x, other)"
    )


def _to_scalar(x: ArrayBase, method: str, category: str) -> Any:
    """What ``bool(x)``, ``int(x)``... convert: the 0-d engine array itself
    (the standard's ``__bool__``, ``__int__``... convert it, on any engine,
    without NumPy's ``item()``), or the Python float an extended floating
    array holds.

    Arrays with other than zero axes raise ``TypeError``, as do dtypes the
    conversion does not accept (``int()`` of a complex array, ``__index__``
    of a float array).
    """
    if x.ndim != 0:
        raise TypeError(
            f"{method}: only a 0-d array converts to a Python scalar; this one has shape {x.shape}"
        )
    dtype = x.dtype
    if dtype not in _CONVERSION_CATEGORY[category]:
        raise TypeError(f"{method}: needs a {category} array, got dtype {dtype.name}")
    if dtype in _EXTENDED:
        return _extended_value(x)
    return engine_view(x)


def _extended_value(x: ArrayBase) -> float:
    """The number a 0-d extended floating array holds, decoded from its
    storage bits by dlarray's own table of the formats (no ml_dtypes, and
    the same on every engine)."""
    code = int(engine_view(_storage_codes(x)))
    return float_formats.decode(code, x.dtype)


# The Python type of the numbers of each dtype kind.
_PYTHON_TYPES: dict[str, Any] = {
    "bool": bool,
    "signed integer": int,
    "unsigned integer": int,
    "real floating": float,
    "complex floating": complex,
}


def _python_value(x: ArrayBase) -> Any:
    """The Python number a 0-d array holds (bool, int, float or complex;
    float for the extended floating formats)."""
    if x.dtype in _EXTENDED:
        return _extended_value(x)
    return _PYTHON_TYPES[x.dtype.kind](engine_view(x))


def _round_to(x: ArrayBase, ndigits: int | None) -> ArrayBase:
    """``round(x)`` and ``round(x, ndigits)`` (see ``DLArray.__round__``)."""
    if ndigits is None:
        return NAMESPACE["round"](x)
    if not isinstance(ndigits, int) or isinstance(ndigits, bool):
        raise TypeError(f"round(x, ndigits): ndigits must be an int, got {ndigits!r}")
    if not isinstance(x, ArrayBase):
        raise TypeError(f"round: expected a dlarray array, got {type(x).__name__}")
    check_dtype(x.dtype, "numeric", "round")
    a = engine_view(x)
    xp = namespace_of(a)
    if x.dtype in _INTEGER:
        if ndigits >= 0:  # integers have no decimals to round
            return wrap(xp.asarray(a, copy=True))
        return wrap(_round_integers(xp, a, _INT_MAX[x.dtype], 10**-ndigits))
    if x.dtype in _REAL_FLOATING:
        # In the engine call's quiet context: a scaled value may overflow.
        return call(_round_floats, xp, a, ndigits)
    # Complex: each part rounds on its own in real arithmetic, as NumPy's
    # round does, through views of the numbers as (real, imaginary) pairs.
    # (A complex division by the scale multiplies by its reciprocal, an ulp
    # off, and a complex product makes an infinite part's partner NaN.)
    parts = call(_round_floats, xp, engine_view(_as_pairs(x)), ndigits)
    out = empty(x.shape, dtype=x.dtype, device=x.device)
    write(engine_view(_as_pairs(out)), Ellipsis, engine_view(parts))
    return out


def _as_pairs(x: ArrayBase) -> ArrayBase:
    """A complex array's memory viewed as real numbers with one more axis,
    of length 2: each number's real and imaginary parts."""
    strides = (*(2 * s for s in x._strides), 1)
    flags = _core.ARRAY_READONLY if x._readonly else 0
    real = REAL_OF[x.dtype].dlpack
    return _core.new_array(
        x._owner, x._data, x._byte_offset, (*x.shape, 2), strides, real, x._dl_device, flags
    )


def _round_floats(xp: Any, a: Any, ndigits: int) -> Any:
    """NumPy's rounding of real floats to decimals, in the standard: scale
    by a power of ten, round half to even, scale back."""
    try:
        scale = 10.0 ** abs(ndigits)
    except OverflowError:  # more decimals than a float has: nothing to round
        if ndigits > 0:
            return xp.asarray(a, copy=True)
        return xp.where(xp.isfinite(a), a * 0.0, a)  # every finite value rounds to 0
    if ndigits >= 0:
        return xp.round(a * scale) / scale
    return xp.round(a / scale) * scale


def _round_integers(xp: Any, a: Any, largest: int, p: int) -> Any:
    """Integers rounded to a multiple of ``p`` (a power of ten), half to
    even, exactly: no trip through floats."""
    if p > largest:  # every value is nearer 0 than p, or its multiple does not fit
        return xp.zeros_like(a)
    # a = toward_zero + rest, with rest of a's sign and |rest| < p; no step
    # can overflow (a floor towards -inf could: -128 // 100 * 100 in int8).
    rest = xp.remainder(a, p)  # 0 <= rest < p
    negative = a < 0
    rest = xp.where(negative & (rest != 0), rest - p, rest)
    toward_zero = a - rest
    size = xp.abs(rest)
    odd = xp.remainder(xp.floor_divide(toward_zero, p), 2) != 0
    away = (size > p - size) | ((size == p - size) & odd)
    return xp.where(away, xp.where(negative, toward_zero - p, toward_zero + p), toward_zero)


def _format_with(x: ArrayBase, spec: str) -> str:
    """``format(x, spec)`` (see ``DLArray.__format__``)."""
    if not spec:
        return str(x)
    if x.ndim != 0:
        raise TypeError(
            f"format spec {spec!r} given for an array of shape {x.shape}: only a 0-d array "
            f"formats as a number; format its elements, e.g. f'{{x[0]:{spec}}}'"
        )
    return format(_python_value(x), spec)


# ---- NumPy's conversion protocol ----


def _to_numpy(x: ArrayBase, dtype: Any, copy: bool | None) -> Any:
    """``x.__array__(dtype, copy)``: an ndarray over ``x``'s memory, or a copy.

    NumPy 2's rules: ``copy=None`` copies only when needed (a dtype
    conversion), ``copy=True`` always, ``copy=False`` never (``ValueError``
    when needed).  The ndarray is a new object each call (a view of the
    engine's cached one), so a caller reshaping it in place cannot disturb
    dlarray's own view.
    """
    prepare_host_access(x, "__array__")
    base = _host_ndarray(x)
    if dtype is not None and np.dtype(dtype) != base.dtype:
        if copy is False:
            raise ValueError(
                f"__array__(dtype={np.dtype(dtype)}, copy=False): converting "
                f"{x.dtype.name} to {np.dtype(dtype)} needs a copy, and copy=False forbids one"
            )
        return base.astype(dtype)
    if copy:
        return base.copy()
    return base.view()


def _host_ndarray(x: ArrayBase) -> Any:
    """NumPy's view of memory the host can read (a NumPy view whatever the
    host engine: this is NumPy's protocol).  Pinned, managed and SYCL
    shared/host memory are viewed through a twin of ``x`` labelled as host
    memory: NumPy reads them through the same addresses."""
    if x._dl_device == _HOST:
        return numpy_engine.to_numpy(x)
    return numpy_engine.to_numpy(retag(x, x.dtype, dl_device=_HOST))


_HOST = CPU.dlpack
#: Each namespace function without its C fast path (a ``_core.fast_function``'s
#: ``__wrapped__``), for the operands operators.c's fast path already missed.
_GENERAL = {name: getattr(f, "__wrapped__", f) for name, f in NAMESPACE.items()}


# ---- copying and pickling ----


# The pickle's format version: unpickle reads every version it was given.
_PICKLE_VERSION = 1


def _reduce(x: ArrayBase, protocol: int) -> tuple[Any, ...]:
    """``x.__reduce_ex__(protocol)``: rebuild with :func:`unpickle` from the
    elements' bits, C-ordered, and where the array lived.

    The bits are those NumPy holds without ml_dtypes: the dtype's own for
    the standard's dtypes, unsigned integers of the same width for bfloat16
    and fp8, one byte per element for fp6/fp4 (with whether the array was
    padded), so every dtype pickles with NumPy alone.
    """
    host = x if x._dl_device == _HOST else copy_to_device(x, CPU)
    bits = numpy_engine.to_numpy(_storage_codes(host))
    if not bits.flags.c_contiguous:
        bits = bits.copy()
    payload = pickle.PickleBuffer(bits) if protocol >= 5 else bits.tobytes()
    device = x.device
    state = (x.dtype.name, x.shape, x._padded, device.kind, device.index, payload)
    return (unpickle, (_PICKLE_VERSION, *state))


def unpickle(
    version: int,
    dtype_name: str,
    shape: tuple[int, ...],
    padded: bool,
    kind: str,
    index: int,
    payload: Any,
) -> ArrayBase:
    """Rebuild a pickled array (the inverse of :func:`reduce`), on the
    memory kind and index it was pickled from.

    Every field is checked before any memory is touched, so that a damaged
    or crafted pickle raises ``TypeError`` (a field of the wrong type) or
    ``ValueError`` (a wrong value) naming the field, never makes an array
    of another shape than it says, nor reads past its bytes."""
    if type(version) is not int:
        raise _pickle_field_error(TypeError, "format version", version, "an int")
    if version != _PICKLE_VERSION:
        raise ValueError(
            f"this pickle holds a dlarray array in format {version}; this dlarray reads "
            f"format {_PICKLE_VERSION}: unpickle it with the dlarray release that wrote it"
        )
    try:
        dtype = dtype_named(dtype_name)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"pickle.loads: the array's dtype: {exc}") from None
    shape = _pickled_shape(shape)
    if type(padded) is not bool:
        raise _pickle_field_error(TypeError, "padded flag", padded, "True or False")
    try:
        device = Device(kind, index)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"pickle.loads: the array's device: {exc}") from None
    try:
        data = memoryview(payload)
    except TypeError:
        raise _pickle_field_error(TypeError, "data", payload, "a bytes-like object") from None
    # One byte per element for fp6/fp4 (their codes), the dtype's bytes otherwise.
    expected = math.prod(shape) * (1 if dtype.is_subbyte else dtype.itemsize)
    if data.nbytes != expected or not data.c_contiguous:
        raise ValueError(
            f"pickle.loads: the array's data holds {data.nbytes} bytes"
            f"{'' if data.c_contiguous else ', not contiguous'}, but {expected} contiguous "
            f"bytes are needed for shape {shape} of {dtype.name}; the pickle is damaged"
        )
    if dtype.kind == "bool" and expected and int(np.frombuffer(data, np.uint8).max()) > 1:
        raise ValueError(
            "pickle.loads: the array's data holds bytes other than 0 and 1 for bool "
            "elements; the pickle is damaged or was not written by dlarray"
        )
    if dtype.is_subbyte:
        codes = np.frombuffer(payload, dtype=np.uint8).reshape(shape)
        out = subbyte.from_codes(codes, dtype, padded=padded)
    elif dtype.kind != "extended floating" and not memoryview(payload).readonly:
        # Protocol 5's out-of-band buffer, writable (what dask.distributed
        # hands over after receiving the frame): adopted, not copied.
        out = from_dlpack(np.frombuffer(payload, dtype=dtype.dtype).reshape(shape))
    else:
        out = empty(shape, dtype=dtype)
        target = numpy_engine.to_numpy(_storage_codes(out))
        target[...] = np.frombuffer(payload, dtype=target.dtype).reshape(shape)
    if device.kind == CPU.kind:
        return out
    try:
        return copy_to_device(out, device)
    except BufferError as exc:  # CUDA or SYCL missing: the message says what to install
        raise type(exc)(
            f"pickle.loads: this array was pickled from {device}, and dlarray restores it "
            f"onto the same memory kind, which it cannot reach here: {exc}"
        ) from exc


def _pickle_field_error(kind: type[Exception], field: str, value: Any, wanted: str) -> Exception:
    return kind(
        f"pickle.loads: the array's {field} must be {wanted}, got {type(value).__name__} "
        f"{value!r:.60}; the pickle is damaged or was not written by dlarray"
    )


def _pickled_shape(shape: Any) -> tuple[int, ...]:
    """A pickle's shape, checked: a tuple of at most MAX_NDIM ints, none
    negative."""
    if type(shape) is not tuple or not all(type(n) is int for n in shape):
        raise _pickle_field_error(TypeError, "shape", shape, "a tuple of ints")
    if any(n < 0 for n in shape):
        raise ValueError(
            f"pickle.loads: the array's shape {shape} has a negative extent; the pickle is "
            f"damaged or was not written by dlarray"
        )
    if len(shape) > _core.MAX_NDIM:
        raise ValueError(
            f"pickle.loads: the array's shape {shape} has {len(shape)} axes, more than the "
            f"{_core.MAX_NDIM} an array may have"
        )
    return shape


# Pickles name the function that rebuilds an array; they outlive releases,
# so that name is a stable one (dlarray._unpickle, re-exported by
# dlarray/__init__.py) rather than this module's place in the package.
unpickle.__module__ = "dlarray"
unpickle.__qualname__ = unpickle.__name__ = "_unpickle"


class DLArray(_core.ArrayBase):
    """An N-dimensional array whose memory can be shared through DLPack.

    Attributes
    ----------
    shape : tuple of int
    ndim : int
    dtype : DType
    device : Device
    size : int
    nbytes : int
        The bytes the elements take (not in the Array API; NumPy's, CuPy's
        and PyTorch's attribute).
    readonly : bool
        True when the memory must not be written (for example it came from a
        producer that marked it ``READ_ONLY``).

    Raises
    ------
    TypeError
        ``DLArray()``: arrays are made by the library only (:func:`asarray`,
        :func:`empty`, :func:`zeros`, :func:`from_dlpack`, views).

    Notes
    -----
    The array's Python protocols raise by the namespace's rules
    (:ref:`namespace-errors`):

    - **indexing** ``x[key]``: ``IndexError`` for an index out of bounds or
      an index array that is neither integer nor bool, ``TypeError`` for a
      key that is not an int, slice, ``...``, ``None`` or array;
    - **assignment** ``x[key] = value``: as indexing, plus ``ValueError`` when
      ``x`` is read-only or ``value`` does not broadcast to the selection, and
      ``TypeError`` when ``value``'s dtype or scalar kind does not fit
      ``x``'s;
    - **conversions** ``bool(x)``, ``int(x)``, ``float(x)``, ``complex(x)``,
      ``operator.index(x)``: ``TypeError`` unless ``x`` is 0-d, or when the
      dtype does not convert (``float`` of a complex array, ``index`` of a
      float array); ``ValueError`` for ``int`` of NaN, ``OverflowError`` for
      ``int`` of an infinity;
    - **operators**: as the elementwise function of the same name (``x + y``
      as :func:`add`).

    Examples
    --------
    >>> import dlarray, numpy as np
    >>> x = dlarray.asarray([[1, 2, 3], [4, 5, 6]], dtype=dlarray.int32)
    >>> x.shape, x.ndim, x.size
    ((2, 3), 2, 6)
    >>> x.dtype, x.device, x.readonly
    (dlarray.int32, Device('cpu', 0), False)
    >>> x.T  # a view with the axes reversed
    dlarray.asarray([[1, 4], [2, 5], [3, 6]], dtype=dlarray.int32)
    >>> np.from_dlpack(x.T).tolist()
    [[1, 4], [2, 5], [3, 6]]
    """

    __slots__ = ()

    # NumPy's ufuncs and functions called on DLArrays run dlarray's namespace
    # on the arrays' own device where it gives NumPy's answer, NumPy's own
    # otherwise (NEP 13 and 18; dlarray._numpy_dispatch says which).  A NumPy
    # call with another array in it is NumPy's own
    # (_numpy_dispatch.dlarray_runs: ndarray + x is numpy.add, and gives an
    # ndarray); dlarray's own operators (x + ndarray) refuse mixing.
    __array_ufunc__ = array_ufunc
    __array_function__ = array_function

    def __dir__(self) -> list[str]:
        # The names of NumPy habits raise on reading: not attributes to list.
        return [name for name in super().__dir__() if name not in _NUMPY_HABITS]

    # ---- attributes ----
    # ``dtype`` and ``device`` are C getters of ArrayBase (they return the
    # objects of _dtype_objects and _device_of, below): every operation reads
    # them, so they cost one table lookup.

    @property
    def readonly(self) -> bool:
        """True when writes are refused.

        An array imported from a producer that set DLPack's ``READ_ONLY``
        flag is read-only, and so are its views.

        Examples
        --------
        >>> import dlarray, numpy as np
        >>> a = np.arange(3.0)
        >>> a.flags.writeable = False
        >>> x = dlarray.from_dlpack(a)
        >>> x.readonly, dlarray.asarray([1.0]).readonly
        (True, False)
        """
        return self._readonly

    @property
    def nbytes(self) -> int:
        """The bytes the elements take: ``size`` times the element's bytes,
        as NumPy's, CuPy's and PyTorch's ``nbytes`` (not part of the Array
        API).  Packed fp6/fp4 elements share bytes: a packed array takes
        ``ceil(size * bits / 8)``, a padded one a byte per element.  A
        strided view counts its elements, not the memory between them.

        Examples
        --------
        >>> import dlarray
        >>> dlarray.zeros((2, 3), dtype=dlarray.float32).nbytes
        24
        >>> dlarray.zeros(3, dtype=dlarray.float4_e2m1fn).nbytes  # 12 bits, packed
        2
        >>> dlarray.zeros(3, dtype=dlarray.float4_e2m1fn, padded=True).nbytes
        3
        """
        dtype = self.dtype
        if dtype.is_subbyte and not self._padded:
            return -(-self.size * dtype.bits // 8)
        return self.size * dtype.itemsize

    # ``T`` and ``x[key]`` for basic keys are C (subscript.c), which hands
    # every other key to _getitem_general below.

    @property
    def mT(self) -> DLArray:
        """The array with its last two axes swapped (a view); needs ``ndim >= 2``.

        Examples
        --------
        >>> import dlarray
        >>> dlarray.asarray([[1, 2, 3]]).mT
        dlarray.asarray([[1], [2], [3]], dtype=dlarray.int64)
        >>> dlarray.zeros((5, 2, 3)).mT.shape  # a stack of five 3x2 matrices
        (5, 3, 2)
        """
        if self.ndim < 2:
            raise ValueError(f"mT needs an array with at least 2 axes, this one has {self.ndim}")
        axes = (*range(self.ndim - 2), self.ndim - 1, self.ndim - 2)
        return permute_dims(self, axes)

    # ---- indexing ----

    def __iter__(self) -> Any:
        """Iterate over the first axis (as for Python sequences).

        Each item is ``self[i]``: a view with one axis fewer, sharing this
        array's memory.  A 0-d array has no first axis and raises
        ``TypeError`` at once.

        Raises
        ------
        TypeError
            For a 0-d array, which has no first axis.

        Examples
        --------
        >>> import dlarray
        >>> x = dlarray.asarray([[1, 2], [3, 4]])
        >>> for row in x:
        ...     print(row)
        [1 2]
        [3 4]
        >>> [int(v) for v in x[1]]
        [3, 4]
        >>> first = next(iter(x))
        >>> first[0] = 10  # writes through to x
        >>> int(x[0, 0])
        10
        >>> iter(dlarray.asarray(5))
        Traceback (most recent call last):
            ...
        TypeError: iteration over a 0-d array
        """
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __len__(self) -> int:
        """The length of the first axis, as for Python sequences.

        A 0-d array has no first axis: ``TypeError``, as ``len()`` of a
        NumPy 0-d array.

        Raises
        ------
        TypeError
            For a 0-d array.

        Examples
        --------
        >>> import dlarray
        >>> len(dlarray.zeros((4, 2))), len(dlarray.zeros((0, 3)))
        (4, 0)
        >>> len(dlarray.asarray(1.0))
        Traceback (most recent call last):
            ...
        TypeError: len() of a 0-d array
        """
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def _getitem_general(self, key: Any, /) -> DLArray:
        # subscript.c hands every key but the basic ones here.
        return cast(DLArray, getitem(self, key))

    def __setitem__(self, key: Any, value: Any, /) -> None:
        setitem(self, key, value)

    # ---- the Array API ----

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The namespace with this array's functions: the ``dlarray`` module.

        ``api_version`` may name any revision of the standard from 2021.12
        to 2025.12 (``ValueError`` otherwise).

        Raises
        ------
        ValueError
            If ``api_version`` is not a revision of the standard from 2021.12 to
            2025.12 (a value of any other type included).

        Examples
        --------
        >>> import dlarray
        >>> x = dlarray.asarray([1.0, 2.0])
        >>> xp = x.__array_namespace__()
        >>> xp is dlarray
        True
        >>> xp.sum(x)
        dlarray.asarray(3.0, dtype=dlarray.float64)
        """
        if api_version is not None and api_version not in _SUPPORTED_API_VERSIONS:
            raise ValueError(
                f"__array_namespace__(api_version={api_version!r}): dlarray implements "
                f"the Array API versions {', '.join(_SUPPORTED_API_VERSIONS)}"
            )
        return _PACKAGE

    def to_device(self, device: Any, /, *, stream: Any = None) -> DLArray:
        """This array on ``device``: itself if already there, else a copy.

        ``device`` is a :class:`~dlarray.Device`, a kind name such as
        ``"cuda"``, or a DLPack ``(device_type, device_id)`` pair.

        Raises
        ------
        TypeError
            If ``device`` is not a Device, a kind name or a ``(device_type,
            device_id)`` pair.
        ValueError
            If ``device`` names an unknown kind, or ``stream`` is given for a
            device without streams (only ``None`` on the host).
        BufferError
            If dlarray cannot allocate memory on ``device`` or copy there.
            :class:`dlarray.CUDAUnavailableError` and
            :class:`dlarray.SYCLUnavailableError` (also ``ValueError``) when it is
            memory this process cannot reach.

        Examples
        --------
        >>> import dlarray
        >>> x = dlarray.asarray([1.0, 2.0])
        >>> x.to_device("cpu") is x
        True
        >>> x.to_device((1, 0)) is x
        True
        """
        return cast(DLArray, to_device(self, device, stream=stream))

    # The binary operators and comparisons are ArrayBase's, in C
    # (operators.c): the common case computes there, and the rest calls
    # _operator, which applies the namespace function of the same meaning.
    # Operands that are neither arrays nor Python scalars get NotImplemented,
    # so Python can try the other operand.
    __hash__ = None  # type: ignore[assignment]  # == is elementwise

    def _operator(self, name: str, other: Any, reflected: bool, /) -> Any:
        """``self OP other`` (``other OP self`` when ``reflected``), where
        ``name`` is the namespace function OP means ("add" for +): what
        operators.c calls when its fast path does not apply."""
        if type(other) is not DLArray and type(other) not in SCALAR_TYPES:
            other = _operand(other, name != "matmul", SYMBOLS[name])
            if other is NotImplemented:
                return NotImplemented
            function = NAMESPACE[name]  # new operands: the fast path may take them
        elif name == "matmul" and type(other) is not DLArray:
            return NotImplemented  # @ takes no Python scalars
        else:
            function = _GENERAL[name]  # operators.c's fast path missed these operands
        return function(other, self) if reflected else function(self, other)

    if TYPE_CHECKING:  # the C slots' types, for type checkers

        def __add__(self, other: DLArray | complex, /) -> DLArray: ...
        def __sub__(self, other: DLArray | complex, /) -> DLArray: ...
        def __mul__(self, other: DLArray | complex, /) -> DLArray: ...
        def __truediv__(self, other: DLArray | complex, /) -> DLArray: ...
        def __floordiv__(self, other: DLArray | float, /) -> DLArray: ...
        def __mod__(self, other: DLArray | float, /) -> DLArray: ...
        def __pow__(self, other: DLArray | complex, /) -> DLArray: ...
        def __and__(self, other: DLArray | int, /) -> DLArray: ...
        def __or__(self, other: DLArray | int, /) -> DLArray: ...
        def __xor__(self, other: DLArray | int, /) -> DLArray: ...
        def __lshift__(self, other: DLArray | int, /) -> DLArray: ...
        def __rshift__(self, other: DLArray | int, /) -> DLArray: ...
        def __matmul__(self, other: DLArray, /) -> DLArray: ...
        def __radd__(self, other: complex, /) -> DLArray: ...
        def __rsub__(self, other: complex, /) -> DLArray: ...
        def __rmul__(self, other: complex, /) -> DLArray: ...
        def __rtruediv__(self, other: complex, /) -> DLArray: ...
        def __rfloordiv__(self, other: float, /) -> DLArray: ...
        def __rmod__(self, other: float, /) -> DLArray: ...
        def __rpow__(self, other: complex, /) -> DLArray: ...
        def __rand__(self, other: int, /) -> DLArray: ...
        def __ror__(self, other: int, /) -> DLArray: ...
        def __rxor__(self, other: int, /) -> DLArray: ...
        def __rlshift__(self, other: int, /) -> DLArray: ...
        def __rrshift__(self, other: int, /) -> DLArray: ...
        def __rmatmul__(self, other: DLArray, /) -> DLArray: ...
        def __lt__(self, other: DLArray | float, /) -> DLArray: ...
        def __le__(self, other: DLArray | float, /) -> DLArray: ...
        def __gt__(self, other: DLArray | float, /) -> DLArray: ...
        def __ge__(self, other: DLArray | float, /) -> DLArray: ...
        def __eq__(self, other: object, /) -> DLArray: ...  # type: ignore[override]
        def __ne__(self, other: object, /) -> DLArray: ...  # type: ignore[override]

    # ``x OP= other``: the result of OP written into x (see _in_place).
    def __iadd__(self, other: DLArray | complex, /) -> DLArray:
        return self._in_place("add", other)

    def __isub__(self, other: DLArray | complex, /) -> DLArray:
        return self._in_place("subtract", other)

    def __imul__(self, other: DLArray | complex, /) -> DLArray:
        return self._in_place("multiply", other)

    def __itruediv__(self, other: DLArray | complex, /) -> DLArray:
        return self._in_place("divide", other)

    def __ifloordiv__(self, other: DLArray | float, /) -> DLArray:
        return self._in_place("floor_divide", other)

    def __imod__(self, other: DLArray | float, /) -> DLArray:
        return self._in_place("remainder", other)

    def __ipow__(self, other: DLArray | complex, /) -> DLArray:
        return self._in_place("pow", other)

    def __iand__(self, other: DLArray | int, /) -> DLArray:
        return self._in_place("bitwise_and", other)

    def __ior__(self, other: DLArray | int, /) -> DLArray:
        return self._in_place("bitwise_or", other)

    def __ixor__(self, other: DLArray | int, /) -> DLArray:
        return self._in_place("bitwise_xor", other)

    def __ilshift__(self, other: DLArray | int, /) -> DLArray:
        return self._in_place("bitwise_left_shift", other)

    def __irshift__(self, other: DLArray | int, /) -> DLArray:
        return self._in_place("bitwise_right_shift", other)

    def __imatmul__(self, other: DLArray, /) -> DLArray:
        return self._in_place("matmul", other)

    def _in_place(self, name: str, other: Any) -> DLArray:
        scalars = name != "matmul"
        if type(other) is not DLArray and (not scalars or type(other) not in SCALAR_TYPES):
            other = _operand(other, scalars, SYMBOLS[name] + "=")
            if other is NotImplemented:
                return NotImplemented
        _in_place(name, self, other)
        return self

    def __neg__(self, /) -> DLArray:
        return cast(DLArray, NAMESPACE["negative"](self))

    def __pos__(self, /) -> DLArray:
        return cast(DLArray, NAMESPACE["positive"](self))

    def __abs__(self, /) -> DLArray:
        return cast(DLArray, NAMESPACE["abs"](self))

    def __invert__(self, /) -> DLArray:
        return cast(DLArray, NAMESPACE["bitwise_invert"](self))

    # ---- conversion of 0-d arrays to Python scalars ----
    # _to_scalar checks the array and gives back its 0-d engine array (or an
    # extended float's value), which bool(), int(), float() and complex()
    # convert through the engine's own standard conversions.

    def __bool__(self, /) -> bool:
        return bool(_to_scalar(self, "__bool__", "all"))

    def __int__(self, /) -> int:
        return int(_to_scalar(self, "__int__", "real-valued or bool"))

    def __index__(self, /) -> int:
        return int(_to_scalar(self, "__index__", "integer"))

    def __float__(self, /) -> float:
        return float(_to_scalar(self, "__float__", "real-valued or bool"))

    def __complex__(self, /) -> complex:
        return complex(_to_scalar(self, "__complex__", "all"))

    def __round__(self, ndigits: int | None = None) -> DLArray:
        """``round(x)`` and ``round(x, ndigits)``: a new array of ``x``'s dtype.

        Without ``ndigits`` this is the namespace's ``round`` (half to even);
        with it, values are rounded to ``ndigits`` decimals as NumPy's
        ``round`` does (negative ``ndigits`` round to tens, hundreds...).
        Like ``round()`` of a NumPy array, the result is an array, also for
        a 0-d array: ``float(round(x, 2))`` gives the Python number.

        Raises
        ------
        TypeError
            If ``ndigits`` is not an int or None, or the dtype is not numeric
            (as :func:`dlarray.round`).

        Examples
        --------
        >>> import dlarray
        >>> round(dlarray.asarray([0.5, 1.5, 2.675]))
        dlarray.asarray([0.0, 2.0, 3.0], dtype=dlarray.float64)
        >>> round(dlarray.asarray([3.14159, 2.71828]), 2)
        dlarray.asarray([3.14, 2.72], dtype=dlarray.float64)
        >>> round(dlarray.asarray([1234, 1250]), -2)
        dlarray.asarray([1200, 1200], dtype=dlarray.int64)
        """
        return cast(DLArray, _round_to(self, ndigits))

    # ---- conversions and display ----

    def __repr__(self) -> str:
        return repr_of(self)

    def __str__(self) -> str:
        return str_of(self)

    def __format__(self, format_spec: str, /) -> str:
        """``format(x, spec)`` and f-strings: a 0-d array formats as the
        Python scalar it holds; an empty ``spec`` gives ``str(x)``.

        Raises
        ------
        TypeError
            If ``spec`` is not empty and the array is not 0-d.
        ValueError
            If ``spec`` does not suit the Python scalar (``'d'`` for a float).

        Examples
        --------
        >>> import dlarray
        >>> x = dlarray.asarray([3.14159, 2.5])
        >>> f"{x[0]:.2f} and {x[1]:>6}"
        '3.14 and    2.5'
        >>> f"{dlarray.asarray(255):#x}"
        '0xff'
        """
        return _format_with(self, format_spec)

    # ---- NumPy's conversion protocols, on memory the host can read ----
    # The buffer protocol is C (buffer.c); both refuse device memory with a
    # TypeError that says how to copy it, and never copy it implicitly.

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        """This array as a ``numpy.ndarray``, for ``numpy.asarray(x)``.

        Zero-copy where NumPy allows it (the ndarray shares this array's
        memory and is read-only if it is); ``copy=True`` always copies and
        ``copy=False`` raises ``ValueError`` when a copy would be needed (a
        ``dtype`` conversion), as NumPy 2 specifies.  Memory the host cannot
        read (CUDA device memory, SYCL device USM) raises ``TypeError``
        naming ``x.to_device("cpu")``.

        Raises
        ------
        TypeError
            If the memory is not readable from the host (CUDA device memory,
            SYCL device USM): copy with ``x.to_device("cpu")`` first; or if
            ``dtype`` is not a NumPy dtype.
        ValueError
            If ``copy=False`` and a copy would be needed (a ``dtype`` conversion).

        Examples
        --------
        >>> import dlarray, numpy as np
        >>> x = dlarray.asarray([1.0, 2.0, 3.0])
        >>> a = np.asarray(x)
        >>> a, np.shares_memory(a, np.from_dlpack(x))
        (array([1., 2., 3.]), True)
        >>> np.asarray(x, dtype=np.float32)
        array([1., 2., 3.], dtype=float32)
        >>> x.__array__(dtype=np.float32, copy=False)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        ValueError: __array__(dtype=float32, copy=False): converting float64 to float32 ...
        """
        return _to_numpy(self, dtype, copy)

    def _prepare_host_access(self) -> None:
        """Called by the buffer protocol (buffer.c) for memory other than
        plain host memory: the memory family refuses or waits."""
        prepare_host_access(self, "the buffer protocol (memoryview, bytes, NumPy)")

    # ---- copying and pickling ----

    def __copy__(self) -> DLArray:
        """``copy.copy(x)``: a new array with its own memory of the same kind
        (arrays are mutable, so a copy shares nothing, as NumPy's does).

        Raises
        ------
        BufferError
            If memory of the array's kind cannot be allocated any more (the
            errors of :func:`dlarray.empty`); ``MemoryError`` when the host has
            not the bytes.

        Examples
        --------
        >>> import copy, dlarray
        >>> x = dlarray.asarray([1, 2])
        >>> y = copy.copy(x)
        >>> y[0] = 10
        >>> x
        dlarray.asarray([1, 2], dtype=dlarray.int64)
        """
        return cast(DLArray, copy_to_device(self, self.device))

    def __deepcopy__(self, memo: dict[int, Any], /) -> DLArray:
        """``copy.deepcopy(x)``: as :meth:`__copy__` (the elements are
        numbers, with nothing deeper to copy)."""
        return cast(DLArray, copy_to_device(self, self.device))

    def __reduce_ex__(self, protocol: SupportsIndex, /) -> tuple[Any, ...]:
        """Pickling: the values, dtype, shape and memory kind by value.

        Any dtype pickles, sub-byte ones included.  An array in device
        memory pickles its values (copied to the host) and unpickles onto
        the same memory kind and index; where that kind cannot be reached
        when unpickling, ``pickle.loads`` raises an error naming what is
        missing.  With protocol 5 the host bytes travel out of band
        (``pickle.PickleBuffer``), without a copy into the pickle.

        Examples
        --------
        >>> import pickle, dlarray
        >>> x = dlarray.asarray([[1.5, 2.5]], dtype=dlarray.float32)
        >>> pickle.loads(pickle.dumps(x))
        dlarray.asarray([[1.5, 2.5]], dtype=dlarray.float32)
        """
        return _reduce(self, int(protocol))

    # ---- hooks called by the C core's __dlpack__ ----

    def _dlpack_copy(self, dl_device: tuple[int, int]) -> DLArray:
        """A copy of this array on ``dl_device``, for ``__dlpack__(copy=True)``
        or an export to another device.  Raises ``BufferError`` when dlarray
        cannot reach that device."""
        # A copy on the array's own device keeps its memory kind (the SYCL
        # kinds share one device type).
        if tuple(dl_device) == self._dl_device:
            return cast(DLArray, copy_to_device(self, self.device))
        try:
            target = Device.from_dlpack(dl_device)
        except ValueError as exc:  # a negative id, say
            raise BufferError(f"__dlpack__(dl_device={dl_device}): {exc}") from None
        return cast(DLArray, copy_to_device(self, target))

    def _dlpack_check_stream(self, stream: object) -> None:
        """Validate ``stream`` and order dlarray's work before it, for arrays
        not in plain host memory (the memory family of the array's kind
        does it: see dlarray._storage)."""
        order_export(self, stream)

    # ---- What the C core reads ----
    # _core.register_array_type(DLArray) reads these once (module.c says how
    # each is used); the methods above that C calls by name are _operator,
    # _getitem_general, _dlpack_copy,
    # _dlpack_check_stream and _prepare_host_access.
    _dtype_objects = tuple(DTYPES_BY_NAME.values())  # the dtype table's order
    _cpu_device = CPU
    _device_of = staticmethod(device_of)
    _from_dlpack_general = staticmethod(from_dlpack)  # consumer.c's general path
    _memory = MEMORY  # the memory families, called for memory off the host
    _operator_kernels: ClassVar[dict[str, Any]] = host_fast_path.OPERATOR_KERNELS
    _host_engine = host_fast_path.ENGINE


for _habit in _NUMPY_HABITS:
    _descriptor = _NumPyHabit()
    _descriptor.__set_name__(DLArray, _habit)
    setattr(DLArray, _habit, _descriptor)
del _habit, _descriptor
