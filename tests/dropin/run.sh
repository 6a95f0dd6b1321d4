#!/usr/bin/env bash
# Tests of the drop-in library (libxchg-mpi.so, src/interpose/) on programs
# that know nothing of xchg, each run without it (the reference) and under
# tools/xchg-run, which preloads it:
#   Open MPI: mpi4py (python3-mpi4py + NumPy), mpi4py-fft's slab and pencil
#             transforms (python3-mpi4py-fft), FFTW's MPI 3-D transform
#             (libfftw3-mpi-dev), Fortran (mpif.h, use mpi, use mpi_f08),
#             edge cases (inter-communicator, errors), MPI_Alltoallw over
#             derived datatypes (alltoallw.c), MPI_Allgatherv (uneven, zero,
#             in place; allgatherv.c), the
#             neighbourhood alltoallv (blocking, persistent with
#             MPIX_Neighbor_alltoallv_init, nonblocking with every
#             completion function; neighbor.c), the nonblocking and
#             persistent (MPIX_..._init) dense collectives (dense_requests.c)
#             and freed in flight (freeing.c), and a program linked with -lxchg-mpi instead of preloading;
#   MPICH:    Fortran (mpif.h, use mpi, use mpi_f08), the edge cases, alltoallw.c,
#             MPI_Allgatherv and the
#             neighbourhood alltoallv (persistent MPI_Neighbor_alltoallv_init
#             too: MPICH 4 is an MPI-4 library), the nonblocking and
#             persistent (MPI-4's MPI_..._init) dense collectives, from C
#             and Fortran (requests.F90, under Open MPI too with its
#             MPIX_..._init), freed in flight (freeing.c).
# A run under xchg must give the program's own PASS verdicts and, read from
# XCHG_COUNT_FILE, exactly the calls the program says it made (so a call that
# silently bypassed xchg, or was routed twice, fails); mpi4py must also give
# the same digest of every received byte as without xchg.
#
# Usage: tests/dropin/run.sh [OMPI_BUILD [MPICH_BUILD]]
#   defaults: build build-mpich (what scripts/setup builds); "-" skips an MPI.
# The test programs are compiled into BUILD/dropin-tests/ with the build's
# own MPI compiler wrappers. A test whose prerequisites are missing (gfortran,
# mpi4py, FFTW) is reported as SKIP and not counted. The last line is
# "N passed, N failed"; the exit status is 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
src=$PWD/tests/dropin

ompi_build=${1:-build}
mpich_build=${2:-build-mpich}

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset XCHG_ALLTOALL XCHG_ALLTOALLV XCHG_ALLTOALLW XCHG_ALLGATHER XCHG_ALLGATHERV XCHG_VIRTUAL_NODES \
      XCHG_VIRTUAL_PLACEMENT
unset XCHG_VERBOSE XCHG_COUNT_FILE XCHG_MPI_LIB

passed=0
failed=0
skipped=0
start=$SECONDS
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
skip() { echo "SKIP $*"; skipped=$((skipped + 1)); }

# Set by setup_mpi for the MPI under test.
build='' work='' mpi='' cc='' fc='' launcher='' run=''

