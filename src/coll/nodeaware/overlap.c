/*
 * Overlapped node- and locality-aware all-to-all: our variant of the
 * node-aware exchange (Algorithm 4, Figure 4) and of the locality-aware one
 * (Algorithm 4 with several regions per node, Figure 5) of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 * which are the three-step aggregation of Section 3 of
 *   G. Collom, R. P. Li, A. Bienz. Optimizing Irregular Communication with
 *   Neighborhood Collectives and Locality-Aware Parallelism. In: Workshops
 *   of SC '23 (SC-W 2023), ACM, 2023. DOI 10.1145/3624062.3624111
 * without its first step. The papers run the exchange between units and the
 * redistribution inside them one after the other (node_aware,
 * locality_aware: engine.c); overlapping the two, as described here, is ours.
 *
 * Units. A unit is a node (node_aware_overlap) or one of g' = min(g, Q_n)
 * regions of node n, the local ranks [floor(r Q_n/g'), floor((r+1) Q_n/g'))
 * (locality_aware_overlap:groups=g; the regions of locality_aware). Nodes
 * come from the xchg topology, so XCHG_VIRTUAL_NODES, uneven nodes and any
 * placement. Rank (u,j) is member j of unit u, K_u members.
 *
 * Schedule. Everything is posted at once, in one round:
 *  - between units: (u,j) sends to every other unit v ONE message holding
 *    its blocks for all members of v (in member order) to the channel rank
 *    (v, j mod K_v) (the engine's channel rule for uneven units: several
 *    ranks of u may reach one rank of v, and a rank of v may get nothing
 *    from u; each rank knows from the topology which sources it expects).
 *    Units are visited from u+1 on, so every unit's first messages go to
 *    different units;
 *  - inside the unit: the blocks between members of one unit go directly,
 *    one message each, with the user's datatypes;
 *  - forwarding: a message from unit v that (u,i) receives holds blocks for
 *    every member of u; (u,i) sends them on to their destinations (u,k). Its
 *    sources (in order of the step at which they send to u) are cut into
 *    `batches` balanced contiguous batches. batches=each (the default): as
 *    soon as (MPI_Waitany) a message arrives, each of its blocks leaves for
 *    its destination, one message per block, straight from the staging
 *    buffer it arrived in, and the destination pre-posted that receive
 *    straight into its receive buffer. batches=b: once every message of a
 *    batch is in, (u,i) sends each destination ONE message with its blocks
 *    from all of the batch's sources (copied together), which the
 *    destination receives into scratch and unpacks at the end. Fewer
 *    messages (b (K-1) instead of (U-1)(K-1) per rank, U units) for less
 *    overlap and one more copy; batches=1 forwards once, after every
 *    message is in, which is node_aware's schedule with the direct
 *    intra-node blocks and the lengths riding with the data.
 * So the redistribution runs while messages between units are still in
 * flight. The messages between units are all posted at once, not in a
 * window: there are only U-1 of each per rank, and a window would hold back
 * exactly the arrivals whose forwarding is to overlap the rest.
 * Plan (init, once per communicator and parameters, no messages): the units,
 * the ranks whose message this rank receives, its batches, and the blocks
 * that reach it through another member of its unit, grouped into that
 * forwarder's batch messages. A call only moves data.
 * Tags: a direct block and a message between units carry their sender's
 * rank; a forwarded message the rank of the first source of its batch (each
 * batch's sources are distinct, and never the forwarder itself). So tags
 * are unique per sender/receiver pair, and P-1 must not exceed MPI_TAG_UB
 * (at least 32767 by the standard): the algorithm says it is not applicable
 * otherwise.
 *
 * alltoallv. The forwarder does not know the lengths of the blocks it
 * receives, so every message between units is preceded by a header message
 * of K_v 8-byte block lengths, sent right behind it without waiting (header
 * and data leave together; the receiver pre-posts the headers, whose size it
 * knows, and posts the data receive when the header is in). This costs one
 * small extra message per unit pair but no dependent round at the sender,
 * and keeps every receive known in advance, so one MPI_Waitany loop drives
 * both collectives (that receive side and loop: staged.c, shared with
 * multileader_overlap.c). The alternative, one message prefixed with the lengths
 * and matched with MPI_Improbe/MPI_Mrecv, saves that message but cannot be
 * pre-posted: the receiver must poll every expected source with
 * MPI_Improbe (a busy loop on oversubscribed nodes), and SimGrid SMPI
 * charges every unsuccessful probe a simulated delay (smpi/iprobe, 100 us by
 * default), which would swamp the 2 us latencies being modelled. alltoall
 * needs no headers: every length is the block size. A forwarded message's
 * destination knows its length from its own receive counts.
 *
 * Datatypes: data between units and forwarded data are packed bytes
 * (xchg_pack_block / xchg_unpack_block). Blocks forwarded alone land in the
 * receive buffer directly when its type is contiguous; batched ones, and
 * any with a non-contiguous type, land in scratch, unpacked at the end.
 * Blocks and messages of zero bytes are not sent, and not expected: both
 * sides know each length (the receiver from its counts, the forwarder from
 * the header or the block size). A message whose byte count exceeds INT_MAX
 * is refused with MPI_ERR_COUNT.
 *
 * Why the buffers are safe while requests are in flight:
 *  - the send staging (packed blocks and headers for all units) is written
 *    once, before its Isends, and freed only after the final MPI_Waitall;
 *  - each message between units has its own receive staging buffer, used by
 *    exactly one receive; blocks are forwarded from it (or copied out of it
 *    into a batch buffer) only after that receive completed, it is never
 *    written again, and it is freed only after the final MPI_Waitall, which
 *    covers every forward Isend; a batch buffer is written once, before its
 *    Isends, and freed after the same MPI_Waitall;
 *  - pre-posted receives write disjoint blocks of the receive buffer or
 *    disjoint ranges of the unpack scratch, one receive per source or batch,
 *    and nothing else writes there: the own block and this rank's own
 *    forwarded blocks are copied into blocks that have no receive posted;
 *  - no scratch aliases the user's buffers, and direct sends read the send
 *    buffer, which MPI_IN_PLACE has already made a copy of (xchg_args).
 *  On an error, every request posted so far is waited for before anything
 *  is freed.
 *
 * Cost (N nodes of Q ranks, g units per node of K = Q/g ranks, U = N g
 * units, m bytes per block, b' batches), per rank: U-1 messages of K m bytes
 * to other units ((N-1) g of them off the node; alltoallv: plus U-1 headers
 * of 8K bytes), b' (K-1) forwarded messages (together (U-1)(K-1) m bytes),
 * K-1 direct ones. Bytes: (P-Q) m leave the node, P m are packed. Time:
 * max(T_between, T_forward) + the message overheads + the forwarding of the
 * last batch, where T_between = alpha_remote + (N-1) Q m Q beta_remote (the
 * node's link shared by its Q ranks) and T_forward = alpha_local +
 * (U-1)(K-1) m beta_local, against their sum for node_aware.
 * Memory: the packed send staging (about P m, plus headers), a receive
 * staging per message between units (together about P m), batch buffers
 * and the unpack scratch (each at most the forwarded bytes), the request
 * arrays.
 *
 * Files: this one (the call and the model); the plan (units, sources,
 * batches) in overlap_plan.c; the staged receives in staged.c.
 */
