/*
 * ParLinNa's intra-node phase, shared by the coalesced and staggered variants:
 * Section 4, Figures 3b and 4, Algorithms 2 and 3 of
 *   K. Fan, J. Domke, S. Ba, S. Kumar. Parameterized Algorithms for
 *   Non-uniform All-to-all. In: Proc. 34th International Symposium on
 *   High-Performance Parallel and Distributed Computing (HPDC '25), ACM, 2025.
 *   DOI 10.1145/3731545.3731590
 * generalized to nodes of different sizes and to any placement of ranks:
 * everything is in (node, local rank) coordinates from ctx->topo, never rank
 * arithmetic.
 *
 * Pairing of uneven nodes. Node n has Q_n ranks. The block from (n, i) to
 * (m, j) travels in two hops:
 *   intra-node: (n, i) -> (n, j mod Q_n)          [ParLogNa on node n]
 *   inter-node: (n, j mod Q_n) -> (m, j)           [scattered, m != n]
 * So local rank l of node n "serves" the ranks (m, j), m != n, with
 * j mod Q_n == l. Every rank receives exactly one inter-node message per other
 * node (coalesced) from (n, j mod Q_n); a rank sends to at most
 * ceil(Q_m / Q_n) ranks of node m (one when the nodes have equal sizes, which
 * is the paper's pairing of equal local ranks). For m == n, j mod Q_n == j,
 * so blocks within a node reach their destination in the intra-node phase.
 *
 * Intra-node phase ("implicit", Figure 3b): rank (n, i) builds one super-block
 * per local rank t of its node: a header of the sizes (int64) of its blocks for
 * the destinations t serves (enumerated by node m ascending, then j = t,
 * t + Q_n, ... < Q_m; for m == n only j = t), followed by those blocks packed.
 * The super-block sizes are exchanged with one MPI_Alltoall on the node's
 * communicator (cached in the context), then ParLogNa moves the super-blocks
 * as bytes among the node's ranks: all N groups of Figure 3b at once, its
 * per-round metadata being the super-block sizes. The receiver unpacks its
 * own node's blocks into the receive buffer and compacts the rest (no empty
 * segments) by served destination, then source local rank, for the
 * inter-node phase.
 *
 * Cost: intra-node = ParLogNa over Q_n ranks with blocks of the size of one
 * rank's data for N destinations, plus one node-local MPI_Alltoall of
 * Q_n int64. Scratch: the packed super-blocks twice (sent, received) plus
 * ParLogNa's T, then the compacted inter-node blocks.
 *
 * Plan: the node's inner context (split at init), or with one node a
 * ParLogNa plan on the whole communicator. A persistent plan (fixed counts)
 * also agrees the super-block layout at init (the node-local MPI_Alltoall),
 * holds the two super-block buffers, and makes the intra-node ParLogNa a
 * persistent plan of its own over them (S_max and every round's metadata
 * exchanged once): a start packs, moves data and unpacks.
 */
#include "parlinna_common.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/compose.h"
#include "../../core/error.h"
#include "../../select/model.h"
#include "parlogna.h"

/* Number of destinations local rank t of node n serves (own node included). */
static int count_served(const xchg_topology *tp, int n, int t)
{
    int count = 0, Q = tp->node_size[n];
    for (int m = 0; m < tp->num_nodes; m++)
        for (int j = t; j < tp->node_size[m]; j += Q) count++;
    return count;
}

int xchg_parlinna_max_served_per_node(const xchg_context *ctx)
{
    const xchg_topology *tp = &ctx->topo;
    int n = tp->node_of_rank[ctx->rank], Q = tp->node_size[n], most = 1;
    for (int m = 0; m < tp->num_nodes; m++) {
        int served = (tp->node_size[m] + Q - 1) / Q;
        if (m != n && served > most) most = served;
    }
    return most;
}

