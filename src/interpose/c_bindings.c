/*
 * The C entry points of the drop-in library. Preloaded (LD_PRELOAD) or linked
 * before the MPI library, these definitions take the place of the MPI
 * library's own MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw, MPI_Allgather,
 * MPI_Allgatherv, their nonblocking forms (MPI_Ialltoall, MPI_Ialltoallv,
 * MPI_Ialltoallw, MPI_Iallgather, MPI_Iallgatherv), their persistent forms
 * where the MPI has them (MPI-4's MPI_Alltoall_init, ... in MPICH 4; Open
 * MPI 4.1's MPIX_Alltoall_init, ... from <mpi-ext.h>; CMake detects each,
 * src/interpose/CMakeLists.txt), the neighbourhood alltoallv (blocking,
 * nonblocking, and persistent where the MPI has MPI-4's
 * MPI_Neighbor_alltoallv_init or Open MPI 4.1's MPIX_Neighbor_alltoallv_init)
 * and MPI_Finalize; the MPI library's versions
 * stay reachable as PMPI_* (PMPIX_*). The completion functions (MPI_Wait,
 * MPI_Test and their array forms, MPI_Start, MPI_Request_free, ...) are
 * defined too, so that the requests of xchg's nonblocking and persistent
 * calls complete in them (requests.h); without such requests they go
 * straight to MPI's.
 *
 * They also catch Fortran callers wherever the MPI's Fortran bindings call the
 * C MPI_ functions (MPICH, including mpi_f08); Open MPI's call PMPI_ and are
 * caught in fortran.c, fortran_requests.c and fortran_completion.c instead. The large-count (MPI_Alltoall_c) variants are not
 * defined here, so they reach the MPI library unchanged.
 */
#include <mpi.h>
#ifdef XCHG_HAVE_MPI_EXT_H
#include <mpi-ext.h> /* Open MPI's MPIX_Alltoall_init, ... */
#endif

#include "requests.h"
#include "route.h"

#define XCHG_EXPORT __attribute__((visibility("default")))

XCHG_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return xchg_ip_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

XCHG_EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return xchg_ip_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                             recvtype, comm);
}

XCHG_EXPORT int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf,
                              const int recvcounts[], const int rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return xchg_ip_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                             rdispls, recvtypes, comm);
}

XCHG_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return xchg_ip_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

XCHG_EXPORT int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    return xchg_ip_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              comm);
}

XCHG_EXPORT int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request)
{
    return xchg_ip_ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             request);
}

XCHG_EXPORT int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request)
{
    return xchg_ip_ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm, request);
}

XCHG_EXPORT int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf,
                               const int recvcounts[], const int rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request *request)
{
    return xchg_ip_ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                              rdispls, recvtypes, comm, request);
}

XCHG_EXPORT int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    return xchg_ip_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              request);
}

XCHG_EXPORT int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return xchg_ip_iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm, request);
}

/* The persistent forms, MPI_ (MPI-4) and MPIX_ (Open MPI 4.1) alike: PREFIX is
 * MPI or MPIX; the MPI library's own is P##PREFIX (PMPI_, PMPIX_). */
#define XCHG_IP_UNIFORM_INIT(PREFIX, Coll, route)                                               \
    XCHG_EXPORT int PREFIX##_##Coll##_init(const void *sendbuf, int sendcount,                   \
                                           MPI_Datatype sendtype, void *recvbuf, int recvcount,   \
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,   \
                                           MPI_Request *request)                                  \
    {                                                                                             \
        return route(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,      \
                     request, P##PREFIX##_##Coll##_init);                                         \
    }
#define XCHG_IP_ALLTOALLV_INIT(PREFIX)                                                           \
    XCHG_EXPORT int PREFIX##_Alltoallv_init(                                                     \
        const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,  \
        void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,        \
        MPI_Comm comm, MPI_Info info, MPI_Request *request)                                      \
    {                                                                                             \
        return xchg_ip_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf,           \
                                      recvcounts, rdispls, recvtype, comm, info, request,         \
                                      P##PREFIX##_Alltoallv_init);                                \
    }
#define XCHG_IP_ALLTOALLW_INIT(PREFIX)                                                           \
    XCHG_EXPORT int PREFIX##_Alltoallw_init(                                                     \
        const void *sendbuf, const int sendcounts[], const int sdispls[],                        \
        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                   \
        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,       \
        MPI_Request *request)                                                                    \
    {                                                                                             \
        return xchg_ip_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,          \
                                      recvcounts, rdispls, recvtypes, comm, info, request,        \
                                      P##PREFIX##_Alltoallw_init);                                \
    }
#define XCHG_IP_ALLGATHERV_INIT(PREFIX)                                                          \
    XCHG_EXPORT int PREFIX##_Allgatherv_init(                                                    \
        const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,        \
        MPI_Info info, MPI_Request *request)                                                     \
    {                                                                                             \
        return xchg_ip_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts,        \
                                       displs, recvtype, comm, info, request,                    \
                                       P##PREFIX##_Allgatherv_init);                              \
    }

