"""Every snippet of the tutorial and the user guide runs when pasted.

The documentation build runs these pages' doctests too, but with a global
setup (``import dlarray``, ``import numpy as np``) and Sphinx's hidden
``testsetup`` blocks available.  A reader pasting a page into a REPL has
neither.  So here each page runs top to bottom in one fresh namespace, as
a REPL session would, with nothing imported beforehand, and the pages may
not hide code (no ``testsetup``/``testcleanup``) nor reach for private
names (``x._data``, ``dlarray._core``): what a reader sees is all there is.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted([*DOCS.glob("tutorial/*.md"), *DOCS.glob("guide/*.md"), DOCS / "index.md"])

FENCE = re.compile(r"^```\{(?P<kind>[a-z]+)\}[^\n]*\n(?P<body>.*?)^```\s*$", re.M | re.S)
# An attribute or module whose name starts with one underscore, in code a
# reader would type: x._data, dlarray._core.  Dunders (__dlpack__) and
# ctypes' _fields_ end with an underscore and are public.
PRIVATE = re.compile(r"(?<![\w])[A-Za-z_][\w.]*\._(?!_)\w*[A-Za-z0-9](?!\w)")

# Sphinx's doctest builder uses these flags for every block.
FLAGS = doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL | doctest.DONT_ACCEPT_TRUE_FOR_1
OPTIONS = {name: flag for name, flag in doctest.OPTIONFLAGS_BY_NAME.items()}


def _blocks(page: Path) -> list[tuple[str, str, int]]:
    """(kind, code, flags) of each doctest and testcode block, in page order."""
    blocks = []
    for match in FENCE.finditer(page.read_text()):
        kind, body = match["kind"], match["body"]
        flags = FLAGS
        lines = []
        for line in body.splitlines():
            if line.startswith(":options:"):
                for option in line.split(":options:")[1].split(","):
                    option = option.strip()
                    name = option.lstrip("+-")
                    on = option.startswith("+")
                    flags = flags | OPTIONS[name] if on else flags & ~OPTIONS[name]
            elif not (line.startswith(":") and not lines):
                lines.append(line)
        blocks.append((kind, "\n".join(lines) + "\n", flags))
    return blocks


def _code_lines(kind: str, code: str) -> list[str]:
    if kind == "testcode":
        return [line for line in code.splitlines() if not line.lstrip().startswith("#")]
    return [line[4:] for line in code.splitlines() if line.startswith((">>> ", "... "))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_nothing_hidden_and_nothing_private(page):
    kinds = {kind for kind, _, _ in _blocks(page)}
    hidden = kinds & {"testsetup", "testcleanup"}
    assert not hidden, f"{page.name} hides code from its reader in {sorted(hidden)} blocks"
    private = []
    for kind, code, _ in _blocks(page):
        if kind in ("doctest", "testcode"):
            for line in _code_lines(kind, code):
                code_part = line.split("#", 1)[0]
                private += PRIVATE.findall(re.sub(r"(['\"]).*?\1", "''", code_part))
    assert not private, f"{page.name} uses private names in its snippets: {sorted(set(private))}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_runs_top_to_bottom_in_a_fresh_namespace(page):
    namespace: dict[str, object] = {"__name__": "__main__"}
    parser = doctest.DocTestParser()
    failures = []
    for number, (kind, code, flags) in enumerate(_blocks(page), 1):
        if kind == "testcode":
            try:
                exec(compile(code, f"{page.name} block {number}", "exec"), namespace)
            except Exception as error:  # reported with the page's block number
                failures.append(f"block {number} (testcode): {type(error).__name__}: {error}")
            continue
        if kind != "doctest":
            continue
        test = parser.get_doctest(code, {}, f"{page.name}#{number}", str(page), 0)
        test.globs = namespace  # one namespace for the whole page, as in a REPL
        runner = doctest.DocTestRunner(optionflags=flags)
        out: list[str] = []
        runner.run(test, out=out.append, clear_globs=False)
        if runner.failures:
            failures.append(f"block {number}:\n" + "".join(out))
    assert not failures, f"{page.name}, run as pasted:\n" + "\n".join(failures)
