/*
 * The fast path of nonblocking `mpi` calls (nonblocking_fast.h).
 *
 * A nonblocking call's normal path (nonblocking.c, then persistent.c's
 * post_now) normalizes its arguments, selects (select.h: a learned winner,
 * else `mpi`), builds a plan and a request of its own and posts: about
 * 0.6 us around the library's start and wait at P = 1 on this project's
 * machine, where MPI's own take 0.03 us. When a call posted `mpi` there,
 * the next call of the same shape posts the library's nonblocking
 * collective directly:
 *   alltoall, allgather: the same counts and datatypes (handles; a derived
 *     datatype's is never the same, since the normal path holds a
 *     duplicate), not in place (the normal path gives `mpi` a copy of the
 *     send blocks), non-NULL buffers;
 *   alltoallv, neighbourhood alltoallv: any counts, displacements and
 *     datatypes (the library reads them from the user's arrays, which MPI
 *     keeps unchanged until completion; the choice did not read them:
 *     explicit, or no tuning rule and no learned winner, select.c), not in
 *     place, non-NULL buffers and arrays. A neighbourhood call's neighbours
 *     are always its communicator's graph, which xchg's duplicate carries.
 *
 * The choice stays the normal path's. What it reads that can change: a
 * learned winner (decided only in a blocking call's normal path, whose
 * selection disarms the path of its collective: select.c),
 * XCHG_Comm_set_algorithm (disarms it), the environment and the tuning file
 * (read as constant, as the blocking fast path reads them: online_fast.c).
 * So a call the path takes gets what the normal path would give it, and
 * every rank posts the same collective, whichever path each rank's call
 * takes.
 *
 * Order. It is taken only where the normal path would post at once: the
 * context set up, no task of the communicator ahead (a task's messages and
 * collectives go first, in MPI's order), no buffer that could be device
 * memory (xchg_device_never: under XCHG_DEVICE=auto with a driver loaded the
 * normal path checks each buffer). It posts on xchg's duplicate
 * communicator, where the normal path posts `mpi` (a call that waits behind
 * a task on one rank posts there later; the two must match).
 *
 * Errors. The library checks the arguments it receives (negative counts,
 * invalid datatypes); its error comes back (xchg's communicator returns
 * errors) and is raised through the user's communicator's handler, with
 * XCHG_Last_error naming the call (xchg_library_result).
 */
#include "nonblocking_fast.h"

#include <string.h>

#include "core/device.h"
#include "core/error.h"

static int is_library(const xchg_choice *choice)
{
    return strcmp(choice->algo->name, "mpi") == 0;
}

/* The collectives whose path takes any counts, displacements and datatypes. */
static int takes_any_counts(xchg_coll coll)
{
    return coll == XCHG_ALLTOALLV || coll == XCHG_NEIGHBOR_ALLTOALLV;
}

void xchg_nonblocking_fast_arm(xchg_context *ctx, const xchg_args *args,
                               const xchg_choice *choice)
{
    xchg_coll coll = args->coll;
    if ((coll != XCHG_ALLTOALL && coll != XCHG_ALLGATHER && !takes_any_counts(coll)) ||
        args->in_place || !is_library(choice) || !xchg_device_never())
        return;
    xchg_nonblocking_fast *f = &ctx->nonblocking_fast[coll];
    if (!takes_any_counts(coll)) {
        f->sendcount = args->send.counts[0];
        f->recvcount = args->recv.counts[0];
        f->sendtype = args->send.type.type;
        f->recvtype = args->recv.type.type;
    }
    f->choice = *choice;
    f->armed = 1;
}

int xchg_nonblocking_fast_takes(const xchg_context *ctx, const xchg_nonblocking_call *c)
{
    const xchg_nonblocking_fast *f = &ctx->nonblocking_fast[c->coll];
    if (!f->armed || !ctx->ready || ctx->task_head || c->sendbuf == MPI_IN_PLACE ||
        c->recvbuf == MPI_IN_PLACE || !c->sendbuf || !c->recvbuf || !c->sendcounts ||
        !c->recvcounts)
        return 0;
    if (takes_any_counts(c->coll)) return c->sdispls && c->rdispls;
    return *c->sendcounts == f->sendcount && *c->recvcounts == f->recvcount &&
           c->sendtype == f->sendtype && c->recvtype == f->recvtype;
}

int xchg_nonblocking_fast_post(xchg_context *ctx, const xchg_nonblocking_call *c,
                               MPI_Request *request)
{
    int rc;
    const char *name;
    if (c->coll == XCHG_ALLTOALL) {
        name = "MPI_Ialltoall";
        rc = MPI_Ialltoall(c->sendbuf, *c->sendcounts, c->sendtype, c->recvbuf, *c->recvcounts,
                           c->recvtype, ctx->comm, request);
    } else if (c->coll == XCHG_ALLGATHER) {
        name = "MPI_Iallgather";
        rc = MPI_Iallgather(c->sendbuf, *c->sendcounts, c->sendtype, c->recvbuf, *c->recvcounts,
                            c->recvtype, ctx->comm, request);
    } else if (c->coll == XCHG_ALLTOALLV) {
        name = "MPI_Ialltoallv";
        rc = MPI_Ialltoallv(c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf,
                            c->recvcounts, c->rdispls, c->recvtype, ctx->comm, request);
    } else {
        name = "MPI_Ineighbor_alltoallv";
        rc = MPI_Ineighbor_alltoallv(c->sendbuf, c->sendcounts, c->sdispls, c->sendtype,
                                     c->recvbuf, c->recvcounts, c->rdispls, c->recvtype,
                                     ctx->comm, request);
    }
    ctx->last[c->coll] = ctx->nonblocking_fast[c->coll].choice; /* XCHG_Comm_get_algorithm */
    ctx->has_last[c->coll] = 1;
    return xchg_library_result(rc, name);
}

int xchg_nonblocking_library(MPI_Comm comm, const xchg_nonblocking_call *call,
                             MPI_Request *request, int *rc)
{
    xchg_context *ctx;
    if (xchg_context_get_nonblocking(comm, &ctx) != MPI_SUCCESS ||
        !xchg_nonblocking_fast_takes(ctx, call))
        return 0; /* the normal path reports the error, if any */
    *rc = xchg_raise(comm, xchg_nonblocking_fast_post(ctx, call, request));
    return 1;
}
