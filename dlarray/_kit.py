"""The DLPack conformance kit: the probe's cases as the tests of a pytest run.

``pytest --dlpack-library NAME`` (the entry point is the top-level module
``_dlarray_pytest``, which registers :class:`Kit` only when the option is
given) adds one test per case of :data:`dlarray._probe.CASES`, named
after the case (``dlpack[numpy]::byte_offset_1d``), to whatever else the
run collects.  NAME is a library of the probe's table or the path of an
adapter file (:mod:`dlarray._probe_adapter`).

The cases run exactly as ``python -m dlarray probe --library NAME`` runs
them (:func:`dlarray._probe.probe_library`: child processes, a new one
after a case that kills its process, each case under the time limit), once
for the whole run and only for the selected tests.  Each verdict becomes a
test outcome:

========================  ====================================================
the probe says            the test
========================  ====================================================
ok                        passes
deviation                 fails: what was fed, what the specification says,
                          what the library did, the upstream issue if known
not supported             is skipped: the library refuses, as it may
needs package             is skipped, naming the package
deviation, known          is an expected failure (xfail), with the file's reason
ok, but listed as known   fails: the deviation is fixed, remove it from the file
========================  ====================================================

The known deviations are a TOML file the library commits
(``--dlpack-known-deviations FILE``): a ``[deviations]`` table mapping a
case to why it deviates, a reason or an issue link.  A key that names no
case, or a reason left empty, stops the run before any test (a typo must
not hide a deviation).
"""

from __future__ import annotations

import difflib
import pathlib
import tomllib
from argparse import ArgumentTypeError
from collections.abc import Iterator
from typing import Any

import pytest

from dlarray._probe import CASES, default_timeout, library, probe_library, seconds, select_cases
from dlarray._probe_adapter import AdapterPeer
from dlarray._probe_cases import DEVIATION, NEEDS, NOT_SUPPORTED, OK, Case

#: The TOML table a known-deviations file holds.
TABLE = "deviations"


