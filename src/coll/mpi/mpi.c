/*
 * `mpi`: the MPI library's own collective (PMPI_Alltoall, PMPI_Alltoallv,
 * PMPI_Allgather), selectable like any xchg algorithm. With the drop-in
 * library it lets a user A/B any call site by environment
 * (XCHG_ALLTOALLV=mpi), and it is the reference the benchmark compares with.
 *
 * The call is made on xchg's private duplicate of the communicator with the
 * user's buffers and datatypes; MPI_IN_PLACE is passed on as MPI_IN_PLACE
 * (xchg's copy of the send blocks is not used). alltoallv's displacements
 * are recovered from the normalized byte offsets, which are displacement *
 * extent exactly.
 * A persistent request posts MPI_Ialltoall / MPI_Ialltoallv / MPI_Iallgather
 * at each start (its alltoallv displacements are computed once, at init, and
 * live in the plan), so it completes in XCHG_Test / XCHG_Wait like MPI's own;
 * except in place under Open MPI (see library_post).
 * Cost: whatever the MPI library does; no scratch of xchg's own except
 * 2P ints of displacements for alltoallv.
 */
#include <stdlib.h>

#include "../../core/error.h"
#include "../../core/exchange.h"

/* Element displacements of one side from its byte offsets. */
static void displacements(const xchg_side *side, int size, int *displs)
{
    for (int p = 0; p < size; p++)
        displs[p] = side->type.extent ? (int)(side->offsets[p] / side->type.extent) : 0;
}

/* Whether the call goes to the library's alltoallv (alltoall's normalized
 * arguments describe the same call with equal counts). */
static int as_alltoallv(const xchg_args *a)
{
    if (a->coll == XCHG_ALLTOALLV) return 1;
#ifdef OPEN_MPI
    /* Open MPI 4.1's MPI_Alltoall (coll/tuned's Bruck, chosen for small blocks
     * at P >= 16) writes past the receive buffer when the send and receive
     * datatypes differ (vector(3,1,2,int) sent, contiguous(3,int) received:
     * 960 bytes written into 576), which corrupted the heap in our tests. Its
     * MPI_Alltoallv with equal counts is the same call and is correct. */
    if (a->coll == XCHG_ALLTOALL && !a->in_place && a->send.type.type != a->recv.type.type)
        return 1;
#endif
    return 0;
}

static int library_collective(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)plan;
    const void *sendbuf = a->in_place ? MPI_IN_PLACE : a->send.buf;
    const xchg_side *s = &a->send, *r = &a->recv;
    int rc = MPI_SUCCESS;
    if (a->coll == XCHG_ALLTOALL && !as_alltoallv(a))
        return MPI_Alltoall(sendbuf, s->counts[0], s->type.type, r->buf, r->counts[0],
                            r->type.type, a->comm);
    if (a->coll == XCHG_ALLGATHER)
        return MPI_Allgather(sendbuf, s->counts[0], s->type.type, r->buf, r->counts[0],
                             r->type.type, a->comm);
    size_t nbytes = 2 * (size_t)a->size * sizeof(int);
    int *sdispls = xchg_scratch_alloc(ctx, nbytes);
    if (!sdispls) return xchg_error(MPI_ERR_NO_MEM, "mpi: out of memory");
    int *rdispls = sdispls + a->size;
    displacements(s, a->size, sdispls);
    displacements(r, a->size, rdispls);
    rc = MPI_Alltoallv(sendbuf, s->counts, sdispls, s->type.type, r->buf, r->counts, rdispls,
                       r->type.type, a->comm);
    xchg_scratch_free(ctx, sdispls, nbytes);
    return rc;
}

/* A persistent alltoallv keeps its displacements: [0, P) send, [P, 2P) receive. */
static int library_init(xchg_plan *plan)
{
    const xchg_args *a = plan->fixed;
    if (!a || !as_alltoallv(a)) return MPI_SUCCESS;
    int *displs = malloc(2 * (size_t)a->size * sizeof(int));
    if (!displs) return xchg_error(MPI_ERR_NO_MEM, "mpi: out of memory");
    displacements(&a->send, a->size, displs);
    displacements(&a->recv, a->size, displs + a->size);
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
    const int *displs = plan->state;
    int rc;
    (void)ctx; /* used only below, under Open MPI */
    *count = 0;
#ifdef OPEN_MPI
    /* Open MPI 4.1's MPI_Ialltoallv with MPI_IN_PLACE hangs when most counts
     * are zero (8 ranks, symmetric sparse counts; MPICH 4 is fine): run the
     * blocking in-place call here instead, complete when XCHG_Start returns. */
    if (a->in_place && a->coll != XCHG_ALLGATHER) return library_collective(ctx, a, plan);
#endif
    if (a->coll == XCHG_ALLTOALL && !as_alltoallv(a))
        rc = MPI_Ialltoall(sendbuf, s->counts[0], s->type.type, r->buf, r->counts[0],
                           r->type.type, a->comm, &reqs[0]);
    else if (a->coll == XCHG_ALLGATHER)
        rc = MPI_Iallgather(sendbuf, s->counts[0], s->type.type, r->buf, r->counts[0],
                            r->type.type, a->comm, &reqs[0]);
    else if (!displs) /* only a persistent plan posts; it has them */
        return xchg_error(MPI_ERR_INTERN, "mpi: alltoallv posted without a persistent plan");
    else
        rc = MPI_Ialltoallv(sendbuf, s->counts, displs, s->type.type, r->buf, r->counts,
                            displs + a->size, r->type.type, a->comm, &reqs[0]);
    if (rc == MPI_SUCCESS) *count = 1;
    return rc;
}

#define MPI_DESCRIPTOR(c)                                                            \
    {.coll = c, .name = "mpi", .summary = "the MPI library's own collective (PMPI)", \
     .init = library_init, .run = library_collective, .destroy = library_destroy,    \
     .post = library_post}
const xchg_algorithm xchg_algo_alltoallv_mpi = MPI_DESCRIPTOR(XCHG_ALLTOALLV);
const xchg_algorithm xchg_algo_alltoall_mpi = MPI_DESCRIPTOR(XCHG_ALLTOALL);
const xchg_algorithm xchg_algo_allgather_mpi = MPI_DESCRIPTOR(XCHG_ALLGATHER);
