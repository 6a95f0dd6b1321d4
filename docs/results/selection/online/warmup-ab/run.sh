#!/usr/bin/env bash
# xchg-bench's warm-up before (old: 30 of the 300 warm-up calls before each
# of the 10 rounds) and after eac54c8 (new: all 300 before a row's first
# timed call): real.sh's rows at 16 B - 1 KiB, 4 and 8 ranks, 1000
# iterations, the two benchmarks alternating, 4 pairs. The library is the
# same in both (xchg-bench links it statically; the commits change only
# tools/). Writes old-K.csv and new-K.csv here; then tables.py.
#   usage: OLD=dir NEW=dir bash docs/results/selection/online/warmup-ab/run.sh
#   OLD, NEW: folders with tools/xchg-bench and tools/xchg-info (builds of
#   9aac77a and eac54c8)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../../.."
for pair in 1 2 3 4; do
    for v in old new; do
        dir=OLD
        [ "$v" = new ] && dir=NEW
        XCHG_ONLINE_RUNS=1 XCHG_ONLINE_EVALUATE=0 XCHG_ONLINE_ITERS=1000 XCHG_ONLINE_SIZES="16 64 256 1024" \
            XCHG_ONLINE_BUILD=${!dir} bash docs/results/selection/online/real.sh
        cp docs/results/selection/online/real/results-1.csv "$here/$v-$pair.csv"
    done
done
/usr/bin/python3 "$here/tables.py"
