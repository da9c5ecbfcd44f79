"""Computing on CUDA managed and pinned memory, without a GPU.

NumPy computes on both through host views (dlarray/_engine/host_view_engine.py),
and every result lands in the input's memory kind.  The stand-in runtime
(tests/fake_cuda.py) allocates the "CUDA" memory on the host, so each
function of the namespace runs here on the same values on the CPU and on
each kind, and must give the CPU's result on the input's device.
"""

from __future__ import annotations

import abi
import numpy as np
import pytest
from fake_cuda import stand_in

import dlarray as xp
from dlarray._engine import host_view_engine, namespaces, routing
from dlarray._engine.host_view_engine import HostView

KINDS = ["cuda_managed", "cuda_host"]


@pytest.fixture
def fake():
    with stand_in(gpus=1) as rt:
        yield rt


F = np.linspace(-2.5, 3.5, 12).reshape(3, 4)  # float64, no zeros
P = np.abs(F) + 0.5  # positive
INTS = np.array([[3, -1, 4, 1], [-5, 9, 2, -6], [5, 3, -5, 8]], dtype=np.int32)
B = INTS > 0
M = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])  # positive definite
C = F + 1j * P
V = np.array([1.0, -2.0, 0.5])


def _index(values):
    return lambda a: xp.asarray(np.asarray(values), device=a.device)


UNARY = (
    "abs acosh asinh atan ceil conj cos cosh exp expm1 floor isfinite isinf isnan log "
    "log1p log2 log10 negative positive real reciprocal round sign signbit sin sinh square "
    "sqrt tan tanh trunc"
).split()
BINARY = (
    "add atan2 copysign divide equal floor_divide greater greater_equal hypot less less_equal "
    "logaddexp maximum minimum multiply nextafter not_equal pow remainder subtract"
).split()
BITWISE = "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift".split()

