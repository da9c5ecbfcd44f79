"""Shared test fixtures."""

from __future__ import annotations

import gc
import os
import re
import sys
import sysconfig

import abi
import pytest

from dlarray._cuda import runtime as cuda_runtime

# The intel-opencl-rt wheel's ICD file names a placeholder path, so the
# OpenCL loader finds Intel's CPU runtime only through this variable, which
# must be set before dpctl is first imported (docs/sycl.md, troubleshooting).
_INTEL_OPENCL = os.path.join(sys.prefix, "lib", "libintelocl.so")
if os.path.exists(_INTEL_OPENCL) and "OCL_ICD_FILENAMES" not in os.environ:
    os.environ["OCL_ICD_FILENAMES"] = _INTEL_OPENCL

# JAX takes 75% of a GPU's memory when it first touches it, in each process:
# with pytest-xdist's workers (tests/cuda/device_check.sh runs 8) the second
# worker to import JAX on a GPU leaves the others none.  It allocates as it
# goes instead (set before any test module imports JAX).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def pytest_collection_finish(session):
    """Move everything alive after collection (the modules and what the test
    modules made at import: NumPy, SciPy, PyTorch, ...) into the collector's
    permanent generation.  The full collections below then walk only what
    the tests made since, instead of a heap of millions of objects that no
    test can free (a collection took ~0.4 s with SciPy imported)."""
    gc.collect()
    gc.freeze()


# Free-threaded CPython (3.13t): the suite runs with the GIL off, and a module
# that turns it back on (one without Py_mod_gil) must fail the run.
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


