/*
 * Hierarchical all-to-all: Algorithm 3 with one leader per node (Figure 2) of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 *
 * The lowest local rank of every node leads: every rank sends its P blocks to
 * the leader (gather), the leaders exchange everything their nodes send each
 * other with the inner algorithm (one message of Q_n*Q_m blocks per node pair),
 * and the leaders scatter the result. Fewest inter-node messages (N-1 per
 * node), at the price of a serial gather and scatter of P*Q blocks at the
 * leader. Cost: 2(Q-1)(alpha + P m beta) + T_inner(N, Q^2 m).
 * Uneven nodes: nothing special; with the alltoall inner algorithm the leader
 * messages are padded to the largest node pair. Engine: engine.h.
 */
#include "engine.h"

enum { PARAM_INNER };

static xchg_hier_spec spec_of(const xchg_choice *choice)
{
    (void)choice;
    return (xchg_hier_spec){.leaders = 1, .groups = 0, .inner_param = PARAM_INNER};
}

#define PARAMS(c) {[PARAM_INNER] = XCHG_HIER_PARAM_INNER(c)}
XCHG_REGISTER_HIER(hierarchical, spec_of,
                   "gather to one leader per node, leaders exchange, scatter", 1, PARAMS,
                   .reference = "Kinkead et al. 2025")
