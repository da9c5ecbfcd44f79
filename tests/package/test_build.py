"""How setup.py builds the C core: hidden visibility, and link-time
optimisation only where the toolchain can link with it (issue 32).

A clang whose linker lacks the LTO plugin compiles with -flto and fails at
the link; setup.py builds a one-line probe first and leaves the flag out
there.  These tests build the core from a copy of the sources, once with a
compiler that refuses -flto (a wrapper standing in for such a toolchain)
and once with the machine's own."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import sysconfig
from typing import Any

import pytest

import dlarray._core

ROOT = pathlib.Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="MSVC builds take no -flto here")


def _compiler() -> str | None:
    """The C compiler Python's build uses (sysconfig's CC), if on PATH."""
    words = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "")
    return shutil.which(words[0]) if words else None


def needs_compiler(test: Any) -> Any:
    """A build: needs the machine's C compiler and setuptools here."""
    test = pytest.mark.skipif(
        _compiler() is None, reason="no C compiler on this machine (sysconfig's CC)"
    )(test)
    return pytest.mark.skipif(
        importlib.util.find_spec("setuptools") is None,
        reason="setuptools is not installed in this environment (the build needs it)",
    )(test)


def _build(tree: pathlib.Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python setup.py build_ext --inplace` in a copy of the sources."""
    shutil.copy(ROOT / "setup.py", tree / "setup.py")
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    shutil.copytree(
        ROOT / "dlarray", tree / "dlarray",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"),
    )  # fmt: skip
    # The child compiles; a sanitizer runtime preloaded into this process
    # (nox -s sanitize) has no business in the compiler's.
    env = {k: v for k, v in env.items() if k != "LD_PRELOAD"}
    return subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=tree, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _core_compile_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "dlarray/_core/" in line and " -c " in line]


@needs_compiler
def test_the_core_is_built_with_lto_where_the_compiler_links_with_it(tmp_path):
    done = _build(tmp_path, dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = _core_compile_lines(done.stdout + done.stderr)
    assert len(lines) == len(list((ROOT / "dlarray" / "_core").glob("*.c")))
    assert all("-flto" in line.split() and "-fvisibility=hidden" in line.split()
               for line in lines)  # fmt: skip


@needs_compiler
def test_a_compiler_that_cannot_link_with_lto_builds_the_core_without_it(tmp_path):
    # The stand-in toolchain: the machine's compiler, refusing -flto as a
    # clang without its linker plugin does (there at the link; here at once).
    wrapper = tmp_path / "cc-without-lto"
    wrapper.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do [ "$a" = -flto ] && { echo "no LTO plugin" >&2; exit 1; }; done\n'
        f'exec {shlex.quote(_compiler() or "cc")} "$@"\n'
    )
    wrapper.chmod(0o755)
    tree = tmp_path / "tree"
    tree.mkdir()
    done = _build(tree, {**os.environ, "CC": str(wrapper), "LDSHARED": f"{wrapper} -shared"})
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "cannot link with -flto; building without it" in output
    lines = _core_compile_lines(output)
    assert lines and not any("-flto" in line.split() for line in lines)
    # The core it built loads and exchanges.
    check = subprocess.run(
        [sys.executable, "-c",
         "import numpy, dlarray; x = dlarray.from_dlpack(numpy.arange(3.0)); "
         "print(dlarray._core.__file__, float(dlarray.sum(x)))"],
        cwd=tree, capture_output=True, text=True, timeout=120,
        env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"},
    )  # fmt: skip
    assert check.returncode == 0, check.stderr
    assert check.stdout.split() == [str(next((tree / "dlarray").glob("_core*"))), "3.0"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads an ELF symbol table")
@pytest.mark.skipif(shutil.which("nm") is None, reason="no nm (binutils) on this machine")
def test_the_core_exports_its_init_function_alone():
    # Hidden visibility: extensions reach the C API through its capsule.
    listing = subprocess.run(
        ["nm", "-D", "--defined-only", dlarray._core.__file__],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    functions = [fields[2] for fields in map(str.split, listing.splitlines())
                 if len(fields) == 3 and fields[1] == "T"]  # fmt: skip
    assert functions == ["PyInit__core"]
