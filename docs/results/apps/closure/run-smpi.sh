#!/bin/sh
# The xchg-closure study under SimGrid SMPI (sim/README.md): the closure of
# the three generated graphs with every algorithm at 64-256 simulated ranks,
# nodes of --Q ranks on a platform of sim/platforms.py, the flags of
# sim/smpi-flags, SMPI's MPICH-like collectives (coll-selector mpich) as
# the MPI library (so MPI_Alltoallv and mpi are the same). Times are
# simulated, noise-free; computation is not simulated
# (smpi/simulate-computation:no), so total_s is the communication of the
# fixed-point loop (alltoallv + count exchange + the allreduce of |delta|),
# not the join. Every closure is checked against a serial one. Run from
# the repository root:
#   sh docs/results/apps/closure/run-smpi.sh [--P=64,128,256] [--Q=16]
#       [--platform=dragonfly] [--graphs=random,powerlaw,chain]
#       [--algos=LIST] [--iter-graph=powerlaw] [--args='--n=... --m=...']
#       [--timeout=3600] [--out=DIR]
# Builds build-smpi/ if needed. Writes closure-smpi.csv,
# closure-smpi-iterations.csv, tables-smpi.md and closure-smpi.png to
# --out (default: this directory). The simulation costs wall time in
# proportion to the messages: every iteration of every algorithm is
# simulated, so the default sizes are small (--args: --n=400 --m=800; the
# chain then dominates, about 30 minutes of one core for 64,128,256).
set -e
here=docs/results/apps/closure
root=$(pwd)
ps=64,128,256
q=16
platform=dragonfly
graphs=random,powerlaw,chain
algos=MPI_Alltoallv,auto,scattered,pairwise,nonblocking,parlogna,parlogna:radix=4,parlinna_coalesced,node_aware
itgraph=powerlaw
extra="--n=400 --m=800"
limit=3600
out=$here
for arg in "$@"; do
    case $arg in
    --P=*) ps=${arg#--P=} ;;
    --Q=*) q=${arg#--Q=} ;;
    --platform=*) platform=${arg#--platform=} ;;
    --graphs=*) graphs=${arg#--graphs=} ;;
    --algos=*) algos=${arg#--algos=} ;;
    --iter-graph=*) itgraph=${arg#--iter-graph=} ;;
    --args=*) extra=${arg#--args=} ;;
    --timeout=*) limit=${arg#--timeout=} ;;
    --out=*) out=${arg#--out=} ;;
    *) echo "usage: sh $here/run-smpi.sh [--P=64,128,256] [--Q=16] [--platform=KIND]" \
            "[--graphs=LIST] [--algos=LIST] [--iter-graph=G] [--args='...'] [--timeout=S] [--out=DIR]" >&2
       exit 2 ;;
    esac
done
unset XCHG_ALLTOALLV XCHG_VIRTUAL_NODES XCHG_VIRTUAL_PLACEMENT
build=$root/build-smpi
if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$root/cmake/smpi-toolchain.cmake" >/dev/null
fi
cmake --build "$build" --target xchg-closure >/dev/null
mkdir -p "$out"
out=$(cd "$out" && pwd)
csv=$out/closure-smpi.csv its=$out/closure-smpi-iterations.csv
rm -f "$csv" "$its"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=$(grep -v '^#' "$root/sim/smpi-flags" | tr '\n' ' ')
append() { # from to: the header once
    if [ -s "$2" ]; then tail -n +2 "$1" >> "$2"; else cp "$1" "$2"; fi
}
for p in $(echo "$ps" | tr , ' '); do
    nodes=$(( (p + q - 1) / q ))
    plat=$("$root/sim/platforms.py" "$platform" "$nodes" "$q" "$tmp")
    for g in $(echo "$graphs" | tr , ' '); do
        echo "== SMPI $platform, $p ranks, nodes of $q, $g: $algos ($(date -u +%T))" >&2
        it=
        [ "$g" = "$itgraph" ] && it=--per-iteration=$tmp/it.csv
        rm -f "$tmp/it.csv"
        start=$(date +%s)
        # shellcheck disable=SC2086
        (cd "$tmp" && timeout "$limit" smpirun -np "$p" -platform "$plat.xml" -hostfile "$plat.hosts" \
            $flags --cfg=smpi/coll-selector:mpich "$build/apps/closure/xchg-closure" \
            --graph="$g" --algos="$algos" $it $extra > run.csv 2> err.txt) ||
            { echo "run-smpi.sh: failed:" >&2; tail -5 "$tmp/err.txt" >&2; exit 1; }
        grep -v '^\[' "$tmp/err.txt" >&2 || true
        echo "   $(( $(date +%s) - start )) s of wall time" >&2
        append "$tmp/run.csv" "$csv"
        [ -z "$it" ] || append "$tmp/it.csv" "$its"
    done
done
py=
for c in /usr/bin/python3 python3; do
    if "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "run-smpi.sh: no python3 with matplotlib" >&2; exit 2; }
$py $here/plot.py --csv="$csv" --iterations="$its" --png="$out/closure-smpi.png" \
    --tables="$out/tables-smpi.md" --title="xchg-closure, SimGrid SMPI ($platform, nodes of $q ranks; simulated times, computation not simulated)"
