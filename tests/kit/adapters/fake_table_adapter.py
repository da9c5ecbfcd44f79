"""A producer only, whose arrays' type carries a C exchange table with
faults: tests/exchange_tables.py's FakeTable, whose importer
(managed_tensor_to_py_object_no_sync) and allocator are stubs that return
-1 without an error, and whose current_work_stream is NULL.  Its arrays
export through NumPy's ``__dlpack__``, refusing a device other than the
host with BufferError as the specification asks (NumPy 2.3 raised
another error), so only the table's cases fail."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))  # tests/: exchange_tables.py, abi.py

import exchange_tables

name = "fake_table"
_TABLE = exchange_tables.FakeTable(functions={"current_work_stream": None})


class Producer(exchange_tables.producer_class(_TABLE, name="TableProducer")):
    def __dlpack__(self, **kwargs):
        device = kwargs.get("dl_device")
        if device is not None and tuple(device) != (1, 0):
            raise BufferError(f"the fake table producer's arrays live on the host, not {device}")
        return super().__dlpack__(**kwargs)


def make(host):
    return Producer(host.copy())
