#!/bin/sh
# The measurement reported in README.md: xchg-bench --breakdown, alltoall,
# 4 B .. 4 KiB per block, Open MPI, virtual nodes, every family member with
# every inner algorithm and leaders/groups 2 and 4, the flat algorithms and
# MPI's own MPI_Alltoall, interleaved in rounds. Run from the repository root
# after building into build/ (cmake -S . -B build -G Ninja
# -DMPI_C_COMPILER=mpicc.openmpi && ninja -C build):
#   docs/results/nodeaware/run_xchg_bench.sh
set -e
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=${BUILD:-build}
OUT=docs/results/nodeaware/xchg-bench
mkdir -p $OUT
ALGOS=""
for a in pairwise nonblocking scattered linear multipair_blocking waitany testany bruck \
         hierarchical:inner=all node_aware:inner=all \
         multileader:leaders=2,inner=all multileader:leaders=4,inner=all \
         locality_aware:groups=2,inner=all locality_aware:groups=4,inner=all \
         multileader_node_aware:leaders=2,inner=all multileader_node_aware:leaders=4,inner=all; do
  ALGOS="$ALGOS -a $a"
done
for cfg in "8 4" "16 4" "16 8"; do
  set -- $cfg
  for sizes in 4:64 128:4096; do  # two runs, each well under the 300 s limit
    flock /tmp/xchg-bench.lock timeout 300 mpirun.openmpi --oversubscribe -n $1 \
      -x XCHG_VIRTUAL_NODES=$2 $B/tools/xchg-bench -c alltoall -m $sizes \
      -i ${ITERS:-20} -r 4 -x 4 --breakdown $ALGOS \
      --csv $OUT/alltoall_P$1_Q$2_$(echo $sizes | tr : -).csv \
      > $OUT/alltoall_P$1_Q$2_$(echo $sizes | tr : -).txt  # no ':' in file names
  done
done