# setup_mpi BUILD_DIR: compilers and launcher of the build's MPI.
setup_mpi() {
    case $1 in /*) build=$1 ;; *) build=$PWD/$1 ;; esac
    work=$build/dropin-tests
    cc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
    cc=$(command -v "${cc:-mpicc}" || echo "${cc:-mpicc}")
    local dir base suffix
    dir=$(dirname "$cc")
    base=$(basename "$cc")
    suffix=${base#mpicc}                      # ".openmpi", ".mpich" or ""
    fc=$dir/mpifort$suffix
    launcher=$dir/mpiexec$suffix
    run=$build/xchg-run
    if grep -q 'libmpich\.so' "$build/src/interpose/libxchg-mpi.so" 2>/dev/null; then
        mpi=mpich
    else
        mpi=openmpi
    fi
    mkdir -p "$work"
}

# last_log: the log of the latest `launch`.
last_log=''
# launch NAME NP [ENV=VALUE...] -- COMMAND...: run under the MPI launcher,
# output to $work/NAME.log; returns the exit status (124: timed out).
launch() {
    local name=$1 np=$2
    shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    last_log=$work/$name.log
    env "${envs[@]}" timeout -k 5 120 "$launcher" -n "$np" "$@" >"$last_log" 2>&1
}
# xlaunch: the same under tools/xchg-run, with XCHG_COUNT_FILE=$work/NAME.counts.
xlaunch() {
    local name=$1 np=$2
    shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    last_log=$work/$name.log
    rm -f "$work/$name.counts"
    env "${envs[@]}" XCHG_COUNT_FILE="$work/$name.counts" \
        timeout -k 5 120 "$run" "$launcher" -n "$np" "$@" >"$last_log" 2>&1
}

# verdict NAME RC: the program's own "X: N passed, 0 failed" line and exit 0.
verdict() {
    local name=$1 rc=$2 line
    line=$(grep -E '^[a-z0-9]+: [0-9]+ passed, [0-9]+ failed$' "$last_log" | tail -1)
    if [ "$rc" -eq 0 ] && [ -n "$line" ] && [[ $line == *" 0 failed" ]]; then
        pass "$name (${line#*: })"
        return 0
    fi
    fail "$name: exit status $rc, ${line:-no verdict} (log $last_log)"
    grep -E '^FAIL' "$last_log" | head -5 | sed 's/^/     /'
    tail -5 "$last_log" | sed 's/^/   | /'
    return 1
}

# counted NAME COLL KEY EXPECTED: KEY (calls, to_mpi, errors) of COLL in NAME.counts.
counted() {
    sed -n "s/^$2 .*\\b$3=\\([0-9]*\\).*/\\1/p" "$work/$1.counts" 2>/dev/null
}

# Every form XCHG_COUNT_FILE counts (src/interpose/stats.c).
counted_forms="alltoall alltoallv allgather neighbor_alltoallv alltoallw allgatherv
    ialltoall ialltoallv ialltoallw iallgather iallgatherv
    alltoall_init alltoallv_init alltoallw_init allgather_init allgatherv_init"

# check_counts NAME NP: the program's "calls alltoall=A alltoallv=V
# allgather=G [neighbor_alltoallv=N] [alltoallw=W] [ialltoall=I ...]" (per
# rank; a form it does not name: 0) times NP must equal what reached xchg,
# and its "to_mpi ..." line (or 0) what xchg passed to MPI.
check_counts() {
    local name=$1 np=$2 line coll want got ok=1 detail=''
    if [ ! -s "$work/$name.counts" ]; then
        fail "$name: no XCHG_COUNT_FILE written (was libxchg-mpi.so loaded?)"
        return
    fi
    for kind in calls to_mpi; do
        line=$(grep -E "^$kind alltoall=" "$last_log" | tail -1)
        for coll in $counted_forms; do
            want=0
            [ -n "$line" ] && want=$(sed -n "s/.*\\b$coll=\\([0-9]*\\).*/\\1/p" <<<"$line")
            want=$((want * np))
            got=$(counted "$name" "$coll" "$kind")
            # the forms the program used, and any mismatch
            [ "${got:-x}" = 0 ] && [ "$want" = 0 ] || detail+=" $coll $kind=${got:-?}"
            [ "${got:-x}" = "$want" ] || { ok=0; detail+="(expected $want)"; }
        done
    done
    if [ $ok = 1 ]; then pass "$name reached xchg exactly:$detail"; else fail "$name counts:$detail"; fi
}

