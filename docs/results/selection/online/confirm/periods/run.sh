#!/usr/bin/env bash
# MPI's own alltoallv, a hand-written Isend/Irecv exchange and xchg's
# `nonblocking` in bursts of k calls each (burst.c), LAUNCHES launches of 8
# ranks (16 B blocks): bursts.csv (launch, pass, k, the median of each in
# us; k 0: each in a loop of 400 of its own), then plot.py: periods.png.
# Needs xchg built in build/.
#   LAUNCHES=30 bash docs/results/selection/online/confirm/periods/run.sh
set -euo pipefail
XCHG=${XCHG:-$(cd "$(dirname "$0")" && pwd)/../../../../..}
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_MCA_rmaps_base_oversubscribe=1
mpicc.openmpi -O2 -I "$XCHG/include" -o "$here/burst" "$here/burst.c" -L "$XCHG/build" -lxchg \
    -Wl,-rpath,"$XCHG/build"
out=${OUT:-$here/bursts.csv}
echo "launch,pass,k,library_us,handwritten_us,xchg_us" >"$out"
for launch in $(seq "${LAUNCHES:-10}"); do
    timeout 120 mpirun.openmpi -n "${NP:-8}" "$here/burst" "${BLOCK:-16}" 400 |
        sed -n 's/^pass \([0-9]\) burst \(loop \)\{0,1\}\([0-9]*\): library \([0-9.]*\) us, handwritten \([0-9.]*\) us, xchg \([0-9.]*\) us$/\1,\2\3,\4,\5,\6/p' |
        sed "s/loop 400/0/; s/^/$launch,/" >>"$out"
done
rm -f "$here/burst"
/usr/bin/python3 "$here/plot.py"
