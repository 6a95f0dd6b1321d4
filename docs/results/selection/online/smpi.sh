#!/usr/bin/env bash
# Online selection on the held-out grid of docs/results/selection/grid/
# (SimGrid SMPI; simulated time is deterministic, so these numbers do not
# depend on the load of the machine that runs them). Every case of the
# grid's run.sh, cheapest first; for each: `auto` with XCHG_VERBOSE=1 and 60
# warm-up calls (2 on the model, up to 54 exploring: 6 candidates of one
# warm-up, 5 samples and 3 switching calls, where a simulation's times
# settle them; 1 whose agreement carries the last explored time; 1 more;
# smpi/ here ran with 40, before a long call's visits were timed runs with
# their switching calls, da6beaf), then 2 timed calls:
# the decided winner (a point whose exploration did not end in the warm-up
# has no line in exploration.csv, and evaluate.py says so). The
# candidates and baselines are the grid's own measurements
# (grid/measured/results.csv); evaluate.py compares.
#   smpi/results.csv       the auto rows (sim/run's format)
#   smpi/exploration.csv   online selection's lines: what was tried, the
#                          medians, the decision, what exploring cost
#   usage: docs/results/selection/online/smpi.sh [CASE...]   (default: all)
#   XCHG_ONLINE_TIMEOUT=S  wall seconds per point (default 900)
#   XCHG_ONLINE_WARMUP=N   warm-up calls (default 60; where the samples
#                          spread, exploration takes more calls than that)
#   XCHG_ONLINE_SMPI_OUT=DIR  where results.csv and exploration.csv go
#                          (default smpi/ here; a recheck elsewhere)
#   XCHG_ONLINE_PRECISION=E  SimGrid's maxmin/precision (default 1e-4, the
#                          grid's; the dragonfly P = 128, Q = 32 case aborts
#                          there in SimGrid's solver and runs at 1e-3)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${XCHG_ONLINE_SMPI_OUT:-docs/results/selection/online/smpi}
mkdir -p "$out"
common=(--append --timeout "${XCHG_ONLINE_TIMEOUT:-900}"
        --smpi-cfg "maxmin/precision:${XCHG_ONLINE_PRECISION:-1e-4}"
        --baselines "" --warmup "${XCHG_ONLINE_WARMUP:-60}" --iters 2 --algos auto --online-log "$out/exploration.csv")
# PLATFORM P Q SIZES DISTS COLL, as in grid/run.sh, roughly by simulation cost
# (the grid's 26 cases: its dragonfly P = 128, Q = 32 at 2 KiB is left out,
# as in the grid, where SimGrid's solver crashes on nonblocking)
cases=(
    "fattree 32 4 64,4096 uniform alltoallv"
    "flat 16 4 256,16384 powerlaw alltoallv"
    "dragonfly 32 8 128 sparse alltoallv"
    "fattree 32 8 1024 uniform alltoall"
    "fattree 64 16 32,8192 uniform alltoall"
    "dragonfly 64 4 128,16384 uniform alltoallv"
    "torus 64 4 64,1024,16384 uniform alltoallv"
    "fattree 128 8 256,4096 sparse alltoallv"
    "flat 128 16 8 uniform alltoallv"
    "torus 64 8 1024 uniform alltoall"
    "torus 64 16 262144 uniform alltoallv"
    "fattree 64 32 1048576 uniform alltoallv"
    "torus 64 8 512 powerlaw alltoallv"
    "dragonfly 256 16 64 uniform alltoallv"
    "fattree 128 8 64,1024,16384 uniform alltoallv"
    "dragonfly 128 32 64 uniform,powerlaw alltoallv"
)
selected=("$@")
for i in "${!cases[@]}"; do
    if [ ${#selected[@]} -eq 0 ] || [[ " ${selected[*]} " == *" $i "* ]]; then
        read -r kind p q sizes dists coll <<<"${cases[$i]}"
        XCHG_VERBOSE=1 sim/run --out "$out" "${common[@]}" --platforms "$kind" --P "$p" --Q "$q" \
            --sizes "$sizes" --dists "$dists" --coll "$coll"
    fi
done
