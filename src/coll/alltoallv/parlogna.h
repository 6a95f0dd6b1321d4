/*
 * The ParLogNa exchange as a helper: parlogna.c registers it as an alltoallv
 * algorithm, and the ParLinNa algorithms run it among the ranks of each node
 * on packed super-blocks (parlinna_common.c).
 */
#ifndef XCHG_COLL_ALLTOALLV_PARLOGNA_H
#define XCHG_COLL_ALLTOALLV_PARLOGNA_H

#include <stdint.h>

#include "../../core/args.h"
#include "../../core/context.h"

/* How a round moves the blocks it sends from, and receives into, the same
 * slot of T (see the header comment of parlogna.c). */
typedef enum { XCHG_PARLOGNA_BOUNCE_WAVE = 0, XCHG_PARLOGNA_BOUNCE_COPY = 1 } xchg_parlogna_bounce;

/* Radix-r non-uniform Bruck exchange of `a` over a->comm (any r >= 2; r >= P-1
 * is a linear exchange). Scratch: see the header comment of parlogna.c. */
int xchg_parlogna_exchange(xchg_context *ctx, const xchg_args *a, int64_t radix,
                           xchg_parlogna_bounce bounce);

#endif
