"""Build description of the C core; everything else is in pyproject.toml."""

from glob import glob

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "dlarray._core",
            sources=sorted(glob("dlarray/_core/*.c")),
            depends=glob("dlarray/_core/*.h"),
            extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                "-Wno-missing-field-initializers", "-Wno-cast-function-type"],
        )
    ],
)
