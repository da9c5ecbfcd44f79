"""Sessions for testing, linting, type checking and benchmarking dlarray.

nox -s tests        the test suite on this Python with the newest NumPy (builds the C core
                    in a fresh venv); nothing GPU-only is downloaded
nox -s tests_python the same on each supported Python (tests_python-3.11 ... -3.15; .ci/pythons
                    makes 3.12-3.15 findable on the project's machines)
nox -s tests_oldest the test suite on the oldest Python with the oldest NumPy we support
nox -s latest       the newest release of every peer and consumer: interop, clients,
                    Cubed/Dask, the examples, the doctor and the probe
nox -s cuda_packages cuda-bindings' no-driver path and CuPy's call shapes, without a GPU
nox -s lint         ruff
nox -s typecheck    mypy --strict, using dlarray/_core.pyi for the C core
nox -s bench        exchange latency and namespace overhead against NumPy (and peers)
nox -s instructions the benchmark gate: instructions per call (callgrind) against budgets
nox -s conformance  the official Array API suite (checkout in $ARRAY_API_TESTS_DIR)
nox -s cuda         the GPU check, tests/cuda/device_check.sh (no network, no venv)
nox -s oracle       the differential oracle of the numbers, longer (-- --examples N)
nox -s sycl         the SYCL suite on Intel's OpenCL CPU runtime (a real SYCL device)
nox -s docs         the documentation site (Sphinx, warnings as errors) and its doctests
nox -s sanitize     the test suite against a core built with AddressSanitizer and UBSan
nox -s fuzz         the hypothesis fuzzer of the consumer and producer (-- --seconds N)
nox -s threads      the thread soak: mixed exchanges, deleters on foreign C threads
                    (threads_oldest: the same on Python 3.11, where the GIL bug lived)
nox -s free_threaded the suite, the race tests and the soak on free-threaded CPython
                    3.13t (../shared/python-ft) with the GIL off throughout
nox -s interop      the interop matrix with each peer: interop(numpy), interop(torch),
                    interop(jax), interop(tvm_ffi), interop(dpnp), interop(cupy)
nox -s clients      real Array API consumers (scikit-learn, SciPy, array-api-extra,
                    array-api-compat, einops) driven with dlarray arrays, next to
                    array-api-strict, every result compared with NumPy's
nox -s array_api_suites  those projects' own Array API tests with dlarray as a backend
                    beside array-api-strict, and the counts of each
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Sequence

import nox

ROOT = pathlib.Path(__file__).resolve().parent

nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = False

# hypothesis is pinned: its releases change which examples tests generate.
TEST_DEPS = ["pytest>=8", "pytest-xdist>=3.5", "ml_dtypes>=0.7"]
# The suite runs on every core (pytest-xdist): its tests are independent, and
# on a 2-core machine this halves its time (issue 29).
PARALLEL = ["-n", "auto"]
HYPOTHESIS = "hypothesis==6.170.15"
#: PyPA's build frontend: the sdist and the wheel as a release makes them.
BUILD = "build==1.3.0"
#: The virtualenv backend of the sessions that mostly install (the peers,
#: the clients, the docs): uv where it is installed (.ci/run installs it),
#: several times faster than pip at installing PyTorch and JAX, else
#: virtualenv.  The test-suite sessions keep virtualenv, whose Python 3.11
#: environments come with setuptools, which tests/package/test_build.py
#: builds with.  pyproject.toml's [tool.uv] cache-keys make uv rebuild
#: dlarray whenever its sources change.
FAST_INSTALL = "uv|virtualenv"
# The CuPy release the call-shape test checks dlarray against.
CUPY_CALL_SHAPES = ["cupy-cuda13x==14.2.0", "array-api-compat==1.16.0"]

#: The supported Pythons, stated once: pyproject.toml's classifiers (its
#: requires-python and the docs are checked against them by
#: tests/package/test_docs_facts.py).
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SUPPORTED_PYTHONS = [
    c.rsplit(" :: ", 1)[1]
    for c in PYPROJECT["project"]["classifiers"]
    if c.startswith("Programming Language :: Python :: 3.")
]
#: The Pythons that run the tests marked `tooling` (the command-line tools'
#: child processes, time limits and builds: about 40% of a suite run's CPU
#: time, in code that does not change with the Python between them): the
#: oldest and the newest.  tests_python on the others, and free_threaded,
#: leave them out (``-m "not tooling"``); tests, tests_oldest and sanitize
#: run them.
TOOLING_PYTHONS = (SUPPORTED_PYTHONS[0], SUPPORTED_PYTHONS[-1])
NOT_TOOLING = ("-m", "not tooling")
#: The oldest NumPy dlarray supports (SPEC 0: a core package for two years
#: after its release), the floor of pyproject.toml's dependency.
OLDEST_NUMPY = next(
    d.split(">=")[1] for d in PYPROJECT["project"]["dependencies"] if d.startswith("numpy>=")
)


@nox.session
def tests(session: nox.Session) -> None:
    """Build dlarray as a release is built and run the test suite on the
    Python that runs nox, with the newest NumPy for it.  Nothing that needs a
    GPU is installed (see cuda_packages): the CUDA paths are tested against
    the stand-in runtime.

    dlarray is installed from its sdist (pip builds the wheel from it), so
    a file the sdist or the wheel leaves out fails here; the package session
    checks the artefacts themselves and does not run the suite again."""
    session.install(BUILD, *TEST_DEPS, HYPOTHESIS)
    session.install(str(_build_sdist(session)))
    _run_pytest(session)


def _build_sdist(session: nox.Session) -> pathlib.Path:
    """The sdist of the tree, as ``python -m build --sdist`` makes it for a
    release, in a fresh folder of the session's; its path."""
    dist = pathlib.Path(session.create_tmp()) / "sdist"
    shutil.rmtree(dist, ignore_errors=True)
    session.run("python", "-m", "build", "--sdist", "--outdir", str(dist), str(ROOT), silent=True)
    (sdist,) = dist.glob("dlarray-*.tar.gz")
    return sdist


