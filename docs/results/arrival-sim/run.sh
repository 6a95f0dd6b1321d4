#!/bin/sh
# SMPI skew study of rma_direct (issue 12): xchg-simbench --skew under SimGrid
# SMPI, flat platform of NODES simulated nodes x P/NODES ranks
# (sim/platforms.py flat NODES P/NODES). Alltoall by default, allgather with
# COLL=allgather (needs an xchg-simbench with --coll allgather).
# One smpirun per (S, MIF, algorithm), -i 2 -x 1 (2 timed calls, simulated
# time is deterministic; the 2 calls see 2 different seeded arrival patterns).
# Run from the repository root after `ninja -C build-smpi`:
#   sh docs/results/arrival-sim/run.sh
# Environment: P (64), NODES (4), COLL (alltoall or allgather), SIZES
#   ("1024 64 8192"), MIFS ("1 32 128"), DIST (uniform), ALGOS (default per
#   COLL, below), TIMEOUT (seconds per smpirun, 150), OUT
#   (docs/results/arrival-sim/results.csv), BIN (build-smpi/sim/xchg-simbench,
#   relative to the repository root), ERRDIR (unset; if set, the stderr of
#   every smpirun that gave no row is kept there).
# Extra SMPI flags on top of sim/smpi-flags: rma_direct polls its flags with
# MPI_Iprobe; SMPI injects smpi/iprobe = 1e-4 s of simulated time into every
# MPI_Iprobe (growing with consecutive calls), which made one 16-rank
# alltoall cost 1.6-8 ms. 3e-8 s (the measured cost of posting a small
# message) without growth is used instead, for every row (IPROBE, 3e-8,
# changes it for diagnostics only: README.md, 128 ranks).
# Timeout: at TIMEOUT seconds the simulator (smpimain, smpirun's child) gets
# SIGINT; SimGrid then logs (ker_engine, INFO) the simulated time it reached
# and the state of every rank, and the row's status is
# timeout@sim=SECONDS (error-or-timeout if that line is missing).
P=${P:-64}
NODES=${NODES:-4}
COLL=${COLL:-alltoall}
Q=$((P / NODES))
SIZES=${SIZES:-1024 64 8192}
MIFS=${MIFS:-1 32 128}
DIST=${DIST:-uniform}
if [ "$COLL" = allgather ]; then
  ALGOS=${ALGOS:-mpi ring recursive_doubling bruck rma_direct:scheme=copy,aware=1 rma_direct:scheme=copy,aware=0}
else
  ALGOS=${ALGOS:-mpi pairwise scattered rma_direct:scheme=copy,aware=1 rma_direct:scheme=copy,aware=0}
fi
TIMEOUT=${TIMEOUT:-150}
OUT=${OUT:-docs/results/arrival-sim/results.csv}
BIN=${BIN:-build-smpi/sim/xchg-simbench}
IPROBE=${IPROBE:-3e-8}
root=$(pwd)
plat=$(mktemp -d)   # smpirun runs in here (it leaves its unrolled hostfile in the cwd)
sim/platforms.py flat "$NODES" "$Q" "$plat" >/dev/null
xml=$plat/flat-${NODES}x$Q.xml
hosts=$plat/flat-${NODES}x$Q.hosts
F="$(grep -v '^#' sim/smpi-flags) --cfg=smpi/iprobe:$IPROBE --cfg=smpi/test:$IPROBE --cfg=smpi/grow-injected-times:no --cfg=smpi/coll-selector:mpich --log=ker_engine.thresh:info"
[ -s "$OUT" ] || echo "coll,algo,P,nodes,Q,S,dist,iters,t_min,t_avg,t_max,max_rank_send,max_rank_offnode_send,max_node_offnode_send,max_node_offnode_recv,total_offnode,verified,skew_mif,skew_dist,message_us,span_min,span_avg,span_max,wall_s,status" >"$OUT"
for s in $SIZES; do
  for mif in $MIFS; do
    for a in $ALGOS; do
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086
      row=$(cd "$plat" && { smpirun -np "$P" -platform "$xml" -hostfile "$hosts" $F \
            "$root/$BIN" --coll "$COLL" -s "$s" -i 2 -x 1 \
            --skew "$mif" --skew-dist "$DIST" "$a" 2>"$plat/err" &
          sp=$!
          (sleep "$TIMEOUT"; for c in $(ps -o pid= --ppid "$sp"); do kill -INT "$c"; done
           sleep 30; kill "$sp") >/dev/null 2>&1 &
          wd=$!
          wait "$sp"; kill "$wd" 2>/dev/null; } | grep "^$COLL,")
      wall=$(echo "$(date +%s.%N) - $t0" | bc)
      if [ -n "$row" ]; then echo "$COLL,\"$a\",${row#"$COLL","$a",},$wall,ok" >>"$OUT"
      else
        simt=$(sed -n 's/^\[\([0-9.]*\)\] \[ker_engine\/INFO\] CTRL-C.*/\1/p' "$plat/err" | head -n 1)
        st=error-or-timeout; [ -z "$simt" ] || st="timeout@sim=${simt}s"
        echo "$COLL,\"$a\",$P,$NODES,$Q,$s,uniform,2,,,,,,,,,,$mif,$DIST,,,,,$wall,$st" >>"$OUT"
      fi
      echo "S=$s MIF=$mif $a: wall ${wall}s ${row:+ok}" >&2
      [ -z "$row" ] && [ -n "$ERRDIR" ] && mkdir -p "$ERRDIR" &&
        cp "$plat/err" "$ERRDIR/$COLL-P$P-$DIST-S$s-MIF$mif-$(echo "$a" | tr ':=,' '___').err"
      [ -n "$row" ] || grep -v '^\[.*\] \[ker_engine/INFO\] Actor' "$plat/err" | tail -n 3 >&2
    done
  done
done
rm -rf "$plat"
