"""The fft extension computes through the engine's standard namespace alone,
and gives the same answers on every engine.

Run under the foreign engine too (``DLARRAY_HOST_ENGINE=array_api_strict``):
there a NumPy habit left in dlarray/fft.py fails.  Expected values come
from NumPy on host copies of the inputs (``numpy.from_dlpack``), never from
dlarray.
"""

from __future__ import annotations

import numpy as np
import pytest
from linalg_support import arr, close, random

import dlarray as xp


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_complex_transforms(dtype, norm):
    a = random((4, 6), dtype)
    x = arr(a)
    d = getattr(xp, dtype)
    real = xp.float32 if dtype == "complex64" else xp.float64
    tol = 1e-5 if dtype == "complex64" else 1e-12
    close(xp.fft.fft(x, norm=norm), np.fft.fft(a, norm=norm), d, rtol=tol)
    close(
        xp.fft.ifft(x, n=8, axis=0, norm=norm), np.fft.ifft(a, n=8, axis=0, norm=norm), d, rtol=tol
    )
    close(xp.fft.fftn(x, norm=norm), np.fft.fftn(a, norm=norm), d, rtol=tol)
    close(
        xp.fft.ifftn(x, s=[3, 5], axes=[0, 1], norm=norm),
        np.fft.ifftn(a, s=[3, 5], axes=[0, 1], norm=norm),
        d,
        rtol=tol,
    )
    close(xp.fft.irfft(x, norm=norm), np.fft.irfft(a, norm=norm), real, rtol=tol)
    close(xp.fft.hfft(x, n=7, norm=norm), np.fft.hfft(a, n=7, norm=norm), real, rtol=tol)
    close(xp.fft.irfftn(x, norm=norm), np.fft.irfftn(a, norm=norm), real, rtol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_real_transforms(dtype):
    a = random((4, 6), dtype)
    x = arr(a)
    complex_ = xp.complex64 if dtype == "float32" else xp.complex128
    tol = 1e-5 if dtype == "float32" else 1e-12
    close(xp.fft.rfft(x), np.fft.rfft(a), complex_, rtol=tol)
    close(xp.fft.ihfft(x, axis=0), np.fft.ihfft(a, axis=0), complex_, rtol=tol)
    close(
        xp.fft.rfftn(x, s=[4, 4], axes=[0, 1]),
        np.fft.rfftn(a, s=[4, 4], axes=[0, 1]),
        complex_,
        rtol=tol,
    )


def test_frequencies_and_shifts():
    close(xp.fft.fftfreq(5, d=0.5), np.fft.fftfreq(5, d=0.5), xp.float64)
    close(xp.fft.rfftfreq(6, dtype=xp.float32), np.fft.rfftfreq(6), xp.float32)
    assert xp.fft.fftfreq(4, device="cpu").device == xp.Device("cpu")
    a = np.arange(12.0).reshape(3, 4)
    close(xp.fft.fftshift(arr(a)), np.fft.fftshift(a), xp.float64)
    close(xp.fft.ifftshift(arr(a), axes=1), np.fft.ifftshift(a, axes=1), xp.float64)
    close(xp.fft.fftshift(arr(a), axes=[0]), np.fft.fftshift(a, axes=[0]), xp.float64)
