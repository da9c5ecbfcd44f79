"""Element types, built from the C core's single dtype table.

Every dtype dlarray knows is one row of ``dtype_table.c``: its name, DLPack
type code and bit width.  This module turns each row into a :class:`DType`
object and indexes them both ways, so the mapping ``(code, bits, lanes) <->
dtype`` exists once and no code ladders over type codes.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

import dlarray._core as _core


class DType:
    """An element type.

    Parameters are not passed by users: every dtype is a module constant such
    as ``dlarray.float32`` or ``dlarray.float4_e2m1fn``.

    Attributes
    ----------
    name : str
        The dtype's name, e.g. ``"bfloat16"``.
    code, bits, lanes : int
        The DLPack ``DLDataType`` fields (``lanes`` is always 1).
    kind : str
        ``"bool"``, ``"signed integer"``, ``"unsigned integer"``,
        ``"real floating"``, ``"complex floating"``, or ``"extended floating"``
        for bfloat16 and the fp8/fp6/fp4 formats, which the Array API does
        not define.

    Raises
    ------
    TypeError
        ``DType(...)`` without all of its fields.  The constructor is not for
        users: every dtype is a module constant.

    Examples
    --------
    >>> import dlarray
    >>> dt = dlarray.float32
    >>> dt.name, dt.code, dt.bits, dt.lanes, dt.kind
    ('float32', 2, 32, 1, 'real floating')
    >>> dlarray.bfloat16.kind
    'extended floating'
    >>> dlarray.float4_e2m1fn.is_subbyte
    True
    """

    __slots__ = ("bits", "code", "kind", "lanes", "name")

    name: str
    code: int
    bits: int
    lanes: int
    kind: str

    def __init__(self, name: str, code: int, bits: int, kind: str) -> None:
        self.name = name
        self.code = code
        self.bits = bits
        self.lanes = 1
        self.kind = kind

    @property
    def is_subbyte(self) -> bool:
        """True for types narrower than a byte (fp6, fp4).

        Examples
        --------
        >>> import dlarray
        >>> dlarray.float6_e3m2fn.is_subbyte, dlarray.float8_e4m3fn.is_subbyte
        (True, False)
        """
        return self.bits < 8

    @property
    def itemsize(self) -> int:
        """Bytes per element; sub-byte types report 1 (their padded size).

        Examples
        --------
        >>> import dlarray
        >>> dlarray.complex64.itemsize, dlarray.bool.itemsize, dlarray.float4_e2m1fn.itemsize
        (8, 1, 1)
        """
        return max(1, self.bits // 8)

    @property
    def dlpack(self) -> tuple[int, int, int]:
        """The ``(code, bits, lanes)`` triple of DLPack's ``DLDataType``.

        Examples
        --------
        >>> import dlarray
        >>> dlarray.int16.dlpack, dlarray.bfloat16.dlpack
        ((0, 16, 1), (4, 16, 1))
        """
        return (self.code, self.bits, self.lanes)

    @property
    def dtype(self) -> np.dtype[Any]:
        """NumPy's dtype of the same name: what ``numpy.dtype(d)`` returns.

        NumPy reads a ``dtype`` attribute of an object it is asked to
        interpret as a dtype, so engines that normalise dtypes through NumPy
        (Cubed, Dask) understand dlarray's.  The extended floats resolve
        only once ml_dtypes, which registers them with NumPy, is imported;
        until then this raises ``AttributeError`` (and ``numpy.dtype(d)``
        its own ``TypeError``).

        Examples
        --------
        >>> import dlarray, numpy as np
        >>> np.dtype(dlarray.float64), dlarray.int8.dtype
        (dtype('float64'), dtype('int8'))
        """
        try:
            return np.dtype(self.name)
        except TypeError:
            raise AttributeError(
                f"NumPy knows no {self.name} dtype until ml_dtypes is imported "
                f"(pip install ml_dtypes)"
            ) from None

    def __dlpack_data_type__(self) -> tuple[int, int, int]:
        """``(code, bits, lanes)``: the exchange of dtype objects that
        array-api#972 and dmlc/dlpack#172 propose, which PaddlePaddle's dtypes
        offer and tvm-ffi accepts.  A library that follows it takes
        ``dlarray.float16`` wherever it takes a dtype; dlarray takes such
        objects of other libraries (:func:`dtype_argument`).

        Examples
        --------
        >>> import dlarray
        >>> dlarray.float16.__dlpack_data_type__(), dlarray.bool.__dlpack_data_type__()
        ((2, 16, 1), (6, 8, 1))
        """
        return (self.code, self.bits, self.lanes)

    def __repr__(self) -> str:
        return f"dlarray.{self.name}"

    def __eq__(self, other: object) -> bool:
        """Whether ``other`` means this dtype: the dtype itself, its name, or
        NumPy's dtype of the same name (what every dtype argument accepts,
        :func:`as_dtype`).  ``NotImplemented`` for other objects, which then
        compare unequal (another library's dtype: ``dlarray`` does not take
        those as dtype arguments either).

        Examples
        --------
        >>> import dlarray, numpy as np
        >>> x = dlarray.asarray([1.0])
        >>> x.dtype == dlarray.float64, x.dtype == "float64", x.dtype == np.float64
        (True, True, True)
        >>> x.dtype == np.dtype(">f8"), x.dtype == "float32", x.dtype != dlarray.int64
        (False, False, True)
        """
        if other is self:
            return True
        if isinstance(other, DType):
            return False  # every dtype is one object: another object is another dtype
        if isinstance(other, str):
            return DTYPES_BY_NAME.get(other) is self
        if isinstance(other, np.dtype) or (
            isinstance(other, type) and issubclass(other, np.generic)
        ):
            return dtype_argument(other) is self
        return NotImplemented

    # Identity's hash, as before equality was widened: every dtype is one
    # object, so dtypes agree among themselves, and a set or dict of dtypes
    # is looked up at C speed on the namespace's every call.  A name or a
    # NumPy dtype that compares equal has another hash (as "float64" and
    # numpy.dtype("float64") have in NumPy): look dtypes up by dtype
    # (docs/api/dtypes.md, "Comparing dtypes").
    __hash__ = object.__hash__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Refused: a dtype makes no values (``dlarray.float32(3)``, NumPy's
        scalar constructor); ``TypeError`` naming the call that does.

        Examples
        --------
        >>> import dlarray
        >>> dlarray.float32(3)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        TypeError: dlarray.float32 is a dtype, not a function: ...(3, dtype=dlarray.float32)`...
        """
        value = repr(args[0]) if len(args) == 1 and not kwargs else "value"
        raise TypeError(
            f"{self!r} is a dtype, not a function: dlarray has no scalar types. For a 0-d "
            f"array write `dlarray.asarray({value}, dtype={self!r})`; for a conversion of "
            f"an array x, `dlarray.astype(x, {self!r})`"
        )

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # dtypes are singletons: pickle by name, unpickle to the one object
        # (engines ship dtypes to worker processes inside their task graphs)
        return dtype_named, (self.name,)


