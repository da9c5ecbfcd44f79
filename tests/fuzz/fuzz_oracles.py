"""What every fuzz test asserts about an exception, and the bookkeeping of
the ctypes producers an example makes.

dlarray promises that the errors of an exchange are ``BufferError``,
``ValueError`` or ``TypeError`` (``CUDAUnavailableError`` is both of the
first two).  Anything else it raises -- ``OverflowError`` (an
``ArithmeticError``, not a ``ValueError``), ``SystemError``, ``MemoryError``
-- is a bug.  The one exception to the rule: an exception a producer raised
itself may pass through unchanged.
"""

from __future__ import annotations

import contextlib
import gc
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import abi

ALLOWED = (BufferError, ValueError, TypeError)


@dataclass
class Result:
    """How a call ended: ``value``, or ``error`` (with its type's name) and
    ``trace``, the error's traceback as text."""

    value: Any = None
    error: BaseException | None = None
    trace: str = ""

    @property
    def raised(self) -> str | None:
        return None if self.error is None else type(self.error).__name__


def attempt(call: Callable[[], Any]) -> Result:
    """Run ``call``; an ``Exception`` is returned, not raised.

    The error keeps its traceback only as text: frames would keep the test's
    arrays and capsules alive in reference cycles until a garbage collection,
    hiding when dlarray releases them (and collecting costs milliseconds).
    """
    try:
        return Result(value=call())
    except Exception as exc:
        error = exc
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    seen = error
    for _ in range(8):
        seen.__traceback__ = None
        if (seen := seen.__cause__ or seen.__context__) is None:
            break
    return Result(error=error, trace=trace)


def from_producer(error: BaseException, own: BaseException | None) -> bool:
    """True when ``error`` is the producer's exception ``own``, as raised or
    as the cause or context of the error dlarray raised instead."""
    if own is None:
        return False
    seen = error
    for _ in range(8):
        if seen is own:
            return True
        seen = seen.__cause__ or seen.__context__
        if seen is None:
            return False
    return False


def assert_allowed(result: Result, *, own: BaseException | None = None, what: str = "") -> None:
    """The call raised nothing, one of the three allowed types, or the
    producer's own exception."""
    error = result.error
    if error is None or isinstance(error, ALLOWED) or from_producer(error, own):
        return
    raise AssertionError(
        f"{what}: raised {type(error).__name__}: {error}; only BufferError, "
        f"ValueError and TypeError may come out of dlarray\n{result.trace}"
    )


def settled(condition: Callable[[], bool]) -> bool:
    """``condition()``, checked again after a garbage collection if it does
    not hold at once (an exception's traceback can keep a capsule in a
    reference cycle for a moment)."""
    if condition():
        return True
    gc.collect()
    return condition()


@contextlib.contextmanager
def producers_of_one_example() -> Iterator[None]:
    """Scope of one example's ctypes producers.

    Producers stay in ``abi._KEEPALIVE`` for the whole session, since C may
    still reach their callbacks; thousands of fuzz examples would pile up.
    When the example passed, and every capsule of a producer is gone and
    every tensor it made was released, nothing can reach it any more, so it
    is let go.  A failing example leaves its producers to tests/conftest.py.
    """
    start = len(abi._KEEPALIVE)
    yield
    made = abi._KEEPALIVE[start:]
    for producer in made:
        producer.drop_capsules()
    for producer in made:
        assert producer.callback_errors == [], producer.callback_errors
    finished = [p for p in made if _finished(p)]
    for producer in finished:
        for i in range(len(abi._KEEPALIVE) - 1, -1, -1):
            if abi._KEEPALIVE[i] is producer:
                del abi._KEEPALIVE[i]
                break


def _finished(producer: abi.Producer) -> bool:
    if len(producer.destructor_calls) != len(producer.capsule_addresses):
        return False
    if not producer.use_deleter:
        return True
    # A tensor whose capsule was consumed is released by its consumer: it
    # must have been, for the producer to be unreachable.
    consumed = sum(
        1 for name in producer.destructor_calls if name is not None and name.startswith(b"used_")
    )
    return len(set(producer.deleter_calls)) >= consumed
