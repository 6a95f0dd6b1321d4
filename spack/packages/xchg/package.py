# The Spack package of xchg, kept in xchg's own repository (spack/repo.yaml).
# Its CMake arguments are checked against CMakeLists.txt by tests/check-spack.py
# (a launch of scripts/run-tests); its newest version() must equal
# include/xchg.h's (tests/check-version.sh).
from spack.package import *

try:  # Spack >= 1.0: the build systems live in the builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
except ImportError:  # Spack 0.x: spack.package exports CMakePackage
    pass


class Xchg(CMakePackage):
    """All-to-all collectives (MPI_Alltoall, MPI_Alltoallv, MPI_Allgather,
    neighbourhood alltoallv) with a catalogue of published algorithms, on top
    of any MPI; a drop-in library (libxchg-mpi) that runs unmodified MPI
    programs with them."""

    # No public release archive yet: build from a checkout with
    #   spack develop --path /path/to/xchg xchg@=0.2.0   (README.md, "Installing": "With Spack")
    license("BSD-3-Clause")

    version("0.2.0")

    variant("hwloc", default=True,
            description="NUMA domains and sockets of each rank from hwloc "
                        "(locality_aware groups=numa|socket)")
    variant("tuning", default=True,
            description="Read tuning files (XCHG_TUNING_FILE) with Jansson")
    variant("python", default=False,
            description="The xchg Python package for mpi4py (python/)")
    variant("apps", default=False,
            description="The client applications: 3-D FFT (FFTW), transitive closure, "
                        "BoomerAMG halo exchanges (hypre)")

    depends_on("c", type="build")
    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi")
    depends_on("hwloc", when="+hwloc")
    depends_on("jansson", when="+tuning")
    depends_on("fftw+mpi", when="+apps")
    depends_on("hypre", when="+apps")

    extends("python", when="+python")
    depends_on("python@3.8:", when="+python", type=("build", "run"))
    depends_on("py-pip", when="+python", type="build")
    depends_on("py-setuptools@61:", when="+python", type="build")
    depends_on("py-wheel", when="+python", type="build")
    depends_on("py-mpi4py@3.1:", when="+python", type=("build", "run"))
    depends_on("py-numpy", when="+python", type=("build", "run"))

    def cmake_args(self):
        return [
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
            self.define_from_variant("XCHG_WITH_HWLOC", "hwloc"),
            self.define_from_variant("XCHG_WITH_JANSSON", "tuning"),
            self.define_from_variant("XCHG_BUILD_APPS", "apps"),
            self.define("XCHG_BUILD_TOOLS", True),
            self.define("XCHG_BUILD_INTERPOSE", True),
            self.define("XCHG_BUILD_TESTS", self.run_tests),
        ]

    def check(self):
        """spack install --test=root: the quick launches of the correctness
        tests (tests/launches.cmake), without those that need Debian's
        Python, SimGrid or the apps' dependencies."""
        with working_dir(self.build_directory):
            ctest = Executable(join_path(self.spec["cmake"].prefix.bin, "ctest"))
            ctest("-L", "quick", "-LE", "python|sim|dropin|apps|spack", "--output-on-failure")

    @run_after("install")
    def install_python_package(self):
        """The Python package (python/) builds its extension from the
        library's sources with mpi4py's MPI compiler wrapper."""
        if not self.spec.satisfies("+python"):
            return
        with working_dir(join_path(self.stage.source_path, "python")):
            python = self.spec["python"].command
            python("-m", "pip", "install", "--no-build-isolation", "--no-deps",
                   "--no-index", "--prefix=" + self.prefix, ".")
