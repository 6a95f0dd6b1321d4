/*
 * Neighbourhood alltoallv (include/xchg.h). The neighbour lists come from a
 * distributed-graph communicator or from an XCHG_Topo; the arguments are
 * normalized per neighbour (xchg_args_neighbor_alltoallv), and the request
 * is the persistent collectives' own (src/request.h), so XCHG_Start, Wait,
 * Test and Request_free serve it unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "core/args.h"
#include "core/context.h"
#include "core/error.h"
#include "core/plan.h"
#include "request.h"
#include "select/select.h"
#include "xchg.h"

struct xchg_topo {
    int comm_size;              /* size of the communicator the ranks belong to */
    int indegree, outdegree;
    int *sources, *destinations; /* one allocation: destinations follow sources */
};

/* Neighbour lists, borrowed from a topology or owned (from a graph). */
typedef struct neighbor_lists {
    int indegree, outdegree;
    int *sources, *destinations;
    int *owned;
} neighbor_lists;

static int copy_lists(int indegree, const int *sources, int outdegree, const int *destinations,
                      int **out)
{
    int rc = MPI_SUCCESS;
    int *mem;
    XCHG_ALLOC(mem, ((size_t)indegree + (size_t)outdegree + 1) * sizeof(int));
    if (indegree) memcpy(mem, sources, (size_t)indegree * sizeof(int));
    if (outdegree) memcpy(mem + indegree, destinations, (size_t)outdegree * sizeof(int));
    *out = mem;
fail:
    return rc;
}

int XCHG_Topo_create(MPI_Comm comm, int indegree, const int sources[], int outdegree,
                     const int destinations[], XCHG_Topo *topo)
{
    int rc, size;
    struct xchg_topo *t = NULL;
    if (!topo) return xchg_raise(comm, xchg_error(MPI_ERR_ARG, "XCHG_Topo_create: topo is NULL"));
    *topo = XCHG_TOPO_NULL;
    XCHG_CHECK(MPI_Comm_size(comm, &size));
    if (indegree < 0 || outdegree < 0 || (indegree > 0 && !sources) ||
        (outdegree > 0 && !destinations)) {
        rc = xchg_error(MPI_ERR_ARG, "XCHG_Topo_create: bad lists (indegree %d, outdegree %d)",
                        indegree, outdegree);
        goto fail;
    }
    for (int i = 0; i < indegree + outdegree; i++) {
        int r = i < indegree ? sources[i] : destinations[i - indegree];
        if (r < 0 || r >= size) {
            rc = xchg_error(MPI_ERR_RANK, "XCHG_Topo_create: %s %d is rank %d, not a rank of "
                            "the communicator (size %d)", i < indegree ? "source" : "destination",
                            i < indegree ? i : i - indegree, r, size);
            goto fail;
        }
    }
    XCHG_ALLOC(t, sizeof *t);
    t->comm_size = size;
    t->indegree = indegree;
    t->outdegree = outdegree;
    XCHG_CHECK(copy_lists(indegree, sources, outdegree, destinations, &t->sources));
    t->destinations = t->sources + indegree;
    *topo = t;
    return MPI_SUCCESS;
fail:
    free(t);
    return xchg_raise(comm, rc);
}

int XCHG_Topo_free(XCHG_Topo *topo)
{
    if (!topo || !*topo) return xchg_error(MPI_ERR_ARG, "XCHG_Topo_free: NULL topology");
    free((*topo)->sources);
    free(*topo);
    *topo = XCHG_TOPO_NULL;
    return MPI_SUCCESS;
}

/* The neighbour lists of comm's distributed graph; *has_graph = 0 without one. */
static int graph_lists(MPI_Comm comm, int *has_graph, neighbor_lists *out)
{
    int rc, kind, in, out_deg, weighted;
    int *weights = NULL;
    memset(out, 0, sizeof *out);
    XCHG_CHECK(MPI_Topo_test(comm, &kind));
    *has_graph = kind == MPI_DIST_GRAPH;
    if (!*has_graph) return MPI_SUCCESS;
    XCHG_CHECK(MPI_Dist_graph_neighbors_count(comm, &in, &out_deg, &weighted));
    size_t n = (size_t)in + (size_t)out_deg + 1;
    XCHG_ALLOC(out->owned, n * sizeof(int));
    XCHG_ALLOC(weights, n * sizeof(int)); /* written only for a weighted graph */
    XCHG_CHECK(MPI_Dist_graph_neighbors(comm, in, out->owned, weights, out_deg,
                                        out->owned + in, weights + in));
    out->indegree = in;
    out->outdegree = out_deg;
    out->sources = out->owned;
    out->destinations = out->owned + in;
fail:
    free(weights);
    return rc;
}

static int lists_equal(const neighbor_lists *a, const struct xchg_topo *t)
{
    return a->indegree == t->indegree && a->outdegree == t->outdegree &&
           memcmp(a->sources, t->sources, (size_t)t->indegree * sizeof(int)) == 0 &&
           memcmp(a->destinations, t->destinations, (size_t)t->outdegree * sizeof(int)) == 0;
}

/* The lists of a call: from `topo` when given (checked against comm's graph
 * if comm has one), else from comm's graph, which it must have. */
