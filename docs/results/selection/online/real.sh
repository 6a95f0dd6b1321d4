#!/usr/bin/env bash
# Online selection on this machine (Open MPI): for 4 and 8 ranks, alltoallv,
# alltoall and allgather, blocks of 16 B to 64 KiB, one xchg-bench run per
# point that times, interleaved (xchg-bench's rounds): MPI's own collective,
# `auto` (online selection; its warm-up calls explore), the cost model's
# choice (xchg-info --select, by name: what auto was before online
# selection), `mpi` (MPI's own through xchg) and every algorithm with its
# defaults (the best fixed one is the fastest of them). All of it RUNS times
# (real/results-K.csv): a point's ratios vary from run to run by more than
# the 2% goal, so evaluate.py's table takes each ratio's median over the
# runs. Needs a quiet machine: timings of a loaded one are not published.
#   usage: docs/results/selection/online/real.sh
#   XCHG_ONLINE_NP="4 8"  XCHG_ONLINE_SIZES="16 64 ... 65536"
#   XCHG_ONLINE_COLLS="alltoallv alltoall allgather"  XCHG_ONLINE_ITERS=2000
#   XCHG_ONLINE_WARMUP=300 (warm-up calls per row: auto's exploration takes
#   up to about 250 short calls, so the measured ones are all decided)
#   XCHG_ONLINE_MPIRUN="mpirun.openmpi --oversubscribe"  XCHG_ONLINE_BUILD=build
#   XCHG_ONLINE_RUNS=3  XCHG_ONLINE_EVALUATE=1 (0: only the CSVs)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=docs/results/selection/online/real
mkdir -p "$out"
runs=${XCHG_ONLINE_RUNS:-3}
mpirun=${XCHG_ONLINE_MPIRUN:-mpirun.openmpi --oversubscribe}
iters=${XCHG_ONLINE_ITERS:-2000}
warmup=${XCHG_ONLINE_WARMUP:-300}
build=${XCHG_ONLINE_BUILD:-build}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
rm -f "$out"/results*.csv
for run in $(seq "$runs"); do
    csv=$out/results-$run.csv
    for np in ${XCHG_ONLINE_NP:-4 8}; do
        for coll in ${XCHG_ONLINE_COLLS:-alltoallv alltoall allgather}; do
            for s in ${XCHG_ONLINE_SIZES:-16 64 256 1024 4096 16384 65536}; do
                # what the model sees: alltoallv's agreed mean block is (P-1) S / P
                bytes=$s
                [ "$coll" = alltoallv ] && bytes=$(((np - 1) * s / np))
                model=$(XCHG_ONLINE=0 "$build"/tools/xchg-info --select "$coll" --bytes "$bytes" \
                            --ranks "$np" --ppn "$np" --top 0 | head -1)
                # shellcheck disable=SC2086 # $mpirun is a command with options
                timeout 1800 $mpirun -n "$np" "$build"/tools/xchg-bench -c "$coll" -m "$s:$s" \
                    --algo all -a "$model" -i "$iters" -x "$warmup" --csv "$tmp" >/dev/null
                if [ ! -s "$csv" ]; then
                    printf 'np,model_choice,%s\n' "$(head -1 "$tmp")" >"$csv"
                fi
                tail -n +2 "$tmp" | sed "s|^|$np,\"$model\",|" >>"$csv"
            done
        done
    done
done
if [ "${XCHG_ONLINE_EVALUATE:-1}" != 0 ]; then
    /usr/bin/python3 docs/results/selection/online/evaluate.py real
fi
