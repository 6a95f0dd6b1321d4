/*
 * Task-aware MPI primitives: what an algorithm calls wherever it would wait.
 *
 * Inside a task (task.h) each one starts the nonblocking form of the
 * operation and then, until it completes, tests it and suspends the task:
 * the call that started or is progressing the task returns, and the task
 * goes on at a later progress. Outside a task (a blocking call) each is the
 * plain blocking MPI call, unless tasks are outstanding in this process:
 * then it polls and progresses them while it waits, so a blocking xchg call
 * never holds back a nonblocking one.
 *
 * Every algorithm and every piece of setup that may run inside a task waits
 * only through these (and polls through xchg_task_yield).
 *
 * On a sub-communicator made inside a task (vcomm.h: a virtual group
 * communicator) the collectives here run as point-to-point over the group;
 * the MPI library's own collectives called directly would see the whole
 * parent, so code that runs on an inner context calls these.
 */
#ifndef XCHG_CORE_WAIT_H
#define XCHG_CORE_WAIT_H

#include "pmpi.h"
#include "task.h" /* xchg_task_yield, for loops that poll */

int xchg_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
/* MPI_Testall, except that a single request is tested with MPI_Test: MPICH
 * 4.0's MPI_Testall reports MPI_ERR_IN_STATUS for a started persistent
 * collective request (the library's own, that `mpi` starts:
 * src/coll/mpi/library_persistent.h; checked on 4.0.2), MPI_Test does not. */
int xchg_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]);
int xchg_wait(MPI_Request *request, MPI_Status *status);
int xchg_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);

int xchg_send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int xchg_recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Status *status);
int xchg_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status);
int xchg_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);

int xchg_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm);
int xchg_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int xchg_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int xchg_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int xchg_barrier(MPI_Comm comm);
int xchg_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm);
int xchg_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);

#endif
