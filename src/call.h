/*
 * One call of a collective (src/call.c): what a blocking call runs on the
 * caller's stack, and a nonblocking call runs as a task.
 */
#ifndef XCHG_CALL_H
#define XCHG_CALL_H

#include "core/args.h"
#include "core/context.h"

/* Make the context ready, route device buffers, select, find or build the
 * plan, run it. `nonblocking`: the call is a task (its selection is that of
 * a persistent call, without online exploration; a plan whose init would
 * block runs the collective's fallback, plan.c). Does not free args. */
int xchg_call_run(xchg_context *ctx, xchg_args *args, int nonblocking);

/* A blocking call: complete the communicator's outstanding tasks (MPI's
 * order), then xchg_call_run on this stack. Frees args. */
int xchg_call_blocking(xchg_context *ctx, xchg_args *args);

/* The neighbourhood collective's plan for this call's pattern (neighbor.c),
 * borrowed: xchg_plan_release it. */
int xchg_neighbor_pattern_plan(xchg_context *ctx, xchg_args *args, int nonblocking,
                               xchg_plan **plan);

#endif
