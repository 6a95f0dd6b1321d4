/*
 * Route each call to xchg or to MPI (see route.h), counting when asked.
 *
 * With counting off (the default) a routed call costs one flag test and one
 * PMPI_Comm_test_inter on top of xchg itself. xchg calls MPI only through
 * PMPI_ (src/core/pmpi.h), so nothing here is re-entered.
 */
#include "route.h"

#include <stdio.h>

#include "profile.h"
#include "requests.h"
#include "stats.h"
#include "xchg.h"

/* 1: xchg runs this call; 0: MPI does. */
static int routed(MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL) return 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    return !inter;
}

static long long type_bytes(MPI_Datatype type, long long count)
{
    int size = 0;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
    return (long long)size * count;
}

/* After a routed call (t0 to t1) with counting on: record time, bytes and algorithm. */
static void record(xchg_ip_coll coll, MPI_Comm comm, int rc, double t0, double t1,
                   long long bytes)
{
    double seconds = t1 - t0;
    char used[128] = "";
    if (rc == MPI_SUCCESS)
        XCHG_Comm_get_algorithm(comm, xchg_ip_coll_name(coll), 1, 0, used, (int)sizeof used);
    xchg_ip_stats_routed(coll, rc, seconds, bytes, used);
}

/* Bytes delivered into this rank's receive buffer by a uniform-block call. */
static long long uniform_bytes(MPI_Comm comm, int recvcount, MPI_Datatype recvtype)
{
    int size = 0;
    PMPI_Comm_size(comm, &size);
    return type_bytes(recvtype, (long long)recvcount * size);
}

/* After a routed uniform-block call (alltoall, allgather) that ran from t0
 * to t1: its statistics and its arrival profile (message size: the block),
 * each when on. */
static void account_uniform(xchg_ip_coll coll, MPI_Comm comm, int rc, double t0, double t1,
                            int recvcount, MPI_Datatype recvtype)
{
    if (xchg_ip_stats_on())
        record(coll, comm, rc, t0, t1, uniform_bytes(comm, recvcount, recvtype));
    if (rc == MPI_SUCCESS && xchg_ip_profile_on())
        xchg_ip_profile_record(coll, comm, t0, t1, type_bytes(recvtype, recvcount));
}

int xchg_ip_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!routed(comm)) {
        if (xchg_ip_stats_on()) xchg_ip_stats_passed(XCHG_IP_ALLTOALL);
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    if (!xchg_ip_stats_on() && !xchg_ip_profile_on())
        return XCHG_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    account_uniform(XCHG_IP_ALLTOALL, comm, rc, t0, PMPI_Wtime(), recvcount, recvtype);
    return rc;
}

int xchg_ip_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!routed(comm)) {
        if (xchg_ip_stats_on()) xchg_ip_stats_passed(XCHG_IP_ALLTOALLV);
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm);
    }
    if (!xchg_ip_stats_on() && !xchg_ip_profile_on())
        return XCHG_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
    double t1 = PMPI_Wtime();
    long long count = 0;
    int size = 0;
    if (rc == MPI_SUCCESS) {
        PMPI_Comm_size(comm, &size);
        for (int p = 0; p < size; p++) count += recvcounts[p];
    }
    if (xchg_ip_stats_on())
        record(XCHG_IP_ALLTOALLV, comm, rc, t0, t1, type_bytes(recvtype, count));
    if (rc == MPI_SUCCESS && xchg_ip_profile_on()) /* message size: the mean block received */
        xchg_ip_profile_record(XCHG_IP_ALLTOALLV, comm, t0, t1,
                               type_bytes(recvtype, count) / (size ? size : 1));
    return rc;
}

int xchg_ip_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                      const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    if (!routed(comm)) {
        if (xchg_ip_stats_on()) xchg_ip_stats_passed(XCHG_IP_ALLTOALLW);
        return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                              rdispls, recvtypes, comm);
    }
    if (!xchg_ip_stats_on() && !xchg_ip_profile_on())
        return XCHG_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                              rdispls, recvtypes, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                            recvtypes, comm);
    double t1 = PMPI_Wtime();
    long long bytes = 0;
    int size = 0;
    if (rc == MPI_SUCCESS) {
        PMPI_Comm_size(comm, &size);
        for (int p = 0; p < size; p++)
            if (recvcounts[p] > 0) bytes += type_bytes(recvtypes[p], recvcounts[p]);
    }
    if (xchg_ip_stats_on()) record(XCHG_IP_ALLTOALLW, comm, rc, t0, t1, bytes);
    if (rc == MPI_SUCCESS && xchg_ip_profile_on()) /* message size: the mean block received */
        xchg_ip_profile_record(XCHG_IP_ALLTOALLW, comm, t0, t1, bytes / (size ? size : 1));
    return rc;
}

