#!/usr/bin/env bash
# Allgatherv's algorithms against the MPI library's own MPI_Allgatherv.
#
#   docs/results/allgatherv/run.sh sim [--small]       SimGrid SMPI (simulated time)
#   docs/results/allgatherv/run.sh machine [--small]   this machine, Open MPI and MPICH
#   docs/results/allgatherv/run.sh tables              tables.md from what sim wrote (table.py)
#
# sim: sim/run --coll allgatherv (build-smpi/sim/xchg-simbench) on the flat
#   and dragonfly platforms (sim/platforms.py), P = 64, 128, 256 ranks on nodes
#   of 16, contributions from the distributions uniform (S from every rank),
#   powerlaw (uneven, mean S, capped at 32 S) and sparse (S from one rank in
#   eight, nothing from the others), S = 16 B .. 64 KiB; every xchg algorithm
#   against SMPI's Open MPI and MPICH MPI_Allgatherv (coll-selector ompi,
#   mpich). Simulated time is deterministic: the numbers do not depend on the
#   load of the machine that runs the simulation. Output: sim/results.csv,
#   sim/summary.md, sim/*.png (sim/run's), then tables.md (table.py).
#   --small: flat only, P = 64 and 128, three sizes.
# machine: tools/xchg-bench -c allgatherv, every algorithm plus MPI's own,
#   for each distribution, 8 ranks (--small: 4, fewer iterations), Open MPI
#   (build/) and MPICH (build-mpich/), CSV into machine/. Run it on a quiet
#   machine: these are wall-clock times.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/allgatherv
what=${1:-}
small=0
[ "${2:-}" = --small ] && small=1
algos="ring ring:segment=whole recursive_doubling bruck hierarchical \
hierarchical:exchange=direct hierarchical:exchange=direct,share=scatter_ring auto"

run_sim() {
    local platforms=flat,dragonfly P=64,128,256 sizes=16,256,4096,65536
    [ $small = 1 ] && platforms=flat P=64,128 sizes=16,1024,65536
    [ -x build-smpi/sim/xchg-simbench ] || {
        cmake -S . -B build-smpi -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/smpi-toolchain.cmake
        ninja -C build-smpi
    }
    sim/run --platforms "$platforms" --P "$P" --Q 16 --sizes "$sizes" \
        --dists uniform,powerlaw,sparse --coll allgatherv --algos "$algos" \
        --baselines ompi,mpich --iters 2 --out "$here/sim"
    rm -rf "$here/sim/platforms" # generated inputs (sim/platforms.py makes them again)
    run_tables
}

run_tables() {
    local out=$here/tables.md platform
    : >"$out"
    for platform in flat dragonfly; do
        grep -q "^$platform," "$here/sim/results.csv" 2>/dev/null || continue
        python3 $here/table.py --csv "$here/sim/results.csv" --platform $platform >>"$out"
    done
    echo "wrote $out (per point, with bounds: sim/table.py --csv $here/sim/results.csv" \
         "--platform flat --P 64 --Q 16 --coll allgatherv --dist powerlaw)"
}

run_machine() {
    local np=8 sizes=16:65536 iters="-i 200 -x 20 -r 10" dist build launcher mpi
    [ $small = 1 ] && np=4 sizes=64:16384 iters="-i 20 -x 2 -r 2"
    mkdir -p "$here/machine"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1
    for build in build build-mpich; do
        [ -x $build/tools/xchg-bench ] || { echo "skip $build: not built (scripts/setup)"; continue; }
        launcher=mpirun.openmpi mpi=openmpi
        [ $build = build-mpich ] && launcher=mpiexec.mpich mpi=mpich
        for dist in uniform powerlaw sparse; do
            $launcher -n $np $build/tools/xchg-bench -c allgatherv --dist $dist -m $sizes \
                $iters --algo all --csv "$here/machine/$mpi-np$np-$dist.csv" |
                sed -n '/^# Summary/,$p'
        done
    done
}

case $what in
sim) run_sim ;;
machine) run_machine ;;
tables) run_tables ;;
*) sed -n '2,22p' "$0"; exit 2 ;;
esac
