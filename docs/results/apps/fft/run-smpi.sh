#!/bin/sh
# The xchg-fft3d study at scale under SimGrid SMPI (sim/README.md): 64-256
# simulated ranks on nodes of --Q cores of a sim/platforms.py platform,
# every algorithm against MPI_Alltoallv (SMPI's built-in: --cfg=smpi/
# coll-selector:ompi for the main run, and a second run of the MPI_Alltoallv
# row alone under the mpich selector, labelled MPI_Alltoallv[mpich]). No
# fftw-mpi row (not built under SMPI). xchg finds the nodes as under a real
# MPI (MPI_Comm_split_type: the ranks of one simulated host).
# Computation: by default not simulated (sim/smpi-flags), so compute_s is
# about 0 and total_s is the simulated exchange time; --compute replays the
# measured CPU bursts at 1 Gf (sim/run --compute), noisy on a shared machine.
# Run from the repository root:
#   sh docs/results/apps/fft/run-smpi.sh [--P=64,128,256] [--Q=16] [--platform=fattree]
#        [--sizes=63x62x61,127x126x125] [--algos=LIST] [--iters=K] [--compute] [--out=DIR]
# Writes fft-smpi.csv, notes-smpi.txt, tables-smpi.md and fft-smpi.png in --out
# (default docs/results/apps/fft).
set -e
src=docs/results/apps/fft
out=$src
plist=64,128,256
q=16
platform=fattree
sizes=63x62x61,127x126x125
algos=auto,mpi,pairwise,nonblocking,scattered,linear,parlogna,parlogna:radix=4,parlinna_coalesced,parlinna_staggered,hierarchical,multileader,node_aware,locality_aware,multileader_node_aware
iters=5
compute=
for arg in "$@"; do
    case $arg in
    --P=*) plist=${arg#--P=} ;;
    --Q=*) q=${arg#--Q=} ;;
    --platform=*) platform=${arg#--platform=} ;;
    --sizes=*) sizes=${arg#--sizes=} ;;
    --algos=*) algos=${arg#--algos=} ;;
    --iters=*) iters=${arg#--iters=} ;;
    --compute) compute="--cfg=smpi/simulate-computation:yes --cfg=smpi/host-speed:1Gf" ;;
    --out=*) out=${arg#--out=} ;;
    *) echo "usage: sh $src/run-smpi.sh [--P=LIST] [--Q=N] [--platform=KIND] [--sizes=LIST]" \
            "[--algos=LIST] [--iters=K] [--compute] [--out=DIR]" >&2
       exit 2 ;;
    esac
done
command -v smpirun >/dev/null || { echo "run-smpi.sh: no smpirun (libsimgrid-dev)" >&2; exit 2; }
root=$(pwd)
if [ ! -f build-smpi/build.ninja ]; then
    cmake -S . -B build-smpi -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/smpi-toolchain.cmake >/dev/null
fi
cmake --build build-smpi --target xchg-fft3d >/dev/null
exe=$root/build-smpi/apps/fft/xchg-fft3d
[ -x "$exe" ] || { echo "run-smpi.sh: $exe not built (no FFTW)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
csv=$out/fft-smpi.csv
rm -f "$csv" "$out/notes-smpi.txt"
flags=$(grep -v '^#' sim/smpi-flags | tr '\n' ' ')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
header=
for p in $(echo "$plist" | tr , ' '); do
    plat=$(sim/platforms.py "$platform" $((p / q)) "$q" "$tmp")
    for n in $(echo "$sizes" | tr , ' '); do
        for sel in ompi mpich; do
            if [ $sel = ompi ]; then set -- --algos="$algos"; else set -- --algos= --no-header; fi
            echo "== $p ranks ($platform, nodes of $q), grid $n, coll-selector $sel" >&2
            # smpirun writes temporary files in its working directory
            # shellcheck disable=SC2086
            (cd "$tmp" && timeout 1800 smpirun -np "$p" -platform "$plat.xml" \
                -hostfile "$plat.hosts" $flags --cfg=smpi/coll-selector:$sel $compute \
                "$exe" --n="$n" --iters="$iters" --warmup=1 --baselines=MPI_Alltoallv \
                $header "$@") > "$tmp/out.csv" 2>> "$out/notes-smpi.txt" ||
                { tail -5 "$out/notes-smpi.txt" >&2; echo "run-smpi.sh: xchg-fft3d failed" >&2; exit 1; }
            if [ $sel = mpich ]; then
                sed 's/,MPI_Alltoallv,/,MPI_Alltoallv[mpich],/' "$tmp/out.csv" >> "$csv"
            else
                cat "$tmp/out.csv" >> "$csv"
                header=--no-header
            fi
        done
    done
done
py=
for c in /usr/bin/python3 python3; do
    if "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "run-smpi.sh: no python3 with matplotlib" >&2; exit 2; }
$py $src/report.py "$csv" --png="$out/fft-smpi.png" --tables="$out/tables-smpi.md"
