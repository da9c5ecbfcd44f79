"""The CuPy call-shape test: every namespace function on ``cuda`` arrays,
through the real CuPy and array-api-compat, without a GPU.

The arrays live in the stand-in CUDA runtime's memory (tests/fake_cuda.py,
host memory posing as GPU 1), and their engine view is a real
``cupy.ndarray`` over that memory (``cupy.cuda.UnownedMemory`` with the
GPU's index: building one needs no driver).  So every function runs CuPy's
and array-api-compat's own argument checks exactly as on a GPU, until CuPy
reaches for the driver (or a CUDA library, such as cuBLAS), where it stops.

The only acceptable failure is that reach (:func:`reaches_for_the_gpu`).
Anything else -- a ``TypeError``, ``ValueError``, ``NotImplementedError``,
``AttributeError`` or ``IndexError`` from CuPy or array-api-compat -- fails:
the inputs are valid, so a GPU would raise it too.  So does a NumPy
function applied to a CuPy array: CuPy would take it over through NumPy's
dispatch protocols, but compute on its current GPU, not the array's, and
without the engine's fixes, so here those protocols refuse
(:class:`NumPyOnCuPyError`); for the same reason CuPy's computing operators
(arithmetic, comparisons, gathering ``__getitem__``, ``__setitem__``) refuse
outside the engine's namespace (:class:`OutsideTheDeviceError`), and the
driver may be reached only inside it, by CuPy.

What does come back (views, metadata) returns to dlarray through the
stand-in (:func:`wrap_through_the_stand_in`, a DLPack capsule over the same
memory, since CuPy's own ``__dlpack__`` asks the driver where the memory
is), and must be on GPU 1.

The CuPy engine enters the arrays' GPU for each call
(``dlarray._engine.cupy_engine.on_device``); entering needs the driver, so a
recorder stands in for it and checks that GPU 1 was the one entered, and
that no creation function was called without naming its device.

The cases run in one child process (this file run as a script): once
imported, CuPy becomes dlarray's source of the current CUDA stream, which
cannot be read without a driver, so the tests of this process that use the
stand-in runtime must never see it imported.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import traceback
from collections.abc import Callable
from typing import Any

import abi
import numpy as np
import pytest
from fake_cuda import FakeRuntime

import dlarray
from dlarray._cuda import runtime as cuda_runtime
from dlarray._cuda import streams
from dlarray._engine import cupy_engine, routing

GPU = dlarray.Device("cuda", 1)  # not GPU 0: computing on the current GPU shows
KDLCUDA = 2
DLPACK_CODES = {"b": 6, "i": 0, "u": 1, "f": 2, "c": 5}  # NumPy dtype kind -> DLPack code


# ---- what counts as reaching for the GPU ----

# The status errors of the CUDA libraries, by name: their classes cannot be
# imported where the libraries are missing.
_LIBRARY_ERRORS = {"CUBLASError", "CUSOLVERError", "CUFFTError", "CURANDError", "NVRTCError"}


def reaches_for_the_gpu(exc: BaseException) -> bool:
    """Whether ``exc`` (or its explicit cause) is CuPy reaching for what only
    a GPU machine has: the driver (``CUDARuntimeError`` without one, as
    here), a CUDA library (an ``ImportError`` from cuda-pathfinder where
    cuBLAS, cuSOLVER, cuFFT or NVRTC is not installed), or a library's
    status."""
    from cupy_backends.cuda.api.driver import CUDADriverError
    from cupy_backends.cuda.api.runtime import CUDARuntimeError

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, CUDARuntimeError | CUDADriverError):
            return True
        kind = type(seen)
        if kind.__name__ in _LIBRARY_ERRORS and kind.__module__.startswith("cupy"):
            return True
        if isinstance(seen, ImportError) and _loads_a_cuda_library(seen):
            return True
        seen = seen.__cause__
    return False


def _loads_a_cuda_library(exc: ImportError) -> bool:
    cause = exc.__cause__
    return cause is not None and type(cause).__module__.startswith("cuda.pathfinder")


def where_raised(exc: BaseException) -> str:
    """The frame that raised ``exc`` and the last of dlarray's frames above it."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "(no traceback)"
    last = frames[-1]
    text = f"raised at {last.filename}:{last.lineno} in {last.name}"
    ours = [f for f in frames if f"{os.sep}dlarray{os.sep}" in f.filename]
    if ours and ours[-1] is not last:
        text += f", called from {ours[-1].filename}:{ours[-1].lineno} in {ours[-1].name}"
    return text


