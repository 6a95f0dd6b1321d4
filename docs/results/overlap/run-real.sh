#!/usr/bin/env bash
# Overlap on a real machine: xchg-bench --overlap for every algorithm
# (--algo all) of each collective against the MPI library's own nonblocking
# call (PMPI_Ialltoallv, PMPI_Ialltoall, PMPI_Iallgather), compute = 1x and
# 2x MPI's own exchange time, without tests and with a test every TEST_US us
# of compute; then the persistent form (XCHG_Alltoallv_init + XCHG_Start vs
# MPI's persistent alltoallv where the MPI has one). Needs build/ (Release).
#   usage: docs/results/overlap/run-real.sh
#   env:   NP=16, SIZES="256 4096 65536", ITERS=100 (per row and level, in 10
#          interleaved rounds), COLLS="alltoallv alltoall allgather",
#          TEST_US=5, PERSISTENT=1, BUILD=build,
#          LAUNCH="mpirun.openmpi --bind-to core" (MPICH: "mpiexec.mpich"),
#          TAG=$(hostname -s) (names the CSV)
#   writes docs/results/overlap/real-<TAG>-<NP>.csv and its plot (plot.py)
# About 1-2 minutes at NP=16 on a quiet 16-core machine with the defaults.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/results/overlap
np=${NP:-16} iters=${ITERS:-100} test_us=${TEST_US:-5}
sizes=${SIZES:-"256 4096 65536"} colls=${COLLS:-"alltoallv alltoall allgather"}
build=${BUILD:-build} tag=${TAG:-$(hostname -s)}
read -r -a launch <<< "${LAUNCH:-mpirun.openmpi --bind-to core}"
bench=$build/tools/xchg-bench
[ -x "$bench" ] || { echo "run-real.sh: $bench not built" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
csv=$out/real-$tag-$np.csv
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
rm -f "$csv"
append() { if [ -f "$csv" ]; then tail -n +2 "$tmp" >> "$csv"; else cp "$tmp" "$csv"; fi; }
run() { # collective, extra options...
    local c=$1; shift
    echo "# NP=$np $c $*" >&2
    for s in $sizes; do
        timeout 600 "${launch[@]}" -n "$np" "$bench" -c "$c" -m "$s:$s" -i "$iters" -x 10 -r 10 \
            --algo all --overlap 1x,2x "$@" --csv "$tmp" >&2
        append
    done
}
for c in $colls; do
    run "$c"
    run "$c" --test-every "$test_us"
done
if [ "${PERSISTENT:-1}" = 1 ]; then
    run alltoallv --overlap-persistent --test-every "$test_us"
fi
"$out/plot.py"
echo "run-real.sh: wrote $csv" >&2
