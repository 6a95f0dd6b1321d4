/*
 * Counting for the drop-in library (XCHG_VERBOSE=1, XCHG_COUNT_FILE=path).
 *
 * Off by default, and then free: the wrappers test one cached flag
 * (xchg_ip_stats_on) and do nothing else. The environment is read once, at
 * the first call. When on, each rank counts calls, bytes and seconds per
 * collective and which algorithm each call used; MPI_Finalize (wrapped in
 * route.c) sums them over MPI_COMM_WORLD and rank 0 prints a summary
 * (XCHG_VERBOSE) and/or writes it to a file (XCHG_COUNT_FILE), so a test can
 * tell that calls reached xchg.
 */
#ifndef XCHG_INTERPOSE_STATS_H
#define XCHG_INTERPOSE_STATS_H

#include <mpi.h>
#include <stdatomic.h>

typedef enum {
    XCHG_IP_ALLTOALL,
    XCHG_IP_ALLTOALLV,
    XCHG_IP_ALLGATHER,
    XCHG_IP_NEIGHBOR_ALLTOALLV,
    XCHG_IP_ALLTOALLW,
    XCHG_IP_ALLGATHERV,
    /* the nonblocking forms (MPI_Ialltoall, ...): counted when started */
    XCHG_IP_IALLTOALL,
    XCHG_IP_IALLTOALLV,
    XCHG_IP_IALLTOALLW,
    XCHG_IP_IALLGATHER,
    XCHG_IP_IALLGATHERV,
    /* the persistent forms (MPI_Alltoall_init, MPIX_Alltoall_init, ...):
     * counted at init; their starts are not counted */
    XCHG_IP_ALLTOALL_INIT,
    XCHG_IP_ALLTOALLV_INIT,
    XCHG_IP_ALLTOALLW_INIT,
    XCHG_IP_ALLGATHER_INIT,
    XCHG_IP_ALLGATHERV_INIT,
    XCHG_IP_NCOLL
} xchg_ip_coll;

/* The name of the call's form in the summary and XCHG_COUNT_FILE
 * ("alltoall", "ialltoall", "alltoall_init", ...). */
const char *xchg_ip_coll_name(xchg_ip_coll coll);
/* The collective as xchg's selection names it ("alltoall" for all three forms). */
const char *xchg_ip_coll_collective(xchg_ip_coll coll);

/* -1: environment not read yet, 0: off, 1: on. */
extern _Atomic int xchg_ip_stats_state;
int xchg_ip_stats_init(void);

static inline int xchg_ip_stats_on(void)
{
    int s = atomic_load_explicit(&xchg_ip_stats_state, memory_order_relaxed);
    return s >= 0 ? s : xchg_ip_stats_init();
}

/* One call that xchg ran: `seconds` in the call, `bytes` delivered into this
 * rank's receive buffer, `rc` its result; `algorithm` is the selection string
 * xchg reports it used ("" if unknown). */
void xchg_ip_stats_routed(xchg_ip_coll coll, int rc, double seconds, long long bytes,
                          const char *algorithm);

/* One call passed to the MPI library unchanged (inter-communicator, ...). */
void xchg_ip_stats_passed(xchg_ip_coll coll);

/* At MPI_Finalize, on every rank of MPI_COMM_WORLD (collective): reduce and
 * report. Does nothing when counting is off. */
void xchg_ip_stats_report(void);

#endif
