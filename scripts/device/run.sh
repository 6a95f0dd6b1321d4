#!/usr/bin/env bash
# One call on a lent GPU machine (no Debian Open MPI there): the Open MPI of
# .devkit/ (scripts/device/make-kit.sh, carried), xchg built there from this
# working tree (the kit's own build if that fails), then the measurements,
# each step with its own time limit, results under $OUT:
#   run.log                 everything printed, the machine first
#   steps.csv               step,seconds,status
#   gpu-check.txt           tests/device/gpu-check.sh on the real GPU
#   online-calibration.csv  step 2's short calibration runs (xchg-bench CSV)
#   online-results.tar      docs/results/selection/online/real.sh's runs
#                           (results-K.csv: every rank count, K = 1..RUNS)
#   online-real.md          and evaluate.py's table over them
#   apps-device16.tar       step_extra's "fft" (the applications, 16 ranks)
#   order.tar               step_extra's "order" (order.sh: auto against mpi
#                           in alternating rows, and the README's main job)
#   online-wide.csv         step_extra's "wide" (one real.sh run at
#                           XCHG_DEVICE_WIDE_NP ranks, default 16)
# (at most 8 files come back: pick step_extra's parts to fit).
#   usage: OUT=dir bash scripts/device/run.sh
#   XCHG_DEVICE_NP="4 8 16"        ranks of step 2 (bound to cores)
#   XCHG_DEVICE_SIZES, XCHG_DEVICE_COLLS   step 2's blocks and collectives
#   XCHG_DEVICE_RUNS=1             step 2's runs (real.sh's XCHG_ONLINE_RUNS;
#                                  each covers every rank count)
#   XCHG_DEVICE_ONLINE_S=180       step 2's time, calibration included: its
#                                  iterations follow from the calibration
#                                  (XCHG_DEVICE_ITERS=N: fixed, no calibration)
#   XCHG_DEVICE_STEPS="build gpu online extra"   which steps
#   XCHG_DEVICE_END_S=540          the whole call's end: a part of step_extra
#                                  that would not fit before it is skipped
#   XCHG_KIT=.devkit  XCHG_KIT_ALL_DEPS=1 (scripts/device/env.sh)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/xchg-device-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
tee_pid=$!
start_all=$(date +%s)
np_list=${XCHG_DEVICE_NP:-4 8 16}
sizes=${XCHG_DEVICE_SIZES:-16 64 256 1024 4096 16384 65536}
colls=${XCHG_DEVICE_COLLS:-alltoallv alltoall allgather}
steps=${XCHG_DEVICE_STEPS:-build gpu online extra}
runs=${XCHG_DEVICE_RUNS:-1}
end_all=$((start_all + ${XCHG_DEVICE_END_S:-540}))
build=build-device
declare -A predicted # step 2's expected seconds per rank count (online_calibrate)
ncores=$(nproc) bind_core="--bind-to core" bind_thread="--use-hwthread-cpus --bind-to hwthread"
bind_over="--oversubscribe --bind-to none"
echo "step,seconds,status" >"$OUT/steps.csv"

# shellcheck source=scripts/device/env.sh
. scripts/device/env.sh || { echo "FAIL: no kit (.devkit/: bash scripts/device/make-kit.sh)"; exit 1; }

# Debian 12's libraries ask for glibc 2.36 (libevent)
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
if [ -n "$glibc" ] && [ "$(printf '%s\n' 2.36 "$glibc" | sort -V | head -1)" != 2.36 ]; then
    echo "WARNING: glibc $glibc here; the kit's Open MPI (Debian 12) needs 2.36: expect it to fail"
fi

# run_step NAME FUNCTION: times it, records it in steps.csv
run_step() {
    local t0 rc
    case " $steps " in *" $1 "*) ;; *) echo "== $1: skipped"; return 0 ;; esac
    echo "== $1 ($(date -u +%H:%M:%S))"
    t0=$(date +%s.%N)
    "$2"
    rc=$?
    local dt
    dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    echo "== $1: ${dt} s, status $rc"
    echo "$1,$dt,$rc" >>"$OUT/steps.csv"
}

