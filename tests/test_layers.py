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

The C core's files use each other one way too (``C_LAYERS``): a file uses
only the functions, tables and objects that files of its own layer or below
define, with no circle, and includes only the core's headers; module.c, at
the top, assembles the array type from the files of each job.  The
pictures of both in CONTRIBUTING.md must name these layers, in this order,
with every module and C file in its place.

The chapters of the namespace (``dlarray/_api/``) compute through the
standard alone: none names the host fast path, which the namespace's
``__init__.py`` puts in front of their functions
(``dlarray/_engine/host_fast_path.py`` declares it).

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
import re
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
    """The modules that import each other in a circle."""
    edges, _ = graph()
    return components({m: {t for t, _ in ts if t in edges} for m, ts in edges.items()})


def components(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    successors = {n: sorted(s - {n}) for n, s in edges.items()}
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


# ---- the C core: its files call each other one way too ----

CORE = PACKAGE / "_core"
# (layer name, the C files in it), from the bottom.  A file uses what files
# of its own layer or lower layers define (functions, types, tables), never
# a higher layer's; module.c, at the top, assembles the rest at import.
C_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("state and tables", ("state.c", "dtype_table.c", "device_table.c", "host_buffer.c")),
    ("the array", ("array.c",)),
    ("export, import and the buffer protocol", ("export.c", "import.c", "buffer.c")),
    (
        "the consumer and the exchange table",
        ("exchange_consumer.c", "consumer.c", "exchange_producer.c"),
    ),
    (
        "the host engine's fast path",
        ("host_adopt.c", "engine_call.c", "fast_function.c", "operators.c"),
    ),
    # x[mask] and x[indices] adopt the engine's result.
    ("subscripts", ("subscript.c",)),
    ("the C API for extensions", ("capi.c",)),
    ("the module", ("module.c",)),
)
# The headers a C file may include with quotes: the core's own.
C_HEADERS = {"core.h", "dlpack_abi.h", "dlarray_capi.h"}


def c_layer_of(name: str) -> int:
    for index, (_, files) in enumerate(C_LAYERS):
        if name in files:
            return index
    raise AssertionError(
        f"dlarray/_core/{name} is in no layer: add it to C_LAYERS in tests/test_layers.py (and "
        f"to CONTRIBUTING.md's picture) where it belongs"
    )


