#!/bin/sh
# The per-level study of issue 11 (Collom, Li, Bienz 2023, Figures 8-10):
# BoomerAMG's SpMV halo exchanges on the rotated anisotropic diffusion
# problem through xchg, per level and algorithm, with virtual nodes of 4 and
# of 2 ranks. Run from the repository root (after scripts/setup):
#   sh docs/results/neighbor-amg/run.sh [--algos=LIST] [--n=N] [--ranks=P] [--iters=K]
# defaults: --algos=standard,mpi,locality,locality:dedup=1 --n=512 --ranks=8 --iters=1000
# (algorithms that this build of xchg does not register are reported and
# skipped). Writes results.csv, tables.md, neighbor-amg.png here and the
# tables of README.md (between its "tables" markers).
set -e
here=docs/results/neighbor-amg
algos=standard,mpi,locality,locality:dedup=1
n=512
ranks=8
iters=1000
for arg in "$@"; do
    case $arg in
    --algos=*) algos=${arg#--algos=} ;;
    --n=*) n=${arg#--n=} ;;
    --ranks=*) ranks=${arg#--ranks=} ;;
    --iters=*) iters=${arg#--iters=} ;;
    *) echo "usage: sh $here/run.sh [--algos=LIST] [--n=N] [--ranks=P] [--iters=K]" >&2; exit 2 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset XCHG_NEIGHBOR_ALLTOALLV XCHG_VIRTUAL_PLACEMENT
[ -f build/build.ninja ] || cmake -S . -B build -G Ninja -DMPI_C_COMPILER=mpicc.openmpi >/dev/null
ninja -C build xchg-amg >/dev/null
out=$here/results.csv
rm -f $out
for v in 4 2; do
    echo "== $ranks ranks, virtual nodes of $v, grid ${n}x$n: $algos" >&2
    # flock: one timing run at a time on a shared machine
    XCHG_VIRTUAL_NODES=$v flock /tmp/xchg-bench.lock timeout 600 \
        mpirun.openmpi --oversubscribe -n "$ranks" build/apps/amg/xchg-amg --n="$n" \
        --algos="$algos" --iters="$iters" --warmup=20 --reps=3 --solve --csv=$here/tmp.csv
    if [ -f $out ]; then tail -n +2 $here/tmp.csv >> $out; else cp $here/tmp.csv $out; fi
done
rm -f $here/tmp.csv
# Debian's python3 has python3-matplotlib (scripts/setup); a python3 earlier
# on PATH may not.
py=/usr/bin/python3
[ -x $py ] || py=python3
$py $here/report.py --algos="$algos" $out
