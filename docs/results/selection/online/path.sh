#!/usr/bin/env bash
# What xchg's call path costs around the MPI library's collective (path.c),
# at P = 1 (the path alone) and P = 4: `mpi` decided by online selection
# (the fast path), `mpi` chosen by environment (the fast path too), and
# scattered (the full path: normalization, selection, plan). Needs build/.
#   usage: docs/results/selection/online/path.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../../../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
mpicc.openmpi -O2 -Iinclude docs/results/selection/online/path.c -o "$bin" -Lbuild -lxchg \
    -Wl,-rpath,"$PWD/build"
n=${1:-200000}
for np in 1 4; do
    echo "# online selection decided mpi (forced), P=$np"
    XCHG_TEST_ONLINE_TIMES='*:mpi=1,*=10' mpirun.openmpi --oversubscribe -n $np "$bin" "$n"
    echo "# XCHG_ALLTOALL(V)=mpi, P=$np"
    XCHG_ALLTOALL=mpi XCHG_ALLTOALLV=mpi mpirun.openmpi --oversubscribe -n $np "$bin" "$n"
    echo "# XCHG_ALLTOALL(V)=scattered (the full path), P=$np"
    XCHG_ALLTOALL=scattered XCHG_ALLTOALLV=scattered mpirun.openmpi --oversubscribe -n $np "$bin" "$n"
done