# ---- CUDA arrays whose engine view is a CuPy array over host memory ----


def host_cupy_view(x: dlarray.DLArray) -> Any:
    """A ``cupy.ndarray`` over the stand-in's memory of ``x``, on x's GPU."""
    import cupy

    itemsize = np.dtype(x.dtype.name).itemsize
    reach = sum((n - 1) * s for n, s in zip(x.shape, x._strides, strict=True) if s > 0 and n)
    span = x._byte_offset + (reach + 1) * itemsize
    twin = x._view(x.shape, x._strides, x._byte_offset)  # no cycle through the cache
    memory = cupy.cuda.UnownedMemory(x._data, span, twin, device_id=x.device.index)
    return cupy.ndarray(
        x.shape,
        x.dtype.name,
        memptr=cupy.cuda.MemoryPointer(memory, x._byte_offset),
        strides=tuple(s * itemsize for s in x._strides),
    )


class _StandIn(abi.Producer):
    """A capsule over a CuPy result's memory, holding the result until
    dlarray lets go of it."""

    def __init__(self, array: Any) -> None:
        itemsize = array.dtype.itemsize
        super().__init__(
            shape=array.shape,
            strides=[s // itemsize for s in array.strides],
            dtype=(DLPACK_CODES[array.dtype.kind], 8 * itemsize, 1),
            data=int(array.data.ptr),
            device=(KDLCUDA, int(array.device.id)),
        )
        self.array: Any = array

    def _on_delete(self, managed: Any) -> None:
        super()._on_delete(managed)
        self.array = None


def wrap_through_the_stand_in(a: Any) -> dlarray.DLArray:
    """A CuPy result as a DLArray over the same memory (the engine's wrap,
    with a hand-made capsule for CuPy's ``__dlpack__``, which asks the
    driver what memory it holds)."""
    x = dlarray.from_dlpack(_StandIn(a))
    x._engine_view = a
    return x


class DeviceRecorder:
    """Stands in for ``cupy_engine.on_device``: records the GPU each call
    entered (None: a creation function that named no device), whether a
    call is under way (``depth``), and the driver errors raised inside one
    (``reached``): only those are CuPy's reach for the GPU."""

    def __init__(self) -> None:
        self.entered: list[int | None] = []
        self.depth = 0
        self.reached: list[BaseException] = []

    def __call__(self, index: int | None) -> contextlib.AbstractContextManager[None]:
        self.entered.append(index)
        return self._inside()

    @contextlib.contextmanager
    def _inside(self) -> Any:
        self.depth += 1
        try:
            yield
        except Exception as exc:
            if reaches_for_the_gpu(exc):
                self.reached.append(exc)
            raise
        finally:
            self.depth -= 1

    def saw(self, exc: BaseException) -> bool:
        """Whether ``exc`` (or its explicit cause) was raised inside a call."""
        seen: BaseException | None = exc
        while seen is not None:
            if any(seen is r for r in self.reached):
                return True
            seen = seen.__cause__
        return False


class NumPyOnCuPyError(TypeError):
    """A NumPy function called on a CuPy array."""


def _numpy_dispatch(name: str) -> Callable[..., Any]:
    def refuse(self: Any, what: Any, *args: Any, **kwargs: Any) -> Any:
        raise NumPyOnCuPyError(
            f"numpy.{getattr(what, '__name__', what)} called on a CuPy array (through "
            f"{name}): NumPy's dispatch computes on CuPy's current GPU, not the array's, "
            f"and bypasses the engine's fixes; compute through namespace_of(a)"
        )

    return refuse


class OutsideTheDeviceError(RuntimeError):
    """A CuPy operator that computes, used outside the engine's namespace."""


# The operators of CuPy arrays that launch kernels (on CuPy's current GPU).
_COMPUTING = [
    f"__{name}__"
    for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
               "or", "xor", "lshift", "rshift")
    for name in (op, f"r{op}", f"i{op}")
] + [f"__{name}__" for name in ("eq", "ne", "lt", "le", "gt", "ge", "neg", "pos", "abs",
                               "invert", "setitem")]  # fmt: skip