# name -> (the function, its array inputs as NumPy arrays); the name before
# the first space is the namespace function it covers.
CASES = {
    **{name: (getattr(xp, name), (P,)) for name in UNARY},
    "acos": (xp.acos, (F / 4,)),
    "asin": (xp.asin, (F / 4,)),
    "atanh": (xp.atanh, (F / 4,)),
    "bitwise_invert": (xp.bitwise_invert, (INTS,)),
    "logical_not": (xp.logical_not, (B,)),
    "conj complex": (xp.conj, (C,)),
    "imag complex": (xp.imag, (C,)),
    **{name: (getattr(xp, name), (F, P)) for name in BINARY},
    **{name: (getattr(xp, name), (INTS, np.abs(INTS) % 4)) for name in BITWISE},
    **{name: (getattr(xp, name), (B, ~B)) for name in ("logical_and", "logical_or", "logical_xor")},
    "clip": (lambda a: xp.clip(a, -1.0, 1.0), (F,)),
    "clip arrays": (xp.clip, (F, F - 1, F + 1)),
    "astype": (lambda a: xp.astype(a, xp.float32), (F,)),
    # statistical
    "sum": (xp.sum, (F,)),
    "sum axis": (lambda a: xp.sum(a, axis=1), (F,)),
    "prod": (lambda a: xp.prod(a, axis=0), (P,)),
    "max": (xp.max, (F,)),
    "min keepdims": (lambda a: xp.min(a, axis=0, keepdims=True), (F,)),
    "mean": (xp.mean, (F,)),
    "mean complex": (xp.mean, (C,)),
    "std": (lambda a: xp.std(a, axis=1), (F,)),
    "var": (lambda a: xp.var(a, correction=1), (F,)),
    "cumulative_sum": (lambda a: xp.cumulative_sum(a, axis=1), (F,)),
    "cumulative_prod": (lambda a: xp.cumulative_prod(a, axis=0, include_initial=True), (P,)),
    "all": (xp.all, (B,)),
    "any": (lambda a: xp.any(a, axis=0), (B,)),
    "diff": (lambda a: xp.diff(a, axis=1), (F,)),
    # searching
    "argmax": (lambda a: xp.argmax(a, axis=1), (F,)),
    "argmin": (xp.argmin, (F,)),
    "where": (xp.where, (B, F, P)),
    "count_nonzero": (xp.count_nonzero, (INTS,)),
    "nonzero": (xp.nonzero, (INTS,)),
    "searchsorted": (xp.searchsorted, (np.sort(V), F)),
    # sorting and sets
    "sort": (lambda a: xp.sort(a, axis=1), (F[:, ::-1],)),
    "sort descending": (lambda a: xp.sort(a, axis=0, descending=True, stable=False), (INTS,)),
    "argsort": (lambda a: xp.argsort(a, axis=0, descending=True), (INTS,)),
    "unique_values": (xp.unique_values, (INTS % 3,)),
    "unique_counts": (xp.unique_counts, (INTS % 3,)),
    "unique_inverse": (xp.unique_inverse, (INTS % 3,)),
    "unique_all": (xp.unique_all, (INTS % 3,)),
    "isin": (xp.isin, (INTS, INTS[0])),
    # indexing functions
    "take": (lambda a: xp.take(a, _index([2, 0])(a), axis=1), (F,)),
    "take_along_axis": (lambda a: xp.take_along_axis(a, _index([[1], [0], [2]])(a), axis=1), (F,)),
    # manipulation
    "reshape": (lambda a: xp.reshape(a, (4, 3)), (F,)),
    "permute_dims": (lambda a: xp.permute_dims(a, (1, 0)), (F,)),
    "matrix_transpose": (xp.matrix_transpose, (F,)),
    "concat": (lambda a, b: xp.concat([a, b], axis=1), (F, P)),
    "stack": (lambda a, b: xp.stack([a, b]), (F, P)),
    "unstack": (lambda a: xp.unstack(a, axis=1), (F,)),
    "flip": (xp.flip, (F,)),
    "roll": (lambda a: xp.roll(a, 2, axis=1), (F,)),
    "moveaxis": (lambda a: xp.moveaxis(a, 0, 1), (F,)),
    "expand_dims": (lambda a: xp.expand_dims(a, axis=0), (F,)),
    "squeeze": (lambda a: xp.squeeze(a[:1], axis=0), (F,)),
    "broadcast_to": (lambda a: xp.broadcast_to(a[:1], (3, 4)), (F,)),
    "broadcast_arrays": (xp.broadcast_arrays, (F, V[:1])),
    "tile": (lambda a: xp.tile(a, (2, 1)), (F,)),
    "repeat": (lambda a: xp.repeat(a, 2, axis=0), (F,)),
    "repeat array": (lambda a: xp.repeat(a, _index([1, 0, 2])(a), axis=0), (F,)),
    # creation from arrays
    "tril": (lambda a: xp.tril(a, k=1), (F,)),
    "triu": (lambda a: xp.triu(a, k=-1), (F,)),
    "meshgrid": (lambda a, b: xp.meshgrid(a, b, indexing="ij"), (V, V[:2])),
    "empty_like": (lambda a: xp.zeros_like(xp.empty_like(a)), (F,)),
    "zeros_like": (xp.zeros_like, (F,)),
    "ones_like": (lambda a: xp.ones_like(a, dtype=xp.int8), (F,)),
    "full_like": (lambda a: xp.full_like(a, 7.0), (F,)),
    "asarray copy": (lambda a: xp.asarray(a, copy=True), (F,)),
    "asarray dtype": (lambda a: xp.asarray(a, dtype=xp.float32), (F,)),
    "from_dlpack": (xp.from_dlpack, (F,)),
    # linear algebra
    "matmul": (xp.matmul, (F, F.T)),
    "tensordot": (lambda a, b: xp.tensordot(a, b, axes=1), (F, F.T)),
    "vecdot": (xp.vecdot, (F, P)),
    "linalg.matmul": (xp.linalg.matmul, (M, M)),
    "linalg.matrix_transpose": (xp.linalg.matrix_transpose, (F,)),
    "linalg.tensordot": (lambda a, b: xp.linalg.tensordot(a, b, axes=2), (F, P)),
    "linalg.vecdot": (xp.linalg.vecdot, (F, P)),
    "linalg.cholesky": (xp.linalg.cholesky, (M,)),
    "linalg.cross": (xp.linalg.cross, (F[:, :3], P[:, :3])),
    "linalg.det": (xp.linalg.det, (M,)),
    "linalg.diagonal": (lambda a: xp.linalg.diagonal(a, offset=1), (F,)),
    "linalg.eig": (xp.linalg.eig, (M,)),
    "linalg.eigh": (xp.linalg.eigh, (M,)),
    "linalg.eigvals": (xp.linalg.eigvals, (M,)),
    "linalg.eigvalsh": (xp.linalg.eigvalsh, (M,)),
    "linalg.inv": (xp.linalg.inv, (M,)),
    "linalg.matrix_norm": (lambda a: xp.linalg.matrix_norm(a, ord=1, keepdims=True), (F,)),
    "linalg.matrix_norm fro": (xp.linalg.matrix_norm, (F,)),
    "linalg.matrix_power": (lambda a: xp.linalg.matrix_power(a, 3), (M,)),
    "linalg.matrix_rank": (xp.linalg.matrix_rank, (F,)),
    "linalg.outer": (xp.linalg.outer, (V, V)),
    "linalg.pinv": (xp.linalg.pinv, (F,)),
    "linalg.qr": (xp.linalg.qr, (M,)),
    "linalg.slogdet": (xp.linalg.slogdet, (M,)),
    "linalg.solve": (xp.linalg.solve, (M, M[:, :1])),
    "linalg.svd": (lambda a: xp.linalg.svd(a, full_matrices=False), (M,)),
    "linalg.svdvals": (xp.linalg.svdvals, (F,)),
    "linalg.trace": (xp.linalg.trace, (M,)),
    "linalg.vector_norm": (xp.linalg.vector_norm, (F,)),
    "linalg.vector_norm inf": (lambda a: xp.linalg.vector_norm(a, ord=float("inf")), (F,)),
    # fft
    **{f"fft.{name}": (getattr(xp.fft, name), (C,)) for name in ("fft", "ifft", "fftn", "ifftn")},
    **{f"fft.{name}": (getattr(xp.fft, name), (F,)) for name in ("rfft", "rfftn", "ihfft")},
    "fft.irfft": (xp.fft.irfft, (C,)),
    "fft.irfftn": (xp.fft.irfftn, (C,)),
    "fft.hfft": (xp.fft.hfft, (C,)),
    "fft.fftshift": (xp.fft.fftshift, (F,)),
    "fft.ifftshift": (xp.fft.ifftshift, (F,)),
    # the array object
    "operator +": (lambda a, b: a + b, (F, P)),
    "operator scalar": (lambda a: a * 2.5 - 1, (F,)),
    "operator @": (lambda a, b: a @ b, (F, F.T)),
    "operator //": (lambda a: 7 // a, (P,)),
    "operator ~": (lambda a: ~a, (INTS,)),
    "operator <": (lambda a, b: a < b, (F, P)),
    "operator .T": (lambda a: a.T, (F,)),
    "operator .mT": (lambda a: a.mT, (F,)),
    "operator +=": (lambda a: _inplace_add(a), (F,)),
    "getitem basic": (lambda a: a[1:, ::-2], (F,)),
    "getitem integer": (lambda a: a[1, 2], (F,)),
    "getitem mask": (lambda a, m: a[m], (F, B)),
    "getitem array": (lambda a: a[_index([2, 0])(a)], (F,)),
    "setitem": (lambda a: _setitem(a), (F,)),
}


def _inplace_add(a):
    a += 1.5
    return a


def _setitem(a):
    a[0] = 5.0
    a[a > 3] = -1.0
    return a


# The namespace functions that compute no array: asked about dtypes, shapes
# or devices.  They are called on managed and pinned arrays below.
NO_ARRAY_RESULT = {
    "can_cast",
    "finfo",
    "iinfo",
    "isdtype",
    "result_type",
    "broadcast_shapes",
    "__array_namespace_info__",
    "get_include",
    "dtypes",
}
# Functions that make an array from no array take device= (tested below).
CREATION = {"arange", "empty", "eye", "full", "linspace", "ones", "zeros", "fft.fftfreq"}
CREATION |= {"fft.rfftfreq", "asarray"}


def namespace_functions():
    """Every function of the namespace, with linalg. and fft. ones."""
    names = set()
    for prefix, module in (("", xp), ("linalg.", xp.linalg), ("fft.", xp.fft)):
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value) and not isinstance(value, type | xp.DType):
                names.add(prefix + name)
    return names


