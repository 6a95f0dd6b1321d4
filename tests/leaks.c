/*
 * Communicator churn: create many communicators (duplicates and splits, under
 * changing virtual layouts), select algorithms and call xchg on each, then
 * free them. Run under LeakSanitizer (the ASan build) or valgrind, a context,
 * sub-communicator or scratch buffer that outlives its communicator shows up
 * as a leak at exit; the results are also checked against MPI.
 * Each iteration also runs every collective as a nonblocking call on a
 * fresh duplicate, so plans (and their sub-communicators, virtual ones made
 * inside the task: src/core/vcomm.h) are built in tasks; at the end no
 * virtual communicator may remain (and under MPICH, whose communicators are
 * a few thousand at most, a leaked duplicate would exhaust them).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int xchg_vcomm_count(void); /* src/core/vcomm.h: virtual communicators alive */

static const char *const churn_layouts[][2] = {{"", ""}, {"2", "block"}, {"3,2,4", "cyclic"},
                                               {"1,5", "block"}};

static int small_exchange(MPI_Comm comm, xchg_coll coll, int iteration, int nonblocking)
{
    int rank, size, ok = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 1 + iteration % 5;
    size_t elems = (size_t)size * n;
    int *sendbuf = malloc(elems * sizeof(int)), *got = malloc(elems * sizeof(int));
    int *want = malloc(elems * sizeof(int));
    int *counts = malloc(2 * (size_t)size * sizeof(int)), *displs = counts + size;
    for (size_t i = 0; i < elems; i++) sendbuf[i] = rank * 100000 + (int)i, got[i] = want[i] = -1;
    for (int p = 0; p < size; p++) counts[p] = n, displs[p] = n * p;
    int rc;
    XCHG_Request req = XCHG_REQUEST_NULL, *r = nonblocking ? &req : NULL;
    if (coll == XCHG_ALLTOALLV) {
        rc = r ? XCHG_Ialltoallv(sendbuf, counts, displs, MPI_INT, got, counts, displs, MPI_INT,
                                 comm, r)
               : XCHG_Alltoallv(sendbuf, counts, displs, MPI_INT, got, counts, displs, MPI_INT,
                                comm);
        if (rc == MPI_SUCCESS && r) rc = XCHG_Wait(r, MPI_STATUS_IGNORE);
        PMPI_Alltoallv(sendbuf, counts, displs, MPI_INT, want, counts, displs, MPI_INT, comm);
    } else if (coll == XCHG_ALLTOALL) {
        rc = r ? XCHG_Ialltoall(sendbuf, n, MPI_INT, got, n, MPI_INT, comm, r)
               : XCHG_Alltoall(sendbuf, n, MPI_INT, got, n, MPI_INT, comm);
        if (rc == MPI_SUCCESS && r) rc = XCHG_Wait(r, MPI_STATUS_IGNORE);
        PMPI_Alltoall(sendbuf, n, MPI_INT, want, n, MPI_INT, comm);
    } else if (coll == XCHG_ALLGATHERV) { /* rank p contributes p % 3 blocks of n: some none */
        for (int p = 0; p < size; p++) counts[p] = (p % 3) * n / 2, displs[p] = n * (size - 1 - p);
        rc = r ? XCHG_Iallgatherv(sendbuf, counts[rank], MPI_INT, got, counts, displs, MPI_INT,
                                  comm, r)
               : XCHG_Allgatherv(sendbuf, counts[rank], MPI_INT, got, counts, displs, MPI_INT,
                                 comm);
        if (rc == MPI_SUCCESS && r) rc = XCHG_Wait(r, MPI_STATUS_IGNORE);
        PMPI_Allgatherv(sendbuf, counts[rank], MPI_INT, want, counts, displs, MPI_INT, comm);
    } else {
        rc = r ? XCHG_Iallgather(sendbuf, n, MPI_INT, got, n, MPI_INT, comm, r)
               : XCHG_Allgather(sendbuf, n, MPI_INT, got, n, MPI_INT, comm);
        if (rc == MPI_SUCCESS && r) rc = XCHG_Wait(r, MPI_STATUS_IGNORE);
        PMPI_Allgather(sendbuf, n, MPI_INT, want, n, MPI_INT, comm);
    }
    if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
    if (rc != MPI_SUCCESS) ok = fail_msg("returned %d: %s", rc, XCHG_Last_error());
    else if (memcmp(got, want, elems * sizeof(int)) != 0) ok = fail_msg("result differs from MPI");
    free(sendbuf);
    free(got);
    free(want);
    free(counts);
    return ok;
}

