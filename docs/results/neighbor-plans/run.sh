#!/usr/bin/env bash
# Setup (init) against per-start cost of the persistent neighbourhood
# alltoallv, and the blocking call with its plan cached by the pattern, on
# this machine with Open MPI (virtual nodes). Writes results.csv and
# tables.md here; the README quotes them.
#   docs/results/neighbor-plans/run.sh [NP] [NODE_SIZE]   (default 8 4)
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/neighbor-plans
np=${1:-8}
q=${2:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
bench=build/tools/xchg-neighbor-bench
algos=(standard mpi locality locality:balance=bytes locality:dedup=1)
rm -f $here/results.csv
header=()
for pattern in "stencil --n 512" "stencil --n 512 --width 3" "coarse --count 256 --fraction 0.5" \
               "coarse --count 4096 --fraction 1"; do
    # shellcheck disable=SC2086
    XCHG_VIRTUAL_NODES=$q mpirun.openmpi --oversubscribe -n "$np" $bench --pattern $pattern \
        --node-size "$q" --starts 500 --warmup 20 "${header[@]}" --csv $here/results.csv \
        "${algos[@]}"
    header=(--no-header)
done
/usr/bin/python3 - "$here" <<'PY'
import csv, sys
here = sys.argv[1]
rows = list(csv.DictReader(open(f"{here}/results.csv")))
out = ["| pattern | algorithm | init (us) | start (us) | init / start | blocking (us) "
       "| max inter-node msgs | max intra-node msgs | max inter-node bytes |",
       "|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    pat = f"{r['pattern']} n={r['n']} w={r['width']}" if r["pattern"] == "stencil" else \
          f"{r['pattern']} count={r['count']} f={r['fraction']}"
    out.append(f"| {pat} | {r['algorithm']} | {float(r['init_us']):.0f} | "
               f"{float(r['start_us']):.1f} | {float(r['init_over_start']):.1f} | "
               f"{float(r['blocking_us']):.1f} | {r['max_inter_msgs']} | {r['max_intra_msgs']} | "
               f"{r['max_inter_bytes']} |")
open(f"{here}/tables.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
