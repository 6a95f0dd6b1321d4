/*
 * ParLogNa's parameters, for the ParLinNa algorithms, which run it among the
 * ranks of each node on packed super-blocks through the composition path
 * (src/core/compose.h, parlinna_common.c).
 */
#ifndef XCHG_COLL_ALLTOALLV_PARLOGNA_H
#define XCHG_COLL_ALLTOALLV_PARLOGNA_H

#include <stdint.h>

/* Indices of the parameters in the descriptor (choice.value[...]). */
enum { XCHG_PARLOGNA_RADIX = 0, XCHG_PARLOGNA_BOUNCE = 1 };

/* How a round moves the blocks it sends from, and receives into, the same
 * slot of T (see the header comment of parlogna.c). */
typedef enum { XCHG_PARLOGNA_BOUNCE_WAVE = 0, XCHG_PARLOGNA_BOUNCE_COPY = 1 } xchg_parlogna_bounce;

struct xchg_cost_case;
struct xchg_platform;

/* The model of ParLogNa with radix r (parlogna.c), for ParLinNa's intra-node
 * phase. */
double xchg_parlogna_cost(const struct xchg_cost_case *c, const struct xchg_platform *plat,
                          int64_t radix, int bounce);

#endif
