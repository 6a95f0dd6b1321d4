/*
 * locality: the locality-aware (aggregating) persistent neighbourhood
 * alltoallv of
 *   G. Collom, R. P. Li, A. Bienz. Optimizing Irregular Communication with
 *   Neighborhood Collectives and Locality-Aware Parallelism. In Workshops of
 *   SC 2023 (SC-W 2023), ACM, 2023. doi:10.1145/3624062.3624111.
 *   Section 3.2, Algorithms 4-6 (aggregated_init, _start, _wait), with the
 *   duplicate removal of section 3.3 (dedup=1 with the _ext inits).
 *
 * Regions are the nodes of the context's topology (ctx->topo: real nodes, or
 * XCHG_VIRTUAL_NODES / XCHG_VIRTUAL_PLACEMENT, any placement, uneven sizes),
 * or parts of them (parameter `regions`);
 * everything is computed from topology coordinates (node, local rank), never
 * from rank arithmetic. The pattern splits into four parts (Algorithm 4):
 *   l  messages to ranks of the own region (self loops included): direct,
 *      with the user's datatypes, as `standard` sends them;
 *   s  for every other region B this rank sends to, one message holding all
 *      its values for B, to the rank of its own region responsible for B
 *      (the region's "sender" for the pair (A, B));
 *   g  one message per region pair (A, B): from the sender of (A, B), which
 *      holds every value region A sends to B, to the "receiver" of (A, B),
 *      a rank of B;
 *   r  the receiver sends each rank q of B one message with all of q's
 *      values from region A.
 * Who is the sender of (A, B) is decided in A, who is the receiver in B,
 * each region balancing its inter-region pairs over its ranks (parameter
 * `balance`, below); one message per rank along the graph's edges at init
 * tells the senders who the receivers are. Each start (Algorithm 5) posts
 * l, starts and completes s, starts g; the completion (Algorithm 6)
 * completes l and g, then starts and completes r. This implementation runs
 * the whole schedule inside XCHG_Start (no .post: the steps depend on each
 * other, and the request has no hook to advance them from XCHG_Test), so
 * XCHG_Test / XCHG_Wait find it complete and no computation overlaps it; a
 * start synchronizes within regions, not globally. Progress in XCHG_Test
 * would also need the staging buffers per request: they live in the plan,
 * which nonblocking calls of one pattern share (plan.h), and running whole
 * in the start is what keeps that sharing safe.
 *
 * Data crosses in packed bytes: s packs the user's blocks (MPI_Pack, or
 * memcpy for contiguous types; displacements in extents), g and r forward
 * bytes, and the final unpack writes each receive block with the user's
 * receive type. A block of zero bytes is not sent; repeated neighbours are
 * matched by occurrence (the k-th block for rank d meets the k-th block
 * from us among d's sources, MPI's rule for a multigraph).
 *
 * dedup=1 (section 3.3): with global indices (XCHG_Neighbor_alltoallv_
 * init_ext), the values a rank sends to one region B are reduced to one per
 * distinct index before s, so a value that several ranks of B need goes
 * once through s and g, and r copies it to each of them. Without indices
 * (the plain inits, the blocking and nonblocking calls) dedup=1 is
 * dedup=0, not an error: one selection
 * string serves calls with and without indices. Values with one index must
 * be equal on the sending rank (the _ext contract); values of different
 * source ranks are never merged.
 *
 * Cost per start, for a rank in region A of n_A ranks, with R_A the regions
 * A sends to and m(A, B) the bytes A sends to B (after dedup):
 *   l: its own intra-region blocks, as standard;
 *   s: one message per region it sends to (to the sender of that pair,
 *      possibly itself), carrying its bytes for that region;
 *   g: the ranks of A share the R_A inter-region messages, one per pair,
 *      each m(A, B) bytes: about R_A / n_A messages per rank (balance=count)
 *      or about sum m(A, .) / n_A bytes per rank (balance=bytes);
 *   r: a receiver sends one message per rank of its region that needs
 *      data of the source region, at most n_B - 1 messages per pair.
 * So the inter-region messages fall from one per (rank, rank) edge to one
 * per region pair, for up to three intra-region hops more. Latency:
 * alpha_inter + 2 alpha_intra + the bandwidth terms above. The cost
 * model of automatic selection (.cost, model.c) is this, on the pattern's
 * agreed maxima with equal pairs assumed: s and r a rank's other regions
 * or an aggregator's pairs times the ranks per pair, g ceil(R/n) messages,
 * packing and the r copies counted; dedup costed as 0.
 *
 * Init: two small collectives on the region (an MPI_Comm_split, freed at
 * the end of init, and a sum of 4 R int64 per rank, R regions), one int per
 * inter-region edge, one alltoallv of metadata in the region and one
 * metadata message per region pair (received with MPI_ANY_SOURCE on its
 * own tag: the closing agreement keeps a later init's metadata out), then
 * an MPI_Allreduce that agrees on success. The blocking and nonblocking
 * calls pay it once per pattern (plan.h: cached plans keyed by the pattern,
 * one MPI_Allreduce of 3 int64 per call).
 *
 * Memory held by the plan: the packed bytes this rank sends out of its
 * region (s buffer), the pairs it aggregates (g send buffer) and receives
 * (g receive buffer), the r send buffers of the pairs it receives and the r
 * receive buffer of its own inter-region bytes, plus the lists of messages,
 * pack runs and copy runs (O(blocks + runs)).
 *
 * Parameters:
 *   balance=count|bytes  how a region spreads its inter-region pairs over
 *       its ranks (largest first, each to the least loaded rank): count
 *       gives every rank the same number of g messages (the paper's choice
 *       for small messages, where latency dominates: the case three-step
 *       aggregation is made for, so the default); bytes balances the bytes
 *       of g (better for large messages). The receiving region balances
 *       with the same rule on the bytes it receives (before dedup).
 *   dedup=0|1  duplicate removal with global indices (above), default 0.
 *   regions=1|K|numa|socket  what a region is: the node (default), K
 *       groups of consecutive local ranks per node (min(K, node size)), or
 *       the machine's NUMA domains or sockets inside each node (as the
 *       node-aware family's groups=, nodeaware/regions.c). Smaller regions
 *       trade fewer ranks per aggregation step for more inter-region pairs.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/context.h"
#include "../../core/error.h"
#include "../../core/plan.h"
#include "../../core/topology.h"
#include "../nodeaware/engine.h"
#include "model.h"

static const char *const balance_names[] = {"count", "bytes", NULL};

#define TAG_L 41
#define TAG_S 42
#define TAG_G 43
#define TAG_R 44
#define TAG_EDGE 45
#define TAG_GMETA 46

typedef struct lmsg {
    int peer;
    int64_t off, len; /* bytes in the step's buffer */
} lmsg;

