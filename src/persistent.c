/*
 * Requests: persistent and nonblocking collectives (include/xchg.h).
 *
 * XCHG_*_init builds a request that owns the call's normalized arguments
 * and a plan of its own (not cached), built with those arguments fixed, so
 * that an algorithm's init can do the metadata work of every later start
 * once. Init may block (MPI-4.1 makes persistent collective initialization
 * nonlocal); it first completes the communicator's outstanding tasks, so
 * its own collective setup is ordered alike on every rank.
 * XCHG_Start never waits for another rank. Single-round algorithms (those
 * with a post function: nonblocking, linear, mpi) post their messages into
 * the request's own array when no task of the communicator is outstanding;
 * every other start is a task (core/task.h) that runs the plan and suspends
 * at each wait. XCHG_Test / XCHG_Wait progress it (and every other task).
 * Device buffers (device.h) are decided at init: such a request runs `mpi`.
 * A nonblocking call (XCHG_Ialltoall, XCHG_Ineighbor_alltoallv, ...) is a
 * request started once, freed by its completion: it posts at once where a
 * persistent start would and its choice needs no message (post_now), else
 * its task runs the whole call (src/call.c: context setup, selection, plan,
 * run); a repeated `mpi` call holds the library's request
 * (nonblocking_fast.c).
 *
 * Freeing in flight. XCHG_Request_free of an active request returns at once
 * (MPI_Request_free marks the request for deallocation): its task is
 * detached (task.h) and runs on under progress; a start that posted its
 * messages gets a task that waits for them. The request is destroyed when
 * that task completes. Every request holds its communicator's context
 * (xchg_context_hold), so MPI_Comm_free of the communicator with calls in
 * flight, or with persistent requests alive, leaves the context to the last
 * of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/args.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "core/plan.h"
#include "core/task.h"
#include "call.h"
#include "nonblocking_fast.h"
#include "request.h"
#include "select/select.h"
#include "xchg.h"

struct xchg_request {
    MPI_Comm user_comm;  /* errors are raised through its handler */
    xchg_context *ctx;
    xchg_args args;      /* fixed at init */
    xchg_plan *plan;     /* owned (persistent); NULL: a nonblocking call */
    xchg_task *task;     /* the start in flight, when it is a task */
    int active;          /* started, not yet completed by Wait or Test */
    int result;          /* error code of the last start */
    MPI_Request *reqs;   /* algorithms with a post function: the messages */
    int nreqs;           /* in flight (2P slots) */
    MPI_Request library_request; /* reqs of a nonblocking call's fast path */
    int once;            /* a nonblocking call: freed by its completion */
};

/* The selection for a persistent call: the info key "xchg_algorithm" first,
 * then what a blocking call of the same shape would use. Its cost is paid
 * once, so this is where a collective agreement on the counts (e.g. the
 * global maximum and total bytes of an alltoallv) can inform the choice. */
static int select_persistent(xchg_context *ctx, const xchg_args *args, MPI_Info info,
                             xchg_choice *out)
{
    int rc = MPI_SUCCESS, found = 0;
    char text[256];
    if (info != MPI_INFO_NULL)
        XCHG_CHECK(MPI_Info_get(info, "xchg_algorithm", (int)sizeof text - 1, text, &found));
    if (!found) return xchg_select_call(ctx, args, XCHG_SELECT_INIT, out);
    XCHG_CHECK(xchg_choice_parse(args->coll, text, out));
    XCHG_CHECK(xchg_choice_fit(ctx, out));
fail:
    return rc;
}

/* Room for the messages of one start when the algorithm posts them. */
static int alloc_slots(struct xchg_request *req, const xchg_context *ctx)
{
    int rc = MPI_SUCCESS;
    size_t slots = req->args.coll == XCHG_NEIGHBOR_ALLTOALLV /* one per neighbour */
                       ? (size_t)req->args.neighbor.indegree + (size_t)req->args.neighbor.outdegree
                       : 2 * (size_t)ctx->size;
    if (req->plan->choice.algo->post) XCHG_ALLOC(req->reqs, (slots + 1) * sizeof(MPI_Request));
fail:
    return rc;
}

static void request_destroy(struct xchg_request *req)
{
    xchg_task_free(req->task); /* waits for it if it is still in flight */
    if (req->reqs != &req->library_request) free(req->reqs);
    xchg_plan_free(req->plan);
    xchg_args_free(&req->args);
    if (req->ctx) xchg_context_release(req->ctx);
    free(req);
}