def _advanced(key: Any) -> bool:
    """Whether indexing with ``key`` gathers (a kernel) rather than views."""
    parts = key if isinstance(key, tuple) else (key,)
    basic = (int, np.integer, slice, type(None), type(Ellipsis))
    return any(isinstance(k, bool) or not isinstance(k, basic) for k in parts)


def _guarded(name: str, operator: Any, recorder: DeviceRecorder) -> Callable[..., Any]:
    def on_the_current_gpu(self: Any, *args: Any) -> Any:
        if recorder.depth == 0 and (name != "__getitem__" or _advanced(args[0])):
            raise OutsideTheDeviceError(
                f"CuPy's {name} used on an engine array outside the engine's namespace: it "
                f"runs on CuPy's current GPU, not the array's; compute through "
                f"namespace_of(a) (xp.add, xp.take, ...)"
            )
        return operator(self, *args)

    return on_the_current_gpu


@contextlib.contextmanager
def cupy_over_the_stand_in(recorder: DeviceRecorder) -> Any:
    """CUDA arrays in the stand-in's memory, computed on with CuPy."""
    import cupy

    with pytest.MonkeyPatch.context() as patch:
        for protocol in ("__array_function__", "__array_ufunc__"):
            patch.setattr(cupy.ndarray, protocol, _numpy_dispatch(protocol))
        for name in [*_COMPUTING, "__getitem__"]:
            if hasattr(cupy.ndarray, name):
                original = getattr(cupy.ndarray, name)
                patch.setattr(cupy.ndarray, name, _guarded(name, original, recorder))
        # dlarray's work stream is CuPy's current stream, which needs the
        # driver to be read; the stand-in runtime's is the legacy default.
        patch.setattr(streams, "work_stream", lambda device_index=None: streams.LEGACY_DEFAULT)
        patch.setitem(routing._VIEWER_OF_TYPE, KDLCUDA, host_cupy_view)
        patch.setattr(cupy_engine, "wrap", wrap_through_the_stand_in)
        patch.setattr(cupy_engine, "on_device", recorder)
        with cuda_runtime.use_runtime(FakeRuntime(gpus=2)):
            yield


# ---- the cases: valid calls of every function ----


def on_gpu(values: Any, dtype: str = "float64") -> dlarray.DLArray:
    """``values`` copied to GPU 1 (a copy, not a computation)."""
    return dlarray.asarray(np.asarray(values, dtype=dtype)).to_device(GPU)


def F() -> dlarray.DLArray:
    return on_gpu([0.5, -0.25, 0.75, 0.125, -0.5, 0.25])


def F2() -> dlarray.DLArray:
    return on_gpu([0.25, 0.5, -0.125, 1.0, 2.0, -1.5])


def M() -> dlarray.DLArray:
    """A 3x3 matrix, symmetric positive definite."""
    return on_gpu([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])


def M2() -> dlarray.DLArray:
    return on_gpu(np.arange(6.0).reshape(2, 3))


def I() -> dlarray.DLArray:  # noqa: E743
    return on_gpu([3, 1, 4, 1, 5, 9], "int64")


def I2() -> dlarray.DLArray:
    return on_gpu([2, 7, 1, 8, 2, 8], "int64")


def B() -> dlarray.DLArray:
    return on_gpu([True, False, True, True, False, False], "bool")


def B2() -> dlarray.DLArray:
    return on_gpu([False, False, True, False, True, True], "bool")


def C() -> dlarray.DLArray:
    return on_gpu([1 + 2j, -0.5j, 3.0, np.inf + 1j, 0.25 - 1j, -2 + 0j], "complex128")


def SORTED() -> dlarray.DLArray:
    return on_gpu([0.5, 1.0, 1.5, 2.0])


def AT() -> dlarray.DLArray:
    """Valid indices into F()."""
    return on_gpu([0, 2, 5], "int64")


