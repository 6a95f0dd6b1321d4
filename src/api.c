/*
 * The blocking entry points: find the communicator's context, normalize and
 * validate the arguments (locally, before any message, so a detected error
 * writes nothing), run the call (src/call.c: device check, selection, plan,
 * run), and report errors through the user's error handler. A call whose
 * shape was last decided goes the fast path instead: straight to the MPI
 * library for `mpi`, to the cached plan for another choice
 * (src/select/online_fast.c says when, and which checks it keeps). Each
 * entry point is the fast path's (XCHG_HOT, src/core/hot.h) and calls its
 * normal path, a function of its own, only when that declines.
 */
#include <stdio.h>
#include <string.h>

#include "call.h"
#include "core/args.h"
#include "core/context.h"
#include "core/error.h"
#include "core/hot.h"
#include "neighbor_fast.h"
#include "nonblocking_fast.h"
#include "select/online.h"
#include "select/online_fast.h" /* alltoall's and allgather's front, inline */
#include "select/select.h"
#include "xchg.h"

/* xchg_raise, with the successful call's test inline (the path around a
 * small call counts its instructions). */
static inline int raised(MPI_Comm comm, int rc)
{
    return rc == MPI_SUCCESS ? rc : xchg_raise(comm, rc);
}

static XCHG_NORMAL_PATH int alltoallv_normal(xchg_context *ctx, const void *sendbuf,
                                              const int sendcounts[], const int sdispls[],
                                              MPI_Datatype sendtype, void *recvbuf,
                                              const int recvcounts[], const int rdispls[],
                                              MPI_Datatype recvtype)
{
    xchg_args args;
    int rc = xchg_args_alltoallv(&args, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                 recvcounts, rdispls, recvtype, ctx->comm, ctx->rank, ctx->size);
    return rc == MPI_SUCCESS ? xchg_call_blocking(ctx, &args) : rc;
}

XCHG_HOT
int XCHG_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    xchg_context *ctx;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS && !xchg_online_fast_alltoallv(ctx, sendbuf, sendcounts, sdispls,
                                                         sendtype, recvbuf, recvcounts, rdispls,
                                                         recvtype, &rc))
        rc = alltoallv_normal(ctx, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype);
    return raised(comm, rc);
}

static XCHG_NORMAL_PATH int alltoallw_normal(xchg_context *ctx, const void *sendbuf,
                                              const int sendcounts[], const int sdispls[],
                                              const MPI_Datatype sendtypes[], void *recvbuf,
                                              const int recvcounts[], const int rdispls[],
                                              const MPI_Datatype recvtypes[])
{
    xchg_args args;
    int rc = xchg_args_alltoallw(&args, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                 recvcounts, rdispls, recvtypes, ctx->comm, ctx->rank, ctx->size);
    return rc == MPI_SUCCESS ? xchg_call_blocking(ctx, &args) : rc;
}

XCHG_HOT
int XCHG_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    xchg_context *ctx;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS && !xchg_online_fast_alltoallw(ctx, sendbuf, sendcounts, sdispls,
                                                         sendtypes, recvbuf, recvcounts, rdispls,
                                                         recvtypes, &rc))
        rc = alltoallw_normal(ctx, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                              rdispls, recvtypes);
    return raised(comm, rc);
}

/* alltoall's and allgather's argument normalization (core/args.h). */
typedef int (*uniform_args_fn)(xchg_args *a, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, int rank, int size);

/* The normal path of alltoall and allgather: their arguments by `normalize`. */
static XCHG_NORMAL_PATH int uniform_normal(xchg_context *ctx, uniform_args_fn normalize,
                                            const void *sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                            MPI_Datatype recvtype)
{
    xchg_args args;
    int rc = normalize(&args, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       ctx->comm, ctx->rank, ctx->size);
    return rc == MPI_SUCCESS ? xchg_call_blocking(ctx, &args) : rc;
}

XCHG_HOT
int XCHG_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    xchg_context *ctx;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS && !xchg_online_fast_uniform(ctx, XCHG_ALLTOALL, sendbuf, sendcount,
                                                       sendtype, recvbuf, recvcount, recvtype, &rc))
        rc = uniform_normal(ctx, xchg_args_alltoall, sendbuf, sendcount, sendtype, recvbuf,
                            recvcount, recvtype);
    return raised(comm, rc);
}

