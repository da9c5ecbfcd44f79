"""A pytest plugin that adds dlarray as one more array namespace to real
projects' OWN Array API tests: scikit-learn's, SciPy's and array-api-extra's.

Each of these projects runs its Array API tests once per backend it knows
(NumPy, array-api-strict, PyTorch, CuPy...).  This plugin adds dlarray to
that list when the project's test machinery is loaded, without editing the
installed package, so that every test the project parametrises over its
backends also runs with dlarray arrays, beside array-api-strict's run of
the same test:

* **scikit-learn**: ``sklearn.utils._array_api.yield_namespace_device_dtype_combinations``
  also yields dlarray twice, with float64 and with float32 on its default
  device, as array-api-strict is yielded twice (float64 on its default
  device, float32 on a second one); ``yield_namespaces`` yields it once.
  The estimator checks of ``sklearn/tests/test_common.py`` take their
  backends from the same function.  Patched when ``sklearn/conftest.py`` is
  loaded, before any test module imports the function by name.
  ``--array-api-mixed`` adds the pairs (NumPy or array-api-strict, dlarray)
  both ways to ``yield_mixed_namespace_input_permutations``: ``X`` in one
  namespace, ``y`` and ``sample_weight`` in the other.
* **SciPy**: ``scipy/conftest.py``'s ``xp`` fixture is declared again over
  its ``xp_available_backends`` plus dlarray, and dlarray joins
  ``xp_known_backends``, so that ``skip_xp_backends(np_only=True)`` and the
  other markers apply to it as they apply to array-api-strict.  Its
  ``devices`` fixture appends ``[None]`` to ``devices()``, a list up to the
  2024.12 standard (SciPy pins array-api-strict to 2024.12) and a tuple from
  2025.12 on (dlarray's): for dlarray the plugin makes the list.
* **array-api-extra**: the ``library`` fixture of its tests (a ``Backend``
  enum, which takes no new member) also yields :data:`DLARRAY_BACKEND`, a
  stand-in with a member's interface (``modname``, ``like``...).  It equals
  no member, so no skip or xfail marker written for another backend applies
  to it.

``--array-api-only=NAMES`` (comma-separated: ``dlarray,array_api_strict``)
keeps the tests parametrised with one of these backends: the name as a
whole word in the test id's parameters (:func:`backend_of`).
``--array-api-report=FILE`` writes each test's backend, outcome, the first
line of its message (a failure's, or a skip's reason) and its seconds to
FILE as JSON.

Run it from outside the source tree, so that the installed dlarray is
imported, with the project's directory as the root so that its conftest.py
is loaded (``run_array_api_suites.py`` beside this file does this for every
project and prints the table of counts)::

    cd /tmp
    SITE=$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    SCIPY_ARRAY_API=1 PYTHONPATH=/path/to/dlarray/tests/clients \\
        python -m pytest -p array_api_plugin --array-api-only=dlarray \\
        -p no:cacheprovider -q --rootdir $SITE/scipy $SITE/scipy/special/tests

SciPy reads ``SCIPY_ARRAY_API`` once, when it is first imported (and
scikit-learn's Array API tests skip without it): set it in the environment.
"""

from __future__ import annotations

import importlib
import json
import pathlib
import re
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any

import pytest

#: The name the projects know a backend by, in test ids and markers.
DLARRAY = "dlarray"

#: The dtypes scikit-learn's tests get for dlarray: the two that
#: array-api-strict gets, so that both backends run the same tests.
SKLEARN_DTYPES = ("float64", "float32")

#: scikit-learn's mixed inputs with dlarray (--array-api-mixed):
#: (namespace of y and sample_weight, namespace of X).
SKLEARN_MIXED = (
    ("numpy", DLARRAY),
    (DLARRAY, "numpy"),
    ("array_api_strict", DLARRAY),
    (DLARRAY, "array_api_strict"),
)


class DlarrayBackend:
    """dlarray as a member of array-api-extra's ``Backend`` enum would be.

    The enum's members compare by identity (``library == Backend.TORCH``),
    so this stand-in equals none of them; what the fixtures and tests use
    of a member is here.
    """

    value = DLARRAY
    name = "DLARRAY"
    modname = DLARRAY

    def like(self, *others: Any) -> bool:
        """Whether one of ``others`` is a backend of the same module."""
        return any(getattr(other, "modname", None) == self.modname for other in others)

    def pytest_param(self) -> Any:
        return pytest.param(self, id=DLARRAY)

    def __str__(self) -> str:
        return f"Backend.{self.name}"

    __repr__ = __str__


DLARRAY_BACKEND = DlarrayBackend()


def backend_of(nodeid: str, names: Iterable[str]) -> str | None:
    """The first of ``names`` that is a whole word (``array_api_strict``,
    not ``array_api_strictest``) in the parameters of test ``nodeid``."""
    parameters = nodeid.partition("[")[2]
    for name in names:
        if re.search(rf"(?<![\w.]){re.escape(name)}(?![\w.])", parameters):
            return name
    return None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("array_api_plugin", "dlarray in projects' Array API tests")
    group.addoption(
        "--array-api-only",
        metavar="NAMES",
        default=None,
        help="keep only the tests parametrised with one of these Array API backends "
        "(comma-separated: dlarray,array_api_strict), deselect the rest",
    )
    group.addoption(
        "--array-api-mixed",
        action="store_true",
        help="scikit-learn: also run its mixed-input tests with dlarray and NumPy or "
        "array-api-strict (X in one, y and sample_weight in the other)",
    )
    group.addoption(
        "--array-api-report",
        metavar="FILE",
        default=None,
        help="write each test's backend, outcome, message and seconds to FILE (JSON)",
    )


