#!/usr/bin/env bash
# The inventory: every algorithm descriptor the library defines (a symbol
# xchg_algo_<collective>_<name>) is in the registry, and the registry lists
# nothing else. Both sides come from the build, so adding an algorithm (one
# file, one registry line) needs no edit here.
# Usage: tests/check-inventory.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: check-inventory.sh BUILD_DIR}
defined=$(nm --defined-only "$build/libxchg.a" | awk '$2 ~ /^[DdRr]$/ && $3 ~ /^xchg_algo_/ {print $3}' |
          sed 's/^xchg_algo_//' | sort -u)
registered=$("$build/tools/xchg-info" --markdown | awk -F'|' '/^\| (alltoall|alltoallv|allgather|allgatherv|neighbor_alltoallv) /{
                 gsub(/[ `]/, "", $2); gsub(/[ `]/, "", $3); print $2 "_" $3}' | sort -u)
missing=$(comm -23 <(echo "$defined") <(echo "$registered"))
extra=$(comm -13 <(echo "$defined") <(echo "$registered"))
if [ -n "$missing$extra" ]; then
    [ -n "$missing" ] && echo "FAIL: defined but not registered: $missing"
    [ -n "$extra" ] && echo "FAIL: registered but not defined: $extra"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "inventory: $(echo "$defined" | wc -l) algorithm descriptors, all registered"
echo "1 passed, 0 failed"
