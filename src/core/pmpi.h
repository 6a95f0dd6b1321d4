/*
 * The one internal MPI layer. Every MPI call xchg makes goes to the PMPI_
 * entry point, so that the drop-in library (src/interpose/), which defines
 * MPI_Alltoall and friends itself, never re-enters xchg, and a profiler
 * stacked on top of xchg sees only the application's own calls.
 *
 * Every source file of the library reaches <mpi.h> through this header (the
 * core headers include it), and each MPI function the library calls is
 * mapped here. tests/check-pmpi.sh fails the test run when the built library
 * still refers to an MPI_ function, so a call added without its line here is
 * caught. SimGrid SMPI declares a PMPI_ twin for each of these.
 */
#ifndef XCHG_CORE_PMPI_H
#define XCHG_CORE_PMPI_H

#include <mpi.h>

/* What a thread runs (the task runtime's current task and fiber) is kept
 * per thread; under SimGrid SMPI every simulated rank runs in one OS thread,
 * with globals privatized per rank, so there it is a plain global. */
#ifdef SMPI_H
#define XCHG_PER_THREAD
#else
#define XCHG_PER_THREAD _Thread_local
#endif

/*
 * Point to point, and the rank and size of a communicator, go through the
 * wrappers below: on a virtual group communicator (vcomm.h: a sub-
 * communicator made inside a task) they translate group ranks; on any other
 * they are the PMPI_ call, after one relaxed atomic load while no virtual
 * communicator exists in the process.
 */
#include <stdatomic.h>
extern atomic_int xchg_vcomm_live; /* virtual communicators alive (vcomm.c) */
#define XCHG_NO_VCOMM() (atomic_load_explicit(&xchg_vcomm_live, memory_order_relaxed) == 0)
int xchg_vcomm_isend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request);
int xchg_vcomm_irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request *request);
int xchg_vcomm_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm);
int xchg_vcomm_recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                    MPI_Status *status);
int xchg_vcomm_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                        int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int xchg_vcomm_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int xchg_vcomm_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int xchg_vcomm_comm_rank(MPI_Comm comm, int *rank);
int xchg_vcomm_comm_size(MPI_Comm comm, int *size);

static inline int xchg_mpi_isend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                                 MPI_Comm comm, MPI_Request *request)
{
    if (XCHG_NO_VCOMM()) return PMPI_Isend(buf, count, type, dest, tag, comm, request);
    return xchg_vcomm_isend(buf, count, type, dest, tag, comm, request);
}
static inline int xchg_mpi_irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
                                 MPI_Comm comm, MPI_Request *request)
{
    if (XCHG_NO_VCOMM()) return PMPI_Irecv(buf, count, type, source, tag, comm, request);
    return xchg_vcomm_irecv(buf, count, type, source, tag, comm, request);
}
static inline int xchg_mpi_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                                MPI_Comm comm)
{
    if (XCHG_NO_VCOMM()) return PMPI_Send(buf, count, type, dest, tag, comm);
    return xchg_vcomm_send(buf, count, type, dest, tag, comm);
}
static inline int xchg_mpi_recv(void *buf, int count, MPI_Datatype type, int source, int tag,
                                MPI_Comm comm, MPI_Status *status)
{
    if (XCHG_NO_VCOMM()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
    return xchg_vcomm_recv(buf, count, type, source, tag, comm, status);
}
static inline int xchg_mpi_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    int dest, int sendtag, void *recvbuf, int recvcount,
                                    MPI_Datatype recvtype, int source, int recvtag,
                                    MPI_Comm comm, MPI_Status *status)
{
    if (XCHG_NO_VCOMM())
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, status);
    return xchg_vcomm_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                               recvtype, source, recvtag, comm, status);
}
static inline int xchg_mpi_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (XCHG_NO_VCOMM()) return PMPI_Probe(source, tag, comm, status);
    return xchg_vcomm_probe(source, tag, comm, status);
}
static inline int xchg_mpi_iprobe(int source, int tag, MPI_Comm comm, int *flag,
                                  MPI_Status *status)
{
    if (XCHG_NO_VCOMM()) return PMPI_Iprobe(source, tag, comm, flag, status);
    return xchg_vcomm_iprobe(source, tag, comm, flag, status);
}
static inline int xchg_mpi_comm_rank(MPI_Comm comm, int *rank)
{
    if (XCHG_NO_VCOMM()) return PMPI_Comm_rank(comm, rank);
    return xchg_vcomm_comm_rank(comm, rank);
}
static inline int xchg_mpi_comm_size(MPI_Comm comm, int *size)
{
    if (XCHG_NO_VCOMM()) return PMPI_Comm_size(comm, size);
    return xchg_vcomm_comm_size(comm, size);
}

