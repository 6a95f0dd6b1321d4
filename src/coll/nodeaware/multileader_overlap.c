/*
 * Overlapped multi-leader all-to-all: our variant of Algorithm 3 with several
 * leaders (Figure 3) of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 * The paper (and multileader, engine.c) runs gather, inter-leader exchange
 * and scatter one after the other; the overlap of the three described here
 * is ours, not theirs. leaders=1 is the overlapped hierarchical algorithm.
 *
 * Length: about 600 lines, a hundred of them this comment, kept in one file
 * on purpose: the member's and the leader's sides of one schedule, whose
 * tags, slots and buffer lifetimes (below) are checked against each other;
 * the staged receives and the arrival loop are shared with overlap.c
 * (staged.c).
 *
 * Groups. Node n's Q ranks form k' = min(k, Q) groups of consecutive local
 * ranks [floor(j Q/k'), floor((j+1) Q/k')), each led by its lowest local rank
 * (multileader's grouping; the xchg topology, so XCHG_VIRTUAL_NODES, uneven
 * nodes and any placement). The U groups of all nodes are numbered by node,
 * then group. Group u's other groups, in staggered order u+1, u+2, ... mod U,
 * are cut into c' = min(chunks, U-1) contiguous chunks. Every rank derives
 * all of this from the topology (plan init, no messages).
 *
 * Schedule, one round, everything pre-posted:
 *  - gather: member x of group u (not its leader L_u) sends L_u, per chunk,
 *    ONE message of its packed blocks for all ranks of the chunk's groups
 *    (group order, rank order within a group);
 *  - direct: blocks between ranks of one group go directly, one message
 *    each, with the user's datatypes;
 *  - inter: as soon as (MPI_Waitany) every member's piece of a chunk is in,
 *    L_u sends, for each group v of the chunk, L_v one message of the blocks
 *    G_u x G_v laid out destination-major (for each destination in G_v, its
 *    blocks from every source of G_u in order), its own blocks packed from
 *    the send buffer, the members' copied from their pieces;
 *  - scatter: as soon as L_v's message arrives at L_u, L_u sends each member
 *    y its slice (the |G_v| blocks for y, contiguous thanks to the layout)
 *    straight from the staging buffer, and unpacks its own slice. Member y
 *    pre-posts one receive per other group, straight into its receive buffer
 *    when the type is contiguous and the group's blocks are adjacent there,
 *    into scratch otherwise (unpacked at the end).
 * So the gather of chunk c+1 runs while chunk c's inter-leader messages fly,
 * and the scatter of each arrival while the others are still in flight.
 *
 * alltoallv. A leader does not know the lengths of the blocks it receives,
 * so every gather piece and every inter-leader message is preceded by a
 * header of its 8-byte block lengths (a chunk's ranks, or |G_u| |G_v|),
 * sent right before it with the same tag; the receiver pre-posts the header
 * and posts the data receive when the header is in (MPI's non-overtaking
 * rule matches header to header, data to data; the receive side and the
 * arrival loop are staged.c, shared with overlap.c, which says why headers
 * rather than MPI_Improbe). A member knows its slices' lengths
 * from its receive counts. alltoall needs no headers.
 * Tags, in disjoint ranges: direct 0; gather piece 1 + chunk; scatter slice
 * 1 + U + v (v the blocks' source group); inter-leader 1 + 2U + u (u the
 * sending group). A pair of ranks exchanges at most one message of each tag
 * per call (a header and its data excepted, ordered as above), so messages
 * cannot be confused. The largest tag is 3U <= 3P: the algorithm says it is
 * not applicable when that exceeds MPI_TAG_UB (at least 32767).
 * Blocks and messages of zero bytes are not sent and not expected (both
 * sides know every length: counts, block size or header); headers always go.
 * A message over INT_MAX bytes is refused with MPI_ERR_COUNT.
 *
 * Why the buffers are safe while requests are in flight:
 *  - a member's outbox (gather headers and pieces) is written once, before
 *    its Isends, and freed after the final MPI_Waitall;
 *  - every leader receive (header or data, gather or inter) has its own
 *    length array and staging buffer, used by exactly one receive; the
 *    chunk's inter messages are built from gather staging only after all
 *    its receives completed, into a new buffer per chunk, written before
 *    its Isends and never again; scatter Isends read an inter staging
 *    buffer only after its receive completed; all of these are freed after
 *    the final MPI_Waitall, which covers every Isend;
 *  - a member's slice receives write disjoint areas (receive buffer blocks
 *    of distinct sources, or disjoint scratch), one receive per group, and
 *    nothing else writes them: the own block and the direct blocks come
 *    from the own group, which has no slice;
 *  - no scratch aliases the user's buffers, and sends read the send side,
 *    which MPI_IN_PLACE has already made a copy of (xchg_args).
 *  On an error, every request posted so far is waited for before anything
 *  is freed.
 *
 * Cost (N nodes of Q ranks, g = Q/k' ranks per group, U = N k', m bytes per
 * block). Member: c' pieces (alltoallv: plus c' headers) of (P-g) m bytes in
 * all to its leader, g-1 direct messages, U-1 slices received; packs and
 * unpacks (P-g) m. Leader: receives (g-1) c' pieces ((g-1)(P-g) m bytes),
 * sends U-1 inter-leader messages of g^2 m ((N-1) k' of them off the node,
 * plus headers of 8 g^2 bytes), (g-1)(U-1) slices of g m ((g-1)(P-g) m);
 * copies g (P-g) m into the inter messages and unpacks (P-g) m. Time:
 * max(T_gather, T_inter, T_scatter) plus the gather of the first chunk and
 * the scatter of the last arrival, against their sum for multileader.
 * Memory at a leader: about 3 g (P-g) m of staging, plus the request and
 * length arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../core/plan.h"
#include "../../select/model.h"
#include "staged.h"

enum { PARAM_LEADERS, PARAM_CHUNKS };

/* What a rank needs of the topology, built once per communicator. */
typedef struct mlo_plan {
    const xchg_topology *topo;
    int me;
    int num_groups;      /* U */
    int *group_start;    /* [U+1] group v's ranks: topo->ranks_by_node[group_start[v]..] */
    int group, index;    /* my group u and my position in it (0: the leader) */
    int num_chunks;      /* c' */
    int *chunk_first;    /* [c'+1] chunk ch: positions [chunk_first[ch], chunk_first[ch+1]) */
    int *chunk_ranks;    /* [c'] ranks in chunk ch's groups */
    int *mem;
} mlo_plan;

