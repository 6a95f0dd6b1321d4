/*
 * XCHG_PROFILE=1: the process-arrival-pattern profiler of the drop-in
 * library, after Section 3.1 of Qian & Afsahi (Int. J. Parallel Programming
 * 39(4), 2011): per collective call the arrival time a_i and exit time e_i of
 * every rank, and at MPI_Finalize the paper's Table 1 per collective: calls,
 * average message size, average-case and worst-case imbalance factors
 * (d-bar / T and theta / T, averaged over calls), T the time of one message of
 * the call's block size.
 *
 * Off by default and then free (one cached flag). When on, each routed call
 * costs, after it returned, one PMPI_Allgather of one double on its
 * communicator (the arrival times), and the first profiled call on a
 * communicator one PMPI_Barrier (the clock alignment).
 */
#ifndef XCHG_INTERPOSE_PROFILE_H
#define XCHG_INTERPOSE_PROFILE_H

#include <mpi.h>
#include <stdatomic.h>

#include "stats.h"

extern _Atomic int xchg_ip_profile_state; /* -1 unread, 0 off, 1 on */
int xchg_ip_profile_init(void);

static inline int xchg_ip_profile_on(void)
{
    int s = atomic_load_explicit(&xchg_ip_profile_state, memory_order_relaxed);
    return s >= 0 ? s : xchg_ip_profile_init();
}

/* One routed call on intra-communicator `comm` (collective over it): this
 * rank arrived at `arrival` and left at `exit` (PMPI_Wtime); `block_bytes` is
 * the bytes of one block (the message size of the paper's Table 1). */
void xchg_ip_profile_record(xchg_ip_coll coll, MPI_Comm comm, double arrival, double exit,
                            long long block_bytes);

/* At MPI_Finalize, on every rank of MPI_COMM_WORLD: reduce and print Table 1
 * on rank 0 (stderr, or XCHG_PROFILE_FILE). Does nothing when off. */
void xchg_ip_profile_report(void);

#endif
