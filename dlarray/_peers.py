"""The array libraries dlarray exchanges with, described once.

A :class:`Peer` says how to import a library, how to make its arrays, how
its ``from_dlpack`` takes dlarray's, where an array's data lies, how to read
its values back to NumPy, which memory kinds and dtypes it has, and where it
departs from the DLPack specification.  :data:`PEERS` holds one row per
library.

``python -m dlarray`` (the doctor), ``python -m dlarray probe`` (the DLPack
referee, which also reads :data:`SELF`, dlarray's own row), the interop
suite (``tests/interop``) and the peer benchmark
(``benchmarks/bench_peers.py``) all read this table,
so supporting a new library means adding a row here.

Of the libraries only NumPy, dlarray's one dependency, is imported here.  A
peer's own module is imported when asked for (:meth:`Peer.import_module`)
and handed to the functions of its row.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

import numpy as np

import dlarray
from dlarray import abi, subbyte
from dlarray._install import install_command

# ---- dtypes, by name ----

STANDARD_DTYPES: tuple[str, ...] = (
    "bool",
    "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
    "complex64", "complex128",
)  # fmt: skip
FP8_DTYPES: tuple[str, ...] = (
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
)  # fmt: skip
SUBBYTE_DTYPES: tuple[str, ...] = ("float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")
#: dlarray's fp8 types that PyTorch also has.
TORCH_FP8_DTYPES: tuple[str, ...] = (
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
)  # fmt: skip

#: ``make(module, host, device)``: the peer's array holding the elements of
#: the host NumPy array ``host`` (ml_dtypes for the extended float types) on
#: ``device``, in the peer's own memory where it has an allocator.
Maker = Callable[[ModuleType, np.ndarray, dlarray.Device], Any]


@dataclass(frozen=True)
class Deviation:
    """Where a peer departs from the DLPack specification.

    Attributes
    ----------
    what : str
        What the peer does instead.
    link : str
        The peer's issue (or code) that says so.
    raises : exception type or tuple of them, optional
        What the case raises; None when it runs but differs (a copy where
        DLPack allows zero copy, or no copy where one was asked for).
    aborts : bool
        The peer crashes the process: the case must run in a child process.
    """

    what: str
    link: str
    raises: type[BaseException] | tuple[type[BaseException], ...] | None = None
    aborts: bool = False


#: (direction, case) -> Deviation.  Directions: "import" (peer -> dlarray)
#: and "export" (dlarray -> peer); cases: a dtype or layout name
#: ("negative_strides", "sliced", ...), or "copy=True".
Deviations = Mapping[tuple[str, str], Deviation]


def _no_deviations(module: ModuleType) -> Deviations:
    return {}


def _unrevised(module: ModuleType) -> Mapping[str, Any]:
    return {}


def module_version(module: ModuleType) -> str:
    """``str(module.__version__)``, never raising: ``"unknown"`` when there is
    none, and what went wrong when reading it raises (a broken library's
    version object may)."""
    try:
        return str(getattr(module, "__version__", "unknown"))
    except Exception as exc:  # any library's code runs here
        return f"unknown (reading __version__ raises {type(exc).__name__})"


def release(version: str) -> tuple[int, ...]:
    """The leading numbers of a version string: ``"2.13.0+cpu"`` -> ``(2, 13, 0)``."""
    numbers = []
    for part in version.split("+")[0].split("."):
        if not part.isdigit():
            break
        numbers.append(int(part))
    return tuple(numbers)


@dataclass(frozen=True)
class Peer:
    """One library dlarray exchanges arrays with.

    Attributes
    ----------
    name : str
        The module to import, and the name shown.
    pip : str
        The distribution that provides the module (what ``pip install``
        takes where no extra of dlarray's installs it).
    make : mapping of str to callable
        Memory kind -> :data:`Maker`: the kinds the peer allocates, tried
        as peer -> dlarray.
    consumes : tuple of str
        The memory kinds its ``from_dlpack`` accepts, tried as dlarray -> peer.
    from_dlpack : callable
        ``from_dlpack(module)``: the peer's DLPack consumer function.
    consumer_name : str
        That function's name as code calls it.
    pointer : callable
        ``pointer(array)``: the address of a peer array's first element.
    to_numpy : callable
        ``to_numpy(array)``: a peer array's elements in a host NumPy array
        (read back from the device where the array lives on one).
    dtypes : tuple of str
        The dlarray dtypes the peer can exchange.
    exports_versioned : bool
        Its ``__dlpack__(max_version=(1, 3))`` returns a versioned capsule.
    asks_versioned : bool
        Its ``from_dlpack`` asks dlarray for a versioned capsule.
    consume_keywords : tuple of str
        The keywords its ``from_dlpack`` takes beyond the array.
    read_only_import : str
        What it does with a read-only dlarray export: ``"read-only"``,
        ``"ignored"`` or ``"refused"`` (it asks for a legacy capsule, which
        cannot say read-only, so dlarray refuses).
    exports_read_only : bool
        Its arrays are immutable and its exports say so (``READ_ONLY``):
        every import of one is read-only.
    mark_read_only : callable or None
        ``mark_read_only(array)``: the same array, made read-only; None when
        the peer has no read-only arrays.
    negative_steps : bool
        Its indexing makes views with negative steps.
    indexes : bool
        It makes views by indexing at all (tvm-ffi does not).
    deviations : callable
        ``deviations(module)``: its known :data:`Deviations`, which may
        depend on the installed version.
    revised : callable
        ``revised(module)``: the fields above whose values depend on the
        installed version, with that version's values (JAX 0.12 moved to
        DLPack 1.x); :meth:`as_installed` applies them.
    write_first : callable or None
        ``write_first(array)``: writes into the array's first element
        through the peer's own API (the probe's read-only check); None when
        its arrays are immutable or it has no element access.
    probe_links : mapping of str to str
        A case of ``python -m dlarray probe`` (:mod:`dlarray._probe_cases`)
        -> the upstream issue about the peer's deviation in that case.
    extra : str or None
        The extra of dlarray's (pyproject.toml) that installs the peer with
        what dlarray needs beside it (CuPy: the matching cuda-bindings);
        None where a plain ``pip install`` of :attr:`pip` does.
    """

    name: str
    pip: str
    make: Mapping[str, Maker]
    consumes: tuple[str, ...]
    from_dlpack: Callable[[ModuleType], Callable[..., Any]]
    consumer_name: str
    pointer: Callable[[Any], int]
    to_numpy: Callable[[Any], np.ndarray]
    dtypes: tuple[str, ...] = STANDARD_DTYPES
    exports_versioned: bool = True
    asks_versioned: bool = True
    consume_keywords: tuple[str, ...] = ("device", "copy")
    read_only_import: str = "read-only"
    exports_read_only: bool = False
    mark_read_only: Callable[[Any], Any] | None = None
    negative_steps: bool = True
    indexes: bool = True
    deviations: Callable[[ModuleType], Deviations] = field(default=_no_deviations)
    revised: Callable[[ModuleType], Mapping[str, Any]] = field(default=_unrevised)
    write_first: Callable[[Any], None] | None = None
    probe_links: Mapping[str, str] = field(default_factory=dict)
    extra: str | None = None

    @property
    def install(self) -> str:
        """The command that installs the peer here: dlarray's extra for it
        (:func:`dlarray._install.install_command`), else ``pip install`` of
        its distribution."""
        if self.extra is not None:
            return install_command(self.extra)
        return f"pip install {self.pip}"

    def as_installed(self, module: ModuleType) -> Peer:
        """This row as the installed version ``module`` behaves."""
        return replace(self, **self.revised(module))

    @property
    def kinds(self) -> tuple[str, ...]:
        """Every memory kind the peer supports in either direction."""
        return tuple(dict.fromkeys([*self.make, *self.consumes]))

    def installed(self) -> bool:
        """Whether the peer's module can be found (without importing it)."""
        return importlib.util.find_spec(self.name) is not None

    def import_module(self) -> ModuleType:
        """The peer's module, imported; raises what the import raises."""
        return importlib.import_module(self.name)

    def try_import(self) -> ModuleType | None:
        """The peer's module, or None when it is missing or breaks on import.

        In this process: a library that aborts or hangs on import takes the
        caller with it.  ``python -m dlarray`` and its probe import peers in
        child processes instead."""
        try:
            return self.import_module()
        except (Exception, SystemExit):  # ImportError, or a module that breaks while importing
            return None

    def version(self) -> str | None:
        """The installed version (:func:`module_version`), or None when the
        peer does not import."""
        module = self.try_import()
        if module is None:
            return None
        return module_version(module)


