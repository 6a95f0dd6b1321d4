/*
 * Linear exchange (Open MPI coll/basic "linear", mca_coll_basic_alltoallv_intra).
 * Source: the Open MPI implementation (https://www.open-mpi.org), not a paper.
 *
 * Like nonblocking, everything is posted at once before one MPI_Waitall, but
 * in ascending rank order (0, 1, ..., P-1) instead of the spread-out order, so
 * at the start every rank sends to rank 0 first: a hot spot that the
 * spread-out order avoids. Kept as the baseline Open MPI users know.
 * Cost: as nonblocking, plus the contention of the common order.
 */
#include "../../core/error.h"
#include "../../core/exchange.h"

static int linear(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)plan;
    int rc = MPI_SUCCESS, n = 0;
    size_t nbytes = 2 * (size_t)a->size * sizeof(MPI_Request);
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nbytes);
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    XCHG_CHECK(xchg_copy_self_block(a));
    for (int peer = 0; peer < a->size; peer++)
        if (peer != a->rank && a->recv.bytes[peer] > 0)
            XCHG_CHECK(xchg_irecv_block(a, peer, 0, &reqs[n++]));
    for (int peer = 0; peer < a->size; peer++)
        if (peer != a->rank && a->send.bytes[peer] > 0)
            XCHG_CHECK(xchg_isend_block(a, peer, 0, &reqs[n++]));
    XCHG_CHECK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
    xchg_scratch_free(ctx, reqs, nbytes);
    return MPI_SUCCESS;
fail:
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    xchg_scratch_free(ctx, reqs, nbytes);
    return rc;
}

XCHG_REGISTER_DIRECT(linear, .name = "linear",
                     .summary = "all posted in ascending rank order, one Waitall (Open MPI basic)",
                     .reference = "Open MPI coll/basic",
                     .run = linear)