#include "overlap.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"
#include "overlap_plan.h"
#include "staged.h"

const char *const xchg_overlap_batch_names[] = {"each", NULL};

/* One call's buffers and requests. */
typedef struct overlap_call {
    xchg_context *ctx;
    const xchg_args *a;
    const overlap_plan *pl;
    MPI_Request *reqs;           /* everything but the receives between units */
    int nreqs;
    size_t reqs_bytes;
    xchg_staged in;              /* [num_sources] receives between units (staged.h) */
    int *batch_missing;          /* [num_batches] messages of the batch not yet in */
    char **batch_buf;            /* [num_batches] blocks of a batch, by destination */
    size_t *batch_buf_bytes;
    char *outbox;                /* headers, then the packed messages between units */
    size_t outbox_bytes;
    char *unpack;                /* forwarded blocks that do not land in place */
    size_t unpack_bytes;
    int64_t *unpack_off;         /* [num_forwarded], -1: in place */
    int64_t *cursor;             /* [num_sources] read offsets while a batch is copied */
    void *arrays;
    size_t arrays_bytes;
} overlap_call;

static int isend_bytes(overlap_call *c, const void *buf, int64_t bytes, int to, int tag)
{
    int rc = xchg_isend_bytes(buf, bytes, to, tag, c->a->comm, &c->reqs[c->nreqs], "overlap");
    if (rc == MPI_SUCCESS) c->nreqs++;
    return rc;
}

