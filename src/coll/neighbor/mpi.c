/*
 * `mpi` for the neighbourhood alltoallv: the MPI library's own
 * PMPI_Neighbor_alltoallv (and PMPI_Ineighbor_alltoallv for persistent and
 * nonblocking calls), selectable like any algorithm, so a program under the
 * drop-in library can A/B its neighbourhood exchanges by environment
 * (XCHG_NEIGHBOR_ALLTOALLV=mpi) and the benchmark can compare with it.
 *
 * It runs on xchg's private duplicate of the user's communicator, which
 * carries the user's distributed graph (MPI_Comm_dup keeps the topology).
 * A neighbourhood given by an XCHG_Topo on a communicator without that
 * graph has nothing for MPI to run on: init refuses it (MPI_ERR_TOPOLOGY).
 * The plan holds the element displacements, recovered from the normalized
 * byte offsets (displacement * extent exactly): indegree + outdegree ints.
 * Cost: whatever the MPI library does (Open MPI 4.1 and MPICH 4 post one
 * Irecv per source and one Isend per destination, like `standard`).
 */
#include <stdlib.h>
#include <string.h>

#include "../../core/context.h"
#include "../../core/error.h"
#include "../../core/plan.h"

typedef struct library_state {
    int *sdispls, *rdispls; /* one allocation */
} library_state;

static void displacements(const xchg_side *side, int n, int *displs)
{
    for (int i = 0; i < n; i++)
        displs[i] = side->type.extent ? (int)(side->offsets[i] / side->type.extent) : 0;
}

/* The call's neighbour lists must be those of the communicator's graph. */
static int check_graph(const xchg_args *a)
{
    int rc, kind, in, out, weighted;
    int *lists = NULL, *weights = NULL;
    XCHG_CHECK(xchg_topology_kind(a->comm, &kind));
    if (kind != MPI_DIST_GRAPH)
        return xchg_error(MPI_ERR_TOPOLOGY, "mpi: the communicator has no distributed graph "
                                            "(an XCHG_Topo needs another algorithm)");
    XCHG_CHECK(MPI_Dist_graph_neighbors_count(a->comm, &in, &out, &weighted));
    if (in != a->neighbor.indegree || out != a->neighbor.outdegree)
        return xchg_error(MPI_ERR_TOPOLOGY, "mpi: the communicator's graph differs from the "
                                            "call's neighbours");
    XCHG_ALLOC(lists, ((size_t)in + (size_t)out + 1) * sizeof(int));
    XCHG_ALLOC(weights, ((size_t)in + (size_t)out + 1) * sizeof(int));
    XCHG_CHECK(MPI_Dist_graph_neighbors(a->comm, in, lists, weights, out, lists + in,
                                        weights + in));
    if (memcmp(lists, a->neighbor.sources, (size_t)in * sizeof(int)) != 0 ||
        memcmp(lists + in, a->neighbor.destinations, (size_t)out * sizeof(int)) != 0)
        rc = xchg_error(MPI_ERR_TOPOLOGY, "mpi: the communicator's graph differs from the "
                                          "call's neighbours");
fail:
    free(lists);
    free(weights);
    return rc;
}

static int init(xchg_plan *plan)
{
    const xchg_args *a = plan->fixed;
    library_state *st = NULL;
    int rc;
    if (!a) return xchg_error(MPI_ERR_INTERN, "mpi: a neighbourhood plan needs its arguments");
    XCHG_CHECK(check_graph(a));
    XCHG_ALLOC(st, sizeof *st);
    XCHG_ALLOC(st->sdispls,
               ((size_t)a->neighbor.indegree + (size_t)a->neighbor.outdegree + 1) * sizeof(int));
    st->rdispls = st->sdispls + a->neighbor.outdegree;
    displacements(&a->send, a->neighbor.outdegree, st->sdispls);
    displacements(&a->recv, a->neighbor.indegree, st->rdispls);
    plan->state = st;
    return MPI_SUCCESS;
fail:
    free(st);
    return rc;
}

static void destroy(xchg_plan *plan)
{
    library_state *st = plan->state;
    if (!st) return;
    free(st->sdispls);
    free(st);
    plan->state = NULL;
}

static int run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    const library_state *st = plan->state;
    (void)ctx;
    return xchg_neighbor_alltoallv(a->send.buf, a->send.counts, st->sdispls, a->send.type.type,
                                  a->recv.buf, a->recv.counts, st->rdispls, a->recv.type.type,
                                  a->comm);
}

static int post(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan, MPI_Request *reqs,
                int *count)
{
    const library_state *st = plan->state;
    (void)ctx;
    *count = 0;
    int rc = MPI_Ineighbor_alltoallv(a->send.buf, a->send.counts, st->sdispls, a->send.type.type,
                                     a->recv.buf, a->recv.counts, st->rdispls,
                                     a->recv.type.type, a->comm, &reqs[0]);
    if (rc == MPI_SUCCESS) *count = 1;
    return rc;
}

const xchg_algorithm xchg_algo_neighbor_alltoallv_mpi = {
    .coll = XCHG_NEIGHBOR_ALLTOALLV,
    .name = "mpi",
    .summary = "the MPI library's own neighbourhood alltoallv (PMPI), on graph communicators",
    .init = init,
    .run = run,
    .destroy = destroy,
    .post = post,
    .init_is_local = 1,
};
