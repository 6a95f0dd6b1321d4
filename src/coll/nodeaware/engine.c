/*
 * The engine of the node-aware family (see engine.h for the algorithms,
 * the role rules and the costs).
 *
 * Data model: between phases a rank holds a set of blocks (src, dst), each
 * with its packed bytes, indexed by key src*P+dst and sorted by key. A phase
 * sends every held block to one member of the phase's sub-communicator. What
 * a sends to b is a list of tiles Src x Dst (src-major inside a tile) that
 * both a and b compute from the topology alone, so messages carry no
 * headers; only alltoallv's block lengths travel, once per phase, ahead of
 * the data.
 */
#include "engine.h"
#include "engine_plan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/compose.h"
#include "../../core/error.h"

enum phase_kind { PH_GATHER, PH_SPREAD, PH_INTER, PH_INTRA, PH_SCATTER, PH_COUNT };
static const char *const phase_names[PH_COUNT] = {"gather", "intra-node", "inter-node",
                                                  "intra-node", "scatter"};

typedef struct tile { const int *src; int ns; const int *dst; int nd; } tile;

typedef struct held_block { int64_t key, off, len; } held_block;

typedef struct holding {
    held_block *blocks;
    int64_t n;
    char *data;
    size_t data_bytes, blocks_bytes;
} holding;

/* Tiles of blocks that `a` sends to `b` in phase `kind`; returns how many. */
static int tiles_between(const hier_plan *pl, int kind, int a, int b, tile *out)
{
    int n = 0;
    const int P = pl->P;
#define OWN(p) pl->own_ranks + pl->own_first[p], own_count(pl, p)
#define TSET(v) pl->tset_ranks + pl->tset_first[v], pl->tset_first[(v) + 1] - pl->tset_first[v]
    switch (kind) {
    case PH_GATHER:
        if (pl->leader_of[a] == b) out[n++] = (tile){pl->all + a, 1, pl->all, P};
        break;
    case PH_SCATTER:
        if (pl->leader_of[b] == a) out[n++] = (tile){pl->all, P, pl->all + b, 1};
        break;
    case PH_SPREAD: {
        int c = pl->index_of[b], i = pl->index_of[a];
        for (int v = 0; v < pl->num_units; v++)
            if (i % unit_size(pl, v) == c) out[n++] = (tile){OWN(a), TSET(v)};
        break;
    }
    case PH_INTER: {
        int u = pl->unit_of[a], v = pl->unit_of[b], i = pl->index_of[a], Kv = unit_size(pl, v);
        for (int ip = i; ip < unit_size(pl, u); ip++)
            if (ip % Kv == i) out[n++] = (tile){OWN(member(pl, u, ip)), TSET(v)};
        break;
    }
    case PH_INTRA: {
        int v = pl->unit_of[a], i = pl->index_of[a], Kv = unit_size(pl, v);
        for (int u = 0; u < pl->num_units; u++)
            for (int ip = i; ip < unit_size(pl, u); ip += Kv)
                out[n++] = (tile){OWN(member(pl, u, ip)), OWN(b)};
        break;
    }
    }
#undef OWN
#undef TSET
    return n;
}

/*
 * alltoallv: the receiver of this phase already knows every incoming block's
 * length when each block is addressed to the receiver itself (its own receive
 * counts give them): scatter, and the last exchange when ranks take part
 * themselves. Then no lengths travel. The same on every rank of the phase.
 */
static int lengths_known_to_receiver(const hier_plan *pl, int kind)
{
    return kind == PH_SCATTER || (pl->leaders == 0 && kind == PH_INTRA) ||
           (pl->leaders == 0 && kind == PH_INTER && pl->max_unit == 1);
}

static int cmp_block(const void *x, const void *y)
{
    int64_t a = ((const held_block *)x)->key, b = ((const held_block *)y)->key;
    return (a > b) - (a < b);
}

