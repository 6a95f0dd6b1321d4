/*
 * The fast path of blocking neighbourhood calls that run the MPI library's
 * own collective (`mpi`): XCHG_Neighbor_alltoallv and the drop-in's
 * MPI_Neighbor_alltoallv. What it takes and why the choice stays the
 * normal path's: neighbor_fast.c.
 */
#ifndef XCHG_NEIGHBOR_FAST_H
#define XCHG_NEIGHBOR_FAST_H

#include "core/context.h"
#include "nonblocking_fast.h" /* xchg_nonblocking_call: a call's arguments as given */

/* After a blocking call's normal path chose `choice` (device: routed to
 * `mpi` for device buffers; agreed: automatic, on XCHG_AGREE's schedule,
 * select.h): arm the path when the choice is `mpi` and the next call is
 * sure to get it, else disarm it. */
void xchg_neighbor_fast_arm(xchg_context *ctx, const xchg_choice *choice, int device,
                            int agreed);

static inline void xchg_neighbor_fast_disarm(xchg_context *ctx)
{
    ctx->neighbor_fast.armed = 0;
}

/* Whether the path takes this call on ctx; if it does, the call counts as
 * one of the normal path's (XCHG_AGREE's schedule). */
int xchg_neighbor_fast_take(xchg_context *ctx, const xchg_nonblocking_call *call);

/* Run a call the path took: the library's blocking neighbourhood alltoallv
 * on xchg's communicator; the library's error code, or MPI_SUCCESS. */
int xchg_neighbor_fast_run(xchg_context *ctx, const xchg_nonblocking_call *call);

#endif