@nox.session(python=SUPPORTED_PYTHONS)
def tests_python(session: nox.Session) -> None:
    """The test suite on one supported Python with the newest NumPy and
    ml_dtypes for it: ``nox -s tests_python-3.14``.  On the project's
    machines 3.14 and 3.15 are Debian's builds in ../shared, and pyenv has
    3.12 and 3.13: ``eval "$(.ci/pythons)"`` puts them on PATH.  The tests marked
    `tooling` run on the oldest and newest of them only (TOOLING_PYTHONS)."""
    session.install(".", *TEST_DEPS, HYPOTHESIS)
    _run_pytest(session, options=() if session.python in TOOLING_PYTHONS else NOT_TOOLING)


@nox.session(python=SUPPORTED_PYTHONS[0])
def tests_oldest(session: nox.Session) -> None:
    """The test suite on the oldest Python and NumPy dlarray supports."""
    session.install(".", f"numpy=={OLDEST_NUMPY}", *TEST_DEPS, HYPOTHESIS)
    _run_pytest(session)


@nox.session(venv_backend=FAST_INSTALL)
def cuda_packages(session: nox.Session) -> None:
    """The tests that meet CUDA's Python packages, with them installed, on a
    machine with or without a GPU: cuda-bindings' path when no driver is
    found, and CuPy's argument checks run on every namespace call over host
    memory (CuPy imports without a GPU); the memory, protocol, install-hint
    and doctor tests, where the packages' presence changes the path taken.
    It downloads CuPy for CUDA 13 and cuda-bindings (about 350 MB in the
    venv), which is why the README's ``nox -s tests`` leaves them out; CI
    runs both."""
    session.install(".", *TEST_DEPS, HYPOTHESIS, "cuda-bindings", *CUPY_CALL_SHAPES)
    _run_pytest(session, *CUDA_PACKAGE_TESTS)


#: What cuda_packages runs (CUDA_PACKAGE_TESTS below the tests folder).
CUDA_PACKAGE_TESTS = ("memory", "protocols", "package/test_install_hints.py",
                      "package/test_main.py")  # fmt: skip


def _run_pytest(session: nox.Session, *tests: str, options: Sequence[str] = ()) -> None:
    """pytest over ``tests`` (paths below tests/; default: the whole suite
    and the installed package's doctests), from outside the tree, with
    pytest's ``options``."""
    where = [str(ROOT / "tests" / t) for t in tests] or [
        str(ROOT / "tests"), "--doctest-modules", "--pyargs", "dlarray",
    ]  # fmt: skip
    # Run from a temporary directory so that `import dlarray` finds the
    # installed package (with its compiled core), not the source tree; the
    # docstring examples of the installed package run as doctests.
    with session.chdir(session.create_tmp()):
        session.run(
            "pytest",
            *where,
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(ROOT),
            *PARALLEL,
            *options,
            *session.posargs,
        )


# What a release must carry, beyond the Python modules: the wheel the
# compiled core, its type stub and marker, and the public headers extension
# authors build against (dlarray.get_include()); the sdist every file the
# core is built from.
WHEEL_MUST_HOLD = (
    "_dlarray_pytest.py",
    "dlarray/py.typed",
    "dlarray/_core.pyi",
    "dlarray/include/dlpack_abi.h",
    "dlarray/include/dlarray_capi.h",
)
SDIST_MUST_HOLD = (
    "pyproject.toml",
    "_dlarray_pytest.py",
    "setup.py",
    "README.md",
    "dlarray/__init__.py",
    "dlarray/_core/core.h",
    "dlarray/include/dlpack_abi.h",
)


@nox.session
def package(session: nox.Session) -> None:
    """Build the sdist and the wheel as a release would and test what they hold.

    ``python -m build`` makes the sdist and then the wheel *from the sdist*,
    so a source file the sdist leaves out fails the build here instead of on
    a user's machine.  ``twine check`` reads their metadata as PyPI would.
    The wheel is installed into this fresh environment (not the tree: no
    editable or in-place build), the version it reports is the metadata's,
    and its main job runs from outside the source tree.  The test suite runs
    on a wheel built from the sdist in the tests session, not here again."""
    dist = pathlib.Path(session.create_tmp()) / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    session.install(BUILD, "twine==6.2.0")
    session.run("python", "-m", "build", "--outdir", str(dist), str(ROOT))
    (sdist,) = dist.glob("dlarray-*.tar.gz")
    (wheel,) = dist.glob("dlarray-*.whl")
    session.run("twine", "check", "--strict", str(sdist), str(wheel))
    _check_contents(session, sdist, wheel)
    session.install(str(wheel))
    with session.chdir(session.create_tmp()):  # not the tree: the installed wheel
        session.run(
            "python",
            "-c",
            "import importlib.metadata as m, sysconfig, dlarray; "
            "assert dlarray.__file__.startswith(sysconfig.get_path('platlib')), dlarray.__file__; "
            "assert dlarray.__version__ == m.version('dlarray'), "
            "(dlarray.__version__, m.version('dlarray')); "
            "print('dlarray', dlarray.__version__, 'from', dlarray.__file__)",
        )
        session.run("python", "-m", "dlarray", "--repeats", "20")