UNARY_FLOAT = [
    "abs", "acos", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp",
    "expm1", "floor", "isfinite", "isinf", "isnan", "log1p", "negative", "positive",
    "reciprocal", "round", "sign", "signbit", "sin", "sinh", "square", "tan", "tanh", "trunc",
]  # fmt: skip
UNARY_POSITIVE = ["acosh", "log", "log10", "log2", "sqrt"]
UNARY_COMPLEX = [
    "abs", "conj", "exp", "expm1", "imag", "log", "real", "sign", "sqrt", "tanh",
]  # fmt: skip
BINARY_FLOAT = [
    "add", "atan2", "copysign", "divide", "equal", "floor_divide", "greater",
    "greater_equal", "hypot", "less", "less_equal", "logaddexp", "maximum", "minimum",
    "multiply", "nextafter", "not_equal", "pow", "remainder", "subtract",
]  # fmt: skip
BINARY_INT = [
    "bitwise_and", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift",
    "bitwise_xor", "floor_divide", "remainder",
]  # fmt: skip
BINARY_BOOL = ["logical_and", "logical_or", "logical_xor"]

d = dlarray
la = dlarray.linalg
ft = dlarray.fft


def _calling(name: str, *operands: Callable[[], Any]) -> Callable[[], Any]:
    """A case: dlarray's function ``name`` on fresh operands."""
    function = getattr(dlarray, name)
    return lambda: function(*(make() for make in operands))


def _scalar() -> float:
    return 2.0


CASES: dict[str, Callable[[], Any]] = {}
for _name in UNARY_FLOAT:
    CASES[_name] = _calling(_name, F)
for _name in UNARY_POSITIVE:
    CASES[_name] = _calling(_name, lambda: on_gpu([1.5, 2.0, 4.0]))
for _name in UNARY_COMPLEX:
    CASES[f"{_name}[complex]"] = _calling(_name, C)
for _name in BINARY_FLOAT:
    CASES[_name] = _calling(_name, F, F2)
    CASES[f"{_name}[scalar]"] = _calling(_name, F, _scalar)
for _name in BINARY_INT:
    CASES[f"{_name}[int]"] = _calling(_name, I, I2)
for _name in BINARY_BOOL:
    CASES[_name] = _calling(_name, B, B2)
