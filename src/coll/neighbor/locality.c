/*
 * locality: the locality-aware (aggregating) persistent neighbourhood
 * alltoallv of
 *   G. Collom, R. P. Li, A. Bienz. Optimizing Irregular Communication with
 *   Neighborhood Collectives and Locality-Aware Parallelism. In Workshops of
 *   SC 2023 (SC-W 2023), ACM, 2023. doi:10.1145/3624062.3624111.
 *   Section 3.2, Algorithms 4-6 (aggregated_init, _start, _wait), with the
 *   duplicate removal of section 3.3 (dedup=1 with the _ext inits).
 *
 * Regions are the nodes of the context's topology (ctx->topo: real nodes, or
 * XCHG_VIRTUAL_NODES / XCHG_VIRTUAL_PLACEMENT, any placement, uneven sizes),
 * or parts of them (parameter `regions`);
 * everything is computed from topology coordinates (node, local rank), never
 * from rank arithmetic. The pattern splits into four parts (Algorithm 4):
 *   l  messages to ranks of the own region (self loops included): direct,
 *      with the user's datatypes, as `standard` sends them;
 *   s  for every other region B this rank sends to, one message holding all
 *      its values for B, to the rank of its own region responsible for B
 *      (the region's "sender" for the pair (A, B));
 *   g  one message per region pair (A, B): from the sender of (A, B), which
 *      holds every value region A sends to B, to the "receiver" of (A, B),
 *      a rank of B;
 *   r  the receiver sends each rank q of B one message with all of q's
 *      values from region A.
 * Who is the sender of (A, B) is decided in A, who is the receiver in B,
 * each region balancing its inter-region pairs over its ranks (parameter
 * `balance`, below); one message per rank along the graph's edges at init
 * tells the senders who the receivers are. Each start (Algorithm 5) posts
 * l, starts and completes s, starts g; the completion (Algorithm 6)
 * completes l and g, then starts and completes r. This implementation runs
 * the whole schedule inside XCHG_Start (no .post: the steps depend on each
 * other, and the request has no hook to advance them from XCHG_Test), so
 * XCHG_Test / XCHG_Wait find it complete and no computation overlaps it; a
 * start synchronizes within regions, not globally. Progress in XCHG_Test
 * would also need the staging buffers per request: they live in the plan,
 * which nonblocking calls of one pattern share (plan.h), and running whole
 * in the start is what keeps that sharing safe.
 *
 * Data crosses in packed bytes: s packs the user's blocks (MPI_Pack, or
 * memcpy for contiguous types; displacements in extents), g and r forward
 * bytes, and the final unpack writes each receive block with the user's
 * receive type. A block of zero bytes is not sent; repeated neighbours are
 * matched by occurrence (the k-th block for rank d meets the k-th block
 * from us among d's sources, MPI's rule for a multigraph).
 *
 * dedup=1 (section 3.3): with global indices (XCHG_Neighbor_alltoallv_
 * init_ext), the values a rank sends to one region B are reduced to one per
 * distinct index before s, so a value that several ranks of B need goes
 * once through s and g, and r copies it to each of them. Without indices
 * (the plain inits, the blocking and nonblocking calls) dedup=1 is
 * dedup=0, not an error: one selection
 * string serves calls with and without indices. Values with one index must
 * be equal on the sending rank (the _ext contract); values of different
 * source ranks are never merged.
 *
 * Cost per start, for a rank in region A of n_A ranks, with R_A the regions
 * A sends to and m(A, B) the bytes A sends to B (after dedup):
 *   l: its own intra-region blocks, as standard;
 *   s: one message per region it sends to (to the sender of that pair,
 *      possibly itself), carrying its bytes for that region;
 *   g: the ranks of A share the R_A inter-region messages, one per pair,
 *      each m(A, B) bytes: about R_A / n_A messages per rank (balance=count)
 *      or about sum m(A, .) / n_A bytes per rank (balance=bytes);
 *   r: a receiver sends one message per rank of its region that needs
 *      data of the source region, at most n_B - 1 messages per pair.
 * So the inter-region messages fall from one per (rank, rank) edge to one
 * per region pair, for up to three intra-region hops more. Latency:
 * alpha_inter + 2 alpha_intra + the bandwidth terms above. The cost
 * model of automatic selection (.cost, model.c) is this, on the pattern's
 * agreed maxima with equal pairs assumed: s and r a rank's other regions
 * or an aggregator's pairs times the ranks per pair, g ceil(R/n) messages,
 * packing and the r copies counted; dedup costed as 0.
 *
 * Init: two small collectives on the region (an MPI_Comm_split, freed at
 * the end of init, and a sum of 4 R int64 per rank, R regions), one int per
 * inter-region edge, one alltoallv of metadata in the region and one
 * metadata message per region pair (received with MPI_ANY_SOURCE on its
 * own tag: the closing agreement keeps a later init's metadata out), then
 * an MPI_Allreduce that agrees on success. The blocking and nonblocking
 * calls pay it once per pattern (plan.h: cached plans keyed by the pattern,
 * one MPI_Allreduce of 3 int64 per call).
 *
 * Memory held by the plan: the packed bytes this rank sends out of its
 * region (s buffer), the pairs it aggregates (g send buffer) and receives
 * (g receive buffer), the r send buffers of the pairs it receives and the r
 * receive buffer of its own inter-region bytes, plus the lists of messages,
 * pack runs and copy runs (O(blocks + runs)).
 *
 * Parameters:
 *   balance=count|bytes  how a region spreads its inter-region pairs over
 *       its ranks (largest first, each to the least loaded rank): count
 *       gives every rank the same number of g messages (the paper's choice
 *       for small messages, where latency dominates: the case three-step
 *       aggregation is made for, so the default); bytes balances the bytes
 *       of g (better for large messages). The receiving region balances
 *       with the same rule on the bytes it receives (before dedup).
 *   dedup=0|1  duplicate removal with global indices (above), default 0.
 *   regions=1|K|numa|socket  what a region is: the node (default), K
 *       groups of consecutive local ranks per node (min(K, node size)), or
 *       the machine's NUMA domains or sockets inside each node (as the
 *       node-aware family's groups=, nodeaware/regions.c). Smaller regions
 *       trade fewer ranks per aggregation step for more inter-region pairs.
 *
 * Files: this one (the algorithm, its regions and its descriptor);
 * locality.h lists the plan builder's steps, one file each
 * (locality_plan*.c), and the run (locality_run.c).
 */
