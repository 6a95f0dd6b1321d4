/*
 * Overlapped node-aware all-to-all: our variant of the node-aware exchange,
 * Algorithm 4 (Figure 4) of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 * which is the three-step aggregation of Section 3 of
 *   G. Collom, R. P. Li, A. Bienz. Optimizing Irregular Communication with
 *   Neighborhood Collectives and Locality-Aware Parallelism. In: Workshops
 *   of SC '23 (SC-W 2023), ACM, 2023. DOI 10.1145/3624062.3624111
 * without its first step. The papers run the inter-node and the intra-node
 * exchange one after the other (node_aware, engine.c); the overlap of the
 * two described here is ours, not theirs.
 *
 * Schedule. Rank (n,j) is local rank j of node n (the xchg topology, so
 * XCHG_VIRTUAL_NODES, uneven nodes and any placement), Q_n ranks on node n.
 * Everything is posted at once, in one round:
 *  - inter-node: (n,j) sends to every other node m ONE message holding its
 *    blocks for all ranks of m (in local-rank order) to the channel rank
 *    (m, j mod Q_m) (the engine's channel rule for uneven nodes: several
 *    ranks of n may reach one rank of m, and a rank of m may get nothing
 *    from n; each rank knows from the topology which sources it expects);
 *  - intra-node: the blocks between ranks of one node go directly, one
 *    message each, with the user's datatypes;
 *  - forwarding: every rank pre-posts, straight into its receive buffer, a
 *    receive for each block from another node that reaches it through
 *    another rank of its node (the forwarder follows from the channel rule).
 *    As soon as (MPI_Waitany) an inter-node message from (m,j') arrives at
 *    (n,i), (n,i) sends each of its blocks to its destination (n,k), one
 *    message per block, straight from the staging buffer it arrived in,
 *    and unpacks its own.
 * So the intra-node redistribution runs while inter-node messages are still
 * in flight. All inter-node receives and sends are posted at once, not in a
 * window: there are only N-1 of each per rank (one per node, not one per
 * rank as in a direct exchange), and a window would hold back exactly the
 * arrivals whose forwarding is to overlap the rest.
 * Plan (init, once per communicator, no messages): the ranks whose
 * inter-node message this rank receives, and the off-node sources whose
 * blocks reach it through another rank of its node, with that forwarder. A
 * call only moves data. Every message's tag is the rank of the blocks' original source
 * (a forwarded block: the off-node source; a direct block or an inter-node
 * message: its sender), which is unique per sender/receiver pair: a
 * forwarder sends only off-node sources' blocks, a direct sender only its
 * own. Hence P-1 must not exceed MPI_TAG_UB (at least 32767 by the
 * standard); the algorithm says it is not applicable otherwise.
 *
 * alltoallv. The forwarder does not know the lengths of the blocks it
 * receives, so every inter-node message is preceded by a header message of
 * Q_m 8-byte block lengths, sent right behind it without waiting (header and
 * data leave together; the receiver pre-posts the headers, whose size it
 * knows, and posts the data receive when the header is in). This costs one
 * small extra message per node pair but no dependent round at the sender,
 * and keeps every receive known in advance, so one MPI_Waitany loop drives
 * both collectives. The alternative, one message prefixed with the lengths
 * and matched with MPI_Improbe/MPI_Mrecv, saves that message but cannot be
 * pre-posted: the receiver must poll every expected source with
 * MPI_Improbe (a busy loop on oversubscribed nodes), and SimGrid SMPI
 * charges every unsuccessful probe a simulated delay (smpi/iprobe, 100 us by
 * default), which would swamp the 2 us latencies being modelled. The
 * header's cost is one overhead and one latency per node pair, overlapped
 * with the data's. alltoall needs no headers: every length is the block size.
 *
 * Datatypes: inter-node and forwarded data are packed bytes
 * (xchg_pack_block / xchg_unpack_block). Forwarded blocks land in the
 * receive buffer directly when its type is contiguous, otherwise in scratch,
 * unpacked at the end. Blocks of zero bytes are not sent, and not expected:
 * both sides know each length (the receiver from its counts, the forwarder
 * from the header or the block size). A header or data message whose byte
 * count exceeds INT_MAX is refused with MPI_ERR_COUNT.
 *
 * Why the buffers are safe while requests are in flight:
 *  - the send staging (packed blocks and headers for all nodes) is written
 *    once, before its Isends, and freed only after the final MPI_Waitall;
 *  - each inter-node message has its own receive staging buffer, used by
 *    exactly one receive; its forward Isends are posted only after that
 *    receive completed, the buffer is never written again, and it is freed
 *    only after the final MPI_Waitall, which covers every forward Isend;
 *  - pre-posted receives write disjoint blocks of the receive buffer (or of
 *    the unpack scratch), one receive per source, and nothing else writes
 *    those blocks: the own block and this rank's own forwarded blocks are
 *    copied into blocks that have no receive posted;
 *  - no scratch aliases the user's buffers, and direct sends read the send
 *    buffer, which MPI_IN_PLACE has already made a copy of (xchg_args).
 *  On an error, every request posted so far is waited for before anything
 *  is freed.
 *
 * Cost (N nodes of Q ranks, m bytes per block), per rank: N-1 inter-node
 * messages of Q m bytes (alltoallv: plus N-1 headers of 8Q bytes), about
 * (N-1)(Q-1) = P-Q-N+1 forwarded messages of m bytes, Q-1 direct ones.
 * Bytes: (P-Q) m leave the node, (P-Q)(Q-1)/Q m are forwarded on it and
 * (P-Q) m are packed. Time: max(T_inter, T_intra) + the message overheads +
 * the forwarding of the last arrival, where T_inter = alpha_remote +
 * (N-1) Q m Q beta_remote (the node's link shared by its Q ranks) and
 * T_intra = alpha_local + N(Q-1) m beta_local, against their sum for
 * node_aware.
 * Memory: the packed send staging ((P-Q) m, plus headers), a receive
 * staging per inter-node message (together about (P-Q) m), the unpack
 * scratch for a non-contiguous receive type, and the request arrays.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../core/plan.h"
#include "../../select/model.h"

/* What a rank needs of the topology, built once per communicator. */
typedef struct overlap_plan {
    const xchg_topology *topo;
    int me, node, local, Q;      /* this rank's node, local rank, node size */
    int num_sources;             /* ranks whose inter-node message reaches me */
    int *sources;                /* [num_sources] */
    int num_forwarded;           /* off-node blocks reaching me via another rank */
    int *forwarded_src;          /* [num_forwarded] their sources */
    int *forwarded_via;          /* [num_forwarded] and forwarders */
    int *mem;
} overlap_plan;

