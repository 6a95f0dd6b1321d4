#!/usr/bin/env bash
# Issue 26's goal on this machine with more runs and fewer rows than
# real.sh: for 4 and 8 ranks, alltoallv, alltoall and allgather, blocks of
# 16 B to 64 KiB (real.sh's 42 points), RUNS runs of one xchg-bench each,
# timing MPI's own collective, `auto` (online selection, exploring in its
# warm-up), `mpi` (MPI's own behind xchg's path) and the fastest fixed
# algorithm of real.sh's table at that point (real.json's `best`, when it
# is not `mpi`). Three rows instead of real.sh's twenty-odd, so a point
# takes about a second and each can be run many times: one run's ratio
# varies by more than the 2% goal (xchg's own `mpi` row, 40 runs of 4-rank
# alltoall 16 B: 0.87-1.15x), the median over many runs much less. The
# rows' order turns by one at every run (a row right after MPI's own read
# about 0.5% slower in 40 runs of three `mpi` rows), and the runs go round
# the points, so a change of load hits every point alike.
#   usage: docs/results/selection/online/goal/goal.sh
#   GOAL_RUNS=12  GOAL_NP="4 8"  GOAL_COLLS="alltoallv alltoall allgather"
#   GOAL_SIZES="16 64 256 1024 4096 16384 65536"  GOAL_ITERS=1000  GOAL_WARMUP=300
#   GOAL_BUILD=build  GOAL_MPIRUN="mpirun.openmpi --oversubscribe"  GOAL_EVALUATE=1
set -euo pipefail
cd "$(dirname "$0")/../../../../.."
here=docs/results/selection/online/goal
runs=${GOAL_RUNS:-12}
build=${GOAL_BUILD:-build}
mpirun=${GOAL_MPIRUN:-mpirun.openmpi --oversubscribe}
csv=$here/results.csv
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
best_of() { # real.json's fastest fixed row at (np, coll, S), "" when it is mpi
    /usr/bin/python3 - "$@" <<'PY'
import json, sys
np_, coll, s = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for c in json.load(open("docs/results/selection/online/real.json")):
    if c["case"] == [np_, coll, s] and c["best"] != "mpi":
        print(c["best"])
PY
}
rm -f "$csv"
for run in $(seq "$runs"); do
    for np in ${GOAL_NP:-4 8}; do
        for coll in ${GOAL_COLLS:-alltoallv alltoall allgather}; do
            for s in ${GOAL_SIZES:-16 64 256 1024 4096 16384 65536}; do
                rows=(auto mpi)
                best=$(best_of "$np" "$coll" "$s")
                [ -n "$best" ] && rows+=("$best")
                turn=$((run % ${#rows[@]}))
                rows=("${rows[@]:turn}" "${rows[@]:0:turn}")
                args=()
                for r in "${rows[@]}"; do args+=(-a "$r"); done
                # shellcheck disable=SC2086 # $mpirun is a command with options
                timeout 600 $mpirun -n "$np" "$build"/tools/xchg-bench -c "$coll" -m "$s:$s" \
                    "${args[@]}" -i "${GOAL_ITERS:-1000}" -x "${GOAL_WARMUP:-300}" \
                    --csv "$tmp" >/dev/null 2>&1
                [ -s "$csv" ] || printf 'run,np,best,%s\n' "$(head -1 "$tmp")" >"$csv"
                tail -n +2 "$tmp" | sed "s|^|$run,$np,\"$best\",|" >>"$csv"
            done
        done
    done
done
if [ "${GOAL_EVALUATE:-1}" != 0 ]; then
    /usr/bin/python3 "$here/goal.py"
fi
