#!/usr/bin/env bash
# The CI check of xchg-amg (a launch of scripts/run-tests): BoomerAMG's halo
# exchanges on a 40x40 rotated anisotropic grid, 4 ranks on virtual nodes of
# 2, the variants standard, mpi, locality, locality:balance=bytes and
# locality:dedup=1 (the locality ones with the global indices of the _ext
# init), each level's halo and SpMV checked against hypre's by xchg-amg
# (which also checks standard's XCHG_Neighbor_stats_get against the
# pattern). From its CSV, on every level: locality's max inter-region
# messages <= standard's (every locality variant), and dedup's max
# inter-region bytes <= locality's. Then the plain init for all, and
# --inject-error, which must make it fail. Prints "N passed, N failed".
#   usage: apps/amg/check.sh [BUILD_DIR]     (default build)
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
exe=$build/apps/amg/xchg-amg
if [ ! -x "$exe" ]; then
    echo "check: $exe not built (no hypre: apt-get install libhypre-dev): skipped"
    echo "0 passed, 0 failed"
    exit 0
fi
run=(env XCHG_VIRTUAL_NODES=2 mpirun.openmpi --oversubscribe -n 4 "$exe" --n=40 --iters=10
     --warmup=2 --reps=1)
algos=standard,mpi,locality,locality:balance=bytes,locality:dedup=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
# The traffic assertions on xchg-amg's CSV: per level, every algorithm must
# be there, locality* inter_msgs <= standard's, dedup inter_bytes <=
# locality's (columns by name).
traffic() { # csv
    awk -F, -v want="$algos" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { lv = $col["level"]; a = $col["algo"]; levels[lv] = 1
          im[lv, a] = $col["inter_msgs"]; ib[lv, a] = $col["inter_bytes"]; seen[lv, a] = 1 }
        END {
            n = split(want, al, ","); bad = 0; nl = 0
            for (lv in levels) {
                nl++
                for (k = 1; k <= n; k++)
                    if (!((lv, al[k]) in seen)) { print "FAIL amg traffic: level " lv ": no row for " al[k]; bad++ }
                for (k = 1; k <= n; k++)
                    if (al[k] ~ /^locality/ && im[lv, al[k]] + 0 > im[lv, "standard"] + 0) {
                        print "FAIL amg traffic: level " lv ": " al[k] " max inter-region messages " im[lv, al[k]] " > standard " im[lv, "standard"]; bad++ }
                if (ib[lv, "locality:dedup=1"] + 0 > ib[lv, "locality"] + 0) {
                    print "FAIL amg traffic: level " lv ": dedup max inter-region bytes " ib[lv, "locality:dedup=1"] " > locality " ib[lv, "locality"]; bad++ }
            }
            if (nl == 0) { print "FAIL amg traffic: no rows"; bad++ }
            if (!bad) print "traffic: " nl " levels: locality inter-region messages <= standard, dedup inter-region bytes <= locality"
            exit bad != 0
        }' "$1"
}
check default 0 --algos=$algos --solve --csv="$tmp/default.csv"
if [ -s "$tmp/default.csv" ] && traffic "$tmp/default.csv"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAIL amg traffic"
fi
check plain-init 0 --algos=standard,locality,locality:balance=bytes --init=plain
check inject-error 1 --algos=standard --inject-error
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
