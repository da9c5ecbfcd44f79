"""array-api-compat: how consumers recognise an array and its namespace.

These helpers answer about the array itself (its namespace, device, size,
kind), so each is checked against what the backend says of itself, and
against the same helper's answer for a NumPy array where they compare.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from .client_calls import BACKENDS, import_client, namespace, to_numpy

compat = import_client("array_api_compat", "array-api-compat")

backends = pytest.mark.parametrize("backend", BACKENDS)


def sample(xp: ModuleType) -> Any:
    return xp.reshape(xp.arange(24.0), (2, 3, 4))


# (name, the call on the backend's array x, what it must answer); the
# answers need the backend's namespace xp.
NAMESPACE_CALLS: list[tuple[str, Callable[..., Any], Callable[..., Any]]] = [
    ("array_namespace", lambda xp, x: compat.array_namespace(x), lambda xp: xp),
    ("array_namespace-two", lambda xp, x: compat.array_namespace(x, x[0, ...]), lambda xp: xp),
    ("array_namespace-scalar", lambda xp, x: compat.array_namespace(x, 1.0), lambda xp: xp),
    ("array_namespace-none", lambda xp, x: compat.array_namespace(x, None), lambda xp: xp),
    (
        "array_namespace-2024.12",
        lambda xp, x: compat.array_namespace(x, api_version="2024.12"),
        lambda xp: xp,
    ),
    ("get_namespace", lambda xp, x: compat.get_namespace(x), lambda xp: xp),
    ("device", lambda xp, x: compat.device(x), lambda xp: sample(xp).device),
    ("size", lambda xp, x: compat.size(x), lambda xp: 24),
    ("size-0d", lambda xp, x: compat.size(x[0, 0, 0]), lambda xp: 1),
    ("size-empty", lambda xp, x: compat.size(x[:, :0, :]), lambda xp: 0),
    ("is_array_api_obj", lambda xp, x: compat.is_array_api_obj(x), lambda xp: True),
    ("is_writeable_array", lambda xp, x: compat.is_writeable_array(x), lambda xp: True),
    ("is_lazy_array", lambda xp, x: compat.is_lazy_array(x), lambda xp: False),
    ("is_numpy_array", lambda xp, x: compat.is_numpy_array(x), lambda xp: False),
    ("is_torch_array", lambda xp, x: compat.is_torch_array(x), lambda xp: False),
    ("is_jax_array", lambda xp, x: compat.is_jax_array(x), lambda xp: False),
    ("is_dask_array", lambda xp, x: compat.is_dask_array(x), lambda xp: False),
    ("is_numpy_namespace", lambda xp, x: compat.is_numpy_namespace(xp), lambda xp: False),
    (
        "is_array_api_strict_namespace",
        lambda xp, x: compat.is_array_api_strict_namespace(xp),
        lambda xp: xp.__name__ == "array_api_strict",
    ),
]


@backends
@pytest.mark.parametrize(
    ("what", "ask", "answer"), NAMESPACE_CALLS, ids=[c[0] for c in NAMESPACE_CALLS]
)
def test_helper_answers_for_the_backend(
    backend: str, what: str, ask: Callable[..., Any], answer: Callable[..., Any]
) -> None:
    xp = namespace(backend)
    got = ask(xp, sample(xp))
    assert got is answer(xp) or got == answer(xp)


@backends
def test_size_matches_numpys(backend: str) -> None:
    xp = namespace(backend)
    assert compat.size(sample(xp)) == compat.size(np.arange(24.0).reshape(2, 3, 4))


@backends
def test_to_device_on_its_own_device_keeps_the_values(backend: str) -> None:
    xp = namespace(backend)
    x = sample(xp)
    moved = compat.to_device(x, compat.device(x))
    assert type(moved) is type(x)
    np.testing.assert_array_equal(to_numpy(moved), np.arange(24.0).reshape(2, 3, 4))


@backends
def test_array_namespace_refuses_a_mix_with_numpy(backend: str) -> None:
    xp = namespace(backend)
    with pytest.raises(TypeError, match="Multiple namespaces"):
        compat.array_namespace(sample(xp), np.ones(3))
