#!/bin/sh
# Sweep test_parlogna_check over P and virtual node layouts (Open MPI by default).
# Usage: tests/run_parlogna_check.sh BUILD_DIR [P list]   (MPIRUN to override)
build=${1:-build}; shift
plist=${*:-"1 2 3 4 5 7 8 12 16"}
: "${MPIRUN:=mpirun.openmpi --oversubscribe}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Nodes for P ranks and a spec "4" or "3,2,4" (sizes repeated, last cut short).
nodes() { python3 -c "
import sys; P=int(sys.argv[1]); s=[int(x) for x in sys.argv[2].split(',')]; n=0; k=0
while P>0: P-=s[k%len(s)]; n+=1; k+=1
print(n)" "$1" "$2"; }
status=0
for P in $plist; do
  out=$(timeout 600 $MPIRUN -n "$P" "$build/tests/test_parlogna_check" 1 all 2>&1 | tail -1)
  echo "one node:        $out"; case $out in OK*) ;; *) status=1 ;; esac
  for spec in 2 3 4 3,2,4; do
    for place in block cyclic; do
      N=$(nodes "$P" "$spec")
      [ "$N" -le 1 ] && continue
      out=$(XCHG_VIRTUAL_NODES=$spec XCHG_VIRTUAL_PLACEMENT=$place \
            timeout 600 $MPIRUN -n "$P" "$build/tests/test_parlogna_check" "$N" linna 2>&1 | tail -1)
      printf '%-16s %s\n' "$spec/$place:" "$out"; case $out in OK*) ;; *) status=1 ;; esac
    done
  done
done
exit $status
