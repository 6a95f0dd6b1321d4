#!/usr/bin/env bash
# Test the Python package: build it into BUILD_DIR/python (no installation;
# setuptools' "build" with the MPI compiler mpi4py uses), then run pytest under
# Open MPI with 1, 2, 3 and 4 ranks with PYTHONPATH pointing at the build.
#   python/tests/run.sh [BUILD_DIR]      (default: build)
# Needs python3-mpi4py, python3-numpy, python3-pytest, python3-setuptools.
# The last line is "N passed, N failed", summed over the runs; exit 1 on failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
python=${XCHG_PYTHON:-/usr/bin/python3}
lib=$build/python/lib
mkdir -p "$build/python"

echo "run.sh: building the extension into $lib"
if ! (cd python && "$python" setup.py -q build --build-base "$build/python" \
        --build-lib "$lib" --build-temp "$build/python/temp") >"$build/python-build.log" 2>&1; then
    tail -30 "$build/python-build.log"
    echo "0 passed, 1 failed"
    exit 1
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset XCHG_ALLTOALL XCHG_ALLTOALLV XCHG_ALLGATHER XCHG_ALLGATHERV XCHG_NEIGHBOR_ALLTOALLV
export PYTHONPATH=$lib${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1
logs=$build/python-test-logs
mkdir -p "$logs"
total_passed=0 total_failed=0
for n in 1 2 3 4; do
    t0=$SECONDS
    rm -f "$logs"/np$n.*
    # Rank 0 reports to the log; the other ranks write their own log files.
    timeout -k 5 120 mpirun.openmpi --oversubscribe -n "$n" "$python" \
        python/tests/mpi_pytest.py "$logs/np$n" -q --color=no -p no:cacheprovider python/tests \
        >"$logs/np$n.log" 2>&1
    rc=$?
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/np$n.log" | tail -1)
    passed=0 failed=0
    if [ -n "$line" ]; then
        passed=${line%% passed*}
        failed=${line#*passed, }; failed=${failed%% failed}
    fi
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
    if [ "$failed" -ne 0 ]; then
        echo "  -n $n: exit status $rc; log $logs/np$n.log (other ranks: $logs/np$n.rank*)"
        grep -E '^(FAILED|ERROR)' "$logs/np$n.log" | head -20 | sed 's/^/    /'
        [ -n "$line" ] || tail -20 "$logs/np$n.log" | sed 's/^/    | /'
    fi
    echo "  -n $n: $passed passed, $failed failed ($((SECONDS - t0)) s)"
    total_passed=$((total_passed + passed)) total_failed=$((total_failed + failed))
done
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
