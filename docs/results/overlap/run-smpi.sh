#!/usr/bin/env bash
# Overlap in SimGrid SMPI (deterministic): xchg-bench --overlap, every
# algorithm of alltoallv (--algo all) against SMPI's own MPI_Ialltoallv, on
# NODES x Q ranks of a flat cluster (sim/platforms.py), compute = 1x and 2x
# MPI's own exchange time, without tests and with a test every TEST_US us
# of compute; then xchg-fft3d --pipeline with modelled FFT time.
#   usage: docs/results/overlap/run-smpi.sh
#   env:   NODES=4 Q=16 (64 ranks; the committed run used Q=4: 16 ranks, see
#          README), SIZES="256 4096 65536", ITERS=4, TEST_US=2, ALGOS="all",
#          FFT=1 (0: skip the FFT), FFT_N=64, FFT_B=4, FFT_FLOPS=1e9,
#          TIMEOUT=3600 (wall seconds per smpirun), BUILD=build-smpi
#   writes docs/results/overlap/smpi-<P>.csv, fft-smpi-<P>.csv
# SMPI settings on top of sim/smpi-flags: smpi/host-speed = the hosts' 1 Gf
# (smpi_execute(t) then takes t of simulated time), smpi/cpu-threshold 1e-9
# (short compute bursts are not dropped), smpi/test 1e-7: SMPI charges every
# MPI_Test this much simulated time (default 1e-4 s, which would make each
# poll of an xchg task, XCHG_Wait's loop included, cost 100 us).
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
out=$root/docs/results/overlap
build=${BUILD:-build-smpi}
nodes=${NODES:-4} q=${Q:-16} iters=${ITERS:-4} test_us=${TEST_US:-2}
sizes=${SIZES:-"256 4096 65536"} algos=${ALGOS:-all} timeout_s=${TIMEOUT:-3600}
np=$((nodes * q))
if [ ! -f "$build/build.ninja" ]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/smpi-toolchain.cmake \
        -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target xchg-bench xchg-fft3d >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plat=$(sim/platforms.py flat "$nodes" "$q" "$tmp")
mapfile -t flags < <(grep -v '^#' sim/smpi-flags)
flags+=(--cfg=smpi/host-speed:1Gf --cfg=smpi/cpu-threshold:1e-9 --cfg=smpi/test:1e-7
        --cfg=smpi/coll-selector:mpich)
smpi() { (cd "$tmp" && timeout "$timeout_s" smpirun -np "$np" -platform "$plat.xml" \
              -hostfile "$plat.hosts" "${flags[@]}" "$@"); }
algo_args=()
for a in $algos; do algo_args+=(--algo "$a"); done
csv=$out/smpi-$np.csv
first=1 # the old file stays until the first point has run (a timeout keeps it)
for s in $sizes; do
    for te in 0 "$test_us"; do
        extra=()
        [ "$te" != 0 ] && extra=(--test-every "$te")
        echo "# SMPI P=$np S=$s test-every=$te" >&2
        smpi "$root/$build/tools/xchg-bench" -c alltoallv -m "$s:$s" -i "$iters" -x 1 -r 2 \
            --overlap 1x,2x "${extra[@]}" "${algo_args[@]}" --csv "$tmp/one.csv" >&2
        if [ "$first" = 0 ]; then tail -n +2 "$tmp/one.csv" >> "$csv"; else cp "$tmp/one.csv" "$csv"; fi
        first=0
    done
done
if [ "${FFT:-1}" = 1 ] && [ -x "$build/apps/fft/xchg-fft3d" ]; then
    n=${FFT_N:-64}
    echo "# SMPI P=$np xchg-fft3d --pipeline=${FFT_B:-4} --n=$n" >&2
    smpi "$root/$build/apps/fft/xchg-fft3d" --n="$n" --pipeline="${FFT_B:-4}" \
        --sim-flops="${FFT_FLOPS:-1e9}" --iters=2 --warmup=1 --no-serial-check \
        --algos=auto,mpi,pairwise,nonblocking,scattered,parlogna,node_aware,node_aware_overlap \
        > "$out/fft-smpi-$np.csv"
fi
"$out/plot.py"