def _check_contents(session: nox.Session, sdist: pathlib.Path, wheel: pathlib.Path) -> None:
    """Fail the session when the sdist or the wheel lacks a file of
    SDIST_MUST_HOLD / WHEEL_MUST_HOLD, or the wheel its compiled core."""
    with zipfile.ZipFile(wheel) as zf:
        in_wheel = set(zf.namelist())
        entry_points = [zf.read(n).decode() for n in in_wheel if n.endswith("/entry_points.txt")]
    with tarfile.open(sdist) as tf:
        root = tf.getnames()[0].split("/")[0]
        in_sdist = {name.removeprefix(root + "/") for name in tf.getnames()}
    missing = [f"wheel: {n}" for n in WHEEL_MUST_HOLD if n not in in_wheel]
    missing += [f"sdist: {n}" for n in SDIST_MUST_HOLD if n not in in_sdist]
    if not any(n.startswith("dlarray/_core.") and n.endswith((".so", ".pyd")) for n in in_wheel):
        missing.append("wheel: the compiled core dlarray/_core.*.so")
    missing += [f"sdist: {n}" for n in _core_sources() if n not in in_sdist]
    if not any("= _dlarray_pytest" in text for text in entry_points):
        missing.append("wheel: the DLPack kit's pytest11 entry point (entry_points.txt)")
    if missing:
        session.error("package: missing from the distributions: " + ", ".join(missing))
    session.log(
        f"package: {wheel.name} ({len(in_wheel)} files), {sdist.name} ({len(in_sdist)} files)"
    )


