#!/usr/bin/env bash
# The README's main job (8 ranks, alltoallv, every algorithm, xchg-bench's
# defaults) with two builds alternating, XCHG_VERBOSE=1 for the exploration
# lines; then tables.py collects the runs into main-job.csv and
# explored.csv here (appending, under the builds' labels) and remakes
# table.md and long-runs.png.
#   OLD=<build dir> OLD_LABEL=<commit> NEW=build NEW_LABEL=<commit> \
#       RUNS=10 bash docs/results/selection/online/long-runs/run.sh
# Open MPI; about 20 s a run on the 2-core machine. Nothing else should run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../../.."
: "${OLD:?OLD=<build dir of the build before>}" "${OLD_LABEL:?}" "${NEW_LABEL:?}"
new=${NEW:-build}
export OMPI_MCA_rmaps_base_oversubscribe=1
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
for run in $(seq "${RUNS:-10}"); do
    for side in old new; do
        dir=$([ "$side" = old ] && echo "$OLD" || echo "$new")
        XCHG_VERBOSE=1 timeout 300 mpirun.openmpi -n 8 "$dir/tools/xchg-bench" \
            --csv "$raw/$side-$run.csv" >"$raw/$side-$run.txt" 2>&1
    done
done
/usr/bin/python3 "$here/tables.py" --collect "$raw" "$OLD_LABEL" "$NEW_LABEL"
/usr/bin/python3 "$here/tables.py"
