"""The array object.

:class:`DLArray` is the Python half of ``_core.ArrayBase``: the C half holds
the memory and layout and speaks DLPack; this half gives them Python names
and routes everything that computes to an engine (:mod:`dlarray._engine`).
Arrays are made only by the library (``asarray``, ``empty``, ``zeros``,
``from_dlpack``, views); calling ``DLArray()`` raises ``TypeError``.
"""

from __future__ import annotations

from typing import Any

import dlarray._core as _core
from dlarray._device import CPU, Device, device_of
from dlarray._dtypes import DTYPES_BY_NAME, DType
from dlarray._views import permute_dims

_SUPPORTED_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
_SCALAR_TYPES = frozenset({bool, int, float, complex})

# The array object sits below the layers that compute, copy and index: it
# reaches them through this one table, which dlarray/__init__.py fills once
# every layer is loaded (and so no module here imports upwards).  Its keys:
#   the namespace functions the operators mean ("add", "negative", ...);
#   "_inplace", "_scalar", "_getitem", "_setitem", "_repr": the array
#   object's rules that need an engine (dlarray._api.array_object,
#   dlarray._api.indexing_object);
#   "_to_device", "_dlpack_copy", "_dlpack_check_stream": moving memory
#   (dlarray._api.creation, dlarray._transfer, the memory families);
#   "_namespace": the dlarray module itself.
DELEGATES: dict[str, Any] = {}
#: name -> (kernel, allowed dtypes) of elementwise functions, so that an
#: operator can try the C fast path itself (filled with DELEGATES).
ELEMENTWISE_KERNELS: dict[str, tuple[Any, frozenset[Any]]] = {}
_fast_binary = _core.engine_binary


def _forward(name: str, *, scalars: bool = True) -> Any:
    accepted = _SCALAR_TYPES if scalars else frozenset()

    def method(self: DLArray, other: Any, /) -> Any:
        fast = ELEMENTWISE_KERNELS.get(name)
        if fast is not None:
            result = _fast_binary(fast[0], fast[1], self, other)
            if result is not None:
                return result
        if type(other) is not DLArray and type(other) not in accepted:
            return NotImplemented
        return DELEGATES[name](self, other)

    method.__name__ = f"__{name}__"
    return method


def _reflected(name: str, *, scalars: bool = True) -> Any:
    accepted = _SCALAR_TYPES if scalars else frozenset()

    def method(self: DLArray, other: Any, /) -> Any:
        if type(other) is not DLArray and type(other) not in accepted:
            return NotImplemented
        return DELEGATES[name](other, self)

    return method


def _inplace(name: str, *, scalars: bool = True) -> Any:
    accepted = _SCALAR_TYPES if scalars else frozenset()

    def method(self: DLArray, other: Any, /) -> Any:
        if type(other) is not DLArray and type(other) not in accepted:
            return NotImplemented
        return DELEGATES["_inplace"](name, self, other)

    return method


