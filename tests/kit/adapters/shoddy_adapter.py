"""The kit's adapter for shoddy (tests/kit/shoddy.py): what
``pytest --dlpack-library tests/kit/adapters/shoddy_adapter.py`` needs
to know."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))  # shoddy is not installed: it sits there

import shoddy

name = "shoddy"
__version__ = shoddy.__version__
from_dlpack = shoddy.from_dlpack


def to_numpy(array):
    return array.to_numpy()


def make(host):
    return shoddy.asarray(host)


def write_first(array):
    array[(0,) * array.ndim] = 7
