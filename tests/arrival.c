/*
 * xchg-arrival: stress test of the one-sided, arrival-aware algorithms
 * (src/coll/arrival/: rma_direct, shm_direct). Thousands of consecutive calls of one plan, each
 * preceded on every rank by a seeded random delay (usleep), each result
 * compared byte for byte with the MPI library's own collective. A flag left
 * over from an earlier call, a block overwritten by a peer that ran ahead,
 * or a send buffer still read after the call returned shows up as a
 * mismatch (every call writes different bytes, and the send buffer is
 * scribbled over right after each call).
 *
 * Usage: xchg-arrival [--calls=N] [--max-bytes=B] [--max-delay-us=U] [--seed=S]
 *                     [--select=SEL] (default: every scheme x aware of rma_direct,
 *                     and shm_direct aware=1/0; thresholds and chunks of max(max-bytes/3, 1024)
 *                     bytes, so larger blocks take several rounds)
 * Set XCHG_VIRTUAL_NODES (e.g. 2) to give shm_direct several nodes.
 * Block sizes are drawn per call from 0..max-bytes (the same on every rank),
 * so the copy and zerocopy paths (and auto's switch) alternate within one
 * plan; one call in 8 uses MPI_IN_PLACE. The last line on rank 0 is
 * "N passed, N failed" (one case per selection and collective).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xchg.h"

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* One selection on one collective: returns the number of failed calls. */
static int run_case(const char *coll, const char *sel, int calls, int max_bytes, int max_delay,
                    uint64_t seed, int persistent)
{
    int rank, P, failed = 0;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    int gather = strcmp(coll, "allgather") == 0;
    if (XCHG_Comm_set_algorithm(comm, coll, sel) != MPI_SUCCESS) {
        if (rank == 0) printf("FAIL %s %s: selection refused\n", coll, sel);
        MPI_Comm_free(&comm);
        return 1;
    }
    size_t cap = (size_t)max_bytes * (size_t)P + 16;
    unsigned char *sbuf = malloc(cap), *rbuf = malloc(cap), *ref = malloc(cap);
    for (int c = 0; c < calls && !failed; c++) {
        uint64_t h = mix(seed ^ ((uint64_t)c << 20));
        int bytes = (int)(h % (uint64_t)(max_bytes + 1));
        int in_place = (h >> 32) % 8 == 0;
        int sblocks = gather ? 1 : P;
        for (size_t i = 0; i < (size_t)bytes * sblocks; i++)
            sbuf[i] = (unsigned char)mix(h ^ ((uint64_t)rank << 40) ^ i);
        memset(rbuf, 0xEE, cap);
        memset(ref, 0xEE, cap);
        if (in_place) { /* the data to send sits in the receive buffer */
            if (gather) memcpy(rbuf + (size_t)rank * bytes, sbuf, (size_t)bytes);
            else memcpy(rbuf, sbuf, (size_t)bytes * P);
            memcpy(ref, rbuf, cap);
        }
        const void *sp = in_place ? MPI_IN_PLACE : sbuf;
        if (gather) PMPI_Allgather(sp, bytes, MPI_BYTE, ref, bytes, MPI_BYTE, comm);
        else PMPI_Alltoall(sp, bytes, MPI_BYTE, ref, bytes, MPI_BYTE, comm);
        /* Arrival pattern: every rank sleeps its own seeded time. */
        uint64_t d = mix(h ^ (uint64_t)(rank + 1) * 0x5851f42d4c957f2dULL);
        if (max_delay > 0) usleep((useconds_t)(d % (uint64_t)(max_delay + 1)));
        int rc;
        if (persistent) {
            XCHG_Request req;
            rc = gather ? XCHG_Allgather_init(sp, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, comm,
                                              MPI_INFO_NULL, &req)
                        : XCHG_Alltoall_init(sp, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, comm,
                                             MPI_INFO_NULL, &req);
            if (rc == MPI_SUCCESS) rc = XCHG_Start(&req);
            if (rc == MPI_SUCCESS) rc = XCHG_Wait(&req, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) rc = XCHG_Request_free(&req);
        } else {
            rc = gather ? XCHG_Allgather(sp, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, comm)
                        : XCHG_Alltoall(sp, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, comm);
        }
        memset(sbuf, 0x5A, cap); /* the send buffer is the caller's again */
        int bad = rc != MPI_SUCCESS || memcmp(rbuf, ref, cap) != 0;
        if (bad) {
            size_t at = 0;
            while (at < cap && rbuf[at] == ref[at]) at++;
            fprintf(stderr, "FAIL %s %s call %d rank %d: rc=%d bytes=%d in_place=%d first "
                    "difference at byte %zu (block %zu)\n", coll, sel, c, rank, rc, bytes,
                    in_place, at, bytes ? at / (size_t)bytes : 0);
        }
        MPI_Allreduce(&bad, &failed, 1, MPI_INT, MPI_MAX, comm);
    }
    free(sbuf);
    free(rbuf);
    free(ref);
    MPI_Comm_free(&comm);
    return failed;
}

