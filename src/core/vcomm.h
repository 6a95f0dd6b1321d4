/*
 * Virtual group communicators: what a sub-communicator is when it must be
 * made inside a task (docs/design.md, "Tasks and progress").
 *
 * MPI has no nonblocking MPI_Comm_split, and a nonblocking or persistent
 * start may not wait for other ranks. So inside a task xchg_vcomm_split
 * makes the split's equivalent from nonblocking calls only: one
 * xchg_allgather of every rank's (color, key) over the parent tells each
 * rank its group (the parent's ranks of its color, ordered by (key, parent
 * rank), as MPI_Comm_split orders them), and one MPI_Comm_idup of the
 * parent, called by every rank of the parent in the same order, gives the
 * group a matching space of its own. The handle returned is that duplicate,
 * registered in a table of virtual communicators with the group's rank
 * maps; on it:
 *
 *   - point-to-point calls take and give group ranks: src/core/pmpi.h
 *     routes MPI_Isend, MPI_Irecv, MPI_Send, MPI_Recv, MPI_Sendrecv,
 *     MPI_Probe and MPI_Iprobe through inline wrappers that translate a peer
 *     (group -> parent) and the MPI_SOURCE of the status they return
 *     (parent -> group); MPI_Comm_rank and MPI_Comm_size give the group's
 *     values. While no virtual communicator exists (every blocking-only
 *     program) a wrapper costs one relaxed atomic load;
 *   - a receive from MPI_ANY_SOURCE whose status comes back from a
 *     completion call (MPI_Irecv) is refused, since MPI_Wait's status cannot
 *     be translated: the caller always knows whom it receives from;
 *   - the task-aware collectives of wait.h (xchg_allreduce,
 *     xchg_allgather(v), xchg_alltoall(v), xchg_barrier) run as point-to-point
 *     over the group (xchg_vcomm_* below), so they suspend in a task;
 *   - nothing else: the MPI library's own collectives, windows and
 *     communicator constructors see the duplicate as the whole parent.
 *     Only flat algorithms (registry.h: is_flat), which reach MPI through the
 *     above, run on an inner context, and plan.c refuses any other plan on
 *     a virtual one.
 *
 * Outside a task xchg keeps MPI_Comm_split (context.c): a real
 * sub-communicator, on which the MPI library's own collectives run.
 */
#ifndef XCHG_CORE_VCOMM_H
#define XCHG_CORE_VCOMM_H

#include "pmpi.h"

/* The tag of the group collectives' messages on a virtual communicator
 * (no algorithm uses it; MPI guarantees tags up to 32767). */
#define XCHG_VCOMM_TAG 32700

/* Inside a task: the virtual communicator of the ranks of `parent` whose
 * color is `color`, ordered by key (MPI_COMM_NULL for color MPI_UNDEFINED);
 * collective over `parent`, through nonblocking calls only. Errors return
 * (MPI_ERRORS_RETURN on the duplicate). */
int xchg_vcomm_split(MPI_Comm parent, int color, int key, MPI_Comm *out);

/* Free a communicator made by xchg_vcomm_split (its table entry, then the
 * duplicate). */
void xchg_vcomm_free(MPI_Comm *comm);

/* Whether `comm` is a virtual communicator. */
int xchg_vcomm_is_virtual(MPI_Comm comm);

/* How many virtual communicators exist in this process (for tests). */
int xchg_vcomm_count(void);

/* The collectives of wait.h on a virtual communicator: point-to-point over
 * the group, waited with xchg_waitall. Reductions combine in group-rank
 * order (x0 op (x1 op ...)), the same on every rank; their datatype must be
 * a contiguous one without holes (xchg's agreements use predefined ones). */
int xchg_vcomm_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int displs[],
                          MPI_Datatype recvtype, MPI_Comm comm);
int xchg_vcomm_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int xchg_vcomm_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int xchg_vcomm_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int xchg_vcomm_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm);
int xchg_vcomm_barrier(MPI_Comm comm);

#endif
