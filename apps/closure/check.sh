#!/usr/bin/env bash
# The CI check of xchg-closure (a launch of scripts/run-tests): the
# transitive closure of the three generated graphs (random, powerlaw, chain;
# n = 1000, m = 2000) with every default algorithm and the MPI_Alltoallv baseline, each
# checked by xchg-closure against a serial closure of the whole graph (count
# and digest): 4 ranks on virtual nodes of 2, then 3 ranks (prime) and 1.
# From the 4-rank CSVs: a row "serial" for every graph and algorithm, the
# same |path| for all, and per-iteration rows that add up (iterations, and
# |path| = m + the new tuples of all iterations). Then --inject-error, which
# must make it fail, with and without the serial closure. Prints
# "N passed, N failed".
#   usage: apps/closure/check.sh [BUILD_DIR]     (default build)
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
exe=$build/apps/closure/xchg-closure
if [ ! -x "$exe" ]; then
    echo "check: $exe not built"
    echo "0 passed, 1 failed"
    exit 1
fi
if grep -qs '^MPI_C_COMPILER:.*mpich' "$build/CMakeCache.txt"; then
    launch=(mpiexec.mpich)
else
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
    launch=(mpirun.openmpi --oversubscribe)
fi
export XCHG_VIRTUAL_NODES=2
algos=MPI_Alltoallv,auto,mpi,scattered,pairwise,nonblocking,parlogna,parlogna:radix=4,parlinna_coalesced,node_aware
args=(--graph=random,powerlaw,chain --n=1000 --m=2000 --seed=7)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # name, ranks, expected status (0 or 1), arguments...
    local name=$1 np=$2 want=$3 rc=0; shift 3
    echo "-- $name: XCHG_VIRTUAL_NODES=2 ${launch[*]} -n $np $exe $*" >&2
    if [ "$want" = 0 ]; then
        "${launch[@]}" -n "$np" "$exe" "$@" || rc=$?
    else # its FAIL lines are expected: not the launch's
        "${launch[@]}" -n "$np" "$exe" "$@" 2>&1 | sed 's/^FAIL/(expected) FAIL/'
        rc=${PIPESTATUS[0]}
    fi
    if { [ "$want" = 0 ] && [ "$rc" = 0 ]; } || { [ "$want" != 0 ] && [ "$rc" != 0 ]; }; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL closure $name: exit status $rc"
    fi
}
# The CSV assertions (columns by name): every graph x algorithm checked
# against the serial closure, one |path| per graph, and the per-iteration
# rows consistent with the summary.
tables() { # summary.csv iterations.csv
    awk -F, -v want="$algos" '
        FNR == 1 { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i; next }
        FILENAME == ARGV[1] {
            g = $col[FILENAME, "graph"]; a = $col[FILENAME, "algo"]; graphs[g] = 1
            seen[g, a] = 1; chk[g, a] = $col[FILENAME, "checked"]
            it[g, a] = $col[FILENAME, "iterations"]; paths[g, a] = $col[FILENAME, "paths"]
            m[g] = $col[FILENAME, "m"]; if (!(g in ref)) ref[g] = paths[g, a]
            next
        }
        { g = $col[FILENAME, "graph"]; a = $col[FILENAME, "algo"]
          rows[g, a]++; fresh[g, a] += $col[FILENAME, "new"] }
        END {
            n = split(want, al, ","); bad = 0; ng = 0
            for (g in graphs) {
                ng++
                for (k = 1; k <= n; k++) {
                    a = al[k]
                    if (!((g, a) in seen)) { print "FAIL closure tables: " g ": no row for " a; bad++; continue }
                    if (chk[g, a] != "serial") { print "FAIL closure tables: " g " " a ": checked " chk[g, a]; bad++ }
                    if (paths[g, a] != ref[g]) { print "FAIL closure tables: " g " " a ": " paths[g, a] " paths, not " ref[g]; bad++ }
                    if (rows[g, a] != it[g, a]) { print "FAIL closure tables: " g " " a ": " rows[g, a] " iteration rows for " it[g, a] " iterations"; bad++ }
                    if (m[g] + fresh[g, a] != paths[g, a]) { print "FAIL closure tables: " g " " a ": m + new tuples = " m[g] + fresh[g, a] ", paths " paths[g, a]; bad++ }
                }
            }
            if (ng != 3) { print "FAIL closure tables: " ng " graphs, not 3"; bad++ }
            if (!bad) print "tables: " ng " graphs x " n " algorithms checked against the serial closure; per-iteration rows add up"
            exit bad != 0
        }' "$1" "$2"
}
check P=4 4 0 "${args[@]}" --algos=$algos --per-iteration="$tmp/iterations.csv" >"$tmp/summary.csv"
cat "$tmp/summary.csv"
if [ -s "$tmp/summary.csv" ] && [ -s "$tmp/iterations.csv" ] &&
   tables "$tmp/summary.csv" "$tmp/iterations.csv"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAIL closure tables"
fi
check P=3 3 0 "${args[@]}" --algos=$algos
check P=1 1 0 "${args[@]}" --algos=MPI_Alltoallv,mpi,parlogna,node_aware
check inject-error 4 1 "${args[@]}" --algos=mpi,parlogna --inject-error
check inject-error-no-serial 4 1 "${args[@]}" --algos=mpi,parlogna --inject-error --serial-max=0
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
