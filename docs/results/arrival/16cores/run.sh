#!/bin/bash
# The 16-core arrival study (docs/results/arrival/16cores/README.md): what ran
# on a lent machine with 16 cores (one node, not oversubscribed), Open MPI
# 4.1. 16 ranks on 4 virtual nodes of 4; alltoall and allgather; uniform and
# one-late arrival; MIF 1, 32, 128, 512; S = 1 B .. 1 MiB.
#   results.csv:   MPI, rma_direct copy (S <= 32 KiB) and zerocopy, shm_direct,
#                  each aware=1 and its non-aware baseline aware=0
#   baselines.csv: MPI and xchg's point-to-point algorithms (pairwise, linear,
#                  nonblocking, bruck; ring, recursive_doubling, bruck) beside
#                  rma_direct copy, under the same delays
# Run from the repository root with a Release build of Open MPI:
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi
#   ninja -C build-bench && bash docs/results/arrival/16cores/run.sh
#   /usr/bin/python3 docs/results/arrival/plot.py docs/results/arrival/16cores/results.csv \
#       docs/results/arrival/16cores > docs/results/arrival/16cores/table.md
#   /usr/bin/python3 docs/results/arrival/summary.py docs/results/arrival/16cores/results.csv \
#       > docs/results/arrival/16cores/summary.md
# Environment: MPIRUN ("mpirun --bind-to none"), B (build-bench), OUT (this folder).
# osc/sm serves the windows of MPI_Win_allocate; osc/pt2pt the windows over
# user memory (zerocopy): Open MPI 4.1's osc/rdma and osc/ucx did not start there.
set -u
MPIRUN=${MPIRUN:-mpirun --bind-to none}
B=${B:-build-bench}
OUT=${OUT:-docs/results/arrival/16cores}
export OMPI_MCA_osc=sm,pt2pt XCHG_VIRTUAL_NODES=4
run() { # csv, bench arguments...: append the rows of one xchg-bench run
  local csv=$1; shift
  rm -f /tmp/arrival16.csv
  timeout 120 $MPIRUN -x XCHG_VIRTUAL_NODES -x OMPI_MCA_osc -n 16 $B/tools/xchg-bench \
    -x 3 -r 2 --seed 1 --csv /tmp/arrival16.csv "$@" >/dev/null || echo "failed: $*" >&2
  [ -s /tmp/arrival16.csv ] || return 0
  if [ -s "$csv" ]; then tail -n +2 /tmp/arrival16.csv >>"$csv"; else cp /tmp/arrival16.csv "$csv"; fi
}
rm -f "$OUT/results.csv" "$OUT/baselines.csv"
for coll in alltoall allgather; do
  for dist in uniform one-late; do
    for mif in 1 32 128 512; do
      for S in 1 8 64 256 1024 4096 8192 32768 262144 1048576; do
        algos="-a rma_direct:scheme=zerocopy,aware=1 -a rma_direct:scheme=zerocopy,aware=0 -a shm_direct:aware=1 -a shm_direct:aware=0"
        [ $S -le 32768 ] && algos="-a rma_direct:scheme=copy,aware=1 -a rma_direct:scheme=copy,aware=0 $algos"
        it=40; [ $S -ge 262144 ] && it=16
        run "$OUT/results.csv" -c $coll -m $S:$S -i $it --skew $mif --skew-dist $dist $algos
      done
    done
  done
done
for coll in alltoall allgather; do
  base="-a pairwise -a linear -a nonblocking -a bruck -a rma_direct:scheme=copy"
  [ $coll = allgather ] && base="-a ring -a recursive_doubling -a bruck -a rma_direct:scheme=copy"
  for dist in uniform one-late; do
    for mif in 1 32 512; do
      for S in 8 256 8192 32768; do
        run "$OUT/baselines.csv" -c $coll -m $S:$S -i 40 --skew $mif --skew-dist $dist $base
      done
    done
  done
done