/* Pack the super-blocks for the node's local ranks into A. */
static int pack_super_blocks(const xchg_args *a, const xchg_topology *tp, int n, char *A,
                             const int64_t *offset)
{
    int rc = MPI_SUCCESS, Q = tp->node_size[n];
    for (int t = 0; t < Q; t++) {
        char *header = A + offset[t];
        char *pos = header + (int64_t)sizeof(int64_t) * count_served(tp, n, t);
        for (int m = 0; m < tp->num_nodes; m++)
            for (int j = t; j < tp->node_size[m]; j += Q) {
                int dest = xchg_rank_on_node(tp, m, j);
                memcpy(header, &a->send.bytes[dest], sizeof(int64_t));
                header += sizeof(int64_t);
                XCHG_CHECK(xchg_pack_block(&a->send, dest, pos));
                pos += a->send.bytes[dest];
            }
    }
fail:
    return rc;
}

/* Split the received super-blocks: own node -> receive buffer, the rest -> st. */
static int unpack_super_blocks(xchg_context *ctx, const xchg_args *a, const char *C,
                               const int64_t *recv_offset, parlinna_staged *st)
{
    const xchg_topology *tp = &ctx->topo;
    const int n = st->node, l = st->local, Q = st->node_size, P = a->size;
    const int entries = count_served(tp, n, l);
    int rc = MPI_SUCCESS;

    st->num_served = entries - 1;
    st->meta_bytes = (size_t)P * sizeof(int) + ((size_t)st->num_served * Q + 1) * sizeof(int64_t);
    st->meta = xchg_scratch_alloc(ctx, st->meta_bytes);
    if (!st->meta) return xchg_error(MPI_ERR_NO_MEM, "parlinna: out of memory");
    st->block_offset = st->meta;
    st->served_index = (int *)(st->block_offset + st->num_served * Q + 1);
    for (int p = 0; p < P; p++) st->served_index[p] = -1;
    for (int m = 0, d = 0; m < tp->num_nodes; m++)
        for (int j = l; j < tp->node_size[m] && m != n; j += Q)
            st->served_index[xchg_rank_on_node(tp, m, j)] = d++;

    /* Sizes from the headers, then offsets (prefix sums). */
    st->block_offset[0] = 0;
    for (int i = 0; i < Q; i++)
        for (int m = 0, e = 0; m < tp->num_nodes; m++)
            for (int j = l; j < tp->node_size[m]; j += Q, e++) {
                if (m == n) continue;
                int d = st->served_index[xchg_rank_on_node(tp, m, j)];
                memcpy(&st->block_offset[d * Q + i + 1], C + recv_offset[i] + e * 8, 8);
            }
    for (int k = 1; k <= st->num_served * Q; k++) st->block_offset[k] += st->block_offset[k - 1];
    st->buf_bytes = (size_t)st->block_offset[st->num_served * Q];
    st->buf = xchg_scratch_alloc(ctx, st->buf_bytes);
    if (st->buf_bytes && !st->buf) return xchg_error(MPI_ERR_NO_MEM, "parlinna: out of memory");

    for (int i = 0; i < Q; i++) {
        const char *pos = C + recv_offset[i] + (int64_t)entries * 8;
        for (int m = 0, e = 0; m < tp->num_nodes; m++)
            for (int j = l; j < tp->node_size[m]; j += Q, e++) {
                int64_t nbytes;
                memcpy(&nbytes, C + recv_offset[i] + e * 8, 8);
                if (m == n) {
                    int source = xchg_rank_on_node(tp, n, i);
                    if (nbytes != a->recv.bytes[source])
                        return xchg_error(MPI_ERR_TRUNCATE, "parlinna: rank %d sends %lld bytes, "
                                          "%lld expected", source, (long long)nbytes,
                                          (long long)a->recv.bytes[source]);
                    XCHG_CHECK(xchg_unpack_block(&a->recv, source, pos));
                } else if (nbytes > 0) {
                    int d = st->served_index[xchg_rank_on_node(tp, m, j)];
                    memcpy(st->buf + st->block_offset[d * Q + i], pos, (size_t)nbytes);
                }
                pos += nbytes;
            }
    }
fail:
    return rc;
}

/* The super-blocks' layout: layout[0..Q) send offsets, [Q..2Q) send bytes,
 * [2Q..3Q) receive offsets, [3Q..4Q) receive bytes; the receive sizes come
 * from one MPI_Alltoall on the node. Totals in *send_total, *recv_total. */