def _build_table() -> tuple[dict[str, DType], dict[tuple[int, int, int], DType]]:
    by_name: dict[str, DType] = {}
    by_dlpack: dict[tuple[int, int, int], DType] = {}
    for name, code, bits, kind in _core.dtype_table():
        dtype = DType(name, code, bits, kind)
        by_name[name] = dtype
        by_dlpack[dtype.dlpack] = dtype
    return by_name, by_dlpack


DTYPES_BY_NAME, DTYPES_BY_DLPACK = _build_table()


def dtype_named(name: str) -> DType:
    """The dtype called ``name`` (what a pickled dtype unpickles through):
    ``TypeError`` for a name that is not a str, ``ValueError`` for one that
    names no dtype of this dlarray (a damaged pickle, or one written by a
    dlarray with more dtypes)."""
    if not isinstance(name, str):
        raise TypeError(f"a dtype name must be a str, got {type(name).__name__} {name!r}")
    try:
        return DTYPES_BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"no dlarray dtype is called {name!r}; this dlarray's dtypes are "
            f"{', '.join(DTYPES_BY_NAME)}"
        ) from None


def dtype_from_dlpack(triple: tuple[int, int, int]) -> DType:
    """The dtype for a DLPack ``(code, bits, lanes)`` triple."""
    try:
        return DTYPES_BY_DLPACK[triple]
    except KeyError:
        raise BufferError(f"no dlarray dtype for DLPack (code, bits, lanes) = {triple}") from None


