#!/bin/sh
# alltoallv (--dist powerlaw) with the node-aware family, xchg-bench --breakdown,
# P=16 on virtual nodes of 4. Run from the repository root after building into build/.
set -e
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=${BUILD:-build}
OUT=docs/results/nodeaware/xchg-bench
mkdir -p $OUT
ALGOS=""
for a in nonblocking scattered waitany hierarchical:inner=nonblocking hierarchical:inner=waitany \
         node_aware:inner=all locality_aware:groups=2,inner=all \
         multileader:leaders=2,inner=nonblocking multileader_node_aware:leaders=2,inner=nonblocking; do
  ALGOS="$ALGOS -a $a"
done
flock /tmp/xchg-bench.lock timeout 300 mpirun.openmpi --oversubscribe -n 16 \
  -x XCHG_VIRTUAL_NODES=4 $B/tools/xchg-bench -c alltoallv --dist powerlaw -m 16:4096 \
  -i ${ITERS:-20} -r 4 -x 4 --breakdown $ALGOS \
  --csv $OUT/alltoallv_powerlaw_P16_Q4${TAG:-}.csv > $OUT/alltoallv_powerlaw_P16_Q4${TAG:-}.txt
