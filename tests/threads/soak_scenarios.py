"""The soak's scenarios: which operations its workers mix, and in what
proportions.  Each mixes the exchanges that hold the GIL with one way of
running deleters elsewhere, so that a failure names the way."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import soak_ops


@dataclass(frozen=True)
class Scenario:
    """A weighted mix of operations, and the labels it must have counted at
    least once for the soak to have exercised what it claims."""

    mix: dict[Callable[[soak_ops.Worker], str], int]
    expected: tuple[str, ...]
    torch: Any = None  # the module, for the scenario that uses it


_BASE = (
    "dlarray->numpy",
    "numpy->dlarray",
    "dlarray->dlarray",
    "copy=True",
    "read-only",
    "views",
    "handoff put",
)

NAMES = ("holding-the-gil", "torch", "foreign-threads", "deferred-c-threads")


def torch_available() -> bool:
    return importlib.util.find_spec("torch") is not None


def build(name: str) -> Scenario:
    """The scenario called ``name`` (importing PyTorch only for "torch")."""
    if name == "holding-the-gil":
        return Scenario(soak_ops.HOLDING_THE_GIL, _BASE)
    if name == "torch":
        import soak_torch

        return Scenario(
            {**soak_ops.HOLDING_THE_GIL, **soak_torch.TORCH},
            (*_BASE, "dlarray->torch", "torch->dlarray"),
            torch=soak_torch.torch,
        )
    if name == "foreign-threads":
        return Scenario(
            {**soak_ops.HOLDING_THE_GIL, **soak_ops.FOREIGN},
            (*_BASE, "deleter, Python thread", "deleter, C thread"),
        )
    if name == "deferred-c-threads":
        return Scenario(
            {**soak_ops.HOLDING_THE_GIL, **soak_ops.DEFERRED},
            (*_BASE, "deleter, C thread, joined later"),
        )
    raise ValueError(f"no scenario {name!r}; the scenarios are {', '.join(NAMES)}")
