#!/bin/sh
# Online selection in the applications on this machine (Open MPI, real
# time), as apps-smpi.sh does in simulation: for each application, `auto`
# with online selection (the default), `auto` with XCHG_ONLINE=0 (the cost
# model's choice), `mpi` (the MPI library's own through xchg), fixed
# algorithms and the MPI library's call made directly. Each application
# runs REPS times, the XCHG_ONLINE=1 and =0 runs alternating; evaluate.py
# takes each row's median over the repetitions (a loaded or oversubscribed
# machine varies from run to run by more than the differences measured).
#   fft      apps/fft (xchg-fft3d), 64^3 on NP ranks, --exchange=blocking
#            (online selection times blocking calls only), --warmup=30
#            transforms (every signature explores within them), then the
#            median of --iters=20.
#   closure  apps/closure (xchg-closure), the power-law graph (n = 400,
#            m = 800): one closure per row, 8-17 blocking alltoallv calls
#            whose sizes change at every iteration.
#   The AMG halo exchange (apps/amg) uses persistent neighbourhood requests,
#   which online selection does not serve: nothing to compare there.
# XCHG_VERBOSE=1 lines of online selection go to apps-real/exploration.txt.
#   usage (repository root): sh docs/results/selection/online/apps-real.sh [fft] [closure]
#   XCHG_APPS_NP=4  XCHG_APPS_REPS=5  XCHG_APPS_BUILD=build
#   XCHG_APPS_MPIRUN="mpirun.openmpi --oversubscribe"
# Writes apps-real/fft.csv and apps-real/closure.csv (the applications' CSV
# rows with a first column `rep`), apps-real/exploration.txt; then
# `evaluate.py apps real` makes apps-real.md and the README's table.
set -e
root=$(pwd)
out=$root/docs/results/selection/online/apps-real
what=${*:-fft closure}
np=${XCHG_APPS_NP:-4}
reps=${XCHG_APPS_REPS:-5}
build=$root/${XCHG_APPS_BUILD:-build}
mpirun=${XCHG_APPS_MPIRUN:-mpirun.openmpi --oversubscribe}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset XCHG_ALLTOALLV XCHG_ONLINE XCHG_TUNING_FILE XCHG_VIRTUAL_NODES XCHG_VIRTUAL_PLACEMENT
run() { # LABEL ONLINE REP EXE ARGS...: one run, its CSV rows (with `rep`) on stdout
    label=$1 online=$2 rep=$3 exe=$4
    shift 4
    echo "== $label, rep $rep: $np ranks ($(date -u +%T))" >&2
    # shellcheck disable=SC2086 # $mpirun is a command with options
    if ! XCHG_ONLINE=$online XCHG_VERBOSE=1 timeout 600 $mpirun -n "$np" "$exe" "$@" \
        > "$tmp/run.csv" 2> "$tmp/err.txt"; then
        tail -5 "$tmp/err.txt" >&2
        exit 1
    fi
    grep '^xchg: online' "$tmp/err.txt" | sed "s/^/$label: /" >> "$out/exploration.txt" || true
    if [ "$online" = 0 ]; then
        sed 's/,auto,/,auto[XCHG_ONLINE=0],/' "$tmp/run.csv"
    else
        cat "$tmp/run.csv"
    fi | grep , | grep -v '^n,\|^graph,' | sed "s/^/$rep,/"
}
rm -f "$out/exploration.txt"
for app in $what; do
    case $app in
    fft)
        exe=$build/apps/fft/xchg-fft3d
        set -- --n=64x64x64 --exchange=blocking --warmup=30 --iters=20
        csv=$out/fft.csv
        echo "rep,n,P,grid,algo,total_s,exchange_s,compute_s,checked,mode,init_s" > "$csv"
        for rep in $(seq "$reps"); do
            run "fft online" 1 "$rep" "$exe" "$@" --algos=auto,mpi,nonblocking,pairwise,scattered \
                --baselines=MPI_Alltoallv >> "$csv"
            run "fft XCHG_ONLINE=0" 0 "$rep" "$exe" "$@" --algos=auto --baselines=none >> "$csv"
        done
        ;;
    closure)
        exe=$build/apps/closure/xchg-closure
        set -- --graph=powerlaw --n=400 --m=800
        csv=$out/closure.csv
        echo "rep,graph,n,m,P,algo,iterations,paths,total_s,exchange_s,checked,counts_s,bytes_total,selection" > "$csv"
        for rep in $(seq "$reps"); do
            run "closure online" 1 "$rep" "$exe" "$@" \
                --algos=MPI_Alltoallv,auto,mpi,nonblocking,scattered >> "$csv"
            run "closure XCHG_ONLINE=0" 0 "$rep" "$exe" "$@" --algos=auto >> "$csv"
        done
        ;;
    *) echo "apps-real.sh: unknown application $app (fft, closure)" >&2; exit 2 ;;
    esac
done
