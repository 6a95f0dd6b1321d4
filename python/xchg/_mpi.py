"""One MPI for xchg's extension and mpi4py.

The extension xchg._xchg is linked against the system's MPI by its compiler
wrapper (setup.py). mpi4py may be Debian's (linked against the system MPI
too) or a wheel from PyPI, which chooses an MPI library when mpi4py.MPI is
imported: first one already loaded in the process, else libmpi.so from the
library path. Loading the extension's shared object (and with it its MPI)
into the global namespace before mpi4py.MPI is imported makes the wheel
bind to that same MPI; check_same_mpi then refuses a mismatch that remains
(mpi4py imported first with another MPI, or built against another one).
"""
import ctypes
import importlib.util
import os
import sys


def load_extension_mpi():
    """dlopen xchg._xchg RTLD_GLOBAL (not yet as a module) so that its MPI
    library is the one mpi4py.MPI finds; nothing once mpi4py.MPI is loaded."""
    if "mpi4py.MPI" in sys.modules or os.name != "posix":
        return
    spec = importlib.util.find_spec(__package__ + "._xchg")
    if spec is None or not spec.origin:
        return
    try:
        ctypes.CDLL(spec.origin, mode=os.RTLD_GLOBAL | os.RTLD_LAZY)
    except OSError:
        pass  # the import proper reports what is wrong


def check_same_mpi(family, library_version):
    """Raise ImportError when mpi4py runs another MPI than the extension's
    (family: "Open MPI", "MPICH" or "" when unknown)."""
    is_open_mpi = "Open MPI" in library_version
    if family and (family == "Open MPI") != is_open_mpi:
        first_line = library_version.strip().splitlines()[0] if library_version.strip() else "?"
        raise ImportError(
            "xchg was compiled against %s but mpi4py runs %s: build xchg with that "
            "MPI's compiler wrapper (MPICC=...), or have mpi4py load the same MPI "
            "(import xchg before mpi4py.MPI, or set MPI4PY_LIBMPI)" % (family, first_line))