check_library() {
    local lib=$build/src/interpose/libxchg-mpi.so
    if [ ! -f "$lib" ]; then
        fail "$mpi: $lib not built"
        return 1
    fi
    # Every MPI call of the drop-in goes to PMPI_, or a wrapper could recurse.
    local leaks want missing=''
    leaks=$(nm -D --undefined-only "$lib" | awk '{print $NF}' | grep -E '^MPI_[A-Z]' | tr '\n' ' ')
    want="MPI_Alltoall MPI_Alltoallv MPI_Alltoallw MPI_Allgather MPI_Allgatherv MPI_Finalize
        MPI_Ialltoall MPI_Ialltoallv MPI_Ialltoallw MPI_Iallgather MPI_Iallgatherv
        mpi_finalize_f08_ MPI_Neighbor_alltoallv MPI_Ineighbor_alltoallv MPI_Wait MPI_Waitall
        MPI_Test MPI_Start MPI_Request_free"
    local persistent="Alltoall_init Alltoallv_init Alltoallw_init Allgather_init Allgatherv_init"
    [ $mpi = mpich ] && want+=" MPI_Neighbor_alltoallv_init ${persistent//A/MPI_A}"
    [ $mpi = openmpi ] && want+=" ${persistent//A/MPIX_A} MPIX_Neighbor_alltoallv_init"
    [ $mpi = openmpi ] && want+=" mpi_alltoall_ mpi_alltoallv_ mpi_alltoallw_ mpi_allgather_ mpi_finalize_
        MPI_ALLTOALL mpi_alltoall mpi_alltoall__ mpi_alltoall_f08_ mpi_allgatherv_ MPI_ALLGATHERV
        mpi_ialltoall_ mpi_ialltoallv_ mpi_ialltoallw_ mpi_iallgather_ mpi_iallgatherv_
        mpi_ialltoall_f08_ mpix_alltoall_init_ mpix_alltoallv_init_ mpix_allgatherv_init_f08_
        mpi_wait_ MPI_WAIT mpi_waitall_ mpi_test_ mpi_start_ mpi_request_free_ mpi_wait_f08_
        mpi_startall_f08_"
    for sym in $want; do
        nm -D --defined-only "$lib" | awk '{print $NF}' | grep -qx "$sym" || missing+=" $sym"
    done
    if [ -z "$leaks" ] && [ -z "$missing" ]; then
        pass "$mpi: $lib defines the entry points and calls MPI only through PMPI_"
    else
        fail "$mpi: $lib${leaks:+ calls $leaks}${missing:+ lacks$missing}"
    fi
}

test_edge() {
    local np=$1 rc
    if ! "$cc" -O1 -o "$work/edge" "$src/edge.c" 2>"$work/edge.build.log"; then
        fail "$mpi edge: does not compile (log $work/edge.build.log)"
        return
    fi
    launch "$mpi-edge-ref" "$np" -- "$work/edge"
    verdict "$mpi edge, np=$np, without xchg" $?
    xlaunch "$mpi-edge" "$np" -- "$work/edge"
    rc=$?
    verdict "$mpi edge, np=$np, under xchg-run" $rc && check_counts "$mpi-edge" "$np"
}

# MPI_Alltoallw over subarray, vector and struct datatypes, zero-size blocks
# and MPI_IN_PLACE (alltoallw.c): with the default selection, a forwarding
# one (node_aware on virtual nodes of 2: every block packed with its own
# type) and the MPI library's own through xchg; every call counted as
# served by xchg, and the environment's choice used.
test_alltoallw() {
    local np=$1 rc name setting
    if ! "$cc" -O1 -o "$work/alltoallw" "$src/alltoallw.c" 2>"$work/alltoallw.build.log"; then
        fail "$mpi alltoallw: does not compile (log $work/alltoallw.build.log)"
        return
    fi
    launch "$mpi-alltoallw-ref" "$np" -- "$work/alltoallw"
    verdict "$mpi alltoallw, np=$np, without xchg" $?
    for setting in default node_aware mpi; do
        name=$mpi-alltoallw-$setting
        case $setting in
        default) xlaunch "$name" "$np" -- "$work/alltoallw" ;;
        node_aware) xlaunch "$name" "$np" XCHG_ALLTOALLW=node_aware XCHG_VIRTUAL_NODES=2 -- \
                        "$work/alltoallw" ;;
        mpi) xlaunch "$name" "$np" XCHG_ALLTOALLW=mpi -- "$work/alltoallw" ;;
        esac
        rc=$?
        verdict "$mpi alltoallw, np=$np, under xchg-run ($setting)" $rc && check_counts "$name" "$np"
        if [ $setting != default ]; then
            if grep -q "^algorithm alltoallw $setting" "$work/$name.counts"; then
                pass "$mpi alltoallw: the environment chose $setting"
            else
                fail "$mpi alltoallw: $setting not used ($work/$name.counts)"
            fi
        fi
    done
}

