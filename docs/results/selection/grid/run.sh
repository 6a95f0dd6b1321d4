#!/usr/bin/env bash
# The held-out grid of automatic selection (issue 13's proof), simulated with
# SimGrid SMPI: cases on platforms, process counts, ranks per node, sizes and
# count patterns that neither the cost model nor the tuner (tune.sh: dragonfly,
# P = 64, Q = 8 and 16) was looked at against. For every case:
#   measured/       the candidates (a direct exchange of each kind, the
#                   node-aware family, ParLinNa, ParLogNa), xchg's reproductions
#                   of MPICH 4's (scattered:batch=32) and Open MPI 4.1's (linear)
#                   default alltoallv, and SMPI's built-in MPICH (and, at
#                   P = 64, Open MPI) collective;
#   auto-builtin/   auto: what xchg chooses by itself, no tuning file;
#   auto-platform/  auto with the platform's constants (sim/platforms.py --tuning);
#   auto-tuned/     auto with the tuner's file (tune.sh), when it exists.
# auto runs 2 warm-up calls so that its 2 timed calls (2 and 3) are the
# steady state (alltoallv agrees on sizes at calls 0, 1, 4, 16, ...; the
# agreement's cost is docs/results/selection/README.md section 3; the first
# cases ran with 6 warm-up calls, timing calls 6 and 7, likewise without
# one). Every point at maxmin/precision:1e-4 (SimGrid's solver aborts on
# some dense patterns at the default). evaluate.py makes the tables and plots.
#   usage: docs/results/selection/grid/run.sh [CASE...]   (default: all cases)
#   AUTO_ONLY=1 runs only the auto rows (after a change of the selection code:
#   evaluate.py keeps the last row of each case and variant); BASELINES_ONLY=1
#   only SMPI's built-in collectives (after sim/run's timing barrier became
#   the same for every row, 2026-11-25: the ompi rows moved, the mpich ones
#   did not).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=docs/results/selection/grid
tuned=$out/tuned-dragonfly.json
cands="nonblocking linear scattered:batch=32 pairwise node_aware node_aware_overlap:batches=1 locality_aware:groups=2 parlinna_coalesced:radix=4,batch=16 parlogna:radix=4"
common=(--append --timeout 400 --smpi-cfg maxmin/precision:1e-4)

grid_case() { # PLATFORM P Q SIZES DISTS COLL
    local kind=$1 p=$2 q=$3 sizes=$4 dists=$5 coll=$6 baselines=mpich algos=$cands
    # Open MPI's basic linear alltoallv (SMPI's "ompi" at P = 128, xchg's
    # linear) sends to ranks 0, 1, ... in the same order from every rank: at
    # P = 128 one point ran past 400 s in SimGrid's solver. Both at P = 64 only.
    if [ "$p" -le 64 ]; then baselines=mpich,ompi; else algos=${algos/linear /}; fi
    [ "$coll" = alltoall ] && algos=${algos/parlinna_coalesced:radix=4,batch=16/bruck}
    local where=(--platforms "$kind" --P "$p" --Q "$q" --sizes "$sizes" --dists "$dists" --coll "$coll")
    if [ -n "${BASELINES_ONLY:-}" ]; then
        sim/run --out "$out/measured" "${common[@]}" --baselines "$baselines" "${where[@]}" --algos ""
        return
    fi
    [ -n "${AUTO_ONLY:-}" ] ||
        sim/run --out "$out/measured" "${common[@]}" --baselines "$baselines" "${where[@]}" --algos "$algos"
    local autos=(--baselines "" --warmup 2 "${where[@]}" --algos auto)
    sim/run --out "$out/auto-builtin" "${common[@]}" "${autos[@]}"
    local constants="$out/platforms/$kind-$((p / q)).json"
    mkdir -p "$out/platforms"
    sim/platforms.py --tuning "$kind" $((p / q)) > "$constants"
    XCHG_TUNING_FILE=$PWD/$constants sim/run --out "$out/auto-platform" "${common[@]}" "${autos[@]}"
    if [ -f "$tuned" ]; then
        XCHG_TUNING_FILE=$PWD/$tuned sim/run --out "$out/auto-tuned" "${common[@]}" "${autos[@]}"
    fi
}

# (Not affordable on a 2-core machine: 64 KiB blocks at P = 128 on the flat
# crossbar and 512 B power-law blocks at P = 128 on the torus, nonblocking ran
# past 400 s; at P = 256 on the dragonfly, nonblocking past 600 s at 64 B.)
cases=(
    "fattree 128 8 64,1024,16384 uniform alltoallv"
    "torus 64 4 64,1024,16384 uniform alltoallv"
    "dragonfly 128 32 64,2048 uniform,powerlaw alltoallv"
    "fattree 64 16 32,8192 uniform alltoall"
    "fattree 128 8 256,4096 sparse alltoallv"
    "torus 64 16 262144 uniform alltoallv"
    "dragonfly 256 16 64 uniform alltoallv"
    "flat 128 16 8 uniform alltoallv"
    "torus 64 8 512 powerlaw alltoallv"
    "fattree 64 32 1048576 uniform alltoallv"
    "dragonfly 64 4 128,16384 uniform alltoallv"
    "torus 64 8 1024 uniform alltoall"
    "fattree 32 4 64,4096 uniform alltoallv"
    "flat 16 4 256,16384 powerlaw alltoallv"
    "dragonfly 32 8 128 sparse alltoallv"
    "fattree 32 8 1024 uniform alltoall"
)
selected=("$@")
for i in "${!cases[@]}"; do
    if [ ${#selected[@]} -eq 0 ] || [[ " ${selected[*]} " == *" $i "* ]]; then
        # shellcheck disable=SC2086
        grid_case ${cases[$i]}
    fi
done
