/*
 * Node-aware allgatherv with one leader per node: the hierarchical scheme
 * (gather to a leader, leaders exchange, the leaders share) of Algorithm 3
 * with one leader per node (Figure 2) of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 * and the locality-aware aggregation of Section 3 of
 *   G. Collom, R. P. Li, A. Bienz. Optimizing Irregular Communication with
 *   Neighborhood Collectives and Locality-Aware Parallelism. In: Workshops
 *   of SC '23 (SC-W 2023), ACM, 2023. DOI 10.1145/3624062.3624111
 * applied to allgatherv, where what crosses between nodes is every node's
 * blocks once (no block goes between a pair of nodes twice).
 *
 * Schedule (in (node, local rank) coordinates of the topology: nodes of any
 * size, ranks placed in any order; the leader of a node is its local rank 0):
 *   1. gather: every rank sends its block to its leader, which receives it
 *      straight into the block's place in its receive buffer;
 *   2. inter-node: the leaders exchange their nodes' blocks, as one message
 *      per node (blocks.h: an hindexed datatype over the node's blocks where
 *      they lie), `exchange=ring` (N-1 steps around the leaders, each
 *      forwarding the node set it received) or `exchange=direct` (every
 *      leader posts its node's set to every other leader at once);
 *   3. intra-node: each leader shares the whole result (every block) with
 *      its node: `share=binomial`, a binomial tree over the local ranks
 *      (every message the whole result), or `share=scatter_ring`, the
 *      scatter-allgather broadcast of van de Geijn (M. Barnett, S. Gupta,
 *      D. G. Payne, L. Shuler, R. van de Geijn, J. Watts. Interprocessor
 *      collective communication library (InterCom). Proceedings of the
 *      Scalable High-Performance Computing Conference, IEEE, 1994.
 *      DOI 10.1109/SHPCC.1994.296665; Thakur et al. 2005 use it for long
 *      broadcasts): the P blocks cut into Q chunks of consecutive ranks,
 *      chunk j sent to local rank j, then Q-1 ring steps among the local
 *      ranks (the leader, which holds everything, receives nothing).
 * Zero-byte blocks and messages are skipped on both sides alike. One rank
 * per node: no gather and no broadcast; one node: no exchange.
 * Cost, with Q ranks on the largest node, N nodes, m the mean block and
 * n = P m: gather (Q-1)(o + m beta_local) + alpha_local at the leader;
 * ring (N-1)(alpha_remote + Q m beta_remote) or direct
 * alpha_remote + (N-1) Q m beta_remote (+ 2(N-1) o); share: binomial
 * ceil(log2 Q)(alpha_local + n beta_local), scatter_ring
 * (2Q-2) alpha_local + 2 (Q-1)/Q n beta_local. Fewest inter-node messages
 * (N-1 per node), at the price of serial work at the leader.
 * Memory: 2P ints and P MPI_Aint of workspace for the message types, and
 * max(Q, 2N) MPI_Requests.
 */
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../core/topology.h"
#include "../../select/model.h"
#include "blocks.h"

enum { PARAM_EXCHANGE, PARAM_SHARE };
enum { EXCHANGE_RING, EXCHANGE_DIRECT };
static const char *const exchange_names[] = {"ring", "direct", NULL};
enum { SHARE_BINOMIAL, SHARE_SCATTER_RING };
static const char *const share_names[] = {"binomial", "scatter_ring", NULL};
enum { TAG_GATHER = 1, TAG_EXCHANGE = 2, TAG_SHARE = 3 };

/* The ranks of node n into w->ranks; returns how many. */
static int node_ranks(const xchg_topology *t, int n, agv_work *w)
{
    int count = t->node_size[n];
    for (int l = 0; l < count; l++) w->ranks[l] = xchg_rank_on_node(t, n, l);
    return count;
}

static int gather(const xchg_args *a, const xchg_topology *t, MPI_Request *reqs)
{
    int rc = MPI_SUCCESS, nreq = 0, me = a->rank, node = t->node_of_rank[me];
    int leader = xchg_rank_on_node(t, node, 0);
    if (me != leader) {
        if (a->send.bytes[me] > 0) {
            XCHG_CHECK(MPI_Isend(xchg_side_block_ptr(&a->send, me), a->send.counts[me],
                                 a->send.type.type, leader, TAG_GATHER, a->comm, &reqs[0]));
            nreq = 1;
        }
    } else {
        XCHG_CHECK(xchg_copy_self_block(a));
        for (int l = 1; l < t->node_size[node]; l++) {
            int member = xchg_rank_on_node(t, node, l);
            if (a->recv.bytes[member] == 0) continue;
            XCHG_CHECK(xchg_irecv_block(a, member, TAG_GATHER, &reqs[nreq]));
            nreq++;
        }
    }
fail:
    if (nreq > 0) {
        int wrc = xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS) rc = wrc;
    }
    return rc;
}

