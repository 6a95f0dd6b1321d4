#!/usr/bin/env bash
# What alltoallv's size agreement costs on this machine (Open MPI, shared
# memory, oversubscribed when P > cores): xchg-bench's auto row (automatic
# selection) with XCHG_AGREE=always (one MPI_Allreduce of two int64 before
# every call) and with XCHG_AGREE=sampled (the default: after the first calls
# only calls 4, 16, 64, 256 and every 1024th agree, so the median call does not),
# same sizes, same choice. Writes agreement-openmpi.csv and prints a table.
#   usage: docs/results/selection/agreement-openmpi.sh [P ...]   (default 2 4 8)
set -euo pipefail
cd "$(dirname "$0")/../../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
out=docs/results/selection/agreement-openmpi.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "P,S,mode,algorithm,median_us,mpi_median_us" > "$out"
ps=("$@")
[ ${#ps[@]} -gt 0 ] || ps=(2 4 8)
for P in "${ps[@]}"; do
    for mode in always sampled; do
        XCHG_AGREE=$mode mpirun.openmpi --oversubscribe -x XCHG_AGREE -n "$P" \
            build/tools/xchg-bench -m 16:16384 -i 400 -x 40 -r 10 -a auto --csv "$tmp/b.csv" \
            >/dev/null
        /usr/bin/python3 - "$tmp/b.csv" "$P" "$mode" >> "$out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
mpi = {r["S_bytes"]: r["median_us"] for r in rows if r["algorithm"] == "MPI"}
for r in rows:
    if r["algorithm"] != "MPI":
        print(f'{sys.argv[2]},{r["S_bytes"]},{sys.argv[3]},"{r["algorithm"]}",{r["median_us"]},{mpi[r["S_bytes"]]}')
PY
    done
done
/usr/bin/python3 - "$out" <<'PY'
import csv, sys, collections
t = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    t[(int(r["P"]), int(r["S"]))][r["mode"]] = float(r["median_us"])
print("| P | S | auto, sampled (us) | auto, always agreeing (us) | agreement (us) | share |")
print("|---|---|---|---|---|---|")
for (P, S), m in sorted(t.items()):
    a, s = m["always"], m["sampled"]
    print(f"| {P} | {S} | {s:.1f} | {a:.1f} | {a - s:.1f} | {(a - s) / a * 100:.0f}% |")
PY