static int irecv_bytes(overlap_call *c, void *buf, int64_t bytes, int from, int tag,
                       MPI_Request *req)
{
    return xchg_irecv_bytes(buf, bytes, from, tag, c->a->comm, req, "overlap");
}

/* Bytes of this rank's blocks for the members of unit v. */
static int64_t bytes_for_unit(const overlap_call *c, int v)
{
    int64_t total = 0;
    for (int k = 0; k < unit_size(c->pl, v); k++) total += c->a->send.bytes[rank_on(c->pl, v, k)];
    return total;
}

/* A forwarded message lands in place: one block, contiguous receive type. */
static int lands_in_place(const overlap_call *c, int i)
{
    const overlap_plan *pl = c->pl;
    return xchg_side_contiguous(&c->a->recv) &&
           pl->inbound_first[i + 1] - pl->inbound_first[i] == 1;
}

static void *scratch(overlap_call *c, size_t bytes)
{
    void *p = xchg_scratch_alloc(c->ctx, bytes);
    if (!p) xchg_error(MPI_ERR_NO_MEM, "overlap: out of memory (%zu bytes)", bytes);
    return p;
}

/* Per-call memory: requests, per-source and per-batch arrays, unpack scratch. */
static int call_alloc(overlap_call *c)
{
    const overlap_plan *pl = c->pl;
    const int ns = pl->num_sources, nb = pl->num_batches;
    size_t nreqs = 2 * (size_t)pl->num_units + (size_t)nb * pl->K + (size_t)pl->num_inbound +
                   2 * (size_t)pl->K;
    c->reqs_bytes = nreqs * sizeof(MPI_Request);
    c->arrays_bytes = (size_t)ns * (sizeof(MPI_Request) + sizeof(int) + sizeof(char *) +
                                    sizeof(size_t) + sizeof(int64_t *) +
                                    ((size_t)pl->K + 1) * sizeof(int64_t)) +
                      (size_t)nb * (sizeof(char *) + sizeof(size_t) + sizeof(int)) +
                      (size_t)pl->num_forwarded * sizeof(int64_t) + 1;
    if (!(c->reqs = scratch(c, c->reqs_bytes)) || !(c->arrays = scratch(c, c->arrays_bytes)))
        return MPI_ERR_NO_MEM;
    memset(c->arrays, 0, c->arrays_bytes);
    /* 8-byte members first, so that every array is aligned */
    int64_t *all_lengths = c->arrays;
    c->unpack_off = all_lengths + (size_t)ns * pl->K;
    c->cursor = c->unpack_off + pl->num_forwarded;
    c->in.staging = (char **)(c->cursor + ns);
    c->batch_buf = c->in.staging + ns;
    c->in.staging_bytes = (size_t *)(c->batch_buf + nb);
    c->batch_buf_bytes = c->in.staging_bytes + ns;
    c->in.lengths = (int64_t **)(c->batch_buf_bytes + nb);
    c->in.arrivals = (MPI_Request *)(c->in.lengths + ns);
    c->in.awaiting_data = (int *)(c->in.arrivals + ns);
    c->batch_missing = c->in.awaiting_data + ns;
    c->in.num_slots = ns;
    for (int s = 0; s < ns; s++) {
        c->in.arrivals[s] = MPI_REQUEST_NULL;
        c->in.lengths[s] = all_lengths + (size_t)s * pl->K;
    }
    for (int b = 0; b < nb; b++) c->batch_missing[b] = pl->batch_first[b + 1] - pl->batch_first[b];
    int64_t total = 0;
    for (int i = 0; i < pl->num_inbound; i++)
        for (int f = pl->inbound_first[i]; f < pl->inbound_first[i + 1]; f++) {
            c->unpack_off[f] = lands_in_place(c, i) ? -1 : total;
            if (!lands_in_place(c, i)) total += c->a->recv.bytes[pl->forwarded_src[f]];
        }
    c->unpack_bytes = (size_t)total + 1;
    if (!(c->unpack = scratch(c, c->unpack_bytes))) return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

static void call_free(overlap_call *c)
{
    xchg_staged_free(&c->in);
    if (c->arrays) {
        for (int b = 0; b < c->pl->num_batches; b++)
            xchg_scratch_free(c->ctx, c->batch_buf[b], c->batch_buf_bytes[b]);
    }
    xchg_scratch_free(c->ctx, c->unpack, c->unpack_bytes);
    xchg_scratch_free(c->ctx, c->outbox, c->outbox_bytes);
    xchg_scratch_free(c->ctx, c->arrays, c->arrays_bytes);
    xchg_scratch_free(c->ctx, c->reqs, c->reqs_bytes);
}

/* The sender, tag and number of blocks of source s's message: every
 * message between units is tagged with its sender's rank. */
static void slot_source(const void *call, int s, int *from, int *tag, int *blocks)
{
    const overlap_call *c = call;
    *from = *tag = c->pl->sources[s];
    *blocks = c->pl->K;
}

/* Where forwarded entry f lands: the receive buffer, or the unpack scratch. */
static char *forwarded_block_ptr(const overlap_call *c, int f)
{
    if (c->unpack_off[f] < 0) return xchg_side_block_ptr(&c->a->recv, c->pl->forwarded_src[f]);
    return c->unpack + c->unpack_off[f];
}

/* Receives of the messages forwarded to me and of my unit's direct blocks. */
static int post_unit_receives(overlap_call *c)
{
    const overlap_plan *pl = c->pl;
    const xchg_args *a = c->a;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < pl->num_inbound; i++) {
        int first = pl->inbound_first[i];
        int64_t bytes = 0;
        for (int f = first; f < pl->inbound_first[i + 1]; f++)
            bytes += a->recv.bytes[pl->forwarded_src[f]];
        if (bytes == 0) continue;
        XCHG_CHECK(irecv_bytes(c, forwarded_block_ptr(c, first), bytes, pl->inbound_via[i],
                               pl->forwarded_src[first], &c->reqs[c->nreqs]));
        c->nreqs++;
    }
    for (int k = 1; k < pl->K; k++) {
        int peer = rank_on(pl, pl->unit, (pl->local + pl->K - k) % pl->K);
        if (a->recv.bytes[peer] == 0) continue;
        XCHG_CHECK(xchg_irecv_block(a, peer, peer, &c->reqs[c->nreqs]));
        c->nreqs++;
    }
fail:
    return rc;
}

