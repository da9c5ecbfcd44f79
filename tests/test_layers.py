"""dlarray's Python layers import one way: each module only from the layers
below it, with no circle, and no import hidden inside a function except of
a lazily loaded optional dependency.

The layers, from the bottom (docs/design.md draws them):

    the C core -> tables -> views -> rules and runtimes -> memory families ->
    engines -> transfer -> consumer -> creation -> the namespace ->
    the array class -> the package

The array class (``dlarray._array``) sits on top of the namespace and calls
it directly; lower layers type against ``_core.ArrayBase``.  Where the C
core calls Python, it calls what it read from the one registered class
(``_core.register_array_type(DLArray)`` in ``dlarray/__init__.py``).

A function may import only an optional dependency that it loads lazily
(cuda-bindings, dpctl, ml_dtypes, a peer library), never a dlarray module
or NumPy, and a comment on the import's line or the two above says so
(it names the dependency "optional", or the import "lazy").

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
    ("views", ("dlarray._views",)),
    ("rules and runtimes", ("dlarray._rules", "dlarray._cuda", "dlarray._sycl")),
    ("memory families", ("dlarray._storage", "dlarray._sycl.exchange")),
    ("engines", ("dlarray._engine",)),
    ("transfer", ("dlarray._transfer",)),
    ("consumer", ("dlarray._consumer",)),
    ("creation", ("dlarray._creation",)),
    (
        "the namespace",
        (
            "dlarray._api",
            "dlarray.linalg",
            "dlarray.fft",
            "dlarray.subbyte",
            "dlarray.storage",
            "dlarray.abi",
            "dlarray._numpy_dispatch",
        ),
    ),
    ("the array class", ("dlarray._array",)),
    (
        "the package",
        (
            "dlarray",
            "dlarray.__main__",
            "dlarray._peers",
            "dlarray._kit",
            "dlarray._probe",
            "dlarray._probe_adapter",
            "dlarray._probe_cases",
            "dlarray._probe_exchange_cases",
            "dlarray._probe_object_cases",
            "dlarray.compat",
        ),
    ),
)
# What a function must never import lazily: dlarray itself (import it at the
# top; an upward call goes through the array class) and its hard dependency.
NEVER_LOCAL = ("dlarray", "numpy")
# The words of the comment that marks a lazy import of an optional dependency.
LAZY_MARKS = ("optional", "lazy", "lazily")


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
    """(module-level imports of dlarray modules, imports inside functions that
    break the rule), each as (module, line); imports under ``if TYPE_CHECKING``
    never run and are left out.  An import inside a function breaks the rule
    when it imports dlarray or NumPy, or has no comment marking it lazy."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text, str(path))
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

    def marked_lazy(line: int) -> bool:
        context = " ".join(lines[max(0, line - 3) : line]).lower()
        return "#" in context and any(mark in context for mark in LAZY_MARKS)

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other, in_function)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                for name in dict.fromkeys(targets(child)):
                    ours = name == "dlarray" or name.startswith("dlarray.")
                    if not in_function:
                        if ours:
                            top.append((name, child.lineno))
                        continue
                    never = any(name == n or name.startswith(n + ".") for n in NEVER_LOCAL)
                    if never or not marked_lazy(child.lineno):
                        local.append((name, child.lineno))
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
        f"{module}:{line} imports {target} inside a function; only an optional dependency "
        f"loaded lazily may be imported there, with a comment saying so (dlarray's own "
        f"modules and NumPy are imported at the top)"
        for module, targets in local.items()
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


def test_a_function_imports_only_optional_dependencies_lazily() -> None:
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
        "def g():\n    import torch\n"
        "def h():\n    import numpy  # optional\n"
        "def k():\n    # cupy is optional: loaded lazily\n    import cupy\n"
    )
    known = {"dlarray._api", "dlarray._engine.routing", "dlarray._transfer", "dlarray.linalg"}
    top, local = imports(source, known)
    assert top == [("dlarray._api", 1), ("dlarray._engine.routing", 2)]
    assert local == [("dlarray._transfer", 6), ("torch", 8), ("numpy", 10)]
    assert layer_of("dlarray._array") > layer_of("dlarray._api.creation")
    assert layer_of("dlarray._sycl.exchange") > layer_of("dlarray._sycl.runtime")


def main() -> int:
    problems = [*upward_imports(), *function_local_imports()]
    problems += [f"import circle: {' -> '.join(c)}" for c in circles()]
    for problem in problems:
        print(problem)
    if not problems:
        print(
            f"{len(modules())} modules in {len(LAYERS)} layers import one way; functions import "
            f"only optional dependencies, lazily"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