static int group_size(const mlo_plan *pl, int v) { return pl->group_start[v + 1] - pl->group_start[v]; }
static const int *group_ranks(const mlo_plan *pl, int v) { return pl->topo->ranks_by_node + pl->group_start[v]; }
/* The group at position p (0..U-2) of my staggered order. */
static int group_at(const mlo_plan *pl, int p) { return (pl->group + 1 + p) % pl->num_groups; }

#define TAG_DIRECT 0
#define TAG_GATHER(ch) (1 + (ch))
#define TAG_SCATTER(pl, v) (1 + (pl)->num_groups + (v))
#define TAG_INTER(pl, u) (1 + 2 * (pl)->num_groups + (u))

static void destroy(xchg_plan *plan)
{
    mlo_plan *pl = plan->state;
    if (!pl) return;
    free(pl->mem);
    free(pl);
    plan->state = NULL;
}

/* Groups of node n: k' = min(k, Q) slices of its local ranks. */
static int count_groups(const xchg_topology *t, int64_t leaders)
{
    int U = 0;
    for (int n = 0; n < t->num_nodes; n++) U += leaders < t->node_size[n] ? (int)leaders : t->node_size[n];
    return U;
}

static int init(xchg_plan *plan)
{
    const xchg_topology *t = &plan->ctx->topo;
    const int64_t k = plan->choice.value[PARAM_LEADERS], chunks = plan->choice.value[PARAM_CHUNKS];
    int rc = MPI_SUCCESS;
    mlo_plan *pl = calloc(1, sizeof *pl);
    if (!pl) return xchg_error(MPI_ERR_NO_MEM, "multileader_overlap: out of memory");
    plan->state = pl;
    pl->topo = t;
    pl->me = plan->ctx->rank;
    const int U = pl->num_groups = count_groups(t, k);
    pl->num_chunks = chunks < U - 1 ? (int)chunks : U - 1;
    XCHG_ALLOC(pl->mem, (size_t)(U + 1 + 2 * pl->num_chunks + 1) * sizeof(int));
    pl->group_start = pl->mem;
    pl->chunk_first = pl->group_start + U + 1;
    pl->chunk_ranks = pl->chunk_first + pl->num_chunks + 1;
    int v = 0;
    for (int n = 0; n < t->num_nodes; n++) {
        int64_t Q = t->node_size[n], kk = k < Q ? k : Q;
        for (int64_t j = 0; j < kk; j++) pl->group_start[v++] = t->node_first[n] + (int)(j * Q / kk);
    }
    pl->group_start[U] = t->node_first[t->num_nodes];
    int pos = t->node_first[t->node_of_rank[pl->me]] + t->local_rank_of[pl->me];
    while (pl->group_start[pl->group + 1] <= pos) pl->group++;
    pl->index = pos - pl->group_start[pl->group];
    pl->chunk_first[0] = 0; /* U = 1: no chunks */
    for (int ch = 1; ch <= pl->num_chunks; ch++)
        pl->chunk_first[ch] = (int)((int64_t)ch * (U - 1) / pl->num_chunks);
    for (int ch = 0; ch < pl->num_chunks; ch++) {
        pl->chunk_ranks[ch] = 0;
        for (int p = pl->chunk_first[ch]; p < pl->chunk_first[ch + 1]; p++)
            pl->chunk_ranks[ch] += group_size(pl, group_at(pl, p));
    }
fail:
    if (rc != MPI_SUCCESS) destroy(plan);
    return rc;
}

