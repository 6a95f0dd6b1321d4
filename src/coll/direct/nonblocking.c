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
#include "../../select/model.h"

/* Receives first, then sends, in the spread-out order. */
static int post(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan, MPI_Request *reqs,
                int *count)
{
    (void)ctx; (void)plan;
    *count = 0;
    int rc = xchg_copy_self_block(a);
    if (rc == MPI_SUCCESS) rc = xchg_post_steps(a, 1, a->size - 1, 0, 0, reqs, count);
    return rc;
}

static int nonblocking(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    return xchg_run_posted(ctx, a, plan, post);
}

/* The model (src/select/model.h): one round. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    (void)choice;
    return xchg_cost_direct(c, plat, 1);
}

XCHG_REGISTER_DIRECT(nonblocking, .name = "nonblocking",
                     .summary = "all Irecv/Isend at once, one Waitall",
                     .reference = "Namugwanya et al. 2023",
                     .run = nonblocking, .post = post, .cost = cost)
