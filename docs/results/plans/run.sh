#!/bin/sh
# Persistent collectives (issue 10) and plan building, measured with
# tools/xchg-bench --persistent 100 --first-call: Open MPI, 8 ranks, two
# virtual nodes of 4 (XCHG_VIRTUAL_NODES=4) so the node-aware algorithms have
# an inter-node phase; every algorithm (--algo all) plus MPI's own collective
# (blocking, and Open MPI's MPIX_*_init persistent form).
#   alltoallv, --dist uniform, S = 16 B, 1 KiB, 64 KiB (maximum block)
#   alltoall,                  S = 16 B, 1 KiB, 64 KiB (block per peer)
# Per size and row: ITER blocking calls in ROUNDS interleaved rounds, and per
# round one persistent request (init + 100 starts) and one fresh communicator
# (context, first call, second call).
# Run from the repository root:  sh docs/results/plans/run.sh [ITER] [ROUNDS]
# Writes docs/results/plans/results.csv; plot.py draws the figures.
# The machine has 2 cores: before each run the script waits (up to QUIET_WAIT
# seconds, default 1800) until the CPUs were 90% idle for 3 s, holds
# /tmp/xchg-bench.lock so two studies never overlap, and repeats a run (up to
# 3 tries) when other processes used more than 10% of the CPUs during it.
set -e
iters=${1:-500}
rounds=${2:-10}
here=docs/results/plans
out=$here/results.csv
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi >/dev/null
ninja -C build-bench >/dev/null

# Wait until the CPUs were at least 90% idle over 3 s (from /proc/stat),
# at most QUIET_WAIT seconds.
cpu_idle_total() { awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat; }
wait_quiet() {
  waited=0
  while [ $waited -lt "${QUIET_WAIT:-1800}" ]; do
    a=$(cpu_idle_total)
    sleep 3
    b=$(cpu_idle_total)
    [ $(( (${b% *} - ${a% *}) * 100 )) -ge $(( (${b#* } - ${a#* }) * 90 )) ] && return 0
    waited=$((waited + 3))
  done
  echo "  warning: the machine was not quiet within ${QUIET_WAIT:-1800} s" >&2
}

# Percent of the 2 CPUs that other processes used during a run: busy jiffies
# (/proc/stat) minus the run's own user + system time (/usr/bin/time).
foreign_share() { # idle_total_before idle_total_after time_file
  awk -v a="$1" -v b="$2" 'NR == 1 {
    split(a, x, " "); split(b, y, " ");
    busy = ((y[2] - x[2]) - (y[1] - x[1])) / 100; own = $2 + $3;
    share = 100 * (busy - own) / (2 * $1); printf "%d", share < 0 ? 0 : share }' "$3"
}

# One xchg-bench run; repeated (at most 3 tries) while other processes took
# more than 10% of the CPUs during it.
run() { # coll S [options]
  coll=$1 size=$2
  shift 2
  for try in 1 2 3; do
    echo "$coll S=$size (try $try)" >&2
    wait_quiet
    a=$(cpu_idle_total)
    XCHG_VIRTUAL_NODES=4 /usr/bin/time -f "%e %U %S" -o $here/time.tmp \
      flock /tmp/xchg-bench.lock timeout 1800 \
      mpirun.openmpi -n 8 build-bench/tools/xchg-bench -c "$coll" -m "$size:$size" \
      -i "$iters" -r "$rounds" --algo all --persistent 100 --first-call "$@" \
      --csv $here/tmp.csv >/dev/null || echo "  xchg-bench failed (exit $?)" >&2
    b=$(cpu_idle_total)
    share=$(foreign_share "$a" "$b" $here/time.tmp)
    echo "  $(cut -d' ' -f1 $here/time.tmp) s; other processes used $share% of the CPUs" >&2
    [ "$share" -le 10 ] && break
  done
  if [ -f $out ]; then tail -n +2 $here/tmp.csv >> $out; else cp $here/tmp.csv $out; fi
}

rm -f $out
for S in 16 1024 65536; do run alltoallv $S --dist uniform; done
for S in 16 1024 65536; do run alltoall $S; done
rm -f $here/tmp.csv $here/time.tmp
echo "wrote $out" >&2