XCHG_HOT
int XCHG_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    xchg_context *ctx;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS && !xchg_online_fast_uniform(ctx, XCHG_ALLGATHER, sendbuf, sendcount,
                                                       sendtype, recvbuf, recvcount, recvtype, &rc))
        rc = uniform_normal(ctx, xchg_args_allgather, sendbuf, sendcount, sendtype, recvbuf,
                            recvcount, recvtype);
    return raised(comm, rc);
}

static XCHG_NORMAL_PATH int allgatherv_normal(xchg_context *ctx, const void *sendbuf, int sendcount,
                                               MPI_Datatype sendtype, void *recvbuf,
                                               const int recvcounts[], const int displs[],
                                               MPI_Datatype recvtype)
{
    xchg_args args;
    int rc = xchg_args_allgatherv(&args, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, ctx->comm, ctx->rank, ctx->size);
    return rc == MPI_SUCCESS ? xchg_call_blocking(ctx, &args) : rc;
}

XCHG_HOT
int XCHG_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    xchg_context *ctx;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS && !xchg_online_fast_allgatherv(ctx, sendbuf, sendcount, sendtype,
                                                          recvbuf, recvcounts, displs, recvtype,
                                                          &rc))
        rc = allgatherv_normal(ctx, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype);
    return raised(comm, rc);
}

int XCHG_Comm_set_algorithm(MPI_Comm comm, const char *collective, const char *selection)
{
    xchg_context *ctx;
    xchg_coll coll;
    xchg_choice choice;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS) rc = xchg_coll_from_name(collective, &coll);
    if (rc == MPI_SUCCESS) xchg_online_disarm(ctx, coll);
    if (rc == MPI_SUCCESS) xchg_nonblocking_fast_disarm(ctx, coll);
    if (rc == MPI_SUCCESS && coll == XCHG_NEIGHBOR_ALLTOALLV) xchg_neighbor_fast_disarm(ctx);
    if (rc == MPI_SUCCESS && (selection == NULL || *selection == '\0')) {
        ctx->has_override[coll] = 0;
        return MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS) rc = xchg_choice_parse(coll, selection, &choice);
    if (rc == MPI_SUCCESS) rc = xchg_choice_fit(ctx, &choice);
    if (rc == MPI_SUCCESS) {
        ctx->override[coll] = choice;
        ctx->has_override[coll] = 1;
    }
    return xchg_raise(comm, rc);
}

int XCHG_Comm_get_algorithm(MPI_Comm comm, const char *collective, int last_used,
                            long long bytes_per_peer, char *buf, int buflen)
{
    xchg_context *ctx;
    xchg_coll coll;
    xchg_choice choice;
    if (!buf || buflen <= 0) return xchg_raise(comm, xchg_error(MPI_ERR_ARG, "no output buffer"));
    buf[0] = '\0';
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS) rc = xchg_coll_from_name(collective, &coll);
    if (rc == MPI_SUCCESS && last_used) {
        if (ctx->has_last[coll]) xchg_choice_format(&ctx->last[coll], buf, (size_t)buflen);
        return MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS)
        rc = xchg_select_local(ctx, coll, bytes_per_peer, &choice);
    if (rc == MPI_SUCCESS) xchg_choice_format(&choice, buf, (size_t)buflen);
    return xchg_raise(comm, rc);
}

int XCHG_Comm_get_scratch_peak(MPI_Comm comm, const char *collective, long long *bytes)
{
    xchg_context *ctx;
    xchg_coll coll;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS) rc = xchg_coll_from_name(collective, &coll);
    if (rc == MPI_SUCCESS) *bytes = (long long)ctx->last_scratch_peak[coll];
    return xchg_raise(comm, rc);
}

int XCHG_Comm_get_phase_times(MPI_Comm comm, int max, const char **names, double *seconds,
                              int *count)
{
    xchg_context *ctx;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS && (!count || (max > 0 && (!names || !seconds))))
        rc = xchg_error(MPI_ERR_ARG, "count, names or seconds is NULL");
    if (rc == MPI_SUCCESS) {
        *count = ctx->phases.count < max ? ctx->phases.count : (max > 0 ? max : 0);
        for (int i = 0; i < *count; i++) {
            names[i] = ctx->phases.name[i];
            seconds[i] = ctx->phases.seconds[i];
        }
    }
    return xchg_raise(comm, rc);
}
