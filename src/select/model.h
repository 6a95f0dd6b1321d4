/*
 * The cost model of automatic selection.
 *
 * Every algorithm declares in its descriptor (registry.h, .cost) what one
 * call costs, as a function of the exchange (xchg_cost_case: P, nodes, ranks
 * per node, block size) and its parameters, in terms of the platform's
 * constants (xchg_platform, inputs.h). Algorithms describe themselves as
 * phases; a phase costs
 *
 *   rounds * alpha                      dependent latencies (alpha_remote when
 *                                       the phase sends off-node, else alpha_local)
 * + 2 * messages * overhead             posting a send and its receive
 *   + eager bytes * overhead_per_byte   copying eager messages (mean message up
 *                                       to eager_limit) in and out of the
 *                                       library's buffers
 * + max(local bytes * beta_local,       bandwidth: on the node per rank;
 *       remote bytes * sharers * beta_remote)   off the node, the node's link
 *                                       is shared by the ranks sending at once
 * + copied bytes * beta_copy            packing, unpacking, staging
 *
 * all per rank (the busiest one), where on-node transfers and copies cost at
 * least ppn * beta_node per byte (all ranks of a node copy at once through
 * one memory system), and where in a direct exchange (xchg_cost_direct) the
 * posting overlaps the transfers, so only the overhead beyond the bandwidth
 * term counts. Composed algorithms (the node-aware family,
 * ParLinNa) cost their inner exchanges with the inner algorithm's own cost
 * function on the sub-exchange, so choosing an inner exchange is part of the
 * same search. The model ranks algorithms; it does not predict absolute
 * times to better than a factor of two, and the tuner (tools/xchg-tune)
 * measures where it matters.
 */
#ifndef XCHG_SELECT_MODEL_H
#define XCHG_SELECT_MODEL_H

#include "../core/context.h"
#include "../core/registry.h"
#include "inputs.h"

/* What a prediction is made of, for explanations (xchg-info --select). */
typedef struct xchg_cost_terms {
    double latency, overhead, bandwidth, copy;
} xchg_cost_terms;

/* One exchange: the call itself, or an inner exchange of a composed one. */
typedef struct xchg_cost_case {
    xchg_coll coll;
    int P;                   /* ranks taking part */
    int nodes;               /* nodes they are on */
    int ppn;                 /* ranks per node (the largest node) */
    int sharers;             /* ranks of a node sending off-node at once (>= ppn
                                for an inner exchange among some of them) */
    double block;            /* bytes per block (alltoallv: the busiest rank's mean;
                                allgatherv: the mean contribution) */
    double max_block;        /* the largest block (alltoallv, allgatherv: agreed or
                                known; otherwise = block) */
    double peers;            /* ranks one rank exchanges non-empty blocks with:
                                P-1, fewer for a sparse alltoallv (the direct
                                algorithms send no empty message) */
    const xchg_neighbor_input *nbr; /* neighbor_alltoallv: the agreed pattern
                                       (inputs.h); NULL for the other collectives */
    xchg_cost_terms *terms;  /* where phases add their terms, or NULL */
} xchg_cost_case;

/* One phase, per rank. */
typedef struct xchg_cost_phase {
    double rounds;                      /* dependent latencies */
    double local_msgs, remote_msgs;     /* messages sent */
    double local_bytes, remote_bytes;   /* bytes sent */
    double copy_bytes;                  /* bytes copied locally */
    double sharers;                     /* 0: the case's */
} xchg_cost_phase;

double xchg_cost_of_phase(const xchg_cost_case *c, const xchg_platform *plat,
                          const xchg_cost_phase *ph);

/* A phase's terms alone, without adding them to c->terms: for algorithms
 * whose phases overlap and are combined by hand. */
xchg_cost_terms xchg_cost_phase_terms(const xchg_cost_case *c, const xchg_platform *plat,
                                      const xchg_cost_phase *ph);

/* Add t to c->terms (when c collects them) and return t's total. */
double xchg_cost_add_terms(const xchg_cost_case *c, const xchg_cost_terms *t);

/* A direct exchange of one block with every other rank, posted in `rounds`
 * rounds (1: all at once; P-1: one peer at a time); of sparse exchanges only
 * the non-empty messages are posted (c->peers of P-1). */
double xchg_cost_direct(const xchg_cost_case *c, const xchg_platform *plat, double rounds);

/* Rounds of at most `per_round` of `steps` steps: ceil(steps / per_round). */
static inline double xchg_cost_rounds(int64_t steps, int64_t per_round)
{
    return steps <= 0 ? 0 : (double)((steps - 1) / (per_round > 0 ? per_round : 1) + 1);
}

/* Fraction of the peers at rank distance d (d < P) that are on another node,
 * with ranks placed by node (the common placement; the model's assumption). */
double xchg_cost_remote_fraction(const xchg_cost_case *c, int d);

/* The constants used when the tuning file gives none: a cluster of the
 * simulated platforms' class (sim/platforms.py: 200 Gb/s links, 2 us between
 * nodes; 10 GB/s and 0.25 us inside a node) with the per-message overheads
 * measured on this project's development machine (docs/results/sim/calibration). */
extern const xchg_platform xchg_platform_builtin;

/* A candidate and its predicted time. */
typedef struct xchg_candidate {
    xchg_choice choice;
    double seconds;
    xchg_cost_terms terms;
} xchg_candidate;

/* Every (algorithm, parameter values) of in->coll that has a cost model and
 * can run on ctx, with its prediction, cheapest first (ties: registry
 * order). `out` may be NULL to count; *count is the number written (at most
 * max). Local: no messages. */
int xchg_model_rank(const xchg_context *ctx, const xchg_select_input *in,
                    const xchg_platform *plat, xchg_candidate *out, int max, int *count);

/* The cheapest candidate. MPI_ERR_INTERN if none (never: every collective
 * has a modelled direct algorithm). */
int xchg_model_choose(const xchg_context *ctx, const xchg_select_input *in,
                      const xchg_platform *plat, xchg_choice *out);

/* The case of a whole call on ctx. */
xchg_cost_case xchg_cost_case_of(const xchg_select_input *in);

/* The case of an inner exchange of c among P ranks on `nodes` nodes, ppn of
 * them per node, `sharers` of a node's ranks sending off-node at once, with
 * blocks of `block` bytes (dense: every block is sent). */
xchg_cost_case xchg_cost_sub_case(const xchg_cost_case *c, int P, int nodes, int ppn, int sharers,
                                  double block);

#endif