# ---- making arrays ----


def _numpy_make(numpy: ModuleType, host: np.ndarray, device: dlarray.Device) -> Any:
    return host.copy()


def _torch_device(device: dlarray.Device) -> str:
    return "cpu" if device.kind == "cpu" else f"{device.kind}:{device.index}"


def _torch_make(torch: ModuleType, host: np.ndarray, device: dlarray.Device) -> Any:
    # torch allocates the tensor, then takes host's bits: torch.from_numpy
    # alone would leave the tensor in NumPy's memory.  bfloat16 and fp8
    # (ml_dtypes on the host) cross as integers of their width.
    dtype = getattr(torch, host.dtype.name)
    tensor = torch.empty(host.shape, dtype=dtype, device=_torch_device(device))
    if host.dtype.name in STANDARD_DTYPES:
        return tensor.copy_(torch.from_numpy(host.copy()))
    as_integers = host.view(f"i{host.itemsize}").copy()
    tensor.view(getattr(torch, as_integers.dtype.name)).copy_(torch.from_numpy(as_integers))
    return tensor


def _torch_to_numpy(tensor: Any) -> np.ndarray:
    """A NumPy copy (bfloat16 and fp8, which NumPy lacks, as integers of their width)."""
    import torch  # optional peer, imported already: this is one of its tensors

    tensor = tensor.detach().cpu()
    if str(tensor.dtype).removeprefix("torch.") in STANDARD_DTYPES:
        return tensor.numpy().copy()
    integers = torch.int16 if tensor.element_size() == 2 else torch.uint8
    return tensor.view(integers).numpy().copy()