/* One call's buffers and requests. Leader receives ("arrivals") are indexed
 * by slot: gather piece of member x (1..g-1) for chunk ch at ch (g-1) + x-1,
 * then the inter-leader message of the group at position p at G + p. */
typedef struct mlo_call {
    xchg_context *ctx;
    const xchg_args *a;
    const mlo_plan *pl;
    int g;                        /* my group's size */
    MPI_Request *reqs;            /* everything but the leader's arrivals */
    int nreqs;
    size_t reqs_bytes;
    int num_gather_slots;         /* leader: G = (g-1) c' */
    xchg_staged in;               /* leader: G + U-1 slots, header or data receives */
    int *chunk_missing;           /* [c'] pieces of the chunk not yet in (own counts one) */
    char **chunk_out;             /* [c'] the chunk's inter messages, headers first */
    size_t *chunk_out_bytes;
    const char **cursor;          /* [g] read position in each member's piece */
    char *outbox;                 /* member: gather headers, then pieces */
    size_t outbox_bytes;
    char *slices;                 /* member: slices not received in place */
    size_t slices_bytes;
    int64_t *slice_off;           /* [U-1] offset in slices, -1: in the receive buffer */
    void *arrays;
    size_t arrays_bytes;
} mlo_call;

static int isend_bytes(mlo_call *c, const void *buf, int64_t bytes, int to, int tag)
{
    int rc = xchg_isend_bytes(buf, bytes, to, tag, c->a->comm, &c->reqs[c->nreqs],
                              "multileader_overlap");
    if (rc == MPI_SUCCESS) c->nreqs++;
    return rc;
}

static int irecv_bytes(mlo_call *c, void *buf, int64_t bytes, int from, int tag, MPI_Request *req)
{
    return xchg_irecv_bytes(buf, bytes, from, tag, c->a->comm, req, "multileader_overlap");
}

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }
static void *carve(char **at, size_t bytes)
{
    void *p = *at;
    *at += round8(bytes);
    return p;
}

/* Per-call memory: requests, the leader's per-slot and per-chunk arrays,
 * the member's slice offsets. */
