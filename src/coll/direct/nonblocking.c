/*
 * Non-blocking exchange: Algorithm 2 of
 *   E. Namugwanya, A. Bienz, D. Schafer, A. Skjellum. Collective-Optimized
 *   FFTs. arXiv preprint, 2023. DOI not given.
 *
 * Post every receive (from rank-1, rank-2, ...) and every send (to rank+1,
 * rank+2, ...) at once, then one MPI_Waitall. Tolerates late peers best, at
 * the price of up to 2(P-1) requests in flight: long match queues and
 * network contention at large P.
 * Cost: alpha + (P-1) * beta * m when the network absorbs it all; in
 * practice limited by injection bandwidth and queue search.
 */
#include <stdlib.h>

#include "../../core/error.h"
#include "../../core/exchange.h"

static int nonblocking(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)plan;
    int rc = MPI_SUCCESS;
    size_t nbytes = 2 * (size_t)a->size * sizeof(MPI_Request);
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nbytes);
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    XCHG_CHECK(xchg_copy_self_block(a));
    XCHG_CHECK(xchg_exchange_steps(a, 1, a->size - 1, 0, 0, reqs));
fail:
    xchg_scratch_free(ctx, reqs, nbytes);
    return rc;
}

XCHG_REGISTER_DIRECT(nonblocking, .name = "nonblocking",
                     .summary = "all Irecv/Isend at once, one Waitall",
                     .reference = "Namugwanya et al. 2023",
                     .run = nonblocking)
