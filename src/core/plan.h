/*
 * Plans: the unit of execution.
 *
 * A plan is one algorithm, with its parameter values fitted to one
 * communicator, plus whatever the algorithm's init built for it: schedules,
 * sub-communicators, datatypes, buffer sizes, and for a persistent plan the
 * metadata that follows from the call's fixed counts. Running a plan does
 * only the per-call work.
 *
 * A blocking call looks up the plan for its key in the communicator's
 * context, builds it on a miss, runs it and keeps it. The key is the
 * algorithm (which names its collective) and its parameter values, which
 * every rank agrees on (the selection uses only agreed inputs), so every rank
 * misses, and builds (collectively), at the same call. No algorithm's cached
 * plan depends on the block size or the counts, which arrive with each call;
 * one that will must add them to the key (xchg_plan_get). The cache holds at most
 * XCHG_MAX_PLANS plans per communicator; when full, the least recently used
 * is freed (the same one on every rank, since every rank makes the same calls
 * in the same order). Cached plans are freed with the communicator. The
 * neighbourhood collective's blocking and nonblocking calls cache their
 * plans by pattern instead (pattern_cache.h).
 *
 * A persistent call (XCHG_*_init) builds a plan of its own, with the call's
 * arguments fixed, outside the cache; XCHG_Request_free frees it.
 */
#ifndef XCHG_CORE_PLAN_H
#define XCHG_CORE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "registry.h"

#ifndef XCHG_MAX_PLANS
#define XCHG_MAX_PLANS 16 /* cached plans per communicator (LRU) */
#endif

struct xchg_context;

/* What only a neighbourhood plan has (XCHG_NEIGHBOR_ALLTOALLV; zero
 * otherwise). */
typedef struct xchg_neighbor_plan {
    /* A plan cached by its pattern (pattern_cache.h): its key and the cache's
     * bookkeeping, owned by the cache; NULL for a persistent plan. */
    struct xchg_pattern_entry *cache_entry;
    /* What one run sends from this rank, counted by the algorithm's init
     * (XCHG_Neighbor_stats_get); has_stats = 0 when the algorithm does not
     * count (every block is then one direct message). Self messages are not
     * counted. */
    int has_stats;
    int stats_inter_messages, stats_intra_messages;
    int64_t stats_inter_bytes, stats_intra_bytes;
} xchg_neighbor_plan;

typedef struct xchg_plan {
    struct xchg_context *ctx;  /* the communicator the plan serves */
    xchg_choice choice;        /* algorithm and parameters, fitted to ctx */
    const xchg_args *fixed;    /* persistent plans: the call's arguments, fixed at
                                  init (buffers, counts, types); plans cached by a
                                  pattern: their key (its buffers are those of the
                                  call that built it: run uses the args it is
                                  given); NULL when cached by choice */
    int one_start;             /* a nonblocking call's own plan (fixed: its
                                  arguments), posted once: its init builds
                                  nothing only later starts would use (`mpi`:
                                  no persistent request of the library) */
    void *state;               /* the algorithm's own, built by its init */
    unsigned long last_use;    /* cache clock of the last lookup */
    xchg_neighbor_plan neighbor; /* neighbourhood plans only */
} xchg_plan;

/* The cached plan for `choice` on ctx (collective when it must be built). */
int xchg_plan_get(struct xchg_context *ctx, const xchg_choice *choice, xchg_plan **plan);

/* A plan of its own for a persistent call with arguments `fixed` (collective
 * when the algorithm's init communicates). */
int xchg_plan_create(struct xchg_context *ctx, const xchg_choice *choice, const xchg_args *fixed,
                     xchg_plan **plan);

/* The same for a nonblocking call that posts its messages at once
 * (one_start; its algorithm has a post function and a local init). */
int xchg_plan_create_once(struct xchg_context *ctx, const xchg_choice *choice,
                          const xchg_args *fixed, xchg_plan **plan);

/* Free a plan from xchg_plan_create (and, with the context, cached ones). */
void xchg_plan_free(xchg_plan *plan);

/* Free every plan ctx caches by choice. */
void xchg_plan_cache_clear(struct xchg_context *ctx);

/* Inside a task a plan whose init blocks (registry.h: init_blocks) cannot
 * be built (xchg_plan_must_fall_back): xchg_plan_fallback_choice gives the
 * collective's fallback, whose init never blocks (the MPI library's own
 * collective; for the neighbourhood one, `standard`). Every rank decides
 * alike: whether a plan is cached is the same everywhere. */
int xchg_plan_must_fall_back(const xchg_choice *choice);
int xchg_plan_fallback_choice(const struct xchg_context *ctx, const xchg_choice *choice,
                              xchg_choice *out);

/* A top-level call: reset the scratch and phase accounting of plan->ctx, run
 * the plan, and record what ran (XCHG_Comm_get_algorithm, get_scratch_peak). */
int xchg_plan_execute(const xchg_plan *plan, const xchg_args *args);

/* The same for an algorithm with a post function: post the call's messages
 * into reqs (room for 2P) and set *count; they complete the call. */
int xchg_plan_post(const xchg_plan *plan, const xchg_args *args, MPI_Request *reqs, int *count);

/* Run a plan for one call (args are the fixed ones for a persistent plan);
 * `ctx` accounts scratch and phase times (see xchg_run_fn). */
static inline int xchg_plan_run(struct xchg_context *ctx, const xchg_plan *plan,
                                const xchg_args *args)
{
    return plan->choice.algo->run(ctx, args, plan);
}

#endif
