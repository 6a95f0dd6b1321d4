/*
 * locality's private header: the plan a rank keeps (loc_state), the lists
 * its builder grows, and the steps of the plan builder, one file each:
 *   locality_plan.c            the builder: runs the steps, keeps the
 *                              result, agrees on success
 *   locality_plan_segments.c   step 0: the outgoing inter-region blocks,
 *                              their segments and pack runs (dedup)
 *   locality_plan_roles.c      steps 1-2: who sends and who receives each
 *                              region pair, told along the graph's edges
 *   locality_plan_senders.c    steps 3-4: s metadata to the senders; the
 *                              senders' g buffers and g metadata
 *   locality_plan_receivers.c  steps 5-6: the receivers' copy runs and r
 *                              sends; every rank's r receives
 *   locality_run.c             one start (Algorithms 5-6)
 * The algorithm, its schedule, cost and memory: locality.c.
 */
#ifndef XCHG_COLL_NEIGHBOR_LOCALITY_H
#define XCHG_COLL_NEIGHBOR_LOCALITY_H

#include <stdlib.h>

#include "../../core/context.h"
#include "../../core/error.h"
#include "../../core/plan.h"
#include "../../core/topology.h"

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

static inline void *vec_push(vec *x)
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

static inline int key3_cmp(const void *x, const void *y)
{
    const key3 *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->c != q->c) return p->c < q->c ? -1 : 1;
    return 0;
}


/* One outgoing region: its segment of the s buffer and its metadata. */
typedef struct group {
    int region;
    int64_t seg_bytes, nblocks;
    size_t meta_first, meta_end; /* in the block metadata: {q, j, nruns, {off, len}...} */
    size_t pack_first, pack_end; /* its pack runs */
} group;

/* The plan builder's state, shared by its steps: the inputs, then what
 * each step leaves for the later ones (freed by xchg_locality_build). */
typedef struct loc_build {
    xchg_plan *plan;
    const xchg_args *a;
    const xchg_topology *t;
    xchg_context *ctx;
    int me, R, A, nA, mylocal; /* R regions, this rank in region A of nA ranks */
    int by_bytes, dedup, in, out;
    int64_t esz;
    loc_state *st;
    const int *socc, *rocc;    /* occurrence of each destination / source */
    vec groups, blockmeta, pack;                 /* step 0 */
    xchg_context *inner;                         /* steps 1-2: the region */
    int *sender_local, *receiver_local, *y_of;
    vec gmeta_out, gmeta_ends, gmeta_peer;       /* steps 3-4, sent in step 4 */
    MPI_Request *greqs;
    int ngreq;
    vec s_recv, s_send, g_recv, g_send, r_recv, r_send, copy, unpack; /* kept by the plan */
} loc_build;

int xchg_locality_build(xchg_plan *plan, const xchg_topology *t);
void xchg_locality_state_free(loc_state *st);
int xchg_locality_plan_segments(loc_build *lb);
int xchg_locality_plan_roles(loc_build *lb);
int xchg_locality_plan_senders(loc_build *lb);
int xchg_locality_plan_forward(loc_build *lb);
int xchg_locality_plan_arrivals(loc_build *lb);
int xchg_locality_run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan);

#endif