static int exchange(const xchg_args *a, const xchg_topology *t, int how, agv_work *w,
                    MPI_Request *reqs)
{
    const int N = t->num_nodes, node = t->node_of_rank[a->rank];
    int rc = MPI_SUCCESS, nreq = 0;
    if (how == EXCHANGE_RING) {
        int right = xchg_rank_on_node(t, (node + 1) % N, 0);
        int left = xchg_rank_on_node(t, (node - 1 + N) % N, 0);
        for (int s = 0; s < N - 1; s++) {
            int send_node = (node - s + N) % N, recv_node = (node - s - 1 + N) % N;
            XCHG_CHECK(agv_post_blocks(a, w, node_ranks(t, recv_node, w), left, TAG_EXCHANGE, 0,
                                       reqs, &nreq));
            XCHG_CHECK(agv_post_blocks(a, w, node_ranks(t, send_node, w), right, TAG_EXCHANGE, 1,
                                       reqs, &nreq));
            XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
            nreq = 0;
        }
        return MPI_SUCCESS;
    }
    for (int i = 1; i < N; i++) { /* direct: receives first, then sends */
        int from = (node - i + N) % N;
        XCHG_CHECK(agv_post_blocks(a, w, node_ranks(t, from, w), xchg_rank_on_node(t, from, 0),
                                   TAG_EXCHANGE, 0, reqs, &nreq));
    }
    int mine = node_ranks(t, node, w);
    for (int i = 1; i < N; i++) {
        int to = (node + i) % N;
        XCHG_CHECK(agv_post_blocks(a, w, mine, xchg_rank_on_node(t, to, 0), TAG_EXCHANGE, 1,
                                   reqs, &nreq));
    }
    XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
    nreq = 0;
fail:
    if (nreq > 0) xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    return rc;
}

/* Binomial broadcast of every block from local rank 0 over the node. */
static int share(const xchg_args *a, const xchg_topology *t, agv_work *w, MPI_Request *reqs)
{
    const int node = t->node_of_rank[a->rank], L = t->node_size[node];
    const int local = t->local_rank_of[a->rank], P = a->size;
    int rc = MPI_SUCCESS, nreq = 0, mask = 1;
    for (int q = 0; q < P; q++) w->ranks[q] = q;
    while (mask < L) {
        if (local & mask) {
            XCHG_CHECK(agv_post_blocks(a, w, P, xchg_rank_on_node(t, node, local - mask),
                                       TAG_SHARE, 0, reqs, &nreq));
            XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
            nreq = 0;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (local + mask < L)
            XCHG_CHECK(agv_post_blocks(a, w, P, xchg_rank_on_node(t, node, local + mask),
                                       TAG_SHARE, 1, reqs, &nreq));
    XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
    nreq = 0;
fail:
    if (nreq > 0) xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    return rc;
}

/* The ranks of chunk j of Q (consecutive ranks, P/Q of them, rounded) into
 * w->ranks; returns how many. */
static int chunk_ranks(int P, int Q, int j, agv_work *w)
{
    int first = (int)((int64_t)P * j / Q), last = (int)((int64_t)P * (j + 1) / Q);
    for (int q = first; q < last; q++) w->ranks[q - first] = q;
    return last - first;
}

/* Scatter-allgather broadcast of every block from local rank 0: chunk j to
 * local rank j, then a ring in which local rank l forwards chunk l-s at
 * step s to l+1; local rank 0 has every chunk, so the ring's last rank
 * sends nothing to it. */
static int share_scatter_ring(const xchg_args *a, const xchg_topology *t, agv_work *w,
                              MPI_Request *reqs)
{
    const int node = t->node_of_rank[a->rank], Q = t->node_size[node];
    const int l = t->local_rank_of[a->rank], P = a->size;
    const int right = xchg_rank_on_node(t, node, (l + 1) % Q);
    const int left = xchg_rank_on_node(t, node, (l - 1 + Q) % Q);
    int rc = MPI_SUCCESS, nreq = 0;
    if (l == 0)
        for (int j = 1; j < Q; j++)
            XCHG_CHECK(agv_post_blocks(a, w, chunk_ranks(P, Q, j, w),
                                       xchg_rank_on_node(t, node, j), TAG_SHARE, 1, reqs, &nreq));
    else
        XCHG_CHECK(agv_post_blocks(a, w, chunk_ranks(P, Q, l, w), xchg_rank_on_node(t, node, 0),
                                   TAG_SHARE, 0, reqs, &nreq));
    XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
    nreq = 0;
    for (int s = 0; s < Q - 1; s++) {
        if (l != 0) /* the leader receives nothing */
            XCHG_CHECK(agv_post_blocks(a, w, chunk_ranks(P, Q, (l - s - 1 + Q) % Q, w), left,
                                       TAG_SHARE + 1, 0, reqs, &nreq));
        if (l != Q - 1)
            XCHG_CHECK(agv_post_blocks(a, w, chunk_ranks(P, Q, (l - s + Q) % Q, w), right,
                                       TAG_SHARE + 1, 1, reqs, &nreq));
        XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        nreq = 0;
    }
fail:
    if (nreq > 0) xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    return rc;
}

static int hierarchical(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    const xchg_topology *t = &ctx->topo;
    const int node = t->node_of_rank[a->rank];
    int rc = MPI_SUCCESS, max_node = 1;
    agv_work w = {0};
    for (int n = 0; n < t->num_nodes; n++)
        if (t->node_size[n] > max_node) max_node = t->node_size[n];
    size_t nreqs = (size_t)(max_node > 2 * t->num_nodes ? max_node : 2 * t->num_nodes) + 1;
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nreqs * sizeof(MPI_Request));
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "hierarchical: out of memory");
    XCHG_CHECK(agv_work_alloc(ctx, a, &w));
    XCHG_CHECK(gather(a, t, reqs));
    xchg_phase_end(ctx, "gather");
    if (t->num_nodes > 1 && t->local_rank_of[a->rank] == 0)
        XCHG_CHECK(exchange(a, t, (int)plan->choice.value[PARAM_EXCHANGE], &w, reqs));
    xchg_phase_end(ctx, "inter-node");
    if (t->node_size[node] > 1)
        XCHG_CHECK(plan->choice.value[PARAM_SHARE] == SHARE_SCATTER_RING
                       ? share_scatter_ring(a, t, &w, reqs)
                       : share(a, t, &w, reqs));
    xchg_phase_end(ctx, "intra-node");
fail:
    agv_work_free(ctx, &w);
    xchg_scratch_free(ctx, reqs, nreqs * sizeof(MPI_Request));
    return rc;
}

