#!/usr/bin/env bash
# The grid's 1024-rank case: dragonfly of 64 nodes x 16 ranks, alltoallv,
# 16 B uniform blocks. What auto chooses there (with or without a tuning
# file: `xchg-info --select alltoallv --bytes 15 --ranks 1024 --ppn 16`,
# 15 B being the mean block the agreement sees) is run by name, the agreement
# left out, because every call costs minutes of simulation: one warm-up call
# (the plan's setup) and one timed call (-x 1 -i 1). Beside it the
# alternatives that SMPI can simulate at this scale (ParLogNa; node_aware with
# a ParLogNa inner exchange), SMPI's built-in MPICH alltoallv, and MPICH 4's
# default (scattered:batch=32), each with a wall-time limit: a point that
# runs past it is recorded as a timeout (sim/README.md, "Wall time").
#   usage: docs/results/selection/grid/run1024.sh [SELECTION...]
#   (default: all; TIMEOUT=seconds per point, default 5400)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=docs/results/selection/grid/p1024
algos=("$@")
[ ${#algos[@]} -gt 0 ] || algos=("node_aware:inner=nonblocking" "parlogna:radix=4"
                                  "node_aware:inner=parlogna" "scattered:batch=32" mpi)
for algo in "${algos[@]}"; do
    if [ "$algo" = mpi ]; then sel=(--algos "" --baselines mpich); else sel=(--algos "$algo" --baselines ""); fi
    sim/run --out "$out" --append --timeout "${TIMEOUT:-5400}" --iters 1 --warmup 1 \
        --smpi-cfg maxmin/precision:1e-4 --platforms dragonfly --P 1024 --Q 16 --sizes 16 \
        --dists uniform --coll alltoallv "${sel[@]}"
done
