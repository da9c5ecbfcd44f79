"""Build a C extension on dlarray's C API, then hand it any framework's tensor.

``dlarray_ext_demo.c`` (next to this file) is a CPython extension module
written against ``dlarray_capi.h``: one call, ``DLArray_API->borrow()``,
turns a DLArray, a NumPy array, a torch tensor or a JAX array into a
``DLTensor`` its C code reads and writes in place.  Where the tensor's type
carries a DLPack C exchange table (``__dlpack_c_exchange_api__``: DLArray,
torch.Tensor) that is a C call into the producer; elsewhere (NumPy, JAX) it
is the Python protocol, ``x.__dlpack__()``.  ``time_exchanges`` shows the
difference in nanoseconds, measured in C.

Building needs no setuptools: :func:`build` runs the C compiler Python
itself was built with (``sysconfig``: ``CC``, ``CFLAGS``, ``CCSHARED``,
``LDSHARED``, ``EXT_SUFFIX``), with Python's headers and dlarray's
(``dlarray.get_include()``) on the include path, then imports the result.

Run: python examples/c_extension/build.py
"""

from __future__ import annotations

import functools
import importlib.util
import pathlib
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
import types
from typing import Any

import numpy as np

import dlarray

REQUIRES = ()

MODULE_NAME = "dlarray_ext_demo"
SOURCE = pathlib.Path(__file__).resolve().with_name(f"{MODULE_NAME}.c")


def _config(name: str) -> list[str]:
    """A sysconfig variable split into arguments ([] when it is unset)."""
    return shlex.split(sysconfig.get_config_var(name) or "")


def _include_flags() -> list[str]:
    return ["-I", sysconfig.get_paths()["include"], "-I", dlarray.get_include()]


def _run(command: list[str]) -> None:
    """Run one compiler step; RuntimeError with its output when it fails."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"building {MODULE_NAME} failed (exit status {done.returncode}):\n"
            f"$ {shlex.join(command)}\n{done.stdout}{done.stderr}"
        )


@functools.cache
def compiler_available() -> str | None:
    """Whether this machine can build the extension.

    Returns
    -------
    str or None
        None when it can; otherwise the reason it cannot (no compiler
        named by sysconfig, the compiler missing, no ``Python.h``), fit to
        pass to ``pytest.skip``.
    """
    compiler = _config("CC")
    if not compiler or not _config("LDSHARED"):
        return "sysconfig names no C compiler (CC/LDSHARED) for this Python"
    if shutil.which(compiler[0]) is None:
        return f"the C compiler Python was built with, {compiler[0]!r}, is not installed"
    headers = pathlib.Path(sysconfig.get_paths()["include"], "Python.h")
    if not headers.is_file():
        return f"Python's C headers are not installed ({headers} is missing)"
    # The compiler may exist and still be unusable (no libc headers, a
    # cross compiler): compiling a file that includes Python.h proves it.
    with tempfile.TemporaryDirectory() as scratch:
        probe = pathlib.Path(scratch, "probe.c")
        probe.write_text("#include <Python.h>\nint probe(void) { return 0; }\n")
        command = [*compiler, *_include_flags(), "-c", str(probe), "-o", f"{probe}.o"]
        try:
            _run(command)
        except (RuntimeError, OSError) as exc:
            return f"the C compiler cannot build against Python.h: {exc}"
    return None


def build(build_dir: pathlib.Path | None = None) -> types.ModuleType:
    """Compile ``dlarray_ext_demo.c`` and import it.

    Parameters
    ----------
    build_dir : pathlib.Path, optional
        Where the object file and the shared library go; a new temporary
        folder by default.  The library is named ``dlarray_ext_demo`` plus
        this Python's ``EXT_SUFFIX``.

    Returns
    -------
    types.ModuleType
        The imported extension module.  It is not put in ``sys.modules``.

    Raises
    ------
    RuntimeError
        No usable compiler, or compiling or linking failed: the message
        holds the command and the compiler's output.
    """
    reason = compiler_available()
    if reason is not None:
        raise RuntimeError(f"cannot build {MODULE_NAME}: {reason}")
    if build_dir is None:
        build_dir = pathlib.Path(tempfile.mkdtemp(prefix=f"{MODULE_NAME}-"))
    build_dir.mkdir(parents=True, exist_ok=True)
    obj = build_dir / f"{MODULE_NAME}.o"
    library = build_dir / f"{MODULE_NAME}{sysconfig.get_config_var('EXT_SUFFIX')}"
    # Python's own CFLAGS (optimisation, warnings) and CCSHARED (-fPIC);
    # -std=c11 last, so that it wins over any older -std in CFLAGS.
    compile_flags = [*_config("CFLAGS"), *_config("CCSHARED"), "-std=c11"]
    _run([*_config("CC"), *compile_flags, *_include_flags(), "-c", str(SOURCE), "-o", str(obj)])
    _run([*_config("LDSHARED"), str(obj), "-o", str(library)])
    return _import_from(library)


def _import_from(library: pathlib.Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(MODULE_NAME, library)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"{library} is not an importable extension module")
    module = importlib.util.module_from_spec(spec)  # runs PyInit_dlarray_ext_demo
    spec.loader.exec_module(module)
    return module


# ---- the demonstration ----


def demonstrate(ext: types.ModuleType, label: str, x: Any) -> None:
    """total, scale_ and time_exchanges on one producer's 3x4 matrix."""
    version = ext.table_version(x)
    route = f"its type's exchange table, version {version}" if version else "__dlpack__"
    print(f"{label}: {type(x).__module__}.{type(x).__qualname__}, exchanged through {route}")
    before = ext.total(x)
    print(f"  total(x) = {before}, total(x[:, 1::2]) = {ext.total(x[:, 1::2])}")
    ext.scale_(x.T, 2.0)  # a transposed view: every element, in place
    print(f"  after scale_(x.T, 2.0): total(x) = {ext.total(x)}")
    assert ext.total(x) == 2 * before
    hows = ["borrow", "capsule"] + (["managed", "dltensor"] if version else [])
    timings = ", ".join(f"{how} {ext.time_exchanges(x, 20_000, how):.0f} ns" for how in hows)
    print(f"  one exchange: {timings}")


