/*
 * MPI requests that stand for xchg requests, in the drop-in library.
 *
 * MPI_Ineighbor_alltoallv and MPI_Neighbor_alltoallv_init must hand the
 * program an MPI_Request that MPI_Wait, MPI_Test, MPI_Waitall, MPI_Start,
 * MPI_Request_free and the rest accept, mixed in arrays with the program's
 * own requests. Each xchg request is paired with a real MPI request, its
 * handle, that MPI completes only once xchg has:
 *   nonblocking: a generalized request (MPI_Grequest_start), completed with
 *                MPI_Grequest_complete when the xchg request completes;
 *   persistent:  an inactive persistent receive from MPI_PROC_NULL, started
 *                (and so complete at once) when the xchg request completes.
 * The completion functions below first drive the xchg requests in their
 * array (XCHG_Test / XCHG_Wait), turn the handles of those that completed
 * complete, then call the MPI library's own function on the whole array, so
 * MPI's semantics (statuses, MPI_UNDEFINED, inactive and null handles,
 * freeing) stay MPI's. While no xchg request exists they are a single
 * atomic load away from the MPI library's.
 */
#ifndef XCHG_INTERPOSE_REQUESTS_H
#define XCHG_INTERPOSE_REQUESTS_H

#include <mpi.h>

#include "xchg.h"

/* Pair a started nonblocking xchg request with a new generalized request. */
int xchg_ip_request_nonblocking(XCHG_Request xreq, MPI_Request *handle);
/* Pair an inactive persistent xchg request with a new persistent handle. */
int xchg_ip_request_persistent(XCHG_Request xreq, MPI_Request *handle);

/* For entry points whose MPI library reaches its own completion functions
 * by another way than the C MPI_Wait, ... (MPICH's mpi_f08 bindings and all of
 * Open MPI's call PMPI_Wait; fortran_completion.c wraps them): */
/* 1 while any xchg request exists (one atomic load). */
int xchg_ip_requests_live(void);
/* Advance every outstanding xchg call once; whether any is still in flight. */
int xchg_ip_requests_busy(void);
/* Advance the xchg requests among `requests`: each once (until_done 0;
 * *pending: how many are still in flight, may be NULL) or until all have
 * completed. Their handles then report completion to the MPI library. */
int xchg_ip_requests_drive(int count, const MPI_Request requests[], int until_done,
                           int *pending);
/* If `request` stands for a persistent xchg request (*ours = 1), start it;
 * else *ours = 0 and nothing happens. */
int xchg_ip_start_ours(MPI_Request *request, int *ours);
/* Freeing `request`, in two steps around the MPI library's free of the
 * handle itself. xchg_ip_request_release, before it: if the handle stands
 * for an xchg request, unpair them, make a generalized handle complete, and
 * put the xchg request into *xreq (else XCHG_REQUEST_NULL).
 * xchg_ip_request_finish, after it: free *xreq, in flight if it is active
 * (it completes later, progressed by every completion function and xchg
 * call); returns rc, or that free's error. The handle goes first: MPICH
 * 4.0.2 hangs the next persistent collective when a persistent collective
 * request (the library's own, which `mpi` starts for an xchg request:
 * src/coll/mpi/library_persistent.h) is freed before a persistent receive
 * from MPI_PROC_NULL made after it (a persistent request's handle; checked
 * with a program of MPICH calls alone, at 1 and 3 ranks). */
int xchg_ip_request_release(MPI_Request request, XCHG_Request *xreq);
int xchg_ip_request_finish(XCHG_Request xreq, int rc);

int xchg_ip_wait(MPI_Request *request, MPI_Status *status);
int xchg_ip_test(MPI_Request *request, int *flag, MPI_Status *status);
int xchg_ip_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int xchg_ip_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]);
int xchg_ip_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int xchg_ip_testany(int count, MPI_Request requests[], int *index, int *flag,
                    MPI_Status *status);
int xchg_ip_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[]);
int xchg_ip_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[]);
int xchg_ip_start(MPI_Request *request);
int xchg_ip_startall(int count, MPI_Request requests[]);
int xchg_ip_request_free(MPI_Request *request);
int xchg_ip_request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int xchg_ip_cancel(MPI_Request *request);

#endif