static int rank_on(const overlap_plan *pl, int node, int local)
{
    return xchg_rank_on_node(pl->topo, node, local);
}

/* The rank of node `to` that rank `from` sends its inter-node message to. */
static int channel_of(const overlap_plan *pl, int from, int to)
{
    const xchg_topology *t = pl->topo;
    return rank_on(pl, to, t->local_rank_of[from] % t->node_size[to]);
}

static void destroy(xchg_plan *plan)
{
    overlap_plan *pl = plan->state;
    if (!pl) return;
    free(pl->mem);
    free(pl);
    plan->state = NULL;
}

static int init(xchg_plan *plan)
{
    const xchg_topology *t = &plan->ctx->topo;
    const int P = plan->ctx->size;
    int rc = MPI_SUCCESS;
    overlap_plan *pl = calloc(1, sizeof *pl);
    if (!pl) return xchg_error(MPI_ERR_NO_MEM, "node_aware_overlap: out of memory");
    plan->state = pl;
    pl->topo = t;
    pl->me = plan->ctx->rank;
    pl->node = t->node_of_rank[pl->me];
    pl->local = t->local_rank_of[pl->me];
    pl->Q = t->node_size[pl->node];
    XCHG_ALLOC(pl->mem, (size_t)3 * P * sizeof(int));
    pl->sources = pl->mem;
    pl->forwarded_src = pl->mem + P;
    pl->forwarded_via = pl->mem + 2 * P;
    for (int m = 0; m < t->num_nodes; m++) {
        if (m == pl->node) continue;
        for (int j = 0; j < t->node_size[m]; j++) {
            int src = rank_on(pl, m, j), via = channel_of(pl, src, pl->node);
            if (via == pl->me) {
                pl->sources[pl->num_sources++] = src;
            } else {
                pl->forwarded_src[pl->num_forwarded] = src;
                pl->forwarded_via[pl->num_forwarded++] = via;
            }
        }
    }
fail:
    if (rc != MPI_SUCCESS) destroy(plan);
    return rc;
}

