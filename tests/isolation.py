"""Running a check in a forked child, so that a crash is a failure (the
fuzz tests) and the child's state is its own (tests/memory/test_cuda_fork.py).

A segfault inside the C core would end the whole pytest session, with no
example to show for it.  ``isolated(check, case)`` forks, runs the check in
the child, and turns the child's death by a signal into an ``AssertionError``
naming the signal, which Hypothesis then shrinks and reports like any other
failure.  The child's own assertion failures come back as their traceback.

Forking costs a few milliseconds, so only tests that reach code known to be
able to crash run isolated (``DLARRAY_FUZZ_FORK=1`` isolates every fuzz test,
for a long hunt).  Where ``os.fork`` does not exist the check runs in-process.
"""

from __future__ import annotations

import os
import pickle
import signal
import traceback
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

FORK_EVERYTHING = os.environ.get("DLARRAY_FUZZ_FORK", "") not in ("", "0")


def _child(check: Callable[..., T], args: tuple[Any, ...], write_fd: int) -> None:
    status = 0
    try:
        try:
            message: tuple[str, Any] = ("ok", check(*args))
        except BaseException:
            message = ("failed", traceback.format_exc())
            status = 1
        payload = pickle.dumps(message)
        while payload:
            payload = payload[os.write(write_fd, payload) :]
    finally:
        os._exit(status)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def isolated(check: Callable[..., T], *args: Any) -> T:
    """``check(*args)`` run in a forked child; its (picklable) result."""
    if not hasattr(os, "fork"):
        return check(*args)
    read_fd, write_fd = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns about forking a process with threads, and so
        # does JAX (a RuntimeWarning from its at-fork hook, where other tests
        # of this process imported it); the child only runs dlarray and
        # ctypes code and leaves with os._exit.
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.filterwarnings("ignore", r"os\.fork\(\) was called", RuntimeWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_fd)
        _child(check, args, write_fd)
    os.close(write_fd)
    try:
        payload = _read_all(read_fd)
    finally:
        os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        raise AssertionError(f"the process crashed: killed by {name} in {check.__name__}")
    kind, value = pickle.loads(payload) if payload else ("failed", "no result")
    if kind != "ok":
        raise AssertionError(f"{check.__name__} failed in the forked child:\n{value}")
    return value


def maybe_isolated(check: Callable[..., T], *args: Any) -> T:
    """Isolated when ``DLARRAY_FUZZ_FORK`` asks for it, in-process otherwise."""
    return isolated(check, *args) if FORK_EVERYTHING else check(*args)