static const held_block *find_block(const holding *h, int64_t key)
{
    int64_t lo = 0, hi = h->n - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (h->blocks[mid].key == key) return &h->blocks[mid];
        if (h->blocks[mid].key < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

static void holding_free(xchg_context *ctx, holding *h)
{
    xchg_scratch_free(ctx, h->blocks, h->blocks_bytes);
    xchg_scratch_free(ctx, h->data, h->data_bytes);
    memset(h, 0, sizeof *h);
}

static int holding_alloc(xchg_context *ctx, holding *h, int64_t nblocks, int64_t nbytes)
{
    h->n = nblocks;
    h->blocks_bytes = (size_t)nblocks * sizeof(held_block) + 1;
    h->data_bytes = (size_t)nbytes + 1;
    h->blocks = xchg_scratch_alloc(ctx, h->blocks_bytes);
    h->data = xchg_scratch_alloc(ctx, h->data_bytes);
    if (!h->blocks || !h->data)
        return xchg_error(MPI_ERR_NO_MEM, "out of memory (node-aware engine, %lld bytes)",
                          (long long)nbytes);
    return MPI_SUCCESS;
}

/* Offsets of per-member messages: back to back, or (padded) slots of `slot`. */
static int64_t layout(int n, const int64_t *bytes, int64_t slot, int64_t *off)
{
    int64_t total = 0;
    for (int q = 0; q < n; q++) {
        off[q] = total;
        total += slot >= 0 ? slot : bytes[q];
    }
    return total;
}

/*
 * The block lengths a phase's metadata exchange delivers. A persistent
 * alltoallv plan knows the counts at init, so it runs the phases once there
 * with `dry` set (block indices and lengths only: no data is packed or sent)
 * and records them; every start then replays them instead of exchanging.
 */
typedef struct phase_lengths {
    int recorded;
    int64_t n;
    int64_t *len;
} phase_lengths;

/*
 * One phase: members[] are the global ranks of `comm` in comm-rank order.
 * Consumes `in`, fills `out`. `lengths`: see phase_lengths (NULL: none).
 */
static int run_phase(xchg_context *ctx, const xchg_args *a, const hier_plan *pl, int kind,
                     xchg_context *comm, const int *members, int nmembers,
                     const xchg_choice *inner, phase_lengths *lengths, int dry, holding *in,
                     holding *out)
{
    const int P = pl->P, me = pl->me, uniform = a->uniform_bytes >= 0;
    int rc = MPI_SUCCESS, ntiles;
    int64_t *arr = NULL, *meta_send = NULL, *meta_recv = NULL;
    size_t arr_bytes = (size_t)nmembers * 8 * sizeof(int64_t) + 1;
    size_t tiles_bytes = (size_t)(P + pl->num_units + 1) * sizeof(tile);
    size_t meta_send_bytes = 1, meta_recv_bytes = 1, sbuf_bytes = 1;
    tile *tl = NULL;
    char *sbuf = NULL;
    XCHG_ALLOC(tl, tiles_bytes);
    XCHG_ALLOC(arr, arr_bytes);
    int64_t *sbytes = arr, *soff = arr + nmembers, *rbytes = arr + 2 * nmembers,
            *roff = arr + 3 * nmembers, *snblk = arr + 4 * nmembers, *rnblk = arr + 5 * nmembers,
            *moff_s = arr + 6 * nmembers, *moff_r = arr + 7 * nmembers;
    int64_t total_send_blocks = 0, total_recv_blocks = 0;

    /* What goes to each member and what comes from each (counts of blocks). */
    for (int q = 0; q < nmembers; q++) {
        snblk[q] = rnblk[q] = sbytes[q] = 0;
        ntiles = tiles_between(pl, kind, me, members[q], tl);
        for (int k = 0; k < ntiles; k++)
            for (int s = 0; s < tl[k].ns; s++)
                for (int d = 0; d < tl[k].nd; d++) {
                    const held_block *b = find_block(in, (int64_t)tl[k].src[s] * P + tl[k].dst[d]);
                    if (!b) { rc = xchg_error(MPI_ERR_INTERN, "node-aware engine: block (%d,%d) missing at rank %d",
                                              tl[k].src[s], tl[k].dst[d], me); goto fail; }
                    sbytes[q] += b->len;
                    snblk[q]++;
                }
        ntiles = tiles_between(pl, kind, members[q], me, tl);
        for (int k = 0; k < ntiles; k++) rnblk[q] += (int64_t)tl[k].ns * tl[k].nd;
        total_send_blocks += snblk[q];
        total_recv_blocks += rnblk[q];
    }
    out->n = total_recv_blocks; /* the index now, the data once its size is known */
    out->blocks_bytes = (size_t)total_recv_blocks * sizeof(held_block) + 1;
    out->blocks = xchg_scratch_alloc(ctx, out->blocks_bytes);
    if (!out->blocks) { rc = xchg_error(MPI_ERR_NO_MEM, "out of memory"); goto fail; }

    xchg_phase_end(ctx, "repack");
    /* Lengths of the blocks to come: m each, or (alltoallv) sent ahead. */
    meta_recv_bytes = (size_t)total_recv_blocks * sizeof(int64_t) + 1;
    meta_recv = xchg_scratch_alloc(ctx, meta_recv_bytes);
    if (!meta_recv) { rc = xchg_error(MPI_ERR_NO_MEM, "out of memory"); goto fail; }
    if (uniform) {
        for (int64_t i = 0; i < total_recv_blocks; i++) meta_recv[i] = a->uniform_bytes;
    } else if (lengths_known_to_receiver(pl, kind)) {
        int64_t at = 0;
        for (int q = 0; q < nmembers; q++) {
            ntiles = tiles_between(pl, kind, members[q], me, tl);
            for (int k = 0; k < ntiles; k++)
                for (int x = 0; x < tl[k].ns * tl[k].nd; x++)
                    meta_recv[at++] = a->recv.bytes[tl[k].src[x / tl[k].nd]];
        }
    } else if (lengths && lengths->recorded) {
        memcpy(meta_recv, lengths->len, (size_t)total_recv_blocks * sizeof(int64_t));
    } else {
        meta_send_bytes = (size_t)total_send_blocks * sizeof(int64_t) + 1;
        meta_send = xchg_scratch_alloc(ctx, meta_send_bytes);
        if (!meta_send) { rc = xchg_error(MPI_ERR_NO_MEM, "out of memory"); goto fail; }
        int64_t at = 0;
        for (int q = 0; q < nmembers; q++) {
            ntiles = tiles_between(pl, kind, me, members[q], tl);
            for (int k = 0; k < ntiles; k++)
                for (int s = 0; s < tl[k].ns; s++)
                    for (int d = 0; d < tl[k].nd; d++)
                        meta_send[at++] = find_block(in, (int64_t)tl[k].src[s] * P + tl[k].dst[d])->len;
        }
        for (int q = 0; q < nmembers; q++) snblk[q] *= 8, rnblk[q] *= 8; /* now bytes */
        layout(nmembers, snblk, -1, moff_s);
        layout(nmembers, rnblk, -1, moff_r);
        XCHG_CHECK(xchg_run_inner(ctx, comm, inner, (char *)meta_send, moff_s, snblk,
                                  (char *)meta_recv, moff_r, rnblk));
        for (int q = 0; q < nmembers; q++) rnblk[q] /= 8;
        xchg_phase_end(ctx, phase_names[kind]);
        if (dry && lengths) {
            XCHG_ALLOC(lengths->len, (size_t)(total_recv_blocks + 1) * sizeof(int64_t));
            memcpy(lengths->len, meta_recv, (size_t)total_recv_blocks * sizeof(int64_t));
            lengths->n = total_recv_blocks;
            lengths->recorded = 1;
        }
    }
    int64_t at = 0;
    for (int q = 0; q < nmembers; q++) {
        rbytes[q] = 0;
        for (int64_t i = 0; i < rnblk[q]; i++) rbytes[q] += meta_recv[at++];
    }

    /* Padding for an inner alltoall: one slot size on the whole sub-communicator. */
    int64_t slot = -1;
    if (inner->algo->coll == XCHG_ALLTOALL) {
        slot = 0;
        for (int q = 0; q < nmembers; q++) {
            if (sbytes[q] > slot) slot = sbytes[q];
            if (rbytes[q] > slot) slot = rbytes[q];
        }
        if (!pl->regular)
            XCHG_CHECK(xchg_allreduce(MPI_IN_PLACE, &slot, 1, MPI_INT64_T, MPI_MAX, comm->comm));
        for (int q = 0; q < nmembers; q++) sbytes[q] = rbytes[q] = slot;
    }
    sbuf_bytes = (size_t)layout(nmembers, sbytes, slot, soff) + 1;
    out->data_bytes = (size_t)layout(nmembers, rbytes, slot, roff) + 1;
    if (dry) sbuf_bytes = out->data_bytes = 1; /* lengths only */
    sbuf = xchg_scratch_alloc(ctx, sbuf_bytes);
    out->data = xchg_scratch_alloc(ctx, out->data_bytes);
    if (!sbuf || !out->data) { rc = xchg_error(MPI_ERR_NO_MEM, "out of memory"); goto fail; }

    /* Pack in tile order; build the index of what arrives. */
    int64_t nb = 0;
    at = 0;
    for (int q = 0; q < nmembers; q++) {
        char *dst = sbuf + soff[q];
        ntiles = tiles_between(pl, kind, me, members[q], tl);
        for (int k = 0; k < ntiles; k++)
            for (int s = 0; s < tl[k].ns; s++)
                for (int d = 0; d < tl[k].nd; d++) {
                    const held_block *b = find_block(in, (int64_t)tl[k].src[s] * P + tl[k].dst[d]);
                    if (!dry) memcpy(dst, in->data + b->off, (size_t)b->len);
                    dst += b->len;
                }
        int64_t off = roff[q];
        ntiles = tiles_between(pl, kind, members[q], me, tl);
        for (int k = 0; k < ntiles; k++)
            for (int s = 0; s < tl[k].ns; s++)
                for (int d = 0; d < tl[k].nd; d++) {
                    held_block *b = &out->blocks[nb++];
                    b->key = (int64_t)tl[k].src[s] * P + tl[k].dst[d];
                    b->off = off;
                    b->len = meta_recv[at++];
                    off += b->len;
                }
    }
    holding_free(ctx, in);
    xchg_phase_end(ctx, "repack");
    if (!dry)
        XCHG_CHECK(xchg_run_inner(ctx, comm, inner, sbuf, soff, sbytes, out->data, roff, rbytes));
    xchg_phase_end(ctx, phase_names[kind]);
    qsort(out->blocks, (size_t)out->n, sizeof(held_block), cmp_block);
fail:
    xchg_scratch_free(ctx, sbuf, sbuf_bytes);
    xchg_scratch_free(ctx, meta_send, meta_send_bytes);
    xchg_scratch_free(ctx, meta_recv, meta_recv_bytes);
    free(arr);
    free(tl);
    return rc;
}

/* What a plan of the family holds: roles, the phases, and for each phase the
 * sub-communicator (owned) and its members. */
typedef struct hier_state {
    hier_plan pl;
    int nphases;
    int kind[PH_COUNT];
    xchg_context *sub[PH_COUNT]; /* inner contexts (owned); NULL: not a member */
    int *members[PH_COUNT];      /* global ranks of sub[i] in its rank order */
    int nmembers[PH_COUNT];
    xchg_choice inner;           /* the inner= exchange */
    xchg_choice direct;          /* gather and scatter: the nonblocking exchange,
                                    which posts only the non-empty messages, i.e.
                                    those to or from the leader */
    phase_lengths lengths[PH_COUNT]; /* persistent alltoallv: recorded at init */
} hier_state;

/* Split the sub-communicator of phase `kind` (an inner context) and list its
 * members. */
static int phase_comm(xchg_context *ctx, const hier_plan *pl, int kind, xchg_context **sub,
                      int *members, int *nmembers)
{
    const int me = pl->me;
    int color = MPI_UNDEFINED, key = me, n = 0;
    int participant = pl->unit_of[me] >= 0;
    if (kind == PH_GATHER || kind == PH_SCATTER) {
        int p = pl->leader_of[me];
        color = p;
        for (int x = pl->own_first[p]; x < pl->own_first[p + 1]; x++) members[n++] = pl->own_ranks[x];
    } else if (kind == PH_INTER) {
        if (participant) {
            color = pl->index_of[me], key = pl->unit_of[me];
            for (int v = 0; v < pl->num_units; v++)
                if (unit_size(pl, v) > color) members[n++] = member(pl, v, color);
        }
    } else {
        if (participant) {
            int v = pl->unit_of[me];
            color = v, key = pl->index_of[me];
            for (int i = 0; i < unit_size(pl, v); i++) members[n++] = member(pl, v, i);
        }
    }
    *nmembers = n;
    return xchg_context_inner(ctx, color, key, sub);
}

void xchg_hier_free(xchg_plan *plan)
{
    hier_state *st = plan->state;
    if (!st) return;
    for (int i = 0; i < st->nphases; i++) {
        xchg_context_inner_free(st->sub[i]);
        free(st->members[i]);
        free(st->lengths[i].len);
    }
    free(st->pl.mem);
    free(st);
    plan->state = NULL;
}

static int hier_execute(xchg_context *ctx, const xchg_args *a, hier_state *st, int dry);

int xchg_hier_init(xchg_plan *plan, const xchg_hier_spec *spec)
{
    xchg_context *ctx = plan->ctx;
    const int P = ctx->size;
    int rc = MPI_SUCCESS, *domain_of = NULL;
    hier_state *st = calloc(1, sizeof *st);
    if (!st) return xchg_error(MPI_ERR_NO_MEM, "node-aware engine: out of memory");
    plan->state = st;
    st->inner = xchg_choice_inner(&plan->choice, spec->inner_param);
    st->direct.algo = xchg_registry_find(XCHG_ALLTOALLV, "nonblocking");
    st->direct.coll = XCHG_ALLTOALLV;
    if (!st->direct.algo) {
        rc = xchg_error(MPI_ERR_INTERN, "node-aware engine: no nonblocking alltoallv");
        goto fail;
    }
    if (spec->groups < 0) { /* regions from the machine: asked once, here */
        XCHG_ALLOC(domain_of, (size_t)P * sizeof(int));
        XCHG_CHECK(xchg_hier_hw_domains(ctx, spec->groups, domain_of));
    }
    XCHG_CHECK(xchg_hier_plan_build(ctx, spec, domain_of, &st->pl));
    if (spec->leaders > 0) st->kind[st->nphases++] = PH_GATHER;
    if (st->pl.uneven_units) st->kind[st->nphases++] = PH_SPREAD;
    st->kind[st->nphases++] = PH_INTER;
    if (st->pl.max_unit > 1) st->kind[st->nphases++] = PH_INTRA;
    if (spec->leaders > 0) st->kind[st->nphases++] = PH_SCATTER;
    /* Every rank splits every phase's communicator, in the same order. */
    for (int i = 0; i < st->nphases; i++) {
        XCHG_ALLOC(st->members[i], (size_t)P * sizeof(int));
        XCHG_CHECK(phase_comm(ctx, &st->pl, st->kind[i], &st->sub[i], st->members[i],
                              &st->nmembers[i]));
    }
    /* Persistent alltoallv: the metadata exchanges, once. */
    if (plan->fixed && xchg_coll_is_v(plan->fixed->coll))
        XCHG_CHECK(hier_execute(ctx, plan->fixed, st, 1));
fail:
    free(domain_of);
    if (rc != MPI_SUCCESS) xchg_hier_free(plan);
    return rc;
}

/* All phases of one call; `dry`: only record the phases' block lengths. */
static int hier_execute(xchg_context *ctx, const xchg_args *a, hier_state *st, int dry)
{
    const int P = a->size, me = a->rank;
    int rc;
    holding cur = {0}, next = {0};

    /* Start: our own blocks {me} x All, packed. */
    int64_t total = 0;
    for (int d = 0; d < P; d++) total += a->send.bytes[d];
    XCHG_CHECK(holding_alloc(ctx, &cur, P, dry ? 0 : total));
    total = 0;
    for (int d = 0; d < P; d++) {
        cur.blocks[d] = (held_block){(int64_t)me * P + d, total, a->send.bytes[d]};
        if (!dry) XCHG_CHECK(xchg_pack_block(&a->send, d, cur.data + total));
        total += a->send.bytes[d];
    }
    xchg_phase_end(ctx, "repack");

    for (int i = 0; i < st->nphases; i++) {
        if (!st->sub[i]) continue; /* not a participant of this phase */
        int direct = st->kind[i] == PH_GATHER || st->kind[i] == PH_SCATTER;
        XCHG_CHECK(run_phase(ctx, a, &st->pl, st->kind[i], st->sub[i], st->members[i],
                             st->nmembers[i], direct ? &st->direct : &st->inner,
                             &st->lengths[i], dry, &cur, &next));
        cur = next;
        memset(&next, 0, sizeof next);
    }

    /* End: All x {me}. */
    for (int s = 0; s < P; s++) {
        const held_block *b = find_block(&cur, (int64_t)s * P + me);
        if (!b || b->len != a->recv.bytes[s]) {
            rc = xchg_error(MPI_ERR_TRUNCATE, "rank %d sent %lld bytes but rank %d expects %lld",
                            s, b ? (long long)b->len : -1LL, me, (long long)a->recv.bytes[s]);
            goto fail;
        }
        if (!dry) XCHG_CHECK(xchg_unpack_block(&a->recv, s, cur.data + b->off));
    }
    xchg_phase_end(ctx, "repack");
fail:
    holding_free(ctx, &cur);
    holding_free(ctx, &next);
    return rc;
}

int xchg_hier_run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    return hier_execute(ctx, a, plan->state, 0);
}
