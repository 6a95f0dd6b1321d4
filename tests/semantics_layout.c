/*
 * The buffer layouts of the semantics tests (tests/semantics.c through xchg,
 * tests/semantics_dropin.c through MPI's own calls): for each collective,
 * counts with zero-size blocks, gaps and reversed receive order; the send
 * datasets and their references through PMPI. No xchg call here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "semantics.h"

static int *ints(int n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(int)); }

/* Block i of `counts` (elements of `unit` bytes) laid out in order (reverse:
 * in reverse order), one unit of gap before each; displacements in units
 * (bytes: in bytes). Returns the bytes the buffer spans. */
static size_t place(const int *counts, int n, int *displs, int unit, int reverse, int bytes)
{
    size_t at = 0;
    for (int k = 0; k < n; k++) {
        int i = reverse ? n - 1 - k : k;
        at += 1; /* the gap */
        displs[i] = bytes ? (int)(at * (size_t)unit) : (int)at;
        at += (size_t)counts[i];
    }
    return (at + 1) * (size_t)unit;
}

/* Ints that rank s sends to rank t in the v-collectives: 0 to 4 (scaled). */
static int vcount(int s, int t, int scale) { return scale * ((s * 3 + t * 5 + 1) % 5); }

void sem_layout_alltoall(sem_layout *L, int P, int rank, int scale)
{
    L->count = 3 * scale;
    L->send_bytes = L->recv_bytes = (size_t)P * L->count * sizeof(int);
    (void)rank;
}

void sem_layout_allgather(sem_layout *L, int P, int rank, int scale)
{
    L->count = 3 * scale;
    L->send_bytes = (size_t)L->count * sizeof(int);
    L->recv_bytes = (size_t)P * L->count * sizeof(int);
    (void)rank;
}

void sem_layout_alltoallv(sem_layout *L, int P, int rank, int scale)
{
    L->scounts = ints(P), L->sdispls = ints(P), L->rcounts = ints(P), L->rdispls = ints(P);
    for (int p = 0; p < P; p++) {
        L->scounts[p] = vcount(rank, p, scale);
        L->rcounts[p] = vcount(p, rank, scale);
    }
    L->send_bytes = place(L->scounts, P, L->sdispls, sizeof(int), 0, 0);
    L->recv_bytes = place(L->rcounts, P, L->rdispls, sizeof(int), 1, 0);
}

/* alltoallw: ints on the send side; on the receive side, from odd ranks
 * that send an even number of ints, pairs of ints (the same signature). */
void sem_layout_alltoallw(sem_layout *L, int P, int rank, int scale)
{
    sem_layout_alltoallv(L, P, rank, scale);
    MPI_Type_contiguous(2, MPI_INT, &L->pair);
    MPI_Type_commit(&L->pair);
    L->stypes = malloc(sizeof(MPI_Datatype) * (size_t)P);
    L->rtypes = malloc(sizeof(MPI_Datatype) * (size_t)P);
    for (int p = 0; p < P; p++) {
        L->stypes[p] = MPI_INT;
        L->rtypes[p] = MPI_INT;
        L->sdispls[p] *= (int)sizeof(int);
        L->rdispls[p] *= (int)sizeof(int);
        if (p % 2 == 1 && L->rcounts[p] % 2 == 0 && L->rcounts[p] > 0) {
            L->rtypes[p] = L->pair;
            L->rcounts[p] /= 2;
        }
    }
}

void sem_layout_allgatherv(sem_layout *L, int P, int rank, int scale)
{
    L->rcounts = ints(P), L->rdispls = ints(P);
    /* Rank 2 contributes nothing; rank 1 (the one that sends before its
     * start in the scenario) contributes, so every rank needs its block. */
    for (int p = 0; p < P; p++) L->rcounts[p] = scale * ((p * 3 + 2) % 4);
    L->sendcount = L->rcounts[rank];
    L->send_bytes = (size_t)(L->sendcount > 0 ? L->sendcount : 1) * sizeof(int);
    L->recv_bytes = place(L->rcounts, P, L->rdispls, sizeof(int), 1, 0);
}

/* Ints rank r sends to its i-th destination on the ring (0..3, scaled). */
static int ncount(int r, int i, int scale) { return scale * ((r * 2 + i * 3 + 1) % 4); }

void sem_layout_neighbor(sem_layout *L, int P, int rank, int scale)
{
    L->degree = 2;
    L->srcs[0] = (rank - 1 + P) % P, L->srcs[1] = (rank + 1) % P;
    L->dsts[0] = (rank + 1) % P, L->dsts[1] = (rank - 1 + P) % P;
    L->scounts = ints(2), L->sdispls = ints(2), L->rcounts = ints(2), L->rdispls = ints(2);
    for (int i = 0; i < 2; i++) {
        L->scounts[i] = ncount(rank, i, scale);
        /* Source j sent me its block j (see sem_ring_create). */
        L->rcounts[i] = ncount(L->srcs[i], i, scale);
    }
    L->send_bytes = place(L->scounts, 2, L->sdispls, sizeof(int), 0, 0);
    L->recv_bytes = place(L->rcounts, 2, L->rdispls, sizeof(int), 1, 0);
}

int sem_ring_create(MPI_Comm base, MPI_Comm *ring)
{
    int P, rank;
    MPI_Comm_size(base, &P);
    MPI_Comm_rank(base, &rank);
    int srcs[2] = {(rank - 1 + P) % P, (rank + 1) % P};
    int dsts[2] = {(rank + 1) % P, (rank - 1 + P) % P};
    return MPI_Dist_graph_create_adjacent(base, 2, srcs, MPI_UNWEIGHTED, 2, dsts,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, ring);
}

/* ---- datasets and references ------------------------------------------------ */

static uint32_t value(int dataset, int rank, size_t offset)
{
    uint64_t x = (uint64_t)dataset * 0x9E3779B97F4A7C15ull ^ (uint64_t)rank * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)offset * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(x ^ (x >> 32));
}

int sem_layout_prepare(const sem_coll *c, sem_layout *L, MPI_Comm refcomm)
{
    int rc = MPI_SUCCESS;
    for (int d = 0; d < SEM_NDATA && rc == MPI_SUCCESS; d++) {
        L->data[d] = malloc(L->send_bytes);
        L->ref[d] = malloc(L->recv_bytes);
        uint32_t *words = (uint32_t *)L->data[d];
        for (size_t i = 0; i < L->send_bytes / sizeof(uint32_t); i++)
            words[i] = value(d, L->rank, i);
        memset(L->ref[d], SEM_SENTINEL, L->recv_bytes);
        rc = c->call(L, FORM_REFERENCE, L->data[d], L->ref[d], refcomm, MPI_INFO_NULL, NULL);
    }
    return rc;
}

void sem_layout_free(sem_layout *L)
{
    for (int d = 0; d < SEM_NDATA; d++) {
        free(L->data[d]);
        free(L->ref[d]);
    }
    free(L->scounts), free(L->sdispls), free(L->rcounts), free(L->rdispls);
    free(L->stypes), free(L->rtypes);
    if (L->pair != MPI_DATATYPE_NULL && L->pair != 0) MPI_Type_free(&L->pair);
    memset(L, 0, sizeof *L);
}
