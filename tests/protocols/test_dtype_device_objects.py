"""The proposed exchange of dtype and device objects (array-api#972,
dmlc/dlpack#172): dlarray's dtypes and devices offer it, and dlarray takes
another library's objects that offer it wherever it takes a dtype or a
device.  The probe's cases (dtype_objects, device_object, foreign_dtype,
foreign_device) judge every library by it; here, dlarray's own rules."""

from __future__ import annotations

import re

import pytest

import dlarray


class Stranger:
    """Another library's dtype object, known only by the proposed method."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def __dlpack_data_type__(self) -> object:
        return self.answer

    def __repr__(self) -> str:
        return f"Stranger({self.answer!r})"


class StrangerDevice:
    def __init__(self, answer: object) -> None:
        self.answer = answer

    def __dlpack_device__(self) -> object:
        return self.answer


class ArrayLike(StrangerDevice):
    """__dlpack_device__ and __dlpack__: an array, which is no device."""

    def __dlpack__(self, **kwargs: object) -> object:
        raise AssertionError("not called")


@pytest.mark.parametrize("dtype", dlarray.dtypes(), ids=str)
def test_every_dtype_answers_its_dlpack_triple(dtype: dlarray.DType) -> None:
    answer = dtype.__dlpack_data_type__()
    assert type(answer) is tuple and answer == dtype.dlpack


@pytest.mark.parametrize("dtype", dlarray.dtypes(), ids=str)
def test_a_strangers_dtype_stands_for_the_dtype_of_its_triple(dtype: dlarray.DType) -> None:
    assert dlarray.empty((2,), dtype=Stranger(dtype.dlpack)).dtype is dtype


def test_a_strangers_dtype_works_wherever_a_dtype_does() -> None:
    half = Stranger((2, 16, 1))
    x = dlarray.asarray([1.5, 2.5], dtype=half)
    assert x.dtype is dlarray.float16
    assert dlarray.astype(dlarray.arange(3), half).dtype is dlarray.float16
    assert dlarray.zeros(2, dtype=half).dtype is dlarray.float16


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ((9, 9, 1), "is DLPack (code, bits, lanes) = (9, 9, 1), which no dlarray dtype is"),
        ((2, 32, 2), "is DLPack (code, bits, lanes) = (2, 32, 2), which no dlarray dtype is"),
        ([2, 32, 1], "returned [2, 32, 1]; a DLPack (code, bits, lanes) triple of ints"),
        ((2, 32), "returned (2, 32); a DLPack (code, bits, lanes) triple of ints"),
        ((2.0, 32, 1), "returned (2.0, 32, 1)"),
        ((True, 8, 1), "returned (True, 8, 1)"),
    ],
)
def test_a_strangers_dtype_that_names_no_dtype_is_a_type_error(answer: object, said: str) -> None:
    with pytest.raises(TypeError, match=re.escape(said)):
        dlarray.empty((2,), dtype=Stranger(answer))


@pytest.mark.parametrize(
    "device", [dlarray.Device("cpu"), dlarray.Device("cuda", 3), dlarray.Device("sycl_host", 1)],
    ids=str,
)  # fmt: skip
def test_a_device_answers_its_pair_and_is_no_array(device: dlarray.Device) -> None:
    assert device.__dlpack_device__() == device.dlpack
    assert not hasattr(device, "__dlpack__")


def test_a_strangers_device_stands_for_the_device_of_its_pair() -> None:
    x = dlarray.zeros(3, device=StrangerDevice((1, 0)))
    assert x.device == dlarray.Device("cpu")
    assert dlarray.asarray([1, 2], device=StrangerDevice((1, 0))).device == dlarray.Device("cpu")
    assert x.to_device(StrangerDevice((1, 0))).device == dlarray.Device("cpu")


def test_a_strangers_device_with_a_bad_answer_is_refused() -> None:
    with pytest.raises(TypeError, match=r"returned \[1, 0\]; a DLPack \(device_type, device_id\)"):
        dlarray.zeros(3, device=StrangerDevice([1, 0]))
    with pytest.raises(ValueError, match="99 is not a DLPack device type"):
        dlarray.zeros(3, device=StrangerDevice((99, 0)))


def test_an_array_is_no_device() -> None:
    """An object with __dlpack__ beside __dlpack_device__ is an array: as a
    device= argument it is refused, as before the protocol."""
    with pytest.raises(TypeError, match=r"expected a dlarray\.Device"):
        dlarray.zeros(3, device=ArrayLike((1, 0)))
