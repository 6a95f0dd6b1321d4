/*
 * Route the nonblocking (MPI_Ialltoall, ..., MPI_Ineighbor_alltoallv) and
 * persistent (MPI_Alltoall_init or Open MPI's MPIX_Alltoall_init, ...,
 * MPI_Neighbor_alltoallv_init or MPIX_Neighbor_alltoallv_init) forms: to xchg's XCHG_I... and XCHG_..._init
 * under the same rule as the blocking form (route_shared.h), the xchg
 * request paired with a real MPI_Request (requests.h); else to the MPI
 * library unchanged. A nonblocking alltoall, allgather, alltoallv or
 * neighbourhood alltoallv that the fast path of `mpi` calls takes
 * (src/nonblocking_fast.h) gets the MPI library's own request instead,
 * posted on xchg's communicator. Counted
 * under the form's own name (stats.h): a nonblocking call when it starts
 * (its time: the start; no algorithm: its task may select it later), a
 * persistent one at init (its time: the init; bytes: what one start
 * delivers).
 */
#include "route.h"

#include "../nonblocking_fast.h"
#include "route_shared.h"
#include "stats.h"
#include "xchg.h"

/* ---- nonblocking ------------------------------------------------------------ */

int xchg_ip_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_IALLTOALL);
        return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              request);
    }
    xchg_nonblocking_call call = {XCHG_ALLTOALL, sendbuf, &sendcount, NULL, sendtype,
                                  recvbuf,       &recvcount, NULL, recvtype};
    int rc;
    double t0 = xchg_ip_stats_on() ? PMPI_Wtime() : 0; /* no clock read on the fast path */
    if (!xchg_nonblocking_library(comm, &call, request, &rc)) { /* else the MPI's own request */
        XCHG_Request xreq = XCHG_REQUEST_NULL;
        rc = XCHG_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            &xreq);
        rc = xchg_ip_pair_nonblocking(rc, xreq, request);
    }
    if (xchg_ip_stats_on())
        xchg_ip_account_started(XCHG_IP_IALLTOALL, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_uniform_bytes(comm, recvcount, recvtype) : 0);
    return rc;
}

int xchg_ip_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_IALLTOALLV);
        return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                               rdispls, recvtype, comm, request);
    }
    xchg_nonblocking_call call = {XCHG_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype,
                                  recvbuf,        recvcounts, rdispls, recvtype};
    int rc;
    double t0 = xchg_ip_stats_on() ? PMPI_Wtime() : 0; /* no clock read on the fast path */
    if (!xchg_nonblocking_library(comm, &call, request, &rc)) { /* else the MPI's own request */
        XCHG_Request xreq = XCHG_REQUEST_NULL;
        rc = XCHG_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                             rdispls, recvtype, comm, &xreq);
        rc = xchg_ip_pair_nonblocking(rc, xreq, request);
    }
    if (xchg_ip_stats_on())
        xchg_ip_account_started(XCHG_IP_IALLTOALLV, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_counts_bytes(comm, recvcounts, recvtype) : 0);
    return rc;
}

int xchg_ip_ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Request *request)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_IALLTOALLW);
        return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes, comm, request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                             rdispls, recvtypes, comm, &xreq);
    rc = xchg_ip_pair_nonblocking(rc, xreq, request);
    if (xchg_ip_stats_on())
        xchg_ip_account_started(XCHG_IP_IALLTOALLW, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_alltoallw_bytes(comm, recvcounts, recvtypes)
                                          : 0);
    return rc;
}

int xchg_ip_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_IALLGATHER);
        return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                               request);
    }
    xchg_nonblocking_call call = {XCHG_ALLGATHER, sendbuf, &sendcount, NULL, sendtype,
                                  recvbuf,        &recvcount, NULL, recvtype};
    int rc;
    double t0 = xchg_ip_stats_on() ? PMPI_Wtime() : 0; /* no clock read on the fast path */
    if (!xchg_nonblocking_library(comm, &call, request, &rc)) { /* else the MPI's own request */
        XCHG_Request xreq = XCHG_REQUEST_NULL;
        rc = XCHG_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                             &xreq);
        rc = xchg_ip_pair_nonblocking(rc, xreq, request);
    }
    if (xchg_ip_stats_on())
        xchg_ip_account_started(XCHG_IP_IALLGATHER, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_uniform_bytes(comm, recvcount, recvtype) : 0);
    return rc;
}

int xchg_ip_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_IALLGATHERV);
        return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                recvtype, comm, request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                              recvtype, comm, &xreq);
    rc = xchg_ip_pair_nonblocking(rc, xreq, request);
    if (xchg_ip_stats_on())
        xchg_ip_account_started(XCHG_IP_IALLGATHERV, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_counts_bytes(comm, recvcounts, recvtype) : 0);
    return rc;
}

