#!/usr/bin/env bash
# The call path in instructions (valgrind's callgrind; deterministic, so it
# can be measured on a loaded machine where times cannot): path-instr.c's
# loop of N blocking 64 B calls after WARM (online selection decided, plans
# built), rank 0's instructions per call, for
#   PMPI         the MPI library's own collective, called directly
#   mpi          XCHG_Comm_set_algorithm(..., "mpi")
#   auto[mpi]    automatic, online selection decided for mpi (times forced
#                by the test hook XCHG_TEST_ONLINE_TIMES)
#   auto[X]      automatic, decided for another algorithm X (forced)
#   X            XCHG_Comm_set_algorithm(..., X): auto's choice
# "total" counts everything (at P > 1 also the MPI library's polling while
# it waits for the other rank: not deterministic there); "outside MPI" only
# what runs outside the MPI library's objects (libmpi, libopen-pal, its
# components): xchg's path, its algorithm's own code, libc.
#   usage: docs/results/selection/online/path-instr.sh [BUILD]  (default build-rel:
#          a RelWithDebInfo build of libxchg.so: cmake -B build-rel
#          -DCMAKE_BUILD_TYPE=RelWithDebInfo && ninja -C build-rel xchg_shared)
#   env:   NP="1 2" COLLS="alltoall alltoallv allgather" N=2000 WARM=200
#          MPICC=mpicc.openmpi MPIRUN=mpirun.openmpi RANKVAR=OMPI_COMM_WORLD_RANK
#          (MPICH: MPICC=mpicc.mpich MPIRUN=mpiexec.mpich RANKVAR=PMI_RANK)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
build=$(cd "${1:-build-rel}" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OMPI_MCA_rmaps_base_oversubscribe=1
n=${N:-2000} warm=${WARM:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${MPICC:-mpicc.openmpi}" -O2 -g -Iinclude docs/results/selection/online/path-instr.c -o "$tmp/pi" \
    -L"$build" -lxchg -Wl,-rpath,"$build"
# run NP COLL HOW SET [ENV...]: "total outside used" per call of rank 0
run() {
    local np=$1 coll=$2 how=$3 set=$4
    shift 4
    rm -f "$tmp"/cg.*
    local used
    used=$(env "$@" timeout 600 "${MPIRUN:-mpirun.openmpi}" -n "$np" valgrind --tool=callgrind \
        --collect-atstart=no --toggle-collect=measured_loop \
        --callgrind-out-file="$tmp/cg.%q{${RANKVAR:-OMPI_COMM_WORLD_RANK}}" \
        "$tmp/pi" "$coll" "$how" "$n" "$warm" $set 2>/dev/null | sed -n 's/^path-instr: .*: //p')
    local f
    f=$tmp/cg.0
    callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null | awk -v n="$n" -v used="$used" '
        /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
        /\[/ && $1 ~ /^[0-9,]+$/ {
            v = $1; gsub(",", "", v)
            if ($0 !~ /libmpi|libopen-|openmpi3?\/mca_|libucs|libucp|libuct|libpmix|libevent|libhwloc|libmpich/) out += v
        }
        END { printf "%d %d %s\n", total / n, out / n, used }'
}
printf '| P | coll | row | algorithm | instructions per call | outside MPI |\n|---|---|---|---|---:|---:|\n'
for np in ${NP:-1 2}; do
    for coll in ${COLLS:-alltoall alltoallv allgather}; do
        read -r t o u <<<"$(run "$np" "$coll" pmpi '')"
        printf '| %s | %s | PMPI | MPI_%s | %s | %s |\n' "$np" "$coll" "$coll" "$t" "$o"
        read -r t o u <<<"$(run "$np" "$coll" xchg mpi)"
        printf '| %s | %s | mpi | %s | %s | %s |\n' "$np" "$coll" "$u" "$t" "$o"
        read -r t o u <<<"$(run "$np" "$coll" xchg '' 'XCHG_TEST_ONLINE_TIMES=*:mpi=1,*=10')"
        printf '| %s | %s | auto (decided mpi) | %s | %s | %s |\n' "$np" "$coll" "$u" "$t" "$o"
        read -r t o u <<<"$(run "$np" "$coll" xchg '' 'XCHG_TEST_ONLINE_TIMES=*:mpi=10,*=1')"
        printf '| %s | %s | auto (decided another) | %s | %s | %s |\n' "$np" "$coll" "$u" "$t" "$o"
        local_choice=$u
        read -r t o u <<<"$(run "$np" "$coll" xchg "$local_choice")"
        printf '| %s | %s | its choice, set | %s | %s | %s |\n' "$np" "$coll" "$u" "$t" "$o"
    done
done
