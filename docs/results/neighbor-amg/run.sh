#!/bin/sh
# The per-level study of issue 11 (Collom, Li, Bienz 2023, Figures 8-10):
# BoomerAMG's SpMV halo exchanges on the rotated anisotropic diffusion
# problem through xchg, per level and algorithm, for each configuration
# RANKS:NODESIZE of --configs (XCHG_VIRTUAL_NODES=NODESIZE). Run from the
# repository root (after scripts/setup):
#   sh docs/results/neighbor-amg/run.sh [--algos=LIST] [--n=N] [--configs=8:4,8:2,16:4]
#                                       [--iters=K] [--maxload=L]
# defaults: --algos=standard,mpi,locality,locality:balance=bytes,locality:dedup=1
#           --n=512 --configs=8:4,8:2,16:4 --iters=300 --maxload=3
# Before each configuration it waits (up to 2 minutes, in 20 s steps) for
# the 1-minute load average to fall to --maxload, then runs anyway, and
# records the load it started under in load.txt (report.py prints it).
# Writes results.csv, load.txt, tables.md, neighbor-amg.png,
# neighbor-amg-init.png here and the tables of README.md (between its
# "tables" markers).
set -e
here=docs/results/neighbor-amg
algos=standard,mpi,locality,locality:balance=bytes,locality:dedup=1
n=512
configs=8:4,8:2,16:4
iters=300
maxload=3
for arg in "$@"; do
    case $arg in
    --algos=*) algos=${arg#--algos=} ;;
    --n=*) n=${arg#--n=} ;;
    --configs=*) configs=${arg#--configs=} ;;
    --iters=*) iters=${arg#--iters=} ;;
    --maxload=*) maxload=${arg#--maxload=} ;;
    *) echo "usage: sh $here/run.sh [--algos=LIST] [--n=N] [--configs=P:V,...] [--iters=K] [--maxload=L]" >&2
       exit 2 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset XCHG_NEIGHBOR_ALLTOALLV XCHG_VIRTUAL_PLACEMENT
[ -d build ] || { echo "run.sh: no build/ (scripts/setup)" >&2; exit 2; }
cmake --build build --target xchg-amg >/dev/null
out=$here/results.csv
rm -f $out $here/load.txt
load1() { cut -d' ' -f1 /proc/loadavg; }
for cfg in $(echo "$configs" | tr , ' '); do
    ranks=${cfg%%:*} v=${cfg#*:}
    waited=0
    while [ $waited -lt 120 ] && awk -v l="$(load1)" -v m="$maxload" 'BEGIN { exit !(l > m) }'; do
        echo "run.sh: load $(load1) > $maxload: waiting" >&2
        sleep 20
        waited=$((waited + 20))
    done
    echo "$ranks ranks, nodes of $v: $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores" >> $here/load.txt
    echo "== $ranks ranks, virtual nodes of $v, grid ${n}x$n: $algos (load $(load1))" >&2
    # flock: one timing run at a time on a shared machine
    XCHG_VIRTUAL_NODES=$v flock /tmp/xchg-bench.lock timeout 900 \
        mpirun.openmpi --oversubscribe -n "$ranks" build/apps/amg/xchg-amg --n="$n" \
        --algos="$algos" --iters="$iters" --warmup=20 --reps=3 --solve --csv=$here/tmp.csv
    if [ -f $out ]; then tail -n +2 $here/tmp.csv >> $out; else cp $here/tmp.csv $out; fi
done
rm -f $here/tmp.csv
# Debian's python3 has python3-matplotlib (scripts/setup); a python3 earlier
# on PATH (pyenv) may not: take the first that imports it.
py=
for c in /usr/bin/python3 python3; do
    if "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "run.sh: no python3 with matplotlib" >&2; exit 2; }
$py $here/report.py --algos="$algos" $out
