"""The facts README and the docs state, tied to what the code and the
project's files say: supported Pythons, the oldest NumPy, the size of the
suite, what NumPy's ufuncs do with dlarray arrays, and no page that sends a
user to a path only the project's own machines have.

Each fact is written once in a file that code reads (pyproject.toml's
classifiers and dependency, the array class) and *stated* in prose; a
statement that drifts from its source fails here.
"""

from __future__ import annotations

import pathlib
import re
import tomllib

import numpy as np
import pytest

import dlarray

REPO = pathlib.Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
README = (REPO / "README.md").read_text()
INSTALLING = (REPO / "docs" / "guide" / "installing.md").read_text()
USER_PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
USER_PAGES = [p for p in USER_PAGES if "_build" not in p.parts and "_generated" not in p.parts]


def supported_pythons() -> list[tuple[int, int]]:
    """The classifiers' versions, the one statement code reads (noxfile.py)."""
    prefix = "Programming Language :: Python :: 3."
    classifiers = PYPROJECT["project"]["classifiers"]
    return [(3, int(c.removeprefix(prefix))) for c in classifiers if c.startswith(prefix)]


def words(page: pathlib.Path) -> str:
    """The page's text with every run of whitespace one space, so that a
    statement broken over lines is found."""
    return " ".join(page.read_text().split())


def oldest_numpy() -> str:
    (floor,) = [d for d in PYPROJECT["project"]["dependencies"] if d.startswith("numpy>=")]
    return floor.removeprefix("numpy>=")


def test_the_supported_pythons_are_a_contiguous_range_from_requires_python():
    versions = supported_pythons()
    assert versions == [(3, m) for m in range(versions[0][1], versions[-1][1] + 1)]
    assert PYPROJECT["project"]["requires-python"] == f">={versions[0][0]}.{versions[0][1]}"
    assert PYPROJECT["tool"]["ruff"]["target-version"] == f"py3{versions[0][1]}"
    assert PYPROJECT["tool"]["mypy"]["python_version"] == f"3.{versions[0][1]}"
    wheels = PYPROJECT["tool"]["cibuildwheel"]["build"].split()
    assert wheels == [f"cp3{m}-*" for _, m in versions]


@pytest.mark.parametrize(
    ("page", "text"), [("README.md", README), ("docs/guide/installing.md", INSTALLING)]
)
def test_pages_state_the_supported_pythons(page, text):
    (first, *_, last) = supported_pythons()
    statement = f"Python {first[0]}.{first[1]} to {last[0]}.{last[1]}"
    assert statement in text, f"{page} does not say {statement!r}"
    stated = set(re.findall(r"Python (3\.\d+) to (3\.\d+)", text))
    assert stated == {(f"{first[0]}.{first[1]}", f"{last[0]}.{last[1]}")}, stated


def test_pages_state_the_oldest_numpy():
    floor = oldest_numpy()
    assert f"NumPy {floor} or newer" in INSTALLING
    assert f"`numpy>={floor}`" in INSTALLING
    assert f"NumPy {floor}" in README


def test_the_readme_test_count_is_the_suite_s_size(request):
    """README says how many tests the test command runs ("about N tests");
    when this run is that command (the whole suite and the package's
    doctests, nothing deselected), its size must be within 10% of N."""
    config = request.config
    whole = {str(REPO / "tests"), "dlarray"} <= {str(a).rstrip("/") for a in config.args}
    if not whole or config.option.keyword or config.option.markexpr:
        pytest.skip("the count is checked when the whole suite runs (nox -s tests)")
    (stated,) = re.findall(r"about ([\d,]+) tests", README)
    stated_count = int(stated.replace(",", ""))
    count = len(request.session.items)
    assert abs(count - stated_count) <= stated_count // 10, (
        f"README.md says about {stated_count} tests; this run has {count}: update it"
    )


def test_numpy_ufuncs_compute_on_dlarray_arrays_as_the_docs_say():
    """The docs once said ufuncs raise TypeError (`__array_ufunc__ = None`)
    while they computed (NEP 13).  They compute, and no page says otherwise."""
    x = dlarray.asarray([0.0, 1.0])
    y = np.sin(x)
    assert isinstance(y, dlarray.DLArray)
    assert np.asarray(y).tolist() == np.sin(np.array([0.0, 1.0])).tolist()
    for page in USER_PAGES:
        assert "__array_ufunc__ = None" not in words(page), page


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_user_page_names_the_projects_own_shared_folder(page):
    """``../shared`` exists on the project's machines only: a user page that
    names it sends users to a path they do not have (CONTRIBUTING.md, for
    the project's developers, may)."""
    assert "../shared" not in page.read_text()