/* Pack and send one message (and alltoallv: its header first) to every other
 * unit, the next unit first. */
static int post_unit_sends(overlap_call *c)
{
    const overlap_plan *pl = c->pl;
    const xchg_args *a = c->a;
    const int U = pl->num_units;
    int rc = MPI_SUCCESS;
    int64_t data_bytes = 0, header_count = 0;
    for (int v = 0; v < U; v++)
        if (v != pl->unit) data_bytes += bytes_for_unit(c, v), header_count += unit_size(pl, v);
    if (!c->in.with_headers) header_count = 0;
    /* headers first in the outbox, so that they are 8-byte aligned */
    c->outbox_bytes = (size_t)header_count * sizeof(int64_t) + (size_t)data_bytes + 1;
    if (!(c->outbox = scratch(c, c->outbox_bytes))) return MPI_ERR_NO_MEM;
    int64_t *header = (int64_t *)c->outbox;
    char *data = c->outbox + header_count * (int64_t)sizeof(int64_t);
    for (int step = 1; step < U; step++) {
        int v = (pl->unit + step) % U, to = channel_of(pl, pl->me, v), Kv = unit_size(pl, v);
        int64_t bytes = 0;
        for (int k = 0; k < Kv; k++) {
            int dst = rank_on(pl, v, k);
            if (c->in.with_headers) header[k] = a->send.bytes[dst];
            XCHG_CHECK(xchg_pack_block(&a->send, dst, data + bytes));
            bytes += a->send.bytes[dst];
        }
        XCHG_CHECK(xchg_staged_isend(&c->in, header, Kv, data, bytes, to, pl->me, c->reqs,
                                     &c->nreqs));
        if (c->in.with_headers) header += Kv;
        data += bytes;
    }
fail:
    return rc;
}

