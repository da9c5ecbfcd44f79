"""Exchanges with PyTorch, both ways (a module of their own, so that only
the scenario that uses PyTorch imports it)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from soak_ops import N, Worker, check, vector

import dlarray


def dlarray_to_torch(w: Worker) -> str:
    """PyTorch calls the deleter of this export without the GIL."""
    t = torch.from_dlpack(vector(w, "dlarray->torch"))
    check(t[5].item() == 5.0, "torch.from_dlpack(dlarray) read a wrong value")
    return "dlarray->torch"


def torch_to_dlarray(w: Worker) -> str:
    if w.rng.random() < 0.5:
        t = w.sources.torch
    else:
        t = torch.arange(N, dtype=torch.float64)
        w.tracker.offer("torch->dlarray", t)
    y = dlarray.from_dlpack(t, copy=True) if w.rng.random() < 0.25 else dlarray.from_dlpack(t)
    check(float(y[5]) == 5.0, "dlarray.from_dlpack(torch) read a wrong value")
    return "torch->dlarray"


TORCH: dict[Callable[[Worker], str], int] = {dlarray_to_torch: 16, torch_to_dlarray: 4}
