#!/usr/bin/env bash
# Does `auto` decided for `mpi` cost more than xchg's `mpi` row, or does the
# row right after MPI's own (where `auto` always sits in real.sh's runs) read
# slower? One xchg-bench run per rank count and collective, rows in the
# order MPI's own, mpi, auto, mpi, auto (both `auto` rows share one online
# selection: the same communicator and signature), 16 B to 1 KiB, 4000
# iterations after 300 warm-up calls, ranks bound to cores. Then the
# README's main job (xchg-bench's defaults: alltoallv, every algorithm) at 8
# ranks. Writes order.csv (xchg-bench's CSV with the row's position) and
# mainjob-8.txt into $OUT (default: this folder).
#   usage: docs/results/selection/online/device16/order.sh
#   XCHG_ORDER_BUILD=build  XCHG_ORDER_MPIRUN="mpirun.openmpi --bind-to core"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../../.."
build=${XCHG_ORDER_BUILD:-build}
read -r -a mpirun <<<"${XCHG_ORDER_MPIRUN:-mpirun.openmpi --bind-to core}"
out=${OUT:-$here}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
rm -f "$out/order.csv"
for np in 4 8; do
    for coll in alltoall allgather; do
        timeout 300 "${mpirun[@]}" -n "$np" "$build/tools/xchg-bench" -c "$coll" -m 16:1024 \
            -i 4000 -x 300 --algo mpi --algo auto --algo mpi --algo auto --csv "$tmp" >/dev/null
        [ -s "$out/order.csv" ] || printf 'np,position,%s\n' "$(head -1 "$tmp")" >"$out/order.csv"
        # the position of each row within its size: 0 is MPI's own
        tail -n +2 "$tmp" | awk -F, -v np="$np" '{ if ($7 != size) { size = $7; pos = 0 } print np "," pos++ "," $0 }' \
            >>"$out/order.csv"
    done
done
XCHG_VERBOSE=1 timeout 600 "${mpirun[@]}" -n 8 "$build/tools/xchg-bench" >"$out/mainjob-8.txt" 2>&1
