/*
 * Node-aware all-to-all: Algorithm 4 (Figure 4) of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 * which is the three-step aggregation of Section 3 of
 *   G. Collom, R. P. Li, A. Bienz. Optimizing Irregular Communication with
 *   Neighborhood Collectives and Locality-Aware Parallelism. In: Workshops
 *   of SC '23 (SC-W 2023), ACM, 2023. DOI 10.1145/3624062.3624111
 * without its first step.
 *
 * Local rank j of node n sends, with the inner algorithm among the ranks of
 * local rank j on all nodes, everything for node m to local rank j of node m
 * (inter-node: one message of Q_m blocks per node); then every
 * node redistributes with the inner algorithm among its ranks (intra-node).
 * Cost: T_inner(N, Q m) + T_inner(Q, N m).
 * Uneven nodes (the channel rule): the blocks of local rank j for node m
 * travel over local rank j mod Q_m. When Q_m <= j, rank (n, j) first hands
 * them to (n, j mod Q_m) in an extra intra-node exchange (reported as
 * intra-node); that phase is skipped when all nodes have the same size.
 * Engine: engine.h.
 */
#include "engine.h"

enum { PARAM_INNER };

static xchg_hier_spec spec_of(const xchg_choice *choice)
{
    (void)choice;
    return (xchg_hier_spec){.leaders = 0, .groups = 1, .inner_param = PARAM_INNER};
}

#define PARAMS(c) {[PARAM_INNER] = XCHG_HIER_PARAM_INNER(c)}
XCHG_REGISTER_HIER(node_aware, spec_of,
                   "exchange among equal local ranks of all nodes, then within the node", 1,
                   PARAMS, .reference = "Kinkead et al. 2025")
