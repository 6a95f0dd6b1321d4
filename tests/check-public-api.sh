#!/usr/bin/env bash
# The tools and the Python extension use only the public API: every quoted
# #include in tools/, python/src/ and sim/ names xchg.h or a header of its own
# directory, never a private header of the library (src/core/...,
# src/select/...). One case per file.
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0 failed=0
for file in tools/*.c tools/*.h python/src/*.c python/src/*.h sim/*.c; do
    dir=$(dirname "$file")
    bad=0
    while read -r header; do
        if [ "$header" != xchg.h ] && [ ! -f "$dir/$header" ]; then
            echo "FAIL: $file includes \"$header\" (a private header of the library?)"
            bad=1
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
    if [ "$bad" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