static int super_block_layout(const xchg_context *ctx, const xchg_args *a, MPI_Comm node_comm,
                              int64_t *layout, int64_t *send_total, int64_t *recv_total)
{
    const xchg_topology *tp = &ctx->topo;
    const int n = tp->node_of_rank[a->rank], Q = tp->node_size[n];
    int64_t *send_offsets = layout, *send_bytes = layout + Q, *recv_offsets = layout + 2 * Q,
            *recv_bytes = layout + 3 * Q;
    int rc;
    for (int t = 0; t < Q; t++) {
        send_bytes[t] = (int64_t)sizeof(int64_t) * count_served(tp, n, t);
        for (int m = 0; m < tp->num_nodes; m++)
            for (int j = t; j < tp->node_size[m]; j += Q)
                send_bytes[t] += a->send.bytes[xchg_rank_on_node(tp, m, j)];
    }
    XCHG_CHECK(xchg_alltoall(send_bytes, 1, MPI_INT64_T, recv_bytes, 1, MPI_INT64_T, node_comm));
    *send_total = *recv_total = 0;
    for (int t = 0; t < Q; t++) {
        send_offsets[t] = *send_total;
        recv_offsets[t] = *recv_total;
        *send_total += send_bytes[t];
        *recv_total += recv_bytes[t];
    }
fail:
    return rc;
}

/* Persistent plan: agree the layout once, hold the super-block buffers, and
 * build the intra-node ParLogNa as a persistent plan over them. */
static int persistent_intra(xchg_context *ctx, const xchg_args *a, parlinna_state *ps)
{
    const int Q = ps->node->size;
    int64_t send_total, recv_total;
    int rc;
    xchg_choice intra = ps->intra;
    XCHG_ALLOC(ps->layout, 4 * (size_t)Q * sizeof(int64_t));
    XCHG_CHECK(super_block_layout(ctx, a, ps->node->comm, ps->layout, &send_total, &recv_total));
    XCHG_ALLOC(ps->A, (size_t)send_total + 1);
    XCHG_ALLOC(ps->C, (size_t)recv_total + 1);
    XCHG_CHECK(xchg_inner_args(ps->node, XCHG_ALLTOALLV, ps->A, ps->layout, ps->layout + Q,
                               ps->C, ps->layout + 2 * Q, ps->layout + 3 * Q, &ps->node_args));
    XCHG_CHECK(xchg_choice_fit(ps->node, &intra));
    XCHG_CHECK(xchg_plan_create(ps->node, &intra, &ps->node_args, &ps->node_plan));
fail:
    return rc;
}

void xchg_parlinna_free(xchg_plan *plan)
{
    parlinna_state *ps = plan->state;
    if (ps) {
        xchg_plan_free(ps->whole);
        xchg_plan_free(ps->node_plan);
        if (ps->layout) xchg_args_free(&ps->node_args);
        free(ps->layout);
        free(ps->A);
        free(ps->C);
        xchg_context_inner_free(ps->node);
    }
    free(ps);
    plan->state = NULL;
}

int xchg_parlinna_init(xchg_plan *plan)
{
    xchg_context *ctx = plan->ctx;
    int rc = MPI_SUCCESS;
    parlinna_state *ps = calloc(1, sizeof *ps);
    if (!ps) return xchg_error(MPI_ERR_NO_MEM, "parlinna: out of memory");
    plan->state = ps;
    ps->intra.algo = xchg_registry_find(XCHG_ALLTOALLV, "parlogna");
    ps->intra.coll = XCHG_ALLTOALLV;
    if (!ps->intra.algo) {
        rc = xchg_error(MPI_ERR_INTERN, "parlinna: parlogna is not registered");
        goto fail;
    }
    ps->intra.value[XCHG_PARLOGNA_RADIX] = plan->choice.value[XCHG_PARLINNA_RADIX];
    ps->intra.value[XCHG_PARLOGNA_BOUNCE] = XCHG_PARLOGNA_BOUNCE_WAVE;
    if (ctx->topo.num_nodes == 1) {
        xchg_choice whole = ps->intra;
        XCHG_CHECK(xchg_choice_fit(ctx, &whole));
        XCHG_CHECK(xchg_plan_create(ctx, &whole, plan->fixed, &ps->whole));
    } else {
        XCHG_CHECK(xchg_context_inner(ctx, ctx->topo.node_of_rank[ctx->rank],
                                      ctx->topo.local_rank_of[ctx->rank], &ps->node));
        if (plan->fixed) XCHG_CHECK(persistent_intra(ctx, plan->fixed, ps));
    }
fail:
    if (rc != MPI_SUCCESS) xchg_parlinna_free(plan);
    return rc;
}

