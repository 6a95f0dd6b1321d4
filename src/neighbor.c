/*
 * Neighbourhood alltoallv (include/xchg.h). The neighbour lists come from a
 * distributed-graph communicator or from an XCHG_Topo; the arguments are
 * normalized per neighbour (xchg_args_neighbor_alltoallv), and the request
 * is the persistent collectives' own (src/request.h), so XCHG_Start, Wait,
 * Test and Request_free serve it unchanged. A blocking or nonblocking call
 * whose normal path ran `mpi` arms the fast path of the next of its form
 * (neighbor_fast.h, nonblocking_fast.h), which reads no neighbour list.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "core/args.h"
#include "core/context.h"
#include "core/device.h"
#include "core/error.h"
#include "core/pattern_cache.h"
#include "core/plan.h"
#include "core/topology.h"
#include "neighbor_fast.h"
#include "nonblocking_fast.h"
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
    XCHG_CHECK(xchg_topology_kind(comm, &kind));
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

/* Normalized arguments of a neighbourhood call on comm, whose context is
 * ctx (local). */
static int neighbor_args(MPI_Comm comm, const xchg_context *ctx, const struct xchg_topo *topo,
                         const void *sendbuf, const int *sendcounts, const int *sdispls,
                         MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                         const int *rdispls, MPI_Datatype recvtype, xchg_args *args)
{
    neighbor_lists lists = {0};
    int rc;
    XCHG_CHECK(call_lists(comm, ctx->size, topo, &lists));
    XCHG_CHECK(xchg_args_neighbor_alltoallv(args, lists.indegree, lists.sources,
                                            lists.outdegree, lists.destinations, sendbuf,
                                            sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                            rdispls, recvtype, ctx->comm, ctx->rank,
                                            ctx->size));
fail:
    free(lists.owned);
    return rc;
}

/* A persistent request, with global indices (the _ext inits: with_indices)
 * or without; defined with the extension below. */
static int init_request(XCHG_Topo topo, const void *sendbuf, const int sendcounts[],
                        const int sdispls[], const int64_t sidx[], MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int rdispls[],
                        const int64_t ridx[], MPI_Datatype recvtype, int with_indices,
                        MPI_Comm comm, MPI_Info info, XCHG_Request *request);

int XCHG_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 XCHG_Request *request)
{
    return init_request(XCHG_TOPO_NULL, sendbuf, sendcounts, sdispls, NULL, sendtype, recvbuf,
                        recvcounts, rdispls, NULL, recvtype, 0, comm, info, request);
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
    return init_request(topo, sendbuf, sendcounts, sdispls, NULL, sendtype, recvbuf, recvcounts,
                        rdispls, NULL, recvtype, 0, comm, info, request);
}

/* ---- the duplicate-removal extension (include/xchg.h) ------------------ */

/* Copy the global indices into args (block by block, xchg_args.send_gindex). */
static int copy_gindex(xchg_args *a, const int *sendcounts, const int *sdispls,
                       const int64_t *sidx, const int *recvcounts, const int *rdispls,
                       const int64_t *ridx)
{
    int rc = MPI_SUCCESS;
    int64_t ns = 0, nr = 0;
    for (int i = 0; i < a->neighbor.outdegree; i++) ns += sendcounts[i];
    for (int i = 0; i < a->neighbor.indegree; i++) nr += recvcounts[i];
    if ((ns > 0 && !sidx) || (nr > 0 && !ridx))
        return xchg_error(MPI_ERR_ARG, "global_%sindices is NULL", ns > 0 && !sidx ? "s" : "r");
    XCHG_ALLOC(a->neighbor.send_gindex, ((size_t)ns + (size_t)nr + 1) * sizeof(int64_t));
    a->neighbor.recv_gindex = a->neighbor.send_gindex + ns;
    ns = nr = 0;
    for (int i = 0; i < a->neighbor.outdegree; i++, ns += sendcounts[i - 1])
        if (sendcounts[i]) memcpy(a->neighbor.send_gindex + ns, sidx + sdispls[i],
                                  (size_t)sendcounts[i] * sizeof(int64_t));
    for (int i = 0; i < a->neighbor.indegree; i++, nr += recvcounts[i - 1])
        if (recvcounts[i]) memcpy(a->neighbor.recv_gindex + nr, ridx + rdispls[i],
                                  (size_t)recvcounts[i] * sizeof(int64_t));
fail:
    return rc;
}

static uint64_t index_hash(const int64_t *idx, int n)
{
    uint64_t h = 0x6a09e667f3bcc909ull ^ (uint64_t)n;
    for (int k = 0; k < n; k++) {
        h ^= (uint64_t)idx[k] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xbf58476d1ce4e5b9ull;
    }
    return h;
}

