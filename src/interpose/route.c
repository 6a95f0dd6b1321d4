/*
 * Route each blocking call to xchg or to MPI (see route.h), counting when
 * asked; and what every form's route shares (route_shared.h). The
 * nonblocking and persistent forms are in route_requests.c.
 *
 * With counting off (the default) a routed call costs one flag test and one
 * PMPI_Comm_test_inter on top of xchg itself. xchg calls MPI only through
 * PMPI_ (src/core/pmpi.h), so nothing here is re-entered.
 */
#include "route.h"

#include "profile.h"
#include "requests.h"
#include "route_shared.h"
#include "stats.h"
#include "xchg.h"

/* ---- shared by every form (route_shared.h) ------------------------------- */

int xchg_ip_routed(MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL) return 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    return !inter;
}

/* Neighbourhood collectives: xchg runs those of distributed-graph
 * communicators; Cartesian and MPI_Graph topologies go to MPI. */
int xchg_ip_routed_neighbor(MPI_Comm comm)
{
    int kind = MPI_UNDEFINED;
    if (!xchg_ip_routed(comm)) return 0;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS) return 0;
    return kind == MPI_DIST_GRAPH;
}

void xchg_ip_passed(xchg_ip_coll coll)
{
    if (xchg_ip_stats_on()) xchg_ip_stats_passed(coll);
}

static long long type_bytes(MPI_Datatype type, long long count)
{
    int size = 0;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
    return (long long)size * count;
}

static int comm_size(MPI_Comm comm)
{
    int size = 0;
    PMPI_Comm_size(comm, &size);
    return size;
}

long long xchg_ip_uniform_bytes(MPI_Comm comm, int recvcount, MPI_Datatype recvtype)
{
    return type_bytes(recvtype, (long long)recvcount * comm_size(comm));
}

long long xchg_ip_counts_bytes(MPI_Comm comm, const int recvcounts[], MPI_Datatype recvtype)
{
    long long count = 0;
    for (int p = 0, size = comm_size(comm); p < size; p++) count += recvcounts[p];
    return type_bytes(recvtype, count);
}

long long xchg_ip_alltoallw_bytes(MPI_Comm comm, const int recvcounts[],
                                  const MPI_Datatype recvtypes[])
{
    long long bytes = 0;
    for (int p = 0, size = comm_size(comm); p < size; p++)
        if (recvcounts[p] > 0) bytes += type_bytes(recvtypes[p], recvcounts[p]);
    return bytes;
}

long long xchg_ip_neighbor_bytes(MPI_Comm comm, const int recvcounts[], MPI_Datatype recvtype)
{
    int in = 0, out = 0, weighted = 0;
    long long count = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    for (int i = 0; i < in; i++) count += recvcounts[i];
    return type_bytes(recvtype, count);
}

void xchg_ip_account(xchg_ip_coll coll, MPI_Comm comm, int rc, double t0, double t1,
                     long long bytes)
{
    if (xchg_ip_stats_on()) {
        char used[128] = "";
        if (rc == MPI_SUCCESS)
            XCHG_Comm_get_algorithm(comm, xchg_ip_coll_collective(coll), 1, 0, used,
                                    (int)sizeof used);
        xchg_ip_stats_routed(coll, rc, t1 - t0, bytes, used);
    }
    /* the arrival profile times blocking dense calls only; message size: the mean block */
    int blocking_dense = coll <= XCHG_IP_ALLGATHERV && coll != XCHG_IP_NEIGHBOR_ALLTOALLV;
    if (rc == MPI_SUCCESS && blocking_dense && xchg_ip_profile_on()) {
        int size = comm_size(comm);
        xchg_ip_profile_record(coll, comm, t0, t1, bytes / (size ? size : 1));
    }
}

void xchg_ip_account_started(xchg_ip_coll coll, int rc, double t0, double t1, long long bytes)
{
    if (xchg_ip_stats_on()) xchg_ip_stats_routed(coll, rc, t1 - t0, bytes, "");
}