static int call_alloc(mlo_call *c)
{
    const mlo_plan *pl = c->pl;
    const int U = pl->num_groups, cc = pl->num_chunks, g = c->g, P = c->a->size;
    const int leader = pl->index == 0;
    c->num_gather_slots = leader ? (g - 1) * cc : 0;
    c->in.num_slots = leader ? c->num_gather_slots + U - 1 : 0;
    const size_t ns = (size_t)c->in.num_slots, nl = leader ? (size_t)(2 * g - 1) * (size_t)(P - g) : 0;
    size_t nreqs = 2 * (size_t)cc + 2 * (size_t)U + (size_t)g * (size_t)U + 2 * (size_t)g;
    size_t sizes[] = {nl * sizeof(int64_t), (size_t)U * sizeof(int64_t),
                      ns * sizeof(int64_t *), ns * sizeof(char *), ns * sizeof(size_t),
                      (size_t)cc * sizeof(char *), (size_t)cc * sizeof(size_t),
                      (size_t)g * sizeof(char *), ns * sizeof(MPI_Request), ns * sizeof(int),
                      (size_t)cc * sizeof(int)};
    c->arrays_bytes = 8;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) c->arrays_bytes += round8(sizes[i]);
    c->reqs_bytes = nreqs * sizeof(MPI_Request);
    c->reqs = xchg_scratch_alloc(c->ctx, c->reqs_bytes);
    c->arrays = xchg_scratch_alloc(c->ctx, c->arrays_bytes);
    if (!c->reqs || !c->arrays) return xchg_error(MPI_ERR_NO_MEM, "multileader_overlap: out of memory");
    memset(c->arrays, 0, c->arrays_bytes);
    char *at = c->arrays;
    int64_t *all_lengths = carve(&at, sizes[0]);
    c->slice_off = carve(&at, sizes[1]);
    c->in.lengths = carve(&at, sizes[2]);
    c->in.staging = carve(&at, sizes[3]);
    c->in.staging_bytes = carve(&at, sizes[4]);
    c->chunk_out = carve(&at, sizes[5]);
    c->chunk_out_bytes = carve(&at, sizes[6]);
    c->cursor = carve(&at, sizes[7]);
    c->in.arrivals = carve(&at, sizes[8]);
    c->in.awaiting_data = carve(&at, sizes[9]);
    c->chunk_missing = carve(&at, sizes[10]);
    for (int s = 0; s < c->in.num_slots; s++) {
        c->in.arrivals[s] = MPI_REQUEST_NULL;
        c->in.lengths[s] = all_lengths;
        all_lengths += s < c->num_gather_slots ? pl->chunk_ranks[s / (g - 1)]
                                               : (int64_t)g * group_size(pl, group_at(pl, s - c->num_gather_slots));
    }
    return MPI_SUCCESS;
}

static void call_free(mlo_call *c)
{
    xchg_staged_free(&c->in);
    for (int ch = 0; ch < c->pl->num_chunks && c->chunk_out; ch++)
        xchg_scratch_free(c->ctx, c->chunk_out[ch], c->chunk_out_bytes[ch]);
    xchg_scratch_free(c->ctx, c->slices, c->slices_bytes);
    xchg_scratch_free(c->ctx, c->outbox, c->outbox_bytes);
    xchg_scratch_free(c->ctx, c->arrays, c->arrays_bytes);
    xchg_scratch_free(c->ctx, c->reqs, c->reqs_bytes);
}

/* The sender, tag and number of blocks of the message in slot s. */
static void slot_source(const void *call, int s, int *from, int *tag, int *blocks)
{
    const mlo_call *c = call;
    const mlo_plan *pl = c->pl;
    if (s < c->num_gather_slots) {
        int ch = s / (c->g - 1);
        *from = group_ranks(pl, pl->group)[1 + s % (c->g - 1)];
        *tag = TAG_GATHER(ch);
        *blocks = pl->chunk_ranks[ch];
    } else {
        int v = group_at(pl, s - c->num_gather_slots);
        *from = group_ranks(pl, v)[0];
        *tag = TAG_INTER(pl, v);
        *blocks = c->g * group_size(pl, v);
    }
}

