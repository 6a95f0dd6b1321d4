#!/usr/bin/env bash
# Confirmations (src/select/online.c): at the points of this machine where
# online selection usually decides for another algorithm than `mpi`, RUNS
# runs of xchg-bench with three rows (`auto`, `mpi`, the point's fastest
# fixed algorithm from ../real.json) and XCHG_VERBOSE=1, whose lines say
# what the first exploration chose and what each confirmation read and
# kept. confirm.py then collects the runs into confirmations.csv under
# LABEL and writes table.md and confirm.png.
#   LABEL=<commit> [BUILD=build] [RUNS=15] bash docs/results/selection/online/confirm/run.sh
# Open MPI, about 11 s a run on the 2-core machine. Nothing else should run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../../.."
: "${LABEL:?LABEL=<commit of the build>}"
build=${BUILD:-build}
export OMPI_MCA_rmaps_base_oversubscribe=1
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
points="8:alltoallv:16:multipair_blocking 8:alltoallv:64:nonblocking 8:alltoallv:256:linear
8:alltoall:1024:rma_direct 8:alltoall:16384:rma_direct 8:allgather:1024:rma_direct
8:allgather:16384:rma_direct 4:alltoallv:16:linear 4:alltoallv:64:multipair_blocking
4:alltoallv:256:nonblocking 4:alltoall:4096:rma_direct 4:alltoall:16384:rma_direct
4:allgather:4096:rma_direct 4:allgather:16384:rma_direct"
for run in $(seq "${RUNS:-15}"); do
    for p in $points; do
        IFS=: read -r np coll s best <<<"$p"
        XCHG_VERBOSE=1 timeout 120 mpirun.openmpi -n "$np" "$build/tools/xchg-bench" -c "$coll" \
            -m "$s:$s" -a auto -a mpi -a "$best" -i 1000 >"$raw/$run-$np-$coll-$s.txt" 2>&1
    done
done
/usr/bin/python3 "$here/confirm.py" --collect "$raw" "$LABEL"
/usr/bin/python3 "$here/confirm.py"
