"""The install commands dlarray's error messages advise (dlarray._install).

``pip install 'dlarray[cuda]'`` is right only where dlarray came from a
package index; from a checkout or a URL the command must name those."""

from __future__ import annotations

import importlib.metadata
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from dlarray import _install
from dlarray._cuda import runtime as cuda_runtime
from dlarray._peers import PEERS, SELF, peer_named


class FakeDistribution:
    """A distribution whose ``direct_url.json`` is ``recorded`` (None: none)."""

    def __init__(self, recorded: str | None) -> None:
        self.recorded = recorded

    def read_text(self, name: str) -> str | None:
        return self.recorded if name == "direct_url.json" else None


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """install(recorded) makes dlarray look installed in site-packages (no
    checkout above the package) with that ``direct_url.json``; None for no
    record, ``False`` for no distribution at all."""
    monkeypatch.setattr(_install, "_ABOVE_PACKAGE", tmp_path / "site-packages")

    def install(recorded: str | bool | None) -> None:
        def distribution(name: str) -> FakeDistribution:
            assert name == "dlarray"
            if recorded is False:
                raise importlib.metadata.PackageNotFoundError(name)
            return FakeDistribution(recorded)  # type: ignore[arg-type]

        monkeypatch.setattr(importlib.metadata, "distribution", distribution)
        _install._origin.cache_clear()

    yield install
    _install._origin.cache_clear()


def test_from_an_index_the_extra_is_named():
    # This test's own run: whatever the installation, the command installs
    # the extra (by name, or from the place dlarray came from).
    assert "[cuda]" in _install.pip_install("cuda")


@pytest.mark.parametrize("recorded", [None, False, "{not json", json.dumps({"no": "url"})])
def test_an_index_install_or_no_record_gets_the_extra_by_name(installed, recorded):
    installed(recorded)
    assert _install.pip_install("cuda") == "pip install 'dlarray[cuda]'"


def test_a_build_of_a_directory_gets_that_directory(installed):
    installed(json.dumps({"url": "file:///home/me/dlarray%20src", "dir_info": {}}))
    assert _install.pip_install("sycl") == "pip install '/home/me/dlarray src[sycl]'"


def test_a_url_install_gets_the_url(installed):
    url = "git+https://example.org/dlarray.git"
    installed(json.dumps({"url": url, "vcs_info": {"vcs": "git"}}))
    assert _install.pip_install("dpnp") == f"pip install 'dlarray[dpnp] @ {url}'"


def test_a_checkout_gets_an_editable_install_of_itself(monkeypatch, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'dlarray'\n")
    monkeypatch.setattr(_install, "_ABOVE_PACKAGE", tmp_path)
    _install._origin.cache_clear()
    try:
        assert _install.pip_install("cuda") == f"pip install -e '{tmp_path}[cuda]'"
    finally:
        _install._origin.cache_clear()


def test_the_cuda_message_advises_the_command_for_this_installation(installed, monkeypatch):
    installed(json.dumps({"url": "file:///src/dlarray", "dir_info": {}}))
    # cuda-bindings made unimportable, even where an earlier test imported
    # it: the message names the extra's command.
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    monkeypatch.setitem(sys.modules, "cuda.bindings.runtime", None)
    monkeypatch.setattr(cuda_runtime, "_driver_present", lambda: True)  # as on a GPU machine
    with pytest.raises(cuda_runtime.CUDAUnavailableError) as caught:
        cuda_runtime._load()
    assert "pip install '/src/dlarray[cuda]'" in str(caught.value)
    assert "pip install '/src/dlarray[cuda12]' on a CUDA 12 driver" in str(caught.value)


def test_without_a_driver_the_cuda_message_says_no_package_would_help(monkeypatch):
    # Before, the message advised installing dlarray[cuda] on a machine with
    # no NVIDIA driver, where that cannot help.
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    monkeypatch.setitem(sys.modules, "cuda.bindings.runtime", None)
    monkeypatch.setattr(cuda_runtime, "_driver_present", lambda: False)
    with pytest.raises(cuda_runtime.CUDAUnavailableError) as caught:
        cuda_runtime._load()
    message = str(caught.value)
    assert message.startswith("CUDA memory needs an NVIDIA GPU and its driver")
    assert "no NVIDIA driver" in message and "would not help here" in message
    assert "device='cpu'" in message


def test_the_driver_probe_answers_for_this_machine():
    # A real answer (no stand-in): libcuda loads exactly where the probe says.
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
        loads = True
    except OSError:
        loads = False
    assert cuda_runtime._driver_present() is loads


# ---- the peers' install hints: pyproject.toml's extras are the one source ----


def _extras() -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    extras: dict[str, list[str]] = tomllib.loads(pyproject.read_text())["project"][
        "optional-dependencies"
    ]
    return extras


def _distributions(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_each_cuda_extra_has_its_cuda_12_twin():
    extras = _extras()
    for extra, twin in _install.CUDA_12_TWINS.items():
        assert extra in extras and twin in extras
        # The same packages, built for the other CUDA major.
        assert len(extras[extra]) == len(extras[twin])
        assert ("cuda-bindings>=13" in extras[extra]) and ("cuda-bindings>=13" not in extras[twin])


def test_a_peer_an_extra_installs_is_advised_by_that_extra():
    # The probe advised `pip install cupy-cuda12x` where the extra installs
    # cupy-cuda13x: the advice now comes from the extra.
    extras = _extras()
    with_extras = [p for p in (*PEERS, SELF) if p.extra is not None]
    assert {p.name for p in with_extras} == {"cupy", "dpnp"}
    for peer in with_extras:
        assert peer.pip in _distributions(extras[peer.extra]), (peer.name, extras[peer.extra])
        assert peer.install == _install.install_command(peer.extra)
    assert peer_named("cupy").install.endswith(" (or [cupy12] on a CUDA 12 driver)")
    assert "cupy-cuda12x" not in peer_named("cupy").install


def test_a_peer_without_an_extra_is_its_distribution():
    for peer in PEERS:
        if peer.extra is None:
            assert peer.install == f"pip install {peer.pip}"
    assert peer_named("tvm_ffi").install == "pip install apache-tvm-ffi"


def test_the_install_command_adds_the_cuda_12_twin(installed):
    installed(None)
    assert _install.install_command("cuda") == (
        "pip install 'dlarray[cuda]' (or [cuda12] on a CUDA 12 driver)"
    )
    assert _install.install_command("ml-dtypes") == "pip install 'dlarray[ml-dtypes]'"
    assert "ml-dtypes" in _extras()