CASES.update(
    {
        "bitwise_invert": lambda: d.bitwise_invert(I()),
        "logical_not": lambda: d.logical_not(B()),
        "add[int scalar]": lambda: d.add(I(), 3),
        "multiply[scalar first]": lambda: d.multiply(2.0, F()),
        # creation
        "arange": lambda: d.arange(5, device=GPU),
        "arange[float]": lambda: d.arange(0.0, 1.0, 0.25, dtype=d.float32, device=GPU),
        "asarray[list]": lambda: d.asarray([1.0, 2.0], device=GPU),
        "asarray[array]": lambda: d.asarray(F(), dtype=d.float32),
        "empty": lambda: d.empty((2, 3), device=GPU),
        "empty_like": lambda: d.empty_like(F()),
        "eye": lambda: d.eye(3, 4, k=1, device=GPU),
        "from_dlpack": lambda: d.from_dlpack(F()),
        "full": lambda: d.full((2, 2), 3.5, device=GPU),
        "full_like": lambda: d.full_like(F(), 7.0),
        "linspace": lambda: d.linspace(0.0, 1.0, 5, device=GPU),
        "meshgrid": lambda: d.meshgrid(F(), F2(), indexing="ij"),
        "ones": lambda: d.ones(3, device=GPU),
        "ones_like": lambda: d.ones_like(I()),
        "tril": lambda: d.tril(M(), k=-1),
        "triu": lambda: d.triu(M()),
        "zeros": lambda: d.zeros((2, 0), device=GPU),
        "zeros_like": lambda: d.zeros_like(C()),
        # data types
        "astype": lambda: d.astype(F(), d.float32),
        "astype[same device]": lambda: d.astype(I(), d.float64, device=GPU),
        "can_cast": lambda: d.can_cast(F(), d.complex128),
        "dtypes": lambda: d.dtypes(),
        "finfo": lambda: d.finfo(F()),
        "iinfo": lambda: d.iinfo(I()),
        "isdtype": lambda: d.isdtype(d.float64, "real floating"),
        "result_type": lambda: d.result_type(F(), d.float32, 2.0),
        "__array_namespace_info__": lambda: d.__array_namespace_info__().devices(),
        # manipulation
        "broadcast_arrays": lambda: d.broadcast_arrays(M(), F()[:3]),
        "broadcast_shapes": lambda: d.broadcast_shapes((2, 1), (1, 3)),
        "broadcast_to": lambda: d.broadcast_to(F()[:3], (2, 3)),
        "concat": lambda: d.concat([F(), F2()]),
        "concat[axis=None]": lambda: d.concat([M(), M2()], axis=None),
        "expand_dims": lambda: d.expand_dims(F(), axis=0),
        "expand_dims[tuple]": lambda: d.expand_dims(F(), axis=(0, 2)),
        "flip": lambda: d.flip(M(), axis=1),
        "moveaxis": lambda: d.moveaxis(M2(), 0, 1),
        "permute_dims": lambda: d.permute_dims(M2(), (1, 0)),
        "repeat": lambda: d.repeat(F(), 2),
        "repeat[array]": lambda: d.repeat(F(), on_gpu([1, 0, 2, 1, 1, 3], "int64")),
        "reshape": lambda: d.reshape(F(), (2, 3)),
        "roll": lambda: d.roll(M(), 1, axis=0),
        "roll[flat]": lambda: d.roll(M(), -2),
        "squeeze": lambda: d.squeeze(d.reshape(F(), (1, 6)), axis=0),
        "stack": lambda: d.stack([F(), F2()], axis=1),
        "tile": lambda: d.tile(F(), (2, 1)),
        "unstack": lambda: d.unstack(M2(), axis=1),
        # indexing
        "take": lambda: d.take(F(), AT(), axis=0),
        "take[matrix]": lambda: d.take(M(), on_gpu([2, 0], "int64"), axis=1),
        "take_along_axis": lambda: d.take_along_axis(M(), on_gpu([[0], [2], [1]], "int64"), axis=1),
        # searching
        "argmax": lambda: d.argmax(F()),
        "argmin": lambda: d.argmin(M(), axis=0, keepdims=True),
        "count_nonzero": lambda: d.count_nonzero(I()),
        "count_nonzero[keepdims]": lambda: d.count_nonzero(M(), axis=1, keepdims=True),
        "nonzero": lambda: d.nonzero(M()),
        "searchsorted": lambda: d.searchsorted(SORTED(), F()),
        "searchsorted[scalar]": lambda: d.searchsorted(SORTED(), 1.25, side="right"),
        "where": lambda: d.where(B(), F(), F2()),
        "where[scalars]": lambda: d.where(B(), F(), 0.0),
        # sets
        "isin": lambda: d.isin(I(), I2()),
        "isin[scalar]": lambda: d.isin(I(), 4),
        "unique_all": lambda: d.unique_all(I()),
        "unique_counts": lambda: d.unique_counts(F()),
        "unique_inverse": lambda: d.unique_inverse(M()),
        "unique_values": lambda: d.unique_values(I()),
        # sorting
        "argsort": lambda: d.argsort(F()),
        "argsort[descending]": lambda: d.argsort(F(), descending=True),
        "sort": lambda: d.sort(M(), axis=0),
        "sort[descending]": lambda: d.sort(F(), descending=True),
        "sort[unstable]": lambda: d.sort(F(), stable=False),
        # statistics
        "cumulative_prod": lambda: d.cumulative_prod(F()),
        "cumulative_sum": lambda: d.cumulative_sum(M(), axis=1),
        "cumulative_sum[include_initial]": lambda: d.cumulative_sum(I(), include_initial=True),
        "max": lambda: d.max(F()),
        "max[axis]": lambda: d.max(M(), axis=1, keepdims=True),
        "mean": lambda: d.mean(F()),
        "mean[complex]": lambda: d.mean(C()),
        "min": lambda: d.min(I()),
        "prod": lambda: d.prod(F()),
        "prod[dtype]": lambda: d.prod(I(), dtype=d.float64),
        "std": lambda: d.std(M(), axis=0),
        "sum": lambda: d.sum(F()),
        "sum[axis]": lambda: d.sum(M(), axis=0),
        "sum[int]": lambda: d.sum(I(), keepdims=True),
        "var": lambda: d.var(F(), correction=1),
        # utility
        "all": lambda: d.all(B()),
        "any": lambda: d.any(M(), axis=0),
        "diff": lambda: d.diff(F()),
        "diff[prepend]": lambda: d.diff(F(), n=2, prepend=F2()[:1], append=F2()[:2]),
        # elementwise with more arguments
        "clip": lambda: d.clip(F(), 0.0, 0.5),
        "clip[None]": lambda: d.clip(F(), None, None),
        "clip[arrays]": lambda: d.clip(F(), F2(), None),
        # linear algebra
        "matmul": lambda: d.matmul(M(), M()),
        "matrix_transpose": lambda: d.matrix_transpose(M2()),
        "tensordot": lambda: d.tensordot(M(), M(), axes=1),
        "vecdot": lambda: d.vecdot(M(), M()),
        "linalg.cholesky": lambda: la.cholesky(M()),
        "linalg.cholesky[upper]": lambda: la.cholesky(M(), upper=True),
        "linalg.cross": lambda: la.cross(F()[:3], F2()[:3]),
        "linalg.det": lambda: la.det(M()),
        "linalg.diagonal": lambda: la.diagonal(M(), offset=1),
        "linalg.eig": lambda: la.eig(M()),
        "linalg.eigh": lambda: la.eigh(M()),
        "linalg.eigvals": lambda: la.eigvals(M()),
        "linalg.eigvalsh": lambda: la.eigvalsh(M()),
        "linalg.inv": lambda: la.inv(M()),
        "linalg.matmul": lambda: la.matmul(M(), M2().mT),
        "linalg.matrix_norm": lambda: la.matrix_norm(M()),
        "linalg.matrix_norm[keepdims]": lambda: la.matrix_norm(M(), keepdims=True),
        "linalg.matrix_norm[nuc]": lambda: la.matrix_norm(M(), ord="nuc"),
        **{
            f"linalg.matrix_norm[{o}]": lambda o=o: la.matrix_norm(M(), ord=o)
            for o in (1, -1, 2, -2, float("inf"), float("-inf"))
        },
        "linalg.matrix_power": lambda: la.matrix_power(M(), 3),
        "linalg.matrix_power[negative]": lambda: la.matrix_power(M(), -2),
        "linalg.matrix_rank": lambda: la.matrix_rank(M()),
        "linalg.matrix_transpose": lambda: la.matrix_transpose(M2()),
        "linalg.outer": lambda: la.outer(F(), F2()),
        "linalg.pinv": lambda: la.pinv(M2()),
        "linalg.qr": lambda: la.qr(M2().mT),
        "linalg.slogdet": lambda: la.slogdet(M()),
        "linalg.solve": lambda: la.solve(M(), F()[:3]),
        "linalg.solve[matrix]": lambda: la.solve(M(), M()),
        "linalg.svd": lambda: la.svd(M2(), full_matrices=False),
        "linalg.svdvals": lambda: la.svdvals(M2()),
        "linalg.tensordot": lambda: la.tensordot(M(), M()),
        "linalg.trace": lambda: la.trace(M()),
        "linalg.vecdot": lambda: la.vecdot(F(), F2()),
        "linalg.vector_norm": lambda: la.vector_norm(M(), axis=1),
        **{
            f"linalg.vector_norm[{o}]": lambda o=o: la.vector_norm(F(), ord=o)
            for o in (1, 0, float("inf"), float("-inf"))
        },
        "linalg.vector_norm[keepdims]": lambda: la.vector_norm(M(), keepdims=True),
        # fft
        "fft.fft": lambda: ft.fft(C()),
        "fft.fftfreq": lambda: ft.fftfreq(8, d=0.5, device=GPU),
        "fft.fftn": lambda: ft.fftn(d.reshape(C(), (2, 3))),
        "fft.fftshift": lambda: ft.fftshift(F()),
        "fft.hfft": lambda: ft.hfft(C()),
        "fft.ifft": lambda: ft.ifft(C(), n=8, norm="ortho"),
        "fft.ifftn": lambda: ft.ifftn(d.reshape(C(), (3, 2)), axes=(0,)),
        "fft.ifftshift": lambda: ft.ifftshift(M(), axes=0),
        "fft.ihfft": lambda: ft.ihfft(F()),
        "fft.irfft": lambda: ft.irfft(C()),
        "fft.irfftn": lambda: ft.irfftn(d.reshape(C(), (2, 3))),
        "fft.rfft": lambda: ft.rfft(F()),
        "fft.rfftfreq": lambda: ft.rfftfreq(8, device=GPU, dtype=d.float32),
        "fft.rfftn": lambda: ft.rfftn(M()),
        # the array object's compute (not namespace functions)
        "DLArray.__getitem__[int array]": lambda: F()[AT()],
        "DLArray.__getitem__[bool mask]": lambda: F()[B()],
        "DLArray.__setitem__": lambda: F().__setitem__(AT(), 1.0),
        "DLArray.__iadd__": lambda: F().__iadd__(1),
        "DLArray.__matmul__": lambda: M() @ M(),
        "DLArray.__float__": lambda: float(d.sum(F())),
    }
)