/* Where a request's errors are raised: its communicator, unless freed. */
static MPI_Comm error_comm(const struct xchg_request *req)
{
    return req->ctx && req->ctx->user_freed ? MPI_COMM_NULL : req->user_comm;
}

int xchg_request_create(MPI_Comm user_comm, xchg_context *ctx, xchg_args *args, MPI_Info info,
                        XCHG_Request *request)
{
    int rc, device;
    xchg_choice choice;
    struct xchg_request *req = calloc(1, sizeof *req);
    if (!req) {
        xchg_args_free(args);
        return xchg_error(MPI_ERR_NO_MEM, "out of memory for a persistent request");
    }
    req->user_comm = user_comm;
    req->ctx = ctx;
    req->args = *args;
    XCHG_CHECK(xchg_args_hold_types(&req->args));
    XCHG_CHECK(xchg_task_drain(ctx));
    XCHG_CHECK(xchg_device_route(ctx, &req->args, &choice, &device));
    if (!device) XCHG_CHECK(select_persistent(ctx, &req->args, info, &choice));
    XCHG_CHECK(xchg_plan_create(ctx, &choice, &req->args, &req->plan));
    XCHG_CHECK(alloc_slots(req, ctx));
    xchg_context_hold(ctx);
    *request = req;
    return MPI_SUCCESS;
fail:
    xchg_plan_free(req->plan);
    xchg_args_free(&req->args);
    free(req);
    return rc;
}

/* The body of a nonblocking call's task. */
static int nonblocking_body(void *arg)
{
    struct xchg_request *req = arg;
    return xchg_call_run(req->ctx, &req->args, 1);
}

/* A nonblocking call that can post its messages now (*posted = 1), as a
 * persistent start does: its context is set up, no task of its
 * communicator is ahead of it, its choice is made without messages
 * (select.h: xchg_select_nonblocking_now; device.h: route) and is
 * single-round (a post function, an init that builds no window). It gets a
 * plan of its own for its arguments (an `mpi` alltoallv keeps the
 * displacements there until it completes) and completes in XCHG_Test /
 * XCHG_Wait with no task. Every rank chooses alike, whether it posts here
 * or in a task (a task of the same communicator may still run on another
 * rank): the choice reads only state every rank has alike once its earlier
 * calls on the communicator have started. Otherwise *posted = 0 and the
 * arguments are untouched: the call becomes a task. */
static int post_now(struct xchg_request *req, int *posted)
{
    xchg_context *ctx = req->ctx;
    xchg_choice choice;
    int rc = MPI_SUCCESS, chosen = 0, device = 0;
    *posted = 0;
    if (!ctx->ready || ctx->task_head || !xchg_device_route_is_local()) return MPI_SUCCESS;
    XCHG_CHECK(xchg_select_nonblocking_now(ctx, &req->args, &choice, &chosen));
    if (!chosen || !choice.algo->post || choice.algo->init_blocks) return MPI_SUCCESS;
    XCHG_CHECK(xchg_device_route(ctx, &req->args, &choice, &device));
    XCHG_CHECK(xchg_plan_create_once(ctx, &choice, &req->args, &req->plan));
    XCHG_CHECK(alloc_slots(req, ctx));
    *posted = 1;
    req->result = xchg_plan_post(req->plan, &req->args, req->reqs, &req->nreqs);
    if (req->result == MPI_SUCCESS && !device) xchg_nonblocking_fast_arm(ctx, &req->args, &choice);
fail:
    return rc;
}

int xchg_request_start_library(MPI_Comm user_comm, xchg_context *ctx,
                               const xchg_nonblocking_call *call, XCHG_Request *request,
                               int *taken)
{
    *taken = xchg_nonblocking_fast_takes(ctx, call);
    if (!*taken) return MPI_SUCCESS;
    struct xchg_request *req = calloc(1, sizeof *req);
    if (!req) return xchg_error(MPI_ERR_NO_MEM, "out of memory for a request");
    int rc = xchg_nonblocking_fast_post(ctx, call, &req->library_request);
    if (rc != MPI_SUCCESS) {
        free(req);
        return rc;
    }
    req->user_comm = user_comm;
    req->ctx = ctx;
    xchg_context_hold(ctx); /* released by request_destroy */
    req->args.coll = call->coll;
    req->reqs = &req->library_request;
    req->nreqs = 1;
    req->once = 1;
    req->active = 1;
    *request = req;
    return MPI_SUCCESS;
}

