#!/usr/bin/env bash
# Device buffers on a real GPU (tests/device/gpu_check.c, the CUDA driver API
# through dlopen: no CUDA toolkit needed). Skips cleanly ("SKIP", exit 0,
# "0 passed, 0 failed") on a machine without the CUDA driver or a GPU, which
# is every CI machine so far; run it by hand where there is one:
#   bash tests/device/gpu-check.sh [BUILD [NP]]   (default build, 2 ranks)
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
np=${2:-2}
prog=$build/tests/device/xchg-gpu-check
skip() { echo "SKIP gpu-check: $*"; echo "0 passed, 0 failed"; exit 0; }
# (grep without -q: under pipefail, -q's early exit can kill ldconfig with
# SIGPIPE and fail the pipeline although it matched)
if ! ldconfig -p 2>/dev/null | grep 'libcuda\.so\.1' >/dev/null &&
   ! { [ -n "${LD_LIBRARY_PATH:-}" ] && ls ${LD_LIBRARY_PATH//:/ } 2>/dev/null | grep '^libcuda\.so\.1$' >/dev/null; }; then
    skip "no CUDA driver (libcuda.so.1) on this machine"
fi
ls /dev/nvidia0 >/dev/null 2>&1 || skip "no NVIDIA GPU device (/dev/nvidia0)"
[ -x "$prog" ] || { echo "FAIL $prog is not built"; echo "0 passed, 1 failed"; exit 1; }
cc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
cc=$(command -v "${cc:-mpicc}" || echo "${cc:-mpicc}")
suffix=$(basename "$cc")
launcher=$(dirname "$cc")/mpiexec${suffix#mpicc}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset XCHG_TEST_ASSUME_DEVICE_SUPPORT XCHG_DEVICE # never with real device memory
extra=()
"$launcher" --version 2>&1 | grep -q "Open MPI" && extra=(--oversubscribe)
timeout -k 5 100 "$launcher" "${extra[@]}" -n "$np" "$prog"
rc=$?
[ "$rc" -eq 77 ] && exit 0 # skipped (printed by the program)
exit "$rc"