machine() {
    echo "nproc: $(nproc)"
    lscpu 2>/dev/null | grep -E '^(Model name|Socket|Core|Thread|CPU\(s\)|NUMA node\(s\))' | sed 's/  */ /g'
    command -v nvidia-smi >/dev/null && nvidia-smi -L
    echo "kernel: $(uname -r); $(ldd --version 2>&1 | head -1)"
    grep -h '^PRETTY_NAME' /etc/os-release 2>/dev/null
    echo "cc: $(${CC:-gcc} --version 2>/dev/null | head -1); cmake: $(cmake --version 2>/dev/null | head -1); ninja: $(ninja --version 2>/dev/null)"
    echo "Open MPI: $(mpirun.openmpi --version 2>&1 | head -1) from $OPAL_PREFIX"
    echo "kit libraries taken from the kit (not on this machine): $(ls "${XCHG_KIT_LIB##*:}" | tr '\n' ' ')"
    if git rev-parse --git-dir >/dev/null 2>&1; then
        echo "git: $(git log -1 --format='%h %s' | cut -c1-100); $(git status --porcelain | grep -c .) changed files"
    else
        echo "git: no repository here (a copy of the working tree)"
    fi
}

# Build here from this working tree; else the kit's build.
step_build() {
    local gen=() cache=$build/CMakeCache.txt
    command -v ninja >/dev/null && gen=(-G Ninja)
    # gcc is what Open MPI's wrapper calls
    command -v gcc >/dev/null || export OMPI_CC=${CC:-cc}
    # a cache of another source folder (or the kit's) cannot be reused
    if [ -f "$cache" ] && ! { grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$PWD" "$cache" &&
                              grep -qx "CMAKE_CACHEFILE_DIR:INTERNAL=$PWD/$build" "$cache"; }; then
        rm -rf "$build"
    fi
    [ -L "$build" ] && rm -f "$build"
    if timeout -k 5 60 cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
           -DMPI_C_COMPILER=mpicc.openmpi -DXCHG_WITH_JANSSON=OFF -DXCHG_WITH_HWLOC=OFF >"$OUT/build.tmp" 2>&1 &&
       timeout -k 5 120 cmake --build "$build" -j "$(nproc)" \
           --target xchg-bench xchg-info xchg-gpu-check >>"$OUT/build.tmp" 2>&1; then
        echo "built here: $build ($(grep -c . "$OUT/build.tmp") lines of build output)"
        rm -f "$OUT/build.tmp"
        return 0
    fi
    echo "FAIL: building here failed; the last lines:"
    tail -25 "$OUT/build.tmp"
    rm -f "$OUT/build.tmp"
    [ -x "$XCHG_KIT_DIR/build/tools/xchg-bench" ] || { echo "FAIL: and the kit has no build"; return 1; }
    rm -rf "$build"
    cp -r "$XCHG_KIT_DIR/build" "$build"
    echo "USING THE KIT'S BUILD (made from the checkout the kit was made in, not this tree)"
    return 2
}

# 1. Device buffers on the real GPU with an Open MPI without CUDA support:
# xchg must answer MPI_ERR_BUFFER, never touch device memory.
step_gpu() {
    local rc d
    # the driver's libcuda.so.1 where the loader's cache does not list it
    if ! ldconfig -p 2>/dev/null | grep 'libcuda\.so\.1' >/dev/null; then
        for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 \
                 /usr/local/cuda/compat; do
            if [ -e "$d/libcuda.so.1" ]; then
                echo "libcuda.so.1: $d"
                export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d
                break
            fi
        done
    fi
    timeout -k 5 60 bash tests/device/gpu-check.sh "$build" 2 >"$OUT/gpu-check.txt" 2>&1
    rc=$?
    cat "$OUT/gpu-check.txt"
    return $rc
}

# mpirun with the binding step 2 uses; chosen by online_preflight
mpirun_for() { # NP
    local np=$1
    if [ "$np" -le "$ncores" ]; then echo "mpirun.openmpi $bind_core"
    elif [ "$np" -le "$(nproc)" ]; then echo "mpirun.openmpi $bind_thread"
    else echo "mpirun.openmpi $bind_over"; fi
}

# What this machine allows: binding to cores (hwthreads beyond the cores),
# and the shared-memory single copy (CMA) that Open MPI uses by default.
online_preflight() {
    ncores=$(lscpu -p=CORE,SOCKET 2>/dev/null | grep -v '^#' | sort -u | grep -c .)
    [ "${ncores:-0}" -gt 0 ] || ncores=$(nproc)
    bind_core="--bind-to core"
    bind_thread="--use-hwthread-cpus --bind-to hwthread"
    local probe=(-n 2 "$build/tools/xchg-bench" -c alltoall -m 65536:65536 -a mpi -i 20 -x 2)
    unset OMPI_MCA_btl_vader_single_copy_mechanism
    if timeout -k 5 30 mpirun.openmpi $bind_core "${probe[@]}" >/dev/null 2>"$OUT/preflight.tmp"; then
        echo "preflight: --bind-to core, CMA single copy: ok"
    elif OMPI_MCA_btl_vader_single_copy_mechanism=none timeout -k 5 30 mpirun.openmpi $bind_core \
             "${probe[@]}" >/dev/null 2>>"$OUT/preflight.tmp"; then
        export OMPI_MCA_btl_vader_single_copy_mechanism=none
        echo "preflight: CMA single copy FAILED; measuring with btl_vader_single_copy_mechanism=none"
        head -5 "$OUT/preflight.tmp"
    else
        echo "preflight: binding FAILED; measuring with --bind-to none"
        head -10 "$OUT/preflight.tmp"
        bind_core="--bind-to none" bind_thread="--bind-to none"
    fi
    rm -f "$OUT/preflight.tmp"
    echo "cores: $ncores, hardware threads: $(nproc); ranks: up to the cores $bind_core, then $bind_thread, then $bind_over"
}

# wall NAME CMD...: runs CMD, sets NAME to its seconds (empty when it failed)
wall() {
    local __name=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    if "$@" >/dev/null 2>&1; then
        t1=$(date +%s.%N)
        printf -v "$__name" '%s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
    else
        echo "calibration: exit status $? (124: past its time limit) of: $*"
        printf -v "$__name" '%s' ""
    fi
}

# Iterations for step 2 from a short calibration. Per rank count: the
# start-up of one mpirun (xchg-bench, one call) and one xchg-info (real.sh
# asks it for the model's choice before each point); per collective, two
# xchg-bench runs over every power of two between the smallest and the
# largest size, every algorithm, 5 and 30 iterations (5 warm-up): their
# difference is the time of 25 iterations of every row at every size, of which step 2's
# sizes take the share their medians take (at least their share of the
# sizes); what the 5-iteration run took beyond that is its fixed cost
# (start-up, and per size the set-up, which a point of step 2 pays once).
# A point of step 2 costs: start-ups + its size's set-up + (iterations +
# real.sh's 300 warm-up) x its iteration time (+10%: the model's choice is one row
# more). Sets iters and predicted[NP]; returns 2 when it took more than a
# third of step 2's time, 1 when a run failed.
online_calibrate() {
    local np coll min max tmp=$OUT/cal.tmp npts first=1 fixed=0 work=0
    local s_run s_info wa wb
    declare -A fixed_of work_of
    min=$(printf '%s\n' $sizes | sort -n | head -1)
    max=$(printf '%s\n' $sizes | sort -n | tail -1)
    npts=$(printf '%s\n' $sizes | grep -c .)
    for np in $np_list; do
        local mpirun fixed_np=0 work_np=0
        read -r -a mpirun <<<"$(mpirun_for "$np")"
        local bench=(timeout -k 5 60 "${mpirun[@]}" -n "$np" "$build/tools/xchg-bench")
        wall s_run "${bench[@]}" -c alltoall -m 16:16 -a mpi -i 1 -x 0
        wall s_info env XCHG_ONLINE=0 timeout 30 "$build/tools/xchg-info" --select alltoall --bytes 1024 \
            --ranks "$np" --ppn "$np" --top 0
        [ -n "$s_run" ] && [ -n "$s_info" ] || { echo "calibration: start-up at $np ranks failed"; return 1; }
        for coll in $colls; do
            if [ $(($(date +%s) - online_t0)) -gt $((budget / 3)) ]; then
                echo "calibration: past a third of step 2's time: stopping (a slow machine)"
                return 2
            fi
            wall wa "${bench[@]}" -c "$coll" -m "$min:$max" --algo all -i 5 -x 5 --csv "$tmp"
            wall wb "${bench[@]}" -c "$coll" -m "$min:$max" --algo all -i 30 -x 5 --csv "$tmp"
            [ -n "$wa" ] && [ -n "$wb" ] || { echo "calibration: $coll at $np ranks failed"; return 1; }
            if [ "$first" = 1 ]; then head -1 "$tmp" | sed 's/^/np,/' >"$OUT/online-calibration.csv"; first=0; fi
            tail -n +2 "$tmp" | sed "s/^/$np,/" >>"$OUT/online-calibration.csv"
            local line
            line=$(awk -F, -v want=" $sizes " -v npts="$npts" -v wa="$wa" -v wb="$wb" -v sr="$s_run" -v si="$s_info" '
                NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "S_bytes") s = i; if ($i == "median_us") m = i; if ($i == "status") st = i }; next }
                { sizes[$s] = 1 }
                $st == "ok" { all += $m; if (index(want, " " $s " ")) c7 += $m }
                END {
                    n = 0; for (x in sizes) n++
                    b = (wb - wa) / 25                       # s per iteration of every row, every size
                    if (b <= 0) b = wb / 35                  # noise: all of the longer run, an upper bound
                    share = all > 0 ? c7 / all : 1
                    if (share < npts / n) share = npts / n
                    fixrun = wa - 10 * b; if (fixrun < sr) fixrun = sr
                    point = si + sr + (fixrun - sr) / n      # fixed cost of one point
                    printf "%.4f %.6f %d %.2f %.3f %.0f", npts * point, 1.1 * b * share, n, wa, wb - wa, c7
                }' "$tmp")
            local f w n
            read -r f w n _ _ _ <<<"$line"
            fixed_np=$(awk -v a="$fixed_np" -v b="$f" 'BEGIN { print a + b }')
            work_np=$(awk -v a="$work_np" -v b="$w" 'BEGIN { print a + b }')
            read -r _ _ _ wa_ d c7 <<<"$line"
            printf 'calibration: %2d ranks %-9s start-ups %.2f + %.2f s; %d sizes: 5 iterations %.1f s, 25 more %.1f s; sum of medians at step 2 sizes %s us -> per point fixed %.2f s, per iteration of every point %.4f s\n' \
                "$np" "$coll" "$s_run" "$s_info" "$n" "$wa_" "$d" "$c7" "$(awk -v f="$f" -v n="$npts" 'BEGIN { print f / n }')" "$w"
        done
        fixed_of[$np]=$fixed_np work_of[$np]=$work_np
        fixed=$(awk -v a="$fixed" -v b="$fixed_np" 'BEGIN { print a + b }')
        work=$(awk -v a="$work" -v b="$work_np" 'BEGIN { print a + b }')
    done
    rm -f "$tmp"
    # what is left of the budget after the calibration
    budget=$((budget - ($(date +%s) - online_t0)))
    iters=$(awk -v b="$budget" -v f="$fixed" -v w="$work" \
        'BEGIN { i = (b - f) / w - 300; i = int(i / 10) * 10; if (i > 2000) i = 2000; if (i < 100) i = 100; print i }')
    for np in $np_list; do
        predicted[$np]=$(awk -v f="${fixed_of[$np]}" -v w="${work_of[$np]}" -v i="$iters" 'BEGIN { printf "%.0f", f + w * (i + 300) }')
        echo "calibration: $np ranks: expect ${predicted[$np]} s"
    done
    printf 'calibration: %.0f s fixed, %.3f s per iteration of everything: %s iterations (100..2000) for the %s s left\n' \
        "$fixed" "$work" "$iters" "$budget"
}

