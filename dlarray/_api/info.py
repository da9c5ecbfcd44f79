"""The inspection API: ``__array_namespace_info__()``."""

from __future__ import annotations

from typing import Any

from dlarray._device import CPU, Device, as_device
from dlarray._dtypes import DType
from dlarray._rules import DEFAULT_DTYPES, KINDS, STANDARD_DTYPES

__all__ = ["__array_namespace_info__"]


class Info:
    """What this installation of dlarray supports (see
    ``__array_namespace_info__``)."""

    __module__ = "dlarray"

    def capabilities(self) -> dict[str, Any]:
        """Optional features: boolean indexing and data-dependent output shapes
        are supported; arrays may have up to 64 axes (NumPy's limit, as NumPy
        computes on host memory)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The device arrays are made on when none is given: the CPU."""
        return CPU

    def devices(self) -> tuple[Device, ...]:
        """Every device dlarray can allocate on in this process (a tuple, as
        of 2025.12): the CPU; where a CUDA runtime and GPU exist, each GPU
        and the managed and pinned memory kinds; where dpctl is installed,
        the device, shared and host USM of each SYCL device that has them."""
        return (CPU, *_cuda_devices(), *_sycl_devices())

    def default_dtypes(self, *, device: Any = None) -> dict[str, DType]:
        """The default dtype per kind: float64, complex128, int64, int64."""
        self._check_device(device)
        return dict(DEFAULT_DTYPES)

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, DType]:
        """The standard dtypes available, by name, optionally only of ``kind``
        (a kind name, or a tuple of them)."""
        self._check_device(device)
        if kind is None:
            chosen = frozenset(STANDARD_DTYPES)
        else:
            chosen = frozenset().union(*(self._kind(k) for k in _as_tuple(kind)))
        return {d.name: d for d in STANDARD_DTYPES if d in chosen}

    @staticmethod
    def _kind(kind: Any) -> frozenset[DType]:
        if isinstance(kind, str) and kind in KINDS:
            return KINDS[kind]
        raise ValueError(f"dtypes(kind={kind!r}): known kinds are {', '.join(map(repr, KINDS))}")

    def _check_device(self, device: Any) -> None:
        if device is None or as_device(device) == CPU:
            return
        if as_device(device) not in self.devices():
            raise ValueError(f"device {device!r} is not one of {self.devices()}")


def _as_tuple(kind: Any) -> tuple[Any, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


_INFO = Info()


def __array_namespace_info__() -> Info:
    """The namespace's inspection object.

    Examples
    --------
    >>> import dlarray as xp
    >>> info = xp.__array_namespace_info__()
    >>> info.default_device(), info.default_dtypes()["indexing"]
    (Device('cpu', 0), dlarray.int64)
    >>> list(info.dtypes(kind="real floating"))
    ['float32', 'float64']
    """
    return _INFO


def _cuda_devices() -> tuple[Device, ...]:
    from dlarray._cuda.runtime import available, runtime

    if not available():
        return ()
    gpus = tuple(Device("cuda", i) for i in range(runtime().device_count()))
    return (*gpus, Device("cuda_managed", 0), Device("cuda_host", 0))


def _sycl_devices() -> tuple[Device, ...]:
    import importlib.util

    if importlib.util.find_spec("dpctl") is None:
        return ()  # without dpctl, no probe (importing it loads the SYCL runtime)
    from dlarray._storage.sycl import KIND_OF_USM
    from dlarray._sycl.runtime import available, root_devices

    if not available():
        return ()
    return tuple(
        Device(kind, index)
        for index, device in enumerate(root_devices())
        for usm_type, kind in KIND_OF_USM.items()
        if getattr(device, f"has_aspect_usm_{usm_type}_allocations")
    )
