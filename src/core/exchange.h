/*
 * Exchange primitives shared by the direct algorithms: post one peer's block
 * with the user's datatype (alltoallw: that peer's own), the order in which
 * peers are visited, and the sliding window of the multi-pair algorithms.
 *
 * A block of zero bytes is never sent: MPI requires matching type signatures,
 * so the peer knows it receives nothing from us and posts nothing either.
 * The own block is copied locally, never sent to oneself.
 */
#ifndef XCHG_CORE_EXCHANGE_H
#define XCHG_CORE_EXCHANGE_H

#include "args.h"
#include "context.h"

static inline int xchg_isend_block(const xchg_args *a, int peer, int tag, MPI_Request *req)
{
    return MPI_Isend(xchg_side_block_ptr(&a->send, peer), a->send.counts[peer],
                     xchg_side_type(&a->send, peer)->type, peer, tag, a->comm, req);
}

static inline int xchg_irecv_block(const xchg_args *a, int peer, int tag, MPI_Request *req)
{
    return MPI_Irecv(xchg_side_block_ptr(&a->recv, peer), a->recv.counts[peer],
                     xchg_side_type(&a->recv, peer)->type, peer, tag, a->comm, req);
}

/* Peers in "spread-out" order: step i (1..P-1) sends to rank+i, receives from rank-i. */
static inline int xchg_send_peer(const xchg_args *a, int step) { return (a->rank + step) % a->size; }
static inline int xchg_recv_peer(const xchg_args *a, int step)
{
    return (a->rank - step + a->size) % a->size;
}

/*
 * Post exchanges `first_step` .. `first_step + nsteps - 1` of the spread-out
 * order (receives first, then sends) into `reqs` and wait for all of them.
 * With `interleave`, each step posts its send right after its receive (the
 * multi-pair order); otherwise all receives precede all sends (MPICH order).
 */
int xchg_exchange_steps(const xchg_args *a, int first_step, int nsteps, int interleave,
                        int tag, MPI_Request *reqs);

/* The posting half of xchg_exchange_steps: the requests go to reqs[*count..]
 * and *count grows by the number posted (also when an error stops it). */
int xchg_post_steps(const xchg_args *a, int first_step, int nsteps, int interleave, int tag,
                    MPI_Request *reqs, int *count);

/* Run a single-round algorithm through its post function: post, then one
 * MPI_Waitall (requests in scratch of 2P entries). */
int xchg_run_posted(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan,
                    xchg_post_fn post);

/* Sliding window of `window` sends and `window` receives; a new one is posted
 * as soon as any completes, found by MPI_Waitany or (poll != 0) MPI_Testany. */
int xchg_sliding_window(xchg_context *ctx, const xchg_args *a, int window, int poll, int tag);

/* Post `bytes` packed bytes as one MPI_BYTE message; more than INT_MAX bytes
 * is refused with MPI_ERR_COUNT (naming `who`) and nothing is posted. */
int xchg_isend_bytes(const void *buf, int64_t bytes, int to, int tag, MPI_Comm comm,
                     MPI_Request *req, const char *who);
int xchg_irecv_bytes(void *buf, int64_t bytes, int from, int tag, MPI_Comm comm,
                     MPI_Request *req, const char *who);

/* The communicator's MPI_TAG_UB (the standard's least, 32767, if unset). */
int xchg_tag_ub(MPI_Comm comm);

/* Where `mpi` calls the library's collective for `a` (src/coll/mpi/mpi.c):
 * the user's own communicator for a blocking call of a user communicator's
 * context, xchg's (a->comm) inside a task or for an inner exchange. */
static inline MPI_Comm xchg_library_comm(const xchg_context *ctx, const xchg_args *a)
{
    int users = !xchg_task_current() && ctx->user_comm != MPI_COMM_NULL && a->comm == ctx->comm;
    return users ? ctx->user_comm : a->comm;
}



/* A direct algorithm works on per-peer blocks, so it serves alltoallv and
 * alltoall (uniform blocks) alike: register it for both from one descriptor. */
#define XCHG_REGISTER_DIRECT(ident, ...)                                             \
    const xchg_algorithm xchg_algo_alltoallv_##ident = {.coll = XCHG_ALLTOALLV,      \
                                                        .is_flat = 1, __VA_ARGS__};  \
    const xchg_algorithm xchg_algo_alltoall_##ident = {.coll = XCHG_ALLTOALL,        \
                                                       .is_flat = 1, __VA_ARGS__};
#endif
