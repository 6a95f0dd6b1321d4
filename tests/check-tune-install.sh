#!/usr/bin/env bash
# xchg-tune from an installed tree: `cmake --install BUILD_DIR` into a
# temporary prefix, then <prefix>/bin/xchg-tune --help and a --dry-run that
# finds the installed xchg-info and xchg-bench next to it.
# Usage: tests/check-tune-install.sh BUILD_DIR "MPIRUN [OPTIONS]"
set -uo pipefail
build=${1:?usage: check-tune-install.sh BUILD_DIR MPIRUN}
mpirun=${2:?usage: check-tune-install.sh BUILD_DIR MPIRUN}
prefix=$(mktemp -d "${TMPDIR:-/tmp}/xchg-install-XXXXXX")
trap 'rm -rf "$prefix"' EXIT
passed=0 failed=0
step() { # NAME COMMAND...
    local name=$1
    shift
    if "$@" >"$prefix/$name.log" 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name"
        tail -15 "$prefix/$name.log" | sed 's/^/    | /'
    fi
}
step install cmake --install "$build" --prefix "$prefix"
step help "$prefix/bin/xchg-tune" --help
# Run outside the source tree, so nothing can come from tools/ or build/.
step dry-run bash -c "cd '$prefix' && PYTHONDONTWRITEBYTECODE=1 '$prefix/bin/xchg-tune' --quick \
    --dry-run --mpirun '$mpirun' -o '$prefix/t.json' | tee /dev/stderr | grep -q '$prefix/bin/xchg-bench'"
# --smpi needs the source tree's sim/: a clear message, no traceback.
step smpi-needs-tree bash -c "cd '$prefix' && out=\$('$prefix/bin/xchg-tune' --smpi flat \
    --np 4 --ppn 2 -o '$prefix/s.json' 2>&1); rc=\$?; echo \"\$out\";
    [ \$rc -ne 0 ] && grep -q 'source tree' <<<\"\$out\" && ! grep -q Traceback <<<\"\$out\""
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