def _core_sources() -> list[str]:
    """The C core's sources and headers, relative to the tree."""
    core = ROOT / "dlarray" / "_core"
    return sorted(f"dlarray/_core/{p.name}" for p in core.iterdir() if p.suffix in (".c", ".h"))


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over the package, tests, benchmarks and examples, and the import
    guard: the package's layers import one way (tests/test_layers.py)."""
    session.install("ruff==0.17.5")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", "dlarray")
    session.run("python", "tests/test_layers.py")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict over the package."""
    session.install("mypy==2.4.1", f"numpy>={OLDEST_NUMPY}", "ml_dtypes>=0.7", "pytest>=8")
    session.run("mypy")


@nox.session(venv_backend=FAST_INSTALL)
def docs(session: nox.Session) -> None:
    """Build the documentation site with warnings as errors, run the doctests
    on its pages, and check that every public name has an example.

    The HTML lands in docs/_build/html.  Sphinx runs from a temporary
    directory so that ``import dlarray`` finds the installed package (with
    its compiled core), not the source tree."""
    session.install(".", "-r", str(ROOT / "docs" / "requirements.txt"))
    docs_dir = ROOT / "docs"
    build = docs_dir / "_build"
    with session.chdir(session.create_tmp()):
        session.run("python", str(docs_dir / "api" / "check_examples.py"), "--strict")
        for builder in ("html", "doctest"):
            session.run(
                "python",
                "-m",
                "sphinx",
                "-W",
                "--keep-going",
                "-b",
                builder,
                str(docs_dir),
                str(build / builder),
            )


@nox.session(venv_backend=FAST_INSTALL)
def bench(session: nox.Session) -> None:
    """Exchange latency against NumPy and the peers (torch, tvm_ffi, jax),
    namespace overhead, and memory growth over many exchanges.

    Options after -- : ``--quick`` (CI: a few seconds per script) and
    ``--output PATH`` (the exchange JSON; the others go next to it as
    PATH-namespace.json, PATH-peers.json, PATH-memory.json).  Only
    bench_memory.py fails the session on a bad result (a leak); latency
    targets are printed, not enforced (shared machines are noisy: run
    ``python benchmarks/bench_peers.py --check-targets`` for that).

    torch is the plain ``torch==2.13.0`` requirement, as in interop(torch):
    a local CPU wheel (pip's find-links) wins where there is one; set
    INTEROP_TORCH_INDEX (e.g. https://download.pytorch.org/whl/cpu) to add
    PyTorch's CPU index elsewhere.
    """
    install = [
        ".",
        "numpy",
        "array-api-strict==2.6.1",
        *INTEROP_PEERS["torch"],
        *INTEROP_PEERS["tvm_ffi"],
        *INTEROP_PEERS["jax"],
    ]
    if os.environ.get("INTEROP_TORCH_INDEX"):
        install += ["--extra-index-url", os.environ["INTEROP_TORCH_INDEX"]]
    session.install(*install)
    # --with-torch was needed when torch was optional here; still accepted.
    args = [a for a in session.posargs if a != "--with-torch"]
    quick = [a for a in args if a == "--quick"]
    output = pathlib.Path(args[args.index("--output") + 1]) if "--output" in args else None

    def output_for(suffix: str) -> list[str]:
        """--output for a script's own JSON, next to the exchange one."""
        if output is None:
            return []
        return ["--output", str(output.with_name(f"{output.stem}-{suffix}.json"))]

    benchmarks = ROOT / "benchmarks"
    session.run("python", str(benchmarks / "bench_exchange.py"), *args)
    session.run("python", str(benchmarks / "bench_namespace.py"), *quick, *output_for("namespace"))
    session.run("python", str(benchmarks / "bench_peers.py"), *quick, *output_for("peers"))
    session.run("python", str(benchmarks / "bench_memory.py"), *quick, *output_for("memory"))


#: The versions the instruction budgets were measured with (one fact, kept in
#: the budgets file): the gate installs exactly these, so counts compare.
INSTRUCTION_BUDGETS = ROOT / "benchmarks" / "instruction_budgets.json"
BUDGET_VERSIONS = (
    json.loads(INSTRUCTION_BUDGETS.read_text())["versions"]
    if INSTRUCTION_BUDGETS.exists()
    else {"python": "3.11", "numpy": "2.4.6", "torch": "2.13.0", "tvm_ffi": "0.1.15.post2"}
)

#: The Python the budgets were counted on (major.minor).
BUDGET_PYTHON = ".".join(BUDGET_VERSIONS["python"].split(".")[:2])


@nox.session(python=BUDGET_PYTHON, venv_backend=FAST_INSTALL)
def instructions(session: nox.Session) -> None:
    """The deterministic benchmark gate: instructions per call under
    valgrind's callgrind, dlarray's and the peer's in the same run, each row
    against its budget in benchmarks/instruction_budgets.json.  A row over
    budget fails the session and names itself (issue 32).

    NumPy, PyTorch and tvm-ffi are installed at the budgets' versions, so
    the counts compare.  Options after -- go to bench_instructions.py:
    ``--record`` sets the budgets from this run, ``--rows TEXT`` runs some.
    """
    if shutil.which("valgrind") is None:
        session.error("instructions: needs valgrind on PATH (apt install valgrind)")
    torch = BUDGET_VERSIONS["torch"].split("+")[0]
    install = [
        ".",
        f"numpy=={BUDGET_VERSIONS['numpy']}",
        f"torch=={torch}",
        f"apache-tvm-ffi=={BUDGET_VERSIONS['tvm_ffi']}",
    ]
    if os.environ.get("INTEROP_TORCH_INDEX"):
        install += ["--extra-index-url", os.environ["INTEROP_TORCH_INDEX"]]
    session.install(*install)
    with session.chdir(session.create_tmp()):  # the installed dlarray, not the tree
        session.run("python", str(ROOT / "benchmarks" / "bench_instructions.py"), *session.posargs)


@nox.session(venv_backend=FAST_INSTALL)
def conformance(session: nox.Session) -> None:
    """data-apis/array-api-tests against dlarray at version 2025.12.

    The suite is not vendored: fetch it with array_api_conformance/fetch_suite.sh and
    export ARRAY_API_TESTS_DIR.  Options after -- go to run.py (e.g. --max-examples 1000).
    """
    if not os.environ.get("ARRAY_API_TESTS_DIR"):
        session.error(
            "ARRAY_API_TESTS_DIR is not set: fetch the suite with "
            "array_api_conformance/fetch_suite.sh DEST and export ARRAY_API_TESTS_DIR=DEST"
        )
    session.install(".", *TEST_DEPS, "-r", str(ROOT / "array_api_conformance" / "requirements.txt"))
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run("python", str(ROOT / "array_api_conformance" / "run.py"), *session.posargs)


#: dlarray's own tests of the namespace, which the foreign engine runs.
NAMESPACE_TESTS = tuple(
    f"namespace/{name}"
    for name in (
        "test_data_types.py",
        "test_properties.py",
        "test_indexing.py",
        "test_array_object.py",
        "test_creation.py",
        "test_linalg.py",
        "test_fft.py",
        "test_indexing_with_arrays.py",
        "test_sorting_sets.py",
        "test_manipulation.py",
        "test_statistical.py",
        "test_searching.py",
        "test_statistical_accuracy.py",
    )
)


@nox.session(venv_backend=FAST_INSTALL)
def foreign_engine(session: nox.Session) -> None:
    """The namespace computing on host memory through array-api-strict
    instead of NumPy (DLARRAY_HOST_ENGINE=array_api_strict): an engine that
    accepts only the standard, so a NumPy habit left in a chapter module
    fails here.  Runs dlarray's namespace tests, then the official
    conformance suite when ARRAY_API_TESTS_DIR is set."""
    session.install(".", *TEST_DEPS, HYPOTHESIS, "array-api-strict==2.6.1")
    env = {"DLARRAY_HOST_ENGINE": "array_api_strict"}
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run(
            "pytest",
            *(str(ROOT / "tests" / name) for name in NAMESPACE_TESTS),
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(ROOT),
            *PARALLEL,
            *session.posargs,
            env=env,
        )
        if os.environ.get("ARRAY_API_TESTS_DIR"):
            session.install("-r", str(ROOT / "array_api_conformance" / "requirements.txt"))
            session.run("python", str(ROOT / "array_api_conformance" / "run.py"), env=env)
        else:
            session.log("ARRAY_API_TESTS_DIR is not set: the conformance suite is not run")


@nox.session(venv_backend=FAST_INSTALL)
def oracle(session: nox.Session) -> None:
    """The differential oracle (tests/oracle/) run longer: every reduction,
    scan, statistical and elementwise function against exact or
    higher-precision arithmetic, at every size threshold of the code.  The
    default suite runs it with a few examples per test; here
    ``-- --examples N`` sets hypothesis's examples per test (default 200),
    ``-- --explore`` draws new examples on every run (otherwise the same
    ones, so that CI is reproducible), and any other argument after ``--``
    goes to pytest."""
    args = list(session.posargs)
    env = {"DLARRAY_ORACLE_EXPLORE": "0"}
    if "--explore" in args:
        args.remove("--explore")
        env["DLARRAY_ORACLE_EXPLORE"] = "1"
    examples = "200"
    if "--examples" in args:
        at = args.index("--examples")
        if at + 1 >= len(args) or not args[at + 1].isdigit():
            session.error("oracle: --examples needs a whole number, e.g. -- --examples 1000")
        examples = args[at + 1]
        del args[at : at + 2]
    session.install(".", *TEST_DEPS, HYPOTHESIS)
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run(
            "pytest", str(ROOT / "tests" / "oracle"), "-p", "no:cacheprovider",
            "--rootdir", str(ROOT), *PARALLEL, *args,
            env={**env, "DLARRAY_ORACLE_EXAMPLES": examples},
        )  # fmt: skip


# ---- hardening: sanitizers, fuzzing, thread soaks ----

#: Compiler and linker flags of the sanitized core: every ASan report and
#: every undefined behaviour UBSan sees in dlarray's C code stops the run.
#: -fno-wrapv undoes the -fwrapv of Python's own CFLAGS, under which signed
#: overflow is defined and UBSan does not check it (issue 28's F5, a stride
#: times the item size overflowing in buffer.c, went unseen because of it).
SANITIZE_FLAGS = (
    "-fsanitize=address,undefined -fno-sanitize-recover=undefined "
    "-fno-omit-frame-pointer -fno-wrapv -g -O1"
)


@nox.session(python="3.11", venv_backend=FAST_INSTALL)
def clients(session: nox.Session) -> None:
    """Real consumers of the Array API driven with dlarray arrays on the host
    (tests/clients/): scikit-learn with array_api_dispatch, SciPy with
    SCIPY_ARRAY_API=1, array-api-extra, array-api-compat and einops, each
    call also run with array-api-strict and compared with NumPy's result.
    Prints the passed / pinned-deviation / failed table per consumer.
    DLARRAY_CLIENTS=1 makes a consumer that fails to install or import fail
    the run instead of skipping (SciPy 1.17 needs Python >= 3.11)."""
    session.install(".", *TEST_DEPS, "-r", str(ROOT / "tests" / "clients" / "requirements.txt"))
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run(
            "pytest",
            str(ROOT / "tests" / "clients"),
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(ROOT),
            "-rs",
            *session.posargs,
            env={"SCIPY_ARRAY_API": "1", "DLARRAY_CLIENTS": "1"},
        )


@nox.session(python="3.11", venv_backend=FAST_INSTALL)
def array_api_suites(session: nox.Session) -> None:
    """scikit-learn's, SciPy's (special, stats, signal) and array-api-extra's
    own Array API tests with dlarray added as a backend beside
    array-api-strict (tests/clients/array_api_plugin.py): passed / failed /
    skipped / xfailed per project and backend, then the failures seen with
    dlarray only, with what array-api-strict's run of the same test did.
    Fails only when a project's tests could not run.  4 to 8 minutes on 2
    cores.  Arguments go to tests/clients/run_array_api_suites.py (projects,
    --scipy-modules, --json FILE, --mixed, -- pytest options)."""
    clients = ROOT / "tests" / "clients"
    session.install(
        ".", *TEST_DEPS, HYPOTHESIS,
        "-r", str(clients / "requirements.txt"), "-r", str(clients / "array-api-suites.txt"),
    )  # fmt: skip
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run("python", str(clients / "run_array_api_suites.py"), *session.posargs)


# The engines of the distributed session, pinned (docs/beyond.md).  distributed
# stays at 2025.9.1: from a later release on, an asynchronous client's
# scheduler_info() carries no workers (distributed/client.py, scheduler_info),
# and Cubed 0.27's Dask executor refuses the cluster ("Cluster has no workers
# running", cubed/runtime/executors/dask.py:26), whatever the backend.
DISTRIBUTED_DEPS = ["cubed==0.27.0", "dask==2025.9.1", "distributed==2025.9.1", "zarr==3.1.6"]


@nox.session(python="3.11", venv_backend=FAST_INSTALL)
def distributed(session: nox.Session) -> None:
    """dlarray as the chunk array of Cubed and Dask (tests/distributed/):
    Cubed's processes executor and Cubed on a Dask cluster of two worker
    processes on loopback, with dlarray.compat as Cubed's backend, results
    against NumPy's; Dask arrays of dlarray chunks on dask.distributed, the
    bytes pickle 5 copies; and examples/scale_out.py at its quick size.
    Under 3 minutes on 2 cores."""
    session.install(".", *TEST_DEPS, *DISTRIBUTED_DEPS)
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run(
            "pytest",
            str(ROOT / "tests" / "distributed"),
            str(ROOT / "tests" / "package" / "test_examples.py"),
            "-k",
            "distributed or scale_out",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(ROOT),
            "-rs",
            *session.posargs,
        )


# ---- the newest release of everything dlarray meets ----

#: Every peer and consumer, unpinned: the latest session takes the newest
#: release the package index serves for its Python.  dask and distributed are
#: released together and pin each other; named apart, pip can pair the newest
#: dask with distributed 2021.4.1, which fails on import, so they come as
#: dask's own extra.  torch is as new as the index serves (on the project's
#: machines a pip constraint caps it at the release on their disk).
LATEST = [
    "numpy", "ml_dtypes", "torch", "jax", "apache-tvm-ffi",
    "dpctl", "dpnp", "intel-opencl-rt",
    "cubed", "dask[distributed]", "zarr",
    "scikit-learn", "scipy", "array-api-strict", "array-api-compat", "array-api-extra", "einops",
]  # fmt: skip
#: The newest Python every one of them has wheels for.
LATEST_PYTHON = "3.13"
#: The peers whose interop modules the latest session runs (CuPy needs a GPU).
LATEST_INTEROP = ["numpy", "torch", "jax", "tvm_ffi", "dpnp"]


@nox.session(python=LATEST_PYTHON, venv_backend=FAST_INSTALL)
def latest(session: nox.Session) -> None:
    """dlarray against the newest release of every peer and consumer: the
    interop matrix, the Array API consumers, Cubed and Dask, the examples,
    the doctor and the probe.  A peer or consumer that fails to import fails
    the run.  The versions it ran with are printed first and written to
    $DLARRAY_LATEST_VERSIONS when set (a JSON file)."""
    install = [".", *TEST_DEPS, HYPOTHESIS, "setuptools", *LATEST]  # setuptools: as interop
    if os.environ.get("INTEROP_TORCH_INDEX"):
        install += ["--extra-index-url", os.environ["INTEROP_TORCH_INDEX"]]
    session.install(*install)
    env: dict[str, str | None] = {
        **_sycl_env(session),
        "DLARRAY_INTEROP_PEER": ",".join(LATEST_INTEROP),
        "DLARRAY_CLIENTS": "1",
        "SCIPY_ARRAY_API": "1",
    }
    tests = [
        *(str(ROOT / "tests" / "interop" / f"test_{peer}.py") for peer in LATEST_INTEROP),
        str(ROOT / "tests" / "clients"),
        str(ROOT / "tests" / "distributed"),
        str(ROOT / "tests" / "package" / "test_examples.py"),
        str(ROOT / "tests" / "package" / "test_main.py"),
        str(ROOT / "tests" / "package" / "test_probe.py"),
        str(ROOT / "tests" / "kit" / "test_kit_peers.py"),
    ]
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run("python", "-c", _VERSIONS_REPORT, env=env)
        session.run(
            "pytest", *tests, "-p", "no:cacheprovider", "--rootdir", str(ROOT), "-rs",
            *PARALLEL, *session.posargs, env=env,
        )  # fmt: skip
        session.run("python", "-m", "dlarray", "--repeats", "20", env=env)
        session.run("python", "-m", "dlarray", "probe", env=env)


# The installed version of each distribution the latest session asked for.
_VERSIONS_REPORT = (
    "import importlib.metadata as m, json, os, sys; "
    "names = " + repr([n.split("[")[0] for n in ["dlarray", *LATEST, "distributed"]]) + "; "
    "versions = {'python': sys.version.split()[0], "
    "**{n: m.version(n) for n in names}}; "
    "print('latest:', ', '.join(f'{k} {v}' for k, v in versions.items())); "
    "out = os.environ.get('DLARRAY_LATEST_VERSIONS'); "
    "out and open(out, 'w').write(json.dumps(versions, indent=1))"
)


@nox.session
def sanitize(session: nox.Session) -> None:
    """The test suite against the C core built with AddressSanitizer and
    UndefinedBehaviorSanitizer.

    The core is built from a fresh copy of the tree, so no object file of an
    ordinary build is reused.  CPython is not instrumented, so ASan's
    runtime is preloaded, and PYTHONMALLOC=malloc sends Python objects
    through malloc, where ASan sees a use after free of an array or buffer
    (pymalloc's arenas would hide it).  Leak detection is off: CPython keeps
    memory until exit by design.  DLARRAY_SANITIZED=1 lets the tests that
    measure RSS skip themselves (ASan's quarantine keeps freed memory
    mapped).  Any report fails the session.  Extra pytest arguments go
    after ``--``.
    """
    compiler = shutil.which("gcc") or shutil.which("cc")
    if not sys.platform.startswith("linux") or compiler is None:
        session.skip("sanitize: needs Linux and gcc (for libasan and libubsan)")
    runtime = subprocess.run(
        [compiler, "-print-file-name=libasan.so"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if not os.path.isabs(runtime):
        session.error(f"sanitize: {compiler} has no libasan.so (install libasan / gcc's)")
    source = pathlib.Path(session.create_tmp()) / "source"
    shutil.rmtree(source, ignore_errors=True)
    shutil.copytree(
        ROOT, source,
        ignore=shutil.ignore_patterns(
            ".git", ".nox", ".venv", ".whl", "build", "*.so", "_build", "__pycache__"
        ),
    )  # fmt: skip
    session.install(*TEST_DEPS, HYPOTHESIS, "numpy", "setuptools>=68")
    session.install(
        "--no-build-isolation", "--no-deps", str(source),
        env={"CFLAGS": SANITIZE_FLAGS, "LDFLAGS": "-fsanitize=address,undefined"},
    )  # fmt: skip
    env = {
        "LD_PRELOAD": runtime,
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:strict_string_checks=1",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        "PYTHONMALLOC": "malloc",
        "DLARRAY_SANITIZED": "1",
    }
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run(
            "python", "-c",
            "import dlarray._core as c; print('sanitized core:', c.__file__)",
            env=env,
        )  # fmt: skip
        session.run(
            "pytest", str(ROOT / "tests"), "-p", "no:cacheprovider", "--rootdir", str(ROOT),
            "-q", *PARALLEL, *session.posargs, env=env,
        )  # fmt: skip


@nox.session(venv_backend=FAST_INSTALL)
def fuzz(session: nox.Session) -> None:
    """The fuzzer of the consumer and the producer (tests/fuzz): hostile
    producers and every keyword value, for a fixed time.

    ``-- --seconds N`` sets the budget (CI: 180; a long local run: 1800);
    other arguments go to pytest.  DLARRAY_FUZZ_SECONDS does the same.
    """
    seconds, args = _seconds_option(session, "DLARRAY_FUZZ_SECONDS", "180")
    session.install(".", *TEST_DEPS, HYPOTHESIS)
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run(
            "pytest", str(ROOT / "tests" / "fuzz"), "-p", "no:cacheprovider",
            "--rootdir", str(ROOT), "-rs", *args,
            env={"DLARRAY_FUZZ_SECONDS": seconds},
        )  # fmt: skip


def _seconds_option(session: nox.Session, variable: str, default: str) -> tuple[str, list[str]]:
    """A session's time budget: ``-- --seconds N``, else $variable, else
    ``default``; and the other arguments, for pytest."""
    args = list(session.posargs)
    seconds = os.environ.get(variable, default)
    if "--seconds" in args:
        at = args.index("--seconds")
        if at + 1 == len(args):
            session.error("--seconds needs a number of seconds")
        seconds = args[at + 1]
        del args[at : at + 2]
    return seconds, args


def _run_thread_soak(session: nox.Session, peers: list[str]) -> None:
    seconds, args = _seconds_option(session, "DLARRAY_SOAK_SECONDS", "30")
    install = [".", *TEST_DEPS, *peers]
    if "torch==2.13.0" in peers and os.environ.get("INTEROP_TORCH_INDEX"):
        install += ["--extra-index-url", os.environ["INTEROP_TORCH_INDEX"]]
    session.install(*install)
    tests = [str(ROOT / "tests" / "threads"), str(ROOT / "tests" / "package" / "test_hardening.py")]
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run(
            "pytest", *tests, "-p", "no:cacheprovider", "--rootdir", str(ROOT), "-rs", *args,
            env={"DLARRAY_SOAK_SECONDS": seconds, "DLARRAY_SOAK_THREADS": "8"},
        )  # fmt: skip


@nox.session(venv_backend=FAST_INSTALL)
def threads(session: nox.Session) -> None:
    """The thread soak (tests/threads) and the deleter-thread regressions
    (tests/package/test_hardening.py), with NumPy and PyTorch: 8 threads of mixed
    exchanges, capsules handed across threads, deleters on foreign C
    threads; no crash, flat RSS, reference counts back.

    ``-- --seconds N`` sets the soak's length (default 30).
    """
    _run_thread_soak(session, [*INTEROP_PEERS["torch"], HYPOTHESIS])


# Free-threaded CPython: the interpreter the project is given (not on any
# registry), unpacked once into a cache folder; NumPy publishes cp313t wheels
# up to 2.4.x.
FREE_THREADED_TARBALL = ROOT.parent / "shared" / "python-ft" / "python3.13t.tar.xz"
FREE_THREADED_HOME = pathlib.Path(
    os.environ.get("DLARRAY_FT_HOME", pathlib.Path.home() / ".cache" / "dlarray-ft")
)
FREE_THREADED_DEPS = ["numpy<2.5", "pytest>=8", "pytest-xdist>=3.5", "ml_dtypes>=0.5", "hypothesis"]
# Any module that turns the GIL back on is an error, not a warning.
GIL_BACK_ON = "error:The global interpreter lock:RuntimeWarning"


def _free_threaded_python(session: nox.Session) -> pathlib.Path | None:
    """The 3.13t interpreter, unpacked from ../shared/python-ft when needed;
    None (the session skips, saying why) where the tarball is absent."""
    python = FREE_THREADED_HOME / "python3.13t" / "bin" / "python3.13t"
    if not python.exists():
        if not FREE_THREADED_TARBALL.exists():
            session.skip(f"no free-threaded CPython: {FREE_THREADED_TARBALL} is not here")
            return None
        FREE_THREADED_HOME.mkdir(parents=True, exist_ok=True)
        with tarfile.open(FREE_THREADED_TARBALL) as archive:
            archive.extractall(FREE_THREADED_HOME, filter="tar")
    return python


@nox.session(venv_backend="none")
def free_threaded(session: nox.Session) -> None:
    """dlarray on free-threaded CPython 3.13t with the GIL off throughout.

    The interpreter comes from ../shared/python-ft (unpacked into
    ~/.cache/dlarray-ft, or $DLARRAY_FT_HOME); a fresh venv gets NumPy < 2.5
    and dlarray built from the tree.  Any module that re-enables the GIL
    fails the run (the RuntimeWarning is an error; PYTHON_GIL is never set).
    It runs: an import check that the GIL stays off; the default suite; the
    race tests (tests/threads/test_races.py) with 16 threads x 300 rounds;
    the deleter-thread regressions and the thread soak (-- --seconds N,
    default 20); and bench_threads.py with the GIL off and on (-X gil=1)."""
    python = _free_threaded_python(session)
    if python is None:
        return
    venv = pathlib.Path(session.create_tmp()).resolve() / "ft-venv"
    shutil.rmtree(venv, ignore_errors=True)
    session.run(str(python), "-m", "venv", str(venv), external=True)
    bin_dir = venv / "bin"
    pip = [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--only-binary=:all:"]
    session.run(*pip, *FREE_THREADED_DEPS, external=True)
    session.run(*pip[:-1], str(ROOT), external=True)  # dlarray, built for 3.13t
    seconds, soak_args = _seconds_option(session, "DLARRAY_SOAK_SECONDS", "20")
    ft_python = [str(bin_dir / "python"), "-W", GIL_BACK_ON]
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run(
            *ft_python, "-c",
            "import sys, sysconfig, dlarray, dlarray.fft, dlarray.linalg, dlarray.compat; "
            "assert sysconfig.get_config_var('Py_GIL_DISABLED'), 'not a free-threaded build'; "
            "assert not sys._is_gil_enabled(), 'the GIL is on'; "
            "print('GIL off:', sys.version.split()[0], 'dlarray', dlarray.__version__)",
            external=True,
        )  # fmt: skip
        pytest = [*ft_python, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(ROOT)]
        session.run(
            *pytest, str(ROOT / "tests"), "--ignore", str(ROOT / "tests" / "threads"),
            "--ignore", str(ROOT / "tests" / "fuzz"), "-W", GIL_BACK_ON, *NOT_TOOLING,
            *PARALLEL, external=True,
        )  # fmt: skip
        session.run(
            *pytest, str(ROOT / "tests" / "threads"),
            str(ROOT / "tests" / "package" / "test_hardening.py"), "-W", GIL_BACK_ON, "-rs",
            *soak_args, external=True,
            env={
                "DLARRAY_RACE_THREADS": "16", "DLARRAY_RACE_ROUNDS": "300",
                "DLARRAY_SOAK_SECONDS": seconds, "DLARRAY_SOAK_THREADS": "8",
            },
        )  # fmt: skip
        # The point of it: exchanges per second on 1, 2... threads, with the
        # GIL off and with the same interpreter forced to take it.
        bench = str(ROOT / "benchmarks" / "bench_threads.py")
        session.run(str(bin_dir / "python"), bench, "--seconds", "1", external=True)
        session.run(str(bin_dir / "python"), "-X", "gil=1", bench, "--seconds", "1", external=True)


@nox.session(python=SUPPORTED_PYTHONS[0])
def threads_oldest(session: nox.Session) -> None:
    """The thread soak on the oldest Python and NumPy (3.11 is one of the two
    where the deleters' GIL check used to take another thread's state for
    its own), without PyTorch."""
    _run_thread_soak(session, [f"numpy=={OLDEST_NUMPY}", HYPOTHESIS])


# What each interop session installs besides dlarray and the test tools.
# torch is the CPU wheel: on machines with a local torch==2.13.0 CPU file pip
# takes it; elsewhere the PyTorch CPU index has it (INTEROP_TORCH_INDEX).
INTEROP_PEERS = {
    "numpy": ["numpy"],
    "torch": ["torch==2.13.0"],
    "jax": ["jax==0.10.2"],
    "tvm_ffi": ["apache-tvm-ffi==0.1.15.post2"],
    "dpnp": ["dpctl", "dpnp", "intel-opencl-rt"],
    "cupy": ["cupy-cuda13x"],
}
#: The sessions CI runs: every peer that works without a GPU.
CPU_INTEROP_PEERS = ["numpy", "torch", "jax", "tvm_ffi", "dpnp"]


@nox.session(venv_backend=FAST_INSTALL)
@nox.parametrize("peer", list(INTEROP_PEERS), ids=list(INTEROP_PEERS))
def interop(session: nox.Session, peer: str) -> None:
    """The interop matrix with one peer: tests/interop/test_<peer>.py, the
    DLPack kit on it (tests/kit/test_kit_peers.py), and the examples and
    the doctor, which use the peer when it is there.

    A peer that fails to import fails the session (DLARRAY_INTEROP_PEER),
    except CuPy on a machine without a GPU: then the session says so and
    exits 0 before installing anything.
    """
    env: dict[str, str | None] = {"DLARRAY_INTEROP_PEER": peer}
    if peer == "cupy" and not _gpu_present():
        session.log("interop(cupy): no NVIDIA GPU here (nvidia-smi finds none); nothing to test")
        return
    # setuptools: test_examples.py builds the C extension example with it
    # (virtualenv puts it in a Python 3.11 environment, uv does not).
    install = [".", *TEST_DEPS, HYPOTHESIS, "setuptools", *INTEROP_PEERS[peer]]
    if peer == "torch" and os.environ.get("INTEROP_TORCH_INDEX"):
        install += ["--extra-index-url", os.environ["INTEROP_TORCH_INDEX"]]
    session.install(*install)
    if peer == "dpnp":
        env.update(_sycl_env(session))
    tests = [
        str(ROOT / "tests" / "interop" / f"test_{peer}.py"),
        str(ROOT / "tests" / "kit" / "test_kit_peers.py"),
        str(ROOT / "tests" / "package" / "test_examples.py"),
        str(ROOT / "tests" / "package" / "test_main.py"),
    ]
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run(
            "pytest", *tests, "-p", "no:cacheprovider", "--rootdir", str(ROOT), "-rs",
            *session.posargs, env=env,
        )  # fmt: skip
        session.run("python", "-m", "dlarray", "--repeats", "20", env=env)


def _gpu_present() -> bool:
    try:
        done = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and "GPU" in done.stdout


def _sycl_env(session: nox.Session) -> dict[str, str | None]:
    """The environment that makes Intel's OpenCL CPU runtime a SYCL device
    (see the sycl session)."""
    return {
        "OCL_ICD_FILENAMES": str(
            pathlib.Path(session.virtualenv.location, "lib", "libintelocl.so")
        ),
        "ONEAPI_DEVICE_SELECTOR": None,
    }


@nox.session(venv_backend=FAST_INSTALL)
def sycl(session: nox.Session) -> None:
    """SYCL USM for real: dpctl, dpnp and Intel's OpenCL runtime for x86-64
    CPUs (intel-opencl-rt), which presents this machine's CPU as a SYCL
    device with USM.  Fails, rather than skips, when no device appears.

    The runtime's ICD file names a placeholder path, so OCL_ICD_FILENAMES
    must point at its library before dpctl is first imported (pip never
    runs the conda script that would fix the file).  ONEAPI_DEVICE_SELECTOR
    is removed: 'opencl:...' values switch the SYCL loader off.
    """
    session.install(".", *TEST_DEPS, HYPOTHESIS, *INTEROP_PEERS["dpnp"])
    env = _sycl_env(session)
    with session.chdir(session.create_tmp()):  # import the installed dlarray, not the tree
        session.run("python", "-c", _SYCL_CHECK, env=env)
        session.run(
            "pytest",
            str(ROOT / "tests" / "sycl"),
            str(ROOT / "tests" / "memory" / "test_sycl_paths.py"),
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(ROOT),
            "-rs",
            *session.posargs,
            env=env,
        )


# Fails the session at once, with the reason, where no SYCL device can be used.
_SYCL_CHECK = (
    "from dlarray._sycl import runtime; d = runtime.root_device(0); "
    "print('SYCL device 0:', d.filter_string, d.name.strip(), '| driver', d.driver_version, "
    "'| USM device/shared/host:', d.has_aspect_usm_device_allocations, "
    "d.has_aspect_usm_shared_allocations, d.has_aspect_usm_host_allocations)"
)


@nox.session(venv_backend="none")
def cuda(session: nox.Session) -> None:
    """The GPU check, on a machine with an NVIDIA GPU: tests/cuda/device_check.sh.

    GPU machines often have no network, so this session makes no virtualenv
    and downloads nothing: the script builds dlarray in place for the running
    Python (``DLARRAY_PYTHON``, default python3), which must already hold
    torch, CuPy, array-api-compat (or its wheel in .whl/), JAX,
    cuda-bindings, pytest and pytest-xdist, runs the whole suite and the
    CUDA benchmark, and writes its report into the folder given after
    ``--`` (default ./device-check).  tests/cuda/README.md says more.
    """
    session.run("bash", str(ROOT / "tests" / "cuda" / "device_check.sh"), *session.posargs,
                external=True)  # fmt: skip
