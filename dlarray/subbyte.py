"""Sub-byte element types (fp6, fp4): packing, padding and raw codes.

DLPack stores sub-byte elements *packed* by default: element ``i`` occupies
bits ``[i*bits, (i+1)*bits)`` of the buffer, counting from the least
significant bit of the first byte ("little bit-endian").  A producer may
instead store one element per byte and set the ``IS_SUBBYTE_TYPE_PADDED``
flag.  dlarray keeps whichever layout it was given (:func:`is_padded` says
which), sets the flag when it exports padded data, and converts between the
two here.

Examples
--------
>>> import dlarray, numpy as np
>>> from dlarray import subbyte
>>> x = subbyte.from_codes([1, 2, 3, 15], dlarray.float4_e2m1fn)
>>> x.shape, subbyte.is_padded(x)
((4,), False)
>>> np.from_dlpack(subbyte.packed_bytes(x)).tobytes()  # 0x21, 0xF3: low nibble first
b'!\\xf3'
>>> subbyte.to_codes(x).shape
(4,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dlarray._core as _core
from dlarray._core import ArrayBase
from dlarray._creation import as_padded, cast, empty
from dlarray._dtypes import DTYPES_BY_NAME, DType, as_dtype
from dlarray._engine import numpy_engine
from dlarray._views import retag

_UINT8 = DTYPES_BY_NAME["uint8"]


def _require_subbyte(dtype: DType, func: str) -> None:
    if not dtype.is_subbyte:
        raise TypeError(
            f"subbyte.{func}: {dtype.name} is not a sub-byte dtype (fp6 or fp4); pass one "
            f"such as dlarray.float4_e2m1fn"
        )


def _require_subbyte_array(x: Any, func: str) -> ArrayBase:
    """``x``, checked to be a DLArray of a sub-byte dtype (TypeError naming
    ``func`` otherwise)."""
    if not isinstance(x, ArrayBase):
        raise TypeError(
            f"subbyte.{func}(x) takes a DLArray of a sub-byte dtype (fp6 or fp4), got "
            f"{type(x).__name__}; make one with subbyte.from_codes"
        )
    _require_subbyte(x.dtype, func)
    return x


def is_padded(x: ArrayBase) -> bool:
    """Whether ``x`` stores one sub-byte element per byte (the padded layout).

    ``True`` for the layout that DLPack marks with the
    ``IS_SUBBYTE_TYPE_PADDED`` flag (:data:`dlarray.abi.IS_SUBBYTE_TYPE_PADDED`):
    element ``i`` is the low ``bits`` of byte ``i``.  ``False`` for the
    packed layout, DLPack's default, where the elements follow each other
    bit by bit.  Views keep their base array's layout, and an export of a
    padded array carries the flag, so that the consumer reads it right.

    Parameters
    ----------
    x : DLArray
        An array of a sub-byte dtype (fp6 or fp4).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not a sub-byte dtype
        (only fp6 and fp4 have two layouts).

    Examples
    --------
    >>> import dlarray
    >>> from dlarray import abi, subbyte
    >>> x = subbyte.from_codes([1, 2, 3], dlarray.float4_e2m1fn)
    >>> subbyte.is_padded(x), subbyte.is_padded(subbyte.pad(x))
    (False, True)
    >>> flags = abi.describe(subbyte.pad(x)).flags     # what a consumer sees
    >>> bool(flags & abi.IS_SUBBYTE_TYPE_PADDED)
    True
    """
    _require_subbyte_array(x, "is_padded")
    return bool(x._padded)


def from_codes(codes: Any, dtype: Any, *, padded: bool = False) -> ArrayBase:
    """Build a sub-byte array from raw bit patterns (ints below ``2**bits``).

    Parameters
    ----------
    codes : array_like of int
        One code per element, any shape.
    dtype : DType
        A sub-byte dtype, e.g. ``dlarray.float4_e2m1fn``.
    padded : bool
        Store one element per byte instead of packing.

    Raises
    ------
    TypeError
        If ``dtype`` is not a dlarray dtype (or its name), is not a sub-byte
        dtype, ``codes`` are not integers, or ``padded`` is not a bool.
    ValueError
        If a code does not fit in the dtype's bits (below 0 or at least
        ``2**bits``).

    Examples
    --------
    Codes 1, 2, 3 and 15 are 0.5, 1.0, 1.5 and -6.0 in fp4 (e2m1):

    >>> import dlarray
    >>> from dlarray import subbyte
    >>> x = subbyte.from_codes([[1, 2], [3, 15]], dlarray.float4_e2m1fn)
    >>> x.shape, x.dtype, subbyte.is_padded(x)
    ((2, 2), dlarray.float4_e2m1fn, False)
    >>> subbyte.packed_bytes(x)  # two elements per byte
    dlarray.asarray([33, 243], dtype=dlarray.uint8)
    >>> subbyte.is_padded(subbyte.from_codes([1, 2], dlarray.float4_e2m1fn, padded=True))
    True
    """
    dtype = as_dtype(dtype)
    _require_subbyte(dtype, "from_codes")
    as_padded(padded, "subbyte.from_codes")
    values = np.asarray(codes)
    if values.dtype.kind not in "iu":
        raise TypeError(f"codes must be integers, got {values.dtype}")
    if values.size and (values.min() < 0 or values.max() >= 1 << dtype.bits):
        raise ValueError(
            f"{dtype.name} codes must lie in [0, {1 << dtype.bits}), got "
            f"values from {values.min()} to {values.max()}"
        )
    values = values.astype(np.uint8)
    out = empty(values.shape, dtype=dtype, padded=padded)
    if values.size == 0:
        return out
    if padded:
        numpy_engine.to_numpy(retag(out, _UINT8, padded=False))[...] = values
        return out
    # Explode each code into its bits (lowest first), keep `bits` of them, and
    # pack the stream back into bytes lowest bit first.
    bit_stream = np.unpackbits(values.reshape(-1, 1), axis=1, bitorder="little")[:, : dtype.bits]
    packed = np.packbits(bit_stream.reshape(-1), bitorder="little")
    numpy_engine.to_numpy(packed_bytes(out))[...] = packed
    return out


def packed_bytes(x: ArrayBase) -> ArrayBase:
    """The bytes of a packed sub-byte array, as a 1-d uint8 view.

    ``ceil(size * bits / 8)`` bytes; the unused high bits of the last byte
    are part of the view, which shares ``x``'s memory and read-only state.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not a sub-byte dtype.
    ValueError
        If ``x`` is padded (see :func:`is_padded`): it has no packed bytes;
        :func:`pack` makes a packed copy.

    Examples
    --------
    Three fp6 elements take 18 bits, so 3 bytes; element 0 is the low 6 bits
    of byte 0:

    >>> import dlarray
    >>> from dlarray import subbyte
    >>> x = subbyte.from_codes([1, 0, 0], dlarray.float6_e3m2fn)
    >>> subbyte.packed_bytes(x)
    dlarray.asarray([1, 0, 0], dtype=dlarray.uint8)
    >>> subbyte.packed_bytes(subbyte.from_codes([0, 1, 0], dlarray.float6_e3m2fn))
    dlarray.asarray([64, 0, 0], dtype=dlarray.uint8)
    """
    _require_subbyte_array(x, "packed_bytes")
    if x._padded:
        raise ValueError("the array is padded, not packed; see subbyte.pack")
    nbytes = (x.size * x.dtype.bits + 7) // 8
    return _core.new_array(
        x._owner,
        x._data,
        x._byte_offset,
        (nbytes,),
        (1,),
        _UINT8.dlpack,
        x._dl_device,
        _core.ARRAY_READONLY if x._readonly else 0,
    )


def to_codes(x: ArrayBase) -> ArrayBase:
    """The raw bit pattern of every element, as a new uint8 array of ``x.shape``.

    Works for packed and padded arrays alike; the inverse of :func:`from_codes`.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not a sub-byte dtype.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray import subbyte
    >>> x = subbyte.from_codes([[1, 2, 3], [4, 5, 63]], dlarray.float6_e2m3fn)
    >>> subbyte.to_codes(x)
    dlarray.asarray([[1, 2, 3], [4, 5, 63]], dtype=dlarray.uint8)
    """
    _require_subbyte_array(x, "to_codes")
    if x._padded:
        return cast(retag(x, _UINT8, padded=False), _UINT8)
    n, bits = x.size, x.dtype.bits
    raw = numpy_engine.to_numpy(packed_bytes(x))
    bit_stream = np.unpackbits(raw, bitorder="little")[: n * bits].reshape(n, bits)
    codes = np.packbits(bit_stream, axis=1, bitorder="little").reshape(x.shape)
    out = empty(x.shape, dtype=_UINT8)
    numpy_engine.to_numpy(out)[...] = codes
    return out


def pad(x: ArrayBase) -> ArrayBase:
    """A padded copy (one element per byte) of a sub-byte array.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not a sub-byte dtype.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray import subbyte
    >>> p = subbyte.pad(subbyte.from_codes([1, 2, 3], dlarray.float4_e2m1fn))
    >>> subbyte.is_padded(p), subbyte.to_codes(p)
    (True, dlarray.asarray([1, 2, 3], dtype=dlarray.uint8))
    """
    _require_subbyte_array(x, "pad")
    return from_codes(numpy_engine.to_numpy(to_codes(x)), x.dtype, padded=True)


def pack(x: ArrayBase) -> ArrayBase:
    """A packed copy of a sub-byte array.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or its dtype is not a sub-byte dtype.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray import subbyte
    >>> p = subbyte.from_codes([1, 2, 3], dlarray.float4_e2m1fn, padded=True)
    >>> x = subbyte.pack(p)
    >>> subbyte.is_padded(x), subbyte.packed_bytes(x)  # 3 elements in 2 bytes
    (False, dlarray.asarray([33, 3], dtype=dlarray.uint8))
    """
    _require_subbyte_array(x, "pack")
    return from_codes(numpy_engine.to_numpy(to_codes(x)), x.dtype, padded=False)


def _storage_codes(x: ArrayBase) -> ArrayBase:
    """The elements of an extended floating array as the unsigned integers
    they are stored as: a view for bfloat16, fp8 and padded fp6/fp4, a new
    uint8 array for packed fp6/fp4 (whose elements have no byte of their
    own).  Arrays of the standard's dtypes come back as they are: NumPy
    holds those itself."""
    dtype = x.dtype
    if dtype.kind != "extended floating":
        return x
    if dtype.is_subbyte and not x._padded:
        return to_codes(x)
    return retag(x, DTYPES_BY_NAME[f"uint{max(8, dtype.bits)}"], padded=False)
