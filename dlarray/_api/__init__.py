"""The Array API namespace (standard revision 2025.12), one module per chapter.

Each chapter module lists its public functions in ``__all__``; ``NAMESPACE``
collects them and ``dlarray/__init__.py`` exposes them at the top level, so
``dlarray`` itself is the namespace ``x.__array_namespace__()`` returns.
The extensions live in :mod:`dlarray.linalg` and :mod:`dlarray.fft`.

Every function follows the same pattern, after array-api-strict: validate
arguments with the rules of :mod:`dlarray._rules`, view the inputs as engine
(NumPy) arrays zero-copy, compute, and bring the result back as a DLArray
through DLPack (:func:`dlarray._engine.routing.wrap`).  The functions the
host fast path serves (:data:`dlarray._engine.host_fast_path.CASES`) are
published with it in front: a call it computes never reaches the chapter.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from dlarray._api import (
    creation,
    dtype_functions,
    elementwise,
    indexing_functions,
    info,
    linear_algebra,
    manipulation,
    searching,
    sets,
    sorting,
    statistical,
    utility,
)
from dlarray._engine import host_fast_path

CHAPTERS: tuple[ModuleType, ...] = (
    creation,
    dtype_functions,
    elementwise,
    indexing_functions,
    info,
    linear_algebra,
    manipulation,
    searching,
    sets,
    sorting,
    statistical,
    utility,
)

NAMESPACE: dict[str, Any] = {}
for _chapter in CHAPTERS:
    for _name in _chapter.__all__:
        _function = getattr(_chapter, _name)
        if _name in host_fast_path.CASES:
            _function = host_fast_path.accelerated(_name, _function)
            # The chapter's attribute is the published object too, so that
            # pickle (which finds a function by its module and name) and
            # `from dlarray._api.statistical import sum` meet dlarray.sum.
            setattr(_chapter, _name, _function)
        NAMESPACE[_name] = _function
