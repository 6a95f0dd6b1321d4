#!/usr/bin/env bash
# Learned choices persist (XCHG_TUNING_OUT): a run decides alltoall,
# alltoallv, allgather, alltoallw and allgatherv (forced: alltoall for another
# algorithm, whose confirmation is under way when the run ends, the rest for
# mpi), and a persistent allgather's init measures, and writes them at
# MPI_Finalize (the init's winner as a rule of the form "persistent")
# into a tuning file that already holds a rule of its own; the file must keep
# that rule, gain one rule per collective, and not grow when written again;
# a second run reading it (XCHG_TUNING_FILE) must start decided, exploring
# nothing (tests/online.c --phase=write / --phase=read).
# Usage: tests/check-online.sh BUILD_DIR "MPIRUN [OPTIONS] -n P"
set -euo pipefail
build=${1:?usage: check-online.sh BUILD_DIR MPIRUN}
mpirun=${2:?usage: check-online.sh BUILD_DIR MPIRUN}
dir=$(mktemp -d "${TMPDIR:-/tmp}/xchg-online-XXXXXX")
trap 'rm -rf "$dir"' EXIT
file=$dir/learned.json
cat >"$file" <<'EOF'
{"xchg_tuning": 1, "comment": "a rule of its own, to be kept",
 "rules": {"alltoall": [{"bytes": [1000000, null], "algorithm": "pairwise"}]}}
EOF
passed=0 failed=0
result() { # NAME OK
    if [ "$2" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL online-persist: $1"; fi
}
count_rules() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(str(len(d["rules"].get(c, []))) for c in ("alltoall","alltoallv","allgather","alltoallw","allgatherv")), d.get("comment",""))' "$file"
}
run() { # PHASE ENV...
    local phase=$1; shift
    # shellcheck disable=SC2086 # $mpirun is a command with options
    env "$@" $mpirun "$build/tests/xchg-online" --phase="$phase" | tail -1
}
out=$(run write XCHG_TUNING_OUT="$file"); echo "write: $out"
case $out in *" 0 failed") result write 0 ;; *) result write 1 ;; esac
rules=$(count_rules); echo "rules: $rules"
ok=0; [ "$rules" = "2 1 2 1 1 a rule of its own, to be kept" ] || ok=1
result "merged with the file there ($rules)" $ok
out=$(run write XCHG_TUNING_OUT="$file"); echo "write again: $out"
rules=$(count_rules)
ok=0; [ "$rules" = "2 1 2 1 1 a rule of its own, to be kept" ] || ok=1
result "written again, no duplicates ($rules)" $ok
out=$(run read XCHG_TUNING_FILE="$file"); echo "read: $out"
case $out in *" 0 failed") result read 0 ;; *) result read 1 ;; esac
echo "garbage" >"$file.bad"
out=$(run write XCHG_TUNING_OUT="$file.bad" 2>&1 | tail -1)
ok=0; [ "$(cat "$file.bad")" = garbage ] || ok=1
result "a file that is not a tuning file is left alone" $ok
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
