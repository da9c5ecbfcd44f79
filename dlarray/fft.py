"""The Array API's ``fft`` extension (standard revision 2025.12).

Discrete Fourier transforms computed by the engine's own ``fft``
extension (``namespace_of(a).fft``: NumPy's pocketfft on the host, CuPy's
cuFFT on CUDA memory, ...), with the standard's dtype rules on top: a
transform keeps its input's precision (``complex64`` in, ``complex64``
out; ``float32`` in, ``complex64`` out for ``rfft``), whatever precision
the engine computed in.  Complex transforms (``fft``, ``ifft``, ``fftn``,
``ifftn``, ``irfft``, ``irfftn``, ``hfft``) take complex input and real
ones (``rfft``, ``rfftn``, ``ihfft``) real floating input; anything else is
a ``TypeError``.

``norm`` is ``"backward"`` (scale the inverse by ``1/n``), ``"ortho"``
(scale both by ``1/sqrt(n)``) or ``"forward"`` (scale the forward
transform by ``1/n``).

Examples
--------
>>> import dlarray as xp
>>> xp.fft.fft(xp.asarray([1, 1, 1, 1], dtype=xp.complex64))
dlarray.asarray([(4+0j), 0j, 0j, 0j], dtype=dlarray.complex64)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from dlarray._api._linalg_helpers import array_arg, as_dtype, compute, int_arg
from dlarray._core import ArrayBase
from dlarray._creation import empty
from dlarray._device import Device
from dlarray._dtypes import DType, dtype_argument
from dlarray._engine.routing import call, engine_view, namespace_of
from dlarray._rules import CATEGORIES, COMPLEX_OF, DEFAULT_DTYPES, REAL_OF, normalize_axis

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]

Norm = Literal["backward", "ortho", "forward"]
_NORMS = ("backward", "ortho", "forward")

# What each transform takes and gives: its input category and its result
# dtype as a function of the input dtype.
_SAME: Callable[[DType], DType] = lambda d: d  # noqa: E731
_TO_REAL: Callable[[DType], DType] = REAL_OF.__getitem__
_TO_COMPLEX: Callable[[DType], DType] = COMPLEX_OF.__getitem__
_F = TypeVar("_F", bound=Callable[..., ArrayBase])

# Each transform names its function in the engine's fft extension, looked
# up on the input's engine (namespace_of(a).fft.<name>) at each call.


# The transforms of one family raise the same errors: one Raises section per
# family, written once here and put into each docstring at its {raises}.
_ONE_AXIS_ERRORS = """Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not {kind} floating, or ``n`` is not
        an int.
    ValueError
        If ``x`` is 0-d, ``n`` is below 1, ``axis`` is out of range (also an
        ``IndexError``), or ``norm`` is not ``'backward'``, ``'ortho'`` or
        ``'forward'``."""
_MANY_AXES_ERRORS = """Raises
    ------
    TypeError
        If ``x`` is not a DLArray, its dtype is not {kind} floating, or a size in
        ``s`` is not an int.
    ValueError
        If there is no axis to transform, ``s`` is given without ``axes`` or
        with another length, a size is below 1, ``axes`` repeats an axis or
        one is out of range (also an ``IndexError``), or ``norm`` is not
        ``'backward'``, ``'ortho'`` or ``'forward'``."""


def _shares_errors(errors: str, kind: str) -> Callable[[_F], _F]:
    def document(func: _F) -> _F:
        func.__doc__ = (func.__doc__ or "").replace("{raises}", errors.format(kind=kind))
        return func

    return document


def _check_norm(norm: Any, func: str) -> str:
    if norm not in _NORMS:
        raise ValueError(f"{func}: norm must be 'backward', 'ortho' or 'forward', got {norm!r}")
    return str(norm)


def _check_size(n: Any, func: str, name: str) -> int:
    size = int_arg(n, func, name)
    if size < 1:
        raise ValueError(f"{func}: {name} must be at least 1, got {size}")
    return size


def _one_axis(
    func: str,
    category: str,
    out_dtype: Callable[[DType], DType],
    x: ArrayBase,
    n: int | None,
    axis: int,
    norm: str,
    *,
    default_n: Callable[[int], int] | None = None,
) -> ArrayBase:
    """Run a 1-d transform after checking its arguments.

    ``default_n`` maps the input length along ``axis`` to the transform
    length when ``n`` is None (``irfft`` and ``hfft`` produce ``2*(m-1)``
    points by default; the engine's own default is used otherwise).
    """
    a = array_arg(x, category, func)
    if a.ndim == 0:
        raise ValueError(f"{func}: x must have at least one axis")
    ax = normalize_axis(axis, a.ndim, func)
    norm = _check_norm(norm, func)
    if n is None:
        if default_n is not None:
            n = _check_size(default_n(a.shape[ax]), func, "the output length")
    else:
        n = _check_size(n, func, "n")
    kernel = getattr(namespace_of(a).fft, func)
    return as_dtype(compute(func, kernel, a, n=n, axis=ax, norm=norm), out_dtype(x.dtype))


@_shares_errors(_ONE_AXIS_ERRORS, "complex")
def fft(
    x: ArrayBase, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward"
) -> ArrayBase:
    """The 1-d discrete Fourier transform of complex ``x`` along ``axis``.

    ``n`` trims or zero-pads the input to ``n`` points first.  The result
    has ``x``'s dtype.

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.fft(xp.asarray([1, 0, 0, 0], dtype=xp.complex128))
    dlarray.asarray([(1+0j), (1+0j), (1+0j), (1+0j)], dtype=dlarray.complex128)
    """
    return _one_axis("fft", "complex floating", _SAME, x, n, axis, norm)


@_shares_errors(_ONE_AXIS_ERRORS, "complex")
def ifft(
    x: ArrayBase, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward"
) -> ArrayBase:
    """The 1-d inverse discrete Fourier transform of complex ``x``.

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.ifft(xp.asarray([4, 0, 0, 0], dtype=xp.complex128))
    dlarray.asarray([(1+0j), (1+0j), (1+0j), (1+0j)], dtype=dlarray.complex128)
    """
    return _one_axis("ifft", "complex floating", _SAME, x, n, axis, norm)


@_shares_errors(_ONE_AXIS_ERRORS, "real")
def rfft(
    x: ArrayBase, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward"
) -> ArrayBase:
    """The 1-d discrete Fourier transform of real ``x``: the ``n//2 + 1``
    non-negative frequency terms, complex of ``x``'s precision.

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.rfft(xp.asarray([1.0, 1.0, 1.0, 1.0]))
    dlarray.asarray([(4+0j), 0j, 0j], dtype=dlarray.complex128)
    """
    return _one_axis("rfft", "real floating", _TO_COMPLEX, x, n, axis, norm)


@_shares_errors(_ONE_AXIS_ERRORS, "complex")
def irfft(
    x: ArrayBase, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward"
) -> ArrayBase:
    """The inverse of :func:`rfft`: ``n`` real points (``2*(m-1)`` by default,
    for ``m`` input points) of ``x``'s precision.

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.irfft(xp.asarray([4, 0, 0], dtype=xp.complex128))
    dlarray.asarray([1.0, 1.0, 1.0, 1.0], dtype=dlarray.float64)
    """
    return _one_axis(
        "irfft",
        "complex floating",
        _TO_REAL,
        x,
        n,
        axis,
        norm,
        default_n=lambda m: 2 * (m - 1),
    )


@_shares_errors(_ONE_AXIS_ERRORS, "complex")
def hfft(
    x: ArrayBase, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward"
) -> ArrayBase:
    """The transform of a signal with Hermitian symmetry, given by its first
    half ``x``: ``n`` real points (``2*(m-1)`` by default).

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.hfft(xp.asarray([1, 0, 0], dtype=xp.complex128))
    dlarray.asarray([1.0, 1.0, 1.0, 1.0], dtype=dlarray.float64)
    """
    return _one_axis(
        "hfft",
        "complex floating",
        _TO_REAL,
        x,
        n,
        axis,
        norm,
        default_n=lambda m: 2 * (m - 1),
    )


@_shares_errors(_ONE_AXIS_ERRORS, "real")
def ihfft(
    x: ArrayBase, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward"
) -> ArrayBase:
    """The inverse of :func:`hfft` for real ``x``: ``n//2 + 1`` complex points
    of ``x``'s precision.

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> y = xp.fft.ihfft(xp.asarray([1.0, 1.0, 1.0, 1.0], dtype=xp.float32))
    >>> y.shape, y.dtype
    ((3,), dlarray.complex64)
    """
    return _one_axis("ihfft", "real floating", _TO_COMPLEX, x, n, axis, norm)


def _sizes_and_axes(
    func: str, shape: tuple[int, ...], s: Any, axes: Any, *, last_half: bool = False
) -> tuple[list[int], list[int]]:
    """fftn's ``s`` and ``axes`` as explicit lists.

    ``axes=None`` means every axis; ``s=None`` (or an entry ``-1``) means the
    input's size along that axis, except that with ``last_half`` (the
    inverse real transforms) the last axis defaults to ``2*(m-1)`` points.
    ``s`` needs ``axes``, as the standard says.  Repeated axes (which the
    standard leaves to the implementation) are refused.
    """
    ndim = len(shape)
    if axes is None:
        if s is not None:
            raise ValueError(f"{func}: when s is given, axes must be given too")
        ax = list(range(ndim))
    else:
        if not isinstance(axes, Sequence):
            raise TypeError(f"{func}: axes must be a sequence of ints or None, got {axes!r}")
        ax = [normalize_axis(a, ndim, func) for a in axes]
        if len(set(ax)) != len(ax):
            raise ValueError(f"{func}: axes {axes!r} repeat an axis")
    if not ax:
        raise ValueError(f"{func}: at least one axis to transform is needed")
    if s is None:
        sizes = [-1] * len(ax)
    else:
        if not isinstance(s, Sequence):
            raise TypeError(f"{func}: s must be a sequence of ints or None, got {s!r}")
        sizes = [int_arg(v, func, "s") for v in s]
        if len(sizes) != len(ax):
            raise ValueError(f"{func}: s and axes must have the same length, got {s!r}, {axes!r}")
    for i, (size, a) in enumerate(zip(sizes, ax, strict=True)):
        if size == -1:
            m = shape[a]
            sizes[i] = 2 * (m - 1) if last_half and i == len(ax) - 1 else m
        if sizes[i] < 1:
            raise ValueError(f"{func}: transform sizes must be at least 1, got {sizes[i]}")
    return sizes, ax


def _many_axes(
    func: str,
    category: str,
    out_dtype: Callable[[DType], DType],
    x: ArrayBase,
    s: Any,
    axes: Any,
    norm: str,
    *,
    last_half: bool = False,
) -> ArrayBase:
    a = array_arg(x, category, func)
    sizes, ax = _sizes_and_axes(func, a.shape, s, axes, last_half=last_half)
    norm = _check_norm(norm, func)
    kernel = getattr(namespace_of(a).fft, func)
    return as_dtype(compute(func, kernel, a, s=sizes, axes=ax, norm=norm), out_dtype(x.dtype))


@_shares_errors(_MANY_AXES_ERRORS, "complex")
def fftn(
    x: ArrayBase,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> ArrayBase:
    """The n-d discrete Fourier transform of complex ``x`` over ``axes``
    (all by default), trimmed or zero-padded to sizes ``s``.

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.fftn(xp.asarray([[1, 1], [1, 1]], dtype=xp.complex128))
    dlarray.asarray([[(4+0j), 0j], [0j, 0j]], dtype=dlarray.complex128)
    """
    return _many_axes("fftn", "complex floating", _SAME, x, s, axes, norm)


@_shares_errors(_MANY_AXES_ERRORS, "complex")
def ifftn(
    x: ArrayBase,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> ArrayBase:
    """The n-d inverse discrete Fourier transform of complex ``x``.

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.ifftn(xp.asarray([[4, 0], [0, 0]], dtype=xp.complex128))
    dlarray.asarray([[(1+0j), (1+0j)], [(1+0j), (1+0j)]], dtype=dlarray.complex128)
    """
    return _many_axes("ifftn", "complex floating", _SAME, x, s, axes, norm)


@_shares_errors(_MANY_AXES_ERRORS, "real")
def rfftn(
    x: ArrayBase,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> ArrayBase:
    """The n-d discrete Fourier transform of real ``x``; the last transformed
    axis keeps its ``s[-1]//2 + 1`` non-negative frequencies.

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.rfftn(xp.asarray([[1.0, 1.0], [1.0, 1.0]]))
    dlarray.asarray([[(4+0j), 0j], [0j, 0j]], dtype=dlarray.complex128)
    """
    return _many_axes("rfftn", "real floating", _TO_COMPLEX, x, s, axes, norm)


@_shares_errors(_MANY_AXES_ERRORS, "complex")
def irfftn(
    x: ArrayBase,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> ArrayBase:
    """The inverse of :func:`rfftn`: real output of sizes ``s`` (the last
    transformed axis has ``2*(m-1)`` points by default).

    {raises}

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.irfftn(xp.asarray([[4, 0], [0, 0]], dtype=xp.complex128))
    dlarray.asarray([[1.0, 1.0], [1.0, 1.0]], dtype=dlarray.float64)
    """
    return _many_axes("irfftn", "complex floating", _TO_REAL, x, s, axes, norm, last_half=True)


def _frequencies(func: str, n: Any, d: Any, dtype: Any, device: Device | None) -> ArrayBase:
    size = _check_size(n, func, "n")
    if isinstance(d, bool) or not isinstance(d, (int, float)):
        raise TypeError(f"{func}: d must be a float, got {d!r}")
    if d == 0:
        raise ValueError(f"{func}: the sample spacing d must not be zero")
    if dtype is None:
        dtype = DEFAULT_DTYPES["real floating"]
    elif (wanted := dtype_argument(dtype)) is None or wanted not in CATEGORIES["real floating"]:
        raise TypeError(f"{func}: dtype must be a real floating dlarray dtype, got {dtype!r}")
    else:
        dtype = wanted
    # The engine that computes on `device` makes the frequencies there: an
    # empty array on that device names the engine and its device.  They are
    # computed in float64 and rounded once to `dtype`.
    like = engine_view(empty((0,), device=device))
    kernel = getattr(namespace_of(like).fft, func)
    return as_dtype(call(kernel, size, d=float(d), device=like.device), dtype)


def fftfreq(
    n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: Device | None = None
) -> ArrayBase:
    """The sample frequencies of an ``n``-point transform with sample spacing
    ``d``: ``[0, 1, ..., -1] / (d*n)`` in :func:`fft`'s order.

    Raises
    ------
    TypeError
        If ``n`` is not an int, ``d`` is not a float, ``dtype`` is not a real
        floating dlarray dtype, or ``device`` is not a device.
    ValueError
        If ``n`` is below 1, ``d`` is zero, or ``device`` names an unknown kind.
    BufferError
        If memory cannot be allocated on ``device``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.fftfreq(4, d=0.5)
    dlarray.asarray([0.0, 0.5, -1.0, -0.5], dtype=dlarray.float64)
    """
    return _frequencies("fftfreq", n, d, dtype, device)


def rfftfreq(
    n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: Device | None = None
) -> ArrayBase:
    """The ``n//2 + 1`` non-negative sample frequencies of :func:`rfft`.

    Raises
    ------
    TypeError
        If ``n`` is not an int, ``d`` is not a float, ``dtype`` is not a real
        floating dlarray dtype, or ``device`` is not a device.
    ValueError
        If ``n`` is below 1, ``d`` is zero, or ``device`` names an unknown kind.
    BufferError
        If memory cannot be allocated on ``device``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.rfftfreq(4, d=0.5, dtype=xp.float32)
    dlarray.asarray([0.0, 0.5, 1.0], dtype=dlarray.float32)
    """
    return _frequencies("rfftfreq", n, d, dtype, device)


def _shift_axes(x: ArrayBase, axes: Any, func: str) -> Any:
    a = array_arg(x, "all", func)
    if axes is None:
        return a, tuple(range(a.ndim))
    items = axes if isinstance(axes, Sequence) else (axes,)
    return a, tuple(normalize_axis(i, a.ndim, func) for i in items)


def fftshift(x: ArrayBase, /, *, axes: int | Sequence[int] | None = None) -> ArrayBase:
    """Move the zero-frequency term to the middle of each axis in ``axes``
    (all by default), as a new array.

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``axes`` is not None, an int or a
        sequence of ints.
    ValueError
        If an axis is out of range (also an ``IndexError``).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.fftshift(xp.fft.fftfreq(4))
    dlarray.asarray([-0.5, -0.25, 0.0, 0.25], dtype=dlarray.float64)
    """
    a, ax = _shift_axes(x, axes, "fftshift")
    return call(namespace_of(a).fft.fftshift, a, axes=ax)


def ifftshift(x: ArrayBase, /, *, axes: int | Sequence[int] | None = None) -> ArrayBase:
    """The inverse of :func:`fftshift` (they differ for odd lengths).

    Raises
    ------
    TypeError
        If ``x`` is not a DLArray, or ``axes`` is not None, an int or a
        sequence of ints.
    ValueError
        If an axis is out of range (also an ``IndexError``).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.ifftshift(xp.asarray([-0.5, -0.25, 0.0, 0.25]))
    dlarray.asarray([0.0, 0.25, -0.5, -0.25], dtype=dlarray.float64)
    """
    a, ax = _shift_axes(x, axes, "ifftshift")
    return call(namespace_of(a).fft.ifftshift, a, axes=ax)
