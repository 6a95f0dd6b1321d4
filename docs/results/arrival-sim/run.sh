#!/bin/sh
# SMPI skew study of rma_direct (issue 12): xchg-simbench --skew under SimGrid
# SMPI, flat platform of 4 simulated nodes x 16 ranks (sim/platforms.py flat 4 16).
# One smpirun per (S, MIF, algorithm), -i 2 -x 1 (2 timed calls, simulated
# time is deterministic; the 2 calls see 2 different seeded arrival patterns).
# Run from the repository root after `ninja -C build-smpi`:
#   sh docs/results/arrival-sim/run.sh
# Environment: P (64), SIZES ("1024 64 8192"), MIFS ("1 32 128"), DIST (uniform),
#   ALGOS, TIMEOUT (seconds per smpirun, 150), OUT (docs/results/arrival-sim/results.csv).
# Extra SMPI flags on top of sim/smpi-flags: rma_direct polls its flags with
# MPI_Iprobe; SMPI injects smpi/iprobe = 1e-4 s of simulated time into every
# MPI_Iprobe (growing with consecutive calls), which made one 16-rank
# alltoall cost 1.6-8 ms. 3e-8 s (the measured cost of posting a small
# message) without growth is used instead, for every row.
P=${P:-64}
SIZES=${SIZES:-1024 64 8192}
MIFS=${MIFS:-1 32 128}
DIST=${DIST:-uniform}
ALGOS=${ALGOS:-mpi pairwise scattered rma_direct:scheme=copy,aware=1 rma_direct:scheme=copy,aware=0}
TIMEOUT=${TIMEOUT:-150}
OUT=${OUT:-docs/results/arrival-sim/results.csv}
root=$(pwd)
plat=$(mktemp -d)   # smpirun runs in here (it leaves its unrolled hostfile in the cwd)
sim/platforms.py flat 4 $((P / 4)) "$plat" >/dev/null
xml=$plat/flat-4x$((P / 4)).xml
hosts=$plat/flat-4x$((P / 4)).hosts
F="$(grep -v '^#' sim/smpi-flags) --cfg=smpi/iprobe:3e-8 --cfg=smpi/test:3e-8 --cfg=smpi/grow-injected-times:no --cfg=smpi/coll-selector:mpich"
[ -s "$OUT" ] || echo "coll,algo,P,nodes,Q,S,dist,iters,t_min,t_avg,t_max,max_rank_send,max_rank_offnode_send,max_node_offnode_send,max_node_offnode_recv,total_offnode,verified,skew_mif,skew_dist,message_us,span_min,span_avg,span_max,wall_s,status" >"$OUT"
for s in $SIZES; do
  for mif in $MIFS; do
    for a in $ALGOS; do
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086
      row=$(cd "$plat" && timeout "$TIMEOUT" smpirun -np "$P" -platform "$xml" -hostfile "$hosts" $F \
            "$root/build-smpi/sim/xchg-simbench" --coll alltoall -s "$s" -i 2 -x 1 \
            --skew "$mif" --skew-dist "$DIST" "$a" 2>"$plat/err" | grep '^alltoall,')
      wall=$(echo "$(date +%s.%N) - $t0" | bc)
      if [ -n "$row" ]; then echo "alltoall,\"$a\",${row#alltoall,"$a",},$wall,ok" >>"$OUT"
      else echo "alltoall,\"$a\",$P,4,$((P / 4)),$s,uniform,2,,,,,,,,,,$mif,$DIST,,,,,$wall,error-or-timeout" >>"$OUT"; fi
      echo "S=$s MIF=$mif $a: wall ${wall}s ${row:+ok}" >&2
    done
  done
done
rm -rf "$plat"
