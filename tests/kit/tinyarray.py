"""tinyarray: the made-up library of docs/guide/test-your-dlpack.md, whose
adapter that page shows and tests/kit/test_kit.py runs.  Inside each of
its arrays is a dlarray array, so its DLPack is dlarray's: the kit passes
it on every case it can ask."""

from __future__ import annotations

from typing import Any

import numpy as np

import dlarray

__version__ = "1.0"
#: The dtypes dlarray holds packed, which NumPy (with ml_dtypes) holds one per byte.
PACKED = ("float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")


class Array:
    def __init__(self, data: Any) -> None:
        self._data = data

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._data.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return tuple(self._data.__dlpack_device__())  # type: ignore[return-value]

    def numpy(self) -> np.ndarray:
        """The elements, copied into NumPy (fp6 and fp4: one per byte)."""
        x = self._data
        if x.dtype.name in PACKED:
            x = dlarray.subbyte.pad(x)
        return np.array(x)


def asarray(values: Any) -> Array:
    return Array(dlarray.asarray(values, copy=True))


def from_dlpack(x: Any) -> Array:
    return Array(dlarray.from_dlpack(x))
