# Build xchg for SimGrid SMPI (simulated MPI):
#   cmake -S . -B build-smpi -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/smpi-toolchain.cmake
#   ninja -C build-smpi
# smpicc is both the C compiler and the MPI wrapper; run the programs with
# smpirun (see sim/README.md).
set(CMAKE_C_COMPILER smpicc)
set(MPI_C_COMPILER smpicc)
set(XCHG_SMPI ON CACHE BOOL "Building for SimGrid SMPI" FORCE)