# MPI_Allgatherv (allgatherv.c): uneven, zero and in-place calls checked
# against values the program computes, every call counted as served by
# xchg; once with the default selection and once per algorithm on virtual
# nodes of 2 (hierarchical's leaders then exchange across nodes).
test_allgatherv() {
    local np=$1 rc name=$mpi-allgatherv algo
    if ! "$cc" -O1 -o "$work/allgatherv" "$src/allgatherv.c" 2>"$work/allgatherv.build.log"; then
        fail "$mpi allgatherv: does not compile (log $work/allgatherv.build.log)"
        return
    fi
    launch "$name-ref" "$np" -- "$work/allgatherv"
    verdict "$mpi allgatherv, np=$np, without xchg" $?
    xlaunch "$name" "$np" -- "$work/allgatherv"
    rc=$?
    verdict "$mpi allgatherv, np=$np, under xchg-run" $rc && check_counts "$name" "$np"
    for algo in ring recursive_doubling bruck hierarchical:exchange=direct; do
        xlaunch "$name-${algo%%:*}" "$np" XCHG_ALLGATHERV=$algo XCHG_VIRTUAL_NODES=2 -- \
            "$work/allgatherv"
        rc=$?
        verdict "$mpi allgatherv, np=$np, under xchg-run ($algo, nodes of 2)" $rc &&
            check_counts "$name-${algo%%:*}" "$np"
        grep -q "^algorithm allgatherv ${algo%%:*}" "$work/$name-${algo%%:*}.counts" ||
            fail "$mpi allgatherv: $algo not used ($work/$name-${algo%%:*}.counts)"
    done
}

test_neighbor() {
    local np=$1 rc name=$mpi-neighbor
    if ! "$cc" -O1 -o "$work/neighbor" "$src/neighbor.c" 2>"$work/neighbor.build.log"; then
        fail "$mpi neighbor: does not compile (log $work/neighbor.build.log)"
        return
    fi
    launch "$name-ref" "$np" -- "$work/neighbor"
    verdict "$mpi neighbor, np=$np, without xchg" $?
    xlaunch "$name" "$np" -- "$work/neighbor"
    rc=$?
    verdict "$mpi neighbor, np=$np, under xchg-run" $rc && check_counts "$name" "$np"
    # The locality algorithm on virtual nodes of 2: its plans' init
    # communicates, so the pattern cache agrees on hits with an MPI_Allreduce
    # (one rank's pattern changes alone in neighbor.c).
    xlaunch "$name-locality" "$np" XCHG_NEIGHBOR_ALLTOALLV=locality XCHG_VIRTUAL_NODES=2 -- \
        "$work/neighbor"
    rc=$?
    verdict "$mpi neighbor, np=$np, under xchg-run (locality, nodes of 2)" $rc &&
        check_counts "$name-locality" "$np"
    if grep -q '^algorithm neighbor_alltoallv locality' "$work/$name-locality.counts"; then
        pass "$mpi neighbor: the environment chose locality"
    else
        fail "$mpi neighbor: locality not used ($work/$name-locality.counts)"
    fi
}

# The nonblocking and persistent dense collectives (dense_requests.c):
# every form, checked byte for byte against the MPI library's own, in mixed
# request arrays; every call counted under its form's name (ialltoall,
# alltoall_init, ...), inter-communicator calls passed to MPI. With the
# default selection on NP ranks, and on 4 ranks with other algorithms on
# virtual nodes of 2 and with `mpi`. Without xchg only under Open MPI:
# MPICH 4.0's own MPI_Ialltoallw and MPI_Alltoallw_init with MPI_IN_PLACE
# return wrong data (and then crash), which xchg does not share.
test_requests() {
    local nps=$1 np rc name setting
    if ! "$cc" -O1 -w -o "$work/dense_requests" "$src/dense_requests.c" \
        >"$work/dense_requests.build.log" 2>&1; then
        fail "$mpi requests: does not compile (log $work/dense_requests.build.log)"
        return
    fi
    if [ $mpi = openmpi ]; then
        launch "$mpi-requests-ref" 4 -- "$work/dense_requests"
        verdict "$mpi requests, np=4, without xchg" $?
    fi
    for np in $nps; do
        name=$mpi-requests-$np
        xlaunch "$name" "$np" -- "$work/dense_requests"
        rc=$?
        verdict "$mpi requests, np=$np, under xchg-run" $rc && check_counts "$name" "$np"
    done
    # parlogna: derived types freed while its nonblocking calls are in flight,
    # and persistent plans freed before their first start (both crashed once)
    for setting in others parlogna mpi; do
        name=$mpi-requests-$setting
        case $setting in
        others) xlaunch "$name" 4 XCHG_ALLTOALL=bruck XCHG_ALLTOALLV=hierarchical \
                    XCHG_ALLTOALLW=node_aware XCHG_ALLGATHER=ring XCHG_ALLGATHERV=recursive_doubling \
                    XCHG_VIRTUAL_NODES=2 -- "$work/dense_requests" ;;
        parlogna) xlaunch "$name" 4 XCHG_ALLTOALL=parlogna XCHG_ALLTOALLV=parlogna:radix=3 \
                      XCHG_ALLTOALLW=parlogna -- "$work/dense_requests" ;;
        mpi) xlaunch "$name" 4 XCHG_ALLTOALL=mpi XCHG_ALLTOALLV=mpi XCHG_ALLTOALLW=mpi \
                 XCHG_ALLGATHER=mpi XCHG_ALLGATHERV=mpi -- "$work/dense_requests" ;;
        esac
        rc=$?
        verdict "$mpi requests, np=4, under xchg-run ($setting)" $rc && check_counts "$name" 4
    done
}

