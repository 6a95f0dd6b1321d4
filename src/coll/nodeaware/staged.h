/*
 * Staged messages: the receive side that the overlapped exchanges share
 * (overlap.c: node_aware_overlap and locality_aware_overlap;
 * multileader_overlap.c). Each awaited message has a slot: its sender and
 * tag, its number of blocks, an array of its block lengths and a staging
 * buffer of its own. With headers (alltoallv: the receiver does not know
 * the lengths), the sender sends a header of 8-byte block lengths right
 * before the data, with the same tag; the slot's first receive is the
 * header, whose size the receiver knows, and the data receive is posted
 * when the header is in (MPI's non-overtaking rule matches header to
 * header, data to data). Without headers (alltoall) every length is the
 * uniform block size and the data receive is posted at once. The arrival
 * loop then hands each complete message to the algorithm as it comes.
 * Why headers rather than MPI_Improbe: overlap.c.
 *
 * The caller owns the per-slot arrays (carved from its per-call memory,
 * zeroed, arrivals set to MPI_REQUEST_NULL, lengths pointing to room for
 * each slot's blocks); the staging buffers are scratch of the context,
 * freed by xchg_staged_free.
 */
#ifndef XCHG_COLL_NODEAWARE_STAGED_H
#define XCHG_COLL_NODEAWARE_STAGED_H

#include "../../core/context.h"

typedef struct xchg_staged {
    xchg_context *ctx;
    MPI_Comm comm;
    const char *who;         /* the algorithm, for error messages */
    int with_headers;        /* alltoallv: block lengths travel ahead */
    int64_t uniform_bytes;   /* without headers: every block's length */
    int num_slots;
    MPI_Request *arrivals;   /* [num_slots] header or data receives */
    int *awaiting_data;      /* [num_slots] the header is in, the data not yet */
    int64_t **lengths;       /* [num_slots] block lengths of each message */
    char **staging;          /* [num_slots] receive staging of each message */
    size_t *staging_bytes;
    /* The sender, tag and number of blocks of the message in slot s. */
    void (*source)(const void *call, int s, int *from, int *tag, int *blocks);
    /* Slot s's message is complete (in staging[s], lengths[s]). */
    int (*arrived)(void *call, int s);
    void *call;              /* the algorithm's call, passed to both */
} xchg_staged;

/* The first receive of every slot: its header or, every length known, its data. */
int xchg_staged_post(xchg_staged *in);

/* Hand every message to `arrived` as it comes (a header first posts the
 * receive of its data); returns when all are in. */
int xchg_staged_arrivals(xchg_staged *in);

/* Send one message: its header of `nblocks` lengths (with headers), then
 * its `bytes` of data (when not zero), both to `to` with `tag`, as
 * requests reqs[*nreqs], ... (incremented for each). */
int xchg_staged_isend(const xchg_staged *in, const int64_t *header, int64_t nblocks,
                      const char *data, int64_t bytes, int to, int tag, MPI_Request *reqs,
                      int *nreqs);

/* The staging buffers (the per-slot arrays stay the caller's). */
void xchg_staged_free(xchg_staged *in);

#endif