def test_every_namespace_function_has_a_case():
    covered = {case.split(" ")[0] for case in CASES} | NO_ARRAY_RESULT | CREATION
    assert namespace_functions() - covered == set()


def to_numpy(result):
    if isinstance(result, tuple):
        return tuple(to_numpy(r) for r in result)
    return np.from_dlpack(result.to_device("cpu"))


def arrays_in(result):
    return [r for r in (result if isinstance(result, tuple) else (result,))]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", CASES)
def test_the_namespace_gives_the_cpu_result_on_the_same_memory_kind(fake, case, kind):
    function, inputs = CASES[case]
    # (copies: asarray imports NumPy memory, and some cases write to it)
    expected = to_numpy(function(*(xp.asarray(a.copy()) for a in inputs)))
    device = xp.Device(kind, 0)
    result = function(*(xp.asarray(a, device=device) for a in inputs))
    for r in arrays_in(result):
        assert r.device == device, f"{case} left {kind}"
    got = to_numpy(result)
    for g, e in zip(arrays_in(got), arrays_in(expected), strict=True):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == e.dtype


MADE = {
    "arange": lambda d: xp.arange(1, 10, 2, device=d),
    "linspace": lambda d: xp.linspace(0, 1, 7, device=d),
    "full": lambda d: xp.full((2, 3), 1.5, device=d),
    "ones": lambda d: xp.ones((2, 2), dtype=xp.int16, device=d),
    "zeros": lambda d: xp.zeros((2, 2), device=d),
    "empty": lambda d: xp.zeros_like(xp.empty((2, 2), device=d)),
    "eye": lambda d: xp.eye(3, 4, k=1, device=d),
    "asarray": lambda d: xp.asarray([[1, 2], [3, 4]], device=d),
    "fft.fftfreq": lambda d: xp.fft.fftfreq(5, d=0.5, device=d),
    "fft.rfftfreq": lambda d: xp.fft.rfftfreq(6, device=d),
}


