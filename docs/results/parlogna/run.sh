#!/bin/sh
# Measurements of ParLogNa / ParLinNa vs the MPI library's MPI_Alltoallv and
# xchg's scattered (Open MPI, 8 and 16 ranks, virtual nodes of 4 and 8 ranks).
# Run from the repository root:  docs/results/parlogna/run.sh [ITERS]
# Writes docs/results/parlogna/results.csv; then plot.py draws the figures.
# Uses bench_parlogna.c (a stand-in: tools/xchg-bench was not on main yet).
set -e
iters=${1:-10}
here=docs/results/parlogna
out=$here/results.csv
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi >/dev/null
ninja -C build-bench >/dev/null
mpicc.openmpi -O2 -std=gnu11 -Iinclude $here/bench_parlogna.c build-bench/libxchg.a -lm \
    -o build-bench/bench_parlogna
echo "algo,P,nodes,dist,S,median_us,min_us,max_us" > $out
sizes=16,64,256,1024,4096,16384
for P in 8 16; do
  for Q in 4 8; do
    N=$(( (P + Q - 1) / Q ))
    sels="mpi"
    for r in $(seq 2 $P); do sels="$sels parlogna:radix=$r"; done
    for b in 1 2 4 8 16; do [ $b -lt $P ] && sels="$sels scattered:batch=$b"; done
    if [ $N -gt 1 ]; then
      for r in 2 3 $Q; do
        for b in 1 2 $((N - 1)); do sels="$sels parlinna_coalesced:radix=$r,batch=$b"; done
        for b in 1 2 4 $(((N - 1) * Q)); do sels="$sels parlinna_staggered:radix=$r,batch=$b"; done
      done
    fi
    sels=$(echo $sels | tr ' ' '\n' | awk '!seen[$0]++' | tr '\n' ' ')
    for dist in uniform powerlaw normal; do
      s=$sizes; [ $dist = normal ] && s=1000
      echo "P=$P Q=$Q dist=$dist" >&2
      XCHG_VIRTUAL_NODES=$Q flock /tmp/xchg-bench.lock timeout 900 \
        mpirun.openmpi --oversubscribe -n $P build-bench/bench_parlogna $dist $iters $s $sels \
        | grep -v '^$' >> $out
    done
  done
done
echo "wrote $out" >&2
