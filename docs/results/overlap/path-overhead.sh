#!/usr/bin/env bash
# What the blocking call path costs, before the task model (BEFORE, main at
# 3042766) and after it (AFTER, default HEAD): both trees exported (git
# archive, no worktree) and built Release into a temporary directory, then
# alternating jobs (before, after, after, before, ...) of xchg-bench at NP
# ranks and SIZE-byte blocks, each job timing in interleaved rounds MPI's own
# collective (PMPI_*), the `mpi` selection (xchg's path around it), `auto`
# and the algorithm auto chose (found by a short probe per tree), median of
# ITERS calls per row. Issue 25's goals: mpi within 3% of the direct call,
# auto within 2% of its choice.
#   usage: docs/results/overlap/path-overhead.sh
#   env:   NP=4 SIZE=64 ITERS=8000 REPS=3 COLLS="alltoall alltoallv allgather"
#          BEFORE=3042766 AFTER=HEAD LAUNCH="mpirun.openmpi --bind-to core"
#          BEFORE=none (or no git repository here): the tree after only
#          MPICC=mpicc.openmpi TAG=$(hostname -s) KEEP=0 (1: keep the builds)
#          AFTER=. : this working tree as it is (a copy that has no commit of it)
#          CMAKE_EXTRA="-DXCHG_WITH_JANSSON=OFF ..." (options for both builds)
#   writes docs/results/overlap/path-<TAG>-<NP>.csv (every row of every job)
#   and path-<TAG>-<NP>.md (medians over the jobs of each ratio)
# About 3 minutes on a quiet machine with the defaults (two builds ~1 min each
# on 16 cores, then 2 x REPS x 3 jobs of ~5 s).
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD out=$root/docs/results/overlap
np=${NP:-4} size=${SIZE:-64} iters=${ITERS:-8000} reps=${REPS:-3}
colls=${COLLS:-"alltoall alltoallv allgather"} tag=${TAG:-$(hostname -s)}
read -r -a launch <<< "${LAUNCH:-mpirun.openmpi --bind-to core}"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
tmp=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
declare -A rev=([before]=${BEFORE:-3042766} [after]=${AFTER:-HEAD})
sides="before after"
for side in before after; do
    mkdir -p "$tmp/$side"
    if [ "${rev[$side]}" = . ]; then # the working tree, without build trees
        tar -C "$root" --exclude='./build*' --exclude=./.devkit --exclude=./.git -cf - . |
            tar -x -C "$tmp/$side"
    elif [ "$side" = before ] && { [ "${rev[$side]}" = none ] ||
            ! git archive "${rev[$side]}" 2>/dev/null | tar -x -C "$tmp/$side"; }; then
        # BEFORE=none, or no repository here (a copy of the working tree)
        echo "# no tree before (${rev[$side]}): measuring after only" >&2
        sides=after
        continue
    else
        git archive "${rev[$side]}" | tar -x -C "$tmp/$side"
    fi
    echo "# building $side (${rev[$side]})" >&2
    # shellcheck disable=SC2086 # CMAKE_EXTRA is a list of options
    cmake -S "$tmp/$side" -B "$tmp/$side/build" -G Ninja -DMPI_C_COMPILER="${MPICC:-mpicc.openmpi}" \
        -DCMAKE_BUILD_TYPE=Release -DXCHG_BUILD_TESTS=OFF -DXCHG_BUILD_APPS=OFF ${CMAKE_EXTRA:-} >/dev/null
    ninja -C "$tmp/$side/build" xchg-bench >/dev/null