int main(int argc, char **argv)
{
    int calls = 2000, max_bytes = 3000, max_delay = 200, rank;
    uint64_t seed = 1;
    const char *select = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--calls=", 8) == 0) calls = atoi(a + 8);
        else if (strncmp(a, "--max-bytes=", 12) == 0) max_bytes = atoi(a + 12);
        else if (strncmp(a, "--max-delay-us=", 15) == 0) max_delay = atoi(a + 15);
        else if (strncmp(a, "--seed=", 7) == 0) seed = strtoull(a + 7, NULL, 10);
        else if (strncmp(a, "--select=", 9) == 0) select = a + 9;
        else {
            if (rank == 0) fprintf(stderr, "xchg-arrival: unknown option %s\n", a);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    /* Thresholds inside the size range, so auto switches between schemes
     * and copy runs in several rounds for the larger blocks. */
    static char defaults[8][96];
    const char *sels[8];
    int nsel = 0;
    if (select) sels[nsel++] = select;
    else {
        const char *schemes[] = {"copy", "zerocopy", "auto"};
        for (int s = 0; s < 3; s++)
            for (int aware = 1; aware >= 0; aware--) {
                snprintf(defaults[nsel], sizeof defaults[nsel],
                         "rma_direct:scheme=%s,threshold=%d,aware=%d", schemes[s],
                         max_bytes / 3 > 1024 ? max_bytes / 3 : 1024, aware);
                sels[nsel] = defaults[nsel];
                nsel++;
            }
        for (int aware = 1; aware >= 0; aware--) { /* several rounds per call */
            snprintf(defaults[nsel], sizeof defaults[nsel], "shm_direct:chunk=%d,aware=%d",
                     max_bytes / 3 > 1024 ? max_bytes / 3 : 1024, aware);
            sels[nsel] = defaults[nsel];
            nsel++;
        }
    }
    int passed = 0, failed = 0;
    const char *colls[] = {"alltoall", "allgather"};
    for (int i = 0; i < nsel; i++)
        for (int c = 0; c < 2; c++)
            for (int persistent = 0; persistent < 2; persistent++) {
                /* persistent: a fresh request (and plan) per call: fewer calls */
                int n = persistent ? calls / 10 + 1 : calls;
                double t0 = MPI_Wtime();
                int f = run_case(colls[c], sels[i], n, max_bytes, max_delay,
                                 seed * 1000 + (uint64_t)(i * 4 + c * 2 + persistent), persistent);
                if (rank == 0)
                    printf("%s %s %s: %d calls %s (%.2f s)\n", colls[c], sels[i],
                           persistent ? "persistent" : "blocking", n, f ? "FAILED" : "ok",
                           MPI_Wtime() - t0);
                fflush(stdout);
                f ? failed++ : passed++;
            }
    if (rank == 0) printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed != 0;
}
