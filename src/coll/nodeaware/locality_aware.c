/*
 * Locality-aware all-to-all: Algorithm 4 with several regions per node
 * (Figure 5) of
 *   S. Kinkead, J. Wesley, W. Schonbein, D. DeBonis, M. G. F. Dosanjh,
 *   A. Bienz. Scaling All-to-all Operations Across Emerging Many-Core
 *   Supercomputers. In: Workshops of SC '25 (SC Workshops '25), ACM, 2025.
 *   DOI 10.1145/3731599.3767393
 *
 * Node n's Q ranks form g' = min(g, Q) regions of consecutive local ranks,
 * [floor(r Q/g'), floor((r+1) Q/g')) (sizes differ by at most one when g'
 * does not divide Q). Rank i of a region exchanges with rank i of every other
 * region (all nodes) everything for that region, then each region
 * redistributes internally; both exchanges use the inner algorithm.
 * Cost: T_inner(N g, (Q/g) m) + T_inner(Q/g, N g m): cheaper redistribution
 * than node_aware, more inter-region messages. g = 1 is node_aware.
 * Uneven regions: the channel rule of node_aware (blocks of rank i for region
 * v go over index i mod |v|, with an extra exchange inside the region first).
 * Engine: engine.h.
 */
#include "engine.h"

enum { PARAM_GROUPS, PARAM_INNER };

static xchg_hier_spec spec_of(const xchg_choice *choice)
{
    return (xchg_hier_spec){.leaders = 0, .groups = (int)choice->value[PARAM_GROUPS],
                            .inner_param = PARAM_INNER};
}

#define PARAMS(c) \
    {[PARAM_GROUPS] = XCHG_HIER_PARAM_GROUPS, [PARAM_INNER] = XCHG_HIER_PARAM_INNER(c)}
XCHG_REGISTER_HIER(locality_aware, spec_of,
                   "node-aware exchange with g regions per node", 2, PARAMS,
                   .reference = "Kinkead et al. 2025")
