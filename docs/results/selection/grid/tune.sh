#!/usr/bin/env bash
# The tuning half of the held-out grid: xchg-tune on the simulated dragonfly
# at P = 64 with nodes of 8 and 16 ranks, 16 B - 64 KiB, uniform and
# power-law alltoallv and alltoall; every main algorithm with the tuner's
# parameter variants (testany is left out: it hangs under SMPI, sim/README.md).
# Writes tuned-dragonfly.json, which run.sh then tests on cases the tuner
# never saw (other platforms, P, Q, sizes, sparse counts).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
algos=pairwise,nonblocking,scattered,linear,multipair_blocking,waitany,bruck,parlogna
algos+=,parlinna_coalesced,parlinna_staggered,hierarchical,multileader,node_aware,locality_aware
algos+=,multileader_node_aware,node_aware_overlap,locality_aware_overlap,multileader_overlap
tools/xchg-tune --smpi dragonfly --np 64 --ppn 8,16 --sizes 16,256,4096,65536 \
    --dists uniform,powerlaw --colls alltoallv,alltoall --algos "$algos" \
    --smpi-cfg maxmin/precision:1e-4 --timeout 600 \
    -o docs/results/selection/grid/tuned-dragonfly.json "$@"