/* One call's buffers and requests. */
typedef struct overlap_call {
    xchg_context *ctx;
    const xchg_args *a;
    const overlap_plan *pl;
    int with_headers;            /* alltoallv: block lengths travel ahead */
    MPI_Request *reqs;           /* everything but the inter-node receives */
    int nreqs;
    size_t reqs_bytes;
    MPI_Request *arrivals;       /* [num_sources] inter-node receives (header or data) */
    int *awaiting_data;          /* [num_sources] the header is in, the data not yet */
    int64_t *lengths;            /* [num_sources * Q] block lengths of each message */
    char **staging;              /* [num_sources] receive staging of each message */
    size_t *staging_bytes;
    char *outbox;                /* packed inter-node messages, headers after them */
    size_t outbox_bytes;
    char *unpack;                /* forwarded blocks of a non-contiguous receive type */
    size_t unpack_bytes;
    int64_t *unpack_off;         /* [num_forwarded] */
    void *arrays;
    size_t arrays_bytes;
} overlap_call;

static int as_count(int64_t bytes, int *count)
{
    if (bytes > INT_MAX)
        return xchg_error(MPI_ERR_COUNT,
                          "node_aware_overlap: a message of %lld bytes exceeds INT_MAX",
                          (long long)bytes);
    *count = (int)bytes;
    return MPI_SUCCESS;
}

static int isend_bytes(overlap_call *c, const void *buf, int64_t bytes, int to, int tag)
{
    int rc, count = 0;
    XCHG_CHECK(as_count(bytes, &count));
    XCHG_CHECK(MPI_Isend(buf, count, MPI_BYTE, to, tag, c->a->comm, &c->reqs[c->nreqs]));
    c->nreqs++;
fail:
    return rc;
}

static int irecv_bytes(overlap_call *c, void *buf, int64_t bytes, int from, int tag,
                       MPI_Request *req)
{
    int rc, count = 0;
    XCHG_CHECK(as_count(bytes, &count));
    XCHG_CHECK(MPI_Irecv(buf, count, MPI_BYTE, from, tag, c->a->comm, req));
fail:
    return rc;
}

/* Bytes of this rank's blocks for the ranks of node m. */
static int64_t bytes_for_node(const overlap_call *c, int m)
{
    int64_t total = 0;
    for (int k = 0; k < c->pl->topo->node_size[m]; k++)
        total += c->a->send.bytes[rank_on(c->pl, m, k)];
    return total;
}

