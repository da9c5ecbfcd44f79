"""Compute engines: other libraries' kernels, borrowed zero-copy through DLPack.

dlarray computes nothing itself.  Each operation views its input arrays as an
engine's arrays (NumPy for host memory), lets the engine compute, and wraps the
result back as a DLArray.  The Array API rules are enforced by dlarray before
the engine is called, not left to it.
"""