# Namespace names that do not compute on arrays.
NOT_COMPUTE = {"get_include": "the folder of dlarray's C headers"}


def namespace_functions() -> list[str]:
    """Every function of dlarray's namespace and its linalg and fft extensions."""
    names = []
    for prefix, module in (("", dlarray), ("linalg.", dlarray.linalg), ("fft.", dlarray.fft)):
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value) and not isinstance(value, type | dlarray.DType):
                names.append(prefix + name)
    return names


def _results(value: Any) -> list[dlarray.DLArray]:
    if isinstance(value, dlarray.DLArray):
        return [value]
    if isinstance(value, tuple | list):
        return [r for v in value for r in _results(v)]
    return []


def run_case(case: str) -> str | None:
    """What is wrong with case ``case`` on CuPy (None: nothing)."""
    recorder = DeviceRecorder()
    with cupy_over_the_stand_in(recorder):
        try:
            result = CASES[case]()
        except Exception as exc:
            if not reaches_for_the_gpu(exc):
                return f"{type(exc).__name__}: {exc}\n  {where_raised(exc)}"
            if not recorder.saw(exc):
                return (
                    f"the driver was reached outside the engine's namespace (a CuPy method "
                    f"called by dlarray, running on CuPy's current GPU, or dlarray's own CUDA "
                    f"code): {type(exc).__name__}: {exc}\n  {where_raised(exc)}"
                )
        else:
            for r in _results(result):
                if r.device != GPU:
                    return f"returned an array on {r.device}, not on {GPU}"
    wrong = [index for index in recorder.entered if index != GPU.index]
    if wrong:
        return f"entered GPU(s) {wrong} (None: a creation function named no device) for {GPU}"
    return None


