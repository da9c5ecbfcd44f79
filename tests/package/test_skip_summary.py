"""The skip summary at the end of a run (tests/conftest.py): each missing
thing on one line with the command that runs its tests.

The reasons below are the ones the suite gives on a machine without a GPU,
a SYCL device or the optional peers (each worded as the skipping test words
it); every one must map to a thing whose line carries a command.
"""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

_CONFTEST = pathlib.Path(__file__).parents[1] / "conftest.py"
_spec = importlib.util.spec_from_file_location("suite_conftest", _CONFTEST)
suite_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite_conftest)

REASONS = {
    "no usable CUDA GPU: CUDA memory needs an NVIDIA GPU and its driver": "gpu",
    "dpctl is not installed": "dpctl",
    "CuPy is not installed (pip install cupy-cuda13x): no CuPy to check calls with": "cupy",
    "could not import 'cuda.bindings.runtime': No module named 'cuda.bindings'": "cuda",
    "PyTorch is not installed": "torch",
    "could not import 'torch': No module named 'torch'": "torch",
    "jax is not installed (nox -s 'interop(jax)' installs it)": "jax",
    "tvm_ffi is not installed": "tvm_ffi",
    "apache-tvm-ffi is not installed (pip install apache-tvm-ffi)": "tvm_ffi",
    "dpnp is not installed": "dpnp",
    "array-api-compat is not installed (nox -s clients installs it from tests/clients/"
    "requirements.txt): No module named 'array_api_compat'": "array_api_compat",
    "array-api-strict is not installed": "array_api_strict",
    "scikit-learn is not installed": "sklearn",
    "could not import 'scipy': No module named 'scipy'": "scipy",
    "scale_out.py needs cubed, dask, zarr, which is not installed": "cubed",
    "isolated interpreters arrived in 3.12": "3.12",
    "upstream: dask.distributed 2026.8.0's asynchronous Client.scheduler_info() carries "
    "no workers": "upstream",
    "jax 0.12.1 installed; the pins are for 0.10.2 (pip install 'jax==0.10.2')": "pins",
    "numpy 2.5.5 installed; the pins are for 2.4.6 (pip install 'numpy==2.4.6')": "pins",
    "setuptools is not installed in this environment (the build needs it)": "setuptools",
}

#: Reasons that say their own command: the summary gives them as they are.
OWN_COMMAND = (
    "needs valgrind (apt install valgrind)",
    "valgrind cannot run under AddressSanitizer (nox -s instructions)",
    "the gate counts the GIL build (nox -s instructions)",
    "the count is checked when the whole suite runs (nox -s tests)",
)


@pytest.mark.parametrize("reason", REASONS)
def test_each_skip_reason_names_a_thing_with_a_command(reason):
    thing = suite_conftest._missing_thing(reason)
    assert thing == REASONS[reason]
    assert thing in suite_conftest._HOW_TO_GET


@pytest.mark.parametrize("thing", sorted(suite_conftest._HOW_TO_GET))
def test_each_line_names_a_nox_session_or_says_why_not(thing):
    """The suite runs in nox's virtualenvs: a bare `pip install` into the
    user's venv never reaches them, so each line names its nox session
    first (the GPU and upstream lines name what is needed instead)."""
    how = suite_conftest._HOW_TO_GET[thing]
    assert how.startswith(("nox -s ", "Python >= ")) or thing in {"gpu", "upstream"}, how


@pytest.mark.parametrize("reason", OWN_COMMAND)
def test_a_reason_with_its_own_command_is_its_own_line(reason):
    thing = suite_conftest._missing_thing(reason)
    assert suite_conftest.summary_line(thing) == reason


def test_an_unknown_reason_says_where_its_command_goes():
    thing = suite_conftest._missing_thing("a reason nobody has written yet")
    assert thing not in suite_conftest._HOW_TO_GET
    assert suite_conftest.summary_line(thing).endswith(suite_conftest.UNKNOWN_HOW)
    assert "_HOW_TO_GET" in suite_conftest.UNKNOWN_HOW
