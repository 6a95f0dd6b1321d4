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
 * in the same order). Cached plans are freed with the communicator.
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
#ifndef XCHG_MAX_PATTERN_PLANS
#define XCHG_MAX_PATTERN_PLANS 64 /* cached plans keyed by a pattern (FIFO) */
#endif

struct xchg_context;

typedef struct xchg_plan {
    struct xchg_context *ctx;  /* the communicator the plan serves */
    xchg_choice choice;        /* algorithm and parameters, fitted to ctx */
    const xchg_args *fixed;    /* persistent plans: the call's arguments, fixed at
                                  init (buffers, counts, types); NULL when cached */
    void *state;               /* the algorithm's own, built by its init */
    unsigned long last_use;    /* cache clock of the last lookup */
    xchg_args *pattern;        /* plans keyed by a pattern: their key, owned, and
                                  their `fixed` (its buffers are those of the call
                                  that built it: run uses the args it is given) */
    int users;                 /* nonblocking calls in flight on a pattern plan */
    int evicted;               /* out of the cache; freed when users drops to 0 */
    unsigned long build;       /* pattern plans whose init communicates: which
                                  collective build made it (ctx->pattern_builds) */
    /* Neighbourhood plans: what one run sends from this rank, counted by
     * the algorithm's init (XCHG_Neighbor_stats_get); has_stats = 0 when the
     * algorithm does not count (every block is then one direct message).
     * Self messages are not counted. */
    int has_stats;
    int stats_inter_messages, stats_intra_messages;
    int64_t stats_inter_bytes, stats_intra_bytes;
} xchg_plan;

/* The cached plan for `choice` on ctx (collective when it must be built). */
int xchg_plan_get(struct xchg_context *ctx, const xchg_choice *choice, xchg_plan **plan);

/* Chooses the algorithm again where a pattern plan must be built by every
 * rank (collective: every rank calls it at the same call). */
typedef int (*xchg_pattern_chooser)(struct xchg_context *ctx, const xchg_args *args,
                                    xchg_choice *out);

/*
 * The cached plan for `*choice` (the same on every rank) and the pattern of
 * `args` (a neighbourhood call's lists, counts, displacements and datatypes;
 * not its buffers), built with a copy of args fixed on a miss. Blocking and
 * nonblocking neighbourhood calls use it, so a pattern repeated every
 * iteration pays the algorithm's init once.
 * The key differs from rank to rank, so ranks could disagree on a hit. When
 * the algorithm's init communicates (init_is_local unset), a plan is valid
 * only together with the plans the other ranks built at the same call (its
 * init exchanged their metadata), so one MPI_Allreduce on ctx->comm (3
 * int64: a miss anywhere, the largest and smallest build number of the
 * plans found) makes a hit count only when every rank found a plan of the
 * same build; otherwise every rank builds: then `rechoose`, when not NULL,
 * chooses again first (automatic selection: a new pattern is where its
 * agreed inputs are refreshed) and may change *choice. A rank whose
 * pattern came back after a change would otherwise pair a plan of an older
 * build with the others' newer ones. Eviction is first in, first out; an
 * evicted plan that a nonblocking call still uses is freed when that call
 * releases it. Every successful get is paired with xchg_plan_release.
 */
int xchg_plan_get_pattern(struct xchg_context *ctx, xchg_choice *choice, const xchg_args *args,
                          xchg_pattern_chooser rechoose, xchg_plan **plan);
void xchg_plan_release(xchg_plan *plan);


/* A plan of its own for a persistent call with arguments `fixed` (collective
 * when the algorithm's init communicates). */
int xchg_plan_create(struct xchg_context *ctx, const xchg_choice *choice, const xchg_args *fixed,
                     xchg_plan **plan);

/* Free a plan from xchg_plan_create (and, with the context, cached ones). */
void xchg_plan_free(xchg_plan *plan);

/* Free every cached plan of ctx. */
void xchg_plan_cache_clear(struct xchg_context *ctx);

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