# ---- checks of the harness itself ----


def check_the_engine_view_is_cupy_over_the_stand_in() -> None:
    import cupy

    with cupy_over_the_stand_in(DeviceRecorder()):
        x = F()
        view = routing.engine_view(x)
        assert isinstance(view, cupy.ndarray), type(view)
        assert int(view.data.ptr) == x._data + x._byte_offset
        assert view.device.id == GPU.index


def check_views_come_back_on_their_gpu_through_the_stand_in() -> None:
    recorder = DeviceRecorder()
    with cupy_over_the_stand_in(recorder):
        x = M2()
        a = routing.engine_view(x)
        y = routing.call(routing.namespace_of(a).permute_dims, a, (1, 0))
        assert y.device == GPU and y.shape == (3, 2), (y.device, y.shape)
        assert y._data + y._byte_offset == x._data + x._byte_offset  # zero-copy, both ways
        assert recorder.entered == [GPU.index], recorder.entered
        expected = np.arange(6.0).reshape(2, 3).T
        assert np.array_equal(np.from_dlpack(y.to_device("cpu")), expected)


def check_the_driver_error_is_the_acceptable_one() -> None:
    # Without a driver CuPy's kernels stop there: what the cases accept.
    with cupy_over_the_stand_in(DeviceRecorder()):
        try:
            routing.engine_view(F()).sum()
        except Exception as exc:
            assert reaches_for_the_gpu(exc), repr(exc)
        else:
            raise AssertionError("a CuPy kernel ran without a driver")
    assert not reaches_for_the_gpu(TypeError("an argument check"))


