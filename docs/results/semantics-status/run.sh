#!/usr/bin/env bash
# Which steps of the semantics test (tests/semantics.c, issue 25) pass or
# hang, per collective:algorithm, under Open MPI (4 ranks on virtual nodes of
# 2) and MPICH (3 ranks on virtual nodes of 2): writes status-openmpi.csv,
# status-mpich.csv (case,step,verdict) and table.md here.
#   docs/results/semantics-status/run.sh [TIMEOUT]   (default 5 s per hang)
# Needs build/ and build-mpich/ (scripts/setup). Takes about 30 minutes per
# MPI on 2 loaded cores today, most of it waiting out hangs.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/results/semantics-status
timeout=${1:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export XCHG_VIRTUAL_NODES=2 SEMANTICS_ARGS=--starts=500
run() { # MPI LAUNCHER BUILD
    tests/semantics-status.sh "$2" "$3/tests/xchg-semantics" "$timeout" |
        awk '/^STATUS/ {print $2 "," $3 "," $4}' >"$out/status-$1.csv"
}
run openmpi "mpirun.openmpi -n 4" build
run mpich "mpiexec.mpich -n 3" build-mpich
python3 "$out/table.py" "$out/status-openmpi.csv" "$out/status-mpich.csv" >"$out/table.md"
