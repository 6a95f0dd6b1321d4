#!/bin/bash
# Tune on some sizes, test on others, on a real machine (README.md): what ran
# on a lent 16-core machine. Run from the repository root with a Release build:
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi
#   ninja -C build-bench && bash docs/results/selection/real16/run.sh
#   /usr/bin/python3 docs/results/selection/real16/evaluate.py > docs/results/selection/real16/table.md
# Environment: MPIRUN ("mpirun --bind-to none"), B (build-bench), OUT (this folder).
set -u
MPIRUN=${MPIRUN:-mpirun --bind-to none}
B=${B:-build-bench}
OUT=${OUT:-docs/results/selection/real16}
# 1. tune: 16 ranks on virtual nodes of 4, sizes 8, 512 and 32768 only
tools/xchg-tune --np 16 --virtual-nodes 4 --colls alltoallv,alltoall --sizes 8,512,32768 --reps 50 \
  --mpirun "$MPIRUN" --bench $B/tools/xchg-bench --info $B/tools/xchg-info -o "$OUT/tuning-16x4.json"
# 2. test at sizes the tuner never saw (64, 4096, 262144), on the tuned layout and on nodes of 8:
#    "model" = every variant the tuner tries plus auto under the built-in model,
#    "tuned" = auto and MPI with the tuning file
variants() { # the tuner's algorithm list for a collective, as xchg-bench -a options
  tools/xchg-tune --np 16 --virtual-nodes 4 --colls "$1" --sizes 8 --bench $B/tools/xchg-bench \
    --info $B/tools/xchg-info --dry-run -o /dev/null | head -1 | grep -o ' -a .*'
}
sel=$OUT/select-test.csv
rm -f "$sel"
for vn in 4 8; do for S in 64 4096 262144; do
  for cd in "alltoallv uniform" "alltoallv powerlaw" "alltoall uniform"; do
    set -- $cd
    for mode in model tuned; do
      if [ $mode = model ]; then algos="-a auto $(variants $1)"; tf=; else algos="-a auto -a mpi"; tf=$OUT/tuning-16x4.json; fi
      rm -f /tmp/select16.csv
      XCHG_TUNING_FILE=$tf XCHG_VIRTUAL_NODES=$vn timeout 120 $MPIRUN -x XCHG_VIRTUAL_NODES -x XCHG_TUNING_FILE \
        -n 16 $B/tools/xchg-bench -c $1 -d $2 -m $S:$S -i 50 -x 5 -r 5 --csv /tmp/select16.csv $algos >/dev/null
      [ -s /tmp/select16.csv ] && sed "1s/^/mode,/; 2,\$s/^/$mode,/" /tmp/select16.csv | { if [ -s "$sel" ]; then tail -n +2; else cat; fi; } >>"$sel"
    done
  done
done; done
