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
#include "../../select/model.h"

/* Receives, then sends, each in ascending rank order. On an error the
 * requests already posted are counted in *count (the caller drains them). */
static int post(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan, MPI_Request *reqs,
                int *count)
{
    (void)ctx; (void)plan;
    int rc = MPI_SUCCESS;
    *count = 0;
    XCHG_CHECK(xchg_copy_self_block(a));
    for (int peer = 0; peer < a->size; peer++)
        if (peer != a->rank && a->recv.bytes[peer] > 0) {
            XCHG_CHECK(xchg_irecv_block(a, peer, 0, &reqs[*count]));
            (*count)++;
        }
    for (int peer = 0; peer < a->size; peer++)
        if (peer != a->rank && a->send.bytes[peer] > 0) {
            XCHG_CHECK(xchg_isend_block(a, peer, 0, &reqs[*count]));
            (*count)++;
        }
fail:
    return rc;
}

static int linear(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    return xchg_run_posted(ctx, a, plan, post);
}

/* The model: one round, and every receiver takes the P-1 messages in the
 * same order (one more message overhead per rank for the queueing). */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    (void)choice;
    return xchg_cost_direct(c, plat, 1) + c->P * plat->overhead;
}

XCHG_REGISTER_DIRECT(linear, .name = "linear",
                     .summary = "all posted in ascending rank order, one Waitall (Open MPI basic)",
                     .reference = "Open MPI coll/basic",
                     .run = linear, .post = post, .cost = cost)
