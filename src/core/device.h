/*
 * Device (GPU) buffers. xchg's algorithms pack, copy and forward data on the
 * CPU, so a call whose buffers are GPU memory must never reach them: such a
 * call goes to the MPI library's own collective (the `mpi` algorithm, through
 * PMPI) when the MPI library reports device support, and otherwise fails with
 * MPI_ERR_BUFFER before anything is read or written. docs/design.md, "Device
 * buffers", gives the rules and why.
 *
 * Whether a pointer is GPU memory is asked of the GPU drivers, loaded at run
 * time (dlopen; xchg has no link-time dependency on them): the CUDA driver
 * (libcuda.so.1, cuPointerGetAttributes) and ROCm's HIP runtime
 * (libamdhip64.so, hipPointerGetAttributes, only when the program has loaded
 * it already). They are loaded once, at the first call of the process
 * (thread-safe); a machine without them pays one failed dlopen, and every
 * call after that one flag test.
 *
 * XCHG_DEVICE (read once, at the first call):
 *   auto (default)  each rank checks its own buffers; a program passes device
 *                   buffers to a collective on every rank or on none
 *   agree           as auto, and the ranks agree (one MPI_Allreduce of one
 *                   int per call), for programs that mix device and host
 *                   buffers between ranks in one call
 *   off             no check, no driver loaded: every buffer is host memory
 * XCHG_TEST_ASSUME_DEVICE_SUPPORT=1 (tests only) makes xchg take the MPI
 * library for one with device support.
 */
#ifndef XCHG_CORE_DEVICE_H
#define XCHG_CORE_DEVICE_H

#include "args.h"
#include "registry.h"

struct xchg_context;

/* What memory a pointer addresses, as far as xchg is concerned. Managed
 * (unified) memory and pinned or registered host memory are host memory:
 * the CPU may read and write them. */
typedef enum {
    XCHG_MEMORY_HOST = 0,
    XCHG_MEMORY_CUDA = 1,  /* CUDA device memory */
    XCHG_MEMORY_ROCM = 2   /* ROCm (HIP) device memory */
} xchg_memory;

/* The memory `ptr` addresses. MPI_SUCCESS, or an error when XCHG_DEVICE is
 * invalid or a driver fails in a way that leaves the answer unknown. */
int xchg_device_memory(const void *ptr, xchg_memory *kind);

/*
 * The device decision for one call, made where the call path selects its
 * algorithm (run_collective in src/api.c, xchg_request_create in
 * src/persistent.c, pattern_plan in src/neighbor.c), before any plan is
 * looked up or built. Every collective's call path must call it there.
 *
 * If any buffer of `args` (send or receive; MPI_IN_PLACE's copy, NULL and
 * zero-size sides excluded) is device memory: with an MPI library that
 * reports device support, *use_mpi = 1 and *choice is the `mpi` algorithm of
 * args->coll (the caller runs that, for this call only, and selects nothing
 * else; MPI_IN_PLACE's copy is dropped, MPI_IN_PLACE goes to MPI); without
 * it, MPI_ERR_BUFFER with a message saying so. Otherwise *use_mpi = 0 and the
 * caller selects as usual; then, and only then, the MPI_IN_PLACE copy of the
 * send blocks is taken (xchg_args_refresh_in_place): normalization leaves it
 * to this point so that no host access reaches device memory.
 * Local under XCHG_DEVICE=auto; one MPI_Allreduce on ctx->comm under agree.
 */
int xchg_device_route(struct xchg_context *ctx, xchg_args *args, xchg_choice *choice,
                      int *use_mpi);

/* Whether xchg_device_route sends no message (XCHG_DEVICE is not agree). */
int xchg_device_route_is_local(void);

/* Whether xchg_device_route finds no buffer on a device, whatever the
 * call's, without a message: XCHG_DEVICE=off, or auto with no device
 * driver loaded in the process. */
int xchg_device_never(void);

#endif
