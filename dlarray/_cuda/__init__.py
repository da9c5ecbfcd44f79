"""CUDA support: the runtime (loaded lazily through NVIDIA's ``cuda-bindings``)
and DLPack's stream rules.

``import dlarray`` imports these modules but not CUDA: the runtime
(``cuda-bindings``) is loaded by the first allocation, copy or export that
involves CUDA memory.  See ``docs/cuda.md``.
"""
