"""The machinery of the clients suite: a consumer call as data, the two
backends it runs on, and the comparison of its result with NumPy's.

A :class:`Call` names one call of a real Array API consumer (scikit-learn,
SciPy, array-api-extra, einops...).  ``parametrize(CALLS)`` makes a test of
each call on each backend, and ``check(call, backend)`` runs it twice: on
the backend's arrays, and on the same values as NumPy arrays; then it
compares the two results leaf by leaf (shape, dtype, values).

A consumer that itself breaks the standard is pinned as a
:class:`Deviation`: an exact-exception, strict xfail on the backends it
affects, with a link to the upstream issue or the standard's text.  A
failure that is dlarray's fault is never pinned: it fails.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NoReturn

import numpy as np
import pytest

#: The backends every call runs on: dlarray, and the reference
#: implementation of the standard, for a count to compare with.
BACKENDS = ("dlarray", "array_api_strict")

#: ``nox -s clients`` sets this: there a consumer or backend that fails to
#: import fails the run instead of skipping it.
REQUIRED = os.environ.get("DLARRAY_CLIENTS") == "1"

#: The standard's pages, for the links in a deviation's reason.
SPEC = "https://data-apis.org/array-api/2025.12/API_specification"
EXTENSIONS = "https://data-apis.org/array-api/2025.12/extensions"


def import_client(module: str, package: str) -> ModuleType:
    """Import a consumer (or array-api-strict), or skip the calling test
    module when its ``package`` is missing; under ``nox -s clients`` a
    missing one fails."""
    try:
        imported = importlib.import_module(module)
    except ImportError as exc:
        _cannot_run(
            f"{package} is not installed (nox -s clients installs it from "
            f"tests/clients/requirements.txt): {exc}"
        )
    # conftest.py sets SCIPY_ARRAY_API=1 unless SciPy was imported before it
    # ran; SciPy (and scikit-learn through it) reads the variable only then.
    if "scipy" in sys.modules and os.environ.get("SCIPY_ARRAY_API") != "1":
        _cannot_run(
            f"{package}: SciPy was imported before SCIPY_ARRAY_API=1 was set; "
            "set it in the environment"
        )
    return imported


def _cannot_run(reason: str) -> NoReturn:
    if REQUIRED:
        raise RuntimeError(f"nox -s clients cannot run: {reason}")
    pytest.skip(reason, allow_module_level=True)


def namespace(backend: str) -> ModuleType:
    if backend == "dlarray":
        import dlarray

        return dlarray
    return import_client(backend, backend.replace("_", "-"))


@dataclass(frozen=True)
class Deviation:
    """A consumer's own departure from the standard, seen on ``backends``:
    the call raises exactly ``raises`` there.  ``reason`` says which consumer
    does what, and links its upstream issue or the standard's text."""

    raises: type[BaseException]
    reason: str
    backends: tuple[str, ...] = BACKENDS


@dataclass(frozen=True)
class Call:
    """One consumer call: ``run(xp, *inputs)``, where ``inputs`` are NumPy
    arrays (each handed to ``run`` as ``xp.asarray`` of a copy) or any other
    values (handed over as they are).  ``xp`` is the backend's namespace, or
    NumPy for the reference run.

    ``native``: the consumer supports the standard for this call, so its
    result must come back as arrays of the backend.  False for calls that
    convert with ``np.asarray`` and answer in NumPy arrays.
    """

    name: str
    run: Callable[..., Any]
    inputs: tuple[Any, ...] = ()
    native: bool = True
    rtol: float = 1e-7
    atol: float = 0.0
    deviations: tuple[Deviation, ...] = ()
    marks: tuple[Any, ...] = field(default=())


def call(name: str, function: Callable[..., Any], *inputs: Any, **kwargs: Any) -> Call:
    """The common case: ``function(*inputs, **kwargs)``, which finds the
    namespace from its arguments (``Call`` fields go in ``kwargs`` as
    ``call_<field>``)."""
    options = {k[len("call_") :]: kwargs.pop(k) for k in list(kwargs) if k.startswith("call_")}
    return Call(name, lambda xp, *args: function(*args, **kwargs), inputs, **options)


def parametrize(calls: Iterable[Call]) -> pytest.MarkDecorator:
    """``@parametrize(CALLS)`` over ``(call, backend)``: a test per call and
    backend, with a call's deviations applied to their own backends only."""
    params = []
    for c in calls:
        for backend in BACKENDS:
            marks = list(c.marks)
            marks += [
                pytest.mark.xfail(strict=True, raises=d.raises, reason=d.reason)
                for d in c.deviations
                if backend in d.backends
            ]
            params.append(pytest.param(c, backend, id=f"{c.name}-{backend}", marks=marks))
    return pytest.mark.parametrize(("call", "backend"), params)


def check(c: Call, backend: str) -> None:
    """Run ``c`` on the backend and on NumPy, and compare the results."""
    xp = namespace(backend)
    expected = c.run(np, *(_copy(a) for a in c.inputs))
    inputs = (xp.asarray(_copy(a)) if isinstance(a, np.ndarray) else a for a in c.inputs)
    result = c.run(xp, *inputs)
    compare(result, expected, xp, native=c.native, rtol=c.rtol, atol=c.atol)


def _copy(value: Any) -> Any:
    # Each run gets its own copy: a consumer that writes into its input
    # must not change the other run's.
    return value.copy() if isinstance(value, np.ndarray) else value


def compare(
    result: Any, expected: Any, xp: ModuleType, *, native: bool, rtol: float = 1e-7,
    atol: float = 0.0,
) -> None:
    """Compare ``result`` (from the backend) with ``expected`` (from NumPy),
    walking tuples and lists; each leaf must match in shape, dtype and value."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(result, (tuple, list)), f"expected a sequence, got {type(result)}"
        assert len(result) == len(expected)
        for r, e in zip(result, expected, strict=True):
            compare(r, e, xp, native=native, rtol=rtol, atol=atol)
        return
    if expected is None or isinstance(expected, (str, np.dtype)):
        assert result == expected
        return
    array_type = type(xp.asarray(0))
    # NumPy answers in NumPy arrays and scalars, the backend in its own
    # arrays (0-d where NumPy gives a scalar); Python numbers stay numbers.
    if native and isinstance(expected, (np.ndarray, np.generic)):
        assert isinstance(result, array_type), (
            f"expected an array of {xp.__name__}, got {type(result).__name__}"
        )
    got, want = to_numpy(result), np.asarray(expected)
    assert got.shape == want.shape, f"shape {got.shape} != NumPy's {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != NumPy's {want.dtype}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def to_numpy(value: Any) -> np.ndarray:
    """A backend array as NumPy sees it through DLPack; anything else
    (NumPy arrays and scalars, Python numbers) through ``np.asarray``."""
    if hasattr(value, "__dlpack__") and not isinstance(value, (np.ndarray, np.generic)):
        return np.from_dlpack(value)
    return np.asarray(value)