def _jax_make(jax: ModuleType, host: np.ndarray, device: dlarray.Device) -> Any:
    # jax's platform names match dlarray's kinds ("cpu", "cuda").
    return jax.device_put(jax.numpy.asarray(host), jax.devices(device.kind)[device.index])


def _cupy_make(cupy: ModuleType, host: np.ndarray, device: dlarray.Device) -> Any:
    with cupy.cuda.Device(device.index):
        return cupy.asarray(host)


def _dpnp_make(dpnp: ModuleType, host: np.ndarray, device: dlarray.Device) -> Any:
    import dpctl  # optional: dpnp's companion, only where dpnp is installed

    # A kDLOneAPI device_id indexes the SYCL root devices in dpctl's order.
    sycl_device = dpctl.get_devices()[device.index]
    return dpnp.asarray(host, usm_type=device.memory.usm_type, device=sycl_device)


def _dpnp_pointer(array: Any) -> int:
    interface = array.__sycl_usm_array_interface__
    return int(interface["data"][0]) + int(interface.get("offset", 0)) * array.itemsize


def _tvm_ffi_make(tvm_ffi: ModuleType, host: np.ndarray, device: dlarray.Device) -> Any:
    # tvm-ffi has no array constructor of its own: it wraps other producers'.
    # Copying a DLArray (not the NumPy array, which NumPy would copy into its
    # own memory) puts the elements in dlarray's 256-byte aligned memory.
    x = dlarray.asarray(dlarray.asarray(host), copy=True)
    if x.dtype.name in SUBBYTE_DTYPES:
        x = subbyte.pack(x)  # ml_dtypes stores one element per byte; DLPack packs
    return tvm_ffi.from_dlpack(x.to_device(device))


