/*
 * Per-communicator context, cached as an attribute on the user's communicator
 * and freed by the attribute's delete callback (when the user frees the
 * communicator) or at MPI_Finalize, whichever comes first. It holds a private
 * duplicate of the communicator for all internal traffic (so xchg's messages
 * never share tag space with the application), the topology, the algorithm
 * chosen for each collective, lazily built sub-communicators and the
 * accounting of scratch memory.
 */
#ifndef XCHG_CORE_CONTEXT_H
#define XCHG_CORE_CONTEXT_H

#include "pmpi.h"
#include <stddef.h>
#include "args.h"
#include "registry.h"
#include "topology.h"

#ifndef XCHG_MAX_SUBCOMMS
#define XCHG_MAX_SUBCOMMS 64 /* cached sub-communicators per context (LRU) */
#endif
#define XCHG_MAX_PHASES 8

typedef struct xchg_subcomm {
    char key[48];            /* what the sub-communicator is, e.g. "node" */
    MPI_Comm comm;
    unsigned long last_use;  /* for evicting the least recently used when full */
} xchg_subcomm;

/* Time spent in each named phase of the last call (for --breakdown). */
typedef struct xchg_phase_times {
    int count;
    const char *name[XCHG_MAX_PHASES];
    double seconds[XCHG_MAX_PHASES];
    double mark;             /* MPI_Wtime() of the last phase boundary */
} xchg_phase_times;

typedef struct xchg_context {
    MPI_Comm user_comm;      /* the communicator the context is cached on */
    MPI_Comm comm;           /* private duplicate: all internal traffic */
    int rank, size;
    xchg_topology topo;

    int has_override[XCHG_NUM_COLL];
    xchg_choice override[XCHG_NUM_COLL];   /* XCHG_Comm_set_algorithm */
    int has_last[XCHG_NUM_COLL];
    xchg_choice last[XCHG_NUM_COLL];       /* what the last call used */

    size_t scratch_now, scratch_peak;      /* during the current call */
    size_t last_scratch_peak[XCHG_NUM_COLL];

    int num_subcomms;
    unsigned long subcomm_clock;
    xchg_subcomm subcomms[XCHG_MAX_SUBCOMMS];

    xchg_phase_times phases;

    struct xchg_context *next_live; /* list of live contexts, for MPI_Finalize */
} xchg_context;

/* The context of `user_comm`, created on first use (collective on first use). */
int xchg_context_get(MPI_Comm user_comm, xchg_context **ctx);

/* A cached sub-communicator: split of ctx->comm by (color, key), created on
 * first request for `name` (collective over ctx->comm) and freed with ctx.
 * When XCHG_MAX_SUBCOMMS are cached, the least recently used one is freed to
 * make room (the same one on every rank, since every rank makes the same
 * requests in the same order); a pointer from an earlier request stays valid
 * until XCHG_MAX_SUBCOMMS - 1 other names have been requested. */
int xchg_context_split(xchg_context *ctx, const char *name, int color, int key,
                       MPI_Comm *out);

/* The communicator of this rank's node (split by topology node). */
int xchg_context_node_comm(xchg_context *ctx, MPI_Comm *out);

/* Scratch memory accounted to the current call: malloc/free plus bookkeeping
 * of the peak, reported by XCHG_Comm_get_scratch_peak. */
void *xchg_scratch_alloc(xchg_context *ctx, size_t nbytes);
void xchg_scratch_free(xchg_context *ctx, void *ptr, size_t nbytes);

/* Phase timing: xchg_phase_begin_call resets; xchg_phase_end("inter-node")
 * adds the time since the previous boundary to that phase. */
void xchg_phase_begin_call(xchg_context *ctx);
void xchg_phase_end(xchg_context *ctx, const char *phase);

#endif
