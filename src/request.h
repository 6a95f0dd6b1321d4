/* The persistent request (src/persistent.c), shared with the neighbourhood
 * collectives (src/neighbor.c). */
#ifndef XCHG_REQUEST_H
#define XCHG_REQUEST_H

#include "core/args.h"
#include "core/context.h"
#include "core/plan.h"
#include "nonblocking_fast.h"
#include "xchg.h"

/* Select the algorithm (info key "xchg_algorithm" first), build a plan of the
 * request's own with *args fixed, and return the request. Takes ownership of
 * *args (freed on failure too). Collective when the algorithm's init is. */
int xchg_request_create(MPI_Comm user_comm, xchg_context *ctx, xchg_args *args, MPI_Info info,
                        XCHG_Request *request);

/* A nonblocking call: a request freed by the XCHG_Wait or XCHG_Test that
 * completes it, whose messages are posted at once where the call can
 * choose without messages and posts in one round (persistent.c:
 * post_now), else whose task runs the whole call (xchg_call_run). Never
 * waits for another rank. Takes ownership of *args. */
int xchg_request_start_nonblocking(MPI_Comm user_comm, xchg_context *ctx, xchg_args *args,
                                   XCHG_Request *request);

/* The same through the fast path of nonblocking `mpi` calls
 * (nonblocking_fast.h), before any normalization: *taken = 1 when the path
 * took the call (a request holding the library's, or its error), else 0
 * and nothing happened. */
int xchg_request_start_library(MPI_Comm user_comm, xchg_context *ctx,
                               const xchg_nonblocking_call *call, XCHG_Request *request,
                               int *taken);

/* The plan and fixed arguments of a persistent request (NULL for a NULL
 * request); for XCHG_Neighbor_stats_get. */
const xchg_plan *xchg_request_plan(XCHG_Request request, const xchg_args **args);

#endif
