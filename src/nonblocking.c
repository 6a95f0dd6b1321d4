/*
 * The nonblocking dense collectives (XCHG_Ialltoall and friends): normalize
 * and validate like the blocking call, then start a request of their own
 * that their completion frees (src/persistent.c). Alltoall, allgather and
 * alltoallv first try the fast path of a call that runs the MPI library's
 * own collective (nonblocking_fast.c), which takes a call of a shape whose
 * normal path posted `mpi` before.
 */
#include "core/args.h"
#include "core/context.h"
#include "core/error.h"
#include "nonblocking_fast.h"
#include "request.h"
#include "xchg.h"

static int request_arg(XCHG_Request *request)
{
    if (!request) return xchg_error(MPI_ERR_ARG, "request is NULL");
    *request = XCHG_REQUEST_NULL;
    return MPI_SUCCESS;
}

int XCHG_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    xchg_nonblocking_call call = {XCHG_ALLTOALL, sendbuf, &sendcount, NULL, sendtype,
                                  recvbuf,       &recvcount, NULL, recvtype};
    int taken = 0, rc = request_arg(request);
    if (rc == MPI_SUCCESS) rc = xchg_context_get_nonblocking(comm, &ctx);
    if (rc == MPI_SUCCESS) rc = xchg_request_start_library(comm, ctx, &call, request, &taken);
    if (rc == MPI_SUCCESS && !taken)
        rc = xchg_args_alltoall(&args, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS && !taken)
        rc = xchg_request_start_nonblocking(comm, ctx, &args, request);
    return xchg_raise(comm, rc);
}

int XCHG_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    xchg_nonblocking_call call = {XCHG_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype,
                                  recvbuf,        recvcounts, rdispls, recvtype};
    int taken = 0, rc = request_arg(request);
    if (rc == MPI_SUCCESS) rc = xchg_context_get_nonblocking(comm, &ctx);
    if (rc == MPI_SUCCESS) rc = xchg_request_start_library(comm, ctx, &call, request, &taken);
    if (rc == MPI_SUCCESS && !taken)
        rc = xchg_args_alltoallv(&args, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                 recvcounts, rdispls, recvtype, ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS && !taken)
        rc = xchg_request_start_nonblocking(comm, ctx, &args, request);
    return xchg_raise(comm, rc);
}

int XCHG_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    int rc = request_arg(request);
    if (rc == MPI_SUCCESS) rc = xchg_context_get_nonblocking(comm, &ctx);
    if (rc == MPI_SUCCESS)
        rc = xchg_args_alltoallw(&args, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                 recvcounts, rdispls, recvtypes, ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS) rc = xchg_request_start_nonblocking(comm, ctx, &args, request);
    return xchg_raise(comm, rc);
}

int XCHG_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    xchg_nonblocking_call call = {XCHG_ALLGATHER, sendbuf, &sendcount, NULL, sendtype,
                                  recvbuf,        &recvcount, NULL, recvtype};
    int taken = 0, rc = request_arg(request);
    if (rc == MPI_SUCCESS) rc = xchg_context_get_nonblocking(comm, &ctx);
    if (rc == MPI_SUCCESS) rc = xchg_request_start_library(comm, ctx, &call, request, &taken);
    if (rc == MPI_SUCCESS && !taken)
        rc = xchg_args_allgather(&args, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS && !taken)
        rc = xchg_request_start_nonblocking(comm, ctx, &args, request);
    return xchg_raise(comm, rc);
}

int XCHG_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm comm, XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    int rc = request_arg(request);
    if (rc == MPI_SUCCESS) rc = xchg_context_get_nonblocking(comm, &ctx);
    if (rc == MPI_SUCCESS)
        rc = xchg_args_allgatherv(&args, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                  displs, recvtype, ctx->comm, ctx->rank, ctx->size);
    if (rc == MPI_SUCCESS) rc = xchg_request_start_nonblocking(comm, ctx, &args, request);
    return xchg_raise(comm, rc);
}
