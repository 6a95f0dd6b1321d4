"""Build the xchg Python package: the C library's sources are compiled into
the extension xchg._xchg with the system's MPI compiler wrapper (MPICC, else
the one mpi4py was built with when the build sees an mpi4py that says so,
else mpicc). Building needs no mpi4py: the extension takes mpi4py's C API
from mpi4py.MPI when it is imported, and xchg/__init__.py checks that
mpi4py runs the MPI the extension was compiled against.

    python3 -m pip install ./python                           (see README.md)
"""
import glob
import os
import re
import shlex
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # the repository: include/ and src/


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


def package_version():
    """The package's version: the one place is include/xchg.h's
    XCHG_VERSION_MAJOR/MINOR/PATCH, which the C library reports too."""
    with open(os.path.join(ROOT, "include", "xchg.h")) as header:
        text = header.read()
    parts = [re.search(r"#define XCHG_VERSION_%s (\d+)" % p, text) for p in
             ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        raise SystemExit("setup.py: XCHG_VERSION_* not found in include/xchg.h")
    return ".".join(m.group(1) for m in parts)


def mpi4py_compiler():
    """The compiler wrapper an importable mpi4py was built with (Debian's
    python3-mpi4py says /usr/bin/mpicc; PyPI's wheels say none), or None."""
    try:
        import mpi4py  # only with --no-build-isolation; never required
    except ImportError:
        return None
    try:
        return mpi4py.get_config().get("mpicc")
    except Exception:  # a wheel without mpi.cfg
        return None


def mpi_compiler():
    """The MPI C compiler wrapper: MPICC, else mpi4py's, else mpicc."""
    cc = os.environ.get("MPICC") or mpi4py_compiler() or "mpicc"
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
sources = [os.path.join(HERE, "src", f)
           for f in ("module.c", "collectives.c", "request.c", "introspection.c")]
headers = glob.glob(os.path.join(ROOT, "include", "*.h")) + glob.glob(
    os.path.join(ROOT, "src", "**", "*.h"), recursive=True) + [
    os.path.join(HERE, "src", "pyxchg.h")]

extension = Extension(
    "xchg._xchg",
    sources=sources + library_sources(),
    depends=headers,
    include_dirs=[os.path.join(ROOT, "include"), os.path.join(ROOT, "src")],
    define_macros=[("_POSIX_C_SOURCE", "200809L")],
    extra_compile_args=["-std=gnu11", "-Wno-stringop-overflow"] + hw_cflags + js_cflags,
    extra_link_args=hw_libs + js_libs,
)

setup(
    name="xchg",
    version=package_version(),
    description="xchg's all-to-all collectives for mpi4py programs",
    license="see LICENSE in the repository",
    packages=["xchg"],
    ext_modules=[extension],
    cmdclass={"build_ext": MPIBuildExt},
    python_requires=">=3.9",
    install_requires=["mpi4py>=3.1", "numpy"],
)