def test_every_creation_function_has_a_case():
    assert set(MADE) == CREATION


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", MADE)
def test_creation_functions_make_arrays_on_the_memory_kind(fake, name, kind):
    device = xp.Device(kind, 0)
    result = MADE[name](device)
    assert result.device == device
    np.testing.assert_array_equal(to_numpy(result), to_numpy(MADE[name](None)))


@pytest.mark.parametrize("kind", KINDS)
def test_functions_without_array_results_take_managed_and_pinned_arrays(fake, kind):
    a = xp.asarray(F, device=kind)
    i = xp.asarray(INTS, device=kind)
    assert xp.result_type(a, xp.float32) == xp.float64
    assert xp.can_cast(i, xp.int64) and not xp.can_cast(a, xp.int64)
    assert xp.finfo(a).bits == 64 and xp.iinfo(i).bits == 32
    assert xp.isdtype(a.dtype, "real floating")
    assert xp.broadcast_shapes(a.shape, (1, 4)) == (3, 4)
    assert xp.Device(kind, 0) in xp.__array_namespace_info__().devices()
    assert float(a[0, 0]) == F[0, 0] and int(i[1, 1]) == 9 and bool(i[0, 0])


@pytest.mark.parametrize("kind", KINDS)
def test_extended_dtypes_stay_on_the_kind(fake, kind):
    # NumPy holds bfloat16 as an ml_dtypes type; results come back relabelled.
    a = xp.asarray(np.array([1.0, 2.5, -3.0]), dtype=xp.bfloat16).to_device(kind)
    for result in (xp.stack([a, a]), xp.take(a, _index([2, 0])(a)), xp.flip(a)):
        assert (result.device, result.dtype) == (a.device, xp.bfloat16)
    on_cpu = xp.astype(xp.flip(a).to_device("cpu"), xp.float32)
    assert np.from_dlpack(on_cpu).tolist() == [-3.0, 2.5, 1.0]


# ---- the mechanism: host views and their namespace ----


@pytest.mark.parametrize("kind", KINDS)
def test_the_engine_view_is_a_host_view_of_the_memory(fake, kind):
    x = xp.asarray(F, device=kind)
    view = routing.engine_view(x)
    assert isinstance(view, HostView) and isinstance(view, np.ndarray)
    assert type(view).dlarray_device == x.device
    assert view.ctypes.data == x._data  # zero-copy
    assert view.device == "cpu"  # what NumPy's device= takes
    assert view.device.view_type is type(view)

    # An ndarray subclass is NumPy's by its MRO; the host views name their
    # own engine module, so they get the namespace that labels results.
    class Sub(np.ndarray):
        pass

    assert routing.namespace_of(np.zeros(2).view(Sub)) is namespaces.engine_namespace("numpy")
    xp_view = routing.namespace_of(view)
    assert xp_view is host_view_engine.namespace()
    assert xp_view._base is namespaces.engine_namespace("numpy")  # NumPy's fixes included


@pytest.fixture
def view(fake):
    return routing.engine_view(xp.asarray(F, device="cuda_managed"))


def _labelled(result):
    return all(
        isinstance(r, host_view_engine.VIEW_TYPES[13])
        for r in (result if isinstance(result, tuple) else (result,))
    )


