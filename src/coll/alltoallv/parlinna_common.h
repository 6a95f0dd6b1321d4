/*
 * The part ParLinNa's two variants share (parlinna_coalesced.c,
 * parlinna_staggered.c): the intra-node phase and the bookkeeping of which
 * ranks of other nodes this rank serves. See parlinna_common.c for the scheme.
 */
#ifndef XCHG_COLL_ALLTOALLV_PARLINNA_COMMON_H
#define XCHG_COLL_ALLTOALLV_PARLINNA_COMMON_H

#include <stdint.h>

#include "../../core/args.h"
#include "../../core/context.h"
#include "../../core/plan.h"

/* What the intra-node phase leaves for the inter-node phase: the blocks of
 * this node for the ranks of other nodes this rank serves, compacted (no gaps)
 * by destination and, within a destination, by source local rank 0..Q-1. */
typedef struct parlinna_staged {
    int node, local, node_size;  /* this rank: node n, local rank l, Q_n */
    int num_served;              /* destinations on other nodes served by l */
    int *served_index;           /* [P] position of a destination rank, or -1 */
    int64_t *block_offset;       /* [num_served * Q_n + 1] offsets into buf */
    char *buf;                   /* packed blocks */
    size_t buf_bytes, meta_bytes;
    void *meta;                  /* the arrays above, one allocation */
} parlinna_staged;

/* Destination `dest` (a rank on another node) is served by local rank
 * dest_local mod Q_n of each source node n. */
static inline int parlinna_server_local(int dest_local, int source_node_size)
{
    return dest_local % source_node_size;
}

/* Bytes and offset of block (source local i -> served destination d). */
static inline int64_t parlinna_block_bytes(const parlinna_staged *st, int d, int i)
{
    return st->block_offset[d * st->node_size + i + 1] - st->block_offset[d * st->node_size + i];
}

/* A ParLinNa plan: the intra-node exchange and what it runs on. */
typedef struct parlinna_state {
    xchg_choice intra;        /* parlogna:radix=r,bounce=wave */
    xchg_plan *whole;         /* one node only: that ParLogNa on the whole
                                 communicator (owned); else NULL */
    xchg_context *node;       /* this rank's node, an inner context (owned); NULL
                                 when there is one node */
    /* Persistent plan on several nodes: the super-block layout follows from
     * the fixed counts, so it is agreed at init, and the intra-node ParLogNa
     * is a persistent plan of its own over super-block buffers held here. */
    int64_t *layout;          /* [4 Q] send offsets, send bytes, receive offsets,
                                 receive bytes of the super-blocks; or NULL */
    char *A, *C;              /* super-blocks sent and received */
    xchg_args node_args;      /* A -> C on the node context */
    xchg_plan *node_plan;     /* persistent ParLogNa on node_args */
} parlinna_state;

/* Plan stages shared by both variants: init reads radix, builds the above. */
int xchg_parlinna_init(xchg_plan *plan);
void xchg_parlinna_free(xchg_plan *plan);

/* Intra-node phase: ParLogNa (the plan's `intra`, radix clamped to the node
 * size) among the ranks of each node; blocks for the own node land in the
 * receive buffer, the others in `st`. */
int xchg_parlinna_intra(xchg_context *ctx, const xchg_args *a, const parlinna_state *ps,
                        parlinna_staged *st);
void xchg_parlinna_staged_free(xchg_context *ctx, parlinna_staged *st);

/* Most destinations this rank serves on any one other node. */
int xchg_parlinna_max_served_per_node(const xchg_context *ctx);

/* The parameters both variants take (radix of the intra-node ParLogNa, batch
 * of the inter-node scattered exchange). */
enum { XCHG_PARLINNA_RADIX = 0, XCHG_PARLINNA_BATCH = 1 };
#define XCHG_PARLINNA_PARAMS                                                         \
    .init = xchg_parlinna_init, .destroy = xchg_parlinna_free,                        \
    .num_params = 2,                                                                  \
    .params = {[XCHG_PARLINNA_RADIX] = {.name = "radix", .kind = XCHG_PARAM_INT,     \
                                        .def = 2, .min = 2, .max = XCHG_RANGE_P,     \
                                        .help = "intra-node ParLogNa radix "         \
                                                "(clamped to the node size)"},       \
               [XCHG_PARLINNA_BATCH] = {.name = "batch", .kind = XCHG_PARAM_INT,     \
                                        .def = 8, .min = 1, .max = XCHG_RANGE_MAXINT, \
                                        .help = "inter-node steps in flight"}}

struct xchg_cost_case;
struct xchg_platform;

/* The model of both variants: the node-local exchange of super-block
 * sizes, the intra-node ParLogNa with super-blocks of N*(m+8) bytes, then the inter-node exchange of (N-1) * msgs_per_node messages of
 * (N-1) * Q * m bytes in all, ceil((N-1) * steps_per_node / batch) rounds. */
double xchg_parlinna_cost(const struct xchg_cost_case *c, const struct xchg_platform *plat,
                          int64_t radix, int64_t batch, int per_block);

#endif
