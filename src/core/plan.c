/* Building, caching and freeing plans (see plan.h). */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "error.h"
#include "task.h"

static int create(xchg_context *ctx, const xchg_choice *choice, const xchg_args *fixed,
                  int one_start, xchg_plan **out)
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
    plan->one_start = one_start;
    if (choice->algo->init) rc = choice->algo->init(plan);
    if (rc != MPI_SUCCESS) {
        free(plan);
        return rc;
    }
    *out = plan;
    return MPI_SUCCESS;
}

int xchg_plan_create(xchg_context *ctx, const xchg_choice *choice, const xchg_args *fixed,
                     xchg_plan **out)
{
    return create(ctx, choice, fixed, 0, out);
}

int xchg_plan_create_once(xchg_context *ctx, const xchg_choice *choice, const xchg_args *fixed,
                          xchg_plan **out)
{
    return create(ctx, choice, fixed, 1, out);
}

void xchg_plan_free(xchg_plan *plan)
{
    if (!plan) return;
    if (plan->choice.algo->destroy) plan->choice.algo->destroy(plan);
    free(plan);
}

/* Inside a task a plan whose init blocks (registry.h: init_blocks: it creates
 * windows) cannot be built: the collective's fallback, whose init never
 * blocks (the MPI library's own collective; for the neighbourhood one,
 * `standard`). Every rank decides alike: whether a plan is cached is the
 * same everywhere. (Sub-communicators no longer block: context.c makes them
 * virtual inside a task.) */
int xchg_plan_fallback_choice(const xchg_context *ctx, const xchg_choice *choice, xchg_choice *out)
{
    if (choice->coll != XCHG_NEIGHBOR_ALLTOALLV) return xchg_choice_library(ctx, choice->coll, out);
    int rc = xchg_choice_parse(choice->coll, "standard", out);
    return rc == MPI_SUCCESS ? xchg_choice_fit(ctx, out) : rc;
}

int xchg_plan_must_fall_back(const xchg_choice *choice)
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
    if (xchg_plan_must_fall_back(choice)) {
        xchg_choice fallback;
        int rc = xchg_plan_fallback_choice(ctx, choice, &fallback);
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

void xchg_plan_cache_clear(xchg_context *ctx)
{
    while (ctx->num_plans > 0) xchg_plan_free(ctx->plans[--ctx->num_plans]);
}

/* Accounting of a top-level call around `rc = ...` (see xchg_plan_execute). */
/* `phases`: the call may report phase times (a run); a post reports none,
 * and spares the clock read (MPI_Wtime: 18% of a persistent `mpi` start
 * and wait of 0.17 us at P = 1 on this project's machine). */
static void call_begin(xchg_context *ctx, int phases)
{
    ctx->scratch_now = ctx->scratch_peak = 0;
    if (phases) xchg_phase_begin_call(ctx);
    else ctx->phases.count = 0;
}

static void call_end(const xchg_plan *plan, xchg_coll coll)
{
    xchg_context *ctx = plan->ctx;
    ctx->last[coll] = plan->choice;
    ctx->has_last[coll] = 1;
    ctx->last_scratch_peak[coll] = ctx->scratch_peak;
    ctx->accounted_calls++;
}

int xchg_plan_execute(const xchg_plan *plan, const xchg_args *args)
{
    call_begin(plan->ctx, 1);
    int rc = xchg_plan_run(plan->ctx, plan, args);
    call_end(plan, args->coll);
    return rc;
}

int xchg_plan_post(const xchg_plan *plan, const xchg_args *args, MPI_Request *reqs, int *count)
{
    call_begin(plan->ctx, 0);
    int rc = plan->choice.algo->post(plan->ctx, args, plan, reqs, count);
    call_end(plan, args->coll);
    return rc;
}
