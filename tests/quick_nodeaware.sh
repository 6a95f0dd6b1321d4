#!/bin/sh
# Sweep tests/quick_nodeaware over P and virtual node layouts (Open MPI).
# Usage: tests/quick_nodeaware.sh [build-dir] [filter]
B=${1:-build}; F=${2:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
for P in ${PS:-1 2 3 4 5 7 8 12 16}; do
  for layout in "$P" 2 3 4 3,2,4; do
    for place in block cyclic; do
      [ "$layout" = "$P" ] && [ $place = cyclic ] && continue
      timeout 300 mpirun.openmpi --oversubscribe -n $P -x XCHG_VIRTUAL_NODES=$layout \
        -x XCHG_VIRTUAL_PLACEMENT=$place "$B/tests/quick_nodeaware" $F 2>&1 | tail -3 || status=1
    done
  done
done
exit $status
