/*
 * standard: the persistent neighbourhood alltoallv of
 *   G. Collom, R. P. Li, A. Bienz. Optimizing Irregular Communication with
 *   Neighborhood Collectives and Locality-Aware Parallelism. In Workshops of
 *   SC 2023 (SC-W 2023), ACM, 2023. doi:10.1145/3624062.3624111.
 *   Section 3.1, Algorithms 1-3 (standard_init, standard_start, standard_wait).
 *
 * Schedule: one round, every message direct. init (Algorithm 1) lists, from
 * the request's fixed counts, the sources and destinations whose blocks are
 * not empty, in the order of the neighbour lists: a block of zero bytes is
 * not sent, because MPI's matching type signatures tell both sides that it
 * is empty. Each start (Algorithm 2) posts one MPI_Irecv per listed source,
 * then one MPI_Isend per listed destination, with the user's datatypes on
 * the user's buffers (displacements in extents, args.h); XCHG_Test and
 * XCHG_Wait complete them (Algorithm 3). The paper's init creates MPI
 * persistent requests (MPI_Send_init); plain Isend/Irecv at each start keep
 * one completion path for every single-round algorithm (src/persistent.c)
 * and cost the same matching work.
 *
 * Repeated neighbours and self loops: every message of the call carries one
 * tag on xchg's private communicator, so MPI's non-overtaking rule matches
 * the messages between a pair in posting order: the k-th non-empty block
 * for rank d among our destinations meets the k-th non-empty block from us
 * among d's sources, which is MPI's rule for a multigraph (the empty blocks
 * skipped on both sides are the same ones). A self loop is a message to
 * oneself; its receive is posted before its send.
 *
 * Cost: alpha * max(n_send, n_recv) + beta * (bytes sent or received) on
 * the busiest rank; every message crosses the network on its own, however
 * many go to one region (what the locality-aware variant reduces). The
 * cost model (.cost, model.c): one round, alpha_remote when any block
 * leaves the node, 2 * overhead per message (posting it and its receive),
 * on-node bytes at beta_local and off-node bytes at beta_remote times the
 * ranks of a node, from the pattern's agreed maxima.
 * Memory: the plan holds the two index lists (indegree + outdegree ints);
 * a blocking call holds indegree + outdegree MPI_Requests of scratch. No
 * data is copied.
 */
#include <stdlib.h>

#include "../../core/context.h"
#include "../../core/error.h"
#include "../../core/plan.h"
#include "model.h"

#define NEIGHBOR_TAG 11

typedef struct standard_state {
    int nrecv, nsend;   /* non-empty blocks */
    int *recv_index;    /* [nrecv] source indices, then [nsend] destination indices */
    int *send_index;
} standard_state;

static int init(xchg_plan *plan)
{
    int rc = MPI_SUCCESS;
    const xchg_args *a = plan->fixed;
    standard_state *st = NULL;
    if (!a || a->coll != XCHG_NEIGHBOR_ALLTOALLV)
        return xchg_error(MPI_ERR_INTERN, "standard: a neighbourhood plan needs its arguments");
    XCHG_ALLOC(st, sizeof *st);
    XCHG_ALLOC(st->recv_index,
               ((size_t)a->neighbor.indegree + (size_t)a->neighbor.outdegree + 1) * sizeof(int));
    st->send_index = st->recv_index + a->neighbor.indegree;
    st->nrecv = st->nsend = 0;
    for (int i = 0; i < a->neighbor.indegree; i++)
        if (a->recv.bytes[i] > 0) st->recv_index[st->nrecv++] = i;
    for (int i = 0; i < a->neighbor.outdegree; i++)
        if (a->send.bytes[i] > 0) st->send_index[st->nsend++] = i;
    plan->state = st;
    return MPI_SUCCESS;
fail:
    free(st);
    return rc;
}

static void destroy(xchg_plan *plan)
{
    standard_state *st = plan->state;
    if (!st) return;
    free(st->recv_index);
    free(st);
    plan->state = NULL;
}

/* Receives, then sends; the posted requests are counted in *count (the
 * caller drains them, also after an error). */
static int post(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan, MPI_Request *reqs,
                int *count)
{
    const standard_state *st = plan->state;
    int rc = MPI_SUCCESS;
    (void)ctx;
    *count = 0;
    for (int k = 0; k < st->nrecv; k++) {
        int i = st->recv_index[k];
        XCHG_CHECK(MPI_Irecv(xchg_side_block_ptr(&a->recv, i), a->recv.counts[i],
                             a->recv.type.type, a->neighbor.sources[i], NEIGHBOR_TAG, a->comm,
                             &reqs[*count]));
        (*count)++;
    }
    for (int k = 0; k < st->nsend; k++) {
        int i = st->send_index[k];
        XCHG_CHECK(MPI_Isend(xchg_side_block_ptr(&a->send, i), a->send.counts[i],
                             a->send.type.type, a->neighbor.destinations[i], NEIGHBOR_TAG, a->comm,
                             &reqs[*count]));
        (*count)++;
    }
fail:
    return rc;
}

static int run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    const standard_state *st = plan->state;
    int rc, n = 0;
    size_t nbytes = ((size_t)st->nrecv + (size_t)st->nsend + 1) * sizeof(MPI_Request);
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nbytes);
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "standard: out of memory for %zu bytes", nbytes);
    XCHG_CHECK(post(ctx, a, plan, reqs, &n));
    XCHG_CHECK(xchg_waitall(n, reqs, MPI_STATUSES_IGNORE));
    n = 0;
fail:
    if (n > 0) xchg_waitall(n, reqs, MPI_STATUSES_IGNORE);
    xchg_scratch_free(ctx, reqs, nbytes);
    return rc;
}

const xchg_algorithm xchg_algo_neighbor_alltoallv_standard = {
    .coll = XCHG_NEIGHBOR_ALLTOALLV,
    .name = "standard",
    .summary = "one Irecv per source and one Isend per destination, all at once "
               "(MPI's own schedule)",
    .reference = "Collom et al. 2023",
    .init = init,
    .run = run,
    .destroy = destroy,
    .post = post,
    .is_flat = 1,
    .init_is_local = 1,
    .cost = xchg_neighbor_standard_cost,
};