/* Direct blocks within my group, both ways, with the user's datatypes. */
static int post_direct(mlo_call *c)
{
    const int *ranks = group_ranks(c->pl, c->pl->group);
    const int g = c->g, i = c->pl->index;
    int rc = MPI_SUCCESS;
    for (int k = 1; k < g; k++) {
        int peer = ranks[(i + g - k) % g];
        if (c->a->recv.bytes[peer] == 0) continue;
        XCHG_CHECK(xchg_irecv_block(c->a, peer, TAG_DIRECT, &c->reqs[c->nreqs]));
        c->nreqs++;
    }
    for (int k = 1; k < g; k++) {
        int peer = ranks[(i + k) % g];
        if (c->a->send.bytes[peer] == 0) continue;
        XCHG_CHECK(xchg_isend_block(c->a, peer, TAG_DIRECT, &c->reqs[c->nreqs]));
        c->nreqs++;
    }
fail:
    return rc;
}

/* Member: one receive from my leader per other group, in place when the
 * group's blocks are adjacent in a contiguous receive buffer. */
static int post_slice_receives(mlo_call *c)
{
    const mlo_plan *pl = c->pl;
    const xchg_side *recv = &c->a->recv;
    const int leader = group_ranks(pl, pl->group)[0];
    int rc = MPI_SUCCESS;
    int64_t scratch = 0;
    for (int p = 0; p < pl->num_groups - 1; p++) {
        const int v = group_at(pl, p), *src = group_ranks(pl, v);
        int adjacent = xchg_side_contiguous(recv);
        for (int i = 1; i < group_size(pl, v) && adjacent; i++)
            adjacent = recv->offsets[src[i]] == recv->offsets[src[i - 1]] + recv->bytes[src[i - 1]];
        c->slice_off[p] = adjacent ? -1 : scratch;
        if (!adjacent)
            for (int i = 0; i < group_size(pl, v); i++) scratch += recv->bytes[src[i]];
    }
    c->slices_bytes = (size_t)scratch + 1;
    c->slices = xchg_scratch_alloc(c->ctx, c->slices_bytes);
    if (!c->slices) return xchg_error(MPI_ERR_NO_MEM, "multileader_overlap: out of memory");
    for (int p = 0; p < pl->num_groups - 1; p++) {
        const int v = group_at(pl, p), *src = group_ranks(pl, v);
        int64_t bytes = 0;
        for (int i = 0; i < group_size(pl, v); i++) bytes += recv->bytes[src[i]];
        if (bytes == 0) continue;
        char *dst = c->slice_off[p] < 0 ? xchg_side_block_ptr(recv, src[0]) : c->slices + c->slice_off[p];
        XCHG_CHECK(irecv_bytes(c, dst, bytes, leader, TAG_SCATTER(pl, v), &c->reqs[c->nreqs]));
        c->nreqs++;
    }
fail:
    return rc;
}

/* Member: pack and send my leader one piece per chunk (alltoallv: its
 * header first). */
static int post_gather_sends(mlo_call *c)
{
    const mlo_plan *pl = c->pl;
    const xchg_side *send = &c->a->send;
    const int leader = group_ranks(pl, pl->group)[0];
    int rc = MPI_SUCCESS;
    int64_t header_count = 0, data_bytes = 0;
    for (int p = 0; p < pl->num_groups - 1; p++) {
        const int v = group_at(pl, p), *dst = group_ranks(pl, v);
        for (int i = 0; i < group_size(pl, v); i++) data_bytes += send->bytes[dst[i]];
        header_count += group_size(pl, v);
    }
    if (!c->in.with_headers) header_count = 0;
    /* headers first in the outbox, so that they are 8-byte aligned */
    c->outbox_bytes = (size_t)header_count * sizeof(int64_t) + (size_t)data_bytes + 1;
    c->outbox = xchg_scratch_alloc(c->ctx, c->outbox_bytes);
    if (!c->outbox) return xchg_error(MPI_ERR_NO_MEM, "multileader_overlap: out of memory");
    int64_t *header = (int64_t *)c->outbox;
    char *data = c->outbox + header_count * (int64_t)sizeof(int64_t);
    for (int ch = 0; ch < pl->num_chunks; ch++) {
        int64_t bytes = 0, n = 0;
        for (int p = pl->chunk_first[ch]; p < pl->chunk_first[ch + 1]; p++) {
            const int v = group_at(pl, p), *dst = group_ranks(pl, v);
            for (int i = 0; i < group_size(pl, v); i++, n++) {
                if (c->in.with_headers) header[n] = send->bytes[dst[i]];
                XCHG_CHECK(xchg_pack_block(send, dst[i], data + bytes));
                bytes += send->bytes[dst[i]];
            }
        }
        XCHG_CHECK(xchg_staged_isend(&c->in, header, n, data, bytes, leader, TAG_GATHER(ch),
                                     c->reqs, &c->nreqs));
        if (c->in.with_headers) header += n;
        data += bytes;
    }
fail:
    return rc;
}

