#!/bin/sh
# Online selection in the applications on this machine (Open MPI, real
# time), as apps-smpi.sh does in simulation: for each application, `auto`
# with online selection (the default), `auto` with XCHG_ONLINE=0 (the cost
# model's choice), `mpi` (the MPI library's own through xchg), fixed
# algorithms and the MPI library's call made directly. Each row runs in a
# process of its own (in one process the first row pays for the start:
# at 4 ranks on 2 cores it read up to 1.7x the same call in a later row),
# REPS times, the order of the rows rotated at each repetition;
# evaluate.py takes each row's median over the repetitions.
#   fft      apps/fft (xchg-fft3d), 128^3 on NP ranks, --exchange=blocking
#            (online selection times blocking calls only), --warmup=30
#            transforms (every signature explores within them), then the
#            median of --iters=20.
#   closure  apps/closure (xchg-closure), the power-law graph (n = 2000,
#            m = 4000), --reps=5 closures per run (the minimum is
#            reported), each 8 blocking alltoallv calls whose sizes change
#            at every iteration (the same sizes again in the next closure).
#   The AMG halo exchange (apps/amg) uses persistent neighbourhood requests,
#   which measure their candidates at init: neighbor-init/run.sh compares it.
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
# ROW REP EXE ARGS...: one run of one row, its CSV rows (with `rep`) on stdout.
# ROW: an algorithm, MPI_Alltoallv (the library's call), auto (online
# selection) or auto0 (auto with XCHG_ONLINE=0).
run() {
    row=$1 rep=$2 exe=$3 online=1
    shift 3
    case $row in
    auto0) online=0 algos=auto ;;
    *) algos=$row ;;
    esac
    echo "== $row, rep $rep: $np ranks ($(date -u +%T))" >&2
    # shellcheck disable=SC2086 # $mpirun is a command with options
    if ! XCHG_ONLINE=$online XCHG_VERBOSE=1 timeout 600 $mpirun -n "$np" "$exe" "$@" \
        --algos="$algos" --no-header > "$tmp/run.csv" 2> "$tmp/err.txt"; then
        tail -5 "$tmp/err.txt" >&2
        exit 1
    fi
    grep '^xchg: online' "$tmp/err.txt" | sed "s/^/$app $row: /" >> "$out/exploration.txt" || true
    if [ "$row" = auto0 ]; then
        sed 's/,auto,/,auto[XCHG_ONLINE=0],/' "$tmp/run.csv"
    else
        cat "$tmp/run.csv"
    fi | grep , | sed "s/^/$rep,/"
}
# REP ROWS...: the rows rotated by REP
rotated() {
    k=$(($1 % ($# - 1)))
    shift
    i=0
    for r in "$@"; do [ $i -ge $k ] && printf '%s ' "$r"; i=$((i + 1)); done
    i=0
    for r in "$@"; do [ $i -lt $k ] && printf '%s ' "$r"; i=$((i + 1)); done
}
rm -f "$out/exploration.txt"
for app in $what; do
    case $app in
    fft)
        exe=$build/apps/fft/xchg-fft3d
        rows="MPI_Alltoallv auto auto0 mpi nonblocking pairwise scattered"
        set -- --n=128x128x128 --exchange=blocking --warmup=30 --iters=20
        echo "rep,n,P,grid,algo,total_s,exchange_s,compute_s,checked,mode,init_s" > "$out/fft.csv"
        ;;
    closure)
        exe=$build/apps/closure/xchg-closure
        rows="MPI_Alltoallv auto auto0 mpi nonblocking scattered"
        set -- --graph=powerlaw --n=2000 --m=4000 --reps=5
        echo "rep,graph,n,m,P,algo,iterations,paths,total_s,exchange_s,checked,counts_s,bytes_total,selection" \
            > "$out/closure.csv"
        ;;
    *) echo "apps-real.sh: unknown application $app (fft, closure)" >&2; exit 2 ;;
    esac
    for rep in $(seq "$reps"); do
        # shellcheck disable=SC2086 # $rows is a list
        for row in $(rotated "$rep" $rows); do
            if [ "$app" = fft ] && [ "$row" = MPI_Alltoallv ]; then
                # the library's call is the FFT's baseline, not an algorithm
                run "" "$rep" "$exe" "$@" --baselines=MPI_Alltoallv
            elif [ "$app" = fft ]; then
                run "$row" "$rep" "$exe" "$@" --baselines=none
            else
                run "$row" "$rep" "$exe" "$@"
            fi
        done >> "$out/$app.csv"
    done
done