#: What the options say, read before the projects' conftest files load.
_OPTIONS: dict[str, Any] = {"mixed": False, "only": []}


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    options = early_config.known_args_namespace
    _OPTIONS["mixed"] = options.array_api_mixed
    _OPTIONS["only"] = options.array_api_only.split(",") if options.array_api_only else []


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin: object) -> None:
    """Add dlarray to a project's backends when its conftest is loaded:
    before pytest reads the conftest's fixtures, and before any test module
    imports what is patched."""
    where = pathlib.PurePath(getattr(plugin, "__file__", None) or "nowhere")
    if where.name != "conftest.py" or not isinstance(plugin, ModuleType):
        return
    if where.parts[-2:] == ("sklearn", "conftest.py"):
        _add_to_sklearn()
    elif where.parts[-2:] == ("scipy", "conftest.py"):
        _add_to_scipy(plugin)
    elif where.parts[-4:] == ("array_api_extra", "tests", "main", "conftest.py"):
        _add_to_array_api_extra(plugin)


def _add_to_sklearn() -> None:
    array_api = importlib.import_module("sklearn.utils._array_api")
    if hasattr(array_api, "_yield_without_dlarray"):
        return  # patched already (a second session in one process)
    namespaces = array_api.yield_namespaces
    combinations = array_api.yield_namespace_device_dtype_combinations
    mixed = array_api.yield_mixed_namespace_input_permutations
    pair = array_api.NamespaceAndDevice

    def yield_namespaces(include_numpy_namespaces: bool = True) -> Iterator[str]:
        yield from namespaces(include_numpy_namespaces=include_numpy_namespaces)
        yield DLARRAY

    def yield_namespace_device_dtype_combinations(
        include_numpy_namespaces: bool = True,
    ) -> Iterator[tuple[str, str | None, str | None]]:
        for combination in combinations(include_numpy_namespaces=include_numpy_namespaces):
            # The original yields (dlarray, None, None) from yield_namespaces.
            if combination[0] != DLARRAY:
                yield combination
        for dtype in SKLEARN_DTYPES:
            yield DLARRAY, None, dtype

    def yield_mixed_namespace_input_permutations() -> Iterator[tuple[Any, Any, str]]:
        yield from mixed()
        if _OPTIONS["mixed"]:
            for other, x in SKLEARN_MIXED:
                yield pair(other, None), pair(x, None), f"{other} to {x}"

    array_api._yield_without_dlarray = namespaces
    array_api.yield_namespaces = yield_namespaces
    array_api.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations
    array_api.yield_mixed_namespace_input_permutations = yield_mixed_namespace_input_permutations


def _add_to_scipy(conftest: ModuleType) -> None:
    conftest.xp_known_backends.add(DLARRAY)
    conftest.xp_available_backends.append(
        pytest.param(
            importlib.import_module(DLARRAY), id=DLARRAY, marks=pytest.mark.array_api_backends
        )
    )
    conftest.xp = pytest.fixture(params=conftest.xp_available_backends)(conftest.xp.__wrapped__)
    devices = conftest.devices.__wrapped__

    # SciPy pins array-api-strict to the 2024.12 standard, where devices()
    # is a list, and its fixture appends [None] to it; from 2025.12 on,
    # which dlarray implements, devices() is a tuple.
    def devices_of_2025_12(xp: ModuleType) -> Any:
        if xp.__name__ == DLARRAY:
            return [*xp.__array_namespace_info__().devices(), None]
        return devices(xp)

    conftest.devices = pytest.fixture(name="devices")(devices_of_2025_12)


def _add_to_array_api_extra(conftest: ModuleType) -> None:
    backend = importlib.import_module("array_api_extra._lib._backends").Backend
    params = [*(member.pytest_param() for member in backend), DLARRAY_BACKEND.pytest_param()]
    conftest.library = pytest.fixture(params=params)(conftest.library.__wrapped__)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _OPTIONS["only"]:
        return
    kept, deselected = [], []
    for item in items:
        (kept if backend_of(item.nodeid, _OPTIONS["only"]) else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


#: nodeid -> {"backend", "outcome", "message", "seconds"}: what
#: --array-api-report writes.
_OUTCOMES: dict[str, dict[str, Any]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """One outcome per test: an error in setup or teardown, or the call's
    failure, outranks the call's pass.  Its seconds add up the three phases."""
    outcome = _outcome(report)
    known = _OUTCOMES.setdefault(report.nodeid, {"outcome": None, "seconds": 0.0})
    known["seconds"] += report.duration
    if outcome is not None and known["outcome"] in (None, "passed"):
        known.update(
            backend=backend_of(report.nodeid, _OPTIONS["only"]),
            outcome=outcome,
            message=_message(report.longrepr),
        )


def _outcome(report: pytest.TestReport) -> str | None:
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    if report.skipped:
        return "skipped"
    return "passed" if report.when == "call" else None


def _message(longrepr: Any) -> str:
    """The first line of a failure's message, or a skip's reason."""
    if isinstance(longrepr, tuple):  # a skip: (path, line, reason)
        return str(longrepr[2])
    crash = getattr(longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(longrepr or "")
    return text.splitlines()[0] if text else ""


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--array-api-report")
    # Under pytest-xdist the workers' reports reach the controller, which
    # writes the file (a worker's config has ``workerinput``).
    if path is not None and not hasattr(session.config, "workerinput"):
        pathlib.Path(path).write_text(json.dumps(_OUTCOMES, indent=0, sort_keys=True))
