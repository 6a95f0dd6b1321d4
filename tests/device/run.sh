#!/usr/bin/env bash
# Device (GPU) buffers without a GPU (tests/device/device.c): the stand-in
# CUDA driver (BUILD/tests/device/fake/libcuda.so.1, first on
# LD_LIBRARY_PATH) reports chosen ranges as device memory. Each mode is one
# launch, against xchg and, for the routed calls, under the drop-in
# (libxchg-mpi.so preloaded into a plain MPI program):
#   refuse    MPI without device support: MPI_ERR_BUFFER, buffers untouched
#             (PROT_NONE during the call); also at P = 1
#   mpi       XCHG_TEST_ASSUME_DEVICE_SUPPORT=1: the calls run `mpi`
#   agree     XCHG_DEVICE=agree, device buffers on rank 0 only: every rank
#             fails, or (with the support assumed) runs `mpi`
#   off       XCHG_DEVICE=off: no driver query
#   nodriver  no libcuda.so.1 anywhere: nothing changes, nothing crashes
#   badenv    XCHG_DEVICE=bogus: MPI_ERR_ARG
#   gpu-check-fake  tests/device/gpu_check.c (written for a real GPU) on the
#             stand-in, whose cuMemAlloc memory is PROT_NONE
# Usage: tests/device/run.sh [BUILD [NP]]   (default build, 3 ranks)
# The last line is "N passed, N failed"; a launch that crashes, hangs (60 s)
# or prints no count is one failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd) || exit 1
np=${2:-3}
fake=$build/tests/device/fake
dropin=$build/src/interpose/libxchg-mpi.so

cc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
cc=$(command -v "${cc:-mpicc}" || echo "${cc:-mpicc}")
suffix=$(basename "$cc")
suffix=${suffix#mpicc}
launcher=$(dirname "$cc")/mpiexec$suffix
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset XCHG_ALLTOALL XCHG_ALLTOALLV XCHG_ALLGATHER XCHG_NEIGHBOR_ALLTOALLV XCHG_DEVICE
unset XCHG_TEST_ASSUME_DEVICE_SUPPORT XCHG_VIRTUAL_NODES XCHG_COUNT_FILE

passed=0
failed=0
# one NAME NP PROGRAM MODE [VAR=VALUE...]: one launch with those variables
# exported to every rank (Open MPI forwards only what -x names).
one() {
    local name=$1 n=$2 prog=$3 mode=$4; shift 4
    # Online selection may try `mpi` on host buffers, which the checks of
    # "what ran" would take for the device route: off here. Likewise the
    # neighbourhood collective's model runs its `standard` as `mpi`
    # (src/select/select_neighbor.c): `standard` chosen explicitly.
    set -- XCHG_ONLINE=0 XCHG_NEIGHBOR_ALLTOALLV=standard "$@"
    local forward=() v out line
    if "$launcher" --version 2>&1 | grep -q "Open MPI"; then
        forward=(--oversubscribe)
        for v in "$@"; do forward+=(-x "${v%%=*}"); done
    fi
    out=$(env "$@" timeout -k 5 60 "$launcher" "${forward[@]}" -n "$n" "$prog" "$mode" 2>&1)
    line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
    echo "$out" | grep '^FAIL' | head -20
    if [ -z "$line" ]; then
        echo "FAIL $name: no result (crash or hang)"
        echo "$out" | tail -8 | sed 's/^/   | /'
        failed=$((failed + 1))
        return
    fi
    echo "$name: $line"
    passed=$((passed + ${line%% passed*}))
    local f=${line#*passed, }
    failed=$((failed + ${f%% failed}))
}

xchg=$build/tests/device/xchg-device
plain=$build/tests/device/device-dropin
lib="LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
one refuse "$np" $xchg refuse "$lib"
one refuse-1 1 $xchg refuse "$lib"
one mpi "$np" $xchg mpi "$lib" XCHG_TEST_ASSUME_DEVICE_SUPPORT=1
one agree "$np" $xchg agree "$lib" XCHG_DEVICE=agree
one agree-mpi "$np" $xchg agree "$lib" XCHG_DEVICE=agree XCHG_TEST_ASSUME_DEVICE_SUPPORT=1
one off "$np" $xchg off "$lib" XCHG_DEVICE=off
one badenv "$np" $xchg badenv "$lib" XCHG_DEVICE=bogus
one nodriver "$np" $xchg nodriver LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
# The real-GPU check's program against the stand-in (cuMemAlloc'd memory is
# PROT_NONE outside its copies): a dry run of tests/device/gpu-check.sh.
one gpu-check-fake 2 $build/tests/device/xchg-gpu-check fake "$lib"
if [ -f "$dropin" ]; then
    one dropin-refuse "$np" $plain refuse "$lib" LD_PRELOAD="$dropin"
    one dropin-mpi "$np" $plain mpi "$lib" LD_PRELOAD="$dropin" XCHG_TEST_ASSUME_DEVICE_SUPPORT=1
    one dropin-agree "$np" $plain agree "$lib" LD_PRELOAD="$dropin" XCHG_DEVICE=agree
    one dropin-nodriver "$np" $plain nodriver LD_PRELOAD="$dropin"
else
    echo "FAIL $dropin is missing (XCHG_BUILD_INTERPOSE=OFF?)"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
