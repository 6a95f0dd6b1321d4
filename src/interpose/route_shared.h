/*
 * What the blocking routes (route.c) and the nonblocking and persistent ones
 * (route_requests.c) share: the routing decision, the bytes a call delivers,
 * its accounting, and pairing an xchg request with an MPI handle. One copy
 * each, so that the three forms of a collective route and count alike.
 */
#ifndef XCHG_INTERPOSE_ROUTE_SHARED_H
#define XCHG_INTERPOSE_ROUTE_SHARED_H

#include <mpi.h>

#include "stats.h"
#include "xchg.h"

/* 1: xchg runs a dense collective on `comm`; 0: MPI does (route.h). */
int xchg_ip_routed(MPI_Comm comm);
/* The same for a neighbourhood collective: distributed-graph communicators only. */
int xchg_ip_routed_neighbor(MPI_Comm comm);

/* A call passed to MPI: counted when counting is on. */
void xchg_ip_passed(xchg_ip_coll coll);

/* Bytes a call delivers into this rank's receive buffer (call them only
 * after xchg accepted the arguments). */
long long xchg_ip_uniform_bytes(MPI_Comm comm, int recvcount, MPI_Datatype recvtype);
long long xchg_ip_counts_bytes(MPI_Comm comm, const int recvcounts[], MPI_Datatype recvtype);
long long xchg_ip_alltoallw_bytes(MPI_Comm comm, const int recvcounts[],
                                  const MPI_Datatype recvtypes[]);
long long xchg_ip_neighbor_bytes(MPI_Comm comm, const int recvcounts[], MPI_Datatype recvtype);

/* After a routed call that ran (blocking) or started or was built (the other
 * forms) from t0 to t1 with result rc, delivering `bytes` (per start): its
 * counts (XCHG_COUNT_FILE, XCHG_VERBOSE) and, for a blocking call, its
 * arrival profile (XCHG_PROFILE; message size: the mean block), each when on. */
void xchg_ip_account(xchg_ip_coll coll, MPI_Comm comm, int rc, double t0, double t1,
                     long long bytes);

/* The same for a nonblocking call at its start: its algorithm is not known
 * yet (its task selects it) and asking for it would wait for the call. */
void xchg_ip_account_started(xchg_ip_coll coll, int rc, double t0, double t1, long long bytes);

/* Pair what XCHG_I... (rc, xreq) returned with a new MPI handle; returns the
 * call's result. A started request whose handle cannot be made is completed
 * first, so nothing stays in flight behind an error. */
int xchg_ip_pair_nonblocking(int rc, XCHG_Request xreq, MPI_Request *request);
/* The same for what an XCHG_..._init returned; a request without a handle is freed. */
int xchg_ip_pair_persistent(int rc, XCHG_Request xreq, MPI_Request *request);

#endif
