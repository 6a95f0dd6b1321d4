#!/bin/sh
# Arrival-pattern-aware one-sided Direct alltoall and allgather (issue 12,
# src/coll/arrival/rma_direct.c) under imbalanced process arrival patterns,
# measured with tools/xchg-bench --skew MIF --skew-dist D (Qian & Afsahi
# 2011, Sections 3.2 and 6): after a barrier each rank waits a seeded delay
# bounded by MIF x T(S), T(S) the ping-pong time of one S-byte message, then
# enters the collective. Rows: MPI's own collective; rma_direct with
# scheme=copy and scheme=zerocopy (PAP_Direct; aware=0: the paper's Direct);
# shm_direct (PAP_Shm_Direct; aware=0: Shm_Direct) on virtual nodes of
# NODES ranks (XCHG_VIRTUAL_NODES, default 2: 4 nodes of 2 at P=8).
# Columns (CSV): median_us = completion time (mean over ranks of exit minus
# own arrival, median over iterations), span_us = last exit - first arrival.
#
# Run from the repository root:
#   sh docs/results/arrival/run.sh                 full study (quiet machine!)
#   P=4 ITER=20 SIZES=64:256 MIFS="1 32" DISTS=uniform QUIET=0 \
#     OUT=/tmp/arrival.csv sh docs/results/arrival/run.sh     a tiny check
# Environment: P (ranks, 8), NODES (ranks per virtual node, 2), ITER (iterations per row, 200), ROUNDS (10),
#   SIZES (-m of xchg-bench, 1:65536), MIFS ("1 32 128 512"),
#   DISTS ("uniform one-late"), COLLS ("alltoall allgather"),
#   QUIET (1: wait until the CPUs are 90% idle before each run),
#   OUT (docs/results/arrival/results.csv).
# Open MPI 4.1 on a machine without an RDMA-capable BTL offers windows over
# user memory only through osc/pt2pt, so it is selected (OMPI_MCA_osc): else
# zerocopy would silently run the copy path. plot.py draws the figures.
set -e
P=${P:-8}
NODES=${NODES:-2}
ITER=${ITER:-200}
ROUNDS=${ROUNDS:-10}
SIZES=${SIZES:-1:65536}
MIFS=${MIFS:-1 32 128 512}
DISTS=${DISTS:-uniform one-late}
COLLS=${COLLS:-alltoall allgather}
QUIET=${QUIET:-1}
here=docs/results/arrival
OUT=${OUT:-$here/results.csv}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_osc=sm,pt2pt
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi >/dev/null
ninja -C build-bench >/dev/null

cpu_idle_total() { awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat; }
wait_quiet() { # until the CPUs were 90% idle over 3 s, at most QUIET_WAIT s
  [ "$QUIET" = 1 ] || return 0
  waited=0
  while [ $waited -lt "${QUIET_WAIT:-1800}" ]; do
    a=$(cpu_idle_total); sleep 3; b=$(cpu_idle_total)
    [ $(( (${b% *} - ${a% *}) * 100 )) -ge $(( (${b#* } - ${a#* }) * 90 )) ] && return 0
    waited=$((waited + 3))
  done
  echo "  warning: the machine was not quiet within ${QUIET_WAIT:-1800} s" >&2
}

tmp=$(mktemp)
rm -f "$OUT"
for coll in $COLLS; do
  for dist in $DISTS; do
    for mif in $MIFS; do
      echo "$coll --skew $mif --skew-dist $dist (P=$P)" >&2
      wait_quiet
      XCHG_VIRTUAL_NODES=$NODES mpirun.openmpi --oversubscribe -x XCHG_VIRTUAL_NODES -n "$P" \
        build-bench/tools/xchg-bench -c "$coll" \
        -m "$SIZES" -i "$ITER" -x $((ITER / 10 + 1)) -r "$ROUNDS" --seed 1 \
        --skew "$mif" --skew-dist "$dist" \
        --algo rma_direct:scheme=copy,aware=1 --algo rma_direct:scheme=copy,aware=0 \
        --algo rma_direct:scheme=zerocopy,aware=1 --algo rma_direct:scheme=zerocopy,aware=0 \
        --algo shm_direct:aware=1 --algo shm_direct:aware=0 \
        --csv "$tmp" >/dev/null
      if [ -s "$OUT" ]; then tail -n +2 "$tmp" >>"$OUT"; else cat "$tmp" >"$OUT"; fi
    done
  done
done
rm -f "$tmp"
echo "wrote $OUT ($(($(wc -l <"$OUT") - 1)) rows)" >&2