# MPI_Request_free and MPI_Comm_free with MPI_Ialltoall and a started
# persistent alltoall in flight (freeing.c): the frees return at once (rank
# 0 frees before the others start; a free that waited would hang), the data
# arrives later, every call counted. With the default selection and with
# bruck (multi-round). No run without xchg: Open MPI 4.1 and MPICH 4.0
# both refuse MPI_Request_free of an active nonblocking collective.
test_freeing() {
    local np=$1 rc name setting
    if ! "$cc" -O1 -o "$work/freeing" "$src/freeing.c" >"$work/freeing.build.log" 2>&1; then
        fail "$mpi freeing: does not compile (log $work/freeing.build.log)"
        return
    fi
    for setting in default bruck; do
        name=$mpi-freeing-$setting
        case $setting in
        default) xlaunch "$name" "$np" -- "$work/freeing" ;;
        bruck) xlaunch "$name" "$np" XCHG_ALLTOALL=bruck -- "$work/freeing" ;;
        esac
        rc=$?
        verdict "$mpi freeing, np=$np, under xchg-run ($setting)" $rc && check_counts "$name" "$np"
    done
}

test_fortran() {
    local np=$1 variant flags rc
    if ! command -v "$fc" >/dev/null || ! command -v gfortran >/dev/null; then
        skip "$mpi Fortran: no $fc / gfortran"
        return
    fi
    for variant in mpif mpi f08; do
        case $variant in
        mpif) flags="-fallow-argument-mismatch -w" ;;   # mpif.h has no interfaces
        mpi) flags="-DXCHG_USE_MPI -w" ;;
        f08) flags="-DXCHG_USE_F08" ;;
        esac
        # shellcheck disable=SC2086
        if ! "$fc" -O1 $flags -o "$work/f_$variant" "$src/collectives.F90" \
            >"$work/f_$variant.build.log" 2>&1; then
            if [ $variant = f08 ] && grep -qi "mpi_f08" "$work/f_$variant.build.log"; then
                skip "$mpi Fortran use mpi_f08: module not available"
            else
                fail "$mpi Fortran $variant: does not compile (log $work/f_$variant.build.log)"
            fi
            continue
        fi
        launch "$mpi-fortran-$variant-ref" "$np" -- "$work/f_$variant"
        verdict "$mpi Fortran ($variant), np=$np, without xchg" $?
        xlaunch "$mpi-fortran-$variant" "$np" -- "$work/f_$variant"
        rc=$?
        verdict "$mpi Fortran ($variant), np=$np, under xchg-run" $rc &&
            check_counts "$mpi-fortran-$variant" "$np"
    done
}