done
bench() { # side, coll, iterations, algos...
    local side=$1 c=$2 n=$3; shift 3
    local args=()
    for a in "$@"; do args+=(--algo "$a"); done
    timeout 600 "${launch[@]}" -n "$np" "$tmp/$side/build/tools/xchg-bench" -c "$c" \
        -m "$size:$size" -i "$n" -x 500 -r 20 "${args[@]}" --csv "$tmp/one.csv" >/dev/null
}
# auto's choice per tree and collective: "auto[name:params]" in the CSV
declare -A choice
for side in $sides; do
    for c in $colls; do
        bench "$side" "$c" 200 auto
        choice[$side.$c]=$(grep -o '"auto\[[^]]*\]"' "$tmp/one.csv" | sed 's/^"auto\[//; s/\]"$//')
        echo "# $side $c: auto chose ${choice[$side.$c]:-?}" >&2
    done
done
csv=$out/path-$tag-$np.csv
echo "side,rev,job,coll,algorithm,median_us,ratio" > "$csv"
job=0
for ((r = 0; r < reps; r++)); do
    order=$sides
    [ $((r % 2)) = 1 ] && [ "$sides" != after ] && order="after before"
    for side in $order; do
        for c in $colls; do
            job=$((job + 1))
            algos=(mpi auto)
            ch=${choice[$side.$c]}
            [ -n "$ch" ] && [ "$ch" != mpi ] && algos+=("$ch")
            bench "$side" "$c" "$iters" "${algos[@]}"
            # columns: coll,...,S_bytes(7),algorithm(8),status(9),median_us(10),...,ratio(13)
            python3 - "$tmp/one.csv" "$side" "${rev[$side]}" "$job" >> "$csv" <<'EOF'
import csv, sys
path, side, rev, job = sys.argv[1:]
for r in csv.DictReader(open(path)):
    if r["status"] == "ok":
        print(f'{side},{rev},{job},{r["coll"]},"{r["algorithm"]}",{r["median_us"]},{r["ratio"]}')
EOF
        done
    done
done
python3 - "$csv" "$out/path-$tag-$np.md" "$np" "$size" "$iters" <<'EOF'
import csv, statistics, sys
path, md, np, size, iters = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
out = [f"# Blocking path overhead, P={np}, {size} B, median of {iters} calls per row and job",
       "", "Ratios: to MPI's own call in the same job (mpi, the choice), and auto's median to",
       "its choice's; median over the jobs.", "",
       "| coll | side | MPI us | mpi us | mpi/MPI | choice | choice/MPI | auto us | auto/choice |",
       "|---|---|---:|---:|---:|---|---:|---:|---:|"]
for coll in dict.fromkeys(r["coll"] for r in rows):
    for side in ("before", "after"):
        sel = [r for r in rows if r["coll"] == coll and r["side"] == side]
        if not sel:
            continue
        jobs = sorted({r["job"] for r in sel})
        def med(pred, key):
            v = [float(r[key]) for r in sel if pred(r["algorithm"])]
            return statistics.median(v) if v else float("nan")
        is_mpi_own = lambda a: a == "MPI"
        is_sel_mpi = lambda a: a == "mpi"
        is_auto = lambda a: a.startswith("auto")
        names = [r["algorithm"] for r in sel if not (is_mpi_own(r["algorithm"]) or
                 is_sel_mpi(r["algorithm"]) or is_auto(r["algorithm"]))]
        choice = names[0] if names else "mpi"  # auto chose mpi (or no label)
        is_choice = lambda a: a == choice
        ratios = []
        for j in jobs:
            a = [float(r["median_us"]) for r in sel if r["job"] == j and is_auto(r["algorithm"])]
            c = [float(r["median_us"]) for r in sel if r["job"] == j and is_choice(r["algorithm"])]
            if a and c:
                ratios.append(a[0] / c[0])
        auto_choice = statistics.median(ratios) if ratios else float("nan")
        out.append(f"| {coll} | {side} | {med(is_mpi_own, 'median_us'):.3f} | "
                   f"{med(is_sel_mpi, 'median_us'):.3f} | {med(is_sel_mpi, 'ratio'):.3f} | "
                   f"{choice or '?'} | {med(is_choice, 'ratio'):.3f} | "
                   f"{med(is_auto, 'median_us'):.3f} | {auto_choice:.3f} |")
open(md, "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