class DLArray(_core.ArrayBase):
    """An N-dimensional array whose memory can be shared through DLPack.

    Attributes
    ----------
    shape : tuple of int
    ndim : int
    dtype : DType
    device : Device
    size : int
    readonly : bool
        True when the memory must not be written (for example it came from a
        producer that marked it ``READ_ONLY``).

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

    # NumPy must not treat a DLArray as an object to broadcast elementwise
    # (x + ndarray would build an object array of DLArrays): make it defer,
    # so mixing the two raises TypeError.  Convert with dlarray.asarray.
    __array_ufunc__ = None

    # ---- attributes ----
    # ``dtype`` and ``device`` are C getters of ArrayBase (see
    # register_python_types at the end of this module): every operation reads
    # them, so they cost one table lookup.

    @property
    def size(self) -> int:
        """Number of elements: the product of ``shape`` (1 for a 0-d array).

        Examples
        --------
        >>> import dlarray
        >>> dlarray.zeros((2, 3, 4)).size, dlarray.asarray(7.0).size
        (24, 1)
        """
        n = 1
        for extent in self.shape:
            n *= extent
        return n

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

    # ``T`` and ``x[key]`` for basic keys are C (subscript.c); these are the
    # general paths they hand everything else to.

    def _transpose_general(self) -> DLArray:
        return permute_dims(self, tuple(range(self.ndim - 1, -1, -1)))

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

        Examples
        --------
        >>> import dlarray
        >>> x = dlarray.asarray([[1, 2], [3, 4]])
        >>> for row in x:
        ...     print(row)
        dlarray.asarray([1, 2], dtype=dlarray.int64)
        dlarray.asarray([3, 4], dtype=dlarray.int64)
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

    def _getitem_general(self, key: Any, /) -> DLArray:
        return DELEGATES["_getitem"](self, key)

    def __setitem__(self, key: Any, value: Any, /) -> None:
        DELEGATES["_setitem"](self, key, value)

    # ---- the Array API ----

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The namespace with this array's functions: the ``dlarray`` module.

        ``api_version`` may name any revision of the standard from 2021.12
        to 2025.12 (``ValueError`` otherwise).

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
        return DELEGATES["_namespace"]

    def to_device(self, device: Any, /, *, stream: Any = None) -> DLArray:
        """This array on ``device``: itself if already there, else a copy.

        ``device`` is a :class:`~dlarray.Device`, a kind name such as
        ``"cuda"``, or a DLPack ``(device_type, device_id)`` pair.

        Examples
        --------
        >>> import dlarray
        >>> x = dlarray.asarray([1.0, 2.0])
        >>> x.to_device("cpu") is x
        True
        >>> x.to_device((1, 0)) is x
        True
        """
        return DELEGATES["_to_device"](self, device, stream=stream)

    # Operators are the namespace functions of the same meaning, found in
    # DELEGATES.  Operands that are
    # neither arrays nor Python scalars get NotImplemented, so Python can try
    # the other operand's reflected method.
    __add__ = _forward("add")
    __sub__ = _forward("subtract")
    __mul__ = _forward("multiply")
    __truediv__ = _forward("divide")
    __floordiv__ = _forward("floor_divide")
    __mod__ = _forward("remainder")
    __pow__ = _forward("pow")
    __and__ = _forward("bitwise_and")
    __or__ = _forward("bitwise_or")
    __xor__ = _forward("bitwise_xor")
    __lshift__ = _forward("bitwise_left_shift")
    __rshift__ = _forward("bitwise_right_shift")
    __matmul__ = _forward("matmul", scalars=False)
    __lt__ = _forward("less")
    __le__ = _forward("less_equal")
    __gt__ = _forward("greater")
    __ge__ = _forward("greater_equal")
    __eq__ = _forward("equal")
    __ne__ = _forward("not_equal")
    __hash__ = None  # type: ignore[assignment]  # == is elementwise

    __radd__ = _reflected("add")
    __rsub__ = _reflected("subtract")
    __rmul__ = _reflected("multiply")
    __rtruediv__ = _reflected("divide")
    __rfloordiv__ = _reflected("floor_divide")
    __rmod__ = _reflected("remainder")
    __rpow__ = _reflected("pow")
    __rand__ = _reflected("bitwise_and")
    __ror__ = _reflected("bitwise_or")
    __rxor__ = _reflected("bitwise_xor")
    __rlshift__ = _reflected("bitwise_left_shift")
    __rrshift__ = _reflected("bitwise_right_shift")
    __rmatmul__ = _reflected("matmul", scalars=False)

    __iadd__ = _inplace("add")
    __isub__ = _inplace("subtract")
    __imul__ = _inplace("multiply")
    __itruediv__ = _inplace("divide")
    __ifloordiv__ = _inplace("floor_divide")
    __imod__ = _inplace("remainder")
    __ipow__ = _inplace("pow")
    __iand__ = _inplace("bitwise_and")
    __ior__ = _inplace("bitwise_or")
    __ixor__ = _inplace("bitwise_xor")
    __ilshift__ = _inplace("bitwise_left_shift")
    __irshift__ = _inplace("bitwise_right_shift")
    __imatmul__ = _inplace("matmul", scalars=False)

    def __neg__(self, /) -> DLArray:
        return DELEGATES["negative"](self)

    def __pos__(self, /) -> DLArray:
        return DELEGATES["positive"](self)

    def __abs__(self, /) -> DLArray:
        return DELEGATES["abs"](self)

    def __invert__(self, /) -> DLArray:
        return DELEGATES["bitwise_invert"](self)

    # ---- conversion of 0-d arrays to Python scalars ----

    def __bool__(self, /) -> bool:
        return bool(DELEGATES["_scalar"](self, "__bool__", "all"))

    def __int__(self, /) -> int:
        return int(DELEGATES["_scalar"](self, "__int__", "real-valued or bool"))

    def __index__(self, /) -> int:
        return int(DELEGATES["_scalar"](self, "__index__", "integer"))

    def __float__(self, /) -> float:
        return float(DELEGATES["_scalar"](self, "__float__", "real-valued or bool"))

    def __complex__(self, /) -> complex:
        return complex(DELEGATES["_scalar"](self, "__complex__", "all"))

    # ---- conversions and display ----

    def __repr__(self) -> str:
        return DELEGATES["_repr"](self)

    # ---- hooks called by the C core's __dlpack__ ----

    def _dlpack_copy(self, dl_device: tuple[int, int]) -> DLArray:
        """A copy of this array on ``dl_device``, for ``__dlpack__(copy=True)``
        or an export to another device.  Raises ``BufferError`` when dlarray
        cannot reach that device."""
        # A copy on the array's own device keeps its memory kind (the SYCL
        # kinds share one device type).
        if tuple(dl_device) == self._dl_device:
            return DELEGATES["_dlpack_copy"](self, self.device)
        try:
            target = Device.from_dlpack(dl_device)
        except ValueError as exc:  # a negative id, say
            raise BufferError(f"__dlpack__(dl_device={dl_device}): {exc}") from None
        return DELEGATES["_dlpack_copy"](self, target)

    def _dlpack_check_stream(self, stream: object) -> None:
        """Validate ``stream`` and order dlarray's work before it, for arrays
        not in plain host memory (the memory family of the array's kind
        does it: see dlarray._storage)."""
        DELEGATES["_dlpack_check_stream"](self, stream)


_core.register_array_type(DLArray)
_core.register_python_types(tuple(DTYPES_BY_NAME.values()), CPU, device_of)


def retag(x: DLArray, dtype: DType, *, padded: bool | None = None) -> DLArray:
    """A view of ``x``'s memory read as another dtype of the same storage width.

    ``padded`` marks sub-byte elements stored one per byte (default: as ``x``).
    """
    if padded is None:
        padded = x._padded
    return _core.new_array(
        x._owner,
        x._data,
        x._byte_offset,
        x.shape,
        x._strides,
        dtype.dlpack,
        x._dl_device,
        (_core.ARRAY_READONLY if x._readonly else 0) | (_core.ARRAY_PADDED if padded else 0),
    )