def _c_code(path: Path) -> str:
    """The file without its comments, string literals and preprocessor lines."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"^[ \t]*#[^\n]*", "", text, flags=re.M)


# At the start of a line: a function's name after its type's line, or a
# table's or object's name after its type ("PyMethodDef dla_view_methods[] =").
_C_FUNCTION = re.compile(r"^(?![^\n]*\bstatic\b)[A-Za-z_][\w \t*]*\n(\w+)\(", re.M)
_C_OBJECT = re.compile(
    r"^(?![^\n]*\bstatic\b|extern\b|typedef\b|return\b)(?:const\s+)?[A-Za-z_]\w*[\s*]+(\w+)\s*"
    r"(?:\[[^\]]*\]\s*)*[=;]",
    re.M,
)


def c_definitions(folder: Path = CORE) -> dict[str, str]:
    """Each name a C file defines for the others (not ``static``): name -> file."""
    found: dict[str, str] = {}
    for path in sorted(folder.glob("*.c")):
        code = _c_code(path)
        for pattern in (_C_FUNCTION, _C_OBJECT):
            for name in pattern.findall(code):
                found.setdefault(name, path.name)
    return found


def c_uses(folder: Path = CORE) -> dict[str, dict[str, set[str]]]:
    """file -> {the other file: the names of it the file uses}."""
    defined = c_definitions(folder)
    uses: dict[str, dict[str, set[str]]] = {}
    for path in sorted(folder.glob("*.c")):
        words = set(re.findall(r"\b\w+\b", _c_code(path)))
        uses[path.name] = {}
        for name in sorted(words & defined.keys()):
            if defined[name] != path.name:
                uses[path.name].setdefault(defined[name], set()).add(name)
    return uses


def c_upward_uses(folder: Path = CORE) -> list[str]:
    found = []
    for user, used in c_uses(folder).items():
        for home, names in used.items():
            if c_layer_of(home) > c_layer_of(user):
                found.append(
                    f"dlarray/_core/{user} ({C_LAYERS[c_layer_of(user)][0]}) uses "
                    f"{', '.join(sorted(names))} of {home} ({C_LAYERS[c_layer_of(home)][0]}), "
                    f"a higher layer"
                )
    return found


def c_includes(folder: Path = CORE) -> list[str]:
    found = []
    for path in sorted([*folder.glob("*.c"), *folder.glob("*.h")]):
        for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            include = re.match(r'\s*#\s*include\s+"([^"]+)"', text)
            if include and include.group(1) not in C_HEADERS:
                found.append(f"dlarray/_core/{path.name}:{line} includes {include.group(1)}")
    return found


def c_circles(folder: Path = CORE) -> list[list[str]]:
    return components({user: set(used) for user, used in c_uses(folder).items()})


def test_every_c_file_has_a_layer() -> None:
    for path in CORE.glob("*.c"):
        c_layer_of(path.name)


def test_no_c_file_uses_a_higher_layer() -> None:
    assert c_upward_uses() == []


def test_the_c_files_use_each_other_in_no_circle() -> None:
    assert c_circles() == []


def test_the_c_files_include_only_the_cores_headers() -> None:
    assert c_includes() == []


def test_the_c_guard_sees_what_it_guards(tmp_path: Path) -> None:
    """A function, a table and an object another file uses are found, in
    code only (not in comments or strings), and so are a circle, an upward
    use and a foreign include."""
    (tmp_path / "array.c").write_text(
        '#include "core.h"\n#include "engine.h"\n'
        "PyObject *\ndla_array_new(int n)\n{\n    return dla_export(n); /* dla_state */\n}\n"
        "static int\nhidden(void)\n{\n    return 0;\n}\n"
        "DLA_COLD static void\nrefuse(void)\n{\n}\n"
        "PyMethodDef dla_array_methods[] = {\n    {NULL},\n};\n"
    )
    (tmp_path / "export.c").write_text(
        "DLAModuleState dla_state;\n"
        "PyObject *\ndla_export(int n)\n{\n"
        '    puts("dla_array_methods");\n    return dla_array_new(n) + hidden();\n}\n'
    )
    assert c_definitions(tmp_path) == {
        "dla_array_new": "array.c", "dla_array_methods": "array.c",
        "dla_export": "export.c", "dla_state": "export.c",
    }  # fmt: skip
    assert c_uses(tmp_path) == {"array.c": {"export.c": {"dla_export"}},
                                "export.c": {"array.c": {"dla_array_new"}}}  # fmt: skip
    assert c_circles(tmp_path) == [["array.c", "export.c"]]
    assert [u.split(" (")[0] for u in c_upward_uses(tmp_path)] == ["dlarray/_core/array.c"]
    assert c_includes(tmp_path) == ["dlarray/_core/array.c:2 includes engine.h"]


# ---- the pictures of the layers in CONTRIBUTING.md agree with these ----

CONTRIBUTING = PACKAGE.parent / "CONTRIBUTING.md"


def pictured_layers(text: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The layer picture in CONTRIBUTING.md's "Layout" section: (Python
    layers, C layers), top first, each as (name, what its lines name).  A
    layer's line starts with one space (Python) or three (C), its name
    ends at two spaces; deeper lines go on with the layer above."""
    section = text.split("\n## Layout", 1)[1]
    picture = section.split("\n```\n", 2)[1]
    python: list[tuple[str, str]] = []
    c: list[tuple[str, str]] = []
    current: list[tuple[str, str]] = python
    for line in picture.splitlines():
        head = re.match(r"^( | {3})(\S.*?)(?: {2,}(.*))?$", line)
        if head is None:
            name, rest = current[-1]
            current[-1] = (name, f"{rest} {line.strip()}")
            continue
        current = python if head.group(1) == " " else c
        current.append((head.group(2), head.group(3) or ""))
    return python, c


def _path_of(module: str) -> str:
    """How the picture names a module: ``_api/``, ``linalg.py``, ``__init__.py``."""
    parts = module.split(".")[1:]
    if not parts:
        return "__init__.py"
    folder = PACKAGE.joinpath(*parts)
    return "/".join(parts) + "/" if folder.is_dir() else "/".join(parts) + ".py"


def _names(path: str, text: str) -> bool:
    return re.search(r"(?<![\w/.])" + re.escape(path) + r"(?=[\s(),;:]|$)", text) is not None


def picture_disagreements(text: str) -> list[str]:
    python, c = pictured_layers(text)
    found = []
    if [n for n, _ in python] != [n for n, _ in reversed(LAYERS)]:
        found.append(f"Python layers pictured {[n for n, _ in python]}, "
                     f"tests/test_layers.py has {[n for n, _ in reversed(LAYERS)]}")  # fmt: skip
    if [n for n, _ in c] != [n for n, _ in reversed(C_LAYERS)]:
        found.append(f"C layers pictured {[n for n, _ in c]}, "
                     f"tests/test_layers.py has {[n for n, _ in reversed(C_LAYERS)]}")  # fmt: skip
    pictured = dict(python)
    for name, members in LAYERS:
        for module in members:
            if name in pictured and not _names(_path_of(module), pictured[name]):
                found.append(f"{module} ({_path_of(module)}) is not pictured in layer {name!r}")
    pictured_c = dict(c)
    for name, files in C_LAYERS:
        for file in files:
            if name in pictured_c and not _names(file, pictured_c[name]):
                found.append(f"_core/{file} is not pictured in layer {name!r}")
    # Each file the picture names exists (no stale names).
    everywhere = " ".join(rest for _, rest in [*python, *c])
    for named in sorted(set(re.findall(r"[\w/]*\w\.(?:py|c)\b", everywhere))):
        if not (PACKAGE.parent / named).exists() and not any(PACKAGE.rglob(named)):
            found.append(f"the picture names {named}, which does not exist")
    return found


