#!/usr/bin/env bash
# Does online selection's exploration time `mpi` as the benchmark's rows
# time it? At a few points (4 ranks, Open MPI), RUNS runs of xchg-bench
# with auto, mpi, linear and nonblocking rows and XCHG_VERBOSE=1: the
# exploration's median of each candidate (its line "tried ...") against
# that candidate's row in the same run (each row's whole warm-up before its
# first round, 1000 iterations). Then regime.c: whether an allreduce or a
# memory sweep before the barrier changes MPI's MPI_Alltoallv more than a
# linear exchange. Writes bias.csv and regime.csv here; then tables.py.
#   usage: bash docs/results/selection/online/explore-bias/run.sh
#   BUILD=build  RUNS=5
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../../.."
build=${BUILD:-build}
export OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.regime"' EXIT
echo "np,coll,S,run,candidate,explored_us,row_us" >"$here/bias.csv"
for point in "4 alltoallv 1024" "4 alltoallv 4096" "4 alltoall 64" "4 alltoall 1024"; do
    read -r np coll s <<<"$point"
    for run in $(seq "${RUNS:-5}"); do
        XCHG_VERBOSE=1 mpirun.openmpi -n "$np" "$build/tools/xchg-bench" -c "$coll" -m "$s:$s" \
            -a auto -a mpi -a linear -a nonblocking -i 1000 >"$tmp" 2>&1
        /usr/bin/python3 - "$tmp" "$np" "$coll" "$s" "$run" >>"$here/bias.csv" <<'PY'
import re, sys
text, np_, coll, s, run = open(sys.argv[1]).read(), *sys.argv[2:]
tried = re.search(r"tried (.*) \(median of", text)
explored = dict(re.findall(r"([a-z_]+)(?::\S*)? ([0-9.]+) us", tried.group(1))) if tried else {}
rows = dict(re.findall(rf"^\s+{s}\s+([a-z_]+)\s+([0-9.]+)\s", text, re.M))
for cand in ("mpi", "linear", "nonblocking"):
    if cand in explored and cand in rows:
        print(f"{np_},{coll},{s},{run},{cand},{explored[cand]},{rows[cand]}")
PY
    done
done
mpicc.openmpi -O2 "$here/regime.c" -o "$tmp.regime"
echo "run,mode,exchange,median_us" >"$here/regime.csv"
for run in 1 2 3 4 5; do
    mpirun.openmpi -n 4 "$tmp.regime" 1024 4000 512 | sed "s/^/$run,/" >>"$here/regime.csv"
done
/usr/bin/python3 "$here/tables.py"
