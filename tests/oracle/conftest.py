"""The oracle layer's helpers hold no tests (see README.md in this folder)."""

from __future__ import annotations

import os
import sys
import warnings

# The helper modules import each other by name, whichever rootdir pytest runs from.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# --doctest-modules must not import the helpers as test modules twice.
collect_ignore = ["oracle_support.py", "reduction_oracle.py", "norm_oracle.py"]

# A failing Hypothesis example imports its patch writer, whose libcst import
# raises a DeprecationWarning; under filterwarnings=error that would turn a
# readable failure into an INTERNALERROR.  Import it now, quietly.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:  # pragma: no cover - libcst not installed
        pass
