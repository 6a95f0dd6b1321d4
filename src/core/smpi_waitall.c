/*
 * MPI_Waitall for SimGrid SMPI: one MPI_Wait per request, in order.
 *
 * SimGrid 3.32 implements MPI_Waitall as repeated MPI_Waitany over the
 * requests still pending; each Waitany registers a simcall on every pending
 * communication and unregisters it from all of them when one completes, so
 * a Waitall of n requests costs O(n^2) of the simulator's time. With the
 * all-at-once exchanges (2 (P - 1) requests per rank) that is O(P^3) per
 * call over all ranks: at P = 256 it was 75% of the wall time (perf;
 * sim/README.md, "Wall time", also for what remains: the max-min solver).
 *
 * Waiting for each request in turn completes the same set of requests, and
 * in SMPI communications progress without being waited for (eager sends are
 * detached, a rendezvous starts when both sides have posted), so the
 * simulated times barely move: within 0.5% at 64 ranks (nonblocking +0.4%,
 * scattered:batch=32 +0.1%, node_aware and parlogna unchanged; the order in
 * which completions are charged differs). Only the simulator's work drops,
 * to O(n) per call. Built into the library only
 * under SMPI (pmpi.h maps MPI_Waitall here); real MPIs keep their own.
 */
#include "pmpi.h"

#ifdef SMPI_H
int xchg_smpi_waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    int result = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        MPI_Status *status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        int rc = PMPI_Wait(&requests[i], status);
        if (status != MPI_STATUS_IGNORE)
            status->MPI_ERROR = rc;
        if (rc != MPI_SUCCESS && result == MPI_SUCCESS)
            result = statuses == MPI_STATUSES_IGNORE ? rc : MPI_ERR_IN_STATUS;
    }
    return result;
}
#endif
