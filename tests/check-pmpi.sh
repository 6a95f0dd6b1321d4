#!/usr/bin/env bash
# The library calls MPI only through PMPI_ (src/core/pmpi.h): no undefined
# MPI_ function may remain in libxchg.so, or the drop-in library would call
# itself. Usage: tests/check-pmpi.sh build/libxchg.so
set -euo pipefail
lib=${1:?usage: check-pmpi.sh LIBRARY}
if [ ! -f "$lib" ]; then
    echo "FAIL: $lib does not exist"
    echo "0 passed, 1 failed"
    exit 1
fi
leaks=$(nm -D --undefined-only "$lib" | awk '{print $NF}' | grep -E '^MPI_[A-Z]' || true)
if [ -n "$leaks" ]; then
    echo "FAIL: $lib calls MPI functions without PMPI (add them to src/core/pmpi.h):"
    echo "$leaks" | sed 's/^/  /'
    echo "0 passed, 1 failed"
    exit 1
fi
# MPI extensions (MPIX_, e.g. the device-support queries of src/core/device.c)
# must go through their PMPIX_ twin where the MPI library it links has one.
mpilib=$(ldd "$lib" | awk '/libmpi/ {print $3; exit}')
if [ -n "$mpilib" ] && [ -f "$mpilib" ]; then
    twins=$(nm -D --defined-only "$mpilib" | awk '{print $NF}' | grep -E '^PMPIX_' || true)
    for fn in $(nm -D --undefined-only "$lib" | awk '{print $NF}' | grep -E '^MPIX_' || true); do
        if echo "$twins" | grep -qx "P$fn"; then
            echo "FAIL: $lib calls $fn, which $mpilib has as P$fn (map it in src/core/pmpi.h)"
            echo "0 passed, 1 failed"
            exit 1
        fi
    done
fi
echo "$lib: every MPI call goes through PMPI ($(nm -D --undefined-only "$lib" | grep -c ' PMPI_') functions)"
echo "1 passed, 0 failed"