/* Leader: chunk ch is complete; send each of its groups v the blocks
 * G_u x G_v, destination-major (alltoallv: their lengths first). */
static int send_chunk(mlo_call *c, int ch)
{
    const mlo_plan *pl = c->pl;
    const xchg_side *send = &c->a->send;
    const int g = c->g, first = pl->chunk_first[ch], last = pl->chunk_first[ch + 1];
    const int gs = ch * (g - 1); /* slot of member 1's piece */
    int rc = MPI_SUCCESS;
    int64_t header_count = 0, data_bytes = 0, n = 0;
    for (int p = first; p < last; p++) {
        const int v = group_at(pl, p), *dst = group_ranks(pl, v);
        header_count += (int64_t)g * group_size(pl, v);
        for (int i = 0; i < group_size(pl, v); i++, n++) {
            data_bytes += send->bytes[dst[i]];
            for (int x = 1; x < g; x++) data_bytes += c->in.lengths[gs + x - 1][n];
        }
    }
    if (!c->in.with_headers) header_count = 0;
    c->chunk_out_bytes[ch] = (size_t)header_count * sizeof(int64_t) + (size_t)data_bytes + 1;
    c->chunk_out[ch] = xchg_scratch_alloc(c->ctx, c->chunk_out_bytes[ch]);
    if (!c->chunk_out[ch]) return xchg_error(MPI_ERR_NO_MEM, "multileader_overlap: out of memory");
    int64_t *header = (int64_t *)c->chunk_out[ch];
    char *data = c->chunk_out[ch] + header_count * (int64_t)sizeof(int64_t);
    for (int x = 1; x < g; x++) c->cursor[x] = c->in.staging[gs + x - 1];
    n = 0;
    for (int p = first; p < last; p++) {
        const int v = group_at(pl, p), gv = group_size(pl, v), *dst = group_ranks(pl, v);
        int64_t bytes = 0, h = 0;
        for (int i = 0; i < gv; i++, n++) {
            for (int x = 0; x < g; x++) {
                int64_t len = x == 0 ? send->bytes[dst[i]] : c->in.lengths[gs + x - 1][n];
                if (x == 0) XCHG_CHECK(xchg_pack_block(send, dst[i], data + bytes));
                else if (len > 0) memcpy(data + bytes, c->cursor[x], (size_t)len), c->cursor[x] += len;
                if (c->in.with_headers) header[h++] = len;
                bytes += len;
            }
        }
        XCHG_CHECK(xchg_staged_isend(&c->in, header, h, data, bytes, dst[0],
                                     TAG_INTER(pl, pl->group), c->reqs, &c->nreqs));
        if (c->in.with_headers) header += h;
        data += bytes;
    }
fail:
    return rc;
}

/* Leader: one more piece of chunk ch is in (or my own blocks). */
static int piece_in(mlo_call *c, int ch)
{
    return --c->chunk_missing[ch] == 0 ? send_chunk(c, ch) : MPI_SUCCESS;
}

/* Leader: group v's message (slot s) is in: send each member its slice
 * straight from the staging buffer; unpack my own. */
