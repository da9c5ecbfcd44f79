"""Sphinx configuration for dlarray's documentation site.

Build it as CI does (warnings are errors; the doctests run)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html
    python -m sphinx -W --keep-going -b doctest docs docs/_build/doctest

Pages are Markdown (MyST).  The API reference (docs/api/) is generated from
the numpydoc docstrings by autosummary into docs/api/generated/, which is
not committed: every build writes it afresh.
"""

from __future__ import annotations

import os
import shutil
import sys

DOCS = os.path.dirname(os.path.abspath(__file__))

import dlarray  # noqa: E402  (the installed package: its version, and autodoc imports it)

# ---- project -------------------------------------------------------------

project = "dlarray"
author = "the dlarray developers"
copyright = "the dlarray developers"
version = dlarray.__version__
release = dlarray.__version__

# ---- extensions ----------------------------------------------------------

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
]

# Local extensions live in docs/_ext/.  The figures extension (plots of the
# design, benchmarks and conformance pages, drawn with matplotlib during the
# build) is loaded when it is there.
_EXT = os.path.join(DOCS, "_ext")
sys.path.insert(0, _EXT)
if os.path.exists(os.path.join(_EXT, "dlarray_docs_figures.py")):
    extensions.append("dlarray_docs_figures")
    # The tutorial's and the design page's diagrams, drawn at the page's width
    # with the same helpers.
    extensions.append("dlarray_diagrams")

# docs/api/check_examples.py lists dlarray's public names; the build warns,
# and so fails under -W, when one of them is not documented (see setup()).
sys.path.insert(0, os.path.join(DOCS, "api"))

# .rst first: autosummary writes its stub pages with the first suffix.
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "README.md",
    "**/README.md",
    "_data",
    "_ext",
]

# ---- MyST ----------------------------------------------------------------

myst_enable_extensions = ["colon_fence", "deflist"]
# Links such as [Troubleshooting](#troubleshooting) point at headings: give
# headings down to level 3 the anchors GitHub gives them.
myst_heading_anchors = 3

# ---- autodoc, autosummary, napoleon --------------------------------------

# Generated stub pages go to docs/api/generated/ (the pages under docs/api/
# name it as their :toctree:; docs/_generated/ is the figures extension's,
# which it keeps Sphinx from reading).  Each build starts it afresh, so a name
# that left the library cannot leave a stale page behind, and marks it ignored
# for git: nothing in it is committed.
_GENERATED = os.path.join(DOCS, "api", "generated")
shutil.rmtree(_GENERATED, ignore_errors=True)
os.makedirs(_GENERATED)
with open(os.path.join(_GENERATED, ".gitignore"), "w") as _f:
    _f.write("# written by docs/conf.py: every Sphinx build regenerates this folder\n*\n")
autosummary_generate = True
autosummary_generate_overwrite = True

autodoc_default_options = {"member-order": "bysource"}
# Type hints stay in the signature; the parameter descriptions come from
# the numpydoc sections of the docstrings.
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
# Lower layers type their arrays as the C half, _core.ArrayBase; every array
# a user meets is a DLArray, so signatures say so.
autodoc_type_aliases = {"ArrayBase": "dlarray.DLArray"}
autodoc_preserve_defaults = True

napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_param = True
napoleon_use_ivar = True

# ---- doctest -------------------------------------------------------------

# `sphinx-build -b doctest` runs the {doctest} blocks of the pages and the
# `>>>` blocks of the docstrings that autodoc puts on the API pages.
doctest_global_setup = """
import dlarray
import numpy as np
"""
doctest_test_doctest_blocks = "default"

# ---- HTML ----------------------------------------------------------------

html_theme = "furo"
# The sidebar's brand: short, so that it fits on one line (the home page's
# heading keeps the subtitle, "DLPack from the ground up").
html_title = f"dlarray {release}"
html_short_title = "dlarray"
# docs/_static/dlarray.css: wide tables that fit, or scroll visibly, at 1366 px.
html_static_path = ["_static"]
html_css_files = ["dlarray.css"]
html_show_sourcelink = True
# "On this page" lists an object by its own name ("__dlpack__()", not
# "DLArray.__dlpack__()"): its section already says whose it is.
toc_object_entries_show_parents = "hide"

nitpicky = False


def _check_api_coverage(app: object, env: object) -> None:
    """Warn (an error under -W) for every public name of dlarray that the
    pages do not document: a new public function must get its entry in
    docs/api/.  The list of names is docs/api/check_examples.py's."""
    import check_examples
    from sphinx.util import logging

    documented = set(env.get_domain("py").objects)  # type: ignore[attr-defined]
    log = logging.getLogger("dlarray.api")
    for name in check_examples.missing_from(documented):
        log.warning("public name %s is not documented; add it to its page in docs/api/", name)


def _no_inline_attribute_type(
    app: object, what: str, name: str, obj: object, options: object, lines: list[str]
) -> None:
    """Keep napoleon from reading a property's first line as "type: text".

    For properties and attributes napoleon parses the first line Google
    style: in "Where the memory lives: its kind and device index." it takes
    "Where the memory lives" for the type.  numpydoc has no such rule, and
    dlarray's docstrings are numpydoc.  A leading ": " makes napoleon see an
    empty type and keep the whole line as the description.  Runs before
    napoleon (priority 400 < its 500)."""
    if what not in ("property", "attribute", "data"):
        return
    for i, line in enumerate(lines):
        if line.strip():
            if ":" in line:
                lines[i] = ": " + line
            return


def setup(app: object) -> dict[str, object]:
    app.connect("env-check-consistency", _check_api_coverage)  # type: ignore[attr-defined]
    app.connect(  # type: ignore[attr-defined]
        "autodoc-process-docstring", _no_inline_attribute_type, priority=400
    )
    return {"parallel_read_safe": True}
