/*
 * One call of a collective (call.h). Every form of every collective runs
 * through xchg_call_run: a blocking call on the caller's stack, a
 * nonblocking one inside its task (src/persistent.c starts it), so what a
 * call does (device check, selection, plan, run, accounting) is written
 * once. What differs between collectives is how the plan is found: dense
 * collectives cache plans by choice (xchg_plan_get), the neighbourhood
 * collective by pattern (xchg_neighbor_pattern_plan, with its agreement).
 */
#include "call.h"

#include "core/device.h"
#include "core/error.h"
#include "core/plan.h"
#include "core/task.h"
#include "select/online.h"
#include "select/select.h"

static int dense_call(xchg_context *ctx, xchg_args *args, int nonblocking)
{
    xchg_choice choice;
    xchg_plan *plan = NULL;
    int device;
    int rc = xchg_device_route(ctx, args, &choice, &device);
    if (rc == MPI_SUCCESS && !device) rc = xchg_select_call(ctx, args, nonblocking, &choice);
    if (rc == MPI_SUCCESS) rc = xchg_plan_get(ctx, &choice, &plan);
    if (rc != MPI_SUCCESS) return rc;
    if (nonblocking) return xchg_plan_execute(plan, args);
    double start = xchg_online_start(ctx); /* online selection times this call */
    rc = xchg_plan_execute(plan, args);
    if (rc == MPI_SUCCESS) rc = xchg_online_finish(ctx, args, &plan->choice, start);
    return rc;
}

static int neighbor_call(xchg_context *ctx, xchg_args *args)
{
    xchg_plan *plan = NULL;
    int rc = xchg_neighbor_pattern_plan(ctx, args, &plan);
    if (rc == MPI_SUCCESS) rc = xchg_plan_execute(plan, args);
    xchg_plan_release(plan);
    return rc;
}

int xchg_call_run(xchg_context *ctx, xchg_args *args, int nonblocking)
{
    int rc = xchg_context_ready(ctx);
    if (rc != MPI_SUCCESS) return rc;
    if (args->coll == XCHG_NEIGHBOR_ALLTOALLV) return neighbor_call(ctx, args);
    return dense_call(ctx, args, nonblocking);
}

int xchg_call_blocking(xchg_context *ctx, xchg_args *args)
{
    int rc = xchg_task_drain(ctx);
    if (rc == MPI_SUCCESS) rc = xchg_call_run(ctx, args, 0);
    xchg_args_free(args);
    return rc;
}
