/*
 * Composition: run a flat algorithm from the registry as the inner exchange
 * of a hierarchical one, on a sub-communicator, over packed bytes.
 *
 * This is the only way one xchg algorithm runs another. The
 * sub-communicator is an inner context (context.h) that the outer plan built
 * and owns; it caches the inner algorithm's plan. The scratch the inner
 * exchange holds is accounted to the outer call (`outer`), so it counts in
 * the outer call's peak. Counts are bytes (MPI_BYTE); a count or displacement beyond INT_MAX
 * is MPI_ERR_COUNT.
 */
#ifndef XCHG_CORE_COMPOSE_H
#define XCHG_CORE_COMPOSE_H

#include <stdint.h>
#include "context.h"

/*
 * Run `inner` (a flat alltoall or alltoallv algorithm) on the inner context
 * `sub`, for the call of `outer`.
 * alltoallv: peer q gets send_bytes[q] bytes from sendbuf + send_offsets[q]
 * and delivers recv_bytes[q] bytes to recvbuf + recv_offsets[q].
 * alltoall: every block is `send_bytes[0]` bytes (all must be equal, on every
 * rank of subcomm) and blocks are laid out back to back in rank order; the
 * offsets are ignored.
 */
int xchg_run_inner(xchg_context *outer, xchg_context *sub, const xchg_choice *inner,
                   const void *sendbuf, const int64_t *send_offsets, const int64_t *send_bytes,
                   void *recvbuf, const int64_t *recv_offsets, const int64_t *recv_bytes);

/* The normalized arguments of such an inner exchange (for a plan that keeps
 * them: a persistent outer plan builds its inner one over fixed buffers). */
int xchg_inner_args(xchg_context *sub, xchg_coll coll, const void *sendbuf,
                    const int64_t *send_offsets, const int64_t *send_bytes, void *recvbuf,
                    const int64_t *recv_offsets, const int64_t *recv_bytes, xchg_args *args);

#endif
