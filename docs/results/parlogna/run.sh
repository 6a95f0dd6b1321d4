#!/bin/sh
# Measurements of ParLogNa / ParLinNa vs the MPI library's own MPI_Alltoallv
# and xchg's scattered, with tools/xchg-bench (Open MPI; 8 and 16 ranks;
# virtual nodes of 4 and 8 ranks; S = 16 B .. 16 KiB; uniform, normal, powerlaw).
# Run from the repository root:  sh docs/results/parlogna/run.sh [ITERS]
# Writes docs/results/parlogna/results.csv; plot.py then draws the figures.
set -e
iters=${1:-20}
here=docs/results/parlogna
out=$here/results.csv
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi >/dev/null
ninja -C build-bench >/dev/null
rm -f $out
for P in 8 16; do
  for Q in 4 8; do
    N=$(( (P + Q - 1) / Q ))
    set -- --algo "parlogna:radix=all" --algo "parlogna:radix=all,bounce=copy" \
      --algo "scattered:batch=1,2,4,8,16"
    if [ $N -gt 1 ]; then
      for r in 2 3 $Q; do
        set -- "$@" --algo "parlinna_coalesced:radix=$r,batch=1..$((N - 1))"
        set -- "$@" --algo "parlinna_staggered:radix=$r,batch=1,2,4,$(((N - 1) * Q))"
      done
    fi
    for dist in uniform normal powerlaw; do
      echo "P=$P nodes of $Q, $dist" >&2
      XCHG_VIRTUAL_NODES=$Q flock /tmp/xchg-bench.lock timeout 1200 \
        mpirun.openmpi --oversubscribe -n $P build-bench/tools/xchg-bench -m 16:16384 \
        -i "$iters" -x 2 -r 2 --dist $dist "$@" --csv $here/tmp.csv >/dev/null
      if [ -f $out ]; then tail -n +2 $here/tmp.csv >> $out; else cp $here/tmp.csv $out; fi
    done
  done
done
rm -f $here/tmp.csv
echo "wrote $out" >&2
