/* Building, caching and freeing plans (see plan.h). */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "error.h"
#include "task.h"

int xchg_plan_create(xchg_context *ctx, const xchg_choice *choice, const xchg_args *fixed,
                     xchg_plan **out)
{
    int rc = MPI_SUCCESS;
    /* A virtual group communicator (vcomm.h) serves point-to-point and
     * xchg's own collectives only, which is what flat algorithms use. */
    if (ctx->is_virtual && !choice->algo->is_flat)
        return xchg_error(MPI_ERR_INTERN, "%s cannot run on a sub-communicator made inside a task",
                          choice->algo->name);
    xchg_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return xchg_error(MPI_ERR_NO_MEM, "out of memory for a plan");
    plan->ctx = ctx;
    plan->choice = *choice;
    plan->fixed = fixed;
    if (choice->algo->init) rc = choice->algo->init(plan);
    if (rc != MPI_SUCCESS) {
        free(plan);
        return rc;
    }
    *out = plan;
    return MPI_SUCCESS;
}

void xchg_plan_free(xchg_plan *plan)
{
    if (!plan) return;
    if (plan->choice.algo->destroy) plan->choice.algo->destroy(plan);
    if (plan->pattern) {
        xchg_args_free(plan->pattern);
        free(plan->pattern);
    }
    free(plan);
}

/* Inside a task a plan whose init blocks (registry.h: init_blocks: it creates
 * windows) cannot be built: the collective's fallback, whose init never
 * blocks (the MPI library's own collective; for the neighbourhood one,
 * `standard`). Every rank decides alike: whether a plan is cached is the
 * same everywhere. (Sub-communicators no longer block: context.c makes them
 * virtual inside a task.) */
static int fallback_choice(const xchg_context *ctx, const xchg_choice *choice, xchg_choice *out)
{
    int rc = xchg_choice_parse(choice->coll,
                               choice->coll == XCHG_NEIGHBOR_ALLTOALLV ? "standard" : "mpi", out);
    return rc == MPI_SUCCESS ? xchg_choice_fit(ctx, out) : rc;
}

static int must_fall_back(const xchg_choice *choice)
{
    return choice->algo->init_blocks && xchg_task_current() != NULL;
}

int xchg_plan_get(xchg_context *ctx, const xchg_choice *choice, xchg_plan **out)
{
    for (int i = 0; i < ctx->num_plans; i++)
        if (xchg_choice_equal(&ctx->plans[i]->choice, choice)) {
            ctx->plans[i]->last_use = ++ctx->plan_clock;
            *out = ctx->plans[i];
            return MPI_SUCCESS;
        }
    if (must_fall_back(choice)) {
        xchg_choice fallback;
        int rc = fallback_choice(ctx, choice, &fallback);
        return rc == MPI_SUCCESS ? xchg_plan_get(ctx, &fallback, out) : rc;
    }
    xchg_plan *plan;
    int rc = xchg_plan_create(ctx, choice, NULL, &plan);
    if (rc != MPI_SUCCESS) return rc;
    if (ctx->num_plans == XCHG_MAX_PLANS) { /* full: free the least recently used */
        int lru = 0;
        for (int i = 1; i < ctx->num_plans; i++)
            if (ctx->plans[i]->last_use < ctx->plans[lru]->last_use) lru = i;
        xchg_plan_free(ctx->plans[lru]);
        ctx->plans[lru] = ctx->plans[--ctx->num_plans];
    }
    plan->last_use = ++ctx->plan_clock;
    ctx->plans[ctx->num_plans++] = plan;
    *out = plan;
    return MPI_SUCCESS;
}

/* ---- plans keyed by a pattern --------------------------------------- */

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
    return a->coll == b->coll && a->indegree == b->indegree && a->outdegree == b->outdegree &&
           memcmp(a->sources, b->sources, (size_t)a->indegree * sizeof(int)) == 0 &&
           memcmp(a->destinations, b->destinations, (size_t)a->outdegree * sizeof(int)) == 0 &&
           same_side(&a->recv, &b->recv, a->indegree) &&
           same_side(&a->send, &b->send, a->outdegree);
}

/* Take the plan at `index` out of the cache; free it unless a call uses it. */
static void pattern_evict(xchg_context *ctx, int index)
{
    xchg_plan *plan = ctx->pattern_plans[index];
    memmove(&ctx->pattern_plans[index], &ctx->pattern_plans[index + 1],
            (size_t)(ctx->num_pattern_plans - index - 1) * sizeof(xchg_plan *));
    ctx->num_pattern_plans--;
    plan->evicted = 1;
    if (plan->users == 0) xchg_plan_free(plan);
}

/* Build the plan of `choice` for args' pattern and cache it (the oldest
 * goes when the cache is full). */