def read_known_deviations(path: str | pathlib.Path) -> dict[str, str]:
    """A known-deviations file: case name -> the reason or issue link.

    Raises
    ------
    pytest.UsageError
        If the file is missing or not TOML, has no ``[deviations]`` table,
        names a case the kit does not have, or gives an empty reason.
    """
    path = pathlib.Path(path)
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise pytest.UsageError(f"--dlpack-known-deviations: cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise pytest.UsageError(f"--dlpack-known-deviations: {path} is not TOML: {exc}") from None
    table = document.get(TABLE)
    if not isinstance(table, dict):
        raise pytest.UsageError(
            f"--dlpack-known-deviations: {path} has no [{TABLE}] table; write one line per "
            f'known deviation under it: case_name = "reason or issue link"'
        )
    names = [c.name for c in CASES]
    for case, reason in table.items():
        if case not in names:
            close = difflib.get_close_matches(case, names, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise pytest.UsageError(
                f"--dlpack-known-deviations: {path} lists {case!r}, which is no case of the "
                f"kit{hint} (pytest --dlpack-library NAME --collect-only -q lists them)"
            )
        if not isinstance(reason, str) or not reason.strip():
            raise pytest.UsageError(
                f"--dlpack-known-deviations: {path}: {case} needs a reason or an issue link "
                f"(a non-empty string), got {reason!r}"
            )
    return dict(table)


def _skip(reason: str) -> BaseException:
    """A skip reported at the test's own name (``pytest -rs``), not at this file's line."""
    return pytest.skip.Exception(reason, _use_item_location=True)


class CaseFailed(Exception):
    """A case's verdict that fails its test; the message is the report."""


class Kit:
    """The plugin object one ``--dlpack-library`` run registers."""

    def __init__(self, config: pytest.Config) -> None:
        self.name: str = config.getoption("dlpack_library")
        timeout = config.getoption("dlpack_timeout")
        try:  # an adapter file runs in the probe's children only, never here
            self.peer = library(self.name)
        except (LookupError, FileNotFoundError) as exc:
            raise pytest.UsageError(f"--dlpack-library {self.name}: {exc}") from None
        try:
            self.timeout = default_timeout() if timeout is None else seconds(timeout)
        except (ValueError, ArgumentTypeError) as exc:
            raise pytest.UsageError(f"--dlpack-timeout: {exc}") from None
        if not self.peer.installed():
            raise pytest.UsageError(
                f"--dlpack-library {self.name}: not installed here ({self.peer.install})"
            )
        if "cpu" not in self.peer.consumes and "cpu" not in self.peer.make:
            raise pytest.UsageError(
                f"--dlpack-library {self.name}: its arrays live on {', '.join(self.peer.kinds)} "
                "memory, and the kit's cases exchange host memory"
            )
        known = config.getoption("dlpack_known_deviations")
        self.known_file = known
        self.known: dict[str, str] = {} if known is None else read_known_deviations(known)
        self.label = f"dlpack[{self.peer.name}]"
        self.found: dict[str, dict[str, Any]] | None = None
        self.import_error: str | None = None
        self.version: str | None = None

    def pytest_report_header(self) -> str:
        what = self.peer.path if isinstance(self.peer, AdapterPeer) else self.peer.name
        known = f"; known deviations: {self.known_file} ({len(self.known)})" if self.known else ""
        return f"dlpack kit: {what}, {len(CASES)} cases of python -m dlarray probe{known}"

    @pytest.hookimpl(tryfirst=True)  # before -k, -m and --deselect choose among the items
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[Any]) -> None:
        suite = Suite.from_parent(session, name=self.label, nodeid=self.label)
        suite.kit = self
        items.extend(suite.collect())

    def outcome(self, item: CaseItem) -> dict[str, Any]:
        """The probe's record for ``item``'s case; the first call runs the
        probe, in child processes, for every case the run selected."""
        if self.found is None:
            chosen = [i.case.name for i in item.session.items if isinstance(i, CaseItem)]
            cases = select_cases(chosen)
            extra = [] if len(cases) == len(CASES) else [a for n in chosen for a in ("--case", n)]
            report = probe_library(self.peer, cases, extra, self.timeout)
            self.import_error = report.get("import_error")
            self.version = report.get("version")
            self.found = {r["case"]: r for r in report.get("results", [])}
        if self.import_error is not None:
            raise CaseFailed(f"{self.peer.name} does not import: {self.import_error}")
        record = self.found.get(item.case.name)
        if record is None:
            raise CaseFailed(f"the probe reported nothing for {item.case.name}")
        return record


class Suite(pytest.Collector):
    """The kit's tests: one :class:`CaseItem` per case."""

    kit: Kit

    def collect(self) -> Iterator[CaseItem]:
        for case in CASES:
            item = CaseItem.from_parent(self, name=case.name, case=case, kit=self.kit)
            item.extra_keyword_matches.add(case.role)  # -k consumer, -k producer
            yield item


class CaseItem(pytest.Item):
    """One case of the probe, judged as a test."""

    def __init__(self, *, case: Case, kit: Kit, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.kit = kit

    def runtest(self) -> None:
        record = self.kit.outcome(self)
        verdict, observed = record["verdict"], record["observed"]
        known = self.kit.known.get(self.case.name)
        if verdict == DEVIATION and known is not None:
            pytest.xfail(f"known deviation ({known}): {observed}")
        if verdict == DEVIATION:
            raise CaseFailed(self._deviation(record))
        if known is not None and verdict == OK:
            raise CaseFailed(
                f"fixed: {self.case.name} now follows the specification ({observed}); remove "
                f"it from the known deviations in {self.kit.known_file}"
            )
        if verdict == NOT_SUPPORTED:
            raise _skip(f"not supported: {observed}")
        if verdict == NEEDS:
            raise _skip(f"needs {record.get('needs')}: {observed}")

    def _deviation(self, record: dict[str, Any]) -> str:
        case = self.case
        lines = [
            f"{self.kit.peer.name} deviates from DLPack as a {case.role} ({case.name})",
            f"  fed:      {case.what}",
            f"  spec:     {case.spec}",
            f"  observed: {record['observed']}",
        ]
        if record.get("link"):
            lines.append(f"  see:      {record['link']}")
        return "\n".join(lines)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[str, int, str]:
        return self.kit.label, 0, f"{self.kit.label}::{self.case.name}"
