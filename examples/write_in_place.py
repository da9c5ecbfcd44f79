"""Write into the caller's tensor, whichever library made it.

A library function that updates its argument in place can be written once
for every DLPack producer: import the tensor with
``dlarray.from_dlpack(tensor, copy=False)`` -- a view of the caller's memory,
never a copy -- and write into that view with dlarray's in-place operators
(``x *= 2``) or item assignment (``x[...] = value``).  The caller sees the
change in its own tensor, on its own device: a NumPy or PyTorch array on the
host, a CuPy array on a GPU, a dpnp array on a SYCL device.  Strided views
work too: only the elements the view covers change.

Two rules keep this safe:

* Read-only memory is refused.  A producer marks it ``READ_ONLY`` in a
  versioned capsule (NumPy does for an array with ``flags.writeable =
  False``); dlarray imports it read-only and the write raises ``ValueError``
  before touching the memory.
* Arrays that are immutable without saying so must never be written.  JAX
  arrays are immutable (XLA may share or reuse their buffers), but JAX
  exports legacy capsules, which carry no flags, so dlarray cannot tell and
  imports them as writable.  A function that writes must document that it
  takes no JAX arrays (or refuse them itself); this script imports a JAX
  array only to show that, and never writes into it.

Run: python examples/write_in_place.py
"""

import importlib

import numpy as np

import dlarray
from dlarray import abi


def scale_(tensor, factor):
    """Multiply ``tensor`` by ``factor`` in place, for any DLPack producer.

    Parameters
    ----------
    tensor
        A NumPy, PyTorch, CuPy, dpnp... array.  Not a JAX array: JAX arrays
        are immutable, and their capsules cannot say so.
    factor : int or float

    Returns
    -------
    The same ``tensor``, changed.

    Raises
    ------
    ValueError
        The tensor's memory is read-only.
    BufferError
        dlarray cannot view the tensor's memory without a copy.
    """
    x = dlarray.from_dlpack(tensor, copy=False)  # a view: writes reach the caller
    x *= factor
    return tensor


def optional(module_name):
    """The module, or None when it is not installed."""
    try:
        return importlib.import_module(module_name)
    except ImportError:
        return None


def run_on_numpy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    scale_(a[:, ::2], 10)  # a strided view: columns 0 and 2 only
    print("numpy:", a.tolist())
    assert a.tolist() == [[0.0, 1.0, 20.0], [30.0, 4.0, 50.0]]


def run_on_torch(torch):
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    scale_(t[:, ::2], 10)
    print("torch:", t.tolist())
    assert t.tolist() == [[0.0, 1.0, 20.0], [30.0, 4.0, 50.0]]


def run_on_device(name, make, to_numpy):
    """Scale an array that lives on a device, when the library finds one."""
    try:
        d = make()
    except Exception as exc:  # no device, no driver: the library says which
        print(f"{name}: skipped, no device ({type(exc).__name__}: {exc})")
        return
    try:
        scale_(d, 3)
    except (dlarray.CUDAUnavailableError, dlarray.SYCLUnavailableError) as exc:
        print(f"{name}: skipped, dlarray cannot reach the device ({exc})")
        return
    print(f"{name}:", to_numpy(d).tolist())
    assert to_numpy(d).tolist() == [0.0, 3.0, 6.0, 9.0]


def show_refusal_of_read_only_memory():
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    try:
        scale_(a, 2)
    except ValueError as exc:
        print("read-only NumPy array refused, ValueError:", str(exc).split(";")[0])
    else:
        raise AssertionError("a read-only array was written")
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


def show_why_jax_arrays_are_off_limits(jnp):
    x = dlarray.from_dlpack(jnp.arange(4.0))  # read, never written
    print(
        "a JAX array arrives through a legacy capsule "
        f"(versioned={abi.owner(x).versioned}), so dlarray sees readonly={x.readonly}: "
        "scale_ must not be given one"
    )


def main() -> None:
    run_on_numpy()
    torch = optional("torch")
    if torch is None:
        print("torch: skipped, not installed")
    else:
        run_on_torch(torch)
    cupy = optional("cupy")
    if cupy is None:
        print("cupy: skipped, not installed")
    else:
        run_on_device("cupy", lambda: cupy.arange(4, dtype=cupy.float32), cupy.asnumpy)
    dpnp = optional("dpnp")
    if dpnp is None:
        print("dpnp: skipped, not installed")
    else:
        run_on_device("dpnp", lambda: dpnp.arange(4, dtype=dpnp.float32), dpnp.asnumpy)
    show_refusal_of_read_only_memory()
    jnp = optional("jax.numpy")
    if jnp is not None:
        show_why_jax_arrays_are_off_limits(jnp)


if __name__ == "__main__":
    main()