static double ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n) k++;
    return k;
}

/* The model: the three phases one after the other, at the busiest rank
 * (the leader); the leaders' link is shared by one rank per node. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    int N = c->nodes > 1 ? c->nodes : 1, Q = c->nodes > 1 ? c->ppn : c->P;
    double total = 0, node_bytes = Q * c->block;
    if (Q > 1) {
        xchg_cost_phase gather = {.rounds = 1, .local_msgs = Q - 1,
                                  .local_bytes = (Q - 1) * c->block};
        double levels = ceil_log2(Q), n = c->P * c->block;
        xchg_cost_phase share = {.rounds = levels, .local_msgs = levels,
                                 .local_bytes = levels * n};
        if (choice->value[PARAM_SHARE] == SHARE_SCATTER_RING)
            share = (xchg_cost_phase){.rounds = 2.0 * (Q - 1), .local_msgs = 2.0 * (Q - 1),
                                      .local_bytes = 2.0 * (Q - 1) / Q * n};
        total += xchg_cost_of_phase(c, plat, &gather) + xchg_cost_of_phase(c, plat, &share);
    }
    if (N > 1) {
        int ring = choice->value[PARAM_EXCHANGE] == EXCHANGE_RING;
        xchg_cost_phase ex = {.rounds = ring ? N - 1 : 1, .remote_msgs = N - 1,
                              .remote_bytes = (N - 1) * node_bytes, .sharers = 1};
        total += xchg_cost_of_phase(c, plat, &ex);
    }
    return total;
}

const xchg_algorithm xchg_algo_allgatherv_hierarchical = {
    .coll = XCHG_ALLGATHERV,
    .name = "hierarchical",
    .summary = "node-aware: gather to a leader per node, leaders exchange, share in the node",
    .reference = "Kinkead et al. 2025",
    .run = hierarchical,
    .num_params = 2,
    .params = {[PARAM_EXCHANGE] = {.name = "exchange", .kind = XCHG_PARAM_ENUM,
                                   .def = EXCHANGE_RING, .names = exchange_names,
                                   .help = "how the leaders exchange their nodes' blocks: "
                                           "ring (N-1 steps) or direct (all at once)"},
               [PARAM_SHARE] = {.name = "share", .kind = XCHG_PARAM_ENUM,
                                .def = SHARE_BINOMIAL, .names = share_names,
                                .help = "how a leader shares the result in its node: binomial "
                                        "tree (log2 Q whole messages) or scatter_ring (a chunk "
                                        "to each, then a ring: about 2x the data)"}},
    .cost = cost,
};
