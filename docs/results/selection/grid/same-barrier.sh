#!/usr/bin/env bash
# The small-P cases of the grid where SMPI's Open MPI collective looked faster
# than every xchg algorithm, timed again with the same timing barrier for all
# rows. xchg-simbench times each call from the end of an MPI_Barrier, and the
# barrier is the coll-selector's: sim/run runs the xchg rows under "mpich" and
# the ompi baseline under "ompi", whose barriers release the ranks with
# different skew, and the skew enters the measured time. Here every row runs
# under both selectors, with the selector's barrier ("mpich", "ompi") and with
# xchg-simbench's selector-independent --p2p-barrier ("mpich+p2p",
# "ompi+p2p"). Writes same-barrier.csv next to this script.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=docs/results/selection/grid/same-barrier.csv
plat=$(mktemp -d)
trap 'rm -rf "$plat"' EXIT
mapfile -t flags < <(grep -v '^#' sim/smpi-flags)
echo "platform,P,Q,coll,S,dist,barrier,algo,t_min_us" > "$out"
for c in "dragonfly 32 8 128 sparse alltoallv" "fattree 32 4 64 uniform alltoallv" \
         "fattree 32 8 1024 uniform alltoall" "flat 16 4 256 powerlaw alltoallv"; do
    read -r kind p q s dist coll <<<"$c"
    base=$(sim/platforms.py "$kind" $((p / q)) "$q" "$plat")
    for barrier in mpich ompi mpich+p2p ompi+p2p; do
        sel=${barrier%+p2p}
        p2p=$([ "$sel" = "$barrier" ] || echo --p2p-barrier)
        # shellcheck disable=SC2086
        (cd "$plat" && smpirun -np "$p" -platform "$base.xml" -hostfile "$base.hosts" "${flags[@]}" \
            --cfg=maxmin/precision:1e-4 --cfg=smpi/coll-selector:$sel \
            "$OLDPWD/build-smpi/sim/xchg-simbench" --coll "$coll" -s "$s" --dist "$dist" \
            -i 2 -x 2 $p2p mpi nonblocking auto 2>/dev/null) |
            awk -F, -v pre="$kind,$p,$q,$coll,$s,$dist,$barrier" \
                '$1 == "'"$coll"'" { printf "%s,%s,%.2f\n", pre, $2, $9 * 1e6 }' >> "$out"
    done
done
cat "$out"
