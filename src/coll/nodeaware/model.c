/*
 * The cost model of the node- and locality-aware family (engine.h), for
 * automatic selection (src/select/model.h). N nodes of Q ranks, blocks of m
 * bytes; k' = min(leaders, Q) participants per node (Q without leaders),
 * each serving own = Q/k' ranks; g' = min(groups, k') units per node of
 * K = k'/g' participants. Per participant:
 *   gather/scatter  own-1 messages of P*m bytes on the node (leaders only)
 *   inter, groups=0 the inner exchange among the N*k' participants, blocks of
 *                   own^2 * m (one per pair of served ranks)
 *   inter, groups>0 the inner exchange among the N*g' participants of equal
 *                   index, blocks of own * Q/g' * m; the node's k'
 *                   participants share its link
 *   intra           the inner exchange among the K members of a unit,
 *                   blocks of (P/K) * own * m
 * and every phase repacks what the participant holds (own*P*m bytes).
 * alltoallv sends the byte length of every forwarded block (8 bytes) first,
 * in each phase whose receivers forward again (gather; inter when a scatter
 * or an intra phase follows).
 */
#include "../../select/model.h"
#include "engine.h"

/* The inner exchange among `P` participants on `nodes` nodes, `ppn` of them
 * per node, `sharers` of a node's ranks sending off-node at once. */
static double inner_cost(const xchg_cost_case *c, const xchg_choice *inner,
                         const xchg_platform *plat, int P, int nodes, int ppn, int sharers,
                         double block)
{
    if (P <= 1) return 0;
    xchg_cost_case sub = xchg_cost_sub_case(c, P, nodes, ppn, sharers, block);
    return inner->algo->cost(&sub, inner, plat);
}

double xchg_hier_cost(const xchg_cost_case *c, const xchg_choice *choice,
                      const xchg_platform *plat, const xchg_hier_spec *spec)
{
    const int N = c->nodes, Q = c->ppn, P = c->P;
    const int k = spec->leaders > 0 ? (spec->leaders < Q ? spec->leaders : Q) : Q;
    const double own = (double)Q / k, m = c->block;
    const int is_v = xchg_coll_is_v(c->coll);
    const xchg_choice inner = xchg_choice_inner(choice, spec->inner_param);
    xchg_cost_phase repack = {.copy_bytes = own * P * m};
    double total = 0;

    if (spec->leaders > 0 && own > 1) {
        xchg_cost_phase gather = {.rounds = 1 + is_v, .local_msgs = (own - 1) * (1 + is_v),
                                  .local_bytes = (own - 1) * P * (m + is_v * 8)};
        total += 2 * xchg_cost_of_phase(c, plat, &gather) /* and the scatter */
                 + xchg_cost_of_phase(c, plat, &repack);
    }
    if (spec->groups == 0) { /* flat among all participants */
        total += inner_cost(c, &inner, plat, N * k, N, k, k, own * own * m)
                 + xchg_cost_of_phase(c, plat, &repack);
        if (is_v && spec->leaders > 0) /* lengths of what the leaders scatter */
            total += inner_cost(c, &inner, plat, N * k, N, k, k, own * own * 8);
        return total;
    }
    /* groups=numa|socket (negative): the domains are not known here; costed
     * as one region per node */
    const int g = spec->groups < 0 ? 1 : spec->groups < k ? spec->groups : k, K = k / g;
    double inter_block = own * ((double)Q / g) * m;
    total += inner_cost(c, &inner, plat, N * g, N, g, k, inter_block)
             + xchg_cost_of_phase(c, plat, &repack);
    if (K > 1) {
        if (is_v) /* the lengths of the blocks the intra phase forwards */
            total += inner_cost(c, &inner, plat, N * g, N, g, k, own * ((double)Q / g) * 8);
        total += inner_cost(c, &inner, plat, K, 1, K, k, ((double)P / K) * own * m)
                 + xchg_cost_of_phase(c, plat, &repack);
    }
    return total;
}
