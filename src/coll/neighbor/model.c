/*
 * The cost model of the neighbourhood alltoallv (standard.c, locality.c)
 * for automatic selection (src/select/model.h), from the agreed pattern
 * (xchg_neighbor_input, src/select/inputs.h: each value the largest over
 * the ranks). Notation: N nodes of Q ranks (the largest); per rank rm, lm
 * non-empty blocks (messages) and rb, lb bytes to or from other nodes and
 * its own node, d other nodes it exchanges with.
 *
 * standard: one round, every block one message: rm + lm messages (alpha_remote
 *   when rm > 0), lb bytes on the node and rb off it, the node's link shared
 *   by its Q ranks.
 * locality with regions=K: Kc = min(K, Q) regions of n = Q/Kc ranks per node.
 *   A rank's blocks to other regions of its own node join the aggregated
 *   part: rm' = rm + lm (Kc-1)/Kc messages, rb' = rb + lb (Kc-1)/Kc bytes,
 *   d' = min(rm', Kc d + Kc - 1) other regions. A region talks to
 *   R = min(N Kc - 1, n d') other regions; pairs are spread over its ranks,
 *   pr = ceil(R/n) per aggregating rank, of the mean size m = n rb' / R (the
 *   pairs are taken as equal: the inputs do not tell them apart), each
 *   pair involving f = min(n-1, ceil(n d'/R)) other ranks of the region.
 *     l+s  (one round, on the node) the on-region blocks, lm/Kc messages and
 *          lb/Kc bytes, as standard; then max(d', pr f) messages (a rank's
 *          own to its aggregators, or what an aggregator receives) of
 *          max(rb', pr m) bytes; packing copies rb'.
 *     g    (one round, off the node) pr messages of m bytes each
 *          (balance=count), or (balance=bytes) the region's n rb' bytes
 *          evenly over min(R, n) aggregators, at least one pair, for one
 *          message more where R/n is not whole; the node's Kc min(R, n)
 *          aggregators share its link.
 *     r    (one round, on the node) as s, and copies pr m (into the r
 *          buffers) and rb' (unpacking).
 *   So alpha_local + alpha_remote + alpha_local against standard's
 *   alpha_remote: aggregation pays when the off-node messages rm are many
 *   (overhead) against d' + pr + f. dedup is costed as dedup=0 (the inputs
 *   do not say how many values repeat, so dedup=1 ties and the default
 *   wins); regions=numa|socket are not costed (the search tries integers).
 */
#include "model.h"

#include <math.h> /* HUGE_VAL */
#include <stdint.h>

#include "../../select/model.h"

double xchg_neighbor_standard_cost(const xchg_cost_case *c, const xchg_choice *choice,
                                   const xchg_platform *plat)
{
    (void)choice;
    const xchg_neighbor_input *in = c->nbr;
    if (!in) return HUGE_VAL; /* no agreed pattern: not costed */
    xchg_cost_phase ph = {.rounds = in->remote_msgs + in->local_msgs > 0,
                          .local_msgs = (double)in->local_msgs,
                          .remote_msgs = (double)in->remote_msgs,
                          .local_bytes = (double)in->local_bytes,
                          .remote_bytes = (double)in->remote_bytes};
    return xchg_cost_of_phase(c, plat, &ph);
}

static double min2(double a, double b) { return a < b ? a : b; }
static double max2(double a, double b) { return a > b ? a : b; }
static double ceil_pos(double x) /* x >= 0, without libm */
{
    double t = (double)(int64_t)x;
    return t < x ? t + 1 : t;
}

double xchg_neighbor_locality_cost(const xchg_cost_case *c, const xchg_choice *choice,
                                   const xchg_platform *plat)
{
    const xchg_neighbor_input *in = c->nbr;
    if (!in || choice->value[LOCALITY_REGIONS] < 1) return HUGE_VAL;
    const double Q = c->ppn > 0 ? c->ppn : 1, N = c->nodes > 0 ? c->nodes : 1;
    const double Kc = min2((double)choice->value[LOCALITY_REGIONS], Q), n = Q / Kc;
    const double share = (Kc - 1) / Kc; /* of the on-node part, to other regions */
    const double rm = in->remote_msgs + in->local_msgs * share,
                 rb = in->remote_bytes + in->local_bytes * share;
    const double lm = in->local_msgs / Kc, lb = in->local_bytes / Kc;
    xchg_cost_phase l = {.rounds = lm > 0, .local_msgs = lm, .local_bytes = lb};
    if (rm <= 0) return xchg_cost_of_phase(c, plat, &l); /* nothing to aggregate */

    const double d = max2(1, min2(rm, Kc * in->remote_nodes + Kc - 1));
    const double R = max2(1, min2(N * Kc - 1, n * d));
    const double pr = ceil_pos(R / n), m = n * rb / R, f = min2(n - 1, ceil_pos(n * d / R));
    const double hop_msgs = max2(d, pr * f), hop_bytes = max2(rb, pr * m);
    const int by_bytes = choice->value[LOCALITY_BALANCE] == LOCALITY_BALANCE_BYTES;
    const double g_msgs = by_bytes && R > n && pr != R / n ? pr + 1 : pr;
    const double g_bytes = by_bytes ? max2(m, n * rb / min2(R, n)) : pr * m;
    const int off_node = N > 1;

    xchg_cost_phase s = {.rounds = 1, .local_msgs = lm + hop_msgs, .local_bytes = lb + hop_bytes,
                         .copy_bytes = rb};
    xchg_cost_phase g = {.rounds = 1, .copy_bytes = 0, .sharers = Kc * min2(R, n)};
    if (off_node) g.remote_msgs = g_msgs, g.remote_bytes = g_bytes;
    else g.local_msgs = g_msgs, g.local_bytes = g_bytes;
    xchg_cost_phase r = {.rounds = 1, .local_msgs = hop_msgs, .local_bytes = hop_bytes,
                         .copy_bytes = pr * m + rb};
    return xchg_cost_of_phase(c, plat, &s) + xchg_cost_of_phase(c, plat, &g) +
           xchg_cost_of_phase(c, plat, &r);
}