/* Collective: every edge carries {count, hash of the indices} from sender to
 * receiver, which compares it with its own block's; then every rank learns
 * whether any block disagreed (MPI_ERR_ARG everywhere, with the first bad
 * block named on the ranks that saw it). */
static int check_gindex(const xchg_args *a)
{
    int rc = MPI_SUCCESS, nreq = 0, bad = -1, any = 0;
    int64_t *mine = NULL, *theirs = NULL;
    MPI_Request *reqs = NULL;
    const int in = a->neighbor.indegree, out = a->neighbor.outdegree;
    XCHG_ALLOC(mine, (2 * (size_t)out + 1) * sizeof(int64_t));
    XCHG_ALLOC(theirs, (2 * (size_t)in + 1) * sizeof(int64_t));
    XCHG_ALLOC(reqs, ((size_t)in + (size_t)out + 1) * sizeof(MPI_Request));
    for (int i = 0; i < in; i++)
        XCHG_CHECK(MPI_Irecv(theirs + 2 * i, 2, MPI_INT64_T, a->neighbor.sources[i], 47, a->comm,
                             &reqs[nreq++]));
    int64_t off = 0;
    for (int i = 0; i < out; i++) {
        mine[2 * i] = a->send.counts[i];
        mine[2 * i + 1] = (int64_t)index_hash(a->neighbor.send_gindex + off, a->send.counts[i]);
        off += a->send.counts[i];
        XCHG_CHECK(MPI_Isend(mine + 2 * i, 2, MPI_INT64_T, a->neighbor.destinations[i], 47, a->comm,
                             &reqs[nreq++]));
    }
    XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
    nreq = 0;
    off = 0;
    for (int i = 0; i < in && bad < 0; i++) {
        if (theirs[2 * i] != a->recv.counts[i] ||
            theirs[2 * i + 1] !=
                (int64_t)index_hash(a->neighbor.recv_gindex + off, a->recv.counts[i]))
            bad = i;
        off += a->recv.counts[i];
    }
fail:
    if (nreq > 0) xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    {
        int local = rc != MPI_SUCCESS || bad >= 0;
        if (xchg_allreduce(&local, &any, 1, MPI_INT, MPI_MAX, a->comm) != MPI_SUCCESS) any = 1;
    }
    if (rc == MPI_SUCCESS && bad >= 0)
        rc = xchg_error(MPI_ERR_ARG, "global indices disagree: the block received from "
                        "source %d (rank %d) has %lld values whose indices differ from the "
                        "ones that rank sends (or their number differs)", bad,
                        a->neighbor.sources[bad],
                        (long long)a->recv.counts[bad]);
    else if (rc == MPI_SUCCESS && any)
        rc = xchg_error(MPI_ERR_ARG, "global indices disagree between other ranks");
    free(mine), free(theirs), free(reqs);
    return rc;
}

static int init_request(XCHG_Topo topo, const void *sendbuf, const int sendcounts[],
                        const int sdispls[], const int64_t sidx[], MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int rdispls[],
                        const int64_t ridx[], MPI_Datatype recvtype, int with_indices,
                        MPI_Comm comm, MPI_Info info, XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    int rc = request ? MPI_SUCCESS : xchg_error(MPI_ERR_ARG, "request is NULL");
    if (rc == MPI_SUCCESS) rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS)
        rc = neighbor_args(comm, ctx, topo, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, &args);
    if (rc != MPI_SUCCESS) return xchg_raise(comm, rc);
    if (with_indices) {
        rc = copy_gindex(&args, sendcounts, sdispls, sidx, recvcounts, rdispls, ridx);
        if (rc == MPI_SUCCESS) rc = check_gindex(&args);
    }
    if (rc != MPI_SUCCESS) {
        xchg_args_free(&args);
        return xchg_raise(comm, rc);
    }
    rc = xchg_request_create(comm, ctx, &args, info, request);
    return xchg_raise(comm, rc);
}

int XCHG_Neighbor_alltoallv_init_ext(const void *sendbuf, const int sendcounts[],
                                     const int sdispls[], const int64_t global_sindices[],
                                     MPI_Datatype sendtype, void *recvbuf,
                                     const int recvcounts[], const int rdispls[],
                                     const int64_t global_rindices[], MPI_Datatype recvtype,
                                     MPI_Comm comm, MPI_Info info, XCHG_Request *request)
{
    return init_request(XCHG_TOPO_NULL, sendbuf, sendcounts, sdispls, global_sindices, sendtype,
                        recvbuf, recvcounts, rdispls, global_rindices, recvtype, 1, comm, info,
                        request);
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
    if (!topo)
        return xchg_raise(comm, xchg_error(MPI_ERR_ARG, "XCHG_Neighbor_alltoallv_topo_init_ext: "
                                                        "topo is XCHG_TOPO_NULL"));
    return init_request(topo, sendbuf, sendcounts, sdispls, global_sindices, sendtype, recvbuf,
                        recvcounts, rdispls, global_rindices, recvtype, 1, comm, info, request);
}

