"""The engines' hooks beyond the standard are declared once
(``dlarray._engine.namespaces.EngineHooks``) and asked for by name through
``hook``: an undeclared hook is refused where an engine defines it and
where a chapter asks for it."""

from __future__ import annotations

import operator
import re
from pathlib import Path

import pytest

from dlarray._engine import numpy_engine
from dlarray._engine.namespaces import HOOKS, EngineHooks, Namespace, engine_namespace, hook

PACKAGE = Path(__file__).resolve().parents[2] / "dlarray"
#: dlarray's names that start like a hook and are none: the host view
#: engine's record of its spans, and the kit's pytest plugin module.
NOT_HOOKS = {"_dlarray_spans", "_dlarray_pytest"}


def test_every_hook_named_in_the_sources_is_declared() -> None:
    named = set()
    for path in PACKAGE.rglob("*.py"):
        named |= set(re.findall(r"\b_dlarray_[a-z_]+\b", path.read_text(encoding="utf-8")))
    named -= NOT_HOOKS
    assert named == set(HOOKS), "declare each in EngineHooks, or remove the stale name"
    assert set(EngineHooks.__annotations__) == set(HOOKS)


def test_the_numpy_engine_offers_its_hooks() -> None:
    xp = engine_namespace("numpy")
    assert hook(xp, "_dlarray_getitem") is operator.getitem
    assert hook(xp, "_dlarray_accurate_accumulation") is True
    assert hook(xp, "_dlarray_write") is None  # CuPy's alone
    offered = {k for k in numpy_engine.FIXES if k.startswith("_dlarray_")}
    assert offered == set(HOOKS) - {"_dlarray_write"}


def test_an_undeclared_hook_is_refused_where_asked() -> None:
    with pytest.raises(AttributeError, match=r"'_dlarray_fast_sum' is not an engine hook"):
        hook(engine_namespace("numpy"), "_dlarray_fast_sum")


def test_an_engine_cannot_define_an_undeclared_hook() -> None:
    import numpy as np

    with pytest.raises(TypeError, match=r"\['_dlarray_fast_sum'\] are no engine hooks"):
        Namespace("toy", np, {"_dlarray_fast_sum": np.sum, "sum": np.sum})
    toy = Namespace("toy", np, {"_dlarray_getitem": operator.getitem})
    assert hook(toy, "_dlarray_getitem") is operator.getitem
    assert hook(toy, "_dlarray_setitem") is None
