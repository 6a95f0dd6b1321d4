/*
 * `mpi` for allgatherv: the MPI library's own MPI_Allgatherv (through PMPI),
 * selectable like any xchg algorithm, as `mpi` is for the other
 * collectives (src/coll/mpi/mpi.c): XCHG_ALLGATHERV=mpi A/B-tests a call
 * site under the drop-in, and it is the reference the benchmarks compare
 * with.
 *
 * A blocking call is made on the user's own communicator, a nonblocking or
 * persistent one and an inner exchange's on xchg's (why: src/coll/mpi/mpi.c),
 * with the user's buffers, counts and datatypes; MPI_IN_PLACE is passed on as
 * MPI_IN_PLACE. The displacements are recovered from the normalized byte
 * offsets (displacement * extent exactly). A persistent request computes
 * them once, at init, and posts MPI_Iallgatherv at each start, so it
 * completes in XCHG_Test / XCHG_Wait like MPI's own.
 * One rank: MPICH 4.0's MPI_Allgatherv on a communicator of one rank copies
 * the send block to the start of recvbuf, ignoring displs[0] (Open MPI
 * places it right), so there the own block is copied by xchg instead: that
 * is the whole of an allgatherv on one rank.
 * Cost: whatever the MPI library does (MPICH and Open MPI choose among ring,
 * recursive doubling and Bruck); no scratch of xchg's own except P ints of
 * displacements.
 */
#include <stdlib.h>

#include "../../core/error.h"
#include "../../core/exchange.h"

static void displacements(const xchg_side *side, int size, int *displs)
{
    for (int p = 0; p < size; p++)
        displs[p] = side->type.extent ? (int)(side->offsets[p] / side->type.extent) : 0;
}

/* The library's MPI_Allgatherv on `comm` (waited for by polling inside a
 * task: xchg_allgatherv). */
static int allgatherv_on(xchg_context *ctx, const xchg_args *a, MPI_Comm comm)
{
    const void *sendbuf = a->in_place ? MPI_IN_PLACE : a->send.buf;
    const xchg_side *s = &a->send, *r = &a->recv;
    size_t nbytes = (size_t)a->size * sizeof(int);
    int *displs = xchg_scratch_alloc(ctx, nbytes);
    if (!displs) return xchg_error(MPI_ERR_NO_MEM, "mpi: out of memory");
    displacements(r, a->size, displs);
    int rc = xchg_allgatherv(sendbuf, s->counts[0], s->type.type, r->buf, r->counts, displs,
                             r->type.type, comm);
    if (comm == ctx->user_comm) rc = xchg_library_result(rc, "MPI_Allgatherv");
    xchg_scratch_free(ctx, displs, nbytes);
    return rc;
}

/* A call: blocking, on the user's own communicator where it is the user's
 * (see the header). */
static int library_allgatherv(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)plan;
    if (a->size == 1) return xchg_copy_self_block(a); /* see the header: MPICH 4.0 */
    return allgatherv_on(ctx, a, xchg_library_comm(ctx, a));
}

/* A persistent request keeps its displacements. */
static int library_init(xchg_plan *plan)
{
    const xchg_args *a = plan->fixed;
    if (!a) return MPI_SUCCESS;
    int *displs = malloc((size_t)a->size * sizeof(int) + 1);
    if (!displs) return xchg_error(MPI_ERR_NO_MEM, "mpi: out of memory");
    displacements(&a->recv, a->size, displs);
    plan->state = displs;
    return MPI_SUCCESS;
}

static void library_destroy(xchg_plan *plan)
{
    free(plan->state);
    plan->state = NULL;
}

static int library_post(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan,
                        MPI_Request *reqs, int *count)
{
    const void *sendbuf = a->in_place ? MPI_IN_PLACE : a->send.buf;
    const xchg_side *s = &a->send, *r = &a->recv;
    *count = 0;
    if (a->size == 1) return xchg_copy_self_block(a);
    if (!plan->state) return allgatherv_on(ctx, a, a->comm);
    int rc = MPI_Iallgatherv(sendbuf, s->counts[0], s->type.type, r->buf, r->counts,
                             (const int *)plan->state, r->type.type, a->comm, &reqs[0]);
    if (rc == MPI_SUCCESS) *count = 1;
    return rc;
}

const xchg_algorithm xchg_algo_allgatherv_mpi = {
    .coll = XCHG_ALLGATHERV,
    .name = "mpi",
    .summary = "the MPI library's own collective (PMPI)",
    .init = library_init,
    .run = library_allgatherv,
    .destroy = library_destroy,
    .post = library_post,
};
