"""Build description of the C core; everything else is in pyproject.toml."""

import sys
from glob import glob

import numpy
from setuptools import Extension, setup

# C11 (designated initializers, _Thread_local) with every warning worth
# reading; MSVC spells the standard its own way (and its C11 mode is needed
# for _Thread_local).
if sys.platform == "win32":
    COMPILE_ARGS = ["/std:c11", "/W3"]
else:
    COMPILE_ARGS = ["-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                    "-Wno-missing-field-initializers", "-Wno-cast-function-type"]

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
            extra_compile_args=COMPILE_ARGS,
        )
    ],
)
