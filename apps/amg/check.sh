#!/usr/bin/env bash
# The CI check of xchg-amg (a launch of scripts/run-tests): BoomerAMG's halo
# exchanges on a 40x40 rotated anisotropic grid, 4 ranks on virtual nodes of
# 2, every variant below that xchg registers (the others are reported and
# skipped by xchg-amg), each level's halo and SpMV checked against hypre's;
# with the global indices (the _ext init, when the library has it) and
# without; then --inject-error must make it fail. While libxchg.so lacks
# the locality branch's XCHG_Neighbor_alltoallv_topo_init_ext, one more run
# takes that path through a stand-in (mock_ext.c, LD_PRELOAD), which checks
# xchg-amg's global indices and counts. Prints "N passed, N failed".
#   usage: apps/amg/check.sh [BUILD_DIR]     (default build)
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
exe=$build/apps/amg/xchg-amg
if [ ! -x "$exe" ]; then
    echo "check: $exe not built (no hypre: apt-get install libhypre-dev): skipped"
    echo "0 passed, 0 failed"
    exit 0
fi
run=(env XCHG_VIRTUAL_NODES=2 mpirun.openmpi --oversubscribe -n 4 "$exe" --n=40 --iters=10
     --warmup=2 --reps=1)
algos=standard,mpi,locality,locality:balance=bytes,locality:dedup=1
passed=0 failed=0
check() { # name, expected status (0 or 1), arguments...
    local name=$1 want=$2 rc=0; shift 2
    echo "-- $name: ${run[*]} $*"
    if [ "$want" = 0 ]; then
        "${run[@]}" "$@" || rc=$?
    else # its FAIL lines are expected: not the launch's
        "${run[@]}" "$@" 2>&1 | sed 's/^FAIL/(expected) FAIL/'
        rc=${PIPESTATUS[0]}
    fi
    if { [ "$want" = 0 ] && [ "$rc" = 0 ]; } || { [ "$want" != 0 ] && [ "$rc" != 0 ]; }; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL amg $name: exit status $rc"
    fi
}
check default 0 --algos=$algos --solve
check plain-init 0 --algos=$algos --init=plain
check inject-error 1 --algos=standard --inject-error
mock=$PWD/$build/apps/amg/libxchg-amg-mockext.so
if ! nm -D --defined-only "$build/libxchg.so" | grep -q ' XCHG_Neighbor_alltoallv_topo_init_ext$' &&
   [ -f "$mock" ]; then
    run=(env XCHG_VIRTUAL_NODES=2 mpirun.openmpi --oversubscribe -x LD_PRELOAD="$mock" -n 4
         "$exe" --n=40 --iters=10 --warmup=2 --reps=1)
    check mock-ext 0 --algos=standard --init=ext
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