# 2. Online selection, one rank per core: real.sh per rank count (each
# with its own time limit), the results merged, evaluate.py's table.
step_online() {
    local np rc=0 res=docs/results/selection/online/real budget=${XCHG_DEVICE_ONLINE_S:-180}
    local online_t0 deadline
    online_t0=$(date +%s)
    # a hard end for the whole step: the budget and a quarter
    deadline=$((online_t0 + budget * 5 / 4))
    online_preflight
    if [ -n "${XCHG_DEVICE_ITERS:-}" ]; then
        iters=$XCHG_DEVICE_ITERS
        echo "iterations: $iters (XCHG_DEVICE_ITERS)"
    else
        online_calibrate
        case $? in
            0) ;;
            2) iters=100; echo "calibration too slow: $iters iterations" ;;
            *) iters=300; echo "calibration failed: $iters iterations" ;;
        esac
    fi
    rm -f "$OUT/cal.tmp"
    # one real.sh call: its runs are the outer loop, so a cut-off run loses
    # only its own last points; every rank count gets the binding of the largest
    local t0 lim maxnp r predicted_all=0
    t0=$(date +%s)
    maxnp=$(printf '%s\n' $np_list | sort -n | tail -1)
    for np in $np_list; do predicted_all=$((predicted_all + ${predicted[$np]:-0})); done
    # twice what the calibration expects (with a fixed count: the whole
    # budget), and 30 s, but not past the step's end
    lim=$((deadline - t0))
    if [ "$predicted_all" -gt 0 ] && [ $((2 * runs * predicted_all + 30)) -lt "$lim" ]; then
        lim=$((2 * runs * predicted_all + 30))
    fi
    rm -f "$res"/results*.csv
    XCHG_ONLINE_NP=$np_list XCHG_ONLINE_SIZES=$sizes XCHG_ONLINE_COLLS=$colls XCHG_ONLINE_ITERS=$iters \
    XCHG_ONLINE_RUNS=$runs XCHG_ONLINE_EVALUATE=0 XCHG_ONLINE_MPIRUN=$(mpirun_for "$maxnp") \
    XCHG_ONLINE_BUILD=$build timeout -k 10 "$lim" bash docs/results/selection/online/real.sh
    r=$?
    [ "$r" -ne 0 ] && rc=$r
    echo "online: ranks $np_list ($(mpirun_for "$maxnp")), $runs runs, $iters iterations: $(($(date +%s) - t0)) s (limit $lim s), status $r"
    ls "$res"/results-*.csv >/dev/null 2>&1 || return 1
    tar -C "$res" -cf "$OUT/online-results.tar" $(cd "$res" && ls results-*.csv)
    # the table is written before the plot: it comes back even if plotting fails
    rm -f docs/results/selection/online/real.md
    python3 docs/results/selection/online/evaluate.py real || rc=$?
    [ -s docs/results/selection/online/real.md ] &&
        cp docs/results/selection/online/real.md "$OUT/online-real.md" && cat "$OUT/online-real.md"
    return $rc
}