def show_legacy_producer(ext: types.ModuleType) -> None:
    """JAX gives only legacy capsules: borrow() reads them, to_managed() cannot."""
    import jax
    import jax.numpy as jnp

    # On JAX's CPU device: where JAX sees a GPU its arrays go there by
    # default, and total() reads host memory.
    x = jax.device_put(jnp.arange(12.0).reshape(3, 4), jax.devices("cpu")[0])
    print(f"jax: table {ext.table_version(x)}, legacy capsules; total(x) = {ext.total(x)}")
    try:
        ext.to_dlarray(x)
    except BufferError as exc:
        print(f"  to_dlarray(x) refused: {str(exc).split(';')[0]}")


def main() -> None:
    reason = compiler_available()
    if reason is not None:
        print(f"cannot build the extension here: {reason}")
        return
    with tempfile.TemporaryDirectory() as build_dir:
        ext = build(pathlib.Path(build_dir))
        print(f"built {ext.__file__} with {_config('CC')[0]}")
    # The shared library is mapped now; its file is no longer needed.

    demonstrate(ext, "dlarray", dlarray.reshape(dlarray.arange(12.0), (3, 4)))
    demonstrate(ext, "numpy", np.arange(12.0).reshape(3, 4))
    if importlib.util.find_spec("torch") is None:
        print("torch: skipped, not installed")
    else:
        import torch

        demonstrate(ext, "torch", torch.arange(12.0).reshape(3, 4))

    if importlib.util.find_spec("jax") is None:
        print("jax: skipped, not installed")
    else:
        show_legacy_producer(ext)

    y = ext.to_dlarray(np.arange(3.0))
    print(f"to_dlarray(numpy array) -> {y!r}")
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    try:
        ext.scale_(frozen, 2.0)
    except ValueError as exc:
        print(f"scale_ of a read-only NumPy array refused: {exc}")
    else:
        raise AssertionError("a read-only array was written")
    assert frozen.tolist() == [0.0, 1.0, 2.0]


if __name__ == "__main__":
    main()
