/* The cost model of the neighbourhood alltoallv's algorithms (model.c). */
#ifndef XCHG_COLL_NEIGHBOR_MODEL_H
#define XCHG_COLL_NEIGHBOR_MODEL_H

#include "../../core/registry.h"

/* locality's parameters (their indices in xchg_choice.value) and balance's values. */
enum { LOCALITY_BALANCE, LOCALITY_DEDUP, LOCALITY_REGIONS };
enum { LOCALITY_BALANCE_COUNT, LOCALITY_BALANCE_BYTES };

/* Predicted seconds of one call (registry.h, xchg_cost_fn), from the
 * agreed pattern c->nbr. */
double xchg_neighbor_standard_cost(const struct xchg_cost_case *c, const xchg_choice *choice,
                                   const struct xchg_platform *plat);
double xchg_neighbor_locality_cost(const struct xchg_cost_case *c, const xchg_choice *choice,
                                   const struct xchg_platform *plat);

#endif