@pytest.fixture(scope="session", autouse=True)
def _the_gil_stays_off():
    yield
    if FREE_THREADED and sys._is_gil_enabled():
        pytest.fail(
            "the GIL was turned back on during this run: a module imported by a test has not "
            "declared Py_mod_gil (see the RuntimeWarning CPython printed)",
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def _release_ctypes_producers():
    """Release the capsules of every ctypes producer a test made, then check
    their callbacks ran cleanly.

    A ctypes producer (tests/abi.py) holds its capsules, and their destructor
    is Python code called through ctypes.  Left alive until interpreter
    shutdown, that code would run while modules are being torn down and crash
    the process, so each test lets go of its capsules when it ends.
    """
    start = len(abi._KEEPALIVE)
    yield
    made = abi._KEEPALIVE[start:]
    if not made:
        # Most tests make no ctypes producer.  A full collection after each
        # of them walked the whole heap (large once SciPy is imported) and
        # was 85% of the suite's time, for nothing to release.
        return
    for producer in made:
        producer.drop_capsules()
    gc.collect()  # capsules held in reference cycles: their destructors run now
    for producer in made:
        assert producer.callback_errors == []


# The test modules that run dlarray over the stand-in CUDA runtime
# (tests/fake_cuda.py).  Only they hide CuPy: every other test sees the
# process as a user's would, because a None in sys.modules is not a state
# consumers expect (SciPy's vendored array-api-compat looks CuPy up there and
# fails on a None with AttributeError).
_STAND_IN_TESTS = tuple(
    os.path.join("tests", folder, name)
    for folder, name in (
        ("protocols", "test_array_protocols.py"),
        ("memory", "test_cuda_paths.py"),
        ("memory", "test_cuda_stream_order.py"),
        ("memory", "test_cuda_managed_compute.py"),
        ("memory", "test_memory_kinds.py"),
        ("namespace", "test_printing.py"),
    )
)


@pytest.fixture(autouse=True)
def _no_cupy_over_the_stand_in(request, monkeypatch):
    """Hide a real CuPy, and a real GPU, from the tests of the stand-in CUDA
    runtime.

    CuPy imports without a GPU, and once a module of the run has imported it
    (the interop matrix does, at collection), dlarray asks it for its current
    stream (its work stream, see dlarray._cuda.streams) -- which needs a
    driver.  The stand-in tests are about dlarray's own calls, whichever
    module ran before them, so they see no CuPy unless they install a stand-in
    of their own (``monkeypatch.setitem(sys.modules, "cupy", ...)`` after
    this).  memory/test_cuda_cupy_call_shapes.py is not listed: it runs a
    real CuPy over host memory, in a child process.

    On a machine with a GPU, the real runtime is hidden too
    (``dlarray._cuda.runtime.hidden``): these tests' streams and pointers are
    made up (0xABC0, host memory posing as a GPU's), and the real driver
    handed them would crash the process.  Inside, the stand-in replaces the
    hidden runtime; outside it, the tests see a machine without a GPU, as
    on every CPU machine.  The tests of how the missing runtime is named
    (``no_cuda_bindings``) look for the real one."""
    path = str(request.node.path)
    if not any(path.endswith(name) for name in _STAND_IN_TESTS):
        yield
        return
    monkeypatch.setitem(sys.modules, "cupy", None)
    if "no_cuda_bindings" in request.fixturenames or not cuda_runtime.available():
        yield
        return
    with cuda_runtime.hidden("no GPU: the stand-in CUDA tests hide this machine's GPU"):
        yield


@pytest.fixture
def no_gpu(monkeypatch):
    """As on a machine without a GPU, on any machine: dlarray's CUDA runtime
    raises CUDAUnavailableError and CuPy is not imported."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    with cuda_runtime.hidden("no GPU: this test hides this machine's GPU (no_gpu)"):
        yield


# What a skip reason says is missing, read from the reason's own words (the
# skipping tests word it in several ways): the first pattern that matches
# names the missing module, or the thing (a GPU) directly.
_MISSING_PATTERNS = (
    (re.compile(r"no usable (CUDA )?GPU|NVIDIA GPU"), "gpu"),
    (re.compile(r"^upstream: "), "upstream"),
    (re.compile(r" installed; the pins are for "), "pins"),
    (re.compile(r"arrived in (3\.\d+)"), None),
    (re.compile(r"No module named '([\w]+)"), None),
    (re.compile(r"could not import '([\w]+)"), None),
    (re.compile(r"^(PyTorch) is not installed"), None),
    (re.compile(r"^([\w-]+) is not installed"), None),
    (re.compile(r"needs ([\w-]+)(, [\w-]+)*, which (is|are) not installed"), None),
)
# The missing thing -> the command that runs these tests.  The suite runs in
# nox's own virtualenvs, which a `pip install` into your venv never reaches:
# each line names the nox session that installs the thing, then the pip
# command for a venv of your own (the extras name this checkout's own).
_HOW_TO_GET = {
    "gpu": "a machine with an NVIDIA GPU and its driver (then: bash tests/cuda/device_check.sh)",
    "upstream": "a peer's own bug, named in the reason (nothing to install)",
    "pins": "nox -s 'interop(<peer>)' (the committed probe run's versions, docs/_data/probe.json)",
    "3.12": "Python >= 3.12: nox -s tests_python-3.12 (eval \"$(.ci/pythons)\" finds it)",
    "cuda": "nox -s cuda_packages (your venv: pip install -e '.[cuda]')",
    "cupy": "nox -s cuda_packages (your venv: pip install -e '.[cupy]')",
    "torch": "nox -s 'interop(torch)' (your venv: pip install torch)",
    "jax": "nox -s 'interop(jax)' (your venv: pip install jax)",
    "tvm_ffi": "nox -s 'interop(tvm_ffi)' (your venv: pip install apache-tvm-ffi)",
    "dpctl": "nox -s sycl (your venv: pip install -e '.[sycl-cpu]')",
    "dpnp": "nox -s 'interop(dpnp)' (your venv: pip install -e '.[dpnp]')",
    "array_api_strict": "nox -s clients (your venv: pip install array-api-strict)",
    "array_api_compat": "nox -s clients (your venv: pip install array-api-compat)",
    "array_api_extra": "nox -s clients (your venv: pip install array-api-extra)",
    "sklearn": "nox -s clients (your venv: pip install scikit-learn)",
    "scipy": "nox -s clients (your venv: pip install scipy)",
    "einops": "nox -s clients (your venv: pip install einops)",
    "cubed": "nox -s distributed (your venv: pip install cubed zarr 'dask[distributed]')",
    "dask": "nox -s distributed (your venv: pip install cubed zarr 'dask[distributed]')",
    "distributed": "nox -s distributed (your venv: pip install cubed zarr 'dask[distributed]')",
    "setuptools": "nox -s tests (your venv: pip install setuptools)",
}
# A reason that carries its own command in parentheses, "(nox -s ...)" or
# "(apt install ...)", is its own line: nothing to add to it.
_OWN_COMMAND = re.compile(r"\((nox -s|apt install|pip install) [^)]+\)")
#: A line for a thing the table above does not know: a new skip reason must
#: get its command there (tests/package/test_skip_summary.py checks it).
UNKNOWN_HOW = "no command known for this yet: add one to tests/conftest.py's _HOW_TO_GET"
_ALIASES = {"pytorch": "torch", "array-api-strict": "array_api_strict",
            "array-api-extra": "array_api_extra", "array-api-compat": "array_api_compat",
            "apache-tvm-ffi": "tvm_ffi", "scikit-learn": "sklearn", "cupy": "cupy"}  # fmt: skip


def _missing_thing(reason: str) -> str:
    """The one thing a skip reason says this machine lacks (or the reason)."""
    for pattern, thing in _MISSING_PATTERNS:
        found = pattern.search(reason)
        if found:
            name = thing or found.group(1 if found.lastindex else 0)
            return _ALIASES.get(name.lower(), name)
    return reason


def summary_line(thing: str) -> str:
    """The skip summary's words for one missing thing: the thing and the
    command that gets it (a reason with its own command is said as it is)."""
    if thing in _HOW_TO_GET:
        return f"{thing}: {_HOW_TO_GET[thing]}"
    if _OWN_COMMAND.search(thing):
        return thing
    return f"{thing}: {UNKNOWN_HOW}"


def pytest_terminal_summary(terminalreporter):
    """The skipped tests, one line per missing thing, with counts and how to
    get it.

    Without a GPU, a SYCL device or the optional peers several hundred tests
    skip, for one missing thing worded in several ways from many files;
    pytest's own list (``-rs``) repeats a reason once per file and line.
    pyproject.toml's ``-r`` leaves skips out of that list, and this section
    says each missing thing once (``-v`` adds each distinct reason under it)."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    by_thing: dict[str, dict[str, int]] = {}
    for report in skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons = by_thing.setdefault(_missing_thing(reason), {})
        reasons[reason] = reasons.get(reason, 0) + 1
    terminalreporter.section(f"{len(skipped)} skipped tests, by what this machine lacks", sep="-")
    verbose = terminalreporter.config.getoption("verbose") > 0
    for thing, reasons in sorted(by_thing.items(), key=lambda item: -sum(item[1].values())):
        terminalreporter.line(f"{sum(reasons.values()):5d}  {summary_line(thing)}")
        if verbose:
            for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
                terminalreporter.line(f"{'':7}{count:5d}  {reason}")
