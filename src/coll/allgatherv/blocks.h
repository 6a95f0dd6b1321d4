/*
 * Messages made of several allgatherv blocks, shared by the allgatherv
 * algorithms that forward blocks they received (recursive doubling, the
 * node-aware one).
 *
 * A message carries the receive blocks of a list of ranks where they lie in
 * the receive buffer: one block goes as itself (its count of the receive
 * datatype at its offset), several as one hindexed datatype of the receive
 * datatype over them (zero copy, any datatype, any displacements: out of
 * rank order, with gaps). Blocks of zero bytes are left out, and a list
 * without bytes sends no message: every rank knows every block's size
 * (MPI requires the same type signatures everywhere), so sender and
 * receiver skip it alike. The datatype is freed right after posting (MPI
 * completes pending operations on a freed datatype normally).
 *
 * Scratch: the lists' workspace, 2P ints and P MPI_Aint (agv_work).
 */
#ifndef XCHG_COLL_ALLGATHERV_BLOCKS_H
#define XCHG_COLL_ALLGATHERV_BLOCKS_H

#include "../../core/args.h"
#include "../../core/context.h"

typedef struct agv_work {
    int *ranks;       /* [P] a list of ranks, filled by the caller */
    int *lens;        /* [P] hindexed block lengths */
    MPI_Aint *displs; /* [P] hindexed displacements */
    size_t bytes;     /* scratch held */
} agv_work;

int agv_work_alloc(xchg_context *ctx, const xchg_args *a, agv_work *w);
void agv_work_free(xchg_context *ctx, agv_work *w);

/* Bytes of the receive blocks of ranks[0..n). */
int64_t agv_blocks_bytes(const xchg_args *a, const int *ranks, int n);

/* Post a send (sending = 1) to or a receive from `peer` of the receive blocks
 * of w->ranks[0..n) on a->comm with `tag`; the request goes to reqs[*nreq]
 * and *nreq grows by one when a message was posted (none without bytes). */
int agv_post_blocks(const xchg_args *a, agv_work *w, int n, int peer, int tag, int sending,
                    MPI_Request *reqs, int *nreq);

#endif