int xchg_request_start_nonblocking(MPI_Comm user_comm, xchg_context *ctx, xchg_args *args,
                                   XCHG_Request *request)
{
    int rc;
    struct xchg_request *req = calloc(1, sizeof *req);
    if (!req) {
        xchg_args_free(args);
        return xchg_error(MPI_ERR_NO_MEM, "out of memory for a request");
    }
    req->user_comm = user_comm;
    req->ctx = ctx;
    xchg_context_hold(ctx); /* released by request_destroy */
    req->args = *args;
    req->once = 1;
    req->active = 1;
    /* The neighbourhood's patterns are cached by their types: its calls keep
     * the caller's (every algorithm but locality posts all at the start). */
    if (req->args.coll != XCHG_NEIGHBOR_ALLTOALLV) XCHG_CHECK(xchg_args_hold_types(&req->args));
    int posted;
    XCHG_CHECK(post_now(req, &posted));
    if (!posted) XCHG_CHECK(xchg_task_start(ctx, nonblocking_body, req, &req->task));
    *request = req;
    return MPI_SUCCESS;
fail:
    request_destroy(req);
    return rc;
}

int XCHG_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    int rc = request ? MPI_SUCCESS : xchg_error(MPI_ERR_ARG, "request is NULL");
    if (rc == MPI_SUCCESS) rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS)
        rc = xchg_args_alltoallv(&args, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                 recvcounts, rdispls, recvtype, ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS) rc = xchg_request_create(comm, ctx, &args, info, request);
    return xchg_raise(comm, rc);
}

int XCHG_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    int rc = request ? MPI_SUCCESS : xchg_error(MPI_ERR_ARG, "request is NULL");
    if (rc == MPI_SUCCESS) rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS)
        rc = xchg_args_alltoallw(&args, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                 recvcounts, rdispls, recvtypes, ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS) rc = xchg_request_create(comm, ctx, &args, info, request);
    return xchg_raise(comm, rc);
}

int XCHG_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    int rc = request ? MPI_SUCCESS : xchg_error(MPI_ERR_ARG, "request is NULL");
    if (rc == MPI_SUCCESS) rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS)
        rc = xchg_args_alltoall(&args, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS) rc = xchg_request_create(comm, ctx, &args, info, request);
    return xchg_raise(comm, rc);
}

int XCHG_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    int rc = request ? MPI_SUCCESS : xchg_error(MPI_ERR_ARG, "request is NULL");
    if (rc == MPI_SUCCESS) rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS)
        rc = xchg_args_allgather(&args, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS) rc = xchg_request_create(comm, ctx, &args, info, request);
    return xchg_raise(comm, rc);
}

int XCHG_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int displs[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    int rc = request ? MPI_SUCCESS : xchg_error(MPI_ERR_ARG, "request is NULL");
    if (rc == MPI_SUCCESS) rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS)
        rc = xchg_args_allgatherv(&args, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                  displs, recvtype, ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS) rc = xchg_request_create(comm, ctx, &args, info, request);
    return xchg_raise(comm, rc);
}

/* The body of a persistent start's task: the plan, suspending at its waits
 * (single-round plans: their messages, posted behind earlier tasks). */
static int persistent_body(void *arg)
{
    struct xchg_request *req = arg;
    int count = 0, rc;
    if (!req->reqs) return xchg_plan_execute(req->plan, &req->args);
    rc = xchg_plan_post(req->plan, &req->args, req->reqs, &count);
    if (count > 0) {
        int waited = xchg_waitall(count, req->reqs, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS) rc = waited;
    }
    return rc;
}

int XCHG_Start(XCHG_Request *request)
{
    struct xchg_request *req = request ? *request : NULL;
    if (!req) return xchg_error(MPI_ERR_REQUEST, "XCHG_Start: the request is NULL");
    if (req->active)
        return xchg_raise(req->user_comm,
                          xchg_error(MPI_ERR_REQUEST, "XCHG_Start: the request is active already "
                                                      "(complete it with XCHG_Wait first)"));
    if (req->args.in_place) xchg_args_refresh_in_place(&req->args);
    req->nreqs = 0;
    req->result = MPI_SUCCESS;
    req->active = 1;
    if (req->reqs && req->ctx->task_head == NULL) /* single round, nothing ahead */
        req->result = xchg_plan_post(req->plan, &req->args, req->reqs, &req->nreqs);
    else
        req->result = xchg_task_start(req->ctx, persistent_body, req, &req->task);
    return MPI_SUCCESS; /* the exchange's own errors are reported at completion */
}

