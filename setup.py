"""Build description of the C core; everything else is in pyproject.toml."""

from glob import glob

import numpy
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "dlarray._core",
            sources=sorted(glob("dlarray/_core/*.c")),
            depends=glob("dlarray/_core/*.h") + glob("dlarray/include/*.h"),
            # The public headers (the DLPack ABI, the C API) live where
            # extension authors find them: dlarray.get_include().
            # NumPy's headers: host_adopt.c reads NumPy's array struct (its
            # layout only; the core calls nothing in NumPy).
            include_dirs=["dlarray/include", numpy.get_include()],
            extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                "-Wno-missing-field-initializers", "-Wno-cast-function-type"],
        )
    ],
)