int xchg_ip_ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!xchg_ip_routed_neighbor(comm)) {
        xchg_ip_passed(XCHG_IP_NEIGHBOR_ALLTOALLV);
        return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                        recvcounts, rdispls, recvtype, comm, request);
    }
    xchg_nonblocking_call call = {XCHG_NEIGHBOR_ALLTOALLV, sendbuf, sendcounts, sdispls,
                                  sendtype, recvbuf, recvcounts, rdispls, recvtype};
    int rc;
    double t0 = xchg_ip_stats_on() ? PMPI_Wtime() : 0;
    if (!xchg_nonblocking_library(comm, &call, request, &rc)) { /* else the MPI's own request */
        XCHG_Request xreq = XCHG_REQUEST_NULL;
        rc = XCHG_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                      recvcounts, rdispls, recvtype, comm, &xreq);
        rc = xchg_ip_pair_nonblocking(rc, xreq, request);
    }
    if (xchg_ip_stats_on())
        xchg_ip_account_started(XCHG_IP_NEIGHBOR_ALLTOALLV, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_neighbor_bytes(comm, recvcounts, recvtype)
                                          : 0);
    return rc;
}

/* ---- persistent ---------------------------------------------------------------
 * `mpi_init` is the MPI library's own init that a call xchg does not run goes
 * to: PMPI_Alltoall_init for MPI_Alltoall_init, PMPIX_Alltoall_init for
 * MPIX_Alltoall_init (c_bindings.c). */

int xchg_ip_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request, xchg_ip_uniform_init_fn *mpi_init)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLTOALL_INIT);
        return mpi_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                        request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                info, &xreq);
    rc = xchg_ip_pair_persistent(rc, xreq, request);
    if (xchg_ip_stats_on())
        xchg_ip_account(XCHG_IP_ALLTOALL_INIT, comm, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_uniform_bytes(comm, recvcount, recvtype) : 0);
    return rc;
}

int xchg_ip_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Info info, MPI_Request *request, xchg_ip_counts_init_fn *mpi_init)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLTOALLV_INIT);
        return mpi_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, info, request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm, info, &xreq);
    rc = xchg_ip_pair_persistent(rc, xreq, request);
    if (xchg_ip_stats_on())
        xchg_ip_account(XCHG_IP_ALLTOALLV_INIT, comm, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_counts_bytes(comm, recvcounts, recvtype) : 0);
    return rc;
}

int xchg_ip_alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           MPI_Info info, MPI_Request *request,
                           xchg_ip_alltoallw_init_fn *mpi_init)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLTOALLW_INIT);
        return mpi_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm, info, request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                 rdispls, recvtypes, comm, info, &xreq);
    rc = xchg_ip_pair_persistent(rc, xreq, request);
    if (xchg_ip_stats_on())
        xchg_ip_account(XCHG_IP_ALLTOALLW_INIT, comm, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_alltoallw_bytes(comm, recvcounts, recvtypes)
                                          : 0);
    return rc;
}

int xchg_ip_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Info info, MPI_Request *request,
                           xchg_ip_uniform_init_fn *mpi_init)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLGATHER_INIT);
        return mpi_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                        request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm, info, &xreq);
    rc = xchg_ip_pair_persistent(rc, xreq, request);
    if (xchg_ip_stats_on())
        xchg_ip_account(XCHG_IP_ALLGATHER_INIT, comm, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_uniform_bytes(comm, recvcount, recvtype) : 0);
    return rc;
}

int xchg_ip_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request, xchg_ip_allgatherv_init_fn *mpi_init)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLGATHERV_INIT);
        return mpi_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                        comm, info, request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, comm, info, &xreq);
    rc = xchg_ip_pair_persistent(rc, xreq, request);
    if (xchg_ip_stats_on())
        xchg_ip_account(XCHG_IP_ALLGATHERV_INIT, comm, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_counts_bytes(comm, recvcounts, recvtype) : 0);
    return rc;
}

int xchg_ip_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request, xchg_ip_counts_init_fn *mpi_init)
{
    if (!xchg_ip_routed_neighbor(comm)) {
        xchg_ip_passed(XCHG_IP_NEIGHBOR_ALLTOALLV);
        return mpi_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, info, request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                          recvcounts, rdispls, recvtype, comm, info, &xreq);
    rc = xchg_ip_pair_persistent(rc, xreq, request);
    if (xchg_ip_stats_on()) /* the time to build it */
        xchg_ip_account(XCHG_IP_NEIGHBOR_ALLTOALLV, comm, rc, t0, PMPI_Wtime(), 0);
    return rc;
}
