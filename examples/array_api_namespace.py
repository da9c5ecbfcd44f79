"""Write code once against the Array API standard, run it on dlarray.

A function written for the standard takes its namespace from its argument
(``x.__array_namespace__()``), so the same code runs on any conforming
library.  This script runs one such function, a numerically stable softmax,
on dlarray and checks the answer against NumPy on the same memory, then shows
the standard's strict type rules that dlarray enforces.
"""

import numpy as np

import dlarray
from dlarray import abi


def softmax(x, axis=-1):
    """Softmax along ``axis`` using only the Array API standard."""
    xp = x.__array_namespace__()
    shifted = x - xp.max(x, axis=axis, keepdims=True)
    e = xp.exp(shifted)
    return e / xp.sum(e, axis=axis, keepdims=True)


def main() -> None:
    xp = dlarray
    print(f"dlarray implements the Array API {xp.__array_api_version__}")

    logits = xp.asarray([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], dtype=xp.float32)
    probs = softmax(logits)
    print("softmax rows:", np.from_dlpack(probs).astype(np.float64).round(4).tolist())
    print("each row sums to 1:", bool(xp.all(xp.abs(xp.sum(probs, axis=1) - 1) < 1e-6)))

    # The compute was NumPy's, on dlarray's memory; the result is a DLArray
    # that any DLPack consumer can view without copying.
    a = np.from_dlpack(probs)
    print("NumPy sees the same memory:", a.ctypes.data == abi.data_pointer(probs))

    # The standard's promotion rules, not NumPy's: no mixing of kinds.
    ints = xp.asarray([1, 2, 3], dtype=xp.int32)
    try:
        ints + xp.asarray([0.5, 0.5, 0.5])
    except TypeError as err:
        print("int32 + float64 raises TypeError:", str(err).split(";")[0])
    print("explicit conversion works:", xp.astype(ints, xp.float64) + 0.5)


if __name__ == "__main__":
    main()
