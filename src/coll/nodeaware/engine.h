/*
 * The shared engine of the node- and locality-aware all-to-all family:
 * Algorithms 3-5 of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 * and the three-step aggregation of Section 3 of
 *   G. Collom, R. P. Li, A. Bienz. Optimizing Irregular Communication with
 *   Neighborhood Collectives and Locality-Aware Parallelism. In: Workshops
 *   of SC '23 (SC-W 2023), ACM, 2023. DOI 10.1145/3624062.3624111
 * Every algorithm of the family is this engine with two numbers:
 *
 *   algorithm                    leaders  groups   phases
 *   hierarchical                 1        0        gather, inter-node, scatter
 *   multileader:leaders=k        k        0        gather, inter-node, scatter
 *   node_aware                   0        1        inter-node, intra-node
 *   locality_aware:groups=g      0        g        inter-node, intra-node
 *   multileader_node_aware:k     k        1        gather, inter-node, intra-node, scatter
 *
 * Roles. With leaders=k, node n (Q ranks) gets k' = min(k, Q) leaders; leader
 * group j holds the local ranks [floor(j*Q/k'), floor((j+1)*Q/k')) (balanced,
 * contiguous in local rank; sizes differ by at most one when k' does not
 * divide Q) and its leader is the group's lowest local rank. With leaders=0
 * every rank is its own leader. Leaders are the "participants"; a
 * participant p serves the ranks Own(p) of its group.
 * Units. With groups=g >= 1, the participants of node n (in local-rank order)
 * are cut the same way into g' = min(g, count) balanced contiguous units
 * (regions); a participant's index is its position in its unit. With
 * groups=0 each participant is a unit of its own (a flat exchange among all
 * participants). T(v) is the set of ranks served by unit v.
 * groups=numa / groups=socket: a unit is the set of a node's ranks that share
 * a NUMA domain / socket (regions.c). With hwloc (optional, found by
 * pkg-config): the domain the process is bound inside, asked once per process;
 * an unbound process counts as "unknown". Without hwloc: the MPI's split
 * (Open MPI: OMPI_COMM_TYPE_NUMA / _SOCKET; MPI-4, e.g. MPICH 4:
 * MPI_COMM_TYPE_HW_GUIDED with mpi_hw_resource_type NUMANode / Package).
 * Domains are intersected with the (virtual) node; units are numbered in order
 * of their lowest local rank and need not be contiguous. Ranks whose domain is
 * unknown form one unit per node, so on one machine with unbound ranks (the
 * usual oversubscribed test) groups=numa is node_aware, and a virtual node is
 * cut only where real bound domains cut it. Cost: one MPI_Allgather (plus
 * MPI_Comm_split_type and MPI_Allreduce without hwloc) when the plan is built.
 *
 * Plan (built once per communicator and parameter values, see
 * src/core/plan.h): the roles above, the list of phases, and each phase's
 * sub-communicator (an inner context owned by the plan) and members. A call
 * only moves data.
 *
 * Phases (each a message exchange on the plan's sub-communicator):
 *  gather   (leader group, direct sends) p receives Own(p) x All.
 *  spread   (unit, inner; only when units have different sizes K) the channel
 *           rule for uneven units: the blocks of participant (u,i) for unit v
 *           travel over channel i mod K_v, so (u,i) first hands them to
 *           (u, i mod K_v). With equal unit sizes this phase is empty.
 *  inter    (channel = participants of equal index i, inner) (u,i) sends to
 *           (v,i) Own(u,i') x T(v) for every i' = i mod K_v.
 *  intra    (unit, inner; when some unit has K > 1) (v,i) sends each unit
 *           member b the blocks whose destination b serves.
 *  scatter  (leader group, direct sends) leader p sends All x {d} to d.
 * Inner exchanges run the algorithm named by inner= on packed bytes. For
 * alltoall the inner algorithm needs equal blocks: every peer's message is
 * padded to the largest one in the sub-communicator (known without messages
 * when all units and groups are equal; one MPI_Allreduce otherwise).
 * alltoallv first sends, per phase, the byte length of every block it
 * forwards (8 bytes per block, through the same exchange), then the data;
 * not in a phase whose receivers are the blocks' destinations (scatter, and
 * the last exchange of node_aware / locality_aware): their receive counts
 * already say. So node_aware and locality_aware need 3 inner exchanges, not 4.
 *
 * Cost (N nodes of Q ranks, m bytes per block, one leader, alpha/beta):
 * hierarchical: gather/scatter (Q-1)(alpha + P m beta) at the leader, inter
 * T_inner(N, Q^2 m); node_aware: T_inner(N, Q m) + T_inner(Q, N m);
 * locality_aware: T_inner(N g, Q/g m) + T_inner(Q/g, N g m). Every block is
 * copied once per phase (repack), and the engine keeps a sorted index of the
 * blocks a rank holds: O(P * |Own| log) work per phase.
 */
