"""How setup.py builds the C core: hidden visibility, and link-time
optimisation only where the toolchain can link with it (issue 32).

A clang whose linker lacks the LTO plugin compiles with -flto and fails at
the link; setup.py compiles and links a one-line probe first and leaves the
flag out there.  These tests build the core from a copy of the sources, once
with the machine's compiler and once with a wrapper around it that fails
every link given -flto (the stand-in for such a toolchain)."""

from __future__ import annotations

import functools
import importlib.util
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import sysconfig

import pytest

import dlarray._core

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: What the child build must not inherit: flags or a compiler of the
#: caller's would decide what these tests are about; a sanitizer runtime
#: preloaded into this process (nox -s sanitize) has no business in gcc.
NOT_INHERITED = {"CFLAGS", "LDFLAGS", "CC", "LDSHARED", "LD_PRELOAD"}
FALLBACK = "cannot link with -flto; building dlarray's core without it"

# The command-line tools' process orchestration (child processes, time
# limits, builds): CI runs it on the oldest and newest Python only
# (pyproject.toml's `tooling` marker; noxfile.py's TOOLING_PYTHONS).
pytestmark = [
    pytest.mark.tooling,
    pytest.mark.skipif(sys.platform == "win32", reason="MSVC builds take no -flto here"),
]


@functools.cache
def _cannot_build() -> str | None:
    """Why a build cannot run here (None when it can): the C extension
    example's own check (a compiler that compiles Python.h), and setuptools."""
    if importlib.util.find_spec("setuptools") is None:
        return "setuptools is not installed in this environment (the build needs it)"
    spec = importlib.util.spec_from_file_location(
        "dlarray_ext_build", ROOT / "examples" / "c_extension" / "build.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    reason: str | None = module.compiler_available()
    return reason


def _child_environment(**env: str) -> dict[str, str]:
    """This process's environment less NOT_INHERITED, with ``env`` added."""
    return {**{k: v for k, v in os.environ.items() if k not in NOT_INHERITED}, **env}


def _build(tree: pathlib.Path, **env: str) -> str:
    """`python setup.py build_ext --inplace` in a copy of the sources; its
    output (the compiler's command lines among it)."""
    shutil.copy(ROOT / "setup.py", tree / "setup.py")
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    shutil.copytree(
        ROOT / "dlarray", tree / "dlarray",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"),
    )  # fmt: skip
    done = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=tree, env=_child_environment(**env), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def _core_compile_lines(output: str) -> list[list[str]]:
    lines = [line.split() for line in output.splitlines() if "dlarray/_core/" in line]
    return [words for words in lines if "-c" in words]


def _skip_unless_lto(output: str) -> None:
    if FALLBACK in output:
        pytest.skip("this machine's toolchain cannot link with -flto (setup.py said so)")


def test_the_core_is_built_with_lto_where_the_compiler_links_with_it(tmp_path):
    if reason := _cannot_build():
        pytest.skip(reason)
    output = _build(tmp_path)
    _skip_unless_lto(output)
    lines = _core_compile_lines(output)
    assert len(lines) == len(list((ROOT / "dlarray" / "_core").glob("*.c")))
    assert all("-flto" in words and "-fvisibility=hidden" in words for words in lines)
    assert all("-DDLA_LTO=1" in words for words in lines)


def test_a_toolchain_that_cannot_link_with_lto_builds_the_core_without_it(tmp_path):
    if reason := _cannot_build():
        pytest.skip(reason)
    # The stand-in: the machine's compiler (all its words: "ccache gcc",
    # "gcc -pthread"), compiling anything but failing every link given
    # -flto, as a clang without its linker plugin does.  setuptools puts CC
    # in place of the compiler at the head of LDSHARED, so the links run it.
    compiler = shlex.split(sysconfig.get_config_var("CC"))
    wrapper = tmp_path / "cc-without-lto-plugin"
    wrapper.write_text(
        "#!/bin/sh\n"
        "link=no; lto=no\n"
        'for a in "$@"; do case "$a" in -shared|-bundle) link=yes;; -flto) lto=yes;; esac; done\n'
        "if [ $link = yes ] && [ $lto = yes ]; then\n"
        '  echo "cc-without-lto-plugin: could not load the LTO plugin" >&2; exit 1\n'
        "fi\n"
        f'exec {shlex.join(compiler)} "$@"\n'
    )
    wrapper.chmod(0o755)
    tree = tmp_path / "tree"
    tree.mkdir()
    output = _build(tree, CC=str(wrapper))
    assert FALLBACK in output
    lines = _core_compile_lines(output)
    assert lines and not any("-flto" in words for words in lines)
    assert all("-DDLA_LTO=0" in words for words in lines)
    # The core it built loads, says how it was built, and exchanges.
    core = tree / "dlarray" / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}"
    assert core.is_file()
    check = subprocess.run(
        [sys.executable, "-c",
         "import numpy, dlarray; x = dlarray.from_dlpack(numpy.arange(3.0)); "
         "print(dlarray._core.__file__, dlarray._core.LINK_TIME_OPTIMISED, float(dlarray.sum(x)))"],
        cwd=tree, capture_output=True, text=True, timeout=120,
        env=_child_environment(),
    )  # fmt: skip
    assert check.returncode == 0, check.stderr
    assert check.stdout.split() == [str(core), "False", "3.0"]


#: Symbols the linker itself defines in some toolchains' shared objects.
LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads an ELF symbol table")
@pytest.mark.skipif(shutil.which("nm") is None, reason="no nm (binutils) on this machine")
def test_the_core_exports_its_init_function_alone():
    # Hidden visibility: extensions reach the C API through its capsule.
    listing = subprocess.run(
        ["nm", "-D", "--defined-only", dlarray._core.__file__],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    exported = {fields[-1] for fields in map(str.split, listing.splitlines()) if fields}
    assert exported - LINKER_SYMBOLS == {"PyInit__core"}
