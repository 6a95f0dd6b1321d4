#!/bin/sh
# The AMG halo exchange (apps/amg, xchg-amg: BoomerAMG's SpMV halos through
# xchg's persistent neighbourhood alltoallv) with online selection at init
# (src/select/online_init.c) against the cost model's choice, the fixed
# algorithms and the MPI library's own, on this machine (Open MPI).
# For each configuration RANKS:NODE_SIZE and repetition, two launches:
#   online  --algos=auto,standard,locality,mpi (auto first at every level,
#           so its init pays the communicator's first exchanges; XCHG_VERBOSE=1
#           lines of the measurement go to measured.txt)
#   model   --algos=auto under XCHG_ONLINE=0 (the cost model's choice)
# xchg-amg times each row per level: --warmup starts, then --reps times
# --iters starts, the minimum over reps of the slowest rank's mean; and its
# init (init_s, the slowest rank's). Then tables.py: tables.md, amg.png and
# the README's table.
#   usage (repository root): sh docs/results/selection/online/neighbor-init/run.sh
#   REPS=5 N=512 CONFIGS="4:2 8:4 16:4" BUILD=build MPIRUN="mpirun.openmpi --oversubscribe"
#   (about 45 s; the README's tables)
set -e
root=$(pwd)
out=$root/docs/results/selection/online/neighbor-init
reps=${REPS:-5}
n=${N:-512}
configs=${CONFIGS:-4:2 8:4 16:4}
build=$root/${BUILD:-build}
mpirun=${MPIRUN:-mpirun.openmpi --oversubscribe}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset XCHG_NEIGHBOR_ALLTOALLV XCHG_ONLINE XCHG_TUNING_FILE XCHG_VIRTUAL_PLACEMENT
echo "rep,launch,ranks,regions,nregions,n,level,rows,nnz,active_ranks,algo,init,inter_msgs,intra_msgs,inter_bytes,intra_bytes,stats_source,init_s,time_s,check,pair_bytes_max,pair_unique_bytes_max,comm" > "$out/results.csv"
: > "$out/measured.txt"
for rep in $(seq "$reps"); do
    for config in $configs; do
        np=${config%%:*} node=${config##*:}
        for launch in online model; do
            if [ $launch = online ]; then online=1 algos=auto,standard,locality,mpi
            else online=0 algos=auto; fi
            echo "== rep $rep, $config, $launch ($(date -u +%T))" >&2
            # shellcheck disable=SC2086 # $mpirun is a command with options
            XCHG_ONLINE=$online XCHG_VERBOSE=1 XCHG_VIRTUAL_NODES=$node timeout 600 \
                $mpirun -n "$np" "$build/apps/amg/xchg-amg" --n="$n" --algos="$algos" \
                --iters=200 --warmup=20 --reps=3 --no-header --csv="$tmp/run.csv" \
                2> "$tmp/err.txt" || { tail -5 "$tmp/err.txt" >&2; exit 1; }
            grep '^xchg: online' "$tmp/err.txt" | sed "s/^/rep $rep $config: /" >> "$out/measured.txt" || true
            sed "s/^/$rep,$launch,/" "$tmp/run.csv" >> "$out/results.csv"
        done
    done
done
/usr/bin/python3 "$out/tables.py"
