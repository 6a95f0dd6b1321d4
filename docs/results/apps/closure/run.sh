#!/bin/sh
# The xchg-closure study (apps/closure; Fan, Domke, Ba, Kumar, HPDC 2025,
# section 6.2, Figure 15): the transitive closure of the three generated
# graphs (random, powerlaw, chain) with every algorithm and the direct
# MPI_Alltoallv baseline, under Open MPI at each rank count of --ranks on
# virtual nodes of --vnodes ranks (XCHG_VIRTUAL_NODES). Every closure is
# checked against a serial one by xchg-closure. Run from the repository
# root, on a quiet machine:
#   sh docs/results/apps/closure/run.sh [--ranks=8,16] [--vnodes=4]
#       [--graphs=random,powerlaw,chain] [--algos=LIST] [--reps=3]
#       [--iter-graph=powerlaw] [--args='--n=... --m=...'] [--maxload=3]
#       [--out=DIR]
# --args is passed to every xchg-closure run (sizes: the program's defaults
# otherwise). Per-iteration rows are kept for --iter-graph only. Before each
# rank count it waits (up to 2 minutes, in 20 s steps) for the 1-minute load
# average to fall to --maxload, then runs anyway, and records the load it
# started under in load.txt. Writes closure.csv, closure-iterations.csv,
# load.txt, tables.md and closure.png to --out (default: this directory).
set -e
here=docs/results/apps/closure
ranks=8,16
vnodes=4
graphs=random,powerlaw,chain
algos=MPI_Alltoallv,auto,mpi,scattered,pairwise,nonblocking,parlogna,parlogna:radix=4,parlinna_coalesced,node_aware
reps=3
itgraph=powerlaw
extra=
maxload=3
out=$here
for arg in "$@"; do
    case $arg in
    --ranks=*) ranks=${arg#--ranks=} ;;
    --vnodes=*) vnodes=${arg#--vnodes=} ;;
    --graphs=*) graphs=${arg#--graphs=} ;;
    --algos=*) algos=${arg#--algos=} ;;
    --reps=*) reps=${arg#--reps=} ;;
    --iter-graph=*) itgraph=${arg#--iter-graph=} ;;
    --args=*) extra=${arg#--args=} ;;
    --maxload=*) maxload=${arg#--maxload=} ;;
    --out=*) out=${arg#--out=} ;;
    *) echo "usage: sh $here/run.sh [--ranks=8,16] [--vnodes=4] [--graphs=LIST] [--algos=LIST]" \
            "[--reps=3] [--iter-graph=G] [--args='...'] [--maxload=L] [--out=DIR]" >&2
       exit 2 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset XCHG_ALLTOALLV XCHG_VIRTUAL_PLACEMENT
[ -d build ] || { echo "run.sh: no build/ (scripts/setup)" >&2; exit 2; }
cmake --build build --target xchg-closure >/dev/null
mkdir -p "$out"
csv=$out/closure.csv its=$out/closure-iterations.csv
rm -f "$csv" "$its" "$out/load.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load1() { cut -d' ' -f1 /proc/loadavg; }
append() { # from to: the header once
    if [ -s "$2" ]; then tail -n +2 "$1" >> "$2"; else cp "$1" "$2"; fi
}
for p in $(echo "$ranks" | tr , ' '); do
    waited=0
    while [ $waited -lt 120 ] && awk -v l="$(load1)" -v m="$maxload" 'BEGIN { exit !(l > m) }'; do
        echo "run.sh: load $(load1) > $maxload: waiting" >&2
        sleep 20
        waited=$((waited + 20))
    done
    echo "$p ranks, nodes of $vnodes: $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores" >> "$out/load.txt"
    for g in $(echo "$graphs" | tr , ' '); do
        echo "== $p ranks, virtual nodes of $vnodes, $g: $algos (load $(load1))" >&2
        it=
        [ "$g" = "$itgraph" ] && it=--per-iteration=$tmp/it.csv
        rm -f "$tmp/it.csv"
        # flock: one timing run at a time on a shared machine
        # shellcheck disable=SC2086
        XCHG_VIRTUAL_NODES=$vnodes flock /tmp/xchg-bench.lock timeout 1800 \
            mpirun.openmpi --oversubscribe -x XCHG_VIRTUAL_NODES -n "$p" \
            build/apps/closure/xchg-closure --graph="$g" --algos="$algos" --reps="$reps" \
            $it $extra > "$tmp/run.csv"
        append "$tmp/run.csv" "$csv"
        [ -z "$it" ] || append "$tmp/it.csv" "$its"
    done
done
# Debian's python3 has python3-matplotlib (scripts/setup); a python3 earlier
# on PATH (pyenv) may not: take the first that imports it.
py=
for c in /usr/bin/python3 python3; do
    if "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "run.sh: no python3 with matplotlib" >&2; exit 2; }
$py $here/plot.py --csv="$csv" --iterations="$its" --png="$out/closure.png" \
    --tables="$out/tables.md" --title="xchg-closure, Open MPI, virtual nodes of $vnodes ranks"