#include "locality.h"
#include "../nodeaware/engine.h"
#include "model.h"

static const char *const balance_names[] = {"count", "bytes", NULL};

static void destroy(xchg_plan *plan)
{
    xchg_locality_state_free(plan->state);
    plan->state = NULL;
}

/* Regions: the nodes (regions=1), K groups of consecutive local ranks per
 * node, or the machine's NUMA domains / sockets inside each node (asked as
 * the node-aware family asks, nodeaware/regions.c). */
static int init(xchg_plan *plan)
{
    const xchg_args *a = plan->fixed;
    xchg_context *ctx = plan->ctx;
    const xchg_topology *nodes = &ctx->topo;
    const int64_t regions = plan->choice.value[LOCALITY_REGIONS];
    if (!a || a->coll != XCHG_NEIGHBOR_ALLTOALLV)
        return xchg_error(MPI_ERR_INTERN, "locality: a neighbourhood plan needs its arguments");
    if (regions == 1) return xchg_locality_build(plan, nodes);
    int rc, *key = NULL;
    xchg_topology cut = {0};
    XCHG_ALLOC(key, (size_t)ctx->size * sizeof(int));
    if (regions < 0) {
        XCHG_CHECK(xchg_hier_hw_domains(ctx, (int)regions, key));
    } else {
        for (int r = 0; r < ctx->size; r++) {
            int64_t q = nodes->node_size[nodes->node_of_rank[r]];
            int64_t g = regions < q ? regions : q;
            key[r] = (int)((int64_t)nodes->local_rank_of[r] * g / q);
        }
    }
    XCHG_CHECK(xchg_topology_regions(nodes, key, &cut));
    rc = xchg_locality_build(plan, &cut);
fail:
    xchg_topology_free(&cut);
    free(key);
    return rc;
}

const xchg_algorithm xchg_algo_neighbor_alltoallv_locality = {
    .coll = XCHG_NEIGHBOR_ALLTOALLV,
    .name = "locality",
    .summary = "three-step aggregation: one message per region pair, gathered and "
               "redistributed inside the regions; dedup with global indices",
    .reference = "Collom et al. 2023",
    .init = init,
    .run = xchg_locality_run,
    .destroy = destroy,
    .cost = xchg_neighbor_locality_cost,
    .num_params = 3,
    .params = {[LOCALITY_BALANCE] = {.name = "balance", .kind = XCHG_PARAM_ENUM,
                                  .def = LOCALITY_BALANCE_COUNT, .names = balance_names,
                                  .help = "spread a region's inter-region pairs over its ranks "
                                          "by message count or by bytes"},
               [LOCALITY_DEDUP] = {.name = "dedup", .kind = XCHG_PARAM_INT, .def = 0, .min = 0,
                                .max = 1,
                                .help = "send a value once per region pair (needs the _ext "
                                        "inits' global indices; else ignored)"},
               [LOCALITY_REGIONS] = {.name = "regions", .kind = XCHG_PARAM_INT, .def = 1,
                                  .min = 1, .max = XCHG_RANGE_P,
                                  .names = xchg_hier_region_names,
                                  .help = "regions per node (1: the node), or numa or socket"}},
};