int xchg_parlinna_intra(xchg_context *ctx, const xchg_args *a, const parlinna_state *ps,
                        parlinna_staged *st)
{
    const xchg_topology *tp = &ctx->topo;
    const int n = tp->node_of_rank[a->rank], Q = tp->node_size[n];
    int rc = MPI_SUCCESS;
    char *A = NULL, *C = NULL;
    int64_t send_total = 0, recv_total = 0;
    size_t layout_bytes = 4 * (size_t)Q * sizeof(int64_t);
    int64_t *layout = NULL;

    memset(st, 0, sizeof *st);
    st->node = n;
    st->local = tp->local_rank_of[a->rank];
    st->node_size = Q;
    if (ps->node_plan) { /* persistent: layout, buffers and plan are the plan's */
        XCHG_CHECK(pack_super_blocks(a, tp, n, ps->A, ps->layout));
        XCHG_CHECK(xchg_plan_run(ctx, ps->node_plan, &ps->node_args));
        return unpack_super_blocks(ctx, a, ps->C, ps->layout + 2 * Q, st);
    }
    layout = xchg_scratch_alloc(ctx, layout_bytes);
    if (!layout) return xchg_error(MPI_ERR_NO_MEM, "parlinna: out of memory");
    XCHG_CHECK(super_block_layout(ctx, a, ps->node->comm, layout, &send_total, &recv_total));
    A = xchg_scratch_alloc(ctx, (size_t)send_total);
    C = xchg_scratch_alloc(ctx, (size_t)recv_total);
    if ((send_total && !A) || (recv_total && !C)) {
        rc = xchg_error(MPI_ERR_NO_MEM, "parlinna: out of memory");
        goto fail;
    }
    XCHG_CHECK(pack_super_blocks(a, tp, n, A, layout));
    /* A super-block over INT_MAX bytes is MPI_ERR_COUNT there. */
    XCHG_CHECK(xchg_run_inner(ctx, ps->node, &ps->intra, A, layout, layout + Q, C,
                              layout + 2 * Q, layout + 3 * Q));
    xchg_scratch_free(ctx, A, (size_t)send_total);
    A = NULL;
    XCHG_CHECK(unpack_super_blocks(ctx, a, C, layout + 2 * Q, st));
fail:
    xchg_scratch_free(ctx, A, (size_t)send_total);
    xchg_scratch_free(ctx, C, (size_t)recv_total);
    xchg_scratch_free(ctx, layout, layout_bytes);
    return rc;
}

void xchg_parlinna_staged_free(xchg_context *ctx, parlinna_staged *st)
{
    xchg_scratch_free(ctx, st->buf, st->buf_bytes);
    xchg_scratch_free(ctx, st->meta, st->meta_bytes);
    st->buf = st->meta = NULL;
}

double xchg_parlinna_cost(const xchg_cost_case *c, const xchg_platform *plat, int64_t radix,
                          int64_t batch, int per_block)
{
    const double N = c->nodes, Q = c->ppn;
    /* super-blocks: N blocks and their int64 sizes; and the node-local
     * MPI_Alltoall of their sizes */
    xchg_cost_case intra = xchg_cost_sub_case(c, c->ppn, 1, c->ppn, c->ppn, N * (c->block + 8));
    xchg_cost_case sizes = xchg_cost_sub_case(c, c->ppn, 1, c->ppn, c->ppn, 8);
    double total = xchg_cost_direct(&sizes, plat, 1) +
                   xchg_parlogna_cost(&intra, plat, radix < c->ppn ? radix : c->ppn,
                                      XCHG_PARLOGNA_BOUNCE_WAVE);
    if (c->nodes <= 1) return total;
    double steps = per_block ? (N - 1) * Q : N - 1;
    xchg_cost_phase inter = {.rounds = xchg_cost_rounds((int64_t)steps, batch),
                             .remote_msgs = per_block ? (N - 1) * Q : N - 1,
                             .remote_bytes = (N - 1) * Q * c->block,
                             .copy_bytes = 2 * (N - 1) * Q * c->block};
    return total + xchg_cost_of_phase(c, plat, &inter);
}
