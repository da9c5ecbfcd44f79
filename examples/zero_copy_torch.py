"""Zero-copy exchange with PyTorch: torch -> dlarray -> NumPy -> torch.

DLPack hands over a pointer, a shape and strides, never the data.  A torch
tensor imported by dlarray, exported from there to NumPy and imported back
by torch is one block of memory seen by four objects: their addresses are
equal and a write through any of them is seen by all.

The producer keeps owning the memory.  Importing takes a reference to the
producer's tensor, held by the capsule; dlarray calls the capsule's deleter
when the last view of the import dies, and only then does torch let go.  A
weak reference to the torch tensor shows it: the tensor outlives its own
name for as long as any view needs its memory.

Run: python examples/zero_copy_torch.py
"""

import weakref

import numpy as np

import dlarray
from dlarray import abi

REQUIRES = ("torch",)
INSTALL = "pip install torch"


def address(x: dlarray.DLArray) -> int:
    """The address of ``x``'s first element, as its DLPack export says."""
    return abi.data_pointer(x)


def main() -> None:
    try:
        import torch
    except ModuleNotFoundError:
        print(f"zero_copy_torch.py: skipped: it needs torch; {INSTALL}")
        return

    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)

    x = dlarray.from_dlpack(t)  # torch -> dlarray
    a = np.from_dlpack(x)  # dlarray -> NumPy
    u = torch.from_dlpack(a)  # NumPy -> torch, a second tensor on the same memory

    print("torch t    at", hex(t.data_ptr()))
    print("dlarray x  at", hex(address(x)))
    print("NumPy a    at", hex(a.ctypes.data))
    print("torch u    at", hex(u.data_ptr()))
    assert t.data_ptr() == address(x) == a.ctypes.data == u.data_ptr()

    u[0, 0] = 42.0  # written by torch, through NumPy's view of dlarray's view
    x[1, 2] = -1.0  # written by dlarray
    print("after u[0, 0] = 42 and x[1, 2] = -1, t is\n", t)
    assert t[0, 0] == 42.0 and a[1, 2] == -1.0

    # Ownership: drop the name `t`; the tensor lives on because x (and
    # through the capsules a and u) still need its memory.
    tensor_alive = weakref.ref(t)
    del t
    print("after del t, the torch tensor is alive:", tensor_alive() is not None)
    assert tensor_alive() is not None
    del x, a
    print("after del x, a (u still views it):", tensor_alive() is not None)
    assert tensor_alive() is not None
    del u  # the last view: its deleter releases NumPy's, NumPy's releases dlarray's...
    print("after del u, the last view, the torch tensor is alive:", tensor_alive() is not None)
    assert tensor_alive() is None


if __name__ == "__main__":
    main()