int xchg_ip_pair_nonblocking(int rc, XCHG_Request xreq, MPI_Request *request)
{
    if (rc != MPI_SUCCESS) return rc;
    rc = xchg_ip_request_nonblocking(xreq, request);
    if (rc != MPI_SUCCESS && xreq != XCHG_REQUEST_NULL) XCHG_Wait(&xreq, MPI_STATUS_IGNORE);
    return rc;
}

int xchg_ip_pair_persistent(int rc, XCHG_Request xreq, MPI_Request *request)
{
    if (rc == MPI_SUCCESS) rc = xchg_ip_request_persistent(xreq, request);
    if (rc != MPI_SUCCESS && xreq != XCHG_REQUEST_NULL) XCHG_Request_free(&xreq);
    return rc;
}

/* ---- the blocking forms ---------------------------------------------------- */

/* Counting or profiling on: the blocking call is timed and accounted. */
static int accounting_on(void)
{
    return xchg_ip_stats_on() || xchg_ip_profile_on();
}

int xchg_ip_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLTOALL);
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    if (!accounting_on())
        return XCHG_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    xchg_ip_account(XCHG_IP_ALLTOALL, comm, rc, t0, PMPI_Wtime(),
                    rc == MPI_SUCCESS ? xchg_ip_uniform_bytes(comm, recvcount, recvtype) : 0);
    return rc;
}

int xchg_ip_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLTOALLV);
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm);
    }
    if (!accounting_on())
        return XCHG_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
    xchg_ip_account(XCHG_IP_ALLTOALLV, comm, rc, t0, PMPI_Wtime(),
                    rc == MPI_SUCCESS ? xchg_ip_counts_bytes(comm, recvcounts, recvtype) : 0);
    return rc;
}

int xchg_ip_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                      const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLTOALLW);
        return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                              rdispls, recvtypes, comm);
    }
    if (!accounting_on())
        return XCHG_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                              rdispls, recvtypes, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                            recvtypes, comm);
    xchg_ip_account(XCHG_IP_ALLTOALLW, comm, rc, t0, PMPI_Wtime(),
                    rc == MPI_SUCCESS ? xchg_ip_alltoallw_bytes(comm, recvcounts, recvtypes) : 0);
    return rc;
}

int xchg_ip_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLGATHER);
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    if (!accounting_on())
        return XCHG_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    xchg_ip_account(XCHG_IP_ALLGATHER, comm, rc, t0, PMPI_Wtime(),
                    rc == MPI_SUCCESS ? xchg_ip_uniform_bytes(comm, recvcount, recvtype) : 0);
    return rc;
}

int xchg_ip_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       MPI_Comm comm)
{
    if (!xchg_ip_routed(comm)) {
        xchg_ip_passed(XCHG_IP_ALLGATHERV);
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm);
    }
    if (!accounting_on())
        return XCHG_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             comm);
    xchg_ip_account(XCHG_IP_ALLGATHERV, comm, rc, t0, PMPI_Wtime(),
                    rc == MPI_SUCCESS ? xchg_ip_counts_bytes(comm, recvcounts, recvtype) : 0);
    return rc;
}

int xchg_ip_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!xchg_ip_routed_neighbor(comm)) {
        xchg_ip_passed(XCHG_IP_NEIGHBOR_ALLTOALLV);
        return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                       recvcounts, rdispls, recvtype, comm);
    }
    double t0 = xchg_ip_stats_on() ? PMPI_Wtime() : 0; /* no clock read on the fast path */
    int rc = XCHG_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, comm);
    if (xchg_ip_stats_on())
        xchg_ip_account(XCHG_IP_NEIGHBOR_ALLTOALLV, comm, rc, t0, PMPI_Wtime(),
                        rc == MPI_SUCCESS ? xchg_ip_neighbor_bytes(comm, recvcounts, recvtype)
                                          : 0);
    return rc;
}

int xchg_ip_finalize(void)
{
    xchg_ip_profile_report();
    xchg_ip_stats_report();
    return PMPI_Finalize();
}
