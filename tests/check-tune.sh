#!/usr/bin/env bash
# The tuner end to end: tools/xchg-tune --quick (4 ranks, nodes of 2, two
# sizes, every algorithm with its defaults) writes a tuning file, which the
# reader must load (xchg-tuning FILE prints what it selects).
# Usage: tests/check-tune.sh BUILD_DIR "MPIRUN [OPTIONS]"
set -euo pipefail
build=${1:?usage: check-tune.sh BUILD_DIR MPIRUN}
mpirun=${2:?usage: check-tune.sh BUILD_DIR MPIRUN}
file=$(mktemp "${TMPDIR:-/tmp}/xchg-tune-XXXXXX.json")
trap 'rm -f "$file"' EXIT
if ! python3 tools/xchg-tune --quick --mpirun "$mpirun" --bench "$build/tools/xchg-bench" \
        --info "$build/tools/xchg-info" -o "$file" 2>/dev/null; then
    echo "FAIL: xchg-tune --quick"
    echo "0 passed, 1 failed"
    exit 1
fi
# shellcheck disable=SC2086 # $mpirun is a command with options
$mpirun -n 1 "$build/tests/xchg-tuning" "$file"
