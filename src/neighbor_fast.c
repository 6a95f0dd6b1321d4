/*
 * The fast path of blocking neighbourhood `mpi` calls (neighbor_fast.h).
 *
 * A blocking neighbourhood call's normal path (neighbor.c) reads the
 * communicator's graph, normalizes the arguments per neighbour (allocated
 * and freed), selects (environment, tuning file, the agreed choice), looks
 * the pattern's plan up (comparing counts and displacements) and runs it:
 * about 0.6 us around the library's 0.1 us at P = 1 on this project's
 * machine, 1.1-1.7x MPI's own call at 16 B-4 KiB per neighbour on 2-4
 * ranks (docs/results/selection/online/nonblocking-neighbor/). When a call
 * ran `mpi` there, the next goes to the library directly, with any counts,
 * displacements and datatypes (the library reads them; `mpi` did not), on
 * xchg's duplicate communicator, which carries the user's graph and where
 * the normal path runs `mpi` too (so the ranks' calls match whichever path
 * each takes).
 *
 * The choice stays the normal path's (select_neighbor.c: xchg_select_neighbor_call):
 *   explicit (XCHG_Comm_set_algorithm, which disarms the path, or
 *     XCHG_NEIGHBOR_ALLTOALLV), a tuning rule that needs no agreement, the
 *     fixed rule (XCHG_AGREE=never): read as constant, as the dense fast
 *     paths read the environment (online_fast.c);
 *   automatic under XCHG_AGREE=sampled: between two agreements every call
 *     takes the last agreed choice; the path counts its calls where the
 *     normal path counts them and leaves the call an agreement falls on to
 *     the normal path, so the ranks agree at the same calls. Under
 *     XCHG_AGREE=always it is never armed.
 * It is taken only where the normal path would run at once: the context
 * set up, no task of the communicator ahead (the normal path completes
 * them first), no buffer that could be device memory (xchg_device_never),
 * non-NULL buffers and arrays (a neighbourless rank's NULLs go the normal
 * path), not MPI_IN_PLACE (which MPI does not allow here: the normal path
 * says so, MPI_ERR_BUFFER). Errors: the library checks what it receives; its error comes back
 * (xchg's communicator returns errors) and is raised through the user's
 * communicator's handler, XCHG_Last_error naming the call.
 */
#include "neighbor_fast.h"

#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "select/online_state.h" /* xchg_online_agree_sampled */
#include "select/select.h"

void xchg_neighbor_fast_arm(xchg_context *ctx, const xchg_choice *choice, int device,
                            int agreed)
{
    xchg_neighbor_fast *f = &ctx->neighbor_fast;
    f->armed = !device && strcmp(choice->algo->name, "mpi") == 0 && xchg_device_never() &&
               (!agreed || xchg_online_agree_sampled());
    f->agreed = agreed;
    f->choice = *choice;
}

int xchg_neighbor_fast_take(xchg_context *ctx, const xchg_nonblocking_call *c)
{
    const xchg_neighbor_fast *f = &ctx->neighbor_fast;
    if (!f->armed || !ctx->ready || ctx->task_head || !c->sendbuf || !c->recvbuf ||
        c->sendbuf == MPI_IN_PLACE || c->recvbuf == MPI_IN_PLACE || !c->sendcounts ||
        !c->recvcounts || !c->sdispls || !c->rdispls)
        return 0;
    if (!f->agreed) return 1;
    xchg_select_memory *m = &ctx->selection.memory[XCHG_NEIGHBOR_ALLTOALLV];
    if (!ctx->pattern_cache.has_agreed_choice || xchg_select_sampled_agrees_at(m->calls))
        return 0; /* the normal path agrees (and counts the call) */
    m->calls++;
    return 1;
}

int xchg_neighbor_fast_run(xchg_context *ctx, const xchg_nonblocking_call *c)
{
    int rc = MPI_Neighbor_alltoallv(c->sendbuf, c->sendcounts, c->sdispls, c->sendtype,
                                    c->recvbuf, c->recvcounts, c->rdispls, c->recvtype,
                                    ctx->comm);
    ctx->last[XCHG_NEIGHBOR_ALLTOALLV] = ctx->neighbor_fast.choice; /* XCHG_Comm_get_algorithm */
    ctx->has_last[XCHG_NEIGHBOR_ALLTOALLV] = 1;
    return xchg_library_result(rc, "MPI_Neighbor_alltoallv");
}
