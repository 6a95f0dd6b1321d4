/*
 * Multi-leader all-to-all: Algorithm 3 with several leaders (Figure 3) of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 *
 * Node n's Q ranks form k' = min(k, Q) leader groups of consecutive local
 * ranks, [floor(j Q/k'), floor((j+1) Q/k')), led by their lowest local rank
 * (groups differ by at most one rank when k' does not divide Q; with cyclic
 * placement "consecutive" means consecutive local ranks, not global ranks).
 * Gather to the group leader, all leaders of all nodes exchange with the
 * inner algorithm (each pair of leaders one message of |G|*|G'| blocks),
 * scatter. Smaller gathers than one leader, k times more inter-node messages.
 * Cost: 2(Q/k-1)(alpha + P m beta) + T_inner(N k, (Q/k)^2 m).
 * Engine: engine.h.
 */
#include "engine.h"

enum { PARAM_LEADERS, PARAM_INNER };

static xchg_hier_spec spec_of(const xchg_choice *choice)
{
    return (xchg_hier_spec){.leaders = (int)choice->value[PARAM_LEADERS], .groups = 0,
                            .inner_param = PARAM_INNER};
}

#define PARAMS(c) \
    {[PARAM_LEADERS] = XCHG_HIER_PARAM_LEADERS, [PARAM_INNER] = XCHG_HIER_PARAM_INNER(c)}
XCHG_REGISTER_HIER(multileader, spec_of,
                   "gather to k leaders per node, all leaders exchange, scatter", 2, PARAMS,
                   .reference = "Kinkead et al. 2025")
