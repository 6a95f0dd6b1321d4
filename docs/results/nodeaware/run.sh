#!/bin/sh
# Timing runs of the node-aware family (Open MPI, one 2-core machine, virtual
# nodes). Run from the repository root after building into build/:
#   docs/results/nodeaware/run.sh
# Every run holds /tmp/xchg-bench.lock so timing runs do not overlap.
set -e
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=docs/results/nodeaware/raw
mkdir -p $OUT
SIZES=4,16,64,256,1024,4096
INNERS="pairwise nonblocking scattered linear multipair_blocking waitany testany bruck"
SELS="mpi"
for i in pairwise nonblocking scattered linear multipair_blocking waitany testany bruck; do SELS="$SELS $i"; done
for i in $INNERS; do
  SELS="$SELS hierarchical:inner=$i node_aware:inner=$i"
  for k in 2 4; do
    SELS="$SELS multileader:leaders=$k,inner=$i locality_aware:groups=$k,inner=$i multileader_node_aware:leaders=$k,inner=$i"
  done
done
for P in 8 16; do
  for Q in 4 8; do
    [ $Q -ge $P ] && continue
    flock /tmp/xchg-bench.lock timeout 300 mpirun.openmpi --oversubscribe -n $P \
      -x XCHG_VIRTUAL_NODES=$Q build/tests/bench_nodeaware -s $SIZES -i ${ITERS:-15} -w 3 $SELS \
      > $OUT/P${P}_Q${Q}.txt
  done
done
