#!/bin/sh
# What a persistent request learned persists (XCHG_TUNING_OUT writes what
# dense persistent inits measured as rules of the form "persistent"): the
# 3-D FFT of apps/fft (xchg-fft3d, persistent transposes: one
# XCHG_Alltoallv_init per transpose and direction) run twice per repetition,
# `auto` only: first with XCHG_TUNING_OUT=FILE (a fresh file: the inits
# measure, the winners are written at MPI_Finalize), then with
# XCHG_TUNING_FILE=FILE (the inits take the rules). Per run: the FFT's
# init time (all its requests' inits, the slowest rank's) and time per
# transform; the XCHG_VERBOSE=1 lines of the second run (what decided each
# init) go to persist-measured.txt.
#   usage (repository root): sh docs/results/selection/online/persistent-init/persist.sh
#   NP=4 REPS=5 N=128 BUILD=build MPIRUN="mpirun.openmpi --oversubscribe"   (~1 min)
set -e
root=$(pwd)
out=$root/docs/results/selection/online/persistent-init
np=${NP:-4}
reps=${REPS:-5}
n=${N:-128}
build=$root/${BUILD:-build}
mpirun=${MPIRUN:-mpirun.openmpi --oversubscribe}
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset XCHG_ALLTOALLV XCHG_ONLINE XCHG_TUNING_FILE XCHG_TUNING_OUT XCHG_VIRTUAL_NODES
echo "rep,run,n,P,grid,algo,total_s,exchange_s,compute_s,checked,mode,init_s" > "$out/persist.csv"
: > "$out/persist-measured.txt"
fft() { # RUN-NAME ENV...
    name=$1
    shift
    # shellcheck disable=SC2086 # $mpirun is a command with options
    env "$@" timeout 600 $mpirun -n "$np" "$build/apps/fft/xchg-fft3d" --n="${n}x${n}x${n}" \
        --exchange=persistent --warmup=10 --iters=20 --algos=auto --baselines=none --no-header \
        > "$tmp/run.csv" 2> "$tmp/err.txt" || { tail -5 "$tmp/err.txt" >&2; exit 1; }
    grep , "$tmp/run.csv" | sed "s/^/$rep,$name,/" >> "$out/persist.csv"
}
for rep in $(seq "$reps"); do
    rm -f "$tmp/learned.json"
    echo "== rep $rep ($(date -u +%T))" >&2
    fft write XCHG_TUNING_OUT="$tmp/learned.json"
    fft read XCHG_TUNING_FILE="$tmp/learned.json" XCHG_VERBOSE=1
    grep '^xchg: ' "$tmp/err.txt" | sed "s/^/rep $rep: /" >> "$out/persist-measured.txt" || true
done
/usr/bin/python3 - "$out/persist.csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for run in ("write", "read"):
    init = [float(r["init_s"]) * 1e3 for r in rows if r["run"] == run]
    total = [float(r["total_s"]) * 1e3 for r in rows if r["run"] == run]
    print("%s: init %.1f ms (median of %d; %.1f-%.1f), %.2f ms per transform"
          % (run, statistics.median(init), len(init), min(init), max(init), statistics.median(total)))
EOF