def dtype_argument(value: object) -> DType | None:
    """``value`` as a dlarray dtype, or None when it stands for none.

    The one rule for what a dtype argument may be: a :class:`DType`, or, as
    a documented extension the Array API does not define, a NumPy dtype
    object or NumPy scalar type (``numpy.dtype("float64")``,
    ``numpy.float64``) in native byte order whose dtype dlarray also has
    (the same name).  Engines that normalise dtypes through NumPy (Cubed,
    Dask) hand those back to the namespace.  Names (``"float64"``) are not
    dtypes here: :func:`as_dtype` takes them where dlarray does.

    Another library's dtype object that offers the proposed exchange of
    dtypes (array-api#972: a method ``__dlpack_data_type__()`` returning
    DLPack's ``(code, bits, lanes)``) stands for the dtype of that triple.

    Raises
    ------
    TypeError
        If such an object answers something other than a triple of ints,
        or a triple no dlarray dtype has.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray._dtypes import dtype_argument
    >>> dtype_argument(np.dtype("float32")), dtype_argument(np.int16)
    (dlarray.float32, dlarray.int16)
    >>> dtype_argument(np.dtype(">f8")) is None, dtype_argument("float64") is None
    (True, True)
    >>> class Half:                          # another library's float16
    ...     def __dlpack_data_type__(self):
    ...         return (2, 16, 1)
    >>> dtype_argument(Half())
    dlarray.float16
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, np.dtype):
        numpy_dtype = value
    elif isinstance(value, type) and issubclass(value, np.generic):
        numpy_dtype = np.dtype(value)
    elif hasattr(type(value), "__dlpack_data_type__"):
        return _exchanged_dtype(value)
    else:
        return None
    if not numpy_dtype.isnative or numpy_dtype.fields is not None:
        return None
    return DTYPES_BY_NAME.get(numpy_dtype.name)


def _exchanged_dtype(value: object) -> DType:
    """The dtype another library's dtype object names through
    ``__dlpack_data_type__()`` (:func:`dtype_argument`)."""
    triple = value.__dlpack_data_type__()  # type: ignore[attr-defined]
    if not (
        isinstance(triple, tuple)
        and len(triple) == 3
        and all(isinstance(v, int) and not isinstance(v, bool) for v in triple)
    ):
        raise TypeError(
            f"dtype {value!r}: its __dlpack_data_type__() returned {triple!r}; a DLPack "
            "(code, bits, lanes) triple of ints was expected"
        )
    found = DTYPES_BY_DLPACK.get(triple)
    if found is None:
        raise TypeError(
            f"dtype {value!r} is DLPack (code, bits, lanes) = {triple}, which no dlarray "
            f"dtype is; dlarray's dtypes are {', '.join(DTYPES_BY_NAME)}"
        )
    return found


def as_dtype(dtype: object) -> DType:
    """Accept a :class:`DType`, its NumPy equivalent (:func:`dtype_argument`)
    or a dtype name; raise ``TypeError`` otherwise."""
    found = dtype_argument(dtype)
    if found is not None:
        return found
    if isinstance(dtype, str) and dtype in DTYPES_BY_NAME:
        return DTYPES_BY_NAME[dtype]
    raise TypeError(
        f"expected a dlarray dtype (e.g. dlarray.float32), its name or its NumPy dtype, "
        f"got {dtype!r}; known dtypes: {', '.join(DTYPES_BY_NAME)}"
    )


def dtypes() -> tuple[DType, ...]:
    """All dtypes dlarray knows, in table order.

    Raises
    ------
    TypeError
        If given any argument (it takes none).

    Examples
    --------
    >>> import dlarray
    >>> len(dlarray.dtypes())
    26
    """
    return tuple(DTYPES_BY_NAME.values())


#: The Python scalar types the Array API lets stand for arrays in operators
#: and functions.
SCALAR_TYPES: Final = frozenset({bool, int, float, complex})


def as_python_scalar(value: object) -> bool | int | float | complex | None:
    """``value`` as a Python scalar, or None when it is not one.

    Instances of subclasses of ``int``, ``float`` and ``complex`` count as
    the Python scalar they subclass (``numpy.float64`` is a ``float``,
    ``numpy.complex128`` a ``complex``, an ``IntEnum`` member an ``int``), so
    they follow the standard's Python-scalar rules; NumPy's integer and bool
    scalars subclass nothing of Python's and are not scalars here.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray._dtypes import as_python_scalar
    >>> as_python_scalar(np.float64(2.5)), type(as_python_scalar(np.float64(2.5)))
    (2.5, <class 'float'>)
    >>> as_python_scalar(np.int64(3)) is None
    True
    """
    if type(value) in SCALAR_TYPES:
        return value  # type: ignore[return-value]
    if isinstance(value, int):  # bool has no subclasses: an int subclass
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, complex):
        return complex(value)
    return None


def scalar_or_itself(value: Any) -> Any:
    """``value`` as the Python scalar it subclasses (``numpy.float64`` is a
    ``float``), or unchanged: for checks that look at exact types next."""
    scalar = as_python_scalar(value)
    return value if scalar is None else scalar
