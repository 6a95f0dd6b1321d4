/*
 * A stand-in for the two functions of include/xchg.h that the locality
 * branch implements, for testing xchg-amg's use of them before they land
 * (LD_PRELOAD=libxchg-amg-mockext.so; apps/amg/check.sh does so only when
 * libxchg.so lacks them, so it never shadows the real ones):
 *
 *   XCHG_Neighbor_alltoallv_topo_init_ext checks the index contract of
 *   xchg.h (the k-th index of the block s sends to d equals the k-th index
 *   of the block d receives from s) by sending the send indices through the
 *   same topology with xchg's standard algorithm, then returns the plain
 *   init of the same arguments (no duplicate removal: it ignores indices).
 *
 *   XCHG_Neighbor_stats_get returns what that request sends from this rank
 *   by region: one message per destination of the topology (recorded by
 *   wrapping XCHG_Topo_create, whose handle is opaque) with its block's
 *   bytes; regions are XCHG_VIRTUAL_NODES=k blocks of k consecutive ranks (a
 *   single size only), or one region without it.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include "xchg.h"

#define MAX_REQ 256
static struct { XCHG_Request req; XCHG_Neighbor_stats st; } table[MAX_REQ];

static int mock_error(MPI_Comm comm, const char *what)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    fprintf(stderr, "mock_ext: rank %d: %s\n", rank, what);
    return MPI_ERR_ARG;
}

/* The topologies that XCHG_Topo_create made: their degrees and destinations. */
#define MAX_TOPO 256
static struct { XCHG_Topo topo; int indegree, outdegree; int *dest; } topos[MAX_TOPO];

int XCHG_Topo_create(MPI_Comm comm, int indegree, const int sources[], int outdegree,
                     const int destinations[], XCHG_Topo *topo)
{
    static int (*real)(MPI_Comm, int, const int *, int, const int *, XCHG_Topo *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "XCHG_Topo_create");
    if (!real) return mock_error(comm, "no XCHG_Topo_create after the mock");
    int rc = real(comm, indegree, sources, outdegree, destinations, topo);
    if (rc != MPI_SUCCESS) return rc;
    int slot = -1;
    for (int i = 0; i < MAX_TOPO && slot < 0; i++)
        if (topos[i].topo == *topo || topos[i].topo == NULL) slot = i;
    if (slot < 0) return mock_error(comm, "too many topologies");
    free(topos[slot].dest);
    topos[slot].topo = *topo;
    topos[slot].indegree = indegree;
    topos[slot].outdegree = outdegree;
    topos[slot].dest = malloc((size_t)(outdegree + 1) * sizeof(int));
    memcpy(topos[slot].dest, destinations, (size_t)outdegree * sizeof(int));
    return MPI_SUCCESS;
}

int XCHG_Neighbor_alltoallv_topo_init_ext(XCHG_Topo topo, const void *sendbuf,
                                          const int sendcounts[], const int sdispls[],
                                          const int64_t global_sindices[],
                                          MPI_Datatype sendtype, void *recvbuf,
                                          const int recvcounts[], const int rdispls[],
                                          const int64_t global_rindices[],
                                          MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Info info, XCHG_Request *request)
{
    int rc, rank, nin = 0, t = -1;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < MAX_TOPO && t < 0; i++)
        if (topos[i].topo == topo && topo) t = i;
    if (t < 0) return mock_error(comm, "a topology that XCHG_Topo_create did not make");
    int nsend = topos[t].outdegree, nrecv = topos[t].indegree;
    for (int i = 0; i < nrecv; i++) nin += recvcounts[i];

    /* 1. the index contract: send the indices, compare with the receive side */
    int64_t *got = malloc((size_t)(nin + 1) * sizeof(int64_t));
    XCHG_Request r;
    MPI_Info si;
    MPI_Info_create(&si);
    MPI_Info_set(si, "xchg_algorithm", "standard");
    rc = XCHG_Neighbor_alltoallv_topo_init(topo, global_sindices, sendcounts, sdispls, MPI_INT64_T,
                                           got, recvcounts, rdispls, MPI_INT64_T, comm, si, &r);
    MPI_Info_free(&si);
    if (rc != MPI_SUCCESS) { free(got); return rc; }
    XCHG_Start(&r);
    rc = XCHG_Wait(&r, MPI_STATUS_IGNORE);
    XCHG_Request_free(&r);
    int bad = 0;
    for (int i = 0; i < nrecv; i++)
        for (int k = 0; k < recvcounts[i]; k++)
            if (got[rdispls[i] + k] != global_rindices[rdispls[i] + k]) bad = 1;
    free(got);
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    if (anybad) return mock_error(comm, "send and receive indices disagree");

    /* 2. the stats: one message per destination other than this rank */
    const char *v = getenv("XCHG_VIRTUAL_NODES");
    int k = v && *v ? atoi(v) : 0, tsize;
    MPI_Type_size(sendtype, &tsize);
    XCHG_Neighbor_stats st = {0, 0, 0, 0};
    for (int i = 0; i < nsend; i++) {
        int d = topos[t].dest[i];
        long long bytes = (long long)sendcounts[i] * tsize;
        if (d == rank) continue;
        if (k > 0 && d / k != rank / k) st.inter_messages++, st.inter_bytes += bytes;
        else st.intra_messages++, st.intra_bytes += bytes;
    }

    rc = XCHG_Neighbor_alltoallv_topo_init(topo, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                           recvcounts, rdispls, recvtype, comm, info, request);
    if (rc != MPI_SUCCESS) return rc;
    int slot = -1;
    for (int i = 0; i < MAX_REQ; i++)
        if (table[i].req == *request || (slot < 0 && table[i].req == NULL)) {
            slot = i;
            if (table[i].req == *request) break;
        }
    if (slot < 0) return mock_error(comm, "too many requests");
    table[slot].req = *request;
    table[slot].st = st;
    return MPI_SUCCESS;
}

int XCHG_Neighbor_stats_get(XCHG_Request request, XCHG_Neighbor_stats *stats)
{
    for (int i = 0; i < MAX_REQ; i++)
        if (table[i].req == request && request) {
            *stats = table[i].st;
            return MPI_SUCCESS;
        }
    return MPI_ERR_REQUEST;
}
