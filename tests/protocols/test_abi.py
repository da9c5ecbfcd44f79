"""dlarray.abi, the one ctypes mirror of the DLPack ABI (the tests read
capsules through it too): its layout is the spec's and dlarray's header's,
its readers read what the producers wrote, and its toy producer keeps the
deleter's exactly-once rule."""

from __future__ import annotations

import ctypes
import gc
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest

import dlarray
from dlarray import abi

# Every field of every struct, as DLPack's own header spells it: (name,
# offset, C type).  Taken once from dlpack.h 1.3 (DLPACK_MAJOR_VERSION 1,
# DLPACK_MINOR_VERSION 3): the types as declared, the offsets printed by
# offsetof() from a program including that header, built by gcc for x86-64
# Linux (LP64; the same on every 64-bit platform CPython supports).  The
# header itself is not in the repository, so the table stands in for it:
# the mirror is checked against the spec, not only against dlarray's own
# dlpack_abi.h, and a field misplaced in both still fails here.
SPEC: dict[str, tuple[int, list[tuple[str, int, str]]]] = {  # struct: (sizeof, fields)
    "DLPackVersion": (8, [("major", 0, "uint32_t"), ("minor", 4, "uint32_t")]),
    "DLDevice": (8, [("device_type", 0, "DLDeviceType"), ("device_id", 4, "int32_t")]),
    "DLDataType": (
        4,
        [("code", 0, "uint8_t"), ("bits", 1, "uint8_t"), ("lanes", 2, "uint16_t")],
    ),
    "DLTensor": (
        48,
        [
            ("data", 0, "void *"),
            ("device", 8, "DLDevice"),
            ("ndim", 16, "int32_t"),
            ("dtype", 20, "DLDataType"),
            ("shape", 24, "int64_t *"),
            ("strides", 32, "int64_t *"),
            ("byte_offset", 40, "uint64_t"),
        ],
    ),
    "DLManagedTensor": (
        64,
        [
            ("dl_tensor", 0, "DLTensor"),
            ("manager_ctx", 48, "void *"),
            ("deleter", 56, "void (*)()"),
        ],
    ),
    "DLManagedTensorVersioned": (
        80,
        [
            ("version", 0, "DLPackVersion"),
            ("manager_ctx", 8, "void *"),
            ("deleter", 16, "void (*)()"),
            ("flags", 24, "uint64_t"),
            ("dl_tensor", 32, "DLTensor"),
        ],
    ),
    "DLPackExchangeAPIHeader": (
        16,
        [("version", 0, "DLPackVersion"), ("prev_api", 8, "DLPackExchangeAPIHeader *")],
    ),
    "DLPackExchangeAPI": (
        56,
        [
            ("header", 0, "DLPackExchangeAPIHeader"),
            ("managed_tensor_allocator", 16, "int (*)()"),
            ("managed_tensor_from_py_object_no_sync", 24, "int (*)()"),
            ("managed_tensor_to_py_object_no_sync", 32, "int (*)()"),
            ("dltensor_from_py_object_no_sync", 40, "int (*)()"),
            ("current_work_stream", 48, "int (*)()"),
        ],
    ),
}

# The ctypes type each of the spec's C types must be in the mirror.
CTYPES = {
    "uint8_t": ctypes.c_uint8,
    "uint16_t": ctypes.c_uint16,
    "uint32_t": ctypes.c_uint32,
    "int32_t": ctypes.c_int32,
    "uint64_t": ctypes.c_uint64,
    "DLDeviceType": ctypes.c_int32,  # the header declares the enum int32_t-sized
    "void *": ctypes.c_void_p,
    "int64_t *": ctypes.POINTER(ctypes.c_int64),
    # The mirror keeps function pointers as addresses (see dlarray/abi.py).
    "void (*)()": ctypes.c_void_p,
    "int (*)()": ctypes.c_void_p,
    "DLPackExchangeAPIHeader *": ctypes.POINTER(abi.DLPackExchangeAPIHeader),
    **{struct: getattr(abi, struct) for struct in SPEC},
}

# Every field of every struct, by name (dlarray's header spells them the same).
FIELDS = {struct: [name for name, _, _ in fields] for struct, (_, fields) in SPEC.items()}

needs_lp64 = pytest.mark.skipif(
    ctypes.sizeof(ctypes.c_void_p) != 8, reason="the spec's offsets were taken on a 64-bit platform"
)


