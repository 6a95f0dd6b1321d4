#!/usr/bin/env bash
# What alltoallv's size agreement (one MPI_Allreduce of two int64, src/select/
# select.c) costs against the alltoallv itself, simulated (SimGrid SMPI,
# dragonfly, nodes of 16): `auto` with XCHG_AGREE=always (every timed call
# agrees) against `auto` in the steady state of the default schedule (6
# warm-up calls; timed calls 6 and 7 do not agree). Same choice, same sizes:
# the difference is the agreement. Then agreement.py makes agreement.md.
#   usage: docs/results/selection/agreement.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/results/selection/agreement
grid=(--platforms dragonfly --P 64,256 --Q 16 --sizes 16,256 --coll alltoallv --algos auto
      --baselines "" --iters 2 --timeout 300 --smpi-cfg maxmin/precision:1e-4)
XCHG_AGREE=always sim/run --out "$out/always" "${grid[@]}"
sim/run --out "$out/steady" --warmup 6 "${grid[@]}"
/usr/bin/python3 docs/results/selection/agreement.py