/* Per-call memory: requests, per-source arrays, unpack scratch. */
static int call_alloc(overlap_call *c)
{
    const overlap_plan *pl = c->pl;
    const int ns = pl->num_sources, nodes = pl->topo->num_nodes;
    int rc = MPI_SUCCESS;
    size_t nreqs = (size_t)2 * nodes + (size_t)ns * pl->Q + (size_t)pl->num_forwarded +
                   2 * (size_t)pl->Q;
    c->reqs_bytes = nreqs * sizeof(MPI_Request);
    c->arrays_bytes = (size_t)ns * (sizeof(MPI_Request) + sizeof(int) + sizeof(char *) +
                                    sizeof(size_t) + (size_t)pl->Q * sizeof(int64_t)) +
                      (size_t)pl->num_forwarded * sizeof(int64_t) + 1;
    c->reqs = xchg_scratch_alloc(c->ctx, c->reqs_bytes);
    c->arrays = xchg_scratch_alloc(c->ctx, c->arrays_bytes);
    if (!c->reqs || !c->arrays) {
        rc = xchg_error(MPI_ERR_NO_MEM, "node_aware_overlap: out of memory");
        goto fail;
    }
    memset(c->arrays, 0, c->arrays_bytes);
    /* 8-byte members first, so that every array is aligned */
    c->lengths = c->arrays;
    c->unpack_off = c->lengths + (size_t)ns * pl->Q;
    c->staging = (char **)(c->unpack_off + pl->num_forwarded);
    c->staging_bytes = (size_t *)(c->staging + ns);
    c->arrivals = (MPI_Request *)(c->staging_bytes + ns);
    c->awaiting_data = (int *)(c->arrivals + ns);
    for (int s = 0; s < ns; s++) c->arrivals[s] = MPI_REQUEST_NULL;
    if (!c->a->recv.type.contiguous) {
        int64_t total = 0;
        for (int f = 0; f < pl->num_forwarded; f++) {
            c->unpack_off[f] = total;
            total += c->a->recv.bytes[pl->forwarded_src[f]];
        }
        c->unpack_bytes = (size_t)total + 1;
        c->unpack = xchg_scratch_alloc(c->ctx, c->unpack_bytes);
        if (!c->unpack) rc = xchg_error(MPI_ERR_NO_MEM, "node_aware_overlap: out of memory");
    }
fail:
    return rc;
}

static void call_free(overlap_call *c)
{
    if (c->staging)
        for (int s = 0; s < c->pl->num_sources; s++)
            xchg_scratch_free(c->ctx, c->staging[s], c->staging_bytes[s]);
    xchg_scratch_free(c->ctx, c->unpack, c->unpack_bytes);
    xchg_scratch_free(c->ctx, c->outbox, c->outbox_bytes);
    xchg_scratch_free(c->ctx, c->arrays, c->arrays_bytes);
    xchg_scratch_free(c->ctx, c->reqs, c->reqs_bytes);
}

/* Receive source s's inter-node message into a staging buffer of its own. */
static int post_data_receive(overlap_call *c, int s)
{
    const int64_t *len = c->lengths + (size_t)s * c->pl->Q;
    int64_t total = 0;
    for (int k = 0; k < c->pl->Q; k++) total += len[k];
    c->staging_bytes[s] = (size_t)total + 1;
    c->staging[s] = xchg_scratch_alloc(c->ctx, c->staging_bytes[s]);
    if (!c->staging[s]) return xchg_error(MPI_ERR_NO_MEM, "node_aware_overlap: out of memory");
    c->awaiting_data[s] = 0;
    if (total == 0) return MPI_SUCCESS; /* nothing comes: the request stays null */
    int src = c->pl->sources[s];
    return irecv_bytes(c, c->staging[s], total, src, src, &c->arrivals[s]);
}

/* The first receive of every inter-node message: its header (alltoallv) or,
 * with every length known (alltoall), its data. */
static int post_arrivals(overlap_call *c)
{
    const overlap_plan *pl = c->pl;
    int rc = MPI_SUCCESS;
    for (int s = 0; s < pl->num_sources; s++) {
        int64_t *len = c->lengths + (size_t)s * pl->Q;
        if (c->with_headers) {
            c->awaiting_data[s] = 1;
            XCHG_CHECK(irecv_bytes(c, len, (int64_t)pl->Q * (int64_t)sizeof(int64_t),
                                   pl->sources[s], pl->sources[s], &c->arrivals[s]));
        } else {
            for (int k = 0; k < pl->Q; k++) len[k] = c->a->uniform_bytes;
            XCHG_CHECK(post_data_receive(c, s));
        }
    }
fail:
    return rc;
}

