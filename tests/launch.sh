#!/usr/bin/env bash
# Run one test launch for CTest (tests/launches.cmake, cmake/XchgLaunches.cmake):
# COMMAND's output goes to CTest and to LOG; LOG.rc gets its exit status.
# scripts/run-tests reads the logs' "N passed, N failed" lines.
#   tests/launch.sh LOG COMMAND [ARG...]
set -uo pipefail
log=${1:?usage: launch.sh LOG COMMAND...}
shift
mkdir -p "$(dirname "$log")"
rm -f "$log.rc"
echo "launch: $*" >&2
"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
echo "$rc" >"$log.rc"
exit "$rc"
