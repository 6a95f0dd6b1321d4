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
 * them once, at init, and makes the library's own persistent
 * MPI_Allgatherv_init there where the MPI has one
 * (../mpi/library_persistent.h), started at each start; elsewhere it posts
 * MPI_Iallgatherv at each start. Either completes in XCHG_Test / XCHG_Wait
 * like MPI's own.
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
#include "../mpi/library_persistent.h"

/* A persistent plan's: the library's persistent request (MPI_REQUEST_NULL:
 * none, posts instead) and the displacements. */
typedef struct library_state {
    MPI_Request request;
    int displs[];
} library_state;

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

static void library_destroy(xchg_plan *plan)
{
    library_state *st = plan->state;
    if (!st) return;
    if (st->request != MPI_REQUEST_NULL) MPI_Request_free(&st->request);
    free(st);
    plan->state = NULL;
}

/* A persistent request keeps its displacements, and the library's
 * persistent collective where the MPI has one (not on one rank: see the
 * header; not on device buffers, which `mpi` runs as device.c says). */
static int library_init(xchg_plan *plan)
{
    const xchg_args *a = plan->fixed;
    if (!a) return MPI_SUCCESS;
    library_state *st = malloc(sizeof *st + (size_t)a->size * sizeof(int));
    if (!st) return xchg_error(MPI_ERR_NO_MEM, "mpi: out of memory");
    st->request = MPI_REQUEST_NULL;
    displacements(&a->recv, a->size, st->displs);
    plan->state = st;
#ifdef XCHG_LIBRARY_INIT
    if (a->size > 1 && !a->on_device && !plan->one_start) {
        const xchg_side *s = &a->send, *r = &a->recv;
        int rc = XCHG_LIBRARY_INIT(Allgatherv)(a->in_place ? MPI_IN_PLACE : s->buf, s->counts[0],
                                               s->type.type, r->buf, r->counts, st->displs,
                                               r->type.type, a->comm, MPI_INFO_NULL,
                                               &st->request);
        if (rc != MPI_SUCCESS) {
            st->request = MPI_REQUEST_NULL;
            library_destroy(plan);
            return xchg_error(rc, "mpi: the library's persistent allgatherv failed");
        }
    }
#endif
    return MPI_SUCCESS;
}

static int library_post(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan,
                        MPI_Request *reqs, int *count)
{
    const void *sendbuf = a->in_place ? MPI_IN_PLACE : a->send.buf;
    const xchg_side *s = &a->send, *r = &a->recv;
    library_state *st = plan->state;
    *count = 0;
    if (a->size == 1) return xchg_copy_self_block(a);
    if (!st) return allgatherv_on(ctx, a, a->comm);
    int rc;
    if (st->request != MPI_REQUEST_NULL) { /* the library's persistent request */
        rc = MPI_Start(&st->request);
        reqs[0] = st->request;
    } else {
        rc = MPI_Iallgatherv(sendbuf, s->counts[0], s->type.type, r->buf, r->counts, st->displs,
                             r->type.type, a->comm, &reqs[0]);
    }
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
