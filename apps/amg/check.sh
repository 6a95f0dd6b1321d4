#!/usr/bin/env bash
# The CI check of xchg-amg (a launch of scripts/run-tests): BoomerAMG's halo
# exchanges on a 40x40 rotated anisotropic grid, 4 ranks on virtual nodes of
# 2, every variant below that xchg registers (the others are reported and
# skipped by xchg-amg), each level's halo and SpMV checked against hypre's;
# with the global indices (the _ext init, when the library has it) and
# without; then --inject-error must make it fail. Prints "N passed, N failed".
#   usage: apps/amg/check.sh [BUILD_DIR]     (default build)
set -u
cd "$(dirname "$0")/../.."
exe=${1:-build}/apps/amg/xchg-amg
if [ ! -x "$exe" ]; then
    echo "check: $exe not built (no hypre: apt-get install libhypre-dev): skipped"
    echo "0 passed, 0 failed"
    exit 0
fi
run=(env XCHG_VIRTUAL_NODES=2 mpirun.openmpi --oversubscribe -n 4 "$exe" --n=40 --iters=10
     --warmup=2 --reps=1)
algos=standard,locality,locality:balance=bytes,locality:dedup=1
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
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
