"""pytest's entry point to dlarray's DLPack conformance kit.

``pytest --dlpack-library NAME`` runs every case of ``python -m dlarray
probe`` against one library, as tests of the session (dlarray/_kit.py;
docs/guide/test-your-dlpack.md).  pytest loads this module in every run
wherever dlarray is installed, so it lives outside the dlarray package
and imports nothing: dlarray, NumPy and the kit load only when the option
is given.
"""

from __future__ import annotations

from typing import Any


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("dlpack", "DLPack conformance kit (dlarray)")
    group.addoption(
        "--dlpack-library",
        metavar="NAME",
        help="judge this library's DLPack against the specification, one test per case: "
        "a library dlarray's probe knows (numpy, torch, jax, ...) or the path of an adapter "
        "file (docs/guide/test-your-dlpack.md)",
    )
    group.addoption(
        "--dlpack-known-deviations",
        metavar="FILE",
        help="a TOML file whose [deviations] table maps a case to the reason or issue link "
        "of a deviation the library knows about: those cases are expected failures",
    )
    group.addoption(
        "--dlpack-timeout",
        metavar="S",
        help="seconds the library may take to import, or to answer one case, before it "
        "counts as hanging (default: $DLARRAY_PEER_TIMEOUT, else 60)",
    )


def pytest_configure(config: Any) -> None:
    if config.getoption("dlpack_library") is None:
        return
    from dlarray import _kit  # lazy: only a run that asks for the kit imports dlarray

    config.pluginmanager.register(_kit.Kit(config), "dlarray-dlpack-kit")