# seconds left before the whole call's end (XCHG_DEVICE_END_S)
left() { echo $((end_all - $(date +%s))); }

# 3. A slot for more measurements (overhead, overlap). It has what the
# steps above set up: $build (xchg-bench, xchg-info, ...; build more targets
# with cmake --build "$build" --target T), mpirun_for NP (the binding
# chosen), $ncores, $OUT (at most 2 more files come back: 8 in all).
# 3. XCHG_DEVICE_EXTRA="path overlap": issue 25's measurements, the call
# path's cost at 4 ranks, 64 B (docs/results/overlap/path-overhead.sh: MPI's
# own, `mpi`, `auto` and auto's choice; the tree after is this working tree,
# the tree before XCHG_DEVICE_PATH_BEFORE=06ffeff, the commit before the
# path's trimming; without a git repository there, after only) and overlap at 16
# ranks (run-real.sh); their CSV and table come back.
step_extra() {
    local rc=0 tag=device16
    case " ${XCHG_DEVICE_EXTRA:-} " in *" path "*)
        timeout -k 5 300 env NP=4 AFTER=. TAG=$tag LAUNCH="mpirun.openmpi --bind-to core" \
            BEFORE="${XCHG_DEVICE_PATH_BEFORE:-06ffeff}" \
            CMAKE_EXTRA="-DXCHG_WITH_JANSSON=OFF -DXCHG_WITH_HWLOC=OFF" \
            bash docs/results/overlap/path-overhead.sh || rc=$?
        cp docs/results/overlap/path-$tag-4.csv docs/results/overlap/path-$tag-4.md "$OUT"/ ;;
    esac
    case " ${XCHG_DEVICE_EXTRA:-} " in *" overlap "*)
        timeout -k 5 200 env NP=16 BUILD="$build" TAG=$tag LAUNCH="$(mpirun_for 16)" \
            bash docs/results/overlap/run-real.sh || rc=$?
        cp docs/results/overlap/real-$tag-16.csv "$OUT"/ ;;
    esac
    case " ${XCHG_DEVICE_EXTRA:-} " in *" fft "*)
        step_fft || rc=$? ;;
    esac
    case " ${XCHG_DEVICE_EXTRA:-} " in *" order "*)
        step_order || rc=$? ;;
    esac
    case " ${XCHG_DEVICE_EXTRA:-} " in *" wide "*)
        step_wide || rc=$? ;;
    esac
    return $rc
}

