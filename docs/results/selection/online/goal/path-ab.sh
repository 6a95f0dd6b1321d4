#!/usr/bin/env bash
# Two builds of xchg side by side (the path around MPI's own collective):
# for each point, one xchg-bench run of each build in turn, rows `auto` and
# `mpi` (their order alternating between runs), RUNS times; then per point,
# row and build the median ratio to MPI's own collective of the same run.
#   usage: OLD=/path/to/old/build NEW=build docs/results/selection/online/goal/path-ab.sh OUT.csv
#   RUNS=8  NP=4  POINTS="alltoall:16 alltoall:256 allgather:16 ..."
#   MPIRUN="mpirun.openmpi --oversubscribe"
set -euo pipefail
out=$1
runs=${RUNS:-8}
np=${NP:-4}
mpirun=${MPIRUN:-mpirun.openmpi --oversubscribe}
points=${POINTS:-alltoall:16 alltoall:256 allgather:16 allgather:64 allgather:256 alltoallv:1024 alltoallv:4096}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "run,build,coll,S_bytes,row,ratio" >"$out"
for run in $(seq "$runs"); do
    for pt in $points; do
        coll=${pt%%:*} s=${pt##*:}
        rows=(-a mpi -a auto)
        [ $((run % 2)) = 0 ] && rows=(-a auto -a mpi)
        for build in old new; do
            dir=${NEW:-build}
            [ "$build" = old ] && dir=$OLD
            # shellcheck disable=SC2086 # $mpirun is a command with options
            $mpirun -n "$np" "$dir/tools/xchg-bench" -c "$coll" -m "$s:$s" "${rows[@]}" \
                -i 1000 -x 300 --csv "$tmp" >/dev/null 2>&1
            /usr/bin/python3 - "$run" "$build" "$coll" "$s" "$tmp" >>"$out" <<'PY'
import csv, sys
run, build, coll, s, path = sys.argv[1:]
for row in csv.DictReader(open(path)):
    if row["algorithm"] != "MPI":
        print(",".join([run, build, coll, s, row["algorithm"].replace(",", ";"), row["ratio"]]))
PY
        done
    done
done
/usr/bin/python3 - "$out" <<'PY'
import collections, csv, statistics, sys
ratios = collections.defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    ratios[(row["coll"], int(row["S_bytes"]), row["row"].split("[")[0], row["build"])].append(
        float(row["ratio"]))
for key in sorted(ratios):
    print(*key, f"{statistics.median(ratios[key]):.4f}", f"({len(ratios[key])} runs)")
PY
