#!/bin/sh
# Longer runs (more iterations) of a reduced set: MPI, the flat algorithms the
# families use as inner, and each family with inner=nonblocking / pairwise / bruck.
#   docs/results/nodeaware/run_focus.sh
set -e
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=docs/results/nodeaware/focus
mkdir -p $OUT
SELS="mpi pairwise nonblocking scattered bruck"
for i in nonblocking pairwise bruck; do
  SELS="$SELS hierarchical:inner=$i multileader:leaders=2,inner=$i node_aware:inner=$i"
  SELS="$SELS locality_aware:groups=2,inner=$i multileader_node_aware:leaders=2,inner=$i"
done
for cfg in "8 4" "16 4" "16 8"; do
  set -- $cfg
  flock /tmp/xchg-bench.lock timeout 300 mpirun.openmpi --oversubscribe -n $1 \
    -x XCHG_VIRTUAL_NODES=$2 build/tests/bench_nodeaware -s 4,64,1024,4096 -i ${ITERS:-60} -w 5 $SELS \
    > $OUT/P$1_Q$2.txt
done