# XCHG_DEVICE_EXTRA="order": docs/results/selection/online/device16/order.sh
# (4 and 8 ranks, `auto` against xchg's `mpi` rows in alternating
# positions, then the README's main job at 8 ranks), both in order.tar.
step_order() {
    local lim rc
    lim=$(left)
    [ "$lim" -gt 120 ] && lim=120
    [ "$lim" -ge 20 ] || { echo "order: SKIPPED, $(left) s left"; return 124; }
    mkdir -p "$OUT/order"
    OUT=$OUT/order XCHG_ORDER_BUILD=$build XCHG_ORDER_MPIRUN="$(mpirun_for 8)" \
        timeout -k 5 "$lim" bash docs/results/selection/online/device16/order.sh
    rc=$?
    echo "order: status $rc"
    tar -C "$OUT" -cf "$OUT/order.tar" order && rm -rf "$OUT/order"
    return $rc
}

# XCHG_DEVICE_EXTRA="wide": one real.sh run at XCHG_DEVICE_WIDE_NP ranks
# (16), XCHG_DEVICE_WIDE_ITERS (300) measured iterations per row, if at
# least XCHG_DEVICE_WIDE_MIN_S (150) seconds are left; online-wide.csv.
step_wide() {
    local np=${XCHG_DEVICE_WIDE_NP:-16} lim rc res=docs/results/selection/online/real
    lim=$(left)
    [ "$lim" -ge "${XCHG_DEVICE_WIDE_MIN_S:-150}" ] || { echo "wide: SKIPPED, $lim s left"; return 124; }
    rm -f "$res"/results*.csv
    XCHG_ONLINE_NP=$np XCHG_ONLINE_SIZES=$sizes XCHG_ONLINE_COLLS=$colls \
    XCHG_ONLINE_ITERS=${XCHG_DEVICE_WIDE_ITERS:-300} XCHG_ONLINE_RUNS=1 XCHG_ONLINE_EVALUATE=0 \
    XCHG_ONLINE_MPIRUN=$(mpirun_for "$np") XCHG_ONLINE_BUILD=$build \
        timeout -k 5 "$lim" bash docs/results/selection/online/real.sh
    rc=$?
    echo "wide: $np ranks, status $rc ($(left) s left)"
    [ -s "$res/results-1.csv" ] && cp "$res/results-1.csv" "$OUT/online-wide.csv"
    return $rc
}