/* Where the forwarded block from `src` lands: the receive buffer, or the
 * unpack scratch for a non-contiguous receive type. */
static char *forwarded_block_ptr(const overlap_call *c, int f)
{
    int src = c->pl->forwarded_src[f];
    if (c->a->recv.type.contiguous) return xchg_side_block_ptr(&c->a->recv, src);
    return c->unpack + c->unpack_off[f];
}

/* Receives of the blocks forwarded to me and of my node's direct blocks. */
static int post_node_receives(overlap_call *c)
{
    const overlap_plan *pl = c->pl;
    const xchg_args *a = c->a;
    int rc = MPI_SUCCESS;
    for (int f = 0; f < pl->num_forwarded; f++) {
        int src = pl->forwarded_src[f];
        if (a->recv.bytes[src] == 0) continue;
        XCHG_CHECK(irecv_bytes(c, forwarded_block_ptr(c, f), a->recv.bytes[src],
                               pl->forwarded_via[f], src, &c->reqs[c->nreqs]));
        c->nreqs++;
    }
    for (int k = 1; k < pl->Q; k++) {
        int peer = rank_on(pl, pl->node, (pl->local + pl->Q - k) % pl->Q);
        if (a->recv.bytes[peer] == 0) continue;
        XCHG_CHECK(xchg_irecv_block(a, peer, peer, &c->reqs[c->nreqs]));
        c->nreqs++;
    }
fail:
    return rc;
}

/* Pack and send one message (and alltoallv: its header first) to every other
 * node, nearest node first after this one. */
static int post_inter_sends(overlap_call *c)
{
    const overlap_plan *pl = c->pl;
    const xchg_topology *t = pl->topo;
    const xchg_args *a = c->a;
    int rc = MPI_SUCCESS;
    int64_t data_bytes = 0, header_count = 0;
    for (int m = 0; m < t->num_nodes; m++)
        if (m != pl->node) data_bytes += bytes_for_node(c, m), header_count += t->node_size[m];
    if (!c->with_headers) header_count = 0;
    /* headers first in the outbox, so that they are 8-byte aligned */
    c->outbox_bytes = (size_t)header_count * sizeof(int64_t) + (size_t)data_bytes + 1;
    c->outbox = xchg_scratch_alloc(c->ctx, c->outbox_bytes);
    if (!c->outbox) return xchg_error(MPI_ERR_NO_MEM, "node_aware_overlap: out of memory");
    int64_t *header = (int64_t *)c->outbox;
    char *data = c->outbox + header_count * (int64_t)sizeof(int64_t);
    for (int step = 1; step < t->num_nodes; step++) {
        int m = (pl->node + step) % t->num_nodes, to = channel_of(pl, pl->me, m);
        int64_t bytes = 0;
        for (int k = 0; k < t->node_size[m]; k++) {
            int dst = rank_on(pl, m, k);
            if (c->with_headers) header[k] = a->send.bytes[dst];
            XCHG_CHECK(xchg_pack_block(&a->send, dst, data + bytes));
            bytes += a->send.bytes[dst];
        }
        if (c->with_headers) {
            XCHG_CHECK(isend_bytes(c, header, (int64_t)t->node_size[m] * (int64_t)sizeof(int64_t),
                                   to, pl->me));
            header += t->node_size[m];
        }
        if (bytes > 0) XCHG_CHECK(isend_bytes(c, data, bytes, to, pl->me));
        data += bytes;
    }
fail:
    return rc;
}

