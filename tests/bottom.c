/*
 * MPI_BOTTOM: buffers given as MPI_BOTTOM with datatypes whose data lies at
 * absolute addresses (built from MPI_Get_address) are legal MPI, and programs
 * under the drop-in library make such calls. Every algorithm of every
 * collective, with its default parameters, must deliver what PMPI delivers
 * for the same data given as ordinary buffers of MPI_INT.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* One int at the absolute address of `array`, extent one int: element i is
 * array[i] when the buffer is MPI_BOTTOM. */
static MPI_Datatype absolute_int(const int *array)
{
    MPI_Aint address;
    MPI_Datatype one, resized;
    int len = 1;
    MPI_Get_address(array, &address);
    MPI_Type_create_hindexed(1, &len, &address, MPI_INT, &one);
    MPI_Type_create_resized(one, address, (MPI_Aint)sizeof(int), &resized);
    MPI_Type_commit(&resized);
    MPI_Type_free(&one);
    return resized;
}

/* One call of `coll` with MPI_BOTTOM buffers against PMPI on plain ones. */
static int bottom_call(MPI_Comm comm, xchg_coll coll)
{
    int rank, size, ok = 1, rc, rrc;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 3; /* ints per peer */
    int *send = malloc((size_t)n * size * sizeof(int)), *got = calloc((size_t)n * size, sizeof(int));
    int *want = calloc((size_t)n * size, sizeof(int)), *counts = malloc(2 * (size_t)size * sizeof(int));
    int *displs = counts + size;
    for (int i = 0; i < n * size; i++) send[i] = rank * 1000 + i;
    for (int p = 0; p < size; p++) counts[p] = (p + rank) % 2 ? n : n - 1, displs[p] = p * n;
    MPI_Datatype st = absolute_int(send), rt = absolute_int(got);
    if (coll == XCHG_ALLTOALLV) {
        /* counts must match pairwise: what p sends to me is what I receive */
        int *rcounts = malloc((size_t)size * sizeof(int));
        for (int p = 0; p < size; p++) rcounts[p] = (rank + p) % 2 ? n : n - 1;
        rc = XCHG_Alltoallv(MPI_BOTTOM, counts, displs, st, MPI_BOTTOM, rcounts, displs, rt, comm);
        rrc = PMPI_Alltoallv(send, counts, displs, MPI_INT, want, rcounts, displs, MPI_INT, comm);
        free(rcounts);
    } else if (coll == XCHG_ALLTOALL) {
        rc = XCHG_Alltoall(MPI_BOTTOM, n, st, MPI_BOTTOM, n, rt, comm);
        rrc = PMPI_Alltoall(send, n, MPI_INT, want, n, MPI_INT, comm);
    } else if (coll == XCHG_ALLGATHERV) { /* counts the same everywhere: rank p's */
        for (int p = 0; p < size; p++) counts[p] = p % 2 ? n : n - 1;
        rc = XCHG_Allgatherv(MPI_BOTTOM, counts[rank], st, MPI_BOTTOM, counts, displs, rt, comm);
        rrc = PMPI_Allgatherv(send, counts[rank], MPI_INT, want, counts, displs, MPI_INT, comm);
    } else {
        rc = XCHG_Allgather(MPI_BOTTOM, n, st, MPI_BOTTOM, n, rt, comm);
        rrc = PMPI_Allgather(send, n, MPI_INT, want, n, MPI_INT, comm);
    }
    if (rc != MPI_SUCCESS) ok = fail_msg("returned %d: %s", rc, XCHG_Last_error());
    else if (rrc != MPI_SUCCESS) ok = fail_msg("the reference failed (%d)", rrc);
    else if (memcmp(got, want, (size_t)n * size * sizeof(int)) != 0)
        ok = fail_msg("result differs from PMPI's");
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    free(send);
    free(got);
    free(want);
    free(counts);
    return ok;
}

int bottom_run(MPI_Comm comm, const char *layout_name, tally *t)
{
    int size;
    MPI_Comm_size(comm, &size);
    for (int coll = 0; coll < XCHG_NUM_COLL; coll++) {
        /* alltoallw: alltoallv's algorithms, its own sweep (tests/alltoallw.c) */
        if (!xchg_coll_is_dense(coll) || coll == XCHG_ALLTOALLW) continue;
        for (int a = 0; a < xchg_registry_count((xchg_coll)coll); a++) {
            const xchg_algorithm *algo = xchg_registry_get((xchg_coll)coll, a);
            snprintf(current_case, sizeof current_case, "MPI_BOTTOM: %s %s P=%d layout=%s",
                     coll_name((xchg_coll)coll), algo->name, size, layout_name);
            if (XCHG_Comm_set_algorithm(comm, coll_name((xchg_coll)coll), algo->name) != MPI_SUCCESS)
                continue; /* not applicable here (checked elsewhere) */
            record_case(comm, bottom_call(comm, (xchg_coll)coll), t);
        }
        XCHG_Comm_set_algorithm(comm, coll_name((xchg_coll)coll), NULL);
    }
    return 0;
}