/* Point to point and completion */
#define MPI_Isend xchg_mpi_isend
#define MPI_Irecv xchg_mpi_irecv
#define MPI_Sendrecv xchg_mpi_sendrecv
#define MPI_Send xchg_mpi_send
#define MPI_Probe xchg_mpi_probe
#define MPI_Recv xchg_mpi_recv
#define MPI_Wait PMPI_Wait
#ifdef SMPI_H /* SimGrid's own Waitall is O(n^2) in simulator time: core/smpi_waitall.c */
int xchg_smpi_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
#define MPI_Waitall xchg_smpi_waitall
#else
#define MPI_Waitall PMPI_Waitall
#endif
#define MPI_Waitany PMPI_Waitany
#define MPI_Test PMPI_Test
#define MPI_Testall PMPI_Testall
#define MPI_Testany PMPI_Testany
#define MPI_Cancel PMPI_Cancel
#define MPI_Request_free PMPI_Request_free
#define MPI_Start PMPI_Start
#define MPI_Get_count PMPI_Get_count
#define MPI_Iprobe xchg_mpi_iprobe

/* Collectives used internally (metadata agreement, the `mpi` selection) */
#define MPI_Allreduce PMPI_Allreduce
#define MPI_Bcast PMPI_Bcast
#define MPI_Allgather PMPI_Allgather
#define MPI_Allgatherv PMPI_Allgatherv
#define MPI_Alltoall PMPI_Alltoall
#define MPI_Alltoallv PMPI_Alltoallv
#define MPI_Alltoallw PMPI_Alltoallw
#define MPI_Ialltoallw PMPI_Ialltoallw
#define MPI_Ialltoall PMPI_Ialltoall
#define MPI_Ialltoallv PMPI_Ialltoallv
#define MPI_Neighbor_alltoallv PMPI_Neighbor_alltoallv
#define MPI_Ineighbor_alltoallv PMPI_Ineighbor_alltoallv
#define MPI_Iallgather PMPI_Iallgather
#define MPI_Iallgatherv PMPI_Iallgatherv
#define MPI_Barrier PMPI_Barrier
#define MPI_Iallreduce PMPI_Iallreduce
#define MPI_Ibarrier PMPI_Ibarrier
#define MPI_Reduce_local PMPI_Reduce_local

/* Communicators, attributes, error handlers */
#define MPI_Comm_dup PMPI_Comm_dup
#define MPI_Comm_idup PMPI_Comm_idup
#define MPI_Get_processor_name PMPI_Get_processor_name
#define MPI_Comm_split PMPI_Comm_split
#define MPI_Comm_split_type PMPI_Comm_split_type
#define MPI_Comm_free PMPI_Comm_free
#define MPI_Comm_rank xchg_mpi_comm_rank
#define MPI_Comm_size xchg_mpi_comm_size
#define MPI_Comm_test_inter PMPI_Comm_test_inter
#define MPI_Comm_create_keyval PMPI_Comm_create_keyval
#define MPI_Comm_free_keyval PMPI_Comm_free_keyval
#define MPI_Comm_set_attr PMPI_Comm_set_attr
#define MPI_Comm_get_attr PMPI_Comm_get_attr
#define MPI_Comm_delete_attr PMPI_Comm_delete_attr
#define MPI_Comm_set_errhandler PMPI_Comm_set_errhandler
#define MPI_Comm_get_errhandler PMPI_Comm_get_errhandler
#define MPI_Comm_call_errhandler PMPI_Comm_call_errhandler
#define MPI_Error_string PMPI_Error_string
#define MPI_Errhandler_free PMPI_Errhandler_free