static int post_direct_sends(overlap_call *c)
{
    const overlap_plan *pl = c->pl;
    int rc = MPI_SUCCESS;
    for (int k = 1; k < pl->Q; k++) {
        int peer = rank_on(pl, pl->node, (pl->local + k) % pl->Q);
        if (c->a->send.bytes[peer] == 0) continue;
        XCHG_CHECK(xchg_isend_block(c->a, peer, pl->me, &c->reqs[c->nreqs]));
        c->nreqs++;
    }
fail:
    return rc;
}

/* Source s's message is in: send each block on to its destination on my
 * node, straight from the staging buffer; unpack my own. */
static int forward(overlap_call *c, int s)
{
    const overlap_plan *pl = c->pl;
    const int src = pl->sources[s];
    const int64_t *len = c->lengths + (size_t)s * pl->Q;
    const char *block = c->staging[s];
    int rc = MPI_SUCCESS;
    for (int k = 0; k < pl->Q; block += len[k], k++) {
        int dst = rank_on(pl, pl->node, k);
        if (dst == pl->me) {
            if (len[k] != c->a->recv.bytes[src]) {
                rc = xchg_error(MPI_ERR_TRUNCATE, "rank %d sent %lld bytes but rank %d expects %lld",
                                src, (long long)len[k], pl->me, (long long)c->a->recv.bytes[src]);
                goto fail;
            }
            XCHG_CHECK(xchg_unpack_block(&c->a->recv, src, block));
        } else if (len[k] > 0) {
            XCHG_CHECK(isend_bytes(c, block, len[k], dst, src));
        }
    }
fail:
    return rc;
}

/* Forward each inter-node message as it arrives (a header first posts the
 * receive of its data). MPI_Waitany is called only while a request is
 * pending: SimGrid SMPI 3.32 leaves the index unset (instead of
 * MPI_UNDEFINED) when there is none. */
static int forward_arrivals(overlap_call *c)
{
    int rc = MPI_SUCCESS, s, pending = 0;
    for (s = 0; s < c->pl->num_sources; s++) {
        if (c->arrivals[s] != MPI_REQUEST_NULL) pending++;
        else if (!c->awaiting_data[s]) XCHG_CHECK(forward(c, s)); /* empty: nothing comes */
    }
    while (pending > 0) {
        XCHG_CHECK(MPI_Waitany(c->pl->num_sources, c->arrivals, &s, MPI_STATUS_IGNORE));
        if (c->awaiting_data[s]) {
            XCHG_CHECK(post_data_receive(c, s));
            if (c->arrivals[s] != MPI_REQUEST_NULL) continue;
        }
        pending--;
        XCHG_CHECK(forward(c, s));
    }
fail:
    return rc;
}

static int unpack_forwarded(overlap_call *c)
{
    int rc = MPI_SUCCESS;
    if (c->a->recv.type.contiguous) return rc;
    for (int f = 0; f < c->pl->num_forwarded; f++)
        XCHG_CHECK(xchg_unpack_block(&c->a->recv, c->pl->forwarded_src[f], forwarded_block_ptr(c, f)));
fail:
    return rc;
}

static int run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    overlap_call c = {.ctx = ctx, .a = a, .pl = plan->state,
                      .with_headers = a->uniform_bytes < 0};
    int rc;
    XCHG_CHECK(call_alloc(&c));
    XCHG_CHECK(post_arrivals(&c));
    XCHG_CHECK(post_node_receives(&c));
    XCHG_CHECK(post_inter_sends(&c));
    XCHG_CHECK(post_direct_sends(&c));
    XCHG_CHECK(xchg_copy_self_block(a));
    XCHG_CHECK(forward_arrivals(&c));
    XCHG_CHECK(MPI_Waitall(c.nreqs, c.reqs, MPI_STATUSES_IGNORE));
    c.nreqs = 0;
    XCHG_CHECK(unpack_forwarded(&c));
