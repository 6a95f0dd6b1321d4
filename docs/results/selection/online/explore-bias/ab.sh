#!/usr/bin/env bash
# Timed runs (online.c) against timing every exploring call on the normal
# path: the same xchg-bench runs as run.sh (4 ranks, Open MPI, auto, mpi,
# linear and nonblocking rows, 1000 iterations after each row's warm-up,
# XCHG_VERBOSE=1) with two builds, alternating per point: OLD (before the
# timed runs, e.g. a build of commit b37fdd1) and NEW. Per candidate the
# exploration's median over its row, and auto's choice and its row over
# xchg's `mpi` row and MPI's own. Appends to ab.csv here; then tables.py.
#   usage: OLD=/path/to/old/build NEW=build RUNS=4 bash .../explore-bias/ab.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../../.."
old=${OLD:?OLD=the build of the commit before the timed runs}
new=${NEW:-build}
export OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
[ -s "$here/ab.csv" ] ||
    echo "build,np,coll,S,run,candidate,explored_us,row_us,auto_choice,auto_us,mpi_row_us,mpi_own_us" >"$here/ab.csv"
first=$(($(cut -d, -f5 "$here/ab.csv" | tail -n +2 | sort -n | tail -1) + 1))
for run in $(seq "$first" $((first + ${RUNS:-4} - 1))); do
    for point in "4 alltoallv 1024" "4 alltoallv 4096" "4 alltoall 64" "4 alltoall 1024"; do
        read -r np coll s <<<"$point"
        for which in old new; do
            build=$old
            [ "$which" = new ] && build=$new
            XCHG_VERBOSE=1 mpirun.openmpi -n "$np" "$build/tools/xchg-bench" -c "$coll" \
                -m "$s:$s" -a auto -a mpi -a linear -a nonblocking -i 1000 >"$tmp" 2>&1
            /usr/bin/python3 - "$tmp" "$which" "$np" "$coll" "$s" "$run" >>"$here/ab.csv" <<'PY'
import re, sys
text, which, np_, coll, s, run = open(sys.argv[1]).read(), *sys.argv[2:]
tried = re.search(r"tried (.*) \(median of", text)
explored = dict(re.findall(r"([a-z_]+)(?::\S*)? ([0-9.]+) us", tried.group(1))) if tried else {}
rows = dict(re.findall(rf"^\s+{s}\s+([a-z_]+)\s+([0-9.]+)\s", text, re.M))
auto = re.search(rf"^\s+{s}\s+auto\[([^\]]+)\]\s+([0-9.]+)", text, re.M)
own = re.search(rf"^\s+{s}\s+MPI\s+([0-9.]+)", text, re.M)
for cand in ("mpi", "linear", "nonblocking"):
    if cand in explored and cand in rows:
        print(f"{which},{np_},{coll},{s},{run},{cand},{explored[cand]},{rows[cand]},"
              f"{auto.group(1) if auto else ''},{auto.group(2) if auto else ''},"
              f"{rows.get('mpi', '')},{own.group(1) if own else ''}")
PY
        done
    done
done
/usr/bin/python3 "$here/tables.py"
