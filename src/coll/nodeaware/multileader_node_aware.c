/*
 * Multi-leader node-aware all-to-all: Algorithm 5 (Figure 6) of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 *
 * Leaders as in multileader (k' = min(k, Q) groups of consecutive local
 * ranks, the lowest leads). Gather to the leaders; leader j of every node
 * exchanges with leader j of every other node everything its group sends to
 * that node (inter-node, inner algorithm); the leaders of a node
 * redistribute among themselves (intra-node, inner algorithm); scatter.
 * Cost: 2(Q/k-1)(alpha + P m beta) + T_inner(N, Q^2/k m) + T_inner(k, N Q^2/k^2 m).
 * Nodes with different numbers of leaders use the channel rule of node_aware
 * (leader j's blocks for node m go over leader j mod k'_m).
 * Engine: engine.h.
 */
#include "engine.h"

enum { PARAM_LEADERS, PARAM_INNER };

static xchg_hier_spec spec_of(const xchg_choice *choice)
{
    return (xchg_hier_spec){.leaders = (int)choice->value[PARAM_LEADERS], .groups = 1,
                            .inner_param = PARAM_INNER};
}

#define PARAMS(c) \
    {[PARAM_LEADERS] = XCHG_HIER_PARAM_LEADERS, [PARAM_INNER] = XCHG_HIER_PARAM_INNER(c)}
XCHG_REGISTER_HIER(multileader_node_aware, spec_of,
                   "gather to k leaders, node-aware exchange among leaders, scatter", 2, PARAMS,
                   .reference = "Kinkead et al. 2025")