def _through_dlarray(array: Any) -> np.ndarray:
    """Any DLPack producer's elements, copied to the host by dlarray."""
    x = dlarray.from_dlpack(array).to_device("cpu")
    if x.dtype.name in SUBBYTE_DTYPES and not subbyte.is_padded(x):
        x = subbyte.pad(x)  # ml_dtypes, on NumPy's side, holds one element per byte
    return np.asarray(x)


def _numpy_read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _write_first(array: Any) -> None:
    """Write into the first element by indexing (NumPy, torch, array-api-strict, dlarray)."""
    array[(0,) * array.ndim] = 7


def _make_dlarray(module: ModuleType, host: np.ndarray, device: dlarray.Device) -> Any:
    return dlarray.asarray(host, device=device, copy=True)


def _mark_dlarray_read_only(x: Any) -> Any:
    view = np.from_dlpack(x)  # the same memory
    view.flags.writeable = False
    return dlarray.from_dlpack(view)


def _strict_make(xp: ModuleType, host: np.ndarray, device: dlarray.Device) -> Any:
    return xp.asarray(host.copy())


def _dpnp_read_only(array: Any) -> Any:
    array.flags["W"] = False
    return array


# ---- known deviations ----

_NEGATIVE_STRIDES = "https://github.com/pytorch/pytorch/issues/188023"
_COMPACT_ONLY = "https://github.com/jax-ml/jax/issues/17784"
_JAX_LEGACY = "https://github.com/jax-ml/jax/issues/20200"
_NO_READ_ONLY_TENSORS = "https://github.com/data-apis/array-api/issues/191"
_NOT_BUFFER_ERROR = "https://github.com/data-apis/array-api/issues/887"


def _torch_deviations(torch: ModuleType) -> Deviations:
    # torch.from_dlpack of a negative-stride tensor aborts the process up to
    # torch 2.13 and raises RuntimeError from 2.14 on (seen on 2.13.0, 2.14.1
    # and 2.15.0; 2.14.0 is assumed to be like 2.14.1).
    if release(torch.__version__) < (2, 14):
        negative = Deviation(
            "torch.from_dlpack aborts the process on negative strides; the interop "
            "suite sees the abort in a subprocess",
            _NEGATIVE_STRIDES,
            aborts=True,
        )
    else:
        negative = Deviation(
            "torch.from_dlpack raises RuntimeError on negative strides",
            _NEGATIVE_STRIDES,
            raises=RuntimeError,
        )
    return {("export", "negative_strides"): negative}


#: The first JAX release that speaks DLPack 1.x: versioned capsules both
#: ways (it passes max_version), READ_ONLY on its immutable arrays, and a
#: real copy for copy=True (seen on 0.11.2: legacy; 0.12.0 and 0.12.1: 1.x).
_JAX_DLPACK_1 = (0, 12)


def _jax_deviations(jax: ModuleType) -> Deviations:
    unimplemented = jax.errors.JaxRuntimeError
    deviations = {
        ("export", "sliced"): Deviation("compact layouts only", _COMPACT_ONLY, unimplemented),
        ("export", "negative_strides"): Deviation(
            "compact layouts only", _COMPACT_ONLY, unimplemented
        ),
        ("export", "zero_d"): Deviation("copied into a JAX buffer", _COMPACT_ONLY),
    }
    version = release(jax.__version__)
    # fp4 imports on the CPU from 0.12.1 (0.12.0 still refused the layout).
    if version < (0, 12, 1):
        deviations["export", "float4_e2m1fn"] = Deviation(
            "PjRt CPU buffers refuse fp4 (only the default layout)",
            "https://github.com/jax-ml/jax/issues/20200",
            raises=unimplemented,
        )
    if version < _JAX_DLPACK_1:
        deviations["export", "copy=True"] = Deviation(
            "copy=True shares the exported memory on the CPU",
            "https://github.com/jax-ml/jax/pull/29963",
        )
    return deviations