static int post_direct_sends(overlap_call *c)
{
    const overlap_plan *pl = c->pl;
    int rc = MPI_SUCCESS;
    for (int k = 1; k < pl->K; k++) {
        int peer = rank_on(pl, pl->unit, (pl->local + k) % pl->K);
        if (c->a->send.bytes[peer] == 0) continue;
        XCHG_CHECK(xchg_isend_block(c->a, peer, pl->me, &c->reqs[c->nreqs]));
        c->nreqs++;
    }
fail:
    return rc;
}

/* Source s's message is in: unpack my own block; alone in its batch, send
 * each other block on to its destination straight from the staging buffer. */
static int forward_one(overlap_call *c, int s, int alone)
{
    const overlap_plan *pl = c->pl;
    const int src = pl->sources[s];
    const int64_t *len = c->in.lengths[s];
    const char *block = c->in.staging[s];
    int rc = MPI_SUCCESS;
    for (int k = 0; k < pl->K; block += len[k], k++) {
        int dst = rank_on(pl, pl->unit, k);
        if (dst == pl->me) {
            if (len[k] != c->a->recv.bytes[src]) {
                rc = xchg_error(MPI_ERR_TRUNCATE, "rank %d sent %lld bytes but rank %d expects %lld",
                                src, (long long)len[k], pl->me, (long long)c->a->recv.bytes[src]);
                goto fail;
            }
            XCHG_CHECK(xchg_unpack_block(&c->a->recv, src, block));
        } else if (alone && len[k] > 0) {
            XCHG_CHECK(isend_bytes(c, block, len[k], dst, src));
        }
    }
fail:
    return rc;
}

/* Every message of batch b is in: send each other member one message with
 * its blocks from all of the batch's sources, copied together. */
static int forward_batch(overlap_call *c, int b)
{
    const overlap_plan *pl = c->pl;
    const int first = pl->batch_first[b], last = pl->batch_first[b + 1];
    int rc = MPI_SUCCESS;
    int64_t total = 0;
    for (int s = first; s < last; s++)
        for (int k = 0; k < pl->K; k++)
            if (k != pl->local) total += c->in.lengths[s][k];
    c->batch_buf_bytes[b] = (size_t)total + 1;
    if (!(c->batch_buf[b] = scratch(c, c->batch_buf_bytes[b]))) return MPI_ERR_NO_MEM;
    char *out = c->batch_buf[b];
    for (int s = first; s < last; s++) c->cursor[s] = 0;
    for (int k = 0; k < pl->K; k++) {
        int64_t bytes = 0;
        for (int s = first; s < last; s++) {
            int64_t len = c->in.lengths[s][k];
            if (k != pl->local) memcpy(out + bytes, c->in.staging[s] + c->cursor[s], (size_t)len);
            if (k != pl->local) bytes += len;
            c->cursor[s] += len;
        }
        if (bytes > 0)
            XCHG_CHECK(isend_bytes(c, out, bytes, rank_on(pl, pl->unit, k), pl->sources[first]));
        out += bytes;
    }
fail:
    return rc;
}

/* Source s's message is in: forward it alone, or as part of its batch
 * (the arrival loop's handler, staged.h). */
static int forward(void *call, int s)
{
    overlap_call *c = call;
    const overlap_plan *pl = c->pl;
    int b = pl->batch_of[s], rc;
    int alone = pl->batch_first[b + 1] - pl->batch_first[b] == 1;
    XCHG_CHECK(forward_one(c, s, alone));
    if (!alone && --c->batch_missing[b] == 0) XCHG_CHECK(forward_batch(c, b));
fail:
    return rc;
}

static int unpack_forwarded(overlap_call *c)
{
    int rc = MPI_SUCCESS;
    for (int f = 0; f < c->pl->num_forwarded; f++)
        if (c->unpack_off[f] >= 0)
            XCHG_CHECK(xchg_unpack_block(&c->a->recv, c->pl->forwarded_src[f], forwarded_block_ptr(c, f)));
fail:
    return rc;
}

