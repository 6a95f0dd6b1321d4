#!/usr/bin/env bash
# Which steps of the semantics test (tests/semantics.c) pass, fail or hang,
# for every collective:algorithm case: one table line per case and step.
# A hang ends the job, so each case runs again without the steps that hung
# (--skip=...) until none is left; a hang costs TIMEOUT seconds.
#
#   tests/semantics-status.sh "MPIRUN -n 4" PROGRAM [TIMEOUT [ONLY...]]
#     MPIRUN     the launcher with its flags, as one word list
#     PROGRAM    build/tests/xchg-semantics
#     TIMEOUT    the watchdog's seconds (default 10)
#     ONLY       collective or collective:algorithm (default: every case)
# SEMANTICS_ARGS: more options for every run (--starts=500); SEMANTICS_SKIP:
# steps not to run at all (scenario/nonblocking-fresh,...).
# Prints "STATUS coll:algo step PASS|FAIL|HANG", then a summary per case
# ("coll:algo: all pass" or the steps that hang or fail); XCHG_VIRTUAL_NODES
# and the rest of the environment reach the ranks as for any launch.
set -uo pipefail
mpirun=${1:?usage: semantics-status.sh "MPIRUN -n P" PROGRAM [TIMEOUT [ONLY...]]}
program=${2:?usage: semantics-status.sh "MPIRUN -n P" PROGRAM [TIMEOUT [ONLY...]]}
timeout=${3:-10}
shift 3 2>/dev/null || shift $#

# shellcheck disable=SC2086
cases=$($mpirun "$program" --list 2>/dev/null | grep -E '^[a-z_]+:[a-z_]+$')
if [ $# -gt 0 ]; then
    keep=''
    for want in "$@"; do
        keep+=$(grep -E "^${want}(:|$)" <<<"$cases")$'\n'
    done
    cases=$keep
fi

for case in $cases; do
    skip=${SEMANTICS_SKIP:-}
    summary=''
    reported=''
    while :; do
        # shellcheck disable=SC2086
        out=$(timeout -k 5 $((timeout * 30 + 60)) $mpirun "$program" --only="$case" \
              --timeout="$timeout" ${SEMANTICS_ARGS:-} ${skip:+--skip=$skip} 2>&1)
        while read -r verdict name step; do
            # a rerun repeats the steps that passed before the hang
            grep -qx "$step" <<<"${reported:-}" && continue
            reported+=$step$'\n'
            echo "STATUS $name $step $verdict"
            [ "$verdict" = FAIL ] && summary+=" FAIL:$step"
        done < <(grep -E '^(PASS|FAIL) [a-z_]+:[a-z_]+ ' <<<"$out" | awk '{print $1, $2, $3}')
        hung=$(grep -m1 -oE '^HANG [a-z_]+:[a-z_]+ [a-z/-]+' <<<"$out" | awk '{print $3}')
        if [ -z "$hung" ]; then
            if ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' <<<"$out"; then
                echo "STATUS $case ? ERROR"
                summary+=" ERROR"
                tail -5 <<<"$out" | sed 's/^/   | /'
            fi
            break
        fi
        echo "STATUS $case $hung HANG"
        summary+=" HANG:$hung"
        skip+=${skip:+,}$hung
    done
    echo "CASE $case:${summary:- all pass}"
done