# Where NumPy drops an ndarray subclass (or returns a scalar), found by
# calling each with a plain subclass; each must still come back labelled.
DROPPED = {
    "nonzero": lambda xp_, a: xp_.nonzero(a),
    "unique_all": lambda xp_, a: xp_.unique_all(a),
    "linalg.svdvals": lambda xp_, a: xp_.linalg.svdvals(a),
    "searchsorted": lambda xp_, a: xp_.searchsorted(a[0], a[1]),
    "argmax": lambda xp_, a: xp_.argmax(a),
    "fft.fft": lambda xp_, a: xp_.fft.fft(a),
    "where": lambda xp_, a: xp_.where(a > 1, a, 0.0),
    "isin": lambda xp_, a: xp_.isin(a, a[0]),
    "linalg.eigh": lambda xp_, a: xp_.linalg.eigh(a[:, :3] @ a[:, :3].T),
    "linalg.vector_norm": lambda xp_, a: xp_.linalg.vector_norm(a),
    "linalg.det": lambda xp_, a: xp_.linalg.det(a[:, :3]),
    "concat": lambda xp_, a: xp_.concat([a, a]),
    "tril": lambda xp_, a: xp_.tril(a),
    "tensordot": lambda xp_, a: xp_.tensordot(a, a, axes=([1], [1])),
    "astype": lambda xp_, a: xp_.astype(a, xp_.float32),
    "integer index": lambda xp_, a: a[0, 1],
    "sum with an out= buffer": lambda xp_, a: np.add.reduce(a, axis=None, out=np.empty(())),
}


@pytest.mark.parametrize("case", DROPPED)
def test_results_where_numpy_drops_the_subclass_are_labelled_by_numpy(view, case):
    assert _labelled(DROPPED[case](np, view))  # NumPy's functions: __array_function__


@pytest.mark.parametrize("case", DROPPED)
def test_results_where_numpy_drops_the_subclass_are_labelled_by_the_namespace(view, case):
    assert _labelled(DROPPED[case](routing.namespace_of(view), view))


def test_asarray_of_a_host_view_is_labelled(view):
    # NumPy's asarray is not dispatched (it returns a plain ndarray); the
    # namespace's labels the result as its argument.
    xp_view = routing.namespace_of(view)
    same = xp_view.asarray(view)
    assert _labelled(same) and same.ctypes.data == view.ctypes.data
    assert _labelled(xp_view.asarray(view, copy=True, dtype=xp_view.float32))


def test_new_arrays_named_by_the_views_device_are_labelled(view):
    xp_view = routing.namespace_of(view)
    for made in (
        xp_view.asarray(1.5, device=view.device),
        xp_view.zeros((2,), device=view.device),
        xp_view.full((2,), 7, device=view.device),
        xp_view.arange(3, device=view.device),
        xp_view.linspace(0, 1, 3, device=view.device),
        xp_view.eye(2, device=view.device),
        xp_view.fft.fftfreq(4, device=view.device),
    ):
        assert _labelled(made)
    assert type(xp_view.zeros(2)) is np.ndarray  # no host view, no label


def test_a_view_of_the_inputs_memory_is_adopted_without_a_copy(fake, view):
    x = xp.asarray(F, device="cuda_managed")
    fake.calls.clear()
    part = routing.wrap(routing.engine_view(x)[1:, ::2])
    assert fake.calls == [("stream_synchronize", 1)]  # the host waited; no allocation, no copy
    assert part.device == x.device
    assert part._data + part._byte_offset == x._data + 4 * 8
    part[0, 0] = 100.0  # the same memory
    assert float(x[1, 0]) == 100.0


def test_a_new_result_is_copied_into_new_memory_of_the_kind(fake, view):
    fake.calls.clear()
    result = routing.wrap(np.sin(view))
    assert fake.names() == ["malloc_managed"]  # new managed memory, filled by the host
    assert result.device == xp.Device("cuda_managed")
    assert result._data in fake.live
    np.testing.assert_array_equal(to_numpy(result), np.sin(F))


def test_memory_kinds_are_not_mixed(fake):
    a = xp.asarray(F, device="cuda_managed")
    with pytest.raises(ValueError, match="device"):
        a + xp.asarray(F, device="cuda_host")
    with pytest.raises(ValueError, match="device"):
        a + xp.asarray(F)


@pytest.mark.parametrize("device_type", [3, 13])
def test_imported_managed_and_pinned_memory_computes_in_place(fake, device_type):
    payload = np.arange(4.0).tobytes()
    producer = abi.Producer(device=(device_type, 0), dtype=(2, 64, 1), payload=payload)
    x = xp.from_dlpack(producer)
    assert float(xp.sum(x).to_device("cpu")) == 6.0
    x[1] = 10.0  # written through the host view, into the producer's memory
    assert np.frombuffer(bytes(producer.buffer)[8:16]).tolist() == [10.0]
    assert xp.sin(x).device == x.device