static int call_lists(MPI_Comm comm, int comm_size, const struct xchg_topo *topo,
                      neighbor_lists *out)
{
    int rc, has_graph;
    XCHG_CHECK(graph_lists(comm, &has_graph, out));
    if (!topo && !has_graph) {
        rc = xchg_error(MPI_ERR_TOPOLOGY, "the communicator has no distributed graph "
                        "(MPI_Dist_graph_create_adjacent), and no XCHG_Topo was given");
        goto fail;
    }
    if (!topo) return MPI_SUCCESS;
    if (topo->comm_size != comm_size) {
        rc = xchg_error(MPI_ERR_TOPOLOGY, "the XCHG_Topo was made for %d ranks, the communicator "
                        "has %d", topo->comm_size, comm_size);
        goto fail;
    }
    if (has_graph && !lists_equal(out, topo)) {
        rc = xchg_error(MPI_ERR_TOPOLOGY, "the communicator's graph (indegree %d, outdegree %d) "
                        "disagrees with the XCHG_Topo (indegree %d, outdegree %d)",
                        out->indegree, out->outdegree, topo->indegree, topo->outdegree);
        goto fail;
    }
    free(out->owned);
    *out = (neighbor_lists){.indegree = topo->indegree, .outdegree = topo->outdegree,
                            .sources = topo->sources, .destinations = topo->destinations};
    return MPI_SUCCESS;
fail:
    free(out->owned);
    out->owned = NULL;
    return rc;
}

/* Context and normalized arguments of a neighbourhood call (local after the
 * first call on comm, which duplicates it). */
static int neighbor_args(MPI_Comm comm, const struct xchg_topo *topo, const void *sendbuf,
                         const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,
                         void *recvbuf, const int *recvcounts, const int *rdispls,
                         MPI_Datatype recvtype, xchg_context **ctx, xchg_args *args)
{
    neighbor_lists lists = {0};
    int rc;
    XCHG_CHECK(xchg_context_get(comm, ctx));
    XCHG_CHECK(call_lists(comm, (*ctx)->size, topo, &lists));
    XCHG_CHECK(xchg_args_neighbor_alltoallv(args, lists.indegree, lists.sources,
                                            lists.outdegree, lists.destinations, sendbuf,
                                            sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                            rdispls, recvtype, (*ctx)->comm, (*ctx)->rank,
                                            (*ctx)->size));
fail:
    free(lists.owned);
    return rc;
}

static int init_common(XCHG_Topo topo, const void *sendbuf, const int sendcounts[],
                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    int rc = request ? MPI_SUCCESS : xchg_error(MPI_ERR_ARG, "request is NULL");
    if (rc == MPI_SUCCESS)
        rc = neighbor_args(comm, topo, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, &ctx, &args);
    if (rc == MPI_SUCCESS) rc = xchg_request_create(comm, ctx, &args, info, request);
    return xchg_raise(comm, rc);
}

int XCHG_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 XCHG_Request *request)
{
    return init_common(XCHG_TOPO_NULL, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                       recvcounts, rdispls, recvtype, comm, info, request);
}

int XCHG_Neighbor_alltoallv_topo_init(XCHG_Topo topo, const void *sendbuf,
                                      const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[], const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                      XCHG_Request *request)
{
    if (!topo)
        return xchg_raise(comm, xchg_error(MPI_ERR_ARG, "XCHG_Neighbor_alltoallv_topo_init: "
                                                        "topo is XCHG_TOPO_NULL"));
    return init_common(topo, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                       rdispls, recvtype, comm, info, request);
}

/* The cached plan for a blocking or nonblocking call's pattern. */
static int pattern_plan(xchg_context *ctx, const xchg_args *args, xchg_plan **plan)
{
    xchg_choice choice;
    int rc = xchg_select(ctx, XCHG_NEIGHBOR_ALLTOALLV, -1, &choice);
    if (rc == MPI_SUCCESS) rc = xchg_plan_get_pattern(ctx, &choice, args, plan);
    return rc;
}

int XCHG_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    xchg_context *ctx;
    xchg_args args;
    xchg_plan *plan = NULL;
    int rc = neighbor_args(comm, NULL, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, &ctx, &args);
    if (rc != MPI_SUCCESS) return xchg_raise(comm, rc);
    rc = pattern_plan(ctx, &args, &plan);
    if (rc == MPI_SUCCESS) rc = xchg_plan_execute(plan, &args);
    xchg_plan_release(plan);
    xchg_args_free(&args);
    return xchg_raise(comm, rc);
}

int XCHG_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    xchg_plan *plan = NULL;
    if (!request) return xchg_raise(comm, xchg_error(MPI_ERR_ARG, "request is NULL"));
    *request = XCHG_REQUEST_NULL;
    int rc = neighbor_args(comm, NULL, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, &ctx, &args);
    if (rc != MPI_SUCCESS) return xchg_raise(comm, rc);
    rc = pattern_plan(ctx, &args, &plan);
    if (rc != MPI_SUCCESS) {
        xchg_args_free(&args);
        return xchg_raise(comm, rc);
    }
    return xchg_raise(comm, xchg_request_start_once(comm, &args, plan, request));
}
