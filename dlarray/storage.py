"""Public view of dlarray's storage classes (see :mod:`dlarray._storage`)."""

from dlarray._storage import HostStorage, Storage

__all__ = ["HostStorage", "Storage"]