def check_linalg_failures_raise_in_numpys_words() -> None:
    # CuPy checks cuSOLVER's status only under cupyx.errstate(linalg="raise");
    # a stand-in for its inv reports what it saw, then fails as CuPy does.
    import array_api_compat.cupy.linalg as compat_linalg
    import cupyx

    seen = []

    def singular(x: Any) -> Any:
        seen.append(cupyx.geterr()["linalg"])
        raise np.linalg.LinAlgError("Error reported by dgetrf in cuSOLVER. devInfo = [1].")

    recorder = DeviceRecorder()
    with cupy_over_the_stand_in(recorder), pytest.MonkeyPatch.context() as patch:
        patch.setattr(compat_linalg, "inv", singular)
        xp = cupy_engine.namespace()  # a fresh one, over the stand-in inv
        try:
            xp.linalg.inv(routing.engine_view(M()))
        except np.linalg.LinAlgError as exc:
            assert str(exc) == "Singular matrix", str(exc)
        else:
            raise AssertionError("the stand-in inv did not raise")
    assert seen == ["raise"], seen
    assert recorder.entered == [GPU.index], recorder.entered
    assert cupyx.geterr()["linalg"] == "ignore"  # CuPy's default, restored


CHECKS: dict[str, Callable[[], None]] = {
    "linalg failures raise in NumPy's words": check_linalg_failures_raise_in_numpys_words,
    "the engine view is CuPy over the stand-in": check_the_engine_view_is_cupy_over_the_stand_in,
    "views come back on their GPU": check_views_come_back_on_their_gpu_through_the_stand_in,
    "the driver error is the acceptable one": check_the_driver_error_is_the_acceptable_one,
}


def _check(name: str) -> str | None:
    try:
        CHECKS[name]()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}\n  {where_raised(exc)}"
    return None


# ---- the child process ----


def _child() -> dict[str, Any]:
    try:
        import array_api_compat.cupy  # noqa: F401
        import cupy
    except ImportError as exc:
        return {"skip": f"CuPy or array-api-compat is installed but cannot be imported: {exc}"}
    if cupy.is_available():
        # Kernels launched on the stand-in's host pointers would fault on a
        # real GPU; there, tests/cuda/ computes on it.
        return {"skip": "a CUDA GPU is usable here: tests/cuda/ computes on it"}
    return {
        "cases": {case: run_case(case) for case in CASES},
        "checks": {name: _check(name) for name in CHECKS},
    }


if __name__ == "__main__":
    report = json.dumps(_child())
    for producer in abi._KEEPALIVE:
        producer.drop_capsules()
    sys.stdout.write(report)
    sys.stdout.flush()
    # Leave without the interpreter's teardown, where the capsules' ctypes
    # destructors would run among half-torn-down modules.
    os._exit(0)


# ---- the tests (this process never imports CuPy) ----


def _missing() -> str | None:
    if importlib.util.find_spec("cupy") is None:
        return "CuPy is not installed (pip install cupy-cuda13x): no CuPy to check calls with"
    if importlib.util.find_spec("array_api_compat") is None:
        return (
            "array-api-compat is not installed (pip install array-api-compat): CuPy's "
            "standard namespace is missing"
        )
    return None


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Any]:
    """The child's report: each case's and check's problem, or None."""
    missing = _missing()
    if missing is not None:
        pytest.skip(missing)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = subprocess.run(
        [sys.executable, __file__], capture_output=True, text=True, env=env, timeout=600
    )
    if child.returncode != 0 or not child.stdout:
        pytest.fail(f"the CuPy child process failed ({child.returncode}):\n{child.stderr}")
    report: dict[str, Any] = json.loads(child.stdout)
    if "skip" in report:
        pytest.skip(report["skip"])
    return report


def test_every_namespace_function_has_a_case() -> None:
    covered = {key.partition("[")[0] for key in CASES}
    missing = [n for n in namespace_functions() if n not in covered and n not in NOT_COMPUTE]
    assert missing == [], f"namespace functions without a call-shape case: {missing}"


@pytest.mark.parametrize("check", list(CHECKS))
def test_harness(outcomes: dict[str, Any], check: str) -> None:
    problem = outcomes["checks"][check]
    assert problem is None, problem


@pytest.mark.parametrize("case", list(CASES))
def test_call_shape_on_cupy(outcomes: dict[str, Any], case: str) -> None:
    problem = outcomes["cases"][case]
    if problem is not None:
        pytest.fail(f"{case}: {problem}", pytrace=False)