int xchg_ip_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!routed(comm)) {
        if (xchg_ip_stats_on()) xchg_ip_stats_passed(XCHG_IP_ALLGATHER);
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    if (!xchg_ip_stats_on() && !xchg_ip_profile_on())
        return XCHG_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    account_uniform(XCHG_IP_ALLGATHER, comm, rc, t0, PMPI_Wtime(), recvcount, recvtype);
    return rc;
}

int xchg_ip_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       MPI_Comm comm)
{
    if (!routed(comm)) {
        if (xchg_ip_stats_on()) xchg_ip_stats_passed(XCHG_IP_ALLGATHERV);
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm);
    }
    if (!xchg_ip_stats_on() && !xchg_ip_profile_on())
        return XCHG_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm);
    double t0 = PMPI_Wtime();
    int rc = XCHG_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             comm);
    double t1 = PMPI_Wtime();
    long long count = 0;
    int size = 0;
    if (rc == MPI_SUCCESS) {
        PMPI_Comm_size(comm, &size);
        for (int p = 0; p < size; p++) count += recvcounts[p];
    }
    if (xchg_ip_stats_on())
        record(XCHG_IP_ALLGATHERV, comm, rc, t0, t1, type_bytes(recvtype, count));
    if (rc == MPI_SUCCESS && xchg_ip_profile_on()) /* message size: the mean block */
        xchg_ip_profile_record(XCHG_IP_ALLGATHERV, comm, t0, t1,
                               type_bytes(recvtype, count) / (size ? size : 1));
    return rc;
}

/* Neighbourhood collectives: xchg runs those of distributed-graph
 * communicators; Cartesian and MPI_Graph topologies go to MPI. */
static int routed_neighbor(MPI_Comm comm)
{
    int kind = MPI_UNDEFINED;
    if (!routed(comm)) return 0;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS) return 0;
    return kind == MPI_DIST_GRAPH;
}

/* Bytes a neighbourhood call delivers into this rank's receive buffer. */
static long long neighbor_bytes(MPI_Comm comm, const int recvcounts[], MPI_Datatype recvtype)
{
    int in = 0, out = 0, weighted = 0;
    long long count = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    for (int i = 0; i < in; i++) count += recvcounts[i];
    return type_bytes(recvtype, count);
}

int xchg_ip_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!routed_neighbor(comm)) {
        if (xchg_ip_stats_on()) xchg_ip_stats_passed(XCHG_IP_NEIGHBOR_ALLTOALLV);
        return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                       recvcounts, rdispls, recvtype, comm);
    }
    double t0 = PMPI_Wtime();
    int rc = XCHG_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, comm);
    if (xchg_ip_stats_on())
        record(XCHG_IP_NEIGHBOR_ALLTOALLV, comm, rc, t0, PMPI_Wtime(),
               rc == MPI_SUCCESS ? neighbor_bytes(comm, recvcounts, recvtype) : 0);
    return rc;
}

int xchg_ip_ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!routed_neighbor(comm)) {
        if (xchg_ip_stats_on()) xchg_ip_stats_passed(XCHG_IP_NEIGHBOR_ALLTOALLV);
        return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                        recvcounts, rdispls, recvtype, comm, request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                      recvcounts, rdispls, recvtype, comm, &xreq);
    if (rc == MPI_SUCCESS) rc = xchg_ip_request_nonblocking(xreq, request);
    if (xchg_ip_stats_on()) /* the time to start it */
        record(XCHG_IP_NEIGHBOR_ALLTOALLV, comm, rc, t0, PMPI_Wtime(),
               rc == MPI_SUCCESS ? neighbor_bytes(comm, recvcounts, recvtype) : 0);
    return rc;
}

#if MPI_VERSION >= 4
int xchg_ip_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request)
{
    if (!routed_neighbor(comm)) {
        if (xchg_ip_stats_on()) xchg_ip_stats_passed(XCHG_IP_NEIGHBOR_ALLTOALLV);
        return PMPI_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                            recvcounts, rdispls, recvtype, comm, info, request);
    }
    double t0 = PMPI_Wtime();
    XCHG_Request xreq = XCHG_REQUEST_NULL;
    int rc = XCHG_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                          recvcounts, rdispls, recvtype, comm, info, &xreq);
    if (rc == MPI_SUCCESS) rc = xchg_ip_request_persistent(xreq, request);
    if (rc != MPI_SUCCESS && xreq != XCHG_REQUEST_NULL) XCHG_Request_free(&xreq);
    if (xchg_ip_stats_on()) /* the time to build it */
        record(XCHG_IP_NEIGHBOR_ALLTOALLV, comm, rc, t0, PMPI_Wtime(), 0);
    return rc;
}
#endif

int xchg_ip_finalize(void)
{
    xchg_ip_profile_report();
    xchg_ip_stats_report();
    return PMPI_Finalize();
}
