"""shoddy: a made-up array library with deliberate DLPack deviations, the
kit's test subject (tests/kit/test_kit.py).

It is built on dlarray (its arrays hold a dlarray or NumPy array; its
consumer is :func:`dlarray.abi.consume`) and departs from the DLPack
specification in exactly these ways, each a bug peers have had:

- its ``from_dlpack`` reads a compact tensor from ``data`` and forgets
  ``byte_offset`` (pytorch#170432, cuda-python#2576): the cases
  byte_offset_1d, byte_offset_nd and byte_offset_0d;
- it refuses a device it does not know with ``ValueError``, where the
  specification asks for ``BufferError``: device_unknown;
- its ``__dlpack__`` answers a versioned capsule to a consumer that asked
  for none (no ``max_version``), which a consumer older than DLPack 1.0
  cannot read: export_legacy.

Everything else it does right, so that the kit must find these five
deviations and nothing more.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

import dlarray
from dlarray import abi

__version__ = "0.0.1"
#: The DLPack device types shoddy knows: host, pinned host, CUDA managed.
KNOWN_DEVICES = (1, 3, 13)
#: The DLPack (code, bits, lanes) of float32 and float64, where the bug lives.
STANDARD_FLOATS = ((2, 32, 1), (2, 64, 1))
#: The dtypes dlarray holds packed, which NumPy (with ml_dtypes) holds one per byte.
PACKED = ("float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")


class Array:
    """A shoddy array: any DLPack producer's memory (``data``), kept alive
    by ``owner``."""

    def __init__(self, data: Any, owner: Any = None) -> None:
        self._data = data
        self._owner = owner

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: Any = None) -> Any:  # fmt: skip
        # Deliberate deviation (export_legacy): a versioned capsule whatever was asked.
        return self._data.__dlpack__(
            stream=stream, max_version=(1, 3), dl_device=dl_device, copy=copy
        )

    def __dlpack_device__(self) -> tuple[int, int]:
        return tuple(self._data.__dlpack_device__())  # type: ignore[return-value]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._data[key] = value

    @property
    def ndim(self) -> int:
        return int(self._data.ndim)

    def to_numpy(self) -> np.ndarray:
        """The elements as NumPy holds them (fp6 and fp4: one per byte)."""
        x = self._data
        if not isinstance(x, np.ndarray) and x.dtype.name in PACKED:
            x = dlarray.subbyte.pad(x)
        return np.asarray(x)


def asarray(values: Any) -> Array:
    return Array(dlarray.asarray(values, copy=True))


def from_dlpack(obj: Any) -> Array:
    kind, _ = obj.__dlpack_device__()
    if kind not in KNOWN_DEVICES:  # deliberate deviation (device_unknown): BufferError is right
        raise ValueError(f"shoddy does not know device type {kind}")
    capsule = obj.__dlpack__(max_version=(1, 3))
    d = abi.describe(capsule)
    inner = abi.consume(capsule)  # right: dlarray's consumer
    if d.byte_offset == 0 or d.dtype not in STANDARD_FLOATS:
        return Array(inner)
    right = np.from_dlpack(inner)
    if not right.flags.c_contiguous:
        return Array(inner)
    # Deliberate deviation (byte_offset_*): a compact tensor's elements read
    # from data, not data + byte_offset.
    raw = (ctypes.c_char * (d.byte_offset + right.nbytes)).from_address(d.data)
    wrong = np.frombuffer(raw, right.dtype, count=right.size).reshape(right.shape)
    return Array(wrong, owner=inner)