# Fortran's nonblocking and persistent collectives (requests.F90) in the
# three bindings, completed by Fortran's completion functions: every call
# counted as served by xchg. MPICH's reach the C entry points (its mpi_f08
# completion functions are wrapped in fortran_completion.c); Open MPI's
# bindings call PMPI_ directly, its MPI_Wait alike, so the drop-in defines
# their Fortran symbols (fortran_requests.c, fortran_completion.c): without
# them the calls would reach Open MPI uncounted, or its MPI_WAIT would never
# see xchg's request complete. Persistent: MPI_ALLTOALL_INIT and
# MPI_ALLGATHERV_INIT on MPICH (MPI-4), MPIX_ALLTOALL_INIT and
# MPIX_ALLGATHERV_INIT on Open MPI 4.1 (mpif-ext.h, mpi_ext, mpi_f08_ext).
test_fortran_requests() {
    local np=$1 variant flags rc name
    if ! command -v "$fc" >/dev/null || ! command -v gfortran >/dev/null; then
        skip "$mpi Fortran requests: no $fc / gfortran"
        return
    fi
    for variant in mpif mpi f08; do
        case $variant in
        mpif) flags="-fallow-argument-mismatch -w" ;;
        mpi) flags="-DXCHG_USE_MPI -w" ;;
        f08) flags="-DXCHG_USE_F08" ;;
        esac
        if [ $mpi = mpich ]; then flags+=" -DXCHG_HAVE_INIT"; else flags+=" -DXCHG_HAVE_MPIX_INIT"; fi
        name=$mpi-frequests-$variant
        # shellcheck disable=SC2086
        if ! "$fc" -O1 $flags -o "$work/fr_$variant" "$src/requests.F90" \
            >"$work/$name.build.log" 2>&1; then
            if [ $variant = f08 ] && grep -qi "mpi_f08" "$work/$name.build.log"; then
                skip "$mpi Fortran requests, use mpi_f08: module not available"
            else
                fail "$mpi Fortran requests $variant: does not compile (log $work/$name.build.log)"
            fi
            continue
        fi
        launch "$name-ref" "$np" -- "$work/fr_$variant"
        verdict "$mpi Fortran requests ($variant), np=$np, without xchg" $?
        xlaunch "$name" "$np" -- "$work/fr_$variant"
        rc=$?
        verdict "$mpi Fortran requests ($variant), np=$np, under xchg-run" $rc &&
            check_counts "$name" "$np"
    done
}

# The digest line of the latest log.
digest() { sed -n 's/^digest //p' "$last_log" | tail -1; }

test_mpi4py() {
    local np=3 py='' candidate ref rc name
    for candidate in /usr/bin/python3 python3; do
        if "$candidate" -c 'import mpi4py.MPI as M, numpy, sys; sys.exit("Open MPI" not in M.Get_library_version())' \
            >/dev/null 2>&1; then
            py=$candidate
            break
        fi
    done
    if [ -z "$py" ]; then
        skip "mpi4py: no python3 with mpi4py (Open MPI) and NumPy"
        return
    fi
    launch mpi4py-ref $np -- "$py" "$src/mpi4py_collectives.py"
    verdict "mpi4py, np=$np, without xchg" $? || return
    ref=$(digest)
    # The default selection, the MPI library's own collectives through xchg
    # (the `mpi` selection, for A/B), and other algorithms.
    for setting in default mpi bruck; do
        name=mpi4py-$setting
        case $setting in
        default) xlaunch $name $np -- "$py" "$src/mpi4py_collectives.py" ;;
        mpi) xlaunch $name $np XCHG_ALLTOALL=mpi XCHG_ALLTOALLV=mpi XCHG_ALLGATHER=mpi \
                 XCHG_ALLGATHERV=mpi -- \
                 "$py" "$src/mpi4py_collectives.py" ;;
        bruck) xlaunch $name $np XCHG_ALLTOALL=bruck XCHG_ALLTOALLV=parlogna:radix=3 \
                   XCHG_ALLGATHER=ring XCHG_ALLGATHERV=bruck -- "$py" "$src/mpi4py_collectives.py" ;;
        esac
        rc=$?
        verdict "mpi4py, np=$np, under xchg-run (selection: $setting)" $rc || continue
        check_counts $name $np
        if [ "$(digest)" = "$ref" ] && [ -n "$ref" ]; then
            pass "mpi4py ($setting): every received byte as without xchg (digest ${ref:0:12})"
        else
            fail "mpi4py ($setting): digest $(digest) differs from $ref without xchg"
        fi
        if [ $setting != default ]; then
            local algos
            algos=$(sed -n 's/^algorithm \([a-z]*\) \([^ ]*\) .*/\1=\2/p' "$work/$name.counts" | tr '\n' ' ')
            case $setting in
            mpi) [[ $algos == *alltoall=mpi* && $algos == *alltoallv=mpi* && $algos == *allgather=mpi* &&
                    $algos == *allgatherv=mpi* ]] ;;
            bruck) [[ $algos == *alltoall=bruck* && $algos == *alltoallv=parlogna* && $algos == *allgather=ring* &&
                      $algos == *allgatherv=bruck* ]] ;;
            esac && pass "mpi4py ($setting): the environment chose the algorithms: $algos" ||
                fail "mpi4py ($setting): algorithms used: $algos"
        fi
    done
}

