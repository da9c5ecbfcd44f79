"""dlarray's Python layers import one way: each module only from the layers
below it, with no circle and no import hidden inside a function.

The layers, from the bottom (docs/design.md draws them):

    the C core -> tables -> the array object -> rules and runtimes ->
    memory families -> engines -> transfer -> consumer and exchange table ->
    creation -> the namespace -> the package

The calls that must run upwards (the array object's operators, the C core's
hooks) are wired once, in ``dlarray/__init__.py``.  ``dlarray/__main__.py``
is the one module allowed imports inside functions: it probes what is
installed, and a probe must not fail at import.

This file reads the sources (``ast``) and imports nothing of dlarray, so it
runs in the lint session too: ``python tests/test_layers.py``.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "dlarray"

# (layer name, the modules in it); a module belongs to the layer of the
# longest entry that names it or a package above it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the C core", ("dlarray._core",)),
    (
        "tables",
        ("dlarray._device", "dlarray._dtypes", "dlarray._float_formats", "dlarray._install"),
    ),
    ("the array object", ("dlarray._views", "dlarray._array")),
    ("rules and runtimes", ("dlarray._rules", "dlarray._cuda", "dlarray._sycl")),
    ("memory families", ("dlarray._storage", "dlarray._sycl.exchange")),
    ("engines", ("dlarray._engine",)),
    ("transfer", ("dlarray._transfer",)),
    ("consumer and exchange table", ("dlarray._consumer", "dlarray._exchange")),
    ("creation", ("dlarray._creation", "dlarray._asarray")),
    (
        "the namespace",
        (
            "dlarray._api",
            "dlarray.linalg",
            "dlarray.fft",
            "dlarray.subbyte",
            "dlarray.storage",
            "dlarray.abi",
        ),
    ),
    ("the package", ("dlarray", "dlarray.__main__")),
)
ALLOWED_LOCAL_IMPORTS = {"dlarray.__main__"}


def layer_of(module: str) -> int:
    best, best_length = None, -1
    for index, (_, members) in enumerate(LAYERS):
        for member in members:
            covers = module == member or (member != "dlarray" and module.startswith(member + "."))
            if covers and len(member) > best_length:
                best, best_length = index, len(member)
    if best is None:
        raise AssertionError(
            f"{module} is in no layer: add it to LAYERS in tests/test_layers.py (and to the "
            f"picture in docs/design.md) where it belongs"
        )
    return best


@functools.cache
def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path, known: set[str]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(module-level imports of dlarray modules, imports of them inside
    functions), each as (module, line); imports under ``if TYPE_CHECKING``
    never run and are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    top: list[tuple[str, int]] = []
    local: list[tuple[str, int]] = []

    def targets(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        if node.level or not node.module:
            raise AssertionError(f"{path}:{node.lineno}: write imports absolute (from dlarray...)")
        names = []
        for alias in node.names:
            submodule = f"{node.module}.{alias.name}"
            names.append(submodule if submodule in known else node.module)
        return names

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other, in_function)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                for name in dict.fromkeys(targets(child)):
                    if name == "dlarray" or name.startswith("dlarray."):
                        (local if in_function else top).append((name, child.lineno))
                continue
            function = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(child, in_function or function)

    visit(tree, False)
    return top, local


@functools.cache
def graph() -> tuple[dict[str, list[tuple[str, int]]], dict[str, list[tuple[str, int]]]]:
    found = modules()
    known = set(found) | {"dlarray._core"}
    edges, local = {}, {}
    for module, path in found.items():
        edges[module], local[module] = imports(path, known)
    return edges, local


def _describe(module: str) -> str:
    return f"{module} ({LAYERS[layer_of(module)][0]})"


def upward_imports() -> list[str]:
    edges, _ = graph()
    found = []
    for module, targets in edges.items():
        for target, line in targets:
            if layer_of(target) > layer_of(module):
                found.append(
                    f"{module}:{line} imports {_describe(target)} from "
                    f"{_describe(module)}, a lower layer"
                )
    return found


def function_local_imports() -> list[str]:
    _, local = graph()
    return [
        f"{module}:{line} imports {target} inside a function; import it at the top (an "
        f"upward call goes through dlarray._array.DELEGATES or a C hook, wired in "
        f"dlarray/__init__.py)"
        for module, targets in local.items()
        if module not in ALLOWED_LOCAL_IMPORTS
        for target, line in targets
    ]


def circles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    edges, _ = graph()
    successors = {m: sorted({t for t, _ in ts if t in edges and t != m}) for m, ts in edges.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in successors[node]:
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(successors):
        if node not in index:
            connect(node)
    return found


def test_every_module_has_a_layer() -> None:
    for module in modules():
        layer_of(module)


def test_no_module_imports_a_higher_layer() -> None:
    assert upward_imports() == []


def test_no_dlarray_import_hides_in_a_function() -> None:
    assert function_local_imports() == []


def test_the_modules_import_each_other_in_no_circle() -> None:
    assert circles() == []


def test_the_guard_sees_what_it_guards(tmp_path: Path) -> None:
    """The checks find an upward, a local and a circular import when there is one."""
    source = tmp_path / "probe.py"
    source.write_text(
        "from dlarray import _api\n"
        "from dlarray._engine import routing\n"
        "if TYPE_CHECKING:\n    from dlarray import linalg\n"
        "def f():\n    from dlarray._transfer import copy_array\n"
    )
    known = {"dlarray._api", "dlarray._engine.routing", "dlarray._transfer", "dlarray.linalg"}
    top, local = imports(source, known)
    assert top == [("dlarray._api", 1), ("dlarray._engine.routing", 2)]
    assert local == [("dlarray._transfer", 6)]
    assert layer_of("dlarray._api.creation") > layer_of("dlarray._array")
    assert layer_of("dlarray._sycl.exchange") > layer_of("dlarray._sycl.runtime")


def main() -> int:
    problems = [*upward_imports(), *function_local_imports()]
    problems += [f"import circle: {' -> '.join(c)}" for c in circles()]
    for problem in problems:
        print(problem)
    if not problems:
        print(
            f"{len(modules())} modules in {len(LAYERS)} layers import one way, none in a function"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
