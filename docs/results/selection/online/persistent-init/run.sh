#!/bin/sh
# Persistent dense requests on this machine (Open MPI): online selection at
# init (`auto`) against the cost model's choice, xchg's `mpi` and the MPI
# library's own persistent collective (persistent.c says how each is timed).
# Per RANKS in NPS and collective, one launch of persistent.c over SIZES with
# ROUNDS interleaved rounds of STARTS starts; the XCHG_VERBOSE=1 line of every
# measurement goes to measured.txt; then tables.py (tables.md, persistent.png,
# the README's tables).
#   usage (repository root, after building build/):
#   sh docs/results/selection/online/persistent-init/run.sh
#   NPS="4 8" COLLS="alltoall alltoallv allgather" SIZES="16 64 256 1024 4096 16384 65536"
#   ROUNDS=30 STARTS=100 BUILD=build MPIRUN="mpirun.openmpi --oversubscribe"
set -e
root=$(pwd)
out=$root/docs/results/selection/online/persistent-init
nps=${NPS:-4 8}
colls=${COLLS:-alltoall alltoallv allgather}
sizes=${SIZES:-16 64 256 1024 4096 16384 65536}
rounds=${ROUNDS:-30}
starts=${STARTS:-100}
build=$root/${BUILD:-build}
mpirun=${MPIRUN:-mpirun.openmpi --oversubscribe}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc.openmpi -O2 -I"$root/include" "$out/persistent.c" -o "$tmp/persistent" -L"$build" -lxchg \
    -Wl,-rpath,"$build"
unset XCHG_ALLTOALL XCHG_ALLTOALLV XCHG_ALLGATHER XCHG_ONLINE XCHG_TUNING_FILE \
    XCHG_VIRTUAL_NODES XCHG_VIRTUAL_PLACEMENT
echo "coll,P,bytes,round,row,ran,init_us,start_us" > "$out/results.csv"
: > "$out/measured.txt"
for np in $nps; do
    for coll in $colls; do
        echo "== $coll, $np ranks ($(date -u +%T))" >&2
        # shellcheck disable=SC2086 # $mpirun is a command with options, $sizes a list
        XCHG_VERBOSE=1 timeout 900 $mpirun -n "$np" "$tmp/persistent" "$coll" "$rounds" \
            "$starts" $sizes > "$tmp/run.csv" 2> "$tmp/err.txt" ||
            { tail -5 "$tmp/err.txt" >&2; exit 1; }
        grep '^xchg: online' "$tmp/err.txt" >> "$out/measured.txt" || true
        cat "$tmp/run.csv" >> "$out/results.csv"
    done
done
/usr/bin/python3 "$out/tables.py"