int xchg_overlap_run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    overlap_call c = {.ctx = ctx, .a = a, .pl = plan->state,
                      .in = {.ctx = ctx, .comm = a->comm, .who = "overlap",
                             .with_headers = a->uniform_bytes < 0,
                             .uniform_bytes = a->uniform_bytes, .source = slot_source,
                             .arrived = forward}};
    int rc;
    c.in.call = &c;
    XCHG_CHECK(call_alloc(&c));
    XCHG_CHECK(xchg_staged_post(&c.in));
    XCHG_CHECK(post_unit_receives(&c));
    XCHG_CHECK(post_unit_sends(&c));
    XCHG_CHECK(post_direct_sends(&c));
    XCHG_CHECK(xchg_copy_self_block(a));
    XCHG_CHECK(xchg_staged_arrivals(&c.in));
    XCHG_CHECK(xchg_waitall(c.nreqs, c.reqs, MPI_STATUSES_IGNORE));
    c.nreqs = 0;
    XCHG_CHECK(unpack_forwarded(&c));
fail:
    if (rc != MPI_SUCCESS && c.arrays) { /* nothing may outlive its buffer */
        xchg_waitall(c.nreqs, c.reqs, MPI_STATUSES_IGNORE);
        xchg_waitall(c.in.num_slots, c.in.arrivals, MPI_STATUSES_IGNORE);
    }
    call_free(&c);
    return rc;
}

/* Every message is tagged with a rank: P-1 must be a valid tag. */
const char *xchg_overlap_applicable(const xchg_context *ctx, const xchg_choice *choice)
{
    (void)choice;
    if (ctx->size - 1 > xchg_tag_ub(ctx->comm))
        return "the overlapped exchanges tag messages with ranks: needs P-1 <= MPI_TAG_UB";
    return NULL;
}

/*
 * The model: the messages between units (U-1 of K m bytes, (N-1) g of them
 * off the node, sharing its link; alltoallv adds as many headers) and the
 * messages inside the unit (b' (K-1) forwarded, together (U-1)(K-1) m bytes,
 * plus K-1 direct ones of m bytes) travel at the same time, so their latency
 * and bandwidth terms count once, the larger; their per-message overheads
 * and the copies are spent by one CPU and add up. The forwarding of the last
 * batch cannot overlap anything.
 */
double xchg_overlap_cost(const xchg_cost_case *c, const xchg_platform *plat,
                         const xchg_overlap_spec *spec)
{
    const double N = c->nodes, Q = c->ppn, m = c->block;
    const double g = spec->groups < c->ppn ? spec->groups : c->ppn, K = Q / g, U = N * g;
    const double batches = spec->batches == XCHG_OVERLAP_EACH || spec->batches > U - 1
                               ? U - 1 : (double)spec->batches;
    const int is_v = xchg_coll_is_v(c->coll);
    const double copied_again = batches < U - 1 ? 2 : 0; /* into the batch, out of scratch */
    xchg_cost_phase between = {.rounds = U > 1, .remote_msgs = (N - 1) * g * (1 + is_v),
                               .local_msgs = (g - 1) * (1 + is_v),
                               .remote_bytes = (N - 1) * Q * (m + is_v * 8),
                               .local_bytes = (g - 1) * K * (m + is_v * 8),
                               .copy_bytes = (U - 1) * (K + 1) * m /* pack; unpack own */};
    xchg_cost_phase inside = {.rounds = K > 1, .local_msgs = batches * (K - 1) + K - 1,
                              .local_bytes = U * (K - 1) * m,
                              .copy_bytes = copied_again * (U - 1) * (K - 1) * m};
    double tail_blocks = U > 1 && batches > 0 ? (U - 1) / batches : 0;
    xchg_cost_phase last = {.rounds = U > 1 && K > 1, .local_msgs = U > 1 ? K - 1 : 0,
                            .local_bytes = U > 1 ? (K - 1) * tail_blocks * m : 0};
    xchg_cost_terms tb = xchg_cost_phase_terms(c, plat, &between);
    xchg_cost_terms ti = xchg_cost_phase_terms(c, plat, &inside);
    xchg_cost_terms tail = xchg_cost_phase_terms(c, plat, &last);
    xchg_cost_terms slow = tb.latency + tb.bandwidth > ti.latency + ti.bandwidth ? tb : ti;
    xchg_cost_terms sum = {.latency = slow.latency + tail.latency,
                           .bandwidth = slow.bandwidth + tail.bandwidth,
                           .overhead = tb.overhead + ti.overhead,
                           .copy = tb.copy + ti.copy};
    return xchg_cost_add_terms(c, &sum);
}
