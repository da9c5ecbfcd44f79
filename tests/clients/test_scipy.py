"""SciPy with ``SCIPY_ARRAY_API=1`` (set by conftest.py before SciPy is
imported): special, stats, fft, signal, ndimage and integrate.

Most calls are of functions SciPy lists as supporting the standard (its
``xp_capabilities`` table); SciPy computes some of them ("cpu_only") by
converting to NumPy with ``np.asarray`` and back with ``xp.asarray``, so they
test that round trip.  The ``FALLBACKS`` are functions SciPy does not list:
they convert with ``np.asarray`` and answer in NumPy arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .client_calls import EXTENSIONS, SPEC, Call, Deviation, call, check, import_client, parametrize

scipy = import_client("scipy", "scipy")
from scipy import fft, integrate, ndimage, signal, special, stats  # noqa: E402

rng = np.random.default_rng(18)
V = rng.normal(size=24)
W = rng.normal(loc=0.4, size=24)
POSITIVE = rng.gamma(2.0, size=24)
P = rng.uniform(0.05, 0.95, size=24)
Q = rng.uniform(0.05, 0.95, size=24)
M = rng.normal(size=(4, 12))
COUNTS = rng.integers(1, 6, size=24).astype(np.float64)
MODES = np.array([1, 3, 3, 2, 5, 3, 1, 2, 2, 3], dtype=np.int64)
IMAGE = rng.normal(size=(16, 16))
BLOBS = ndimage.gaussian_filter(rng.normal(size=(16, 16)), 1.5) > 0.1
SIGNAL = np.sin(np.linspace(0, 12, 64)) + 0.1 * rng.normal(size=64)
KERNEL = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
B, A = np.array([0.0675, 0.1349, 0.0675]), np.array([1.0, -1.143, 0.4128])
SOS = np.array([[0.0675, 0.1349, 0.0675, 1.0, -1.143, 0.4128]])
SPECTRUM = np.fft.fft(M)
ANGLES = rng.uniform(0, 2 * np.pi, size=24)

# Consumer deviations: SciPy itself steps outside the standard.
_S_WITHOUT_AXES = (
    "scipy 1.17.1: scipy.fft's n-D transforms pass s on to xp.fft with axes=None; the "
    "standard says 'If s is not None, axes must not be None' "
    f"({EXTENSIONS}/generated/array_api.fft.fftn.html); array API route from "
    "https://github.com/scipy/scipy/pull/19005"
)
S_WITHOUT_AXES = (
    # dlarray refuses such a call with a ValueError that says so ...
    Deviation(ValueError, _S_WITHOUT_AXES, backends=("dlarray",)),
    # ... array-api-strict hands it to NumPy, whose DeprecationWarning the
    # project's filterwarnings=error turns into an exception.
    Deviation(DeprecationWarning, _S_WITHOUT_AXES, backends=("array_api_strict",)),
)
ARRAY_FILL_VALUE = Deviation(
    TypeError,
    "scipy 1.17.1: the elementwise iterative methods (tanhsinh, nsum...) call "
    "xp.full(n, xp.asarray(...)); the standard's fill_value is a Python scalar "
    f"({SPEC}/generated/array_api.full.html); array API route from "
    "https://github.com/scipy/scipy/pull/21216",
)
# dlarray answers NumPy's functions on its arrays with dlarray arrays (NEP 18,
# issue 35), and distance_transform_edt calls an ndarray method on one.
NDARRAY_METHOD_ON_NUMPY_RESULT = Deviation(
    AttributeError,
    "scipy 1.17.1: distance_transform_edt calls np.where(input, 1, 0).astype(np.int8) on the "
    "array it is given (scipy/ndimage/_morphology.py:2568); NumPy hands np.where on a dlarray "
    "array to dlarray (NEP 18), whose result, a dlarray array, has no ndarray method astype "
    "(the standard's is xp.astype)",
    backends=("dlarray",),
)


SPECIAL: list[Call] = [
    *(
        call(f.__name__, f, x)
        for f, x in [
            (special.erf, V), (special.erfc, V), (special.erfinv, 2 * P - 1),
            (special.expit, V), (special.logit, P), (special.gammaln, POSITIVE),
            (special.gamma, POSITIVE), (special.psi, POSITIVE), (special.i0, V),
            (special.i0e, V), (special.i1, V), (special.j0, V), (special.ndtr, V),
            (special.ndtri, P), (special.log_ndtr, V), (special.entr, P),
            (special.cbrt, V), (special.exp10, V), (special.spence, POSITIVE),
        ]
    ),
    call("xlogy", special.xlogy, P, POSITIVE),
    call("xlog1py", special.xlog1py, P, POSITIVE),
    call("rel_entr", special.rel_entr, P, Q),
    call("kl_div", special.kl_div, P, Q),
    call("betainc", special.betainc, POSITIVE, POSITIVE[::-1], P),
    call("gammainc", special.gammainc, POSITIVE, POSITIVE[::-1]),
    call("gammaincc", special.gammaincc, POSITIVE, POSITIVE[::-1]),
    call("zeta", special.zeta, POSITIVE + 1.5),
    call("boxcox", special.boxcox, POSITIVE, 0.5),
    call("logsumexp", special.logsumexp, V),
    call("logsumexp-axis", special.logsumexp, M, axis=1),
    call("logsumexp-b", lambda a, b: special.logsumexp(a, b=b), V, P),
    call("logsumexp-sign", lambda a, b: special.logsumexp(a, b=b, return_sign=True), V, V),
    call("softmax", special.softmax, M, axis=1),
    call("log_softmax", special.log_softmax, V),
]

STATS: list[Call] = [
    *(
        call(f.__name__, f, x)
        for f, x in [
            (stats.gmean, POSITIVE), (stats.hmean, POSITIVE), (stats.tmean, V),
            (stats.tvar, V), (stats.tstd, V), (stats.tmin, V), (stats.tmax, V),
            (stats.tsem, V), (stats.skew, V), (stats.kurtosis, V), (stats.sem, V),
            (stats.zscore, V), (stats.gstd, POSITIVE), (stats.iqr, V),
            (stats.median_abs_deviation, V), (stats.variation, POSITIVE),
            (stats.entropy, P), (stats.differential_entropy, V), (stats.rankdata, COUNTS),
            (stats.skewtest, V), (stats.normaltest, V), (stats.jarque_bera, V),
            (stats.chisquare, COUNTS), (stats.circmean, ANGLES), (stats.circvar, ANGLES),
            (stats.false_discovery_control, P), (stats.kstat, V), (stats.mode, MODES),
            (stats.describe, V), (stats.wilcoxon, V),
            (stats.combine_pvalues, P),
        ]
    ),
    call("pmean", stats.pmean, POSITIVE, 2.5),
    call("tmean-limits", stats.tmean, V, (-1.0, 1.0)),
    call("moment", stats.moment, M, order=3, axis=1),
    call("skew-axis0", stats.skew, M, axis=0, bias=False),
    call("zmap", stats.zmap, W, V),
    call("trim_mean", stats.trim_mean, V, 0.1),
    call("entropy-relative", stats.entropy, P, Q),
    call("quantile", stats.quantile, V, np.array([0.1, 0.5, 0.9])),
    call("pearsonr", stats.pearsonr, V, W),
    call("ttest_1samp", stats.ttest_1samp, V, 0.2),
    call("ttest_ind", stats.ttest_ind, V, W),
    call("ttest_rel", stats.ttest_rel, V, W),
    call("f_oneway", stats.f_oneway, V, W, P),
    call("kruskal", stats.kruskal, V, W),
    call("mannwhitneyu", stats.mannwhitneyu, V, W),
    call("bartlett", stats.bartlett, V, W),
    call("levene", stats.levene, V, W),
]

# Functions SciPy 1.17 does not list as supporting the standard: they turn
# their input into NumPy arrays with np.asarray, so they need __array__ (or
# the buffer protocol) from the array, and return NumPy results.
FALLBACKS: list[Call] = [
    call("scoreatpercentile", stats.scoreatpercentile, np.arange(10.0), 30, call_native=False),
    call("percentileofscore", stats.percentileofscore, V, 0.3, call_native=False),
    call("spearmanr", stats.spearmanr, np.arange(10.0), np.arange(10.0) ** 2,
         call_native=False),
    call("kendalltau", stats.kendalltau, V, W, call_native=False),
    call("linregress", stats.linregress, V, W, call_native=False),
    call("simpson", integrate.simpson, SIGNAL, call_native=False),
    call("find_peaks", lambda x: signal.find_peaks(x)[0], SIGNAL, call_native=False),
]

FFT: list[Call] = [
    call("fft", fft.fft, SIGNAL),
    call("fft-n", fft.fft, SIGNAL, n=80),
    call("ifft", fft.ifft, SPECTRUM[0]),
    call("rfft", fft.rfft, SIGNAL),
    call("irfft", fft.irfft, fft.rfft(SIGNAL)),
    call("hfft", fft.hfft, SPECTRUM[0, :7]),
    call("ihfft", fft.ihfft, SIGNAL),
    call("fft2", fft.fft2, IMAGE),
    call("fftn-axes", fft.fftn, IMAGE, axes=(0,)),
    call("fftn-s-axes", fft.fftn, IMAGE, s=(8, 8), axes=(0, 1)),
    call("fftn-s", fft.fftn, IMAGE, s=(8, 8), call_deviations=S_WITHOUT_AXES),
    call("ifftn", fft.ifftn, SPECTRUM, norm="ortho"),
    call("rfftn", fft.rfftn, IMAGE),
    call("irfftn", fft.irfftn, fft.rfftn(IMAGE), axes=(0, 1)),
    call("irfftn-s", fft.irfftn, fft.rfftn(IMAGE), s=IMAGE.shape, call_deviations=S_WITHOUT_AXES),
    call("fftshift", fft.fftshift, SIGNAL),
    call("ifftshift", fft.ifftshift, M, axes=1),
    Call("fftfreq", lambda xp: fft.fftfreq(16, 0.1, xp=xp)),
    Call("rfftfreq", lambda xp: fft.rfftfreq(16, 0.1, xp=xp)),
    call("dct", fft.dct, SIGNAL),
    call("idct", fft.idct, SIGNAL, type=3),
    call("dst", fft.dst, SIGNAL, norm="ortho"),
    call("dctn", fft.dctn, IMAGE),
    call("fht", fft.fht, POSITIVE, 0.1, 0.5),
]

SIGNAL_CALLS: list[Call] = [
    call("convolve", signal.convolve, SIGNAL, KERNEL),
    call("convolve-same", signal.convolve, SIGNAL, KERNEL, mode="same"),
    call("correlate", signal.correlate, SIGNAL, KERNEL, mode="valid"),
    call("fftconvolve", signal.fftconvolve, SIGNAL, KERNEL),
    call("oaconvolve", signal.oaconvolve, SIGNAL, KERNEL),
    call("convolve2d", signal.convolve2d, IMAGE, np.outer(KERNEL, KERNEL), mode="same"),
    call("correlate2d", signal.correlate2d, IMAGE, np.outer(KERNEL, KERNEL)),
    call("lfilter", signal.lfilter, B, A, SIGNAL),
    call("filtfilt", signal.filtfilt, B, A, SIGNAL),
    call("sosfilt", signal.sosfilt, SOS, SIGNAL),
    call("lfilter_zi", signal.lfilter_zi, B, A),
    call("detrend", signal.detrend, SIGNAL),
    call("detrend-constant", signal.detrend, M, type="constant"),
    call("savgol_filter", signal.savgol_filter, SIGNAL, 7, 2),
    call("hilbert", signal.hilbert, SIGNAL),
    call("medfilt", signal.medfilt, SIGNAL, 5),
    call("resample", signal.resample, SIGNAL, 40),
    call("resample_poly", signal.resample_poly, SIGNAL, 3, 2),
    call("upfirdn", signal.upfirdn, KERNEL, SIGNAL, 2, 3),
    Call("windows.hann", lambda xp: signal.windows.hann(16, xp=xp)),
    Call("windows.kaiser", lambda xp: signal.windows.kaiser(16, 4.0, xp=xp)),
    Call("get_window", lambda xp: signal.get_window("hamming", 16, xp=xp)),
]

NDIMAGE: list[Call] = [
    call("gaussian_filter", ndimage.gaussian_filter, IMAGE, 1.5),
    call("gaussian_filter1d", ndimage.gaussian_filter1d, SIGNAL, 2.0),
    call("uniform_filter", ndimage.uniform_filter, IMAGE, 3),
    call("median_filter", ndimage.median_filter, IMAGE, 3),
    call("maximum_filter", ndimage.maximum_filter, IMAGE, 3),
    call("minimum_filter1d", ndimage.minimum_filter1d, SIGNAL, 4),
    call("sobel", ndimage.sobel, IMAGE, axis=0),
    call("laplace", ndimage.laplace, IMAGE),
    call("prewitt", ndimage.prewitt, IMAGE),
    call("convolve", ndimage.convolve, IMAGE, np.outer(KERNEL, KERNEL)),
    call("correlate1d", ndimage.correlate1d, IMAGE, KERNEL, axis=1),
    call("zoom", ndimage.zoom, IMAGE, 1.5, order=1),
    call("shift", ndimage.shift, IMAGE, (1.5, -2.0), order=1),
    call("rotate", ndimage.rotate, IMAGE, 30, reshape=False, order=1),
    call("affine_transform", ndimage.affine_transform, IMAGE, np.array([[1.0, 0.2], [0, 0.9]]),
         order=1),
    call("map_coordinates", ndimage.map_coordinates, IMAGE, np.array([[1.5, 3.2], [0.5, 7.7]]),
         order=1),
    call("label", ndimage.label, BLOBS),
    call("sum_labels", ndimage.sum_labels, IMAGE, ndimage.label(BLOBS)[0]),
    call("mean-labels", ndimage.mean, IMAGE, ndimage.label(BLOBS)[0], np.array([1, 2])),
    call("center_of_mass", ndimage.center_of_mass, np.abs(IMAGE)),
    call("binary_erosion", ndimage.binary_erosion, BLOBS),
    call("binary_dilation", ndimage.binary_dilation, BLOBS, iterations=2),
    call("binary_fill_holes", ndimage.binary_fill_holes, BLOBS),
    call("distance_transform_edt", ndimage.distance_transform_edt, BLOBS,
         call_deviations=(NDARRAY_METHOD_ON_NUMPY_RESULT,)),
    call("grey_opening", ndimage.grey_opening, IMAGE, size=(3, 3)),
    call("fourier_gaussian", ndimage.fourier_gaussian, np.fft.fft2(IMAGE), 2.0),
]


def _tanhsinh(xp: Any, upper: Any) -> Any:
    return integrate.tanhsinh(xp.exp, 0.0, upper).integral


INTEGRATE: list[Call] = [
    call("trapezoid", integrate.trapezoid, SIGNAL),
    call("trapezoid-x", integrate.trapezoid, SIGNAL, np.linspace(0, 12, 64)),
    call("trapezoid-axis", integrate.trapezoid, M, dx=0.5, axis=0),
    call("cumulative_trapezoid", integrate.cumulative_trapezoid, SIGNAL),
    call("cumulative_trapezoid-initial", integrate.cumulative_trapezoid, SIGNAL, initial=0),
    call("cumulative_simpson", integrate.cumulative_simpson, SIGNAL),
    call("romb", integrate.romb, SIGNAL[:33], dx=0.25),
    Call("tanhsinh", _tanhsinh, (np.array([0.5, 1.0, 2.0]),), deviations=(ARRAY_FILL_VALUE,)),
]


@parametrize(SPECIAL)
def test_special_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(STATS)
def test_stats_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(FALLBACKS)
def test_numpy_fallback_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(FFT)
def test_fft_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(SIGNAL_CALLS)
def test_signal_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(NDIMAGE)
def test_ndimage_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)


@parametrize(INTEGRATE)
def test_integrate_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)