typedef struct packrun { /* elements [elem, elem + n) of send block `block` -> s_buf + dst */
    int block;
    int64_t elem, n, dst;
} packrun;

typedef struct copyrun {
    int64_t src, dst, len;
} copyrun;

typedef struct unpackrun {
    int block;
    int64_t off;
} unpackrun;

typedef struct loc_state {
    int nl_recv, nl_send;
    int *l_index;                    /* [nl_recv] source indices, then [nl_send] destinations */
    int ns_recv, ns_send, ng_recv, ng_send, nr_recv, nr_send;
    lmsg *s_recv, *s_send, *g_recv, *g_send, *r_recv, *r_send;
    int npack, ncopy, nunpack;
    packrun *pack;
    copyrun *copy;
    unpackrun *unpack;
    char *s_buf, *g_sbuf, *g_rbuf, *r_sbuf, *r_rbuf;
} loc_state;

/* ---- growable arrays ---------------------------------------------------- */

typedef struct vec {
    void *v;
    size_t n, cap, elem;
} vec;

static void *vec_push(vec *x)
{
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        void *nv = realloc(x->v, cap * x->elem);
        if (!nv) return NULL;
        x->v = nv;
        x->cap = cap;
    }
    return (char *)x->v + x->elem * x->n++;
}

#define VEC(type) {NULL, 0, 0, sizeof(type)}
#define PUSH(vecp, type, val)                                                         \
    do {                                                                              \
        type *slot_ = vec_push(vecp);                                                 \
        if (!slot_) {                                                                 \
            rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");              \
            goto fail;                                                                \
        }                                                                             \
        *slot_ = (val);                                                               \
    } while (0)

/* ---- small sorts ------------------------------------------------------- */

typedef struct key3 {
    int64_t a, b, c;
    int64_t payload;
} key3;

static int key3_cmp(const void *x, const void *y)
{
    const key3 *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->c != q->c) return p->c < q->c ? -1 : 1;
    return 0;
}

/* occ[i]: how many times list[i] occurs in list[0..i). */
static int occurrences(int n, const int *list, int *occ)
{
    int rc = MPI_SUCCESS;
    key3 *k = NULL;
    XCHG_ALLOC(k, ((size_t)n + 1) * sizeof *k);
    for (int i = 0; i < n; i++) k[i] = (key3){list[i], i, 0, i};
    qsort(k, (size_t)n, sizeof *k, key3_cmp);
    for (int i = 0; i < n; i++)
        occ[k[i].payload] = (i > 0 && k[i - 1].a == k[i].a) ? occ[k[i - 1].payload] + 1 : 0;
fail:
    free(k);
    return rc;
}

/* Give each region r with bytes[r] > 0 to one of n ranks: largest first,
 * each to the least loaded (weight 1 or its bytes). owner[r] = -1 else. */
static int assign(int R, const int64_t *bytes, int n, int by_bytes, int *owner)
{
    int rc = MPI_SUCCESS, m = 0;
    key3 *k = NULL;
    int64_t *load = NULL;
    XCHG_ALLOC(k, ((size_t)R + 1) * sizeof *k);
    XCHG_ALLOC(load, ((size_t)n + 1) * sizeof *load);
    for (int i = 0; i < n; i++) load[i] = 0;
    for (int r = 0; r < R; r++) {
        owner[r] = -1;
        if (bytes[r] > 0) k[m++] = (key3){-bytes[r], r, 0, r};
    }
    qsort(k, (size_t)m, sizeof *k, key3_cmp);
    for (int i = 0; i < m; i++) {
        int best = 0;
        for (int j = 1; j < n; j++)
            if (load[j] < load[best]) best = j;
        owner[k[i].payload] = best;
        load[best] += by_bytes ? bytes[k[i].payload] : 1;
    }
fail:
    free(k);
    free(load);
    return rc;
}

/* ---- init --------------------------------------------------------------- */

/* Offsets of each block's indices in an xchg_args gindex array. */
static int64_t *index_starts(int n, const int *counts)
{
    int64_t *s = malloc(((size_t)n + 1) * sizeof *s);
    if (!s) return NULL;
    s[0] = 0;
    for (int i = 0; i < n; i++) s[i + 1] = s[i] + counts[i];
    return s;
}

/* One outgoing region: its segment of the s buffer and its metadata. */
typedef struct group {
    int region;
    int64_t seg_bytes, nblocks;
    size_t meta_first, meta_end; /* in the block metadata: {q, j, nruns, {off, len}...} */
    size_t pack_first, pack_end; /* its pack runs */
} group;

typedef struct gmeta_in { /* a g metadata message received by a receiver */
    int region, from;
    int64_t *buf;
    int len;
} gmeta_in;

static int gmeta_cmp(const void *x, const void *y)
{
    const gmeta_in *p = x, *q = y;
    return (p->region > q->region) - (p->region < q->region);
}

static void state_free(loc_state *st)
{
    if (!st) return;
    free(st->l_index);
    free(st->s_recv), free(st->s_send), free(st->g_recv), free(st->g_send);
    free(st->r_recv), free(st->r_send);
    free(st->pack), free(st->copy), free(st->unpack);
    free(st->s_buf), free(st->g_sbuf), free(st->g_rbuf), free(st->r_sbuf), free(st->r_rbuf);
    free(st);
}

/* The plan for regions t (the context's nodes, or parts of them). */
static int build(xchg_plan *plan, const xchg_topology *t)
{
    int rc = MPI_SUCCESS, agreed;
    const xchg_args *a = plan->fixed;
    xchg_context *ctx = plan->ctx, *inner = NULL;
    const int me = a->rank, R = t->num_nodes, A = t->node_of_rank[me];
    const int nA = t->node_size[A], mylocal = t->local_rank_of[me];
    const int by_bytes = plan->choice.value[LOCALITY_BALANCE] == LOCALITY_BALANCE_BYTES;
    const int dedup = plan->choice.value[LOCALITY_DEDUP] && a->send_gindex;
    const int64_t esz = a->send.type.size;
    const int in = a->indegree, out = a->outdegree;

    loc_state *st = NULL;
    int *socc = NULL, *rocc = NULL, *sender_local = NULL, *receiver_local = NULL, *y_of = NULL;
    int *edge_vals = NULL, *scounts = NULL, *rcounts = NULL, *sdisp = NULL, *rdisp = NULL;
    int64_t *w = NULL, *sstart = NULL, *pos = NULL, *mbuf = NULL, *mrecv = NULL;
    key3 *keys = NULL;
    MPI_Request *ereqs = NULL, *greqs = NULL;
    gmeta_in *gin = NULL;
    vec groups = VEC(group), blockmeta = VEC(int64_t), pack = VEC(packrun);
    vec *tolocal = NULL; /* per local rank: s metadata */
    vec s_recv = VEC(lmsg), s_send = VEC(lmsg), g_recv = VEC(lmsg), g_send = VEC(lmsg);
    vec r_recv = VEC(lmsg), r_send = VEC(lmsg), copy = VEC(copyrun), unpack = VEC(unpackrun);
    vec gmeta_out = VEC(int64_t), gmeta_ends = VEC(size_t), gmeta_peer = VEC(int);
    int nexp = 0, ngin = 0, nedge = 0, ngreq = 0;

    XCHG_ALLOC(st, sizeof *st);
    memset(st, 0, sizeof *st);
    XCHG_ALLOC(socc, ((size_t)out + 1) * sizeof(int));
    XCHG_ALLOC(rocc, ((size_t)in + 1) * sizeof(int));
    XCHG_CHECK(occurrences(out, a->destinations, socc));
    XCHG_CHECK(occurrences(in, a->sources, rocc));

    /* l: the own region's non-empty blocks. */
    XCHG_ALLOC(st->l_index, ((size_t)in + (size_t)out + 1) * sizeof(int));
    for (int i = 0; i < in; i++)
        if (a->recv.bytes[i] > 0 && t->node_of_rank[a->sources[i]] == A)
            st->l_index[st->nl_recv++] = i;
    for (int i = 0; i < out; i++)
        if (a->send.bytes[i] > 0 && t->node_of_rank[a->destinations[i]] == A)
            st->l_index[st->nl_recv + st->nl_send++] = i;

    /* Step 0 (local): the outgoing inter-region blocks by (region, index);
     * per region its segment (distinct values with dedup), the pack runs
     * that fill it, and per block the byte runs of its values in it. */
    if (dedup && !(sstart = index_starts(out, a->send.counts))) {
        rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
        goto fail;
    }
    XCHG_ALLOC(keys, ((size_t)out + 1) * sizeof *keys);
    int nk = 0;
    for (int i = 0; i < out; i++) {
        int d = a->destinations[i];
        if (a->send.bytes[i] > 0 && t->node_of_rank[d] != A)
            keys[nk++] = (key3){t->node_of_rank[d], i, 0, i};
    }
    qsort(keys, (size_t)nk, sizeof *keys, key3_cmp);
    for (int k0 = 0; k0 < nk;) {
        int k1 = k0;
        while (k1 < nk && keys[k1].a == keys[k0].a) k1++;
        group g = {.region = (int)keys[k0].a, .nblocks = k1 - k0, .meta_first = blockmeta.n,
                   .pack_first = pack.n};
        int64_t seg_first_pack = (int64_t)pack.n;
        if (!dedup) {
            int64_t off = 0;
            for (int k = k0; k < k1; k++) {
                int i = (int)keys[k].payload;
                PUSH(&pack, packrun, ((packrun){i, 0, a->send.counts[i], off}));
                PUSH(&blockmeta, int64_t, a->destinations[i]);
                PUSH(&blockmeta, int64_t, socc[i]);
                PUSH(&blockmeta, int64_t, 1);
                PUSH(&blockmeta, int64_t, off);
                PUSH(&blockmeta, int64_t, a->send.bytes[i]);
                off += a->send.bytes[i];
            }
            g.seg_bytes = off;
        } else {
            /* Every value to the region, in block order (ord); its first
             * occurrence per index gets the next position in the segment. */
            int64_t nval = 0;
            for (int k = k0; k < k1; k++) nval += a->send.counts[keys[k].payload];
            key3 *v = malloc(((size_t)nval + 1) * sizeof *v);
            int64_t *first = malloc(((size_t)nval + 1) * sizeof *first);
            if (!v || !first) {
                free(v), free(first);
                rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
                goto fail;
            }
            int64_t ord = 0;
            for (int k = k0; k < k1; k++) {
                int i = (int)keys[k].payload;
                for (int e = 0; e < a->send.counts[i]; e++, ord++)
                    v[ord] = (key3){a->send_gindex[sstart[i] + e], ord, 0, ord};
            }
            qsort(v, (size_t)nval, sizeof *v, key3_cmp);
            for (int64_t x = 0; x < nval; x++) /* representative: the group's first ord */
                first[v[x].payload] = (x > 0 && v[x - 1].a == v[x].a) ? first[v[x - 1].payload]
                                                                       : v[x].payload;
            free(v);
            free(pos);
            pos = malloc(((size_t)nval + 1) * sizeof *pos);
            if (!pos) {
                free(first);
                rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
                goto fail;
            }
            int64_t nuniq = 0;
            ord = 0;
            for (int k = k0; k < k1; k++) {
                int i = (int)keys[k].payload;
                int64_t nb_runs_at = -1;
                for (int e = 0; e < a->send.counts[i]; e++, ord++) {
                    if (first[ord] == ord) { /* a new value: pack it */
                        pos[ord] = nuniq++;
                        packrun *last = pack.n > (size_t)seg_first_pack
                                            ? (packrun *)pack.v + pack.n - 1 : NULL;
                        if (last && last->block == i && last->elem + last->n == e &&
                            last->dst + last->n * esz == pos[ord] * esz)
                            last->n++;
                        else
                            PUSH(&pack, packrun, ((packrun){i, e, 1, pos[ord] * esz}));
                    } else {
                        pos[ord] = pos[first[ord]];
                    }
                }
                /* the block's byte runs */
                PUSH(&blockmeta, int64_t, a->destinations[i]);
                PUSH(&blockmeta, int64_t, socc[i]);
                PUSH(&blockmeta, int64_t, 0);
                nb_runs_at = (int64_t)blockmeta.n - 1;
                int64_t o0 = ord - a->send.counts[i];
                for (int64_t x = o0; x < ord; x++) {
                    int64_t *bm = blockmeta.v;
                    if (x > o0 && bm[blockmeta.n - 2] + bm[blockmeta.n - 1] == pos[x] * esz) {
                        bm[blockmeta.n - 1] += esz;
                    } else {
                        PUSH(&blockmeta, int64_t, pos[x] * esz);
                        PUSH(&blockmeta, int64_t, esz);
                        ((int64_t *)blockmeta.v)[nb_runs_at]++;
                    }
                }
            }
            free(first);
            g.seg_bytes = nuniq * esz;
        }
        g.meta_end = blockmeta.n;
        g.pack_end = pack.n;
        PUSH(&groups, group, g);
        k0 = k1;
    }
    free(keys);
    keys = NULL;

    /* Step 1: the region's sums; who sends and who receives each pair. */
    XCHG_ALLOC(w, (4 * (size_t)R + 1) * sizeof *w);
    memset(w, 0, (4 * (size_t)R + 1) * sizeof *w);
    for (size_t k = 0; k < groups.n; k++) {
        const group *g = (const group *)groups.v + k;
        w[g->region] += g->nblocks;
        w[R + g->region] += g->seg_bytes;
    }
    for (int i = 0; i < in; i++) {
        int r = t->node_of_rank[a->sources[i]];
        if (a->recv.bytes[i] > 0 && r != A) {
            w[2 * R + r]++;
            w[3 * R + r] += a->recv.bytes[i];
        }
    }
    XCHG_CHECK(xchg_context_inner(ctx, A, mylocal, &inner));
    XCHG_CHECK(xchg_allreduce(MPI_IN_PLACE, w, 4 * R, MPI_INT64_T, MPI_SUM, inner->comm));
    XCHG_ALLOC(sender_local, ((size_t)R + 1) * sizeof(int));
    XCHG_ALLOC(receiver_local, ((size_t)R + 1) * sizeof(int));
    XCHG_ALLOC(y_of, ((size_t)R + 1) * sizeof(int));
    XCHG_CHECK(assign(R, w + R, nA, by_bytes, sender_local));
    XCHG_CHECK(assign(R, w + 3 * R, nA, by_bytes, receiver_local));

    /* Step 2: along the inter-region edges, receivers to senders' regions. */
    XCHG_ALLOC(edge_vals, ((size_t)in + (size_t)out + 1) * sizeof(int));
    XCHG_ALLOC(ereqs, ((size_t)in + (size_t)out + 1) * sizeof(MPI_Request));
    for (int i = 0; i < out; i++) {
        int d = a->destinations[i];
        if (a->send.bytes[i] > 0 && t->node_of_rank[d] != A)
            XCHG_CHECK(MPI_Irecv(&edge_vals[in + i], 1, MPI_INT, d, TAG_EDGE, a->comm,
                                 &ereqs[nedge++]));
    }
    for (int i = 0; i < in; i++) {
        int s = a->sources[i], r = t->node_of_rank[s];
        if (a->recv.bytes[i] > 0 && r != A) {
            edge_vals[i] = xchg_rank_on_node(t, A, receiver_local[r]);
            XCHG_CHECK(MPI_Isend(&edge_vals[i], 1, MPI_INT, s, TAG_EDGE, a->comm,
                                 &ereqs[nedge++]));
        }
    }
    XCHG_CHECK(xchg_waitall(nedge, ereqs, MPI_STATUSES_IGNORE));
    nedge = 0;
    for (int r = 0; r < R; r++) y_of[r] = -1;
    for (int i = 0; i < out; i++) {
        int d = a->destinations[i];
        if (a->send.bytes[i] > 0 && t->node_of_rank[d] != A)
            y_of[t->node_of_rank[d]] = edge_vals[in + i];
    }

    /* Step 3: s metadata to the senders of the own region, and the s sends:
     * per region (ascending) {region, receiver, bytes, nblocks, blocks}. */
    XCHG_ALLOC(tolocal, (size_t)nA * sizeof *tolocal);
    for (int l = 0; l < nA; l++) tolocal[l] = (vec)VEC(int64_t);
    {
        int64_t off = 0;
        for (size_t k = 0; k < groups.n; k++) {
            const group *g = (const group *)groups.v + k;
            vec *m = &tolocal[sender_local[g->region]];
            PUSH(m, int64_t, g->region);
            PUSH(m, int64_t, y_of[g->region]);
            PUSH(m, int64_t, g->seg_bytes);
            PUSH(m, int64_t, g->nblocks);
            for (size_t x = g->meta_first; x < g->meta_end; x++)
                PUSH(m, int64_t, ((int64_t *)blockmeta.v)[x]);
            if (g->seg_bytes > 0)
                PUSH(&s_send, lmsg, ((lmsg){xchg_rank_on_node(t, A, sender_local[g->region]),
                                            off, g->seg_bytes}));
            off += g->seg_bytes;
        }
        /* the pack runs' offsets, relative to their segment, made absolute */
        int64_t base = 0;
        for (size_t k = 0; k < groups.n; k++) {
            const group *g = (const group *)groups.v + k;
            for (size_t p = g->pack_first; p < g->pack_end; p++) ((packrun *)pack.v)[p].dst += base;
            base += g->seg_bytes;
        }
        XCHG_ALLOC(st->s_buf, (size_t)off + 1);
    }
    XCHG_ALLOC(scounts, 4 * ((size_t)nA + 1) * sizeof(int));
    rcounts = scounts + nA + 1;
    sdisp = rcounts + nA + 1;
    rdisp = sdisp + nA + 1;
    {
        size_t total = 0;
        for (int l = 0; l < nA; l++) total += tolocal[l].n;
        XCHG_ALLOC(mbuf, (total + 1) * sizeof(int64_t));
        total = 0;
        for (int l = 0; l < nA; l++) {
            scounts[l] = (int)tolocal[l].n;
            sdisp[l] = (int)total;
            if (tolocal[l].n) memcpy(mbuf + total, tolocal[l].v, tolocal[l].n * sizeof(int64_t));
            total += tolocal[l].n;
        }
    }
    XCHG_CHECK(xchg_alltoall(scounts, 1, MPI_INT, rcounts, 1, MPI_INT, inner->comm));
    {
        size_t total = 0;
        for (int l = 0; l < nA; l++) {
            rdisp[l] = (int)total;
            total += (size_t)rcounts[l];
        }
        XCHG_ALLOC(mrecv, (total + 1) * sizeof(int64_t));
    }
    XCHG_CHECK(MPI_Alltoallv(mbuf, scounts, sdisp, MPI_INT64_T, mrecv, rcounts, rdisp,
                             MPI_INT64_T, inner->comm));

    /* Step 4 (the senders): per region B (ascending) the g send buffer is
     * the segments of the region's ranks by local rank; the s receives land
     * in it; the metadata for B's receiver lists every block with its rank
     * of origin and absolute byte runs. */
    {
        int64_t *cursor = NULL;
        XCHG_ALLOC(cursor, ((size_t)nA + 1) * sizeof *cursor);
        for (int l = 0; l < nA; l++) cursor[l] = rdisp[l];
        int64_t goff = 0;
        for (int B = 0; B < R; B++) {
            if (sender_local[B] != mylocal) continue;
            size_t head = gmeta_out.n;
            int64_t total = 0, nblocks = 0, y = -1;
            PUSH(&gmeta_out, int64_t, A);
            PUSH(&gmeta_out, int64_t, 0); /* total, below */
            PUSH(&gmeta_out, int64_t, 0); /* nblocks, below */
            for (int l = 0; l < nA; l++) {
                int64_t c = cursor[l], end = rdisp[l] + rcounts[l];
                if (c >= end || mrecv[c] != B) continue;
                int64_t seg = mrecv[c + 2], nb = mrecv[c + 3];
                y = mrecv[c + 1];
                c += 4;
                for (int64_t b = 0; b < nb; b++) {
                    int64_t q = mrecv[c], j = mrecv[c + 1], nr = mrecv[c + 2];
                    c += 3;
                    PUSH(&gmeta_out, int64_t, q);
                    PUSH(&gmeta_out, int64_t, xchg_rank_on_node(t, A, l));
                    PUSH(&gmeta_out, int64_t, j);
                    PUSH(&gmeta_out, int64_t, nr);
                    for (int64_t x = 0; x < nr; x++, c += 2) {
                        PUSH(&gmeta_out, int64_t, total + mrecv[c]); /* in the g message */
                        PUSH(&gmeta_out, int64_t, mrecv[c + 1]);
                    }
                    nblocks++;
                }
                if (seg > 0)
                    PUSH(&s_recv, lmsg, ((lmsg){xchg_rank_on_node(t, A, l), goff + total, seg}));
                total += seg;
                cursor[l] = c;
            }
            ((int64_t *)gmeta_out.v)[head + 1] = total;
            ((int64_t *)gmeta_out.v)[head + 2] = nblocks;
            if (y < 0) {
                free(cursor);
                rc = xchg_error(MPI_ERR_INTERN, "locality: no receiver known for region %d", B);
                goto fail;
            }
            PUSH(&g_send, lmsg, ((lmsg){(int)y, goff, total}));
            PUSH(&gmeta_ends, size_t, gmeta_out.n);
            PUSH(&gmeta_peer, int, (int)y);
            goff += total;
        }
        free(cursor);
        XCHG_ALLOC(st->g_sbuf, (size_t)goff + 1);
    }
    XCHG_ALLOC(greqs, (gmeta_peer.n + 1) * sizeof(MPI_Request));
    for (size_t k = 0; k < gmeta_peer.n; k++) {
        size_t from = k ? ((size_t *)gmeta_ends.v)[k - 1] : 0, to = ((size_t *)gmeta_ends.v)[k];
        XCHG_CHECK(MPI_Isend((int64_t *)gmeta_out.v + from, (int)(to - from), MPI_INT64_T,
                             ((int *)gmeta_peer.v)[k], TAG_GMETA, a->comm, &greqs[ngreq++]));
    }

    /* Step 5 (the receivers): one metadata message per source region. */
    for (int r = 0; r < R; r++) nexp += receiver_local[r] == mylocal;
    XCHG_ALLOC(gin, ((size_t)nexp + 1) * sizeof *gin);
    for (; ngin < nexp; ngin++) {
        MPI_Status status;
        int count;
        XCHG_CHECK(xchg_probe(MPI_ANY_SOURCE, TAG_GMETA, a->comm, &status));
        XCHG_CHECK(MPI_Get_count(&status, MPI_INT64_T, &count));
        gin[ngin].from = status.MPI_SOURCE;
        gin[ngin].len = count;
        gin[ngin].buf = malloc(((size_t)count + 1) * sizeof(int64_t));
        if (!gin[ngin].buf) {
            rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
            goto fail;
        }
        XCHG_CHECK(xchg_recv(gin[ngin].buf, count, MPI_INT64_T, status.MPI_SOURCE, TAG_GMETA,
                            a->comm, MPI_STATUS_IGNORE));
        gin[ngin].region = (int)gin[ngin].buf[0];
    }
    XCHG_CHECK(xchg_waitall(ngreq, greqs, MPI_STATUSES_IGNORE));
    ngreq = 0;
    qsort(gin, (size_t)ngin, sizeof *gin, gmeta_cmp);
    {
        int64_t groff = 0, rsoff = 0;
        for (int k = 0; k < ngin; k++) {
            const int64_t *m = gin[k].buf;
            int64_t total = m[1], nb = m[2];
            PUSH(&g_recv, lmsg, ((lmsg){gin[k].from, groff, total}));
            /* blocks by (q, p, j) */
            keys = malloc(((size_t)nb + 1) * sizeof *keys);
            if (!keys) {
                rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
                goto fail;
            }
            int64_t c = 3;
            for (int64_t b = 0; b < nb; b++) {
                keys[b] = (key3){m[c], m[c + 1], m[c + 2], c};
                c += 4 + 2 * m[c + 3];
            }
            qsort(keys, (size_t)nb, sizeof *keys, key3_cmp);
            for (int64_t b0 = 0; b0 < nb;) {
                int64_t b1 = b0, start = rsoff;
                while (b1 < nb && keys[b1].a == keys[b0].a) {
                    int64_t x = keys[b1].payload, nr = m[x + 3];
                    for (int64_t y = 0; y < nr; y++) {
                        int64_t src = groff + m[x + 4 + 2 * y], len = m[x + 5 + 2 * y];
                        copyrun *last = copy.n ? (copyrun *)copy.v + copy.n - 1 : NULL;
                        if (last && last->src + last->len == src && last->dst + last->len == rsoff)
                            last->len += len;
                        else
                            PUSH(&copy, copyrun, ((copyrun){src, rsoff, len}));
                        rsoff += len;
                    }
                    b1++;
                }
                if (rsoff > start)
                    PUSH(&r_send, lmsg, ((lmsg){(int)keys[b0].a, start, rsoff - start}));
                b0 = b1;
            }
            free(keys);
            keys = NULL;
            groff += total;
        }
        XCHG_ALLOC(st->g_rbuf, (size_t)groff + 1);
        XCHG_ALLOC(st->r_sbuf, (size_t)rsoff + 1);
    }

    /* Step 6: the r receives, per source region (ascending), the blocks by
     * (source, occurrence), from that region's receiver in ours. */
    XCHG_ALLOC(keys, ((size_t)in + 1) * sizeof *keys);
    nk = 0;
    for (int i = 0; i < in; i++) {
        int s = a->sources[i];
        if (a->recv.bytes[i] > 0 && t->node_of_rank[s] != A)
            keys[nk++] = (key3){t->node_of_rank[s], s, rocc[i], i};
    }
    qsort(keys, (size_t)nk, sizeof *keys, key3_cmp);
    {
        int64_t off = 0;
        for (int k0 = 0; k0 < nk;) {
            int k1 = k0;
            int64_t start = off;
            while (k1 < nk && keys[k1].a == keys[k0].a) {
                int i = (int)keys[k1].payload;
                PUSH(&unpack, unpackrun, ((unpackrun){i, off}));
                off += a->recv.bytes[i];
                k1++;
            }
            PUSH(&r_recv, lmsg, ((lmsg){xchg_rank_on_node(t, A, receiver_local[keys[k0].a]),
                                        start, off - start}));
            k0 = k1;
        }
        XCHG_ALLOC(st->r_rbuf, (size_t)off + 1);
    }

    /* Messages and pack runs are MPI counts (int). */
    {
        const vec *lists[] = {&s_recv, &s_send, &g_recv, &g_send, &r_recv, &r_send};
        for (int l = 0; l < 6; l++)
            for (size_t k = 0; k < lists[l]->n; k++)
                if (((const lmsg *)lists[l]->v)[k].len > INT_MAX) {
                    rc = xchg_error(MPI_ERR_COUNT, "locality: an aggregated message of %lld "
                                    "bytes is too large for an MPI count",
                                    (long long)((const lmsg *)lists[l]->v)[k].len);
                    goto fail;
                }
    }

#define TAKE(name, type, field, count)                                                \
    do {                                                                              \
        st->field = name.v;                                                           \
        st->count = (int)name.n;                                                      \
        name.v = NULL;                                                                \
    } while (0)
    TAKE(s_recv, lmsg, s_recv, ns_recv);
    TAKE(s_send, lmsg, s_send, ns_send);
    TAKE(g_recv, lmsg, g_recv, ng_recv);
    TAKE(g_send, lmsg, g_send, ng_send);
    TAKE(r_recv, lmsg, r_recv, nr_recv);
    TAKE(r_send, lmsg, r_send, nr_send);
    TAKE(pack, packrun, pack, npack);
    TAKE(copy, copyrun, copy, ncopy);
    TAKE(unpack, unpackrun, unpack, nunpack);
#undef TAKE

    /* XCHG_Neighbor_stats_get */
    plan->has_stats = 1;
    for (int k = 0; k < st->nl_send; k++) {
        int i = st->l_index[st->nl_recv + k];
        if (a->destinations[i] == me) continue;
        plan->stats_intra_messages++;
        plan->stats_intra_bytes += a->send.bytes[i];
    }
    for (int k = 0; k < st->ns_send; k++)
        if (st->s_send[k].peer != me) {
            plan->stats_intra_messages++;
            plan->stats_intra_bytes += st->s_send[k].len;
        }
    for (int k = 0; k < st->nr_send; k++)
        if (st->r_send[k].peer != me) {
            plan->stats_intra_messages++;
            plan->stats_intra_bytes += st->r_send[k].len;
        }
    for (int k = 0; k < st->ng_send; k++) {
        plan->stats_inter_messages++;
        plan->stats_inter_bytes += st->g_send[k].len;
    }

fail:
    if (nedge > 0) xchg_waitall(nedge, ereqs, MPI_STATUSES_IGNORE);
    if (ngreq > 0) xchg_waitall(ngreq, greqs, MPI_STATUSES_IGNORE);
    /* Every rank agrees on success before anyone uses the plan (and before
     * a later init's metadata can meet this one's wildcard receives). */
    agreed = rc;
    {
        int local = rc != MPI_SUCCESS, any = 0;
        if (xchg_allreduce(&local, &any, 1, MPI_INT, MPI_MAX, ctx->comm) != MPI_SUCCESS) any = 1;
        if (any && agreed == MPI_SUCCESS)
            agreed = xchg_error(MPI_ERR_OTHER, "locality: init failed on another rank");
    }
    if (inner) xchg_context_inner_free(inner);
    for (int k = 0; k < ngin; k++) free(gin[k].buf);
    free(gin);
    if (tolocal)
        for (int l = 0; l < nA; l++) free(tolocal[l].v);
    free(tolocal);
    free(socc), free(rocc), free(sender_local), free(receiver_local), free(y_of);
    free(edge_vals), free(scounts), free(w), free(sstart), free(pos), free(mbuf), free(mrecv);
    free(keys), free(ereqs), free(greqs);
    free(groups.v), free(blockmeta.v), free(pack.v), free(s_recv.v), free(s_send.v);
    free(g_recv.v), free(g_send.v), free(r_recv.v), free(r_send.v), free(copy.v);
    free(unpack.v), free(gmeta_out.v), free(gmeta_ends.v), free(gmeta_peer.v);
    if (agreed != MPI_SUCCESS) {
        state_free(st);
        plan->has_stats = 0;
        return agreed;
    }
    plan->state = st;
    return MPI_SUCCESS;
}

static void destroy(xchg_plan *plan)
{
    state_free(plan->state);
    plan->state = NULL;
}

/* ---- run ---------------------------------------------------------------- */

static int pack_run(const xchg_side *s, const packrun *pr, char *dst)
{
    if (pr->elem == 0 && pr->n == s->counts[pr->block]) return xchg_pack_block(s, pr->block, dst);
    const char *src = xchg_side_block_ptr(s, pr->block) + pr->elem * s->type.extent;
    int64_t bytes = pr->n * s->type.size;
    if (s->type.contiguous) {
        memcpy(dst, src, (size_t)bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    return MPI_Pack(src, (int)pr->n, s->type.type, dst, (int)bytes, &position, MPI_COMM_SELF);
}

static int post_bytes(int n, const lmsg *m, char *buf, int recv, int tag, MPI_Comm comm,
                      MPI_Request *reqs)
{
    for (int k = 0; k < n; k++) {
        int rc = recv ? MPI_Irecv(buf + m[k].off, (int)m[k].len, MPI_BYTE, m[k].peer, tag, comm,
                                  &reqs[k])
                      : MPI_Isend(buf + m[k].off, (int)m[k].len, MPI_BYTE, m[k].peer, tag, comm,
                                  &reqs[k]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Regions: the nodes (regions=1), K groups of consecutive local ranks per
 * node, or the machine's NUMA domains / sockets inside each node (asked as
 * the node-aware family asks, nodeaware/regions.c). */
static int init(xchg_plan *plan)
{
    const xchg_args *a = plan->fixed;
    xchg_context *ctx = plan->ctx;
    const xchg_topology *nodes = &ctx->topo;
    const int64_t regions = plan->choice.value[LOCALITY_REGIONS];
    if (!a || a->coll != XCHG_NEIGHBOR_ALLTOALLV)
        return xchg_error(MPI_ERR_INTERN, "locality: a neighbourhood plan needs its arguments");
    if (regions == 1) return build(plan, nodes);
    int rc, *key = NULL;
    xchg_topology cut = {0};
    XCHG_ALLOC(key, (size_t)ctx->size * sizeof(int));
    if (regions < 0) {
        XCHG_CHECK(xchg_hier_hw_domains(ctx, (int)regions, key));
    } else {
        for (int r = 0; r < ctx->size; r++) {
            int64_t q = nodes->node_size[nodes->node_of_rank[r]];
            int64_t g = regions < q ? regions : q;
            key[r] = (int)((int64_t)nodes->local_rank_of[r] * g / q);
        }
    }
    XCHG_CHECK(xchg_topology_regions(nodes, key, &cut));
    rc = build(plan, &cut);
fail:
    xchg_topology_free(&cut);
    free(key);
    return rc;
}

static int run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    const loc_state *st = plan->state;
    int rc = MPI_SUCCESS;
    const int ns = st->ns_recv + st->ns_send, ng = st->ng_recv + st->ng_send,
              nr = st->nr_recv + st->nr_send, nl = st->nl_recv + st->nl_send;
    const int n = ns + ng + nr + nl;
    size_t nbytes = ((size_t)n + 1) * sizeof(MPI_Request);
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nbytes);
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "locality: out of memory for %zu bytes", nbytes);
    for (int k = 0; k < n; k++) reqs[k] = MPI_REQUEST_NULL;
    MPI_Request *sreq = reqs, *greq = reqs + ns, *rreq = greq + ng, *lreq = rreq + nr;

    /* Algorithm 5: every receive first, then l; s packed, sent, completed. */
    XCHG_CHECK(post_bytes(st->ns_recv, st->s_recv, st->g_sbuf, 1, TAG_S, a->comm, sreq));
    XCHG_CHECK(post_bytes(st->ng_recv, st->g_recv, st->g_rbuf, 1, TAG_G, a->comm, greq));
    XCHG_CHECK(post_bytes(st->nr_recv, st->r_recv, st->r_rbuf, 1, TAG_R, a->comm, rreq));
    for (int k = 0; k < st->nl_recv; k++) {
        int i = st->l_index[k];
        XCHG_CHECK(MPI_Irecv(xchg_side_block_ptr(&a->recv, i), a->recv.counts[i],
                             a->recv.type.type, a->sources[i], TAG_L, a->comm, &lreq[k]));
    }
    for (int k = 0; k < st->nl_send; k++) {
        int i = st->l_index[st->nl_recv + k];
        XCHG_CHECK(MPI_Isend(xchg_side_block_ptr(&a->send, i), a->send.counts[i],
                             a->send.type.type, a->destinations[i], TAG_L, a->comm,
                             &lreq[st->nl_recv + k]));
    }
    for (int k = 0; k < st->npack; k++)
        XCHG_CHECK(pack_run(&a->send, &st->pack[k], st->s_buf + st->pack[k].dst));
    XCHG_CHECK(post_bytes(st->ns_send, st->s_send, st->s_buf, 0, TAG_S, a->comm,
                          sreq + st->ns_recv));
    XCHG_CHECK(xchg_waitall(ns, sreq, MPI_STATUSES_IGNORE));
    /* g */
    XCHG_CHECK(post_bytes(st->ng_send, st->g_send, st->g_sbuf, 0, TAG_G, a->comm,
                          greq + st->ng_recv));
    /* Algorithm 6: complete g, then r; l completes with r. */
    XCHG_CHECK(xchg_waitall(ng, greq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < st->ncopy; k++)
        memcpy(st->r_sbuf + st->copy[k].dst, st->g_rbuf + st->copy[k].src,
               (size_t)st->copy[k].len);
    XCHG_CHECK(post_bytes(st->nr_send, st->r_send, st->r_sbuf, 0, TAG_R, a->comm,
                          rreq + st->nr_recv));
    XCHG_CHECK(xchg_waitall(nr + nl, rreq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < st->nunpack; k++)
        XCHG_CHECK(xchg_unpack_block(&a->recv, st->unpack[k].block,
                                     st->r_rbuf + st->unpack[k].off));
    xchg_scratch_free(ctx, reqs, nbytes);
    return MPI_SUCCESS;
fail:
    xchg_waitall(n, reqs, MPI_STATUSES_IGNORE);
    xchg_scratch_free(ctx, reqs, nbytes);
    return rc;
}

const xchg_algorithm xchg_algo_neighbor_alltoallv_locality = {
    .coll = XCHG_NEIGHBOR_ALLTOALLV,
    .name = "locality",
    .summary = "three-step aggregation: one message per region pair, gathered and "
               "redistributed inside the regions; dedup with global indices",
    .reference = "Collom et al. 2023",
    .init = init,
    .init_blocks = 1,
    .run = run,
    .destroy = destroy,
    .cost = xchg_neighbor_locality_cost,
    .num_params = 3,
    .params = {[LOCALITY_BALANCE] = {.name = "balance", .kind = XCHG_PARAM_ENUM,
                                  .def = LOCALITY_BALANCE_COUNT, .names = balance_names,
                                  .help = "spread a region's inter-region pairs over its ranks "
                                          "by message count or by bytes"},
               [LOCALITY_DEDUP] = {.name = "dedup", .kind = XCHG_PARAM_INT, .def = 0, .min = 0,
                                .max = 1,
                                .help = "send a value once per region pair (needs the _ext "
                                        "inits' global indices; else ignored)"},
               [LOCALITY_REGIONS] = {.name = "regions", .kind = XCHG_PARAM_INT, .def = 1,
                                  .min = 1, .max = XCHG_RANGE_P,
                                  .names = xchg_hier_region_names,
                                  .help = "regions per node (1: the node), or numa or socket"}},
};
