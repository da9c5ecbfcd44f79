"""Build description of the C core; everything else is in pyproject.toml."""

import os
import sys
import tempfile
from glob import glob
from pathlib import Path

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError, LinkError

# C11 (designated initializers, _Thread_local) with every warning worth
# reading; MSVC spells the standard its own way (and its C11 mode is needed
# for _Thread_local).
#
# The core is one job per file, and the hot paths cross files (an import is
# consumer.c -> import.c -> array.c).  Hidden visibility (the module exports
# PyInit__core alone; extensions reach the C API through a capsule) lets
# those calls skip the PLT, and link-time optimisation inlines across the
# files (docs/design.md, "One job per file", gives what that saves).
if sys.platform == "win32":
    COMPILE_ARGS = ["/std:c11", "/W3"]
else:
    COMPILE_ARGS = ["-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                    "-Wno-missing-field-initializers", "-Wno-cast-function-type",
                    "-fvisibility=hidden"]

#: Link-time optimisation where the toolchain has it: a clang whose linker
#: lacks the LTO plugin compiles with -flto and fails only at the link, so
#: a tiny module is compiled and linked with the flag first, and the core
#: is built without it where that fails (the same code; the gate's small
#: rows then run up to 7% more instructions).  -fno-lto in CFLAGS turns it
#: off.  _core.LINK_TIME_OPTIMISED says which build this is.
LTO_FLAGS = [] if sys.platform == "win32" else ["-flto"]


class BuildWithLTOWhereItWorks(build_ext):
    def build_extensions(self) -> None:
        lto = bool(LTO_FLAGS) and "-fno-lto" not in os.environ.get("CFLAGS", "").split()
        if lto and not self._links_with(LTO_FLAGS):
            self.warn("the compiler cannot link with -flto; building dlarray's core without it")
            lto = False
        for extension in self.extensions:
            extension.define_macros = [*extension.define_macros, ("DLA_LTO", "1" if lto else "0")]
            if lto:
                extension.extra_compile_args = [*extension.extra_compile_args, *LTO_FLAGS]
                extension.extra_link_args = [*extension.extra_link_args, *LTO_FLAGS]
        super().build_extensions()

    def _links_with(self, flags: list[str]) -> bool:
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "probe.c"
            source.write_text("int dlarray_probe(int x) { return x + 1; }\n")
            try:
                objects = self.compiler.compile([str(source)], output_dir=tmp,
                                                extra_postargs=flags)
                self.compiler.link_shared_object(objects, str(Path(tmp) / "probe.so"),
                                                 extra_postargs=flags)
            except (CompileError, LinkError):  # the toolchain says no
                return False
        return True


setup(
    cmdclass={"build_ext": BuildWithLTOWhereItWorks},
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
