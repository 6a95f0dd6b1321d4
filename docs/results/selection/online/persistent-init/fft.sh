#!/bin/sh
# A real program's persistent requests: the 3-D FFT of apps/fft (xchg-fft3d,
# FFTW for the 1-D transforms), whose two transposes are persistent xchg
# alltoallv requests (--exchange=persistent, its default: one
# XCHG_Alltoallv_init per transpose and direction, XCHG_Start + XCHG_Wait at
# each transform), on this machine (Open MPI). Rows: `auto` (online selection
# at init), `auto` under XCHG_ONLINE=0 (the model's choice), `mpi` (the
# library's own persistent alltoallv through xchg), fixed algorithms, and
# the MPI library's MPI_Alltoallv called directly (the FFT's baseline).
# Each row in a process of its own, REPS times, the order rotated at each
# repetition; --warmup=30 transforms, then the median of --iters=20.
# XCHG_VERBOSE=1 lines of the measurements go to fft-measured.txt.
#   usage (repository root): sh docs/results/selection/online/persistent-init/fft.sh
#   NP=4 REPS=5 N=128 BUILD=build MPIRUN="mpirun.openmpi --oversubscribe"   (~3 min)
set -e
root=$(pwd)
out=$root/docs/results/selection/online/persistent-init
np=${NP:-4}
reps=${REPS:-5}
n=${N:-128}
build=$root/${BUILD:-build}
mpirun=${MPIRUN:-mpirun.openmpi --oversubscribe}
rows="MPI_Alltoallv auto auto0 mpi nonblocking pairwise scattered"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset XCHG_ALLTOALLV XCHG_ONLINE XCHG_TUNING_FILE XCHG_VIRTUAL_NODES XCHG_VIRTUAL_PLACEMENT
echo "rep,n,P,grid,algo,total_s,exchange_s,compute_s,checked,mode,init_s" > "$out/fft.csv"
: > "$out/fft-measured.txt"
for rep in $(seq "$reps"); do
    k=$((rep % 7)) i=0 order=""
    for r in $rows; do [ $i -ge $k ] && order="$order $r"; i=$((i + 1)); done
    i=0
    for r in $rows; do [ $i -lt $k ] && order="$order $r"; i=$((i + 1)); done
    for row in $order; do
        online=1 algos=$row baselines=none
        case $row in
        auto0) online=0 algos=auto ;;
        MPI_Alltoallv) algos="" baselines=MPI_Alltoallv ;;
        esac
        echo "== $row, rep $rep ($(date -u +%T))" >&2
        # shellcheck disable=SC2086 # $mpirun is a command with options
        XCHG_ONLINE=$online XCHG_VERBOSE=1 timeout 600 $mpirun -n "$np" \
            "$build/apps/fft/xchg-fft3d" --n="${n}x${n}x${n}" --exchange=persistent \
            --warmup=30 --iters=20 --algos="$algos" --baselines="$baselines" --no-header \
            > "$tmp/run.csv" 2> "$tmp/err.txt" || { tail -5 "$tmp/err.txt" >&2; exit 1; }
        grep '^xchg: online' "$tmp/err.txt" | sed "s/^/rep $rep $row: /" >> "$out/fft-measured.txt" || true
        if [ "$row" = auto0 ]; then sed 's/,auto,/,auto[XCHG_ONLINE=0],/' "$tmp/run.csv"
        else cat "$tmp/run.csv"; fi | grep , | sed "s/^/$rep,/" >> "$out/fft.csv"
    done
done
/usr/bin/python3 "$out/tables.py"