#ifdef XCHG_IP_HAVE_MPI_ALLTOALL_INIT
XCHG_IP_UNIFORM_INIT(MPI, Alltoall, xchg_ip_alltoall_init)
#endif
#ifdef XCHG_IP_HAVE_MPIX_ALLTOALL_INIT
XCHG_IP_UNIFORM_INIT(MPIX, Alltoall, xchg_ip_alltoall_init)
#endif
#ifdef XCHG_IP_HAVE_MPI_ALLGATHER_INIT
XCHG_IP_UNIFORM_INIT(MPI, Allgather, xchg_ip_allgather_init)
#endif
#ifdef XCHG_IP_HAVE_MPIX_ALLGATHER_INIT
XCHG_IP_UNIFORM_INIT(MPIX, Allgather, xchg_ip_allgather_init)
#endif
#ifdef XCHG_IP_HAVE_MPI_ALLTOALLV_INIT
XCHG_IP_ALLTOALLV_INIT(MPI)
#endif
#ifdef XCHG_IP_HAVE_MPIX_ALLTOALLV_INIT
XCHG_IP_ALLTOALLV_INIT(MPIX)
#endif
#ifdef XCHG_IP_HAVE_MPI_ALLTOALLW_INIT
XCHG_IP_ALLTOALLW_INIT(MPI)
#endif
#ifdef XCHG_IP_HAVE_MPIX_ALLTOALLW_INIT
XCHG_IP_ALLTOALLW_INIT(MPIX)
#endif
#ifdef XCHG_IP_HAVE_MPI_ALLGATHERV_INIT
XCHG_IP_ALLGATHERV_INIT(MPI)
#endif
#ifdef XCHG_IP_HAVE_MPIX_ALLGATHERV_INIT
XCHG_IP_ALLGATHERV_INIT(MPIX)
#endif

XCHG_EXPORT int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm)
{
    return xchg_ip_neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                      recvcounts, rdispls, recvtype, comm);
}

XCHG_EXPORT int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                        const int sdispls[], MPI_Datatype sendtype,
                                        void *recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Request *request)
{
    return xchg_ip_ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                       recvcounts, rdispls, recvtype, comm, request);
}

/* MPI_Neighbor_alltoallv_init (MPI-4) and MPIX_Neighbor_alltoallv_init (Open MPI 4.1). */
#define XCHG_IP_NEIGHBOR_ALLTOALLV_INIT(PREFIX)                                                  \
    XCHG_EXPORT int PREFIX##_Neighbor_alltoallv_init(                                            \
        const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,  \
        void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,        \
        MPI_Comm comm, MPI_Info info, MPI_Request *request)                                      \
    {                                                                                             \
        return xchg_ip_neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf,  \
                                               recvcounts, rdispls, recvtype, comm, info,        \
                                               request, P##PREFIX##_Neighbor_alltoallv_init);    \
    }
#ifdef XCHG_IP_HAVE_MPI_NEIGHBOR_ALLTOALLV_INIT
XCHG_IP_NEIGHBOR_ALLTOALLV_INIT(MPI)
#endif
#ifdef XCHG_IP_HAVE_MPIX_NEIGHBOR_ALLTOALLV_INIT
XCHG_IP_NEIGHBOR_ALLTOALLV_INIT(MPIX)
#endif

XCHG_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    return xchg_ip_wait(request, status);
}

XCHG_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    return xchg_ip_test(request, flag, status);
}

XCHG_EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    return xchg_ip_waitall(count, requests, statuses);
}

XCHG_EXPORT int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    return xchg_ip_testall(count, requests, flag, statuses);
}

XCHG_EXPORT int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    return xchg_ip_waitany(count, requests, index, status);
}

XCHG_EXPORT int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                            MPI_Status *status)
{
    return xchg_ip_testany(count, requests, index, flag, status);
}

XCHG_EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                             MPI_Status statuses[])
{
    return xchg_ip_waitsome(incount, requests, outcount, indices, statuses);
}

XCHG_EXPORT int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                             MPI_Status statuses[])
{
    return xchg_ip_testsome(incount, requests, outcount, indices, statuses);
}

XCHG_EXPORT int MPI_Start(MPI_Request *request)
{
    return xchg_ip_start(request);
}

XCHG_EXPORT int MPI_Startall(int count, MPI_Request requests[])
{
    return xchg_ip_startall(count, requests);
}

XCHG_EXPORT int MPI_Request_free(MPI_Request *request)
{
    return xchg_ip_request_free(request);
}

XCHG_EXPORT int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    return xchg_ip_request_get_status(request, flag, status);
}

XCHG_EXPORT int MPI_Cancel(MPI_Request *request)
{
    return xchg_ip_cancel(request);
}

XCHG_EXPORT int MPI_Finalize(void)
{
    return xchg_ip_finalize();
}
