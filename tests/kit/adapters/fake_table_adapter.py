"""A producer only, whose arrays' type carries a C exchange table with
faults: tests/exchange_tables.py's FakeTable, whose importer
(managed_tensor_to_py_object_no_sync) and allocator are stubs that return
-1 without an error, and whose current_work_stream is NULL.  Its arrays
export through NumPy's ``__dlpack__``, so only the table's cases fail."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))  # tests/: exchange_tables.py, abi.py

import exchange_tables

name = "fake_table"
_TABLE = exchange_tables.FakeTable(functions={"current_work_stream": None})
Producer = exchange_tables.producer_class(_TABLE, name="TableProducer")


def make(host):
    return Producer(host.copy())
