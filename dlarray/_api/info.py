"""The inspection API: ``__array_namespace_info__()``."""

from __future__ import annotations

from typing import Any

from dlarray._device import CPU, Device, as_device
from dlarray._dtypes import DType
from dlarray._rules import DEFAULT_DTYPES, KINDS, STANDARD_DTYPES
from dlarray._storage.family import FAMILIES

__all__ = ["__array_namespace_info__"]


class Info:
    """What this installation of dlarray supports (see
    ``__array_namespace_info__``).

    The Array API's inspection object: one instance, returned by
    ``__array_namespace_info__()``, whose methods name the devices, dtypes
    and optional features of the namespace.

    Examples
    --------
    >>> import dlarray as xp
    >>> info = xp.__array_namespace_info__()
    >>> type(info).__name__, info is xp.__array_namespace_info__()
    ('Info', True)
    >>> info.default_device() in info.devices()
    True
    >>> info.default_dtypes()["real floating"]
    dlarray.float64
    """

    __module__ = "dlarray"

    def capabilities(self) -> dict[str, Any]:
        """Optional features: boolean indexing and data-dependent output shapes
        are supported; arrays may have up to 64 axes (NumPy's limit, as NumPy
        computes on host memory).

        Raises
        ------
        TypeError
            If given any argument (it takes none).

        Examples
        --------
        >>> import dlarray as xp
        >>> xp.__array_namespace_info__().capabilities()
        {'boolean indexing': True, 'data-dependent shapes': True, 'max dimensions': 64}

        Boolean indexing gives an array whose length depends on the data:

        >>> x = xp.asarray([1, -2, 3])
        >>> x[x > 0]
        dlarray.asarray([1, 3], dtype=dlarray.int64)
        """
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The device arrays are made on when none is given: the CPU.

        Raises
        ------
        TypeError
            If given any argument (it takes none).

        Examples
        --------
        >>> import dlarray as xp
        >>> info = xp.__array_namespace_info__()
        >>> info.default_device()
        Device('cpu', 0)
        >>> xp.zeros(3).device == info.default_device()
        True
        """
        return CPU

    def devices(self) -> tuple[Device, ...]:
        """Every device dlarray can allocate on in this process (a tuple, as
        of 2025.12): the CPU; where a CUDA runtime and GPU exist, each GPU
        and the managed and pinned memory kinds; where dpctl is installed,
        the device, shared and host USM of each SYCL device that has them.

        Raises
        ------
        TypeError
            If given any argument (it takes none).
            A device family that cannot be reached (no driver, no dpctl) is
            left out, not raised.

        Examples
        --------
        The CPU comes first; what follows depends on the machine (nothing
        more on one without a GPU or a SYCL device):

        >>> import dlarray as xp
        >>> devices = xp.__array_namespace_info__().devices()
        >>> devices[0]
        Device('cpu', 0)
        >>> {d.kind for d in devices} <= {
        ...     "cpu", "cuda", "cuda_managed", "cuda_host", "sycl", "sycl_shared", "sycl_host"
        ... }
        True

        On a machine with one GPU and cuda-bindings (skipped: the doctests
        also run where there is none):

        >>> devices  # doctest: +SKIP
        (Device('cpu', 0), Device('cuda', 0), Device('cuda_managed', 0), Device('cuda_host', 0))
        """
        return tuple(d for family in FAMILIES.values() for d in family.devices())

    def default_dtypes(self, *, device: Any = None) -> dict[str, DType]:
        """The default dtype per kind: float64, complex128, int64, int64.

        ``device`` must be None or one of :meth:`devices`; the answer is the
        same on every device.

        Raises
        ------
        TypeError
            If ``device`` is not a Device, a kind name or a ``(device_type,
            device_id)`` pair.
        ValueError
            If ``device`` names an unknown kind, or a device that is not among
            :meth:`devices` in this process.

        Examples
        --------
        >>> import dlarray as xp
        >>> info = xp.__array_namespace_info__()
        >>> for kind, dtype in info.default_dtypes().items():
        ...     print(f"{kind}: {dtype}")
        real floating: dlarray.float64
        complex floating: dlarray.complex128
        integral: dlarray.int64
        indexing: dlarray.int64
        >>> xp.asarray([1.5]).dtype == info.default_dtypes(device="cpu")["real floating"]
        True
        """
        self._check_device(device)
        return dict(DEFAULT_DTYPES)

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, DType]:
        """The standard dtypes available, by name, optionally only of ``kind``
        (a kind name, or a tuple of them).

        The kind names are the Array API's: ``"bool"``, ``"signed integer"``,
        ``"unsigned integer"``, ``"integral"``, ``"real floating"``,
        ``"complex floating"`` and ``"numeric"``.

        Raises
        ------
        TypeError
            If ``device`` is not a Device, a kind name or a ``(device_type,
            device_id)`` pair.
        ValueError
            If ``device`` names an unknown kind, or a device that is not among
            :meth:`devices` in this process, or ``kind`` is neither a kind
            name nor a tuple of kind names.

        Examples
        --------
        >>> import dlarray as xp
        >>> info = xp.__array_namespace_info__()
        >>> len(info.dtypes())
        13
        >>> list(info.dtypes(kind="signed integer"))
        ['int8', 'int16', 'int32', 'int64']
        >>> info.dtypes(kind=("bool", "complex floating"))
        {'bool': dlarray.bool, 'complex64': dlarray.complex64, 'complex128': dlarray.complex128}
        """
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

    Raises
    ------
    TypeError
        If given any argument (it takes none).

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
