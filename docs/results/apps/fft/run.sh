#!/bin/sh
# The xchg-fft3d study (apps/fft): a pencil-decomposed 3-D FFT whose two
# transposes run through xchg, every algorithm against MPI_Alltoallv called
# directly and FFTW's own fftw-mpi transform, for each configuration
# RANKS:NODESIZE of --configs (Open MPI, XCHG_VIRTUAL_NODES=NODESIZE) and
# each grid of --sizes (uniform and non-uniform exchanges: 64x64x64 divides
# evenly on 8 and 16 ranks, the others do not). Run from the repository
# root (after scripts/setup):
#   sh docs/results/apps/fft/run.sh [--algos=LIST] [--sizes=LIST] [--configs=8:4,16:4]
#                                   [--iters=K] [--exchange=persistent|blocking]
#                                   [--maxload=L] [--out=DIR]
# defaults: every registered alltoallv algorithm (and parlogna:radix=4),
#           --sizes=31x29x27,64x64x64,63x62x61,127x126x125 --configs=8:4,16:4
#           --iters=50 --exchange=persistent --maxload=3 --out=docs/results/apps/fft
# Before each point it waits (up to 2 minutes, in 20 s steps) for the
# 1-minute load average to fall to --maxload, then runs anyway, and records
# the load it started under in load.txt. Writes fft.csv, load.txt,
# notes.txt (xchg-fft3d's stderr: block sizes, the algorithms xchg ran with
# their parameters, the check's errors), tables.md and fft.png (report.py)
# in --out.
set -e
src=docs/results/apps/fft
out=$src
algos=auto,mpi,pairwise,nonblocking,scattered,linear,multipair_blocking,waitany,testany,parlogna,parlogna:radix=4,parlinna_coalesced,parlinna_staggered,hierarchical,multileader,node_aware,locality_aware,multileader_node_aware
sizes=31x29x27,64x64x64,63x62x61,127x126x125
configs=8:4,16:4
iters=50
exchange=persistent
maxload=3
for arg in "$@"; do
    case $arg in
    --algos=*) algos=${arg#--algos=} ;;
    --sizes=*) sizes=${arg#--sizes=} ;;
    --configs=*) configs=${arg#--configs=} ;;
    --iters=*) iters=${arg#--iters=} ;;
    --exchange=*) exchange=${arg#--exchange=} ;;
    --maxload=*) maxload=${arg#--maxload=} ;;
    --out=*) out=${arg#--out=} ;;
    *) echo "usage: sh $src/run.sh [--algos=LIST] [--sizes=LIST] [--configs=P:V,...] [--iters=K]" \
            "[--exchange=persistent|blocking] [--maxload=L] [--out=DIR]" >&2
       exit 2 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset XCHG_ALLTOALLV XCHG_VIRTUAL_PLACEMENT
[ -d build ] || { echo "run.sh: no build/ (scripts/setup)" >&2; exit 2; }
cmake --build build --target xchg-fft3d >/dev/null
[ -x build/apps/fft/xchg-fft3d ] || { echo "run.sh: xchg-fft3d not built (no FFTW)" >&2; exit 2; }
mkdir -p "$out"
csv=$out/fft.csv
rm -f "$csv" "$out/load.txt" "$out/notes.txt"
load1() { cut -d' ' -f1 /proc/loadavg; }
header=
for cfg in $(echo "$configs" | tr , ' '); do
    ranks=${cfg%%:*} v=${cfg#*:}
    for n in $(echo "$sizes" | tr , ' '); do
        waited=0
        while [ $waited -lt 120 ] && awk -v l="$(load1)" -v m="$maxload" 'BEGIN { exit !(l > m) }'; do
            echo "run.sh: load $(load1) > $maxload: waiting" >&2
            sleep 20
            waited=$((waited + 20))
        done
        echo "$ranks ranks, nodes of $v, $n: $(date -u +%FT%TZ), load average" \
             "$(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores" >> "$out/load.txt"
        echo "== $ranks ranks, virtual nodes of $v, grid $n (load $(load1))" >&2
        # flock: one timing run at a time on a shared machine
        XCHG_VIRTUAL_NODES=$v flock /tmp/xchg-bench.lock timeout 900 \
            mpirun.openmpi --oversubscribe -x XCHG_VIRTUAL_NODES -n "$ranks" \
            build/apps/fft/xchg-fft3d --n="$n" --algos="$algos" --iters="$iters" --warmup=5 \
            --exchange="$exchange" $header >> "$csv" 2>> "$out/notes.txt" ||
            { tail -5 "$out/notes.txt" >&2; echo "run.sh: xchg-fft3d failed" >&2; exit 1; }
        header=--no-header
    done
done
# Debian's python3 has python3-matplotlib (scripts/setup); a python3 earlier
# on PATH (pyenv) may not: take the first that imports it.
py=
for c in /usr/bin/python3 python3; do
    if "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "run.sh: no python3 with matplotlib" >&2; exit 2; }
$py $src/report.py "$csv" --png="$out/fft.png" --tables="$out/tables.md"
