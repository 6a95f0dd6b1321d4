#!/usr/bin/env bash
# The CI check of xchg-fft3d (a launch of scripts/run-tests): the 3-D FFT of
# a 31x29x27 grid (no dimension divides evenly: non-uniform alltoallv
# counts) on 4 ranks with virtual nodes of 2, checked by xchg-fft3d against
# a serial FFTW transform and by the inverse round trip, for every default
# algorithm and both baselines (MPI_Alltoallv, fftw-mpi when built):
#   grid 2x2 with persistent exchanges (the default), the same blocking,
#   grid 1x4, 3 ranks (a prime: grid 3x1), --pipeline=3 (batches of 3 fields,
#   not pipelined and pipelined: nonblocking exchanges), and --inject-error, which must
#   fail. From each CSV: a row for every algorithm and baseline, each with
#   checked = serial+inverse. Prints "N passed, N failed".
#   usage: apps/fft/check.sh [BUILD_DIR]     (default build; build-mpich too)
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
exe=$build/apps/fft/xchg-fft3d
if [ ! -x "$exe" ]; then
    echo "check: $exe not built (no FFTW: apt-get install libfftw3-dev): skipped"
    echo "0 passed, 0 failed"
    exit 0
fi
# The launcher of the build's MPI (build-mpich: MPICH's; the environment
# reaches the ranks with either).
if grep -q "^MPI_C_COMPILER:.*mpich" "$build/CMakeCache.txt" 2>/dev/null; then
    launcher=(mpiexec.mpich)
else
    launcher=(mpirun.openmpi --oversubscribe)
fi
algos=auto,mpi,pairwise,scattered,parlogna,parlogna:radix=4,parlinna_coalesced,node_aware
opts=(--n=31x29x27 --iters=3 --warmup=1 --algos=$algos)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
# Every row of a CSV must be checked (serial+inverse) and every algorithm
# and baseline must have one (fftw-mpi only when the build has it).
rows() { # csv, stderr
    local want=MPI_Alltoallv,$algos
    grep -q "built without libfftw3-mpi\|fftw-mpi skipped" "$2" || want=$want,fftw-mpi
    awk -F, -v want="$want" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { seen[$col["algo"]] = 1
          if ($col["checked"] != "serial+inverse") { print "FAIL fft " $col["algo"] ": checked=" $col["checked"]; bad++ } }
        END { n = split(want, w, ",")
              for (k = 1; k <= n; k++) if (!(w[k] in seen)) { print "FAIL fft: no row for " w[k]; bad++ }
              if (!bad) print "rows: " n " algorithms and baselines, all checked (serial+inverse)"
              exit bad != 0 }' "$1"
}
check() { # name, expected status (0 or 1), ranks, arguments...
    local name=$1 want=$2 np=$3 rc=0; shift 3
    local run=(env XCHG_VIRTUAL_NODES=2 "${launcher[@]}" -n "$np" "$exe" "${opts[@]}" "$@")
    echo "-- $name: ${run[*]}"
    if [ "$want" = 0 ]; then
        "${run[@]}" > "$tmp/$name.csv" 2> "$tmp/$name.err" || rc=$?
        # its notes: the block sizes, and what failed or was skipped
        grep -E "non-uniform|^FAIL|FAILED|checks passed|skipped" "$tmp/$name.err"
        [ "$rc" = 0 ] && { rows "$tmp/$name.csv" "$tmp/$name.err" || rc=1; }
    else # its FAIL lines are expected: not the launch's
        "${run[@]}" 2>&1 >/dev/null | grep "^FAIL\|FAILED" | sed 's/^FAIL/(expected) FAIL/'
        rc=${PIPESTATUS[0]}
    fi
    if { [ "$want" = 0 ] && [ "$rc" = 0 ]; } || { [ "$want" != 0 ] && [ "$rc" = 1 ]; }; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL fft $name: exit status $rc"
    fi
}
check persistent-2x2 0 4 --grid=2x2 --exchange=persistent
check blocking-2x2 0 4 --grid=2x2 --exchange=blocking
check grid-1x4 0 4 --grid=1x4
check prime-3 0 3
check pipeline-2x2 0 4 --grid=2x2 --pipeline=3
check inject-error 1 4 --inject-error
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
