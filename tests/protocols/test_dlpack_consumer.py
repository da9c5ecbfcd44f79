"""from_dlpack's protocol with producers that bend the rules."""

from __future__ import annotations

import struct

import abi
import numpy as np
import pytest

import dlarray


class Recorder:
    """Wraps a NumPy array and records every __dlpack__ call."""

    def __init__(self, array, *, ignore_copy=False, raise_inside=None):
        self.array = array
        self.calls = []
        self.ignore_copy = ignore_copy
        self.raise_inside = raise_inside

    def __dlpack__(self, **kwargs):
        self.calls.append(dict(kwargs))
        if self.raise_inside is not None:
            raise self.raise_inside
        if self.ignore_copy:
            kwargs.pop("copy", None)
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_asks_for_the_newest_version_it_reads_once():
    producer = Recorder(np.arange(3))
    dlarray.from_dlpack(producer)
    # stream=None is passed, not left out: PyTorch's default is -1.
    assert producer.calls == [{"stream": None, "max_version": (1, 3)}]


def test_attribute_error_inside_dunder_propagates_without_a_second_call():
    producer = Recorder(np.arange(3), raise_inside=AttributeError("inner bug"))
    with pytest.raises(AttributeError, match="inner bug"):
        dlarray.from_dlpack(producer)
    assert len(producer.calls) == 1


def test_copy_true_is_honoured_even_when_the_producer_ignores_it():
    a = np.arange(4.0)
    producer = Recorder(a, ignore_copy=True)
    x = dlarray.from_dlpack(producer, copy=True)
    assert producer.calls[0]["copy"] is True
    assert x._data + x._byte_offset != a.ctypes.data
    x[0] = 99.0
    assert a[0] == 0.0


def test_copy_true_trusts_a_producer_that_reports_is_copied():
    a = np.arange(4.0)
    x = dlarray.from_dlpack(Recorder(a), copy=True)
    assert x._owner.flags & dlarray._core.FLAG_IS_COPIED
    assert x._data + x._byte_offset != a.ctypes.data


def test_device_equal_to_the_source_is_not_sent_as_dl_device():
    # Old producers reject dl_device; asking for the device they are on must
    # not trip them.
    producer = Recorder(np.arange(3))
    dlarray.from_dlpack(producer, device="cpu")
    assert "dl_device" not in producer.calls[0]


def test_device_other_than_the_source_is_sent_as_dl_device():
    # The stand-in refuses the device itself: NumPy's own exception type for
    # an unsupported dl_device differs between versions (ValueError in 2.2).
    producer = Recorder(np.arange(3), raise_inside=BufferError("cannot reach (2, 0)"))
    with pytest.raises(BufferError, match="cannot reach"):
        dlarray.from_dlpack(producer, device=dlarray.Device("cuda", 0))
    assert producer.calls[0]["dl_device"] == (2, 0)


@pytest.mark.parametrize("device_id", [1, 7])
def test_host_memory_numbered_other_than_zero_arrives_on_cpu_0(device_id):
    # DLPack: "for vanilla CPU memory ... [device_id] is set to 0". A producer
    # that numbers host memory otherwise still hands over host memory, which
    # dlarray (like NumPy and PyTorch) treats as the one CPU device.
    producer = abi.Producer(
        device=(abi.kDLCPU, device_id),
        shape=(2,),
        dtype=(2, 32, 1),
        payload=struct.pack("2f", 1.5, 2.5),
    )
    x = dlarray.from_dlpack(producer)
    assert x.device == dlarray.Device("cpu", 0)
    assert x.__dlpack_device__() == (1, 0)
    assert x._owner.device == (abi.kDLCPU, device_id)  # the producer's pair is kept
    assert (x + dlarray.asarray([1.0, 1.0], dtype=dlarray.float32)).device == x.device
    assert np.from_dlpack(x).tolist() == [1.5, 2.5]