# mpi4py-fft (python3-mpi4py-fft): slab and pencil transforms of a
# 30x28x26 complex array checked against numpy.fft, whose MPI_Alltoallw
# calls (subarray datatypes) must all be served by xchg: exactly the calls
# the program counted, none passed to MPI. np=4 (a 2x2 pencil grid) with the
# default selection, np=3 with parlogna (blocks packed with their own
# subarray types and forwarded), np=2 with node_aware on virtual nodes of 1.
test_mpi4py_fft() {
    local py='' candidate np setting name rc
    for candidate in /usr/bin/python3 python3; do
        if "$candidate" -c 'import mpi4py_fft, mpi4py.MPI as M, sys; sys.exit("Open MPI" not in M.Get_library_version())' \
            >/dev/null 2>&1; then
            py=$candidate
            break
        fi
    done
    if [ -z "$py" ]; then
        skip "mpi4py-fft: no python3 with mpi4py_fft (python3-mpi4py-fft) on Open MPI"
        return
    fi
    launch mpi4py-fft-ref 4 -- "$py" "$src/mpi4py_fft_transforms.py"
    verdict "mpi4py-fft, np=4, without xchg" $? || return
    for setting in "4 default" "3 parlogna" "2 node_aware"; do
        read -r np name <<<"$setting"
        case $name in
        default) xlaunch "mpi4py-fft-$np" "$np" -- "$py" "$src/mpi4py_fft_transforms.py" ;;
        parlogna) xlaunch "mpi4py-fft-$np" "$np" XCHG_ALLTOALLW=parlogna -- \
                      "$py" "$src/mpi4py_fft_transforms.py" ;;
        node_aware) xlaunch "mpi4py-fft-$np" "$np" XCHG_ALLTOALLW=node_aware XCHG_VIRTUAL_NODES=1 -- \
                        "$py" "$src/mpi4py_fft_transforms.py" ;;
        esac
        rc=$?
        verdict "mpi4py-fft, np=$np, under xchg-run ($name)" $rc || continue
        check_counts "mpi4py-fft-$np" "$np"
        if [ "$(counted "mpi4py-fft-$np" alltoallw calls)" -gt 0 ] 2>/dev/null; then
            pass "mpi4py-fft, np=$np: $(counted "mpi4py-fft-$np" alltoallw calls) MPI_Alltoallw calls served by xchg, 0 passed to MPI"
        else
            fail "mpi4py-fft, np=$np: no MPI_Alltoallw call reached xchg"
        fi
        if [ "$name" != default ]; then
            if grep -q "^algorithm alltoallw $name" "$work/mpi4py-fft-$np.counts"; then
                pass "mpi4py-fft, np=$np: the environment chose $name"
            else
                fail "mpi4py-fft, np=$np: $name not used ($work/mpi4py-fft-$np.counts)"
            fi
        fi
    done
}

test_fftw() {
    if ! "$cc" -O2 -o "$work/fftw3d" "$src/fftw3d.c" -lfftw3_mpi -lfftw3 -lm \
        >"$work/fftw3d.build.log" 2>&1; then
        skip "FFTW: does not build with $cc -lfftw3_mpi (libfftw3-mpi-dev?), log $work/fftw3d.build.log"
        return
    fi
    launch fftw-ref 3 -- "$work/fftw3d"
    verdict "FFTW 30x28x26, np=3, without xchg" $?
    # 30x28x26 on 3 ranks: unequal blocks (MPI_Alltoallv); 32x28x26 on 4: MPI_Alltoall.
    local np grid coll name n estimate
    for case in "3 30 28 26 alltoallv yes" "4 32 28 26 alltoall no"; do
        read -r np n0 n1 n2 coll estimate <<<"$case"
        grid=${n0}x${n1}x${n2}
        name=fftw-$grid
        xlaunch $name "$np" -- "$work/fftw3d" "$n0" "$n1" "$n2"
        verdict "FFTW $grid, np=$np, under xchg-run" $? || continue
        n=$(counted $name $coll calls)
        if [ "${n:-0}" -gt 0 ] && [ "$(counted $name $coll to_mpi)" = 0 ]; then
            pass "FFTW $grid: $n MPI_$coll calls (sum over ranks) reached xchg"
        else
            fail "FFTW $grid: ${n:-no} MPI_$coll calls reached xchg"
        fi
        # FFTW_ESTIMATE's plan depends only on the grid and P (FFTW 3.3.10:
        # the alltoall transpose for 30x28x26 on 3 ranks, not for equal
        # blocks), so there a checked result went through xchg whatever
        # FFTW_MEASURE picked. The plans' choices are printed either way.
        echo "     FFTW $grid plans using the alltoall transpose: $(sed -n \
            's/^PASS FFTW_\([A-Z]*\).*alltoall transpose: \([a-z]*\)$/\1=\2/p' "$last_log" | tr '\n' ' ')"
        if [ "$estimate" = yes ]; then
            if grep -q 'PASS FFTW_ESTIMATE.*alltoall transpose: yes' "$last_log"; then
                pass "FFTW $grid: the FFTW_ESTIMATE plan uses the alltoall transpose (a checked result went through xchg)"
            else
                fail "FFTW $grid: the FFTW_ESTIMATE plan does not use the alltoall transpose"
            fi
        fi
    done
}

