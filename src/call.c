/*
 * One call of a collective (call.h). Every form of every collective runs
 * through xchg_call_run: a blocking call on the caller's stack, a
 * nonblocking one inside its task (src/persistent.c starts it), so what a
 * call does (device check, selection, plan, run, accounting) is written
 * once. What differs between collectives is in one table (`kinds`): how
 * the plan is found (dense collectives cache plans by choice, the
 * neighbourhood collective by pattern, with its agreement), how it is given
 * back, and whether online selection times the call.
 */
#include "call.h"

#include "core/device.h"
#include "core/error.h"
#include "core/plan.h"
#include "core/task.h"
#include "select/online.h"
#include "select/select.h"

/* How a collective finds the plan of a call, and gives it back. */
typedef struct call_kind {
    int (*plan_of)(xchg_context *ctx, xchg_args *args, int nonblocking, xchg_plan **plan);
    void (*release)(xchg_plan *plan);
    int online; /* blocking calls are timed for online selection */
} call_kind;

/* Dense collectives: plans cached by choice (the selection agrees what it
 * needs, select.c); device buffers go to `mpi` (device.h). */
static int dense_plan(xchg_context *ctx, xchg_args *args, int nonblocking, xchg_plan **plan)
{
    xchg_choice choice;
    int device;
    int rc = xchg_device_route(ctx, args, &choice, &device);
    xchg_select_form form = nonblocking ? XCHG_SELECT_NONBLOCKING : XCHG_SELECT_BLOCKING;
    if (rc == MPI_SUCCESS && !device) rc = xchg_select_call(ctx, args, form, &choice);
    return rc == MPI_SUCCESS ? xchg_plan_get(ctx, &choice, plan) : rc;
}

static void keep_cached(xchg_plan *plan) { (void)plan; }

/* The neighbourhood collective's plans are cached by pattern, agreed where
 * every rank builds them (neighbor.c: xchg_neighbor_pattern_plan). */
static const call_kind dense = {dense_plan, keep_cached, 1};
static const call_kind kinds[XCHG_NUM_COLL] = {
    [XCHG_ALLTOALL] = dense,  [XCHG_ALLTOALLV] = dense,   [XCHG_ALLGATHER] = dense,
    [XCHG_ALLTOALLW] = dense, [XCHG_ALLGATHERV] = dense,
    [XCHG_NEIGHBOR_ALLTOALLV] = {xchg_neighbor_pattern_plan, xchg_plan_release, 0},
};

int xchg_call_run(xchg_context *ctx, xchg_args *args, int nonblocking)
{
    const call_kind *kind = &kinds[args->coll];
    xchg_plan *plan = NULL;
    int rc = xchg_context_ready(ctx);
    if (rc == MPI_SUCCESS) rc = kind->plan_of(ctx, args, nonblocking, &plan);
    if (rc != MPI_SUCCESS) return rc;
    int timed = kind->online && !nonblocking;
    double start = 0;
    if (timed) rc = xchg_online_start(ctx, &start); /* online selection times it */
    if (rc == MPI_SUCCESS) rc = xchg_plan_execute(plan, args);
    if (timed) { /* a failed run too: its time is agreed as "none" */
        int finished = xchg_online_finish(ctx, args, &plan->choice, start, rc);
        if (rc == MPI_SUCCESS) rc = finished;
    }
    kind->release(plan);
    return rc;
}

int xchg_call_blocking(xchg_context *ctx, xchg_args *args)
{
    int rc = xchg_task_drain(ctx);
    if (rc == MPI_SUCCESS) rc = xchg_call_run(ctx, args, 0);
    xchg_args_free(args);
    return rc;
}
