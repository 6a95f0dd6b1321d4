#!/usr/bin/env bash
# The held-out grid again for `auto` alone, now with the cost model's
# constants of each simulated platform (sim/platforms.py --tuning: its
# latencies and bandwidths, SMPI's overheads, free copies) given as a tuning
# file without rules, as a user of a real machine gets them from
# tools/xchg-tune. Appends to docs/results/selection/heldout-platform/.
#   usage: docs/results/selection/heldout-platform.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/results/selection/heldout-platform
mkdir -p "$out"
run() { # platform nodes, then sim/run's arguments
    local file="$out/$1-$2.json"
    /usr/bin/python3 sim/platforms.py --tuning "$1" "$2" > "$file"
    XCHG_TUNING_FILE=$PWD/$file sim/run --out "$out" --append --baselines "" --timeout 150 --smpi-cfg maxmin/precision:1e-4 \
        --iters 2 --warmup 6 --algos auto --platforms "${@:1:1}" "${@:3}"
}
# The second (cheaper) batch of heldout.sh; the first batch's large points
# take minutes of simulation each for auto's 8 calls.
run dragonfly 8 --P 64 --Q 8 --sizes 256,2048 --coll alltoallv
run fattree 16 --P 64 --Q 4 --sizes 256,2048 --coll alltoallv
run torus 8 --P 64 --Q 8 --sizes 256,2048 --coll alltoallv
run fattree 8 --P 64 --Q 8 --sizes 256,2048 --coll alltoall
