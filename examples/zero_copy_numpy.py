"""Zero-copy exchange with NumPy, both ways, and what "zero-copy" means.

DLPack moves no data: the consumer receives a pointer, a shape, strides and a
deleter.  Here a NumPy array goes into dlarray and back, through a transposed
and reversed view, and a write on one side is seen on the other because all
three objects share one block of memory.

Run: python examples/zero_copy_numpy.py
"""

import numpy as np

import dlarray
from dlarray import abi


def main() -> None:
    a = np.arange(6.0).reshape(2, 3)

    x = dlarray.from_dlpack(a)  # NumPy -> dlarray: a's memory, now also x's
    y = x.T[::-1]  # views in dlarray share that memory too
    b = np.from_dlpack(y)  # dlarray -> NumPy: still the same memory

    print("a's data at  ", hex(a.ctypes.data))
    print("x's data at  ", hex(abi.data_pointer(x)))
    b[0, 0] = 42.0  # b[0, 0] is y[0, 0] is x[0, 2] is a[0, 2]
    print("after b[0, 0] = 42, a is\n", a)
    assert a[0, 2] == 42.0

    # Who owns what: x holds the capsule's tensor; when the last view of it
    # dies, dlarray calls NumPy's deleter, which releases NumPy's reference.
    owner = abi.owner(x)
    print("x's owner:", type(owner).__name__, "version", owner.version)
    assert np.shares_memory(np.from_dlpack(x), a)


if __name__ == "__main__":
    main()