# XCHG_PROFILE=1 (src/interpose/profile.c) on FFTW's transform (built by
# test_fftw): the table at MPI_Finalize must count each collective call once
# (the count file sums over ranks), and its times and factors must be sane.
test_profile() {
    [ -x "$work/fftw3d" ] || { skip "profiler: no FFTW test program"; return; }
    local name=profile-fftw table=$work/profile-fftw.txt np=3
    rm -f "$table"
    xlaunch $name $np XCHG_PROFILE=1 XCHG_PROFILE_FILE="$table" -- "$work/fftw3d" 30 28 26
    verdict "profiler: FFTW 30x28x26, np=$np, under XCHG_PROFILE=1" $? || return
    local calls row
    calls=$(( $(counted $name alltoallv calls) / np ))
    row=$(awk '$1 == "alltoallv"' "$table" 2>/dev/null)
    if head -1 "$table" 2>/dev/null | grep -q '^xchg profile' &&
        awk -v want="$calls" '$1 == "alltoallv" && $2 == want && want > 0 && $3 > 0 && $4 > 0 &&
                              $5 >= 0 && $6 >= $5 && $7 >= 0 && $8 >= 0 { ok = 1 }
                              END { exit !ok }' "$table"; then
        pass "profiler: alltoallv row ($calls calls, as counted): $row"
    else
        fail "profiler: expected an alltoallv row of $calls calls in $table, got: ${row:-nothing}"
    fi
}

# The program linked with -lxchg-mpi (before the MPI library), no LD_PRELOAD.
test_linked() {
    local dir=$build/src/interpose name=openmpi-edge-linked
    if ! "$cc" -O1 -o "$work/edge-linked" "$src/edge.c" -L"$dir" -Wl,-rpath,"$dir" -lxchg-mpi \
        >"$work/edge-linked.build.log" 2>&1; then
        fail "edge linked with -lxchg-mpi: does not build (log $work/edge-linked.build.log)"
        return
    fi
    rm -f "$work/$name.counts"
    last_log=$work/$name.log
    XCHG_COUNT_FILE=$work/$name.counts timeout -k 5 120 "$launcher" -n 3 "$work/edge-linked" \
        >"$last_log" 2>&1
    verdict "edge linked with -lxchg-mpi, np=3" $? && check_counts $name 3
}

if [ "$ompi_build" != - ]; then
    echo "== Open MPI ($ompi_build)"
    setup_mpi "$ompi_build"
    if check_library; then
        test_edge 4
        test_alltoallw 4
        test_allgatherv 5
        test_neighbor 5
        test_requests "1 2 3 4"
        test_freeing 4
        test_linked
        test_fortran 3
        test_fortran_requests 3
        test_mpi4py
        test_mpi4py_fft
        test_fftw
        test_profile
    fi
fi
if [ "$mpich_build" != - ]; then
    echo "== MPICH ($mpich_build)"
    setup_mpi "$mpich_build"
    if check_library; then
        test_edge 3
        test_alltoallw 3
        test_allgatherv 3
        test_neighbor 3
        test_requests "1 2 3 4"
        test_freeing 3
        test_fortran 3
        test_fortran_requests 3
    fi
fi

echo "dropin: $((SECONDS - start)) s, $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