def _jax_revised(jax: ModuleType) -> Mapping[str, Any]:
    """JAX before 0.12: DLPack 0.8, legacy capsules both ways
    (https://github.com/jax-ml/jax/issues/20200), so a read-only export is
    refused and its immutable arrays arrive without READ_ONLY."""
    if release(jax.__version__) < _JAX_DLPACK_1:
        return {
            "exports_versioned": False,
            "asks_versioned": False,
            "read_only_import": "refused",
            "exports_read_only": False,
        }
    return {}


def _cupy_deviations(cupy: ModuleType) -> Deviations:
    deviations = {
        ("import", "copy=True"): Deviation(
            "CuPy's __dlpack__(copy=True) on the same device raises "
            "BufferError('copy=True only supported for copy to CPU.')",
            "https://github.com/cupy/cupy/issues/9842",
            raises=BufferError,
        ),
    }
    # Fixed by cupy/cupy#10228, merged after 14.2.0; which release first
    # ships it was not established, so every release before 15 is taken to
    # have it (a 14.x with the fix fails the interop test of this row, the
    # day to narrow the bound).
    if release(cupy.__version__) < (15,):
        deviations["import", "negative_strides"] = Deviation(
            "CuPy divides a negative byte stride by the itemsize as unsigned numbers "
            "(-24 bytes of float32 arrive as 2**62 - 6 elements); dlarray refuses "
            "such strides at import (their span passes 2**63 - 1 bytes)",
            "https://github.com/cupy/cupy/issues/10172",
            raises=BufferError,
        )
    return deviations


def _tvm_ffi_deviations(tvm_ffi: ModuleType) -> Deviations:
    return {
        ("import", "copy=True"): Deviation(
            "tvm-ffi tensors cannot copy: BufferError('copy not yet supported')",
            "https://github.com/apache/tvm-ffi/pull/301",
            raises=BufferError,
        ),
    }


# ---- the table ----

#: The DLPack 1.3 dtypes NumPy has no type for (without ml_dtypes' registration).
_NUMPY_LACKS = ("bfloat16", *FP8_DTYPES, *SUBBYTE_DTYPES)

#: NumPy 2.5 added a registry of DLPack dtypes (numpy.dtypes.register_dlpack_dtype,
#: numpy#31256), and ml_dtypes 0.7, once imported, registers bfloat16 (code 4)
#: and the eight fp8 types (codes 7-14) in it: NumPy then exports and imports
#: them zero-copy, as ml_dtypes arrays.  fp6 and fp4 (codes 15-17), packed in
#: DLPack but one byte per element in ml_dtypes, stay unregistered.
NUMPY_HAS_DLPACK_REGISTRY = hasattr(np.dtypes, "register_dlpack_dtype")
_NUMPY_REGISTERED = ("bfloat16", *FP8_DTYPES) if NUMPY_HAS_DLPACK_REGISTRY else ()

SYCL_USM_KINDS = ("sycl", "sycl_shared", "sycl_host")
CPU_AND_CUDA = ("cpu", "cuda")

