"""Run an export's deleter on a C thread the interpreter has never seen.

:func:`start_deleter_thread` starts the thread (``pthread_create`` with the
deleter as its start routine) and returns at once, so the calling Python
thread can go on holding the GIL while the deleter runs; :func:`join` waits
for it through a ctypes call, which releases the GIL.  (tests/abi.py's
``run_deleter_on_c_thread`` does both in one call.)
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

import abi

AVAILABLE = sys.platform.startswith("linux")

_libc = ctypes.CDLL(None) if AVAILABLE else None
if _libc is not None:
    _libc.pthread_create.argtypes = [
        ctypes.POINTER(ctypes.c_ulong),
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
    ]
    _libc.pthread_create.restype = ctypes.c_int
    _libc.pthread_join.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
    _libc.pthread_join.restype = ctypes.c_int


def start_deleter_thread(capsule: Any) -> int:
    """Start a pthread running the deleter of the tensor in ``capsule``
    (already renamed by the caller, who owns the tensor now); return its
    handle for :func:`join`."""
    if _libc is None:
        raise OSError("pthread_create needs Linux")
    managed = abi.managed_struct(capsule)
    deleter = ctypes.cast(managed.deleter, ctypes.c_void_p).value
    if not deleter:
        raise ValueError("the tensor has a NULL deleter")
    handle = ctypes.c_ulong()
    # void (*)(T *) as void *(*)(void *): the same calling convention on the
    # platforms CPython supports; the thread's return value is never read.
    rc = _libc.pthread_create(ctypes.byref(handle), None, deleter, ctypes.addressof(managed))
    if rc != 0:
        raise OSError(rc, "pthread_create failed")
    return handle.value


def join(handle: int) -> None:
    """Wait for a thread from :func:`start_deleter_thread` (GIL released)."""
    assert _libc is not None
    rc = _libc.pthread_join(handle, None)
    if rc != 0:
        raise OSError(rc, "pthread_join failed")
