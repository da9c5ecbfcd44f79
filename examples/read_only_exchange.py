"""Read-only data exchanged safely, and handed as a copy to who cannot honour it.

DLPack 1.0's versioned capsules carry a ``READ_ONLY`` flag.  NumPy sets it
for an array with ``flags.writeable = False``; dlarray imports such memory as
a read-only array (writes raise ``ValueError``) and sets the flag again when
it exports it, so NumPy gets back a non-writeable array.  A legacy capsule
(``__dlpack__()`` without ``max_version``) has no flags and cannot say
"read-only", so dlarray refuses to make one: ``BufferError``.

A consumer may still ignore the flag: PyTorch has no read-only tensors, and
``torch.from_dlpack`` of read-only memory returns a writable tensor on that
memory.  Hand such a consumer a copy: ``dlarray.from_dlpack(x, copy=True)``
asks the producer for ``x.__dlpack__(max_version=(1, 3), copy=True)``, a
writable copy flagged ``IS_COPIED``.

Run: python examples/read_only_exchange.py
"""

import importlib

import numpy as np

import dlarray
from dlarray import abi
from dlarray.abi import IS_COPIED, READ_ONLY
from dlarray.abi import data_pointer as address  # the first element's address


def main() -> None:
    a = np.arange(4.0)
    a.flags.writeable = False

    x = dlarray.from_dlpack(a)  # NumPy -> dlarray through a versioned capsule
    assert abi.owner(x).flags & READ_ONLY  # the flags the import saw
    print("NumPy's capsule says READ_ONLY; x.readonly =", x.readonly)
    try:
        x[0] = 1.0
    except ValueError as exc:
        print("x[0] = 1 raises ValueError:", str(exc).split(";")[0])
    else:
        raise AssertionError("a read-only array was written")

    b = np.from_dlpack(x)  # dlarray -> NumPy: the same memory, still read-only
    assert b.ctypes.data == a.ctypes.data
    print("np.from_dlpack(x) shares a's memory, writeable =", b.flags.writeable)
    assert not b.flags.writeable

    try:
        x.__dlpack__()  # a legacy capsule: it could not carry the flag
    except BufferError as exc:
        print("x.__dlpack__() raises BufferError:", str(exc).split(":")[0])
    else:
        raise AssertionError("a legacy capsule of read-only memory was made")

    # For a consumer that ignores READ_ONLY: a writable copy, flagged as one.
    y = dlarray.from_dlpack(x, copy=True)
    assert not y.readonly and address(y) != address(x)
    flags = abi.owner(y).flags
    print(
        "from_dlpack(x, copy=True): readonly =",
        y.readonly,
        "| IS_COPIED:",
        bool(flags & IS_COPIED),
        "| READ_ONLY:",
        bool(flags & READ_ONLY),
        "| same memory:",
        address(y) == address(x),
    )

    try:
        torch = importlib.import_module("torch")
    except ImportError:
        print("torch: skipped, not installed")
        return
    ignored = torch.from_dlpack(x)  # look, do not touch: torch ignores READ_ONLY
    assert ignored.data_ptr() == address(x)
    print("torch.from_dlpack(x) is a writable tensor on a's memory, the flag ignored")
    t = torch.from_dlpack(y)  # the copy: torch may write
    t.mul_(10)
    print("torch wrote into its copy:", t.tolist(), "| a is untouched:", a.tolist())
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


if __name__ == "__main__":
    main()
