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
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
from pathlib import Path
from urllib.parse import unquote, urlparse

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