#ifndef XCHG_COLL_NODEAWARE_ENGINE_H
#define XCHG_COLL_NODEAWARE_ENGINE_H

#include "../../core/context.h"
#include "../../core/plan.h"
#include "../../core/registry.h"

typedef struct xchg_hier_spec {
    int leaders; /* leaders per node; 0: every rank takes part itself */
    int groups;  /* units per node for a node-aware exchange; 0: flat among participants;
                    XCHG_HIER_NUMA / XCHG_HIER_SOCKET: the machine's domains */
    int inner_param; /* index of the inner= parameter in the descriptor */
} xchg_hier_spec;

/* groups=numa and groups=socket (the INT parameter's special values). */
#define XCHG_HIER_NUMA (-1)
#define XCHG_HIER_SOCKET (-2)
extern const char *const xchg_hier_region_names[];

/* domain_of[r] for every rank r: a number shared by the ranks of one NUMA
 * domain (which = XCHG_HIER_NUMA) or socket, -1 where unknown (collective;
 * regions.c). */
int xchg_hier_hw_domains(xchg_context *ctx, int which, int *domain_of);

/* The family's plan stages: init builds the plan of the member described by
 * `spec` (called from each member's init), run and free serve them all. */
int xchg_hier_init(xchg_plan *plan, const xchg_hier_spec *spec);
int xchg_hier_run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan);
void xchg_hier_free(xchg_plan *plan);

/* Parameter descriptors shared by the family. The default inner exchange is
 * scattered: the inners that keep several messages in flight measured fastest
 * (docs/results/nodeaware), pairwise the slowest. */
#define XCHG_HIER_PARAM_INNER(c)                                                     \
    {.name = "inner", .kind = XCHG_PARAM_ALGO, .def_name = "scattered", .algo_coll = c, \
     .help = "flat algorithm used for every internal exchange"}
#define XCHG_HIER_PARAM_LEADERS                                                      \
    {.name = "leaders", .kind = XCHG_PARAM_INT, .def = 2, .min = 1, .max = XCHG_RANGE_P, \
     .help = "leaders per node (min(k, node size) are used)"}
#define XCHG_HIER_PARAM_GROUPS                                                       \
    {.name = "groups", .kind = XCHG_PARAM_INT, .def = 2, .min = 1, .max = XCHG_RANGE_P, \
     .names = xchg_hier_region_names,                                               \
     .help = "regions per node (min(g, node size) are used), or numa or socket"}

struct xchg_cost_case;
struct xchg_platform;

/* The family's cost model (model.c): the phases above with the inner
 * algorithm's own model for each inner exchange. */
double xchg_hier_cost(const struct xchg_cost_case *c, const xchg_choice *choice,
                      const struct xchg_platform *plat, const xchg_hier_spec *spec);

/* Register `ident` for alltoall and alltoallv. `spec_fn(choice)` gives the
 * member's xchg_hier_spec for its parameter values; its plan init and cost
 * model follow. PARAMS(c) lists the parameters for collective c (the inner
 * algorithm's collective). */
#define XCHG_REGISTER_HIER(ident, spec_fn, text, nparams, PARAMS, ...)               \
    static int init_##ident(xchg_plan *plan)                                         \
    {                                                                                \
        const xchg_hier_spec spec = spec_fn(&plan->choice);                          \
        return xchg_hier_init(plan, &spec);                                          \
    }                                                                                \
    static double cost_##ident(const struct xchg_cost_case *c, const xchg_choice *choice, \
                               const struct xchg_platform *plat)                     \
    {                                                                                \
        const xchg_hier_spec spec = spec_fn(choice);                                 \
        return xchg_hier_cost(c, choice, plat, &spec);                               \
    }                                                                                \
    const xchg_algorithm xchg_algo_alltoall_##ident = {                              \
        .coll = XCHG_ALLTOALL, .name = #ident, .summary = text, .init = init_##ident, \
        .run = xchg_hier_run, .destroy = xchg_hier_free, .cost = cost_##ident,         \
        .num_params = nparams, .params = PARAMS(XCHG_ALLTOALL), __VA_ARGS__};        \
    const xchg_algorithm xchg_algo_alltoallv_##ident = {                             \
        .coll = XCHG_ALLTOALLV, .name = #ident, .summary = text, .init = init_##ident, \
        .run = xchg_hier_run, .destroy = xchg_hier_free, .cost = cost_##ident,         \
        .num_params = nparams, .params = PARAMS(XCHG_ALLTOALLV), __VA_ARGS__};

#endif
