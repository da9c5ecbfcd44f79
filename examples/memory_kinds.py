"""One array moved through every kind of memory this machine has.

A dlarray array lives in one memory kind: host memory (``cpu``), CUDA
device, managed or pinned host memory (``cuda``, ``cuda_managed``,
``cuda_host``), or SYCL USM device, shared or host memory (``sycl``,
``sycl_shared``, ``sycl_host``).  ``x.to_device(device)`` copies it to
another kind, and ``dlarray.__array_namespace_info__().devices()`` lists the
devices this process can allocate on.  A kind that is missing says why when
asked for memory: ``CUDAUnavailableError`` or ``SYCLUnavailableError``, naming
the missing package, driver or device.

Managed and pinned CUDA memory are readable by the CPU, and their DLPack
device types say so (kDLCUDAManaged, kDLCUDAHost): NumPy views them in place,
without a copy.  SYCL shared and host USM are host-readable too, but DLPack has
one device type for all SYCL memory (kDLOneAPI), so NumPy cannot tell and
refuses them; ``np.from_dlpack(y, device="cpu")`` asks for a host copy.

The script runs anywhere; on a machine without a GPU or SYCL device it
visits only ``cpu`` and says why the other kinds are absent.

Run: python examples/memory_kinds.py
"""

import numpy as np

import dlarray
from dlarray import abi

KINDS = ("cuda", "cuda_managed", "cuda_host", "sycl", "sycl_shared", "sycl_host")
CPU = dlarray.Device("cpu")


def address(x: dlarray.DLArray) -> int:
    """The address of ``x``'s first element, as its DLPack export says."""
    return abi.data_pointer(x)


def why_missing(kind: str) -> str:
    """The reason dlarray gives for not allocating memory of ``kind``."""
    try:
        dlarray.empty(1, device=dlarray.Device(kind, 0))
    except (dlarray.CUDAUnavailableError, dlarray.SYCLUnavailableError) as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    return "it allocates, but devices() does not list it"


def show_numpy_view(y: dlarray.DLArray) -> None:
    """How NumPy reads memory of ``y``'s kind: in place, or only as a copy."""
    kind = y.device.kind
    if kind in ("cuda_managed", "cuda_host"):
        a = np.from_dlpack(y)
        assert a.ctypes.data == address(y)
        print(f"    NumPy views {kind} memory in place, at the same address")
    elif kind in ("sycl_shared", "sycl_host"):
        try:
            np.from_dlpack(y)
        except (BufferError, RuntimeError) as exc:  # NumPy 2.4 raises RuntimeError
            print(f"    NumPy refuses {kind} memory (kDLOneAPI): {type(exc).__name__}: {exc}")
        else:
            print(f"    this NumPy views {kind} memory")
        a = np.from_dlpack(y, device="cpu")
        assert a.ctypes.data != address(y)
        print(f"    np.from_dlpack(y, device='cpu') gives a host copy: {a.tolist()}")


def main() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    x = dlarray.asarray(values, dtype=dlarray.float32)
    devices = dlarray.__array_namespace_info__().devices()
    print("devices():", ", ".join(f"{d.kind}:{d.index}" for d in devices))

    # One array hops through every device in turn (each hop a copy), then home.
    for device in devices:
        if device == CPU:
            continue
        x = x.to_device(device)
        assert x.device == device
        assert np.from_dlpack(x.to_device(CPU)).tolist() == values
        print(f"  now on {device.kind}:{device.index}, values intact")
        show_numpy_view(x)
    x = x.to_device(CPU)
    assert x.device == CPU and np.from_dlpack(x).tolist() == values
    print("back on cpu:", np.from_dlpack(x).tolist())

    # Kinds with no device, grouped by the reason dlarray gives.
    present = {d.kind for d in devices}
    reasons: dict[str, list[str]] = {}
    for kind in KINDS:
        if kind not in present:
            reasons.setdefault(why_missing(kind), []).append(kind)
    for reason, kinds in reasons.items():
        print(f"missing {', '.join(kinds)}: {reason}")
    if not reasons:
        print("every memory kind was visited")


if __name__ == "__main__":
    main()
