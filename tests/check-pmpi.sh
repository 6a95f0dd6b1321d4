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
echo "$lib: every MPI call goes through PMPI ($(nm -D --undefined-only "$lib" | grep -c ' PMPI_') functions)"
echo "1 passed, 0 failed"
