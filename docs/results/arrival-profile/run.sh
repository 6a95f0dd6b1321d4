#!/usr/bin/env bash
# The XCHG_PROFILE=1 imbalance profiler (src/interpose/profile.c) on real,
# unmodified programs under the drop-in library: FFTW's MPI 3-D transform
# (tests/dropin/fftw3d.c: FFTW_ESTIMATE and FFTW_MEASURE plans, the planner's
# trial transforms included) and an mpi4py program
# (tests/dropin/mpi4py_collectives.py). Writes the profiler's tables here.
#   docs/results/arrival-profile/run.sh     (after scripts/setup and
#                                           tests/dropin/run.sh built the programs)
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/arrival-profile
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
run() { # NAME NP COMMAND...: the profiler's table of one run
    local name=$1 np=$2; shift 2
    XCHG_PROFILE=1 XCHG_PROFILE_FILE=$PWD/$here/$name.txt build/xchg-run mpirun.openmpi \
        -n "$np" "$@" >/dev/null
    echo "== $name"; cat "$here/$name.txt"
}
run fftw-64x64x64-np4 4 build/dropin-tests/fftw3d 64 64 64
run fftw-30x28x26-np3 3 build/dropin-tests/fftw3d 30 28 26
run mpi4py-np4 4 /usr/bin/python3 tests/dropin/mpi4py_collectives.py