int XCHG_Neighbor_stats_get(XCHG_Request request, XCHG_Neighbor_stats *stats)
{
    const xchg_args *a = NULL;
    const xchg_plan *plan = xchg_request_plan(request, &a);
    if (!plan || a->coll != XCHG_NEIGHBOR_ALLTOALLV)
        return xchg_error(MPI_ERR_REQUEST, "XCHG_Neighbor_stats_get: not a neighbourhood "
                                           "request");
    if (!stats) return xchg_error(MPI_ERR_ARG, "XCHG_Neighbor_stats_get: stats is NULL");
    if (!plan->neighbor.has_stats) {
        /* An algorithm that does not count its own (standard; MPI's) sends
         * every non-empty block directly: regions are the context's nodes. */
        const xchg_topology *t = &plan->ctx->topo;
        memset(stats, 0, sizeof *stats);
        for (int i = 0; i < a->neighbor.outdegree; i++) {
            int d = a->neighbor.destinations[i];
            if (d == a->rank || a->send.bytes[i] == 0) continue;
            if (t->node_of_rank[d] == t->node_of_rank[a->rank]) {
                stats->intra_messages++;
                stats->intra_bytes += a->send.bytes[i];
            } else {
                stats->inter_messages++;
                stats->inter_bytes += a->send.bytes[i];
            }
        }
        return MPI_SUCCESS;
    }
    stats->inter_messages = plan->neighbor.stats_inter_messages;
    stats->intra_messages = plan->neighbor.stats_intra_messages;
    stats->inter_bytes = plan->neighbor.stats_inter_bytes;
    stats->intra_bytes = plan->neighbor.stats_intra_bytes;
    return MPI_SUCCESS;
}

/* The cached plan for a blocking or nonblocking call's pattern: `mpi` for
 * device buffers (device.h); a nonblocking call's choice where it needs no
 * message (select.h: explicit, else `mpi`), as post_now makes it
 * (persistent.c). Under automatic selection a plan that every rank builds
 * together (a pattern changed somewhere) is where the choice is agreed
 * again. */
int xchg_neighbor_pattern_plan(xchg_context *ctx, xchg_args *args, int nonblocking,
                               xchg_plan **plan)
{
    xchg_choice choice;
    int automatic = 0, device, chosen = 0;
    int rc = xchg_device_route(ctx, args, &choice, &device);
    if (rc == MPI_SUCCESS && !device && nonblocking)
        rc = xchg_select_nonblocking_now(ctx, args, &choice, &chosen);
    if (rc == MPI_SUCCESS && !device && !chosen)
        rc = xchg_select_neighbor_call(ctx, args, &choice, &automatic);
    if (rc != MPI_SUCCESS) return rc;
    if (!nonblocking) xchg_neighbor_fast_arm(ctx, &choice, device, automatic);
    return xchg_plan_get_pattern(ctx, &choice, args,
                                 automatic ? xchg_select_neighbor_agreed : NULL, plan);
}

int XCHG_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    xchg_context *ctx;
    xchg_args args;
    xchg_nonblocking_call call = {XCHG_NEIGHBOR_ALLTOALLV, sendbuf, sendcounts, sdispls,
                                  sendtype, recvbuf, recvcounts, rdispls, recvtype};
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS && xchg_neighbor_fast_take(ctx, &call))
        return xchg_raise(comm, xchg_neighbor_fast_run(ctx, &call));
    if (rc == MPI_SUCCESS)
        rc = neighbor_args(comm, ctx, NULL, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, &args);
    if (rc == MPI_SUCCESS) rc = xchg_call_blocking(ctx, &args);
    return xchg_raise(comm, rc);
}

int XCHG_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             XCHG_Request *request)
{
    xchg_context *ctx;
    xchg_args args;
    xchg_nonblocking_call call = {XCHG_NEIGHBOR_ALLTOALLV, sendbuf, sendcounts, sdispls,
                                  sendtype, recvbuf, recvcounts, rdispls, recvtype};
    int taken = 0, rc;
    if (!request) return xchg_raise(comm, xchg_error(MPI_ERR_ARG, "request is NULL"));
    *request = XCHG_REQUEST_NULL;
    rc = xchg_context_get_nonblocking(comm, &ctx); /* local: the setup is a task's */
    if (rc == MPI_SUCCESS) rc = xchg_request_start_library(comm, ctx, &call, request, &taken);
    if (rc == MPI_SUCCESS && !taken)
        rc = neighbor_args(comm, ctx, NULL, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, &args);
    if (rc == MPI_SUCCESS && !taken)
        rc = xchg_request_start_nonblocking(comm, ctx, &args, request);
    return xchg_raise(comm, rc);
}
