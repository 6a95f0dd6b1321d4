/*
 * The fast path's front for alltoall, allgather and alltoallv, inline in
 * their entry points (api.c); what the path is and when it takes a call:
 * online_fast.c.
 *
 * A decided `mpi` outside a timed run, the case where xchg steps aside,
 * goes from here to PMPI within the entry point, on the user's own
 * communicator (src/coll/mpi/mpi.c): no call of a function of xchg's own,
 * and one line of online selection's state and one of the context (besides
 * the context lookup's, context.h). A kept choice's plan and a timed run's
 * calls continue in online_fast.c. On this project's 2-core machine (4
 * ranks, 2 per core, where a rank finds its caches partly the other's) the
 * path out of line made MPI's own alltoall through xchg 1.022-1.026x the
 * direct call, inline 1.016-1.018x, and with the call on the user's
 * communicator instead of xchg's duplicate 1.007-1.014x (alltoall,
 * allgather, alltoallv), where a bare wrapper reads 0.998-1.003x
 * (docs/results/selection/online/goal/, "The path").
 */
#ifndef XCHG_SELECT_ONLINE_FAST_H
#define XCHG_SELECT_ONLINE_FAST_H

#include "../core/error.h" /* xchg_library_result */
#include "../core/hot.h"
#include "online_state.h"
#include "select.h" /* xchg_select_sampled_agrees_at */

/* A call of a timed run takes the fast path only while the environment
 * still leaves the choice to online selection (online_fast.c). */
int xchg_online_run_still_automatic(xchg_coll coll);

/* A call of the signature behind f (sig >= 0): decided, the path takes it
 * unless the signature is due for a drift sample or for exploring again,
 * which the normal path does (xchg_online_choose's schedule); in a timed
 * run, while the run has calls left. Counted into the signature later
 * (xchg_online_fast_release), so that a call reads only f's first line. */
static XCHG_INLINE_PATH int xchg_online_take_decided(xchg_context *ctx, xchg_online_fast *f,
                                                     xchg_coll coll)
{
    if (!f->calls_left || (f->timed && !xchg_online_run_still_automatic(coll))) return 0;
    f->calls_left--;
    f->calls++;
    f->last_use = ++ctx->online_clock;
    return 1;
}

/* alltoallv, alltoallw, automatic: the path takes a call only between
 * agreements of sizes (XCHG_AGREE=sampled's schedule, select.c; a time
 * waiting to be agreed makes the next call agree), and as take_decided
 * says; the call counts in the schedule. */
static XCHG_INLINE_PATH int xchg_online_v_decided(xchg_context *ctx, xchg_online_fast *f,
                                                 xchg_coll coll)
{
    xchg_select_memory *m = &ctx->selection.memory[coll];
    if (ctx->online->pending[coll].armed || xchg_select_sampled_agrees_at(m->calls) ||
        !xchg_online_take_decided(ctx, f, coll))
        return 0;
    m->calls++;
    return 1;
}

/* After a call the path took: counted; for `mpi`, said in ctx->last (what
 * XCHG_Comm_get_algorithm reads) unless it still says so, that is unless a
 * call ran a plan since (another choice: xchg_plan_execute accounted it). */
void xchg_online_account_mpi(xchg_context *ctx, xchg_coll coll, xchg_online_fast *f);
static XCHG_INLINE_PATH void xchg_online_account(xchg_context *ctx, xchg_coll coll,
                                                  xchg_online_fast *f)
{
    f->fast_calls++;
    if (f->is_mpi && f->accounted != ctx->accounted_calls) xchg_online_account_mpi(ctx, coll, f);
}

/* The rest of the path (online_fast.c): a kept choice, a timed run. */
int xchg_online_fast_uniform_rest(xchg_context *ctx, xchg_coll coll, xchg_online_fast *f,
                                  const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int *rc);

/* alltoall, allgather: 1 when the path took the call (its result in *rc),
 * 0 when the normal path must run. */
static XCHG_INLINE_PATH int xchg_online_fast_uniform(xchg_context *ctx, xchg_coll coll,
                                                     const void *sendbuf, int sendcount,
                                                     MPI_Datatype sendtype, void *recvbuf,
                                                     int recvcount, MPI_Datatype recvtype, int *rc)
{
    xchg_online *o = ctx->online;
    if (!o || ctx->task_head) return 0; /* tasks first, in MPI's order */
    xchg_online_fast *f = &o->fast[coll];
    int in_place = sendbuf == MPI_IN_PLACE;
    if (!f->armed || f->in_place != in_place || f->recvcount != recvcount ||
        f->recvtype != recvtype || !recvbuf ||
        (!in_place && (f->sendcount != sendcount || f->sendtype != sendtype || !sendbuf)))
        return 0;
    if (!f->is_mpi || f->timed)
        return xchg_online_fast_uniform_rest(ctx, coll, f, sendbuf, sendcount, sendtype, recvbuf,
                                             recvcount, recvtype, rc);
    if (f->sig >= 0 && !xchg_online_take_decided(ctx, f, coll)) return 0; /* automatic */
    if (coll == XCHG_ALLTOALL) {
        *rc = xchg_library_result(MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                               recvtype, ctx->user_comm),
                                  "MPI_Alltoall");
    } else {
        *rc = xchg_library_result(MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                recvtype, ctx->user_comm),
                                  "MPI_Allgather");
    }
    xchg_online_account(ctx, coll, f);
    return 1;
}

/* The rest of alltoallv's path (online_fast.c): a kept choice, a timed run. */
int xchg_online_fast_alltoallv_rest(xchg_context *ctx, xchg_online_fast *f, const void *sendbuf,
                                    const int *sendcounts, const int *sdispls,
                                    MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                    const int *rdispls, MPI_Datatype recvtype, int *rc);

/* alltoallv (any counts: online_fast.c): as xchg_online_fast_uniform. */
static XCHG_INLINE_PATH int xchg_online_fast_alltoallv(xchg_context *ctx, const void *sendbuf,
                                                       const int *sendcounts, const int *sdispls,
                                                       MPI_Datatype sendtype, void *recvbuf,
                                                       const int *recvcounts, const int *rdispls,
                                                       MPI_Datatype recvtype, int *rc)
{
    xchg_online *o = ctx->online;
    if (!o || ctx->task_head) return 0; /* tasks first, in MPI's order */
    xchg_online_fast *f = &o->fast[XCHG_ALLTOALLV];
    int in_place = sendbuf == MPI_IN_PLACE;
    if (!f->armed || f->in_place != in_place || !recvbuf || !recvcounts || !rdispls ||
        (!in_place && (!sendbuf || !sendcounts || !sdispls)))
        return 0;
    if (!f->is_mpi || f->timed)
        return xchg_online_fast_alltoallv_rest(ctx, f, sendbuf, sendcounts, sdispls, sendtype,
                                               recvbuf, recvcounts, rdispls, recvtype, rc);
    if (!xchg_online_is_explicit(f->sig) && !xchg_online_v_decided(ctx, f, XCHG_ALLTOALLV))
        return 0; /* automatic: only between agreements */
    *rc = xchg_library_result(MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                            recvcounts, rdispls, recvtype, ctx->user_comm),
                              "MPI_Alltoallv");
    xchg_online_account(ctx, XCHG_ALLTOALLV, f);
    return 1;
}

#endif