static int scatter(mlo_call *c, int s)
{
    const mlo_plan *pl = c->pl;
    const int v = group_at(pl, s - c->num_gather_slots), gv = group_size(pl, v);
    const int *src = group_ranks(pl, v), *members = group_ranks(pl, pl->group);
    const int64_t *len = c->in.lengths[s];
    const char *slice = c->in.staging[s];
    int rc = MPI_SUCCESS;
    for (int y = 0; y < c->g; y++) {
        int64_t bytes = 0;
        for (int i = 0; i < gv; i++) bytes += len[y * gv + i];
        if (y == 0) {
            const char *block = slice;
            for (int i = 0; i < gv; block += len[i], i++) {
                if (len[i] != c->a->recv.bytes[src[i]]) {
                    rc = xchg_error(MPI_ERR_TRUNCATE, "rank %d sent %lld bytes but rank %d expects %lld",
                                    src[i], (long long)len[i], pl->me, (long long)c->a->recv.bytes[src[i]]);
                    goto fail;
                }
                XCHG_CHECK(xchg_unpack_block(&c->a->recv, src[i], block));
            }
        } else if (bytes > 0) {
            XCHG_CHECK(isend_bytes(c, slice, bytes, members[y], TAG_SCATTER(pl, v)));
        }
        slice += bytes;
    }
fail:
    return rc;
}

static int arrived(void *call, int s)
{
    mlo_call *c = call;
    if (s < c->num_gather_slots) return piece_in(c, s / (c->g - 1));
    return scatter(c, s);
}

/* Leader: release my own blocks, then handle every arrival as it comes
 * (staged.h). */
static int lead(mlo_call *c)
{
    int rc = MPI_SUCCESS;
    for (int ch = 0; ch < c->pl->num_chunks; ch++) {
        c->chunk_missing[ch] = c->g; /* g-1 members' pieces and my own blocks */
        XCHG_CHECK(piece_in(c, ch));
    }
    XCHG_CHECK(xchg_staged_arrivals(&c->in));
fail:
    return rc;
}

static int unpack_slices(mlo_call *c)
{
    const mlo_plan *pl = c->pl;
    int rc = MPI_SUCCESS;
    for (int p = 0; p < pl->num_groups - 1; p++) {
        if (c->slice_off[p] < 0) continue;
        const int v = group_at(pl, p), *src = group_ranks(pl, v);
        const char *block = c->slices + c->slice_off[p];
        for (int i = 0; i < group_size(pl, v); block += c->a->recv.bytes[src[i]], i++)
            XCHG_CHECK(xchg_unpack_block(&c->a->recv, src[i], block));
    }
fail:
    return rc;
}

static int run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    const mlo_plan *pl = plan->state;
    mlo_call c = {.ctx = ctx, .a = a, .pl = pl, .g = group_size(pl, pl->group),
                  .in = {.ctx = ctx, .comm = a->comm, .who = "multileader_overlap",
                         .with_headers = a->uniform_bytes < 0,
                         .uniform_bytes = a->uniform_bytes, .source = slot_source,
                         .arrived = arrived}};
    const int leader = pl->index == 0;
    int rc;
    c.in.call = &c;
    XCHG_CHECK(call_alloc(&c));
    if (leader) XCHG_CHECK(xchg_staged_post(&c.in));
    else XCHG_CHECK(post_slice_receives(&c));
    XCHG_CHECK(post_direct(&c));
    if (!leader) XCHG_CHECK(post_gather_sends(&c));
    XCHG_CHECK(xchg_copy_self_block(a));
    if (leader) XCHG_CHECK(lead(&c));
    XCHG_CHECK(xchg_waitall(c.nreqs, c.reqs, MPI_STATUSES_IGNORE));
    c.nreqs = 0;
    if (!leader) XCHG_CHECK(unpack_slices(&c));
fail:
    if (rc != MPI_SUCCESS && c.reqs) { /* nothing may outlive its buffer */
        xchg_waitall(c.nreqs, c.reqs, MPI_STATUSES_IGNORE);
        if (c.in.arrivals) xchg_waitall(c.in.num_slots, c.in.arrivals, MPI_STATUSES_IGNORE);
    }
    call_free(&c);
    return rc;
}

/* The largest tag is 3U (inter-leader, from the last group). */
static const char *tags_suffice(const xchg_context *ctx, const xchg_choice *choice)
{
    int64_t largest_tag = 3 * (int64_t)count_groups(&ctx->topo, choice->value[PARAM_LEADERS]);
    if (largest_tag > xchg_tag_ub(ctx->comm))
        return "multileader_overlap's largest tag is 3 x (leader groups): needs it <= MPI_TAG_UB";
    return NULL;
}

