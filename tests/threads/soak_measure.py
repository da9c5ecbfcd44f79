"""What the soak measures: resident memory, reference counts, and whether
the arrays it exported were freed."""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import weakref
from collections import Counter
from typing import Any

_STATM = "/proc/self/statm"
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

try:
    _malloc_trim = ctypes.CDLL(None).malloc_trim  # glibc
except (AttributeError, OSError):  # pragma: no cover - not glibc
    _malloc_trim = None


def rss_available() -> bool:
    """Whether :func:`settled_rss` can read the current resident size."""
    return os.path.exists(_STATM)


def settled_rss() -> int | None:
    """Resident bytes of this process once garbage is collected and malloc
    has given its free pages back (so that only live memory counts); None
    where /proc is missing (the peak from ``resource`` cannot show growth)."""
    gc.collect()
    gc.collect()
    if _malloc_trim is not None:
        _malloc_trim(0)
    if not rss_available():
        return None
    with open(_STATM) as statm:
        return int(statm.read().split()[1]) * _PAGE


def refcounts(objects: dict[str, Any]) -> dict[str, int]:
    """``sys.getrefcount`` of each named object (the dict's own reference
    included, the same at every call)."""
    return {name: sys.getrefcount(obj) for name, obj in objects.items()}


class Tracker:
    """Weak references to a sample of the arrays a worker exported, by kind
    of exchange, to check that every one of them is freed.

    One array in ``every`` is offered, and at most ``limit`` references are
    kept: when they are all taken, those whose array is gone make room, so
    the sample spans the whole phase while staying small next to the memory
    being measured."""

    def __init__(self, every: int = 8, limit: int = 512) -> None:
        self.every = every
        self.limit = limit
        self._seen = 0
        self._refs: list[tuple[str, weakref.ref[Any]]] = []
        self.tracked: Counter[str] = Counter()

    def offer(self, kind: str, obj: Any) -> None:
        """Track ``obj`` if it falls in the sample and there is room."""
        self._seen += 1
        if self._seen % self.every:
            return
        if len(self._refs) >= self.limit:
            self._refs = [(k, ref) for k, ref in self._refs if ref() is not None]
            if len(self._refs) >= self.limit:
                return  # full of arrays still alive: the end of the phase reports them
        self._refs.append((kind, weakref.ref(obj)))
        self.tracked[kind] += 1

    def alive(self) -> Counter[str]:
        """How many tracked arrays are still alive, by kind."""
        return Counter(kind for kind, ref in self._refs if ref() is not None)

    def forget(self) -> None:
        """Drop the weak references (not the counts) before the next phase."""
        self._refs.clear()
