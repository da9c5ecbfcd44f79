"""The array object.

:class:`DLArray` is the Python half of ``_core.ArrayBase``: the C half holds
the memory and layout and speaks DLPack; this half gives them Python names
and routes everything that computes to an engine (:mod:`dlarray._engine`).
Arrays are made only by the library (``asarray``, ``empty``, ``zeros``,
``from_dlpack``, views); calling ``DLArray()`` raises ``TypeError``.
"""

from __future__ import annotations

from typing import Any

from dlarray import _core
from dlarray._device import CPU, Device
from dlarray._dtypes import DTYPES_BY_NAME, DType


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
    >>> x.shape, x.dtype, x.device
    ((2, 3), dlarray.int32, Device('cpu', 0))
    >>> np.from_dlpack(x.T).tolist()
    [[1, 4], [2, 5], [3, 6]]
    """

    __slots__ = ()

    # ---- attributes ----
    # ``dtype`` and ``device`` are C getters of ArrayBase (see
    # register_python_types at the end of this module): every operation reads
    # them, so they cost one table lookup.

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for extent in self.shape:
            n *= extent
        return n

    @property
    def readonly(self) -> bool:
        """True when writes are refused."""
        return self._readonly

    @property
    def T(self) -> DLArray:
        """The array with its axes reversed (a view)."""
        from dlarray._views import permute_dims

        return permute_dims(self, tuple(range(self.ndim - 1, -1, -1)))

    # ---- indexing ----

    def __getitem__(self, key: Any) -> DLArray:
        from dlarray._views import basic_index

        return basic_index(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._readonly:
            raise ValueError(
                "cannot write to a read-only array (its producer marked the memory "
                "READ_ONLY); make a writable copy with dlarray.asarray(x, copy=True)"
            )
        from dlarray._engine import numpy_engine

        target = numpy_engine.to_numpy(self[key])
        source = value
        if isinstance(value, DLArray):
            source = numpy_engine.to_numpy(value)
        target[...] = source

    # ---- conversions and display ----

    def __repr__(self) -> str:
        from dlarray._engine import numpy_engine

        where = "" if self.device == CPU else f", device={self.device!r}"
        if numpy_engine.can_view(self):
            body = repr(numpy_engine.to_numpy(self).tolist())
        else:
            body = f"<{self.size} elements>"
        return f"dlarray.asarray({body}, dtype={self.dtype!r}{where})"

    # ---- hooks called by the C core's __dlpack__ ----

    def _dlpack_copy(self, dl_device: tuple[int, int]) -> DLArray:
        """A copy of this array on ``dl_device``, for ``__dlpack__(copy=True)``
        or an export to another device.  Raises ``BufferError`` when dlarray
        cannot reach that device."""
        from dlarray._creation import copy_to_host

        if dl_device != CPU.dlpack:
            raise BufferError(
                f"__dlpack__(dl_device={dl_device}): dlarray can copy this array "
                f"(on {self.device}) only to the CPU, (1, 0); ask for dl_device=(1, 0) "
                f"or for the array's own device {self._dl_device}"
            )
        return copy_to_host(self)  # which says so if it cannot read the source

    def _dlpack_check_stream(self, stream: object) -> None:
        """Validate ``stream`` for arrays on devices with streams."""
        raise BufferError(
            f"__dlpack__(stream={stream!r}): this array lives on {self.device}, and "
            f"dlarray cannot order work on that device's streams in this installation; "
            f"pass stream=None"
        )


_core.register_array_type(DLArray)
_core.register_python_types(tuple(DTYPES_BY_NAME.values()), CPU, Device.from_dlpack)


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
