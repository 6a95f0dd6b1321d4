"""Build the xchg Python package: the C library's sources are compiled into
the extension xchg._xchg with the MPI compiler wrapper mpi4py was built with,
so the package uses the same MPI as mpi4py.

    python3 -m pip install --no-build-isolation ./python     (see README.md)
"""
import glob
import os
import re
import shlex
import shutil
import subprocess

import mpi4py
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # the repository: include/ and src/


def xchg_version():
    """The library's version, from include/xchg.h (its one place)."""
    with open(os.path.join(ROOT, "include", "xchg.h")) as header:
        parts = dict(re.findall(r"^#define XCHG_VERSION_(MAJOR|MINOR|PATCH) +([0-9]+)$",
                                header.read(), re.M))
    return "%s.%s.%s" % (parts["MAJOR"], parts["MINOR"], parts["PATCH"])


def library_sources():
    """xchg's C sources, as the top-level CMakeLists.txt globs them."""
    patterns = ["src/*.c", "src/core/*.c", "src/select/*.c", "src/coll/*/*.c"]
    files = sorted(f for p in patterns for f in glob.glob(os.path.join(ROOT, p)))
    if not files:
        raise SystemExit("setup.py: xchg's C sources not found under " + ROOT)
    return files


def optional_package(name, define):
    """(cflags, libs) of an optional library when pkg-config finds it, as
    CMake does: hwloc (NUMA/socket regions), jansson (the tuning file)."""
    if not shutil.which("pkg-config"):
        return [], []
    try:
        cflags = subprocess.check_output(["pkg-config", "--cflags", name], text=True,
                                         stderr=subprocess.DEVNULL)
        libs = subprocess.check_output(["pkg-config", "--libs", name], text=True,
                                       stderr=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        return [], []
    return shlex.split(cflags) + ["-D%s=1" % define], shlex.split(libs)


def mpi_compiler():
    """mpi4py's MPI C compiler wrapper (MPICC overrides)."""
    cc = os.environ.get("MPICC") or mpi4py.get_config().get("mpicc") or "mpicc"
    if not shutil.which(shlex.split(cc)[0]):
        raise SystemExit("setup.py: MPI compiler '%s' not found (set MPICC)" % cc)
    return cc


class MPIBuildExt(build_ext):
    """build_ext with the MPI compiler wrapper and parallel compilation."""

    def initialize_options(self):
        super().initialize_options()
        self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        cc = shlex.split(mpi_compiler())
        for key in ("compiler", "compiler_so", "linker_so"):
            command = getattr(self.compiler, key, None)
            if command:  # replace the compiler, keep the flags
                self.compiler.set_executable(key, cc + list(command[1:]))
        super().build_extensions()


hw_cflags, hw_libs = optional_package("hwloc", "XCHG_HAVE_HWLOC")
js_cflags, js_libs = optional_package("jansson", "XCHG_HAVE_JANSSON")
sources = [os.path.join(HERE, "src", f) for f in ("module.c", "collectives.c", "request.c")]
headers = glob.glob(os.path.join(ROOT, "include", "*.h")) + glob.glob(
    os.path.join(ROOT, "src", "**", "*.h"), recursive=True) + [
    os.path.join(HERE, "src", "pyxchg.h")]

extension = Extension(
    "xchg._xchg",
    sources=sources + library_sources(),
    depends=headers,
    include_dirs=[os.path.join(ROOT, "include"), os.path.join(ROOT, "src"),
                  mpi4py.get_include()],
    define_macros=[("_POSIX_C_SOURCE", "200809L")],
    extra_compile_args=["-std=gnu11", "-Wno-stringop-overflow"] + hw_cflags + js_cflags,
    extra_link_args=hw_libs + js_libs,
)

setup(
    name="xchg",
    version=xchg_version(),
    description="xchg's all-to-all collectives for mpi4py programs",
    license="see LICENSE in the repository",
    packages=["xchg"],
    ext_modules=[extension],
    cmdclass={"build_ext": MPIBuildExt},
    python_requires=">=3.8",
    install_requires=["mpi4py>=3.1", "numpy"],
)
