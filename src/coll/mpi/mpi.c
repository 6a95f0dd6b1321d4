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

static int library_collective(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)plan;
    const void *sendbuf = a->in_place ? MPI_IN_PLACE : a->send.buf;
    const xchg_side *s = &a->send, *r = &a->recv;
    int rc = MPI_SUCCESS;
    if (a->coll == XCHG_ALLTOALL)
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

#define MPI_DESCRIPTOR(c)                                                            \
    {.coll = c, .name = "mpi", .summary = "the MPI library's own collective (PMPI)", \
     .run = library_collective}
const xchg_algorithm xchg_algo_alltoallv_mpi = MPI_DESCRIPTOR(XCHG_ALLTOALLV);
const xchg_algorithm xchg_algo_alltoall_mpi = MPI_DESCRIPTOR(XCHG_ALLTOALL);
const xchg_algorithm xchg_algo_allgather_mpi = MPI_DESCRIPTOR(XCHG_ALLGATHER);
