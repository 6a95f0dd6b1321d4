/*
 * Staggered ParLinNa, Section 4, Algorithm 3 and Figure 5a of
 *   K. Fan, J. Domke, S. Ba, S. Kumar. Parameterized Algorithms for
 *   Non-uniform All-to-all. In: Proc. 34th International Symposium on
 *   High-Performance Parallel and Distributed Computing (HPDC '25), ACM, 2025.
 *   DOI 10.1145/3731545.3731590
 * The intra-node phase of parlinna_common.c
 * (ParLogNa with `radix` among the ranks of each node; radix is clamped to the
 * node size), then a scattered inter-node exchange of single blocks:
 * (N-1) * Qmax steps (Qmax = largest node), `batch` steps in flight. Step
 * (s, i) moves the block of source local rank i of node n to the ranks of
 * node n + s that local rank l serves (j mod Q_n == l), and receives the block
 * of source (n - s, i) from the rank of node n - s that serves us, straight
 * into the receive buffer with the user's receive type (the packed bytes are
 * sent as MPI_PACKED). Steps with i >= Q are empty for that node, so both
 * sides agree on the step of every message whatever the node sizes, and each
 * batch's Waitall completes without waiting on a later batch.
 * Uneven nodes: see parlinna_common.c. One node: plain ParLogNa.
 * Cost (N nodes of Q ranks): intra-node ParLogNa, then
 * ceil((N-1)Q/batch) batches: (N-1)*Q*alpha + (N-1)*Q*m*beta per rank.
 * Scratch: the intra-node phase's, then the compacted blocks this rank
 * forwards; nothing for receiving. Sent blocks are never rewritten.
 */
#include "../../core/error.h"
#include "../../select/model.h"
#include "parlinna_common.h"
#include "parlogna.h"

static int staggered(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    const xchg_topology *tp = &ctx->topo;
    const parlinna_state *ps = plan->state;
    const int N = tp->num_nodes;
    if (N == 1) return xchg_plan_run(ctx, ps->whole, a);
    int rc = MPI_SUCCESS, nreq = 0, qmax = 0;
    for (int m = 0; m < N; m++)
        if (tp->node_size[m] > qmax) qmax = tp->node_size[m];
    const int64_t steps = (int64_t)(N - 1) * qmax;
    int64_t batch = plan->choice.value[XCHG_PARLINNA_BATCH];
    if (batch > steps) batch = steps;
    const int per_step = 1 + xchg_parlinna_max_served_per_node(ctx);
    size_t reqs_bytes = (size_t)batch * per_step * sizeof(MPI_Request);
    MPI_Request *reqs = NULL;
    parlinna_staged st = {0};
    /* alltoallw (a datatype per peer): blocks from other nodes arrive packed
     * in `staged` and are unpacked with their own types after each batch
     * (MPICH 4.0 garbled packed bytes received straight into some per-peer
     * derived types: harness, P = 3 on nodes of 1 and 2). */
    const int per_peer = a->recv.types != NULL;
    int64_t *staged_at = NULL;
    char *staged = NULL;
    size_t staged_bytes = 0, staged_at_bytes = 0;

    XCHG_CHECK(xchg_parlinna_intra(ctx, a, ps, &st));
    xchg_phase_end(ctx, "intra-node");
    const int n = st.node, l = st.local, Q = st.node_size;
    reqs = xchg_scratch_alloc(ctx, reqs_bytes);
    if (!reqs) {
        rc = xchg_error(MPI_ERR_NO_MEM, "parlinna_staggered: out of memory");
        goto fail;
    }
    if (per_peer) {
        staged_at_bytes = (size_t)a->size * sizeof(int64_t);
        staged_at = xchg_scratch_alloc(ctx, staged_at_bytes);
        if (!staged_at) {
            rc = xchg_error(MPI_ERR_NO_MEM, "parlinna_staggered: out of memory");
            goto fail;
        }
        for (int p = 0; p < a->size; p++) {
            staged_at[p] = (int64_t)staged_bytes;
            staged_bytes += (size_t)a->recv.bytes[p];
        }
        staged = staged_bytes ? xchg_scratch_alloc(ctx, staged_bytes) : NULL;
        if (staged_bytes && !staged) {
            rc = xchg_error(MPI_ERR_NO_MEM, "parlinna_staggered: out of memory");
            goto fail;
        }
    }
    for (int64_t first = 0; first < steps; first += batch) {
        int64_t last = first + batch < steps ? first + batch : steps;
        for (int64_t step = first; step < last; step++) {
            int s = 1 + (int)(step / qmax), i = (int)(step % qmax), m = (n - s + N) % N;
            if (i >= tp->node_size[m]) continue;
            int source = xchg_rank_on_node(tp, m, i);
            if (a->recv.bytes[source] == 0) continue;
            int server = xchg_rank_on_node(tp, m, parlinna_server_local(l, tp->node_size[m]));
            if (per_peer)
                XCHG_CHECK(MPI_Irecv(staged + staged_at[source], (int)a->recv.bytes[source],
                                     MPI_PACKED, server, i, a->comm, &reqs[nreq++]));
            else
                XCHG_CHECK(MPI_Irecv(xchg_side_block_ptr(&a->recv, source), a->recv.counts[source],
                                     a->recv.type.type, server, i, a->comm, &reqs[nreq++]));
        }
        for (int64_t step = first; step < last; step++) {
            int s = 1 + (int)(step / qmax), i = (int)(step % qmax), m = (n + s) % N;
            if (i >= Q) continue;
            for (int j = l; j < tp->node_size[m]; j += Q) {
                int dest = xchg_rank_on_node(tp, m, j), d = st.served_index[dest];
                int64_t nbytes = parlinna_block_bytes(&st, d, i);
                if (nbytes > 0)
                    XCHG_CHECK(MPI_Isend(st.buf + st.block_offset[d * Q + i], (int)nbytes,
                                         MPI_PACKED, dest, i, a->comm, &reqs[nreq++]));
            }
        }
        XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        nreq = 0;
        for (int64_t step = first; per_peer && step < last; step++) {
            int s = 1 + (int)(step / qmax), i = (int)(step % qmax), m = (n - s + N) % N;
            if (i >= tp->node_size[m]) continue;
            int source = xchg_rank_on_node(tp, m, i);
            if (a->recv.bytes[source] > 0)
                XCHG_CHECK(xchg_unpack_block(&a->recv, source, staged + staged_at[source]));
        }
    }
    xchg_phase_end(ctx, "inter-node");
fail:
    if (nreq) xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    xchg_scratch_free(ctx, reqs, reqs_bytes);
    xchg_scratch_free(ctx, staged, staged_bytes);
    xchg_scratch_free(ctx, staged_at, staged_at_bytes);
    xchg_parlinna_staged_free(ctx, &st);
    return rc;
}

/* The model: xchg_parlinna_cost (parlinna_common.c), single blocks. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    return xchg_parlinna_cost(c, plat, choice->value[XCHG_PARLINNA_RADIX],
                              choice->value[XCHG_PARLINNA_BATCH], 1);
}

const xchg_algorithm xchg_algo_alltoallv_parlinna_staggered = {
    .coll = XCHG_ALLTOALLV,
    .name = "parlinna_staggered",
    .summary = "ParLogNa within nodes, then one block per message between nodes (ParLinNa)",
    .reference = "Fan et al. 2025",
    .run = staggered,
    .cost = cost,
    XCHG_PARLINNA_PARAMS,
};