static int pattern_insert(xchg_context *ctx, const xchg_choice *choice, const xchg_args *args,
                          xchg_plan **out)
{
    int rc;
    xchg_plan *plan = NULL;
    xchg_args *pattern = NULL;
    XCHG_ALLOC(pattern, sizeof *pattern);
    XCHG_CHECK(xchg_args_copy(pattern, args));
    XCHG_CHECK(xchg_plan_create(ctx, choice, pattern, &plan));
    plan->pattern = pattern;
    if (ctx->num_pattern_plans == XCHG_MAX_PATTERN_PLANS) pattern_evict(ctx, 0);
    ctx->pattern_plans[ctx->num_pattern_plans++] = plan;
    plan->users = 1;
    *out = plan;
    return MPI_SUCCESS;
fail:
    if (pattern) {
        xchg_args_free(pattern);
        free(pattern);
    }
    return rc;
}

/* A hit: one more user of the cached plan at `index`. */
static xchg_plan *pattern_use(xchg_context *ctx, int index)
{
    xchg_plan *plan = ctx->pattern_plans[index];
    plan->users++;
    return plan;
}

/* The cached plan of `choice` for args' pattern, or -1. */
static int pattern_find(const xchg_context *ctx, const xchg_choice *choice, const xchg_args *args)
{
    for (int i = 0; i < ctx->num_pattern_plans; i++)
        if (xchg_choice_equal(&ctx->pattern_plans[i]->choice, choice) &&
            same_pattern(ctx->pattern_plans[i]->pattern, args))
            return i;
    return -1;
}

int xchg_plan_get_pattern(xchg_context *ctx, xchg_choice *choice, const xchg_args *args,
                          xchg_pattern_chooser rechoose, xchg_plan **out)
{
    int rc = MPI_SUCCESS, found = pattern_find(ctx, choice, args);
    if (choice->algo->init_is_local) { /* built alone, valid alone */
        if (found >= 0) *out = pattern_use(ctx, found);
        return found >= 0 ? MPI_SUCCESS : pattern_insert(ctx, choice, args, out);
    }
    int64_t build = found >= 0 ? (int64_t)ctx->pattern_plans[found]->build : 0;
    int64_t v[3] = {found < 0, build, -build}; /* a miss anywhere; max and -min build */
    XCHG_CHECK(xchg_allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_MAX, ctx->comm));
    if (v[0] == 0 && v[1] == -v[2]) {
        *out = pattern_use(ctx, found);
        return MPI_SUCCESS;
    }
    if (found >= 0) pattern_evict(ctx, found); /* another rank's pattern changed */
    unsigned long number = ++ctx->pattern_builds; /* counted on failure too: stays common */
    if (rechoose) XCHG_CHECK(rechoose(ctx, args, choice));
    if (must_fall_back(choice)) { /* every rank missed: every rank falls back */
        XCHG_CHECK(fallback_choice(ctx, choice, choice));
        found = pattern_find(ctx, choice, args);
        if (found >= 0) {
            *out = pattern_use(ctx, found);
            return MPI_SUCCESS;
        }
    }
    XCHG_CHECK(pattern_insert(ctx, choice, args, out));
    (*out)->build = number;
fail:
    return rc;
}

void xchg_plan_release(xchg_plan *plan)
{
    if (!plan) return;
    plan->users--;
    if (plan->evicted && plan->users == 0) xchg_plan_free(plan);
}

void xchg_plan_cache_clear(xchg_context *ctx)
{
    while (ctx->num_plans > 0) xchg_plan_free(ctx->plans[--ctx->num_plans]);
    while (ctx->num_pattern_plans > 0) pattern_evict(ctx, ctx->num_pattern_plans - 1);
}

/* Accounting of a top-level call around `rc = ...` (see xchg_plan_execute). */
static void call_begin(xchg_context *ctx)
{
    ctx->scratch_now = ctx->scratch_peak = 0;
    xchg_phase_begin_call(ctx);
}

static void call_end(const xchg_plan *plan, xchg_coll coll)
{
    xchg_context *ctx = plan->ctx;
    ctx->last[coll] = plan->choice;
    ctx->has_last[coll] = 1;
    ctx->last_scratch_peak[coll] = ctx->scratch_peak;
}

int xchg_plan_execute(const xchg_plan *plan, const xchg_args *args)
{
    call_begin(plan->ctx);
    int rc = xchg_plan_run(plan->ctx, plan, args);
    call_end(plan, args->coll);
    return rc;
}

int xchg_plan_post(const xchg_plan *plan, const xchg_args *args, MPI_Request *reqs, int *count)
{
    call_begin(plan->ctx);
    int rc = plan->choice.algo->post(plan->ctx, args, plan, reqs, count);
    call_end(plan, args->coll);
    return rc;
}
