#!/usr/bin/env bash
# The held-out grid of automatic selection: simulated cases that the cost
# model was never looked at against (other platforms, ranks per node, P and
# sizes than docs/results/sim/), each with `auto` (what xchg chooses by itself,
# built-in constants, no tuning file; its alltoallv agrees on the sizes at
# calls 0, 1, 4, 16, ..., so it runs with 6 warm-up calls and its two timed
# calls, 6 and 7, are the steady state without one), a set of candidate
# algorithms, xchg's reproduction of
# MPICH 4's default alltoallv (scattered:batch=32) and SMPI's built-in MPICH
# collective. SimGrid's solver aborts on some dense patterns at the default
# precision ("Cannot saturate more a constraint..."), so every point runs
# with --cfg=maxmin/precision:1e-4. Appends to docs/results/selection/heldout/results.csv; then
# docs/results/selection/heldout.py makes the table and plot.
#   usage: docs/results/selection/heldout.sh [1|2|all]   (needs build-smpi/, sim/README.md)
#   AUTO_ONLY=1 runs only the auto rows (after a change of the selection code:
#   heldout.py keeps the last row of each case and algorithm).
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/results/selection/heldout
algos="nonblocking scattered:batch=32 node_aware locality_aware:groups=2 multileader:leaders=2 parlinna_coalesced:radix=4,batch=16 parlogna:radix=4"
run() { # the candidates and the baseline, then auto after 6 warm-up calls
    [ -n "${AUTO_ONLY:-}" ] || sim/run --out "$out" --append --baselines mpich --timeout 150 --smpi-cfg maxmin/precision:1e-4 --iters 2 "$@"
    local args=("$@") i
    for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[i]}" = --algos ] && args[i + 1]=auto; done
    sim/run --out "$out" --append --baselines "" --timeout 600 --smpi-cfg maxmin/precision:1e-4 --iters 2 --warmup 6 "${args[@]}"
}
part=${1:-all}
if [ "$part" = all ] || [ "$part" = 1 ]; then
    run --platforms fattree --P 128 --Q 8 --sizes 64,8192 --dists uniform,powerlaw --coll alltoallv --algos "$algos"
    run --platforms torus --P 128 --Q 32 --sizes 64,8192 --coll alltoallv --algos "$algos"
    run --platforms flat --P 64 --Q 4 --sizes 64,8192 --coll alltoallv --algos "$algos"
    run --platforms dragonfly --P 128 --Q 8 --sizes 64,8192 --coll alltoall \
        --algos "nonblocking scattered:batch=32 bruck node_aware locality_aware:groups=2 multileader:leaders=2"
fi
# (A dragonfly of 12 nodes, P=192 Q=16, was in the first grid: sim/platforms.py
# writes a file SimGrid 3.32 crashes on, rc=139 for every algorithm.)
if [ "$part" = all ] || [ "$part" = 2 ]; then # cheaper points: more of them
    run --platforms dragonfly --P 64 --Q 8 --sizes 256,2048 --coll alltoallv --algos "$algos"
    run --platforms fattree --P 64 --Q 4 --sizes 256,2048 --coll alltoallv --algos "$algos"
    run --platforms torus --P 64 --Q 8 --sizes 256,2048 --coll alltoallv --algos "$algos"
    run --platforms flat --P 128 --Q 16 --sizes 256,2048 --coll alltoallv --algos "$algos"
    run --platforms fattree --P 64 --Q 8 --sizes 256,2048 --coll alltoall \
        --algos "nonblocking scattered:batch=32 bruck parlogna:radix=4 node_aware locality_aware:groups=2 multileader:leaders=2"
fi
