/*
 * Task-aware MPI primitives (wait.h).
 */
#include "wait.h"

#include <stddef.h>

#include "error.h"
#include "task.h"
#include "vcomm.h"

/* A communicator made inside a task (vcomm.h): its collectives are
 * point-to-point over its group. */
#define VIRTUAL(comm) (!XCHG_NO_VCOMM() && xchg_vcomm_is_virtual(comm))

int xchg_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (count == 1)
        return MPI_Test(&requests[0], flag,
                        statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[0]);
    return MPI_Testall(count, requests, flag, statuses);
}

/* Wait by polling: inside a task, test and suspend; outside, test and
 * progress the outstanding tasks. */
static int poll_all(int count, MPI_Request requests[], MPI_Status statuses[])
{
    for (;;) {
        int done = 0;
        int rc = xchg_testall(count, requests, &done, statuses);
        if (rc != MPI_SUCCESS || done) return rc;
        xchg_task_yield();
    }
}

static inline int must_poll(void)
{
    return xchg_task_current() != NULL || xchg_tasks_outstanding();
}

int xchg_waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (!must_poll() && count == 1) /* a posted `mpi`: MPI_Wait, as MPI's own caller */
        return MPI_Wait(&requests[0],
                        statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[0]);
    if (!must_poll()) return MPI_Waitall(count, requests, statuses);
    return poll_all(count, requests, statuses);
}

int xchg_wait(MPI_Request *request, MPI_Status *status)
{
    if (!must_poll()) return MPI_Wait(request, status);
    return poll_all(1, request, status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : status);
}

int xchg_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (!must_poll()) return MPI_Waitany(count, requests, index, status);
    for (;;) {
        int done = 0;
        int rc = MPI_Testany(count, requests, index, &done, status);
        if (rc != MPI_SUCCESS || done) return rc;
        xchg_task_yield();
    }
}

int xchg_send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    if (!must_poll()) return MPI_Send(buf, count, type, dest, tag, comm);
    MPI_Request request;
    int rc = MPI_Isend(buf, count, type, dest, tag, comm, &request);
    return rc != MPI_SUCCESS ? rc : poll_all(1, &request, MPI_STATUSES_IGNORE);
}

int xchg_recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    if (!must_poll()) return MPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Request request;
    int rc = MPI_Irecv(buf, count, type, source, tag, comm, &request);
    if (rc == MPI_SUCCESS) rc = xchg_wait(&request, status);
    /* The source asked for is the source (MPI_Wait's status would give a
     * virtual communicator's parent rank: vcomm.h). */
    if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE && source >= 0)
        status->MPI_SOURCE = source;
    return rc;
}

int xchg_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (!must_poll())
        return MPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                            recvtype, source, recvtag, comm, status);
    MPI_Request requests[2];
    MPI_Status statuses[2];
    int rc = MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &requests[0]);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &requests[1]);
    if (rc != MPI_SUCCESS) {
        MPI_Cancel(&requests[0]);
        MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
        return rc;
    }
    rc = poll_all(2, requests, statuses);
    if (status != MPI_STATUS_IGNORE) *status = statuses[0];
    if (status != MPI_STATUS_IGNORE && source >= 0) status->MPI_SOURCE = source; /* as xchg_recv */
    return rc;
}

int xchg_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!must_poll()) return MPI_Probe(source, tag, comm, status);
    for (;;) {
        int found = 0;
        int rc = MPI_Iprobe(source, tag, comm, &found, status);
        if (rc != MPI_SUCCESS || found) return rc;
        xchg_task_yield();
    }
}

int xchg_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm)
{
    if (VIRTUAL(comm)) return xchg_vcomm_allreduce(sendbuf, recvbuf, count, type, op, comm);
    if (!must_poll()) return MPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    MPI_Request request;
    int rc = MPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, &request);
    return rc != MPI_SUCCESS ? rc : poll_all(1, &request, MPI_STATUSES_IGNORE);
}

int xchg_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (VIRTUAL(comm))
        return xchg_vcomm_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm);
    if (!must_poll())
        return MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    MPI_Request request;
    int rc = MPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            &request);
    return rc != MPI_SUCCESS ? rc : poll_all(1, &request, MPI_STATUSES_IGNORE);
}

int xchg_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (VIRTUAL(comm))
        return xchg_vcomm_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm);
    if (!must_poll())
        return MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    MPI_Request request;
    int rc = MPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           &request);
    return rc != MPI_SUCCESS ? rc : poll_all(1, &request, MPI_STATUSES_IGNORE);
}

int xchg_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (VIRTUAL(comm))
        return xchg_vcomm_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                    rdispls, recvtype, comm);
    if (!must_poll())
        return MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                             rdispls, recvtype, comm);
    MPI_Request request;
    int rc = MPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm, &request);
    return rc != MPI_SUCCESS ? rc : poll_all(1, &request, MPI_STATUSES_IGNORE);
}

int xchg_barrier(MPI_Comm comm)
{
    if (VIRTUAL(comm)) return xchg_vcomm_barrier(comm);
    if (!must_poll()) return MPI_Barrier(comm);
    MPI_Request request;
    int rc = MPI_Ibarrier(comm, &request);
    return rc != MPI_SUCCESS ? rc : poll_all(1, &request, MPI_STATUSES_IGNORE);
}

int xchg_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    if (VIRTUAL(comm))
        return xchg_vcomm_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                     recvtype, comm);
    if (!must_poll())
        return MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                              recvtype, comm);
    MPI_Request request;
    int rc = MPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             comm, &request);
    return rc != MPI_SUCCESS ? rc : poll_all(1, &request, MPI_STATUSES_IGNORE);
}

int xchg_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (VIRTUAL(comm))
        return xchg_error(MPI_ERR_COMM, "a neighbourhood collective on a sub-communicator "
                                        "made inside a task");
    if (!must_poll())
        return MPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                      recvcounts, rdispls, recvtype, comm);
    MPI_Request request;
    int rc = MPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, comm, &request);
    return rc != MPI_SUCCESS ? rc : poll_all(1, &request, MPI_STATUSES_IGNORE);
}