PEERS: tuple[Peer, ...] = (
    Peer(
        "numpy",
        pip="numpy",
        make={"cpu": _numpy_make},
        # numpy's from_dlpack also takes CUDA pinned and managed memory, which
        # the CPU can address, but numpy cannot allocate it (no peer -> dlarray).
        consumes=("cpu", "cuda_host", "cuda_managed"),
        from_dlpack=lambda numpy: numpy.from_dlpack,
        consumer_name="numpy.from_dlpack",
        pointer=lambda a: int(a.__array_interface__["data"][0]),
        to_numpy=lambda a: a,
        # bfloat16 and fp8 with NumPy >= 2.5 and ml_dtypes >= 0.7 imported.
        dtypes=(*STANDARD_DTYPES, *_NUMPY_REGISTERED),
        mark_read_only=_numpy_read_only,
        write_first=_write_first,
        # Other devices, dtypes and lanes raise RuntimeError before NumPy 2.5,
        # BufferError since (a dtype registered by ml_dtypes imports).
        probe_links={
            "device_unknown": "https://github.com/numpy/numpy/pull/30937",
            "lanes_2": _NOT_BUFFER_ERROR,
            **{f"dtype_{name}": _NOT_BUFFER_ERROR for name in _NUMPY_LACKS},
        },
    ),
    Peer(
        "torch",
        pip="torch",
        make=dict.fromkeys(CPU_AND_CUDA, _torch_make),
        consumes=CPU_AND_CUDA,
        from_dlpack=lambda torch: torch.from_dlpack,
        consumer_name="torch.from_dlpack",
        pointer=lambda t: int(t.data_ptr()),
        to_numpy=_torch_to_numpy,
        dtypes=(*STANDARD_DTYPES, "bfloat16", *TORCH_FP8_DTYPES),
        # torch has no read-only tensors (read-only export was proposed in
        # https://github.com/pytorch/pytorch/pull/188554, not merged).
        read_only_import="ignored",
        negative_steps=False,
        deviations=_torch_deviations,
        write_first=_write_first,
        probe_links={
            "negative_strides": _NEGATIVE_STRIDES,
            "read_only": _NO_READ_ONLY_TENSORS,
            "byte_offset_0d": "https://github.com/pytorch/pytorch/issues/170432",
            "byte_offset_1d": "https://github.com/pytorch/pytorch/issues/168177",
            "byte_offset_nd": "https://github.com/pytorch/pytorch/issues/168177",
            "device_cuda_host": "https://github.com/pytorch/pytorch/issues/96318",
            "device_cuda_managed": "https://github.com/pytorch/pytorch/issues/96318",
            "dtype_float4_e2m1fn": "https://github.com/pytorch/pytorch/issues/148791",
            "export_dl_device_foreign": _NOT_BUFFER_ERROR,
        },
    ),
    Peer(
        "jax",
        pip="jax",
        make=dict.fromkeys(CPU_AND_CUDA, _jax_make),
        consumes=CPU_AND_CUDA,
        from_dlpack=lambda jax: jax.numpy.from_dlpack,
        consumer_name="jax.numpy.from_dlpack",
        pointer=lambda a: int(a.unsafe_buffer_pointer()),
        to_numpy=np.asarray,
        dtypes=(*STANDARD_DTYPES, "bfloat16", *FP8_DTYPES, "float4_e2m1fn"),
        # JAX arrays are immutable; before 0.12, DLPack 0.8 (_jax_revised).
        exports_read_only=True,
        deviations=_jax_deviations,
        revised=_jax_revised,
        probe_links={
            "asks_max_version": _JAX_LEGACY,
            "export_versioned": _JAX_LEGACY,
            "export_read_only": _JAX_LEGACY,
            "negative_strides": "https://github.com/jax-ml/jax/issues/8082",
            "zero_strides": _COMPACT_ONLY,
            "non_compact": _COMPACT_ONLY,
            "transposed": _COMPACT_ONLY,
            "export_copy_true": _JAX_LEGACY,
            "newer_major": _JAX_LEGACY,
            "dtype_float4_e2m1fn": "https://github.com/jax-ml/jax/issues/20200",
            "device_cuda_host": "https://github.com/jax-ml/jax/issues/22346",
            "device_cuda_managed": "https://github.com/jax-ml/jax/issues/22346",
        },
    ),
    Peer(
        "cupy",
        pip="cupy-cuda13x",
        extra="cupy",
        make={"cuda": _cupy_make},
        consumes=("cuda",),
        from_dlpack=lambda cupy: cupy.from_dlpack,
        consumer_name="cupy.from_dlpack",
        pointer=lambda a: int(a.data.ptr),
        to_numpy=lambda a: a.get(),
        # from_dlpack(device=) raises NotImplementedError for any device but None.
        consume_keywords=("copy",),
        # A TODO in cupy/_core/dlpack.pyx (https://github.com/data-apis/array-api/issues/191).
        read_only_import="ignored",
        deviations=_cupy_deviations,
    ),
    Peer(
        "dpnp",
        pip="dpnp",
        make=dict.fromkeys(SYCL_USM_KINDS, _dpnp_make),
        consumes=SYCL_USM_KINDS,
        from_dlpack=lambda dpnp: dpnp.from_dlpack,
        consumer_name="dpnp.from_dlpack",
        pointer=_dpnp_pointer,
        to_numpy=lambda a: a.asnumpy(),
        mark_read_only=_dpnp_read_only,
        extra="dpnp",
    ),
    Peer(
        "tvm_ffi",
        pip="apache-tvm-ffi",
        make=dict.fromkeys(CPU_AND_CUDA, _tvm_ffi_make),
        consumes=CPU_AND_CUDA,
        from_dlpack=lambda tvm_ffi: tvm_ffi.from_dlpack,
        consumer_name="tvm_ffi.from_dlpack",
        pointer=lambda t: int(t.data_ptr()),
        to_numpy=_through_dlarray,
        dtypes=(*STANDARD_DTYPES, "bfloat16", *FP8_DTYPES, *SUBBYTE_DTYPES),
        # It asks for legacy capsules from producers without a C exchange
        # table (favor_legacy_dlpack, https://github.com/apache/tvm-ffi/pull/301).
        asks_versioned=False,
        consume_keywords=(),
        # It takes DLArrays through dlarray's C exchange table, whose versioned
        # tensors carry READ_ONLY, and has no read-only tensors.
        read_only_import="ignored",
        indexes=False,
        deviations=_tvm_ffi_deviations,
        probe_links={
            "asks_max_version": "https://github.com/apache/tvm-ffi/pull/301",
            "export_copy_true": "https://github.com/apache/tvm-ffi/pull/301",
        },
    ),
    Peer(
        "array_api_strict",
        pip="array-api-strict",
        make={"cpu": _strict_make},
        consumes=("cpu",),
        from_dlpack=lambda xp: xp.from_dlpack,
        consumer_name="array_api_strict.from_dlpack",
        pointer=abi.data_pointer,
        to_numpy=np.asarray,
        write_first=_write_first,
        # It imports through numpy.from_dlpack, and has no float16.
        probe_links={
            "device_unknown": "https://github.com/numpy/numpy/pull/30937",
            "lanes_2": _NOT_BUFFER_ERROR,
            **{f"dtype_{name}": _NOT_BUFFER_ERROR for name in _NUMPY_LACKS},
        },
    ),
)

#: dlarray itself as a row, for ``python -m dlarray probe`` (which referees
#: dlarray as it does the peers); not in :data:`PEERS`, whose rows are
#: libraries dlarray exchanges with.
SELF = Peer(
    "dlarray",
    pip="dlarray",
    make={"cpu": _make_dlarray},
    consumes=("cpu",),
    from_dlpack=lambda module: module.from_dlpack,
    consumer_name="dlarray.from_dlpack",
    pointer=abi.data_pointer,
    to_numpy=_through_dlarray,
    dtypes=(*STANDARD_DTYPES, "bfloat16", *FP8_DTYPES, *SUBBYTE_DTYPES),
    mark_read_only=_mark_dlarray_read_only,
    write_first=_write_first,
)


def peer_named(name: str) -> Peer:
    """The row of :data:`PEERS` whose :attr:`Peer.name` is ``name``."""
    for peer in PEERS:
        if peer.name == name:
            return peer
    raise KeyError(f"no peer named {name!r}; the peers are {[p.name for p in PEERS]}")
