#!/usr/bin/env bash
# Where real.sh's 8-rank runs at e97cded chose differently from the
# committed set before it: OLD (a build of the commit before the timed
# runs, e.g. b37fdd1) and NEW alternating per point, each one xchg-bench
# run as real.sh makes it (--algo all, 500 iterations, 300 warm-up calls,
# 8 ranks on this machine, oversubscribed), XCHG_VERBOSE=1. Per run and
# build: auto's choice and its ratio to MPI's own, and the fastest row.
# Appends to ab8.csv here; the exploration lines go to ab8-explored.txt.
#   usage: OLD=/path/to/old/build NEW=build RUNS=2 bash .../timed-runs/ab8.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../../.."
old=${OLD:?OLD=the build of the commit before the timed runs}
new=${NEW:-build}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
[ -s "$here/ab8.csv" ] || echo "build,np,coll,S,run,auto_choice,auto_ratio,best,best_ratio" >"$here/ab8.csv"
for run in $(seq "${RUNS:-2}"); do
    for point in "8 allgather 1024" "8 allgather 4096" "8 alltoall 1024" "8 alltoall 16384" \
        "8 allgather 16384"; do
        read -r np coll s <<<"$point"
        for which in old new; do
            build=$old
            [ "$which" = new ] && build=$new
            XCHG_VERBOSE=1 timeout 600 mpirun.openmpi --oversubscribe -n "$np" \
                "$build/tools/xchg-bench" -c "$coll" -m "$s:$s" --algo all -i 500 -x 300 >"$tmp" 2>&1
            grep -m1 "tried" "$tmp" | sed "s/^/$which run $run: /" >>"$here/ab8-explored.txt"
            /usr/bin/python3 - "$tmp" "$which" "$np" "$coll" "$s" "$run" >>"$here/ab8.csv" <<'PY'
import re, sys
text, which, np_, coll, s, run = open(sys.argv[1]).read(), *sys.argv[2:]
rows = re.findall(rf"^\s+{s}\s+(\S+)\s+([0-9.]+)\s+([0-9.]+)", text, re.M)
auto = [r for r in rows if r[0].startswith("auto[")]
others = [r for r in rows if not r[0].startswith("auto") and r[0] != "MPI"]
best = min(others, key=lambda r: float(r[2]))
a = auto[0] if auto else ("auto[]", "nan", "nan")
print(f"{which},{np_},{coll},{s},{run},{a[0][5:-1].split(':')[0]},{a[2]},"
      f"{best[0].split(':')[0]},{best[2]}")
PY
        done
    done
done
