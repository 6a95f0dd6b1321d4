/*
 * The fast path of nonblocking calls that run the MPI library's own
 * collective (`mpi`): XCHG_Ialltoall, XCHG_Iallgather, XCHG_Ialltoallv,
 * XCHG_Ineighbor_alltoallv, and the drop-in's MPI_I... of the same four,
 * which get the library's request itself. What it takes and why the choice stays
 * the normal path's: nonblocking_fast.c.
 */
#ifndef XCHG_NONBLOCKING_FAST_H
#define XCHG_NONBLOCKING_FAST_H

#include "core/context.h"

/* One nonblocking call's arguments as the user passed them (alltoall,
 * allgather: sendcounts and recvcounts point at the one count, no
 * displacements). */
typedef struct xchg_nonblocking_call {
    xchg_coll coll;
    const void *sendbuf;
    const int *sendcounts, *sdispls;
    MPI_Datatype sendtype;
    void *recvbuf;
    const int *recvcounts, *rdispls;
    MPI_Datatype recvtype;
} xchg_nonblocking_call;

/* After the normal path posted `choice` for `args` (not on a device):
 * arm the path of args->coll when the choice is `mpi` and the next call of
 * the same shape is sure to get it. */
void xchg_nonblocking_fast_arm(xchg_context *ctx, const xchg_args *args,
                               const xchg_choice *choice);

/* Whatever a nonblocking call's choice reads may have changed (a blocking
 * call's selection, XCHG_Comm_set_algorithm): the path of coll waits for
 * the normal path to arm it again. */
static inline void xchg_nonblocking_fast_disarm(xchg_context *ctx, xchg_coll coll)
{
    ctx->nonblocking_fast[coll].armed = 0;
}

/* Whether the path takes this call on ctx (local, no side effect). */
int xchg_nonblocking_fast_takes(const xchg_context *ctx, const xchg_nonblocking_call *call);

/* Post a call the path takes: the library's nonblocking collective into
 * *request, on xchg's communicator; the library's error code, or
 * MPI_SUCCESS. */
int xchg_nonblocking_fast_post(xchg_context *ctx, const xchg_nonblocking_call *call,
                               MPI_Request *request);

/* For the drop-in: when the path takes the call on the user's communicator
 * `comm` (1), post it into *request, a request of the MPI library's own,
 * with its result (raised through comm's error handler) in *rc; else 0
 * and nothing happened but a lookup of comm's context. */
int xchg_nonblocking_library(MPI_Comm comm, const xchg_nonblocking_call *call,
                             MPI_Request *request, int *rc);

#endif
