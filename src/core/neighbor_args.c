/*
 * Normalization of the neighbourhood alltoallv's arguments (args.h): the
 * graph and the per-neighbour sides of xchg_args_neighbor_alltoallv, and the
 * deep copy that keys a plan cached by a pattern (pattern_cache.h). The
 * dense collectives' normalizers are in args.c; both use args_sides.h.
 */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "args_sides.h"
#include "error.h"

/* One side of a neighbourhood call: `n` neighbours, MPI's per-neighbour
 * counts and displacements (in extents of the datatype, never in sizes). */
static int neighbor_side(xchg_side *s, const side_arrays *arr, void *buf, MPI_Datatype type,
                         int n, const int *neighbors, const int *counts, const int *displs,
                         const char *what, int comm_size)
{
    int rc;
    XCHG_CHECK(xchg_type_describe(type, &s->type));
    side_init(s, arr, buf);
    for (int i = 0; i < n; i++) {
        if (neighbors[i] < 0 || neighbors[i] >= comm_size)
            return xchg_error(MPI_ERR_RANK, "%s neighbour %d is rank %d, not a rank of the "
                              "communicator (size %d)", what, i, neighbors[i], comm_size);
        if (counts[i] < 0)
            return xchg_error(MPI_ERR_COUNT, "%s count for neighbour %d (rank %d) is negative "
                              "(%d)", what, i, neighbors[i], counts[i]);
        arr->counts[i] = counts[i];
        arr->offsets[i] = (int64_t)displs[i] * s->type.extent;
    }
    XCHG_CHECK(side_check(s, n, what));
fail:
    return rc;
}

int xchg_args_neighbor_alltoallv(xchg_args *a, int indegree, const int *sources, int outdegree,
                                 const int *destinations, const void *sendbuf,
                                 const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,
                                 void *recvbuf, const int *recvcounts, const int *rdispls,
                                 MPI_Datatype recvtype, MPI_Comm comm, int rank, int size)
{
    side_arrays arr[2] = {{0}}; /* filled by alloc_arrays (zeroed for gcc -O3) */
    int rc;
    args_init(a, XCHG_NEIGHBOR_ALLTOALLV, comm, rank, size);
    if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
        return xchg_error(MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid for a neighbourhood "
                                          "collective");
    if (indegree < 0 || outdegree < 0 || (indegree > 0 && !sources) ||
        (outdegree > 0 && !destinations))
        return xchg_error(MPI_ERR_ARG, "bad neighbour lists (indegree %d, outdegree %d)",
                          indegree, outdegree);
    if (indegree > 0 && (!recvcounts || !rdispls))
        return xchg_error(MPI_ERR_ARG, "recvcounts or rdispls is NULL");
    if (outdegree > 0 && (!sendcounts || !sdispls))
        return xchg_error(MPI_ERR_ARG, "sendcounts or sdispls is NULL");
    XCHG_CHECK(alloc_arrays(a, indegree > outdegree ? indegree : outdegree, 2, arr));
    XCHG_ALLOC(a->neighbor.sources, ((size_t)indegree + (size_t)outdegree + 1) * sizeof(int));
    a->neighbor.destinations = a->neighbor.sources + indegree;
    a->neighbor.indegree = indegree;
    a->neighbor.outdegree = outdegree;
    if (indegree) memcpy(a->neighbor.sources, sources, (size_t)indegree * sizeof(int));
    if (outdegree) memcpy(a->neighbor.destinations, destinations, (size_t)outdegree * sizeof(int));
    XCHG_CHECK(neighbor_side(&a->recv, &arr[1], recvbuf, recvtype, indegree, a->neighbor.sources,
                             recvcounts, rdispls, "receive", size));
    XCHG_CHECK(neighbor_side(&a->send, &arr[0], (void *)sendbuf, sendtype, outdegree,
                             a->neighbor.destinations, sendcounts, sdispls, "send", size));
    return MPI_SUCCESS;
fail:
    xchg_args_free(a);
    return rc;
}

static void side_copy(xchg_side *dst, const side_arrays *arr, const xchg_side *src, int n)
{
    side_init(dst, arr, src->buf);
    dst->type = src->type;
    memcpy(dst->counts, src->counts, (size_t)n * sizeof(int));
    memcpy(dst->offsets, src->offsets, (size_t)n * sizeof(int64_t));
    memcpy(dst->bytes, src->bytes, (size_t)n * sizeof(int64_t));
}

int xchg_args_copy(xchg_args *dst, const xchg_args *src)
{
    if (src->coll != XCHG_NEIGHBOR_ALLTOALLV || src->owned_copy)
        return xchg_error(MPI_ERR_INTERN, "xchg_args_copy: only neighbourhood arguments");
    side_arrays arr[2] = {{0}};
    int rc, in = src->neighbor.indegree, out = src->neighbor.outdegree;
    *dst = *src;
    dst->owned = NULL;
    dst->held_types = NULL; /* a pattern's copy: the types are the call's */
    dst->num_held = 0;
    dst->neighbor.sources = dst->neighbor.destinations = NULL;
    /* the global indices are not part of a pattern (_ext inits only) */
    dst->neighbor.send_gindex = dst->neighbor.recv_gindex = NULL;
    XCHG_CHECK(alloc_arrays(dst, in > out ? in : out, 2, arr));
    XCHG_ALLOC(dst->neighbor.sources, ((size_t)in + (size_t)out + 1) * sizeof(int));
    dst->neighbor.destinations = dst->neighbor.sources + in;
    if (in) memcpy(dst->neighbor.sources, src->neighbor.sources, (size_t)in * sizeof(int));
    if (out)
        memcpy(dst->neighbor.destinations, src->neighbor.destinations, (size_t)out * sizeof(int));
    side_copy(&dst->recv, &arr[1], &src->recv, in);
    side_copy(&dst->send, &arr[0], &src->send, out);
    return MPI_SUCCESS;
fail:
    xchg_args_free(dst);
    return rc;
}

void xchg_neighbor_args_free(xchg_neighbor_args *n)
{
    free(n->sources);
    free(n->send_gindex);
    n->sources = n->destinations = NULL;
    n->send_gindex = n->recv_gindex = NULL;
}
