/*
 * The C entry points of the drop-in library. Preloaded (LD_PRELOAD) or linked
 * before the MPI library, these definitions take the place of the MPI
 * library's own MPI_Alltoall, MPI_Alltoallv, MPI_Allgather and MPI_Finalize;
 * the MPI library's versions stay reachable as PMPI_*.
 *
 * They also catch Fortran callers wherever the MPI's Fortran bindings call the
 * C MPI_ functions (MPICH, including mpi_f08); Open MPI's call PMPI_ and are
 * caught in fortran.c instead. MPI_Alltoallw, the nonblocking (MPI_Ialltoall),
 * persistent (MPI_Alltoall_init) and large-count (MPI_Alltoall_c) variants
 * are not defined here, so they reach the MPI library unchanged.
 */
#include <mpi.h>

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

XCHG_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return xchg_ip_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

XCHG_EXPORT int MPI_Finalize(void)
{
    return xchg_ip_finalize();
}