int XCHG_Progress(int *pending)
{
    xchg_progress();
    if (pending) *pending = xchg_tasks_outstanding();
    return MPI_SUCCESS;
}

int XCHG_Startall(int count, XCHG_Request requests[])
{
    if (count < 0 || (count > 0 && !requests))
        return xchg_error(MPI_ERR_ARG, "XCHG_Startall: bad count or array");
    for (int i = 0; i < count; i++) {
        int rc = XCHG_Start(&requests[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

static void empty_status(MPI_Status *status, int error)
{
    if (status == MPI_STATUS_IGNORE) return;
    memset(status, 0, sizeof *status);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = error;
}

/* Test (wait = 0) or wait for completion. */
static int complete(XCHG_Request *request, int wait, int *flag, MPI_Status *status)
{
    struct xchg_request *req = request ? *request : NULL;
    if (!flag) return xchg_error(MPI_ERR_ARG, "XCHG_Test: flag is NULL");
    *flag = 1;
    if (!req || !req->active) { /* a null or inactive request completes at once */
        empty_status(status, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    if (req->task) { /* a task: progress it (and every other) */
        if (!wait && !xchg_task_test(req->task)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
        int rc = xchg_task_free(req->task);
        req->task = NULL;
        if (req->result == MPI_SUCCESS) req->result = rc;
    }
    if (req->nreqs > 0) { /* posted messages: complete them (all, also after an error) */
        xchg_progress();
        int rc = wait ? xchg_waitall(req->nreqs, req->reqs, MPI_STATUSES_IGNORE)
                      : xchg_testall(req->nreqs, req->reqs, flag, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS && !wait)
            rc = xchg_waitall(req->nreqs, req->reqs, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS && !*flag) return MPI_SUCCESS; /* still in flight */
        if (req->result == MPI_SUCCESS) req->result = rc;
        *flag = 1;
        req->nreqs = 0;
    }
    req->active = 0;
    empty_status(status, req->result);
    MPI_Comm user_comm = error_comm(req);
    int result = req->result;
    if (req->once) { /* a nonblocking call's request ends with it */
        request_destroy(req);
        *request = XCHG_REQUEST_NULL;
    }
    return xchg_raise(user_comm, result);
}

int XCHG_Test(XCHG_Request *request, int *flag, MPI_Status *status)
{
    return complete(request, 0, flag, status);
}

int XCHG_Wait(XCHG_Request *request, MPI_Status *status)
{
    int flag;
    return complete(request, 1, &flag, status);
}

/* A freed request's task has completed (xchg_task_detach): the request
 * goes too. Its error has nobody to go to (MPI: such an error is fatal). */
static void detached_done(void *arg, int result)
{
    struct xchg_request *req = arg;
    req->task = NULL;
    if (result == MPI_SUCCESS) result = req->result;
    if (result != MPI_SUCCESS)
        fprintf(stderr, "xchg: an operation whose request was freed failed (MPI error %d)\n",
                result);
    request_destroy(req);
}

/* The task of a freed request whose start posted its messages: their wait. */
static int posted_body(void *arg)
{
    struct xchg_request *req = arg;
    return xchg_waitall(req->nreqs, req->reqs, MPI_STATUSES_IGNORE);
}

int XCHG_Request_free(XCHG_Request *request)
{
    if (!request || !*request) return xchg_error(MPI_ERR_REQUEST, "XCHG_Request_free: NULL");
    struct xchg_request *req = *request;
    *request = XCHG_REQUEST_NULL;
    if (req->nreqs > 0 && !req->task &&
        xchg_task_start(req->ctx, posted_body, req, &req->task) != MPI_SUCCESS) {
        /* no task to wait for them: complete the messages here */
        xchg_waitall(req->nreqs, req->reqs, MPI_STATUSES_IGNORE);
        req->nreqs = 0;
    }
    if (req->task) { /* in flight: the operation completes later (detached_done) */
        xchg_task_detach(req->task, detached_done, req);
        return MPI_SUCCESS;
    }
    request_destroy(req);
    return MPI_SUCCESS;
}

const xchg_plan *xchg_request_plan(XCHG_Request request, const xchg_args **args)
{
    if (!request) return NULL;
    if (args) *args = &request->args;
    return request->plan;
}
