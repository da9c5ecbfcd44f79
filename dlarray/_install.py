"""How to install one of dlarray's extras, said the way that works here.

``pip install 'dlarray[cuda]'`` works where dlarray came from a package
index.  Where it came from a checkout (``pip install -e .``, or a build of a
directory), or runs from one uninstalled, that command would fetch another
dlarray from the index, so the error messages that advise an extra name the
checkout instead: ``pip install -e '/path/to/dlarray[cuda]'`` when dlarray
runs from the checkout, ``pip install '/path/to/dlarray[cuda]'`` when it
was built from one into site-packages.  Where dlarray was installed from a
URL (a VCS or an archive), they name that URL.  pip records how a
distribution was installed in its ``direct_url.json`` (PEP 610): absent for
an index, present for everything else.

The optional packages dlarray's tools advise (the peers' rows in
:mod:`dlarray._peers`, ml_dtypes in the probe, the CUDA and SYCL runtimes
in the doctor) are named by the extra that installs them: pyproject.toml's
``[project.optional-dependencies]`` is the one place that says which
distribution and version an extra brings (``cupy`` is ``cupy-cuda13x``,
``cupy12`` is ``cupy-cuda12x``), and :func:`install_command` says the
command for this installation.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
from pathlib import Path
from urllib.parse import unquote, urlparse

#: Extras built against CUDA 13 (cuda-bindings 13 needs a CUDA 13 driver,
#: >= 580) -> their twins for a CUDA 12 driver, both in pyproject.toml.
CUDA_12_TWINS = {"cuda": "cuda12", "cupy": "cupy12"}

# The directory above the package: a checkout when it holds pyproject.toml
# (dlarray runs from its source tree, uninstalled or editable).
_ABOVE_PACKAGE = Path(__file__).resolve().parent.parent


@functools.cache
def _origin() -> tuple[str, str | None]:
    """How dlarray was installed: ("checkout", path) when it runs from its
    source tree, else from pip's record: ("index", None), ("local",
    path of a directory or an archive) or ("url", url)."""
    if (_ABOVE_PACKAGE / "pyproject.toml").is_file():
        return "checkout", str(_ABOVE_PACKAGE)
    try:
        recorded = importlib.metadata.distribution("dlarray").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        recorded = None
    try:
        url = str(json.loads(recorded)["url"]) if recorded else None
    except (ValueError, KeyError, TypeError):
        url = None  # unreadable: the usual advice
    if url is None:
        return "index", None
    if url.startswith("file:"):
        return "local", unquote(urlparse(url).path)
    return "url", url


def pip_install(extra: str) -> str:
    """The pip command that installs dlarray's ``extra`` for this installation.

    Examples
    --------
    >>> from dlarray._install import pip_install
    >>> pip_install("cuda")  # doctest: +ELLIPSIS
    "pip install ...[cuda]..."
    """
    origin, where = _origin()
    if origin == "index":
        return f"pip install 'dlarray[{extra}]'"
    if origin == "url":
        return f"pip install 'dlarray[{extra}] @ {where}'"
    editable = "-e " if origin == "checkout" else ""
    return f"pip install {editable}'{where}[{extra}]'"


def install_command(extra: str) -> str:
    """:func:`pip_install` of ``extra``, with its CUDA 12 twin where it has one.

    Examples
    --------
    >>> from dlarray._install import install_command
    >>> install_command("cupy")  # doctest: +ELLIPSIS
    "pip install ...[cupy]... (or [cupy12] on a CUDA 12 driver)"
    >>> install_command("ml-dtypes")  # doctest: +ELLIPSIS
    "pip install ...[ml-dtypes]..."
    """
    twin = CUDA_12_TWINS.get(extra)
    if twin is None:
        return pip_install(extra)
    return f"{pip_install(extra)} (or [{twin}] on a CUDA 12 driver)"
