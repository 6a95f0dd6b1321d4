/*
 * Coalesced ParLinNa, Section 4, Algorithm 2 and Figure 5b of
 *   K. Fan, J. Domke, S. Ba, S. Kumar. Parameterized Algorithms for
 *   Non-uniform All-to-all. In: Proc. 34th International Symposium on
 *   High-Performance Parallel and Distributed Computing (HPDC '25), ACM, 2025.
 *   DOI 10.1145/3731545.3731590
 * The intra-node phase of parlinna_common.c
 * (ParLogNa with `radix` among the ranks of each node; radix is clamped to the
 * node size, radix >= Q_n - 1 is a linear intra-node exchange), then a
 * scattered inter-node exchange in N-1 steps, `batch` steps in flight: in step
 * s, local rank l of node n sends to each rank (m, j) of node m = n + s with
 * j mod Q_n == l one message holding the Q_n blocks of node n for it, and
 * receives from node n - s the Q_{n-s} blocks of that node for itself, from
 * the rank that serves it (local rank l mod Q_{n-s}); they are received into
 * scratch and unpacked. Steps pair the same way on every rank, so each
 * batch's Waitall completes without waiting on a later batch.
 * Uneven nodes: see parlinna_common.c. One node: plain ParLogNa.
 * Cost (N nodes of Q ranks): intra-node ParLogNa over Q ranks with blocks of
 * N*m bytes, then ceil((N-1)/batch) batches: (N-1)*alpha + (N-1)*Q*m*beta
 * per rank. Scratch: the intra-node phase's, then the compacted blocks this
 * rank forwards plus the inter-node blocks it receives.
 * The sent segments are not touched until the batch that sends them has
 * completed (the paper's code reuses one staging buffer per batch).
 */
#include <limits.h>

#include "../../core/error.h"
#include "../../select/model.h"
#include "parlinna_common.h"
#include "parlogna.h"

/* One coalesced message carries a node's worth of blocks; MPI counts it in
 * an int. */
static int check_message_bytes(int64_t nbytes)
{
    if (nbytes <= INT_MAX) return MPI_SUCCESS;
    return xchg_error(MPI_ERR_COUNT, "parlinna_coalesced: one message of %lld bytes exceeds "
                      "INT_MAX", (long long)nbytes);
}

static int coalesced(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    const xchg_topology *tp = &ctx->topo;
    const parlinna_state *ps = plan->state;
    const int N = tp->num_nodes;
    if (N == 1) return xchg_plan_run(ctx, ps->whole, a);
    int rc = MPI_SUCCESS, nreq = 0;
    int64_t batch = plan->choice.value[XCHG_PARLINNA_BATCH];
    if (batch > N - 1) batch = N - 1;
    const int per_step = 1 + xchg_parlinna_max_served_per_node(ctx);
    size_t reqs_bytes = (size_t)batch * per_step * sizeof(MPI_Request);
    int64_t *from_offset = NULL; /* [N+1] offsets in `incoming` by source node */
    size_t from_bytes = (size_t)(N + 1) * sizeof(int64_t);
    char *incoming = NULL;
    MPI_Request *reqs = NULL;
    parlinna_staged st = {0};

    XCHG_CHECK(xchg_parlinna_intra(ctx, a, ps, &st));
    xchg_phase_end(ctx, "intra-node");
    const int n = st.node, l = st.local, Q = st.node_size;
    reqs = xchg_scratch_alloc(ctx, reqs_bytes);
    from_offset = xchg_scratch_alloc(ctx, from_bytes);
    if (!reqs || !from_offset) {
        rc = xchg_error(MPI_ERR_NO_MEM, "parlinna_coalesced: out of memory");
        goto fail;
    }
    from_offset[0] = 0;
    for (int m = 0; m < N; m++) {
        int64_t total = 0;
        for (int i = 0; i < tp->node_size[m] && m != n; i++)
            total += a->recv.bytes[xchg_rank_on_node(tp, m, i)];
        from_offset[m + 1] = from_offset[m] + total;
    }
    incoming = xchg_scratch_alloc(ctx, (size_t)from_offset[N]);
    if (from_offset[N] && !incoming) {
        rc = xchg_error(MPI_ERR_NO_MEM, "parlinna_coalesced: out of memory");
        goto fail;
    }
    for (int first = 1; first < N; first += (int)batch) {
        int last = first + (int)batch < N ? first + (int)batch : N;
        for (int s = first; s < last; s++) {
            int m = (n - s + N) % N;
            int64_t nbytes = from_offset[m + 1] - from_offset[m];
            if (nbytes == 0) continue;
            XCHG_CHECK(check_message_bytes(nbytes));
            int server = xchg_rank_on_node(tp, m, parlinna_server_local(l, tp->node_size[m]));
            XCHG_CHECK(MPI_Irecv(incoming + from_offset[m], (int)nbytes, MPI_PACKED, server, 0,
                                 a->comm, &reqs[nreq++]));
        }
        for (int s = first; s < last; s++) {
            int m = (n + s) % N;
            for (int j = l; j < tp->node_size[m]; j += Q) {
                int dest = xchg_rank_on_node(tp, m, j), d = st.served_index[dest];
                int64_t off = st.block_offset[d * Q], nbytes = st.block_offset[(d + 1) * Q] - off;
                if (nbytes == 0) continue;
                XCHG_CHECK(check_message_bytes(nbytes));
                XCHG_CHECK(MPI_Isend(st.buf + off, (int)nbytes, MPI_PACKED, dest, 0,
                                     a->comm, &reqs[nreq++]));
            }
        }
        XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        nreq = 0;
    }
    for (int m = 0; m < N; m++) {
        const char *pos = incoming + from_offset[m];
        for (int i = 0; i < tp->node_size[m] && m != n; i++) {
            int source = xchg_rank_on_node(tp, m, i);
            XCHG_CHECK(xchg_unpack_block(&a->recv, source, pos));
            pos += a->recv.bytes[source];
        }
    }
    xchg_phase_end(ctx, "inter-node");
fail:
    if (nreq) xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    if (from_offset) xchg_scratch_free(ctx, incoming, (size_t)from_offset[N]);
    xchg_scratch_free(ctx, from_offset, from_bytes);
    xchg_scratch_free(ctx, reqs, reqs_bytes);
    xchg_parlinna_staged_free(ctx, &st);
    return rc;
}

/* The model: xchg_parlinna_cost (parlinna_common.c), one message per node. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    return xchg_parlinna_cost(c, plat, choice->value[XCHG_PARLINNA_RADIX],
                              choice->value[XCHG_PARLINNA_BATCH], 0);
}

const xchg_algorithm xchg_algo_alltoallv_parlinna_coalesced = {
    .coll = XCHG_ALLTOALLV,
    .name = "parlinna_coalesced",
    .summary = "ParLogNa within nodes, then one message per node pair member (ParLinNa)",
    .reference = "Fan et al. 2025",
    .run = coalesced,
    .cost = cost,
    XCHG_PARLINNA_PARAMS,
};