/*
 * The model, at a leader (the busiest rank): gather ((g-1) c' pieces in,
 * (g-1)(P-g) m bytes), inter (U-1 messages of g^2 m, (N-1) k' of them off
 * the node, whose link the node's k' leaders share) and scatter ((g-1)(U-1)
 * slices of g m, plus g-1 direct blocks) travel at the same time, so their
 * latency and bandwidth terms count once, the largest; their per-message
 * overheads and the copies are spent by one CPU and add up. The gather of
 * the first chunk and the scatter of the last arrival overlap nothing.
 */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    const double N = c->nodes, Q = c->ppn, P = c->P, m = c->block;
    const double k = choice->value[PARAM_LEADERS] < Q ? (double)choice->value[PARAM_LEADERS] : Q;
    const double g = Q / k, U = N * k, other = P - g;
    const double chunks = choice->value[PARAM_CHUNKS] < U - 1 ? (double)choice->value[PARAM_CHUNKS] : U - 1;
    const int is_v = xchg_coll_is_v(c->coll);
    xchg_cost_phase gather = {.rounds = g > 1 && U > 1, .local_msgs = (g - 1) * chunks * (1 + is_v),
                              .local_bytes = (g - 1) * other * (m + is_v * 8),
                              .copy_bytes = g * other * m /* the inter messages */};
    xchg_cost_phase inter = {.rounds = U > 1, .remote_msgs = (N - 1) * k * (1 + is_v),
                             .local_msgs = (k - 1) * (1 + is_v),
                             .remote_bytes = (N - 1) * k * g * g * (m + is_v * 8),
                             .local_bytes = (k - 1) * g * g * (m + is_v * 8),
                             .copy_bytes = other * m /* unpack own */, .sharers = k};
    xchg_cost_phase scatter = {.rounds = g > 1, .local_msgs = (g - 1) * U,
                               .local_bytes = (g - 1) * (other + 1) * m};
    xchg_cost_terms tg = xchg_cost_phase_terms(c, plat, &gather);
    xchg_cost_terms ti = xchg_cost_phase_terms(c, plat, &inter);
    xchg_cost_terms ts = xchg_cost_phase_terms(c, plat, &scatter);
    xchg_cost_terms slow = ti;
    if (tg.latency + tg.bandwidth > slow.latency + slow.bandwidth) slow = tg;
    if (ts.latency + ts.bandwidth > slow.latency + slow.bandwidth) slow = ts;
    xchg_cost_terms sum = {
        .latency = slow.latency + tg.latency + ts.latency,
        .bandwidth = slow.bandwidth + (chunks > 0 ? tg.bandwidth / chunks : 0) +
                     (U > 1 ? ts.bandwidth / (U - 1) : 0),
        .overhead = tg.overhead + ti.overhead + ts.overhead,
        .copy = tg.copy + ti.copy + ts.copy};
    return xchg_cost_add_terms(c, &sum);
}

#define PARAMS                                                                          \
    {[PARAM_LEADERS] = {.name = "leaders", .kind = XCHG_PARAM_INT, .def = 1, .min = 1,     \
                        .max = XCHG_RANGE_P, .help = "leaders per node (min(k, node size) are used)"}, \
     [PARAM_CHUNKS] = {.name = "chunks", .kind = XCHG_PARAM_INT, .def = 4, .min = 1,       \
                       .max = XCHG_RANGE_P,                                             \
                       .help = "gather pieces per member (min(c, groups-1) are used)"}}
#define MLO_DESCRIPTOR(c)                                                               \
    {.coll = c, .name = "multileader_overlap",                                          \
     .summary = "multi-leader, gather and scatter overlapping the leaders' exchange",     \
     .reference = "Kinkead et al. 2025", .init = init, .run = run, .destroy = destroy,  \
     .num_params = 2, .params = PARAMS, .applicable = tags_suffice, .init_is_local = 1, \
     .cost = cost}
const xchg_algorithm xchg_algo_alltoall_multileader_overlap = MLO_DESCRIPTOR(XCHG_ALLTOALL);
const xchg_algorithm xchg_algo_alltoallv_multileader_overlap = MLO_DESCRIPTOR(XCHG_ALLTOALLV);
