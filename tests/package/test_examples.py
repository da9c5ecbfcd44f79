"""Every script in examples/ runs to completion and explains itself.

An example that needs an optional library names it in a module-level tuple,
``REQUIRES = ("torch",)``; it is read from the source without running the
script, and the example is skipped, naming what is missing, when that
library is not installed.  Hardware (a GPU, a SYCL device) never skips a
whole example: the example prints what it left out.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import runpy
import subprocess
import sys
import textwrap

import pytest

EXAMPLES = sorted(pathlib.Path(__file__).parents[2].joinpath("examples").rglob("*.py"))


def module_of(path: pathlib.Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def required_packages(path: pathlib.Path) -> tuple[str, ...]:
    """The example's ``REQUIRES`` tuple, or () when it has none."""
    for node in module_of(path).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "REQUIRES" for target in node.targets
        ):
            return tuple(ast.literal_eval(node.value))
    return ()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, capsys):
    missing = [name for name in required_packages(path) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{path.name} needs {', '.join(missing)}, which is not installed")
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out  # each example explains itself as it runs


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_has_a_docstring_and_main(path):
    """A docstring that teaches the idea, and a main()."""
    module = module_of(path)
    assert ast.get_docstring(module), f"{path.name} has no module docstring"
    functions = {node.name for node in module.body if isinstance(node, ast.FunctionDef)}
    assert "main" in functions


# Runs a script with some modules made unimportable, as on a machine
# without them: argv[1] is the script, the rest the hidden names.
_HIDING_RUNNER = textwrap.dedent("""
    import importlib.abc, runpy, sys
    script, hidden = sys.argv[1], set(sys.argv[2:])
    class Hide(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in hidden:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, Hide())
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")
""")


@pytest.mark.parametrize(
    "path", [p for p in EXAMPLES if required_packages(p)], ids=lambda p: p.name
)
def test_example_without_its_packages_prints_one_line_with_the_command(path):
    """Run as a user runs it (``python examples/NAME.py``) on a machine that
    lacks what it needs: one line naming what is missing and the exact pip
    command, exit status 0, no traceback."""
    missing = required_packages(path)
    done = subprocess.run(
        [sys.executable, "-c", _HIDING_RUNNER, str(path), *missing],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    assert lines[0].startswith(f"{path.name}: skipped: it needs ") and "pip install " in lines[0]
    assert all(name in lines[0] for name in missing) or missing[0] in lines[0]


def test_required_packages_are_read_from_the_source(tmp_path):
    script = tmp_path / "needs_a_missing_package.py"
    script.write_text('"""Doc."""\n\nimport not_a_package\n\nREQUIRES = ("not_a_package",)\n')
    assert required_packages(script) == ("not_a_package",)
    examples = {path.name: path for path in EXAMPLES}
    assert required_packages(examples["zero_copy_torch.py"]) == ("torch",)
    assert required_packages(examples["zero_copy_numpy.py"]) == ()


def test_there_are_examples():
    names = {path.name for path in EXAMPLES}
    assert {
        "zero_copy_numpy.py",
        "zero_copy_torch.py",
        "write_in_place.py",
        "memory_kinds.py",
        "read_only_exchange.py",
        "fp4_exchange.py",
        "array_api_namespace.py",
    } <= names
