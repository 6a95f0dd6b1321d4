#!/bin/sh
# Online selection at a persistent neighbourhood init in SimGrid SMPI:
# tools/xchg-neighbor-bench (the neighbourhood as an XCHG_Topo on
# MPI_COMM_WORLD: SMPI has no distributed graphs, so `mpi` is no candidate)
# on sim/'s dragonfly, nodes of 16, the flags of sim/smpi-flags, patterns of
# docs/results/neighbor-scaling/. Per point two launches: `auto standard
# locality` (online; XCHG_VERBOSE=1 lines to smpi-measured.txt) and `auto`
# under XCHG_ONLINE=0 (the cost model's choice, row "model"). Simulated time
# is deterministic: one run each.
#   usage (repository root, after ninja -C build-smpi):
#     sh docs/results/selection/online/neighbor-init/smpi.sh
set -e
root=$(pwd)
out=$root/docs/results/selection/online/neighbor-init
bench=$root/build-smpi/tools/xchg-neighbor-bench
plat=$(mktemp -d)
trap 'rm -rf "$plat"' EXIT
flags=$(grep -v '^#' "$root/sim/smpi-flags")
echo "launch,pattern,P,nodes,n,width,count,fraction,max_degree,algorithm,init_us,start_us,init_over_start,blocking_us,max_inter_msgs,max_intra_msgs,max_inter_bytes,node_size,max_node_out,max_node_in,max_node_out_dedup,max_node_in_dedup,correct" > "$out/smpi.csv"
: > "$out/smpi-measured.txt"
while read -r p opts; do
    nodes=$((p / 16))
    /usr/bin/python3 "$root/sim/platforms.py" dragonfly "$nodes" 16 "$plat" > /dev/null
    for launch in online model; do
        if [ $launch = online ]; then online=1 algos="auto standard locality"
        else online=0 algos=auto; fi
        echo "== P=$p $opts, $launch ($(date -u +%T))" >&2
        # shellcheck disable=SC2086 # flags, opts and algos are lists
        (cd "$plat" && XCHG_ONLINE=$online XCHG_VERBOSE=1 timeout 1800 smpirun -np "$p" \
            -platform "dragonfly-${nodes}x16.xml" -hostfile "dragonfly-${nodes}x16.hosts" \
            $flags --cfg=smpi/coll-selector:mpich "$bench" $opts --node-size 16 --starts 5 \
            --warmup 1 --csv - --no-header $algos > "$plat/run.csv" 2> "$plat/err.txt") ||
            { tail -5 "$plat/err.txt" >&2; exit 1; }
        grep '^xchg: online' "$plat/err.txt" >> "$out/smpi-measured.txt" || true
        sed "s/^/$launch,/" "$plat/run.csv" >> "$out/smpi.csv"
    done
done <<POINTS
64 --pattern stencil --n 2048
64 --pattern coarse --count 256 --fraction 0.25
128 --pattern coarse --count 256 --fraction 0.25
64 --pattern coarse --count 64 --fraction 1
POINTS
/usr/bin/python3 "$out/tables.py"