fail:
    if (rc != MPI_SUCCESS && c.reqs) { /* nothing may outlive its buffer */
        MPI_Waitall(c.nreqs, c.reqs, MPI_STATUSES_IGNORE);
        if (c.arrivals) MPI_Waitall(c.pl->num_sources, c.arrivals, MPI_STATUSES_IGNORE);
    }
    call_free(&c);
    return rc;
}

/* Every message is tagged with a rank: P-1 must be a valid tag. */
static const char *tags_suffice(const xchg_context *ctx, const xchg_choice *choice)
{
    (void)choice;
    int *tag_ub = NULL, found = 0, bound = 32767; /* the standard's least MPI_TAG_UB */
    if (MPI_Comm_get_attr(ctx->comm, MPI_TAG_UB, &tag_ub, &found) == MPI_SUCCESS && found)
        bound = *tag_ub;
    if (ctx->size - 1 > bound)
        return "node_aware_overlap tags messages with ranks: needs P-1 <= MPI_TAG_UB";
    return NULL;
}

/* A phase's cost terms, kept apart so that they can be combined. */
static xchg_cost_terms phase_terms(const xchg_cost_case *c, const xchg_platform *plat,
                                   const xchg_cost_phase *ph)
{
    xchg_cost_terms t = {0};
    xchg_cost_case alone = *c;
    alone.terms = &t;
    xchg_cost_of_phase(&alone, plat, ph);
    return t;
}

/*
 * The model: the inter-node messages (N-1 of Q m bytes, sharing the node's
 * link; alltoallv adds N-1 headers) and the intra-node ones ((N-1)(Q-1)
 * forwarded plus Q-1 direct, of m bytes) travel at the same time, so their
 * latency and bandwidth terms count once, the larger; their per-message
 * overheads and the packing and unpacking are spent by one CPU and add up.
 * The forwarding of the last inter-node arrival cannot overlap anything.
 */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    (void)choice;
    const double N = c->nodes, Q = c->ppn, m = c->block;
    const int is_v = c->coll == XCHG_ALLTOALLV;
    xchg_cost_phase inter = {.rounds = N > 1, .remote_msgs = (N - 1) * (1 + is_v),
                             .remote_bytes = (N - 1) * Q * (m + is_v * 8),
                             .copy_bytes = (N - 1) * (Q + 1) * m /* pack; unpack own */};
    xchg_cost_phase intra = {.rounds = Q > 1, .local_msgs = N * (Q - 1),
                             .local_bytes = N * (Q - 1) * m};
    xchg_cost_phase last = {.rounds = N > 1 && Q > 1, .local_msgs = N > 1 ? Q - 1 : 0,
                            .local_bytes = N > 1 ? (Q - 1) * m : 0};
    xchg_cost_terms ti = phase_terms(c, plat, &inter), tl = phase_terms(c, plat, &intra);
    xchg_cost_terms tail = phase_terms(c, plat, &last);
    xchg_cost_terms slow = ti.latency + ti.bandwidth > tl.latency + tl.bandwidth ? ti : tl;
    xchg_cost_terms sum = {.latency = slow.latency + tail.latency,
                           .bandwidth = slow.bandwidth + tail.bandwidth,
                           .overhead = ti.overhead + tl.overhead,
                           .copy = ti.copy + tl.copy};
    return xchg_cost_add_terms(c, &sum);
}

#define OVERLAP_DESCRIPTOR(c)                                                          \
    {.coll = c, .name = "node_aware_overlap",                                         \
     .summary = "node-aware, forwarding within the node while inter-node messages fly", \
     .reference = "Kinkead et al. 2025", .init = init, .run = run, .destroy = destroy, \
     .applicable = tags_suffice, .init_is_local = 1, .cost = cost}
const xchg_algorithm xchg_algo_alltoall_node_aware_overlap = OVERLAP_DESCRIPTOR(XCHG_ALLTOALL);
const xchg_algorithm xchg_algo_alltoallv_node_aware_overlap = OVERLAP_DESCRIPTOR(XCHG_ALLTOALLV);
