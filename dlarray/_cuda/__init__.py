"""CUDA support: the runtime (loaded lazily through NVIDIA's ``cuda-bindings``)
and DLPack's stream rules.

Nothing here is imported by ``import dlarray``; the first array, copy or
export that involves CUDA memory loads it.  See ``docs/cuda.md``.
"""