/* Process topologies (neighbourhood collectives) */
#define MPI_Topo_test PMPI_Topo_test
#define MPI_Dist_graph_neighbors_count PMPI_Dist_graph_neighbors_count
#define MPI_Dist_graph_neighbors PMPI_Dist_graph_neighbors

/* Datatypes and packing */
#define MPI_Type_size PMPI_Type_size
#define MPI_Type_get_extent PMPI_Type_get_extent
#define MPI_Type_get_true_extent PMPI_Type_get_true_extent
#define MPI_Type_create_hindexed PMPI_Type_create_hindexed
#define MPI_Type_commit PMPI_Type_commit
#define MPI_Type_get_envelope PMPI_Type_get_envelope
#define MPI_Type_free PMPI_Type_free
#define MPI_Type_dup PMPI_Type_dup
#define MPI_Pack PMPI_Pack
#define MPI_Unpack PMPI_Unpack
#define MPI_Get_address PMPI_Get_address

/* One-sided communication (src/coll/arrival/) */
#define MPI_Win_allocate PMPI_Win_allocate
#define MPI_Win_allocate_shared PMPI_Win_allocate_shared
#define MPI_Win_shared_query PMPI_Win_shared_query
#define MPI_Win_create PMPI_Win_create
#define MPI_Win_create_dynamic PMPI_Win_create_dynamic
#define MPI_Win_attach PMPI_Win_attach
#define MPI_Win_detach PMPI_Win_detach
#define MPI_Win_free PMPI_Win_free
#define MPI_Win_lock_all PMPI_Win_lock_all
#define MPI_Win_unlock_all PMPI_Win_unlock_all
#define MPI_Win_flush PMPI_Win_flush
#define MPI_Win_flush_all PMPI_Win_flush_all
#define MPI_Win_sync PMPI_Win_sync
#define MPI_Put PMPI_Put
#define MPI_Accumulate PMPI_Accumulate
#define MPI_Get_accumulate PMPI_Get_accumulate

/* Info, time, environment */
#define MPI_Info_create PMPI_Info_create
#define MPI_Info_set PMPI_Info_set
#define MPI_Info_get PMPI_Info_get
#define MPI_Info_free PMPI_Info_free
#define MPI_Wtime PMPI_Wtime
#define MPI_Initialized PMPI_Initialized
#define MPI_Finalized PMPI_Finalized
#define MPI_Query_thread PMPI_Query_thread
#define MPI_Get_library_version PMPI_Get_library_version

/* Device support (src/core/device.c), where the MPI has it (CMake defines
 * XCHG_HAVE_*): the PMPIX_ twin where the MPI has one (MPICH; checked by
 * tests/check-pmpi.sh); Open MPI 4.1 has none, and its MPIX_ function is not
 * one the drop-in defines. */
#ifdef XCHG_HAVE_PMPIX_QUERY_CUDA_SUPPORT
#define MPIX_Query_cuda_support PMPIX_Query_cuda_support
#endif
#ifdef XCHG_HAVE_PMPIX_QUERY_ROCM_SUPPORT
#define MPIX_Query_rocm_support PMPIX_Query_rocm_support
#endif
#ifdef XCHG_HAVE_PMPIX_QUERY_HIP_SUPPORT
#define MPIX_Query_hip_support PMPIX_Query_hip_support
#endif

#endif