def test_the_pictured_layers_agree_with_these() -> None:
    assert picture_disagreements(CONTRIBUTING.read_text(encoding="utf-8")) == []


def test_a_drifted_picture_is_found() -> None:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    assert picture_disagreements(text.replace(" _creation.py (", " _asarray.py (", 1)) == [
        "dlarray._creation (_creation.py) is not pictured in layer 'creation'",
        "the picture names _asarray.py, which does not exist",
    ]
    swapped = text.replace(" consumer      ", " consumers     ", 1)
    assert "Python layers pictured" in picture_disagreements(swapped)[0]
    assert picture_disagreements(text.replace("state.c, ", "", 1)) == [
        "_core/state.c is not pictured in layer 'state and tables'"
    ]


def test_every_module_has_a_layer() -> None:
    for module in modules():
        layer_of(module)


def test_no_module_imports_a_higher_layer() -> None:
    assert upward_imports() == []


def test_a_function_imports_only_optional_dependencies_lazily() -> None:
    assert function_local_imports() == []


def test_the_modules_import_each_other_in_no_circle() -> None:
    assert circles() == []


# ---- the chapters compute through the standard alone ----

#: What only the host fast path's room (dlarray/_engine/host_fast_path.py,
#: the C core's fast_function and engine_call) may name: a chapter of the
#: namespace that names one has a second road into the fast path.
FAST_PATH_NAMES = frozenset(
    {"host_fast_path", "fast_function", "engine_unary", "engine_binary", "CASES",
     "OPERATOR_KERNELS", "ARRAY_TYPE", "FAST_PATH_ARRAY_TYPE", "FAST_PATH_ENGINE"}
)  # fmt: skip
CHAPTERS = PACKAGE / "_api"


def fast_path_names(path: Path) -> list[tuple[str, int]]:
    """The names of the fast path in the file at ``path``, with their lines
    (``_HOST...`` too: the host engine's kernels, kept aside for it)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [part for alias in node.names for part in alias.name.split(".")]
            names += [part for part in (getattr(node, "module", None) or "").split(".")]
        found += [(name, node.lineno) for name in names
                  if name in FAST_PATH_NAMES or name.startswith("_HOST")]  # fmt: skip
    return sorted(set(found), key=lambda item: (item[1], item[0]))


def chapters_naming_the_fast_path() -> list[str]:
    """Each chapter module's line that names the fast path.  The namespace's
    ``__init__.py`` is the one place that puts the fast path in front of
    the chapters' functions."""
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line}: names the fast path ({name})"
        for path in sorted(CHAPTERS.glob("*.py"))
        if path.name != "__init__.py"
        for name, line in fast_path_names(path)
    ]


def test_the_chapters_name_no_fast_path() -> None:
    assert chapters_naming_the_fast_path() == []


def test_the_fast_path_guard_sees_what_it_guards(tmp_path: Path) -> None:
    chapter = tmp_path / "chapter.py"
    chapter.write_text(
        "from dlarray._core import engine_unary as fast_unary\n"
        "from dlarray._engine import host_fast_path\n"
        "_HOST_SUM = host_fast_path.CASES['sum'].kernel\n"
        "def sum(x):\n    return namespace_of(x).sum(x)\n"
    )
    assert fast_path_names(chapter) == [
        ("engine_unary", 1), ("host_fast_path", 2), ("CASES", 3), ("_HOST_SUM", 3),
        ("host_fast_path", 3),
    ]  # fmt: skip


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
    problems += [*c_upward_uses(), *c_includes()]
    problems += [f"C files in a circle: {' -> '.join(c)}" for c in c_circles()]
    problems += [f"CONTRIBUTING.md: {d}" for d in picture_disagreements(CONTRIBUTING.read_text())]
    problems += chapters_naming_the_fast_path()
    for problem in problems:
        print(problem)
    if not problems:
        print(
            f"{len(modules())} modules in {len(LAYERS)} layers import one way; functions import "
            f"only optional dependencies, lazily; {len(c_uses())} C files in {len(C_LAYERS)} "
            f"layers call one way"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
