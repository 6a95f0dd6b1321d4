/* Plans keyed by a pattern: the neighbourhood collective's cache (see
 * pattern_cache.h). */
#include "pattern_cache.h"

#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "error.h"

static int same_type(const xchg_type_info *a, const xchg_type_info *b)
{
    return a->type == b->type && a->size == b->size && a->extent == b->extent &&
           a->true_lb == b->true_lb && a->true_extent == b->true_extent;
}

static int same_side(const xchg_side *a, const xchg_side *b, int n)
{
    return same_type(&a->type, &b->type) &&
           memcmp(a->counts, b->counts, (size_t)n * sizeof(int)) == 0 &&
           memcmp(a->offsets, b->offsets, (size_t)n * sizeof(int64_t)) == 0;
}

/* The same lists, counts, displacements and datatypes (buffers may differ). */
static int same_pattern(const xchg_args *a, const xchg_args *b)
{
    const xchg_neighbor_args *x = &a->neighbor, *y = &b->neighbor;
    return a->coll == b->coll && x->indegree == y->indegree && x->outdegree == y->outdegree &&
           memcmp(x->sources, y->sources, (size_t)x->indegree * sizeof(int)) == 0 &&
           memcmp(x->destinations, y->destinations, (size_t)x->outdegree * sizeof(int)) == 0 &&
           same_side(&a->recv, &b->recv, x->indegree) &&
           same_side(&a->send, &b->send, x->outdegree);
}

/* Free a plan of the cache and its entry (the key is the plan's `fixed`:
 * it goes after the plan). */
static void free_plan(xchg_plan *plan)
{
    xchg_pattern_entry *entry = plan->neighbor.cache_entry;
    xchg_plan_free(plan);
    xchg_args_free(&entry->key);
    free(entry);
}

/* Take the plan at `index` out of the cache; free it unless a call uses it. */
static void evict(xchg_pattern_cache *cache, int index)
{
    xchg_plan *plan = cache->plans[index];
    xchg_pattern_entry *entry = plan->neighbor.cache_entry;
    memmove(&cache->plans[index], &cache->plans[index + 1],
            (size_t)(cache->num_plans - index - 1) * sizeof(xchg_plan *));
    cache->num_plans--;
    entry->evicted = 1;
    if (entry->users == 0) free_plan(plan);
}

/* Build the plan of `choice` for args' pattern and cache it (the oldest
 * goes when the cache is full). */
static int insert(xchg_context *ctx, const xchg_choice *choice, const xchg_args *args,
                  xchg_plan **out)
{
    int rc;
    xchg_pattern_cache *cache = &ctx->pattern_cache;
    xchg_plan *plan = NULL;
    xchg_pattern_entry *entry = NULL;
    XCHG_ALLOC(entry, sizeof *entry);
    memset(entry, 0, sizeof *entry);
    XCHG_CHECK(xchg_args_copy(&entry->key, args));
    XCHG_CHECK(xchg_plan_create(ctx, choice, &entry->key, &plan));
    plan->neighbor.cache_entry = entry;
    if (cache->num_plans == XCHG_MAX_PATTERN_PLANS) evict(cache, 0);
    cache->plans[cache->num_plans++] = plan;
    entry->users = 1;
    *out = plan;
    return MPI_SUCCESS;
fail:
    if (entry) {
        xchg_args_free(&entry->key);
        free(entry);
    }
    return rc;
}

/* A hit: one more user of the cached plan at `index`. */
static xchg_plan *use(xchg_pattern_cache *cache, int index)
{
    xchg_plan *plan = cache->plans[index];
    plan->neighbor.cache_entry->users++;
    return plan;
}

/* The cached plan of `choice` for args' pattern, or -1. */
static int find(const xchg_pattern_cache *cache, const xchg_choice *choice,
                const xchg_args *args)
{
    for (int i = 0; i < cache->num_plans; i++)
        if (xchg_choice_equal(&cache->plans[i]->choice, choice) &&
            same_pattern(&cache->plans[i]->neighbor.cache_entry->key, args))
            return i;
    return -1;
}

int xchg_plan_get_pattern(xchg_context *ctx, xchg_choice *choice, const xchg_args *args,
                          xchg_pattern_chooser rechoose, xchg_plan **out)
{
    xchg_pattern_cache *cache = &ctx->pattern_cache;
    int rc = MPI_SUCCESS, found = find(cache, choice, args);
    if (choice->algo->init_is_local) { /* built alone, valid alone */
        if (found >= 0) *out = use(cache, found);
        return found >= 0 ? MPI_SUCCESS : insert(ctx, choice, args, out);
    }
    int64_t build =
        found >= 0 ? (int64_t)cache->plans[found]->neighbor.cache_entry->build : 0;
    int64_t v[3] = {found < 0, build, -build}; /* a miss anywhere; max and -min build */
    XCHG_CHECK(xchg_allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_MAX, ctx->comm));
    if (v[0] == 0 && v[1] == -v[2]) {
        *out = use(cache, found);
        return MPI_SUCCESS;
    }
    if (found >= 0) evict(cache, found); /* another rank's pattern changed */
    unsigned long number = ++cache->builds; /* counted on failure too: stays common */
    if (rechoose) XCHG_CHECK(rechoose(ctx, args, choice));
    if (xchg_plan_must_fall_back(choice)) { /* every rank missed: every rank falls back */
        XCHG_CHECK(xchg_plan_fallback_choice(ctx, choice, choice));
        found = find(cache, choice, args);
        if (found >= 0) {
            *out = use(cache, found);
            return MPI_SUCCESS;
        }
    }
    XCHG_CHECK(insert(ctx, choice, args, out));
    (*out)->neighbor.cache_entry->build = number;
fail:
    return rc;
}

void xchg_plan_release(xchg_plan *plan)
{
    if (!plan) return;
    xchg_pattern_entry *entry = plan->neighbor.cache_entry;
    entry->users--;
    if (entry->evicted && entry->users == 0) free_plan(plan);
}

void xchg_pattern_cache_clear(xchg_pattern_cache *cache)
{
    while (cache->num_plans > 0) evict(cache, cache->num_plans - 1);
    cache->has_agreed_choice = 0;
}