def _c_layout(tmp_path) -> dict[str, int]:
    """sizeof and offsetof of every struct and field, from the C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) to compare the mirror's layout with")
    lines = [
        "#include <stdio.h>",
        "#include <stddef.h>",
        '#include "dlpack_abi.h"',
        "int main(void) {",
    ]
    for struct, fields in FIELDS.items():
        lines.append(f'printf("{struct} %zu\\n", sizeof({struct}));')
        lines += [f'printf("{struct}.{f} %zu\\n", offsetof({struct}, {f}));' for f in fields]
    lines.append("return 0; }")
    source = tmp_path / "layout.c"
    source.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run([compiler, "-I", dlarray.get_include(), str(source), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return {key: int(value) for key, value in (line.split() for line in out.splitlines())}


def test_mirror_layout_is_the_headers(tmp_path):
    c = _c_layout(tmp_path)
    for struct, fields in FIELDS.items():
        mirror = getattr(abi, struct)
        assert [name for name, *_ in mirror._fields_] == fields
        assert ctypes.sizeof(mirror) == c[struct], struct
        for field in fields:
            assert getattr(mirror, field).offset == c[f"{struct}.{field}"], f"{struct}.{field}"


@needs_lp64
@pytest.mark.parametrize("struct", SPEC)
def test_mirror_layout_is_the_specs(struct):
    size, fields = SPEC[struct]
    mirror = getattr(abi, struct)
    assert [(name, kind) for name, kind in mirror._fields_] == [
        (name, CTYPES[c_type]) for name, _, c_type in fields
    ]
    assert [getattr(mirror, name).offset for name, _, _ in fields] == [o for _, o, _ in fields]
    assert ctypes.sizeof(mirror) == size


def test_constants_are_the_cores():
    assert abi.DLPACK_VERSION == dlarray.__dlpack_version__ == (1, 3)
    assert (abi.READ_ONLY, abi.IS_COPIED, abi.IS_SUBBYTE_TYPE_PADDED) == (1, 2, 4)


def test_managed_is_the_producers_struct_not_a_copy():
    x = dlarray.reshape(dlarray.arange(6, dtype=dlarray.int32), (2, 3))
    capsule = x.__dlpack__(max_version=(1, 3))
    m = abi.managed(capsule)
    assert isinstance(m, abi.DLManagedTensorVersioned)
    assert m.manager_ctx == id(x)  # dlarray's handle is the exported array
    m.dl_tensor.shape[0] = 1  # written through the mirror, read by the consumer
    assert abi.consume(capsule).shape == (1, 3)


@pytest.mark.parametrize("max_version", [None, (1, 3)])
def test_describe_reads_every_field(max_version):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    view = dlarray.from_dlpack(a)[1:, ::-2]
    d = abi.describe(view, max_version=max_version)
    assert d.capsule_name == ("dltensor" if max_version is None else "dltensor_versioned")
    assert d.version == (None if max_version is None else (1, 3))
    assert d.flags == (None if max_version is None else 0)
    assert d.device == (1, 0)
    assert d.dtype == (2, 32, 1)
    assert d.shape == (3, 3)
    assert d.strides == (6, -2)
    assert d.data + d.byte_offset == a.ctypes.data + (6 + 5) * 4 == abi.data_pointer(view)


def test_describe_releases_its_export():
    x = dlarray.arange(4.0)
    before = sys.getrefcount(x)
    abi.describe(x)
    gc.collect()
    assert sys.getrefcount(x) == before


def test_describe_a_capsule_leaves_it_unconsumed():
    capsule = dlarray.asarray([True, False]).__dlpack__(max_version=(1, 3))
    assert abi.describe(capsule).dtype == (6, 8, 1)
    assert abi.capsule_name(capsule) == "dltensor_versioned"
    assert abi.consume(capsule).shape == (2,)


def test_data_pointer_of_other_producers():
    a = np.zeros((3, 4))
    assert abi.data_pointer(a) == a.ctypes.data
    assert abi.data_pointer(a[1:, 2:]) == a.ctypes.data + (4 + 2) * 8
    torch = pytest.importorskip("torch", reason="torch is not installed")
    t = torch.arange(5.0)[2:]
    assert abi.data_pointer(t) == t.data_ptr() == abi.data_pointer(dlarray.from_dlpack(t))


def test_read_only_flag_shows():
    a = np.arange(3.0)
    a.flags.writeable = False
    assert abi.describe(a).flags & abi.READ_ONLY


def test_errors_name_what_was_given():
    with pytest.raises(TypeError, match=r"PyCapsule.*got list"):
        abi.capsule_name([1])
    with pytest.raises(TypeError, match="__dlpack__, got int"):
        abi.describe(3)
    with pytest.raises(TypeError, match="DLArray, got ndarray"):
        abi.owner(np.zeros(2))
    with pytest.raises(TypeError, match="NumPy array, got list"):
        abi.ToyProducer().capsule([1.0, 2.0])
    with pytest.raises(TypeError, match="dtype="):
        abi.ToyProducer().capsule(np.array(["a"]))
    capsule = dlarray.arange(2).__dlpack__(max_version=(1, 3))
    abi.consume(capsule)
    with pytest.raises(ValueError, match="already consumed"):
        abi.managed(capsule)
    with pytest.raises(ValueError, match="consumed"):
        abi.consume(capsule)


def test_owner_of_allocated_and_imported_arrays():
    x = dlarray.arange(3.0)
    assert isinstance(abi.owner(x), dlarray.storage.HostStorage)
    assert abi.owner(x).pointer == abi.data_pointer(x)
    y = dlarray.from_dlpack(x)  # dlarray's own C exchange table
    assert type(abi.owner(y)).__name__ == "ImportedTensor"
    assert abi.owner(y).via_table and abi.owner(y).version == (1, 3)
    assert abi.owner(y[1:]) is abi.owner(y)


class TestToyProducer:
    def test_unconsumed_capsule_is_released_by_its_destructor(self):
        toy = abi.ToyProducer()
        capsule = toy.capsule(np.arange(4.0))
        address = ctypes.addressof(abi.managed(capsule))
        assert toy.alive == 1
        del capsule
        gc.collect()
        assert toy.deleted == [address] and toy.alive == 0

    @pytest.mark.parametrize("versioned", [True, False])
    def test_consumed_capsule_is_released_once_by_the_last_view(self, versioned):
        toy = abi.ToyProducer()
        memory = np.arange(6.0)
        capsule = toy.capsule(memory, shape=(2, 3), versioned=versioned)
        y = abi.consume(capsule)
        assert np.from_dlpack(y).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
        del capsule
        row = y[1]
        del y
        gc.collect()
        assert toy.deleted == []
        del row
        gc.collect()
        assert len(toy.deleted) == 1

    def test_fields_are_written_as_given(self):
        toy = abi.ToyProducer()
        memory = np.arange(6, dtype=np.int16)
        capsule = toy.capsule(
            memory, (3,), (-2,), version=(1, 1), flags=abi.READ_ONLY, byte_offset=10
        )
        d = abi.describe(capsule)
        assert (d.version, d.flags, d.shape, d.strides, d.byte_offset) == (
            (1, 1),
            1,
            (3,),
            (-2,),
            10,
        )
        assert d.dtype == (0, 16, 1) and d.data == memory.ctypes.data
        y = abi.consume(capsule)
        assert y.readonly and np.from_dlpack(y).tolist() == [5, 3, 1]

    def test_null_strides_and_legacy(self):
        toy = abi.ToyProducer()
        capsule = toy.capsule(np.arange(6.0), (2, 3), None, versioned=False)
        assert abi.describe(capsule).strides is None
        assert abi.consume(capsule).shape == (2, 3)  # legacy NULL strides: row-major

    def test_refused_import_still_releases_once(self):
        toy = abi.ToyProducer()
        capsule = toy.capsule(np.arange(3.0), version=(2, 0))  # a major version dlarray lacks
        with pytest.raises(BufferError):
            abi.consume(capsule)
        assert len(toy.deleted) == 1  # the consumer called the deleter, as the spec asks
        del capsule
        gc.collect()
        assert len(toy.deleted) == 1  # and the destructor did not call it again

    def test_deleter_on_another_thread(self):
        toy = abi.ToyProducer()
        ys = [abi.consume(toy.capsule(np.arange(8.0))) for _ in range(50)]

        def drop():
            ys.clear()
            gc.collect()

        thread = threading.Thread(target=drop)
        thread.start()
        thread.join()
        assert len(toy.deleted) == 50 and toy.alive == 0

    def test_arrays_outlive_their_producer(self):
        toy = abi.ToyProducer()
        y = abi.consume(toy.capsule(np.arange(3.0)))
        deleted = toy.deleted
        del toy
        gc.collect()
        assert np.from_dlpack(y).tolist() == [0.0, 1.0, 2.0]
        del y
        gc.collect()
        assert len(deleted) == 1
