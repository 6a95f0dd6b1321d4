/*
 * The routing decision shared by the C and Fortran entry points: a call goes
 * to xchg (XCHG_Alltoall, ...) or, unchanged, to the MPI library (PMPI_*).
 *
 * The nonblocking and persistent forms follow the rule of their blocking
 * form (route_shared.h holds it once).
 *
 * The decision depends only on the communicator, never on a rank's own
 * arguments, so every rank of a collective call takes the same path.
 * Passed to MPI: inter-communicators (xchg implements intra-communicator
 * collectives only), MPI_COMM_NULL and handles MPI rejects (so MPI reports
 * the error as it always would). Arguments xchg would reject but MPI accepts
 * cannot be passed to MPI instead: one rank's arguments may differ from
 * another's, and ranks that took different paths would never match; so xchg
 * must accept everything MPI does (MPI_BOTTOM with absolute-address
 * datatypes included, tests/bottom.c).
 */
#ifndef XCHG_INTERPOSE_ROUTE_H
#define XCHG_INTERPOSE_ROUTE_H

#include <mpi.h>

int xchg_ip_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int xchg_ip_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int xchg_ip_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                      const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int xchg_ip_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int xchg_ip_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       MPI_Comm comm);
/* Neighbourhood alltoallv on a distributed-graph communicator (others go
 * to MPI). The nonblocking and persistent forms return an MPI request that
 * stands for the xchg request (requests.h). */
int xchg_ip_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int xchg_ip_ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
/* The nonblocking forms: to xchg (XCHG_Ialltoall, ...) under the blocking
 * form's rule, with an MPI request that stands for the xchg request
 * (requests.h); else to PMPI_Ialltoall, ... (route_requests.c). */
int xchg_ip_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int xchg_ip_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request);
int xchg_ip_ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Request *request);
int xchg_ip_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int xchg_ip_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);

/* The persistent forms: to XCHG_Alltoall_init, ... with a persistent MPI
 * request (requests.h); else to `mpi_init`, the MPI library's own init of
 * the entry point called (PMPI_Alltoall_init for MPI-4's MPI_Alltoall_init,
 * PMPIX_Alltoall_init for Open MPI's MPIX_Alltoall_init). */
typedef int xchg_ip_uniform_init_fn(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, MPI_Request *request);
typedef int xchg_ip_counts_init_fn(const void *sendbuf, const int sendcounts[],
                                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request);
typedef int xchg_ip_alltoallw_init_fn(const void *sendbuf, const int sendcounts[],
                                      const int sdispls[], const MPI_Datatype sendtypes[],
                                      void *recvbuf, const int recvcounts[], const int rdispls[],
                                      const MPI_Datatype recvtypes[], MPI_Comm comm,
                                      MPI_Info info, MPI_Request *request);
typedef int xchg_ip_allgatherv_init_fn(const void *sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[], const int displs[],
                                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                       MPI_Request *request);
int xchg_ip_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request, xchg_ip_uniform_init_fn *mpi_init);
int xchg_ip_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Info info, MPI_Request *request, xchg_ip_counts_init_fn *mpi_init);
int xchg_ip_alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           MPI_Info info, MPI_Request *request,
                           xchg_ip_alltoallw_init_fn *mpi_init);
int xchg_ip_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Info info, MPI_Request *request,
                           xchg_ip_uniform_init_fn *mpi_init);
int xchg_ip_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request, xchg_ip_allgatherv_init_fn *mpi_init);
/* MPI_Neighbor_alltoallv_init (MPI-4) and MPIX_Neighbor_alltoallv_init
 * (Open MPI 4.1): distributed-graph communicators only, as the blocking form. */
int xchg_ip_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request, xchg_ip_counts_init_fn *mpi_init);

/* Report the counts (if counting is on), then PMPI_Finalize. */
int xchg_ip_finalize(void);

#endif
