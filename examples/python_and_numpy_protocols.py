"""A dlarray array where Python and NumPy code expects an array.

Library code written for NumPy converts what it is given with
``np.asarray``; scripts pickle arrays, copy them, format them in f-strings,
take their ``len``.  A dlarray array answers all of these the way NumPy's
own arrays do, on memory the host can read:

* ``np.asarray(x)`` and ``memoryview(x)`` are zero-copy views of x's memory
  (the buffer protocol and ``__array__``); a read-only array gives a
  read-only view.  Memory the host cannot read (a GPU's) raises TypeError
  naming ``x.to_device("cpu")``: dlarray never copies it behind your back.
* ``pickle`` and ``copy`` carry values, dtype, shape and memory kind.
* ``len(x)``, ``f"{x[0]:.2f}"``, ``round(x, 2)`` work; NumPy's float and
  complex scalars count as the Python scalars they subclass.
* ``x += y`` writes into x's memory, as NumPy's does.
* Mixing another library's array into an operator raises TypeError saying
  how to convert, rather than guessing.
* A PyTorch tensor that requires grad is refused as PyTorch's own
  ``__dlpack__`` refuses it (skipped when PyTorch is not installed).
* ``repr`` summarises large arrays as NumPy does and states the shape;
  bfloat16 and the fp8/fp4 formats print their values, without ml_dtypes.
* Real consumers: SciPy's statistics on dlarray arrays (skipped when SciPy is
  not installed; ``nox -s clients`` drives scikit-learn, SciPy,
  array-api-extra, array-api-compat and einops this way).

Run: python examples/python_and_numpy_protocols.py
"""

import copy
import importlib.util
import os
import pickle
import sys

import numpy as np

import dlarray


def numpy_reads_the_memory(x):
    """np.asarray and memoryview: views, no copies."""
    a = np.asarray(x)
    a[0, 0] = 10.0
    print("np.asarray(x) shares memory:", float(x[0, 0]) == 10.0)
    print("NumPy functions on a:", np.percentile(a, 50), "on x (dlarray's):", repr(np.mean(x)))
    m = memoryview(x)
    print("memoryview:", m.format, m.shape, m.strides, "read-only:", m.readonly)
    try:
        memoryview(dlarray.zeros(2, dtype=dlarray.bfloat16))
    except BufferError as exc:
        print("bfloat16 has no buffer format:", str(exc).split(";")[0])


def python_protocols(x):
    """len, format, round, pickle, copy, NumPy scalars."""
    print("len:", len(x), "| f-string:", f"{x[1, 2]:.2f}", "| round:", round(x / 3, 2)[0])
    restored = pickle.loads(pickle.dumps(x))
    print("pickle round trip equal:", bool(dlarray.all(restored == x)), restored.dtype)
    duplicate = copy.deepcopy(x)
    duplicate[...] = 0.0
    print("deepcopy is independent:", float(x[0, 0]) != 0.0)
    x[1, 0] = np.float64(7.5)  # numpy.float64 is a float
    print("NumPy float scalar stored:", float(x[1, 0]))


def operators(x):
    """In place writes into x; mixing libraries says how to convert."""
    before = np.asarray(x).ctypes.data
    x += dlarray.ones(3)
    print("x += y kept x's memory:", np.asarray(x).ctypes.data == before)
    try:
        x + np.ones(3)
    except TypeError as exc:
        print("mixing refused:", str(exc).split("  ")[-1])


def device_memory(x):
    """GPU memory: refused with the copy to make, never copied implicitly."""
    if not any(d.kind == "cuda" for d in dlarray.__array_namespace_info__().devices()):
        print("left out: the GPU part (no CUDA device here)")
        return
    gpu = x.to_device("cuda")
    try:
        np.asarray(gpu)
    except TypeError as exc:
        print("GPU memory:", str(exc).split(";")[1].strip())
    print("copied explicitly:", np.asarray(gpu.to_device("cpu"))[0])


def torch_requires_grad():
    """A tensor that requires grad is refused as torch's __dlpack__ refuses it."""
    if not _has("torch"):
        print("left out: the PyTorch part (torch is not installed)")
        return
    import torch

    leaf = torch.ones(3, requires_grad=True)
    try:
        dlarray.from_dlpack(leaf)
    except BufferError as exc:
        print("requires_grad tensor refused, as torch refuses it:", exc)
    print("after detach():", dlarray.from_dlpack(leaf.detach()))


def printing():
    """repr and str: summarised, shape stated, every dtype readable."""
    print("repr of 1M elements:", repr(dlarray.arange(1_000_000)))
    print("repr of (0, 3):", repr(dlarray.zeros((0, 3))))
    if _has("ml_dtypes"):  # converting float32 to bfloat16 computes with ml_dtypes
        half = dlarray.astype(dlarray.asarray([0.1, 1.0, -2.5]), dlarray.bfloat16)
        print("bfloat16:", repr(half))
    fp4 = dlarray.subbyte.from_codes([1, 2, 3, 15], dlarray.float4_e2m1fn)
    print("packed fp4:", repr(fp4))


def consumers():
    """SciPy converts unknown arrays with np.asarray: now a zero-copy view."""
    if not _has("scipy"):
        print("left out: the SciPy part (scipy is not installed)")
        return
    if "scipy" not in sys.modules:
        os.environ.setdefault("SCIPY_ARRAY_API", "1")  # read once, at SciPy's import
    from scipy import stats

    a = dlarray.asarray([float(v) for v in range(10)])
    print("scipy.stats.scoreatpercentile(x, 30):", float(stats.scoreatpercentile(a, 30)))
    rho = stats.spearmanr(a, a**2).statistic
    print("scipy.stats.spearmanr(x, x**2):", float(rho))


def _has(package):
    return importlib.util.find_spec(package) is not None


def main():
    x = dlarray.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    numpy_reads_the_memory(x)
    python_protocols(x)
    operators(x)
    device_memory(x)
    torch_requires_grad()
    printing()
    consumers()


if __name__ == "__main__":
    main()
