"""The array object.

:class:`DLArray` is the Python half of ``_core.ArrayBase``: the C half holds
the memory and layout and speaks DLPack; this half gives them Python names
and routes everything that computes to an engine (:mod:`dlarray._engine`).
Arrays are made only by the library (``asarray``, ``empty``, ``zeros``,
``from_dlpack``, views); calling ``DLArray()`` raises ``TypeError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, SupportsIndex

import dlarray._core as _core
from dlarray._device import CPU, Device, device_of
from dlarray._dtypes import DTYPES_BY_NAME, SCALAR_TYPES, DType, as_python_scalar
from dlarray._views import permute_dims

_SUPPORTED_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

# The array object sits below the layers that compute, copy and index: it
# reaches them through this one table, which dlarray/__init__.py fills once
# every layer is loaded (and so no module here imports upwards).  Its keys:
#   the namespace functions the operators mean ("add", "negative", ...);
#   "_inplace", "_scalar", "_getitem", "_setitem", "_repr", "_str",
#   "_format", "_round": the array object's rules that need an engine
#   (dlarray._api.array_object, dlarray._api.indexing_object,
#   dlarray._api.printing);
#   "_to_device", "_dlpack_copy", "_dlpack_check_stream", "_copy": moving
#   and copying memory (dlarray._api.creation, dlarray._transfer, the memory
#   families);
#   "_host_access", "_to_numpy": NumPy's conversion protocols on memory the
#   host can read (the memory families, dlarray._api.array_object);
#   "_reduce": pickling (dlarray._api.array_object; pickles are rebuilt
#   by dlarray._unpickle);
#   "_namespace": the dlarray module itself.
DELEGATES: dict[str, Any] = {}


# The operators' symbols, for messages.
_SYMBOLS = {
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "divide": "/",
    "floor_divide": "//",
    "remainder": "%",
    "pow": "**",
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "bitwise_left_shift": "<<",
    "bitwise_right_shift": ">>",
    "matmul": "@",
    "less": "<",
    "less_equal": "<=",
    "greater": ">",
    "greater_equal": ">=",
    "equal": "==",
    "not_equal": "!=",
}


def _mixing_error(other: object, operator: str) -> TypeError:
    """The error for an operator between a DLArray and another library's
    array: the standard leaves mixing out, and a silent conversion could
    copy or move memory, so the message says how to convert instead."""
    library = type(other).__module__.split(".")[0]
    return TypeError(
        f"unsupported operand for {operator}: a dlarray array and a {library} "
        f"{type(other).__name__}; dlarray does not mix another library's arrays into its "
        f"operators.  Convert one side first: dlarray.asarray(other) brings it into "
        f"dlarray (zero-copy through DLPack where it can), or {library}.from_dlpack(x) "
        f"takes the dlarray array into {library}"
    )


def _operand(other: Any, scalars: bool, operator: str) -> Any:
    """``other`` as the other operand of a DLArray's operator: a DLArray, a Python
    scalar (instances of subclasses such as ``numpy.float64`` become the
    Python scalar), or NotImplemented for anything else, so that Python can
    try ``other``'s reflected method.  Another library's array raises the
    mixing error at once."""
    if isinstance(other, DLArray):
        return other
    if scalars:
        scalar = as_python_scalar(other)
        if scalar is not None:
            return scalar
    kind = type(other)
    if hasattr(kind, "__dlpack__") or hasattr(kind, "__array__"):
        raise _mixing_error(other, operator)
    return NotImplemented


def _forward(name: str, *, scalars: bool = True) -> Any:
    """The Python method for ``x OP other`` (``operators.c`` calls it when
    the operands need the standard's rules applied)."""
    accepted = SCALAR_TYPES if scalars else frozenset()

    def method(self: DLArray, other: Any, /) -> Any:
        if type(other) is not DLArray and type(other) not in accepted:
            other = _operand(other, scalars, _SYMBOLS[name])
            if other is NotImplemented:
                return NotImplemented
        return DELEGATES[name](self, other)

    method.__name__ = f"__{name}__"
    return method


def _reflected(name: str, *, scalars: bool = True) -> Any:
    """The Python method for ``other OP x``, ``x`` being the array."""
    accepted = SCALAR_TYPES if scalars else frozenset()

    def method(self: DLArray, other: Any, /) -> Any:
        if type(other) is not DLArray and type(other) not in accepted:
            other = _operand(other, scalars, _SYMBOLS[name])
            if other is NotImplemented:
                return NotImplemented
        return DELEGATES[name](other, self)

    return method


# The operators ArrayBase implements in C (operators.c) and the namespace
# function each means; @ takes no Python scalars.  The comparisons have no
# reflected method: Python reflects them by swapping the comparison.
_BINARY_OPERATORS = (
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "remainder",
    "pow",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "matmul",
)
_COMPARISONS = ("less", "less_equal", "equal", "not_equal", "greater", "greater_equal")


def operator_table(kernels: dict[str, tuple[Any, frozenset[Any]]]) -> dict[str, tuple[Any, ...]]:
    """The table ``_core.register_operators`` takes: for each operator, its
    function's C fast path (``kernels``: name -> (kernel, allowed dtypes),
    from dlarray._api.elementwise) and its Python methods."""
    table: dict[str, tuple[Any, ...]] = {}
    for name in _BINARY_OPERATORS + _COMPARISONS:
        scalars = name != "matmul"
        kernel, allowed = kernels.get(name, (None, None))
        reflected = _reflected(name, scalars=scalars) if name in _BINARY_OPERATORS else None
        table[name] = (kernel, allowed, scalars, _forward(name, scalars=scalars), reflected)
    return table


def _inplace(name: str, *, scalars: bool = True) -> Any:
    accepted = SCALAR_TYPES if scalars else frozenset()

    def method(self: DLArray, other: Any, /) -> Any:
        if type(other) is not DLArray and type(other) not in accepted:
            other = _operand(other, scalars, _SYMBOLS[name] + "=")
            if other is NotImplemented:
                return NotImplemented
        return DELEGATES["_inplace"](name, self, other)

    return method


# NumPy's and PyTorch's array methods that the Array API spells another way
# (mostly as namespace functions): reading one on a DLArray raises the usual
# AttributeError, saying how dlarray writes it.  ``hasattr`` stays False.
_NUMPY_HABITS: dict[str, str] = {
    **{name: f"dlarray.{name}(x)" for name in (
        "sum", "prod", "mean", "std", "var", "max", "min", "argmax", "argmin", "all",
        "any", "nonzero", "sort", "argsort", "conj", "round", "real", "imag")},
    "cumsum": "dlarray.cumulative_sum(x)",
    "cumprod": "dlarray.cumulative_prod(x)",
    "reshape": "dlarray.reshape(x, shape)",
    "flatten": "dlarray.reshape(x, (-1,))",
    "ravel": "dlarray.reshape(x, (-1,))",
    "view": "dlarray.reshape(x, shape) (views share memory)",
    "squeeze": "dlarray.squeeze(x, axis)",
    "transpose": "dlarray.permute_dims(x, axes), or x.T / x.mT",
    "swapaxes": "dlarray.permute_dims(x, axes)",
    "astype": "dlarray.astype(x, dtype)",
    "copy": "dlarray.asarray(x, copy=True)",
    "clip": "dlarray.clip(x, min, max)",
    "dot": "dlarray.matmul(x, y), or x @ y",
    "repeat": "dlarray.repeat(x, repeats)",
    "take": "dlarray.take(x, indices, axis=...)",
    "diagonal": "dlarray.linalg.diagonal(x)",
    "trace": "dlarray.linalg.trace(x)",
    "fill": "x[...] = value",
    "item": "float(x), int(x) or bool(x) of a 0-d array",
    "tolist": "np.from_dlpack(x).tolist() (memory the host can read)",
    "numpy": "np.from_dlpack(x) (zero-copy; memory the host can read)",
    "cpu": 'x.to_device("cpu")',
    "cuda": 'x.to_device("cuda")',
}  # fmt: skip


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

    # NumPy must not treat a DLArray as an object to broadcast elementwise
    # (x + ndarray would build an object array of DLArrays): make it defer,
    # so mixing the two raises TypeError.  Convert with dlarray.asarray.
    __array_ufunc__ = None

    def __dir__(self) -> list[str]:
        # The names of NumPy habits raise on reading: not attributes to list.
        return [name for name in super().__dir__() if name not in _NUMPY_HABITS]

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
        return DELEGATES["_getitem"](self, key)

    def __setitem__(self, key: Any, value: Any, /) -> None:
        DELEGATES["_setitem"](self, key, value)

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
        return DELEGATES["_namespace"]

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
        return DELEGATES["_to_device"](self, device, stream=stream)

    # The binary operators and comparisons are ArrayBase's, in C
    # (operators.c): the common case computes there, and the rest calls the
    # namespace function of the same meaning through the Python methods of
    # operator_table above.  Operands that are neither arrays nor Python
    # scalars get NotImplemented, so Python can try the other operand.
    __hash__ = None  # type: ignore[assignment]  # == is elementwise

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
    # "_scalar" checks the array and gives back its 0-d engine array (or an
    # extended float's value), which bool(), int(), float() and complex()
    # convert through the engine's own standard conversions.

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
        return DELEGATES["_round"](self, ndigits)

    # ---- conversions and display ----

    def __repr__(self) -> str:
        return DELEGATES["_repr"](self)

    def __str__(self) -> str:
        return DELEGATES["_str"](self)

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
        return DELEGATES["_format"](self, format_spec)

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
        return DELEGATES["_to_numpy"](self, dtype, copy)

    def _prepare_host_access(self) -> None:
        """Called by the buffer protocol (buffer.c) for memory other than
        plain host memory: the memory family refuses or waits."""
        DELEGATES["_host_access"](self, "the buffer protocol (memoryview, bytes, NumPy)")

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
        return DELEGATES["_copy"](self)

    def __deepcopy__(self, memo: dict[int, Any], /) -> DLArray:
        """``copy.deepcopy(x)``: as :meth:`__copy__` (the elements are
        numbers, with nothing deeper to copy)."""
        return DELEGATES["_copy"](self)

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
        return DELEGATES["_reduce"](self, int(protocol))

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


for _habit in _NUMPY_HABITS:
    _descriptor = _NumPyHabit()
    _descriptor.__set_name__(DLArray, _habit)
    setattr(DLArray, _habit, _descriptor)
del _habit, _descriptor

_core.register_array_type(DLArray)
_core.register_python_types(tuple(DTYPES_BY_NAME.values()), CPU, device_of)


def retag(
    x: DLArray,
    dtype: DType,
    *,
    padded: bool | None = None,
    dl_device: tuple[int, int] | None = None,
) -> DLArray:
    """A view of ``x``'s memory labelled differently: read as another dtype
    of the same storage width, or as memory of another DLPack device (the
    same addresses, e.g. managed memory labelled as host memory for NumPy).

    ``padded`` marks sub-byte elements stored one per byte (default: as
    ``x``); ``dl_device`` defaults to ``x``'s.
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
        x._dl_device if dl_device is None else dl_device,
        (_core.ARRAY_READONLY if x._readonly else 0) | (_core.ARRAY_PADDED if padded else 0),
    )
