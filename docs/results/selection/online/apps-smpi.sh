#!/bin/sh
# Online selection in the applications, under SimGrid SMPI (simulated time:
# deterministic, so these numbers do not depend on the load of the machine
# that runs them; SMPI's MPICH-like collectives are the MPI library).
# For each application: `auto` with online selection (the
# default), `auto` with XCHG_ONLINE=0 (the cost model's choice), `mpi` (the
# MPI library's own through xchg), the best fixed algorithm of the
# application's own SMPI study, and the MPI library's call made directly.
#   fft      apps/fft (xchg-fft3d), 63x62x61 on 64 ranks (fat tree, nodes of
#            16), --exchange=blocking (online selection times blocking calls
#            only; the default persistent requests take the model's choice);
#            --warmup=30 transforms (each signature explores within its
#            first 26 calls), then the median of --iters=10.
#   closure  apps/closure (xchg-closure), the power-law graph on 64 ranks
#            (dragonfly, nodes of 16): one closure per row, 8-17 blocking
#            alltoallv calls whose sizes change every iteration, so the
#            whole run is what online selection costs or gains.
#   The AMG halo exchange (apps/amg) uses persistent neighbourhood requests,
#   which online selection does not serve (they keep the model): nothing to
#   compare there.
# XCHG_VERBOSE=1 lines of online selection (what was tried, what exploring
# cost) go to apps-smpi/exploration.txt.
#   usage (repository root): sh docs/results/selection/online/apps-smpi.sh [fft] [closure]
# Writes apps-smpi/fft.csv, apps-smpi/closure.csv, apps-smpi/exploration.txt.
set -e
root=$(pwd)
out=$root/docs/results/selection/online/apps-smpi
what=${*:-fft closure}
mkdir -p "$out"
build=$root/build-smpi
if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$root/cmake/smpi-toolchain.cmake" >/dev/null
fi
cmake --build "$build" --target xchg-fft3d xchg-closure >/dev/null
flags=$(grep -v '^#' "$root/sim/smpi-flags" | tr '\n' ' ')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset XCHG_ALLTOALLV XCHG_ONLINE XCHG_TUNING_FILE XCHG_VIRTUAL_NODES XCHG_VIRTUAL_PLACEMENT
run() { # LABEL ONLINE PLATFORM P Q EXE ARGS...: one smpirun, CSV on stdout
    label=$1 online=$2 kind=$3 p=$4 q=$5 exe=$6 status=0
    shift 6
    plat=$("$root/sim/platforms.py" "$kind" $(( (p + q - 1) / q )) "$q" "$tmp")
    echo "== $label: $kind, $p ranks, nodes of $q ($(date -u +%T))" >&2
    # shellcheck disable=SC2086
    (cd "$tmp" && XCHG_ONLINE=$online XCHG_VERBOSE=1 timeout 3600 smpirun -np "$p" -platform "$plat.xml" \
        -hostfile "$plat.hosts" $flags --cfg=smpi/coll-selector:mpich "$exe" "$@" \
        > run.csv 2> err.txt) || status=$?
    # xchg-fft3d under SMPI can crash after its rows, in fftw_destroy_plan
    # (FFTW's planner state is shared by the simulated ranks of the one
    # process); its rows and checks are complete by then
    if [ "${status:-0}" != 0 ]; then
        if [ "$status" = 139 ] && [ -s "$tmp/run.csv" ] && ! grep -q FAIL "$tmp/err.txt"; then
            echo "   (exit 139 after the rows: FFTW's plan destruction under SMPI)" >&2
        else
            tail -5 "$tmp/err.txt" >&2
            exit 1
        fi
    fi
    status=0
    grep '^xchg: online' "$tmp/err.txt" | sed "s/^/$label: /" >> "$out/exploration.txt" || true
    grep , "$tmp/run.csv" || true # the CSV rows, not smpirun's own lines
}
rm -f "$out/exploration.txt"
for app in $what; do
    case $app in
    fft)
        set -- --n=63x62x61 --exchange=blocking --warmup=30 --iters=10
        run "fft online" 1 fattree 64 16 "$build/apps/fft/xchg-fft3d" "$@" \
            --algos=auto,mpi,nonblocking --baselines=MPI_Alltoallv > "$out/fft.csv"
        run "fft XCHG_ONLINE=0" 0 fattree 64 16 "$build/apps/fft/xchg-fft3d" \
            "$@" --algos=auto --baselines=none --no-header |
            sed 's/,auto,/,auto[XCHG_ONLINE=0],/' >> "$out/fft.csv"
        ;;
    closure)
        set -- --graph=powerlaw --n=400 --m=800
        run "closure online" 1 dragonfly 64 16 "$build/apps/closure/xchg-closure" "$@" \
            --algos=MPI_Alltoallv,auto,mpi,nonblocking,scattered > "$out/closure.csv"
        run "closure XCHG_ONLINE=0" 0 dragonfly 64 16 \
            "$build/apps/closure/xchg-closure" "$@" --algos=auto --no-header | sed 's/,auto,/,auto[XCHG_ONLINE=0],/' >> "$out/closure.csv"
        ;;
    *) echo "apps-smpi.sh: unknown application $app (fft, closure)" >&2; exit 2 ;;
    esac
done
