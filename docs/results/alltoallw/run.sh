#!/bin/sh
# Alltoallw (issue 27): xchg's algorithms against the MPI library's own
# MPI_Alltoallw, and mpi4py-fft's transforms with and without xchg.
# Open MPI, 4 ranks of this machine, a Release build (build-bench/).
#   1. tools/xchg-bench -c alltoallw --algo all: the alltoallv blocks of a
#      --dist, each one element of a strided vector datatype per peer
#      (8-byte runs at a stride of 16), every algorithm and MPI's own
#      interleaved in ROUNDS rounds; --dist uniform (S = 64 B .. 64 KiB,
#      maximum block) and fft2 (mpi4py-fft-like uniform blocks, 512 B);
#      one table each: bench-uniform.csv, bench-fft2.csv.
#   2. tests/dropin/mpi4py_fft_transforms.py: slab and pencil transforms of
#      a complex N^3 array (N = 64 by default), forward and backward REPS
#      times (checked against numpy.fft first), timed without xchg, under
#      tools/xchg-run (automatic selection) and under xchg-run with
#      XCHG_ALLTOALLW=mpi (the library's own through xchg: the drop-in's
#      overhead), TRIALS interleaved trials each: mpi4py-fft.csv.
# Run from the repository root:
#   sh docs/results/alltoallw/run.sh [ITER] [ROUNDS] [TRIALS] [N] [REPS]
# defaults 500 10 10 64 20; "sh docs/results/alltoallw/run.sh 20 2 2 32 5"
# is a smoke run. The machine must be quiet: the script waits until the
# CPUs were 90% idle for 3 s before each run (up to QUIET_WAIT seconds,
# default 600) and holds /tmp/xchg-bench.lock so that two studies never
# overlap.
set -e
iters=${1:-500}
rounds=${2:-10}
trials=${3:-10}
n=${4:-64}
reps=${5:-20}
here=docs/results/alltoallw
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset XCHG_ALLTOALLW XCHG_ALLTOALLV XCHG_VIRTUAL_NODES
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi >/dev/null
ninja -C build-bench >/dev/null

cpu_idle_total() { awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat; }
wait_quiet() {
  waited=0
  while [ $waited -lt "${QUIET_WAIT:-600}" ]; do
    a=$(cpu_idle_total)
    sleep 3
    b=$(cpu_idle_total)
    [ $(( (${b% *} - ${a% *}) * 100 )) -ge $(( (${b#* } - ${a#* }) * 90 )) ] && return 0
    waited=$((waited + 3))
  done
  echo "  warning: the machine was not quiet within ${QUIET_WAIT:-600} s" >&2
}

exec 9>/tmp/xchg-bench.lock
flock 9

# 1. the algorithms against MPI_Alltoallw
for dist in uniform fft2; do
  wait_quiet
  echo "xchg-bench -c alltoallw --dist $dist" >&2
  timeout 3600 mpirun.openmpi -n 4 build-bench/tools/xchg-bench -c alltoallw --dist $dist \
    -m 64:65536 -i "$iters" -r "$rounds" --algo all --csv "$here/bench-$dist.csv" \
    > "$here/bench-$dist.txt"
done

# 2. mpi4py-fft's transforms, with and without xchg, interleaved
py=/usr/bin/python3
fft=tests/dropin/mpi4py_fft_transforms.py
csv=$here/mpi4py-fft.csv
echo "trial,setting,ranks,n,reps,slab_seconds,pencil_seconds" > "$csv"
for trial in $(seq 1 "$trials"); do
  for setting in mpi-library xchg-auto xchg-mpi; do
    wait_quiet
    case $setting in
    mpi-library) out=$(timeout 600 mpirun.openmpi -n 4 $py $fft "$n" "$n" "$n" "$reps") ;;
    xchg-auto) out=$(timeout 600 build-bench/xchg-run mpirun.openmpi -n 4 $py $fft "$n" "$n" "$n" "$reps") ;;
    xchg-mpi) out=$(XCHG_ALLTOALLW=mpi timeout 600 build-bench/xchg-run mpirun.openmpi -n 4 \
                      $py $fft "$n" "$n" "$n" "$reps") ;;
    esac
    echo "$out" | grep -q '^mpi4pyfft: [0-9]* passed, 0 failed$' || {
      echo "mpi4py-fft ($setting) failed:" >&2; echo "$out" >&2; exit 1; }
    echo "$out" | sed -n "s/^seconds slab=\([0-9.]*\) pencil=\([0-9.]*\)$/$trial,$setting,4,$n,$reps,\1,\2/p" >> "$csv"
  done
done
echo "wrote $here/bench-uniform.csv, bench-fft2.csv, mpi4py-fft.csv" >&2
