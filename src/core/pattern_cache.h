/*
 * Plans keyed by a pattern: the neighbourhood collective's cache (the
 * dense collectives cache plans by choice: plan.h).
 *
 * A neighbourhood call's plan depends on its pattern (the neighbour lists,
 * counts, displacements and datatypes; not its buffers), which every
 * iteration of a solver repeats. Blocking and nonblocking neighbourhood
 * calls look their plan up by that pattern, compared exactly against a copy
 * kept with the plan, so a repeated pattern pays the algorithm's init once.
 * The context holds one cache (xchg_context.pattern_cache), emptied with it
 * by xchg_pattern_cache_clear. Eviction is first in, first out (the same
 * plan on every rank, as every rank builds at the same calls); an evicted
 * plan that a nonblocking call still uses is freed when that call releases
 * it.
 */
#ifndef XCHG_CORE_PATTERN_CACHE_H
#define XCHG_CORE_PATTERN_CACHE_H

#include "args.h"
#include "plan.h"
#include "registry.h"

#ifndef XCHG_MAX_PATTERN_PLANS
#define XCHG_MAX_PATTERN_PLANS 64 /* cached plans keyed by a pattern (FIFO) */
#endif

struct xchg_context;

/* A cached plan's key and bookkeeping (xchg_plan.neighbor.cache_entry). */
typedef struct xchg_pattern_entry {
    xchg_args key;         /* a copy of the call that built the plan (its
                              lists, counts, displacements, datatypes; owned),
                              also the plan's `fixed` */
    int users;             /* calls in flight on the plan (borrowed by get) */
    int evicted;           /* out of the cache; freed when users drops to 0 */
    unsigned long build;   /* plans whose init communicates: which collective
                              build made it (xchg_pattern_cache.builds) */
} xchg_pattern_entry;

typedef struct xchg_pattern_cache {
    int num_plans;                            /* oldest first */
    xchg_plan *plans[XCHG_MAX_PATTERN_PLANS];
    unsigned long builds; /* plans built together by every rank (init
                             communicates), the same count everywhere */
    /* Automatic selection's last agreed choice (src/select/select.c), for
     * the calls between agreements: made where a common build rechooses or
     * on XCHG_AGREE's schedule. */
    int has_agreed_choice;
    xchg_choice agreed_choice;
} xchg_pattern_cache;

/* Chooses the algorithm again where a pattern plan must be built by every
 * rank (collective: every rank calls it at the same call). */
typedef int (*xchg_pattern_chooser)(struct xchg_context *ctx, const xchg_args *args,
                                    xchg_choice *out);

/*
 * The cached plan for `*choice` (the same on every rank) and the pattern of
 * `args`, built with a copy of args fixed on a miss.
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
 * build with the others' newer ones. Every successful get is paired with
 * xchg_plan_release.
 */
int xchg_plan_get_pattern(struct xchg_context *ctx, xchg_choice *choice, const xchg_args *args,
                          xchg_pattern_chooser rechoose, xchg_plan **plan);
void xchg_plan_release(xchg_plan *plan);

/* Take every plan out of the cache (freeing those no call uses) and forget
 * the agreed choice: the context's end. */
void xchg_pattern_cache_clear(xchg_pattern_cache *cache);

#endif