int leaks_run(MPI_Comm world, int iterations, tally *t)
{
    int rank;
    MPI_Comm_rank(world, &rank);
    for (int it = 0; it < iterations; it++) {
        const char *const *lay = churn_layouts[it % 4];
        if (lay[0][0]) {
            setenv("XCHG_VIRTUAL_NODES", lay[0], 1);
            setenv("XCHG_VIRTUAL_PLACEMENT", lay[1], 1);
        } else {
            unsetenv("XCHG_VIRTUAL_NODES");
            unsetenv("XCHG_VIRTUAL_PLACEMENT");
        }
        MPI_Comm comm, fresh[XCHG_NUM_COLL];
        if (it % 2) MPI_Comm_split(world, rank % 2, -rank, &comm);
        else MPI_Comm_dup(world, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        for (int coll = 0; coll < XCHG_NUM_COLL; coll++) {
            MPI_Comm_dup(comm, &fresh[coll]);
            MPI_Comm_set_errhandler(fresh[coll], MPI_ERRORS_RETURN);
        }
        int size;
        MPI_Comm_size(comm, &size);
        for (int coll = 0; coll < XCHG_NUM_COLL; coll++) {
            /* alltoallw: alltoallv's algorithms, its own sweep (tests/alltoallw.c) */
            if (!xchg_coll_is_dense(coll) || coll == XCHG_ALLTOALLW) continue;
            /* Each algorithm in turn with its defaults (where applicable). */
            int n = xchg_registry_count((xchg_coll)coll);
            const xchg_algorithm *algo = xchg_registry_get((xchg_coll)coll, (it / 2) % n);
            if (XCHG_Comm_set_algorithm(comm, coll_name((xchg_coll)coll), algo->name) != MPI_SUCCESS)
                XCHG_Comm_set_algorithm(comm, coll_name((xchg_coll)coll), NULL);
            if (XCHG_Comm_set_algorithm(fresh[coll], coll_name((xchg_coll)coll), algo->name) !=
                MPI_SUCCESS)
                XCHG_Comm_set_algorithm(fresh[coll], coll_name((xchg_coll)coll), NULL);
            if (it % 7 == 6) continue; /* sometimes free a comm with a context but no call */
            snprintf(current_case, sizeof current_case, "leak test: %s algo=%s iteration %d P=%d",
                     coll_name((xchg_coll)coll), algo->name, it, size);
            record_case(world, small_exchange(comm, (xchg_coll)coll, it, 0), t);
            snprintf(current_case, sizeof current_case,
                     "leak test: nonblocking %s algo=%s iteration %d P=%d (plan built in the task)",
                     coll_name((xchg_coll)coll), algo->name, it, size);
            record_case(world, small_exchange(fresh[coll], (xchg_coll)coll, it, 1), t);
        }
        for (int coll = 0; coll < XCHG_NUM_COLL; coll++) MPI_Comm_free(&fresh[coll]);
        MPI_Comm_free(&comm);
    }
    snprintf(current_case, sizeof current_case, "leak test: no virtual communicator left");
    record_case(world, xchg_vcomm_count() == 0 ? 1 : fail_msg("%d virtual communicators left",
                                                             xchg_vcomm_count()), t);
    unsetenv("XCHG_VIRTUAL_NODES");
    unsetenv("XCHG_VIRTUAL_PLACEMENT");
    return 0;
}