# XCHG_DEVICE_EXTRA="fft": the applications at 16 ranks, their CSVs in one
# file, apps-device16.tar (fft-pipeline.csv, fft-online.csv, closure.csv):
#   the FFT's batched transform, its exchanges started and waited at once
#   ("batch") against pipelined ("pipeline": field k's exchange in flight
#   during the 1-D FFTs of fields k+1 and k-1), per algorithm and for MPI's
#   own MPI_Ialltoallv; the FFT with blocking transposes and the transitive
#   closure as in docs/results/selection/online/apps-smpi.sh: online auto,
#   auto with XCHG_ONLINE=0 (the model's choice), mpi, fixed algorithms and
#   MPI's own call. xchg-fft3d is built here with the kit's FFTW (no
#   pkg-config needed).
step_fft() {
    local kroot=$XCHG_KIT_DIR/root/usr fft=$build/xchg-fft3d-device np=${XCHG_DEVICE_APPS_NP:-16} n apps=$OUT/apps rc=0
    timeout -k 5 120 cmake --build "$build" -j "$(nproc)" --target xchg_shared xchg-closure >/dev/null 2>&1 ||
        { echo "apps: building libxchg or xchg-closure failed"; return 1; }
    OMPI_CC=${OMPI_CC:-gcc} timeout -k 5 60 mpicc.openmpi -O2 -std=c11 -D_POSIX_C_SOURCE=200809L \
        -Iinclude -I"$kroot/include" apps/fft/xchg_fft3d.c apps/fft/pencil.c apps/fft/batch.c \
        apps/fft/fft_check.c apps/fft/fftw_mpi_baseline.c apps/fft/fft_util.c \
        -L"$build" -Wl,-rpath,"$PWD/$build" -lxchg -L"$kroot/lib/x86_64-linux-gnu" -lfftw3 -lm -o "$fft" ||
        { echo "apps: building xchg-fft3d failed"; return 1; }
    [ "$np" -le "$ncores" ] || np=$ncores
    mkdir -p "$apps"
    local launch
    read -r -a launch <<<"$(mpirun_for "$np")"
    # app LIMIT CSV [ENV=V...] -- EXE ARGS...: one run, its CSV rows appended
    app() {
        local limit=$1 csv=$apps/$2 label=auto
        shift 2
        case " $* " in *" XCHG_ONLINE=0 "*) label="auto[XCHG_ONLINE=0]" ;; esac
        timeout -k 5 "$limit" env "$@" 2>"$apps/err.txt" | grep , | sed "s/,auto,/,$label,/" >>"$csv" || rc=1
        grep -h 'FAIL\|rror\|checks passed' "$apps/err.txt" | sort | uniq -c
    }
    local header=--iters=5 # then --no-header
    for n in 128x128x128:60 256x256x256:90; do
        app "${n#*:}" fft-pipeline.csv XCHG_VERBOSE=0 "${launch[@]}" -n "$np" "$fft" --n="${n%:*}" \
            --pipeline=4 --iters=5 --warmup=1 --algos=auto,mpi,pairwise,nonblocking,scattered,node_aware "$header"
        header=--no-header
    done
    set -- --n=128x128x128 --exchange=blocking --warmup=30 --iters=10
    app 60 fft-online.csv XCHG_ONLINE=1 "${launch[@]}" -n "$np" "$fft" "$@" \
        --algos=auto,mpi,nonblocking,pairwise,scattered --baselines=MPI_Alltoallv
    app 30 fft-online.csv XCHG_ONLINE=0 "${launch[@]}" -n "$np" "$fft" "$@" --algos=auto --baselines=none --no-header
    set -- --graph=powerlaw --n=400 --m=800
    app 40 closure.csv XCHG_ONLINE=1 "${launch[@]}" -n "$np" "$build/apps/closure/xchg-closure" "$@" \
        --algos=MPI_Alltoallv,auto,mpi,nonblocking,scattered
    app 30 closure.csv XCHG_ONLINE=0 "${launch[@]}" -n "$np" "$build/apps/closure/xchg-closure" "$@" \
        --algos=auto --no-header
    rm -f "$apps/err.txt"
    tar -C "$OUT" -cf "$OUT/apps-device16.tar" apps && rm -rf "$apps"
    return $rc
}

echo "== machine"
machine
run_step build step_build
[ -x "$build/tools/xchg-bench" ] || { echo "FAIL: no xchg-bench: stopping"; exit 1; }
run_step gpu step_gpu
run_step online step_online
run_step extra step_extra
echo "== all: $(($(date +%s) - start_all)) s"
cat "$OUT/steps.csv"
# the log complete before the files go back
exec >&- 2>&-
wait "$tee_pid" 2>/dev/null || sleep 1
