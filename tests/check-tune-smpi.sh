#!/usr/bin/env bash
# The tuner on a simulated platform, end to end: tools/xchg-tune --smpi flat
# (16 ranks on 4 simulated nodes of 4, alltoallv and alltoall at 64 and
# 4096 B, three algorithms and their variants: 4 smpirun, a few seconds)
# writes a tuning file; the library must load it (tests/xchg-tuning FILE),
# and xchg-info must say that a rule of the file decided, and choose what
# that rule says.
# Usage: tests/check-tune-smpi.sh BUILD_DIR SMPI_BUILD_DIR "MPIRUN [OPTIONS]"
#   BUILD_DIR: a build for this machine (its xchg-info and tests/xchg-tuning)
#   SMPI_BUILD_DIR: the SMPI build (sim/xchg-simbench)
set -uo pipefail
usage="usage: check-tune-smpi.sh BUILD_DIR SMPI_BUILD_DIR MPIRUN"
build=${1:?$usage}
smpi_build=${2:?$usage}
mpirun=${3:?$usage}
unset XCHG_ALLTOALL XCHG_ALLTOALLV XCHG_ALLGATHER XCHG_TUNING_FILE XCHG_VIRTUAL_NODES
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xchg-tune-smpi-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
file=$tmp/tuning.json
passed=0
failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

# 1. The tuner runs and writes a file.
if python3 tools/xchg-tune --smpi flat --np 16 --ppn 4 --sizes 64,4096 \
        --colls alltoallv,alltoall --algos nonblocking,pairwise,node_aware --timeout 120 \
        --info "$build/tools/xchg-info" --smpi-build "$smpi_build" -o "$file" \
        >"$tmp/tune.log" 2>&1 && [ -s "$file" ]; then
    ok "xchg-tune --smpi flat wrote a file"
else
    cat "$tmp/tune.log"
    fail "xchg-tune --smpi flat"
    finish
fi
cat "$file"

# 2. What the file must say: simulated, the platform's model, rules of the
# tuned algorithms for both collectives, for communicator sizes 4 to 64 (P =
# 16 and xchg-tune's --reach 4), no ppn key (one Q); and what the first
# matching rule chooses at 64 B (alltoallv: the mean block xchg sees for
# xchg-simbench -s 64 at P=16, 15 * 64 // 16 = 60).
if python3 - "$file" >"$tmp/expected" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
assert t["platform"].startswith("simulated") and "flat" in t["platform"], t["platform"]
assert len(t["model"]) >= 6 and t["model"]["alpha_remote"] > 0, t["model"]
for coll, size in (("alltoallv", 60), ("alltoall", 64)):
    rules = t["rules"][coll]
    assert rules, coll + ": no rules"
    for r in rules:
        assert r["algorithm"].split(":")[0] in ("nonblocking", "pairwise", "node_aware"), r
        assert r["comm_size"] == [4, 64] and "ppn" not in r, r
    first = next(r for r in rules
                 if "bytes" not in r or (r["bytes"][0] <= size and
                                         (r["bytes"][1] is None or size <= r["bytes"][1])))
    print(coll, size, first["algorithm"])
EOF
then
    ok "the file's header and rules"
else
    fail "the file's header and rules"
    finish
fi

# 3. The library loads it (every rule and algorithm string checked).
# shellcheck disable=SC2086 # $mpirun is a command with options
if $mpirun -n 1 "$build/tests/xchg-tuning" "$file" >"$tmp/load.log" 2>&1 </dev/null; then
    ok "xchg-tuning loads the file"
else
    cat "$tmp/load.log"
    fail "xchg-tuning loads the file"
fi

# 4. A rule of the file decides at P = 16 on nodes of 4, and chooses the
# rule's algorithm (xchg-info prints the choice with every parameter: compare
# name and the rule's parameters); at P = 1024 no rule reaches, the model
# decides.
mapfile -t expected <"$tmp/expected"
[ "${#expected[@]}" -eq 2 ] || fail "expected choices for 2 collectives, got ${#expected[@]}"
for line in "${expected[@]}"; do
    read -r coll size algorithm <<<"$line"
    # shellcheck disable=SC2086
    far=$(XCHG_TUNING_FILE=$file $mpirun -n 1 "$build/tools/xchg-info" --select "$coll" \
          --bytes "$size" --ranks 1024 --ppn 4 --top 0 2>&1 </dev/null)
    if printf '%s\n' "$far" | grep -q "decided by a rule of the tuning file" ||
       ! printf '%s\n' "$far" | grep -q "the cost model"; then
        printf '%s\n' "$far"
        fail "$coll at $size B, P = 1024: a rule tuned at P = 16 decided"
    else
        ok "$coll at $size B, P = 1024: the model decided"
    fi
    # shellcheck disable=SC2086
    out=$(XCHG_TUNING_FILE=$file $mpirun -n 1 "$build/tools/xchg-info" --select "$coll" \
          --bytes "$size" --ranks 16 --ppn 4 --top 0 2>&1 </dev/null)
    chosen=$(printf '%s\n' "$out" | head -1)
    if ! printf '%s\n' "$out" | grep -q "decided by a rule of the tuning file"; then
        printf '%s\n' "$out"
        fail "$coll at $size B: not decided by the file"
    elif ! python3 -c 'import sys
rule, got = sys.argv[1].split(":"), sys.argv[2].split(":")
params = set(got[1].split(",")) if len(got) > 1 else set()
sys.exit(got[0] != rule[0] or not set(rule[1].split(",") if len(rule) > 1 else []) <= params)' \
            "$algorithm" "$chosen"; then
        fail "$coll at $size B: xchg chose $chosen, the file says $algorithm"
    else
        ok "$coll at $size B: the file's rule decided: $chosen"
    fi
done
finish
