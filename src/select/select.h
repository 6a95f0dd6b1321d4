/* Which algorithm and parameters a call uses:
 * per-communicator choice > environment (XCHG_ALLTOALL, ...) > built-in rule. */
#ifndef XCHG_SELECT_H
#define XCHG_SELECT_H

#include "../core/context.h"

/* Choose for a call of `coll` on ctx whose blocks are `bytes_per_peer` bytes
 * (for alltoallv: -1, since block sizes differ between ranks and the choice
 * must be the same on every rank). */
int xchg_select(xchg_context *ctx, xchg_coll coll, int64_t bytes_per_peer, xchg_choice *out);

#endif
