"""Every script in examples/ runs to completion."""

from __future__ import annotations

import pathlib
import runpy

import pytest

EXAMPLES = sorted(pathlib.Path(__file__).parent.parent.joinpath("examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out  # each example explains itself as it runs


def test_there_are_examples():
    assert len(EXAMPLES) >= 2
