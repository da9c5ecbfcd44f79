"""Large host blocks ask for transparent huge pages, as NumPy's arrays do.

Where Linux grants huge pages only on request (transparent_hugepage set to
"madvise"), a fresh block touched for the first time faults once per 4 KiB
page without them: a copy into a new 256 MiB array took 4x NumPy's time.
The oracle is NumPy itself: where its array of the same size is backed by
huge pages, dlarray's must be too."""

from __future__ import annotations

import os
import pathlib
import sys

import numpy as np
import pytest

import dlarray
from dlarray.storage import HostStorage

SMAPS = pathlib.Path("/proc/self/smaps")
NBYTES = 64 << 20  # well past the 4 MiB from which both advise huge pages

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not SMAPS.exists(),
    reason="transparent huge pages and /proc/self/smaps are Linux's",
)
SANITIZED = os.environ.get("DLARRAY_SANITIZED") == "1"


def huge_page_bytes(address: int, nbytes: int) -> int:
    """The AnonHugePages of the mappings that overlap [address, address + nbytes)."""
    total, overlaps = 0, False
    for line in SMAPS.read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):  # a mapping's first line
            low, high = (int(part, 16) for part in head.split("-"))
            overlaps = low < address + nbytes and address < high
        elif overlaps and head == "AnonHugePages:":
            total += int(line.split()[1]) * 1024
    return total


@pytest.mark.skipif(
    SANITIZED,
    reason="under AddressSanitizer its allocator lays out the blocks, with redzones "
    "(nox -s sanitize sets DLARRAY_SANITIZED)",
)
def test_a_large_block_is_backed_by_huge_pages_where_numpys_is():
    a = np.ones(NBYTES, dtype=np.uint8)  # touched: its pages exist
    if huge_page_bytes(a.ctypes.data, NBYTES) == 0:
        pytest.skip("NumPy's own array got no huge pages here (transparent huge pages are off)")
    x = dlarray.empty(NBYTES, dtype=dlarray.uint8)
    assert isinstance(x._owner, HostStorage)
    np.from_dlpack(x).fill(1)  # the first touch, where the pages are made
    assert huge_page_bytes(x._data, NBYTES) > NBYTES // 2


def test_a_small_block_is_left_to_the_allocator():
    # Below 4 MiB no advice is given (the pages may be shared with other
    # small blocks of the heap); the block works as any other.
    x = dlarray.empty(1 << 20, dtype=dlarray.uint8)
    np.from_dlpack(x).fill(7)
    assert int(dlarray.sum(x, dtype=dlarray.int64)) == 7 << 20
