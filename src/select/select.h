/* Which algorithm and parameters a call uses:
 * per-communicator choice > environment (XCHG_ALLTOALL, ...) > tuning file
 * (XCHG_TUNING_FILE) > online selection (online.h: blocking calls of a
 * repeating signature, measured; a persistent init takes a learned winner,
 * else measures its candidates; a nonblocking call `mpi`, or a learned
 * single-round winner) > the cost model (model.h) > a fixed rule when the
 * model has no inputs. */
#ifndef XCHG_SELECT_H
#define XCHG_SELECT_H

#include "../core/args.h"
#include "../core/context.h"
#include "inputs.h"

/* The form of the call being chosen for: a blocking call (online selection
 * times it), a nonblocking call (inside its task: it must not wait for
 * other ranks beyond the agreement its selection makes) or a persistent
 * init (nonlocal in MPI-4.1: it may measure, online_init.c). */
typedef enum { XCHG_SELECT_BLOCKING, XCHG_SELECT_NONBLOCKING, XCHG_SELECT_INIT } xchg_select_form;

/* The choice for a call with arguments `args`. For alltoallv the block sizes
 * differ between ranks, so the inputs are agreed (one MPI_Allreduce on
 * ctx->comm of the busiest rank's bytes and the largest block): at every
 * persistent init, at a nonblocking call only where a tuning rule or the
 * model (XCHG_ONLINE=0) reads them, and on a fixed schedule of blocking
 * calls (XCHG_AGREE, select.c), only when the choice depends on them.
 * Collective where it agrees or measures: every rank makes the same call. */
int xchg_select_call(xchg_context *ctx, const xchg_args *args, xchg_select_form form,
                     xchg_choice *out);

/* A nonblocking call's choice where it needs no message (*chosen = 1):
 * what xchg_select_call (XCHG_SELECT_NONBLOCKING) gives; an explicit
 * choice, else for alltoallv, alltoallw and the neighbourhood collective
 * `mpi` where neither a tuning rule nor the model (XCHG_ONLINE=0) reads
 * their agreed sizes or pattern: there *chosen = 0 and the call's task
 * selects (the neighbourhood's with xchg_select_neighbor_call). Local. */
int xchg_select_nonblocking_now(xchg_context *ctx, const xchg_args *args, xchg_choice *out,
                                int *chosen);

/* neighbor_alltoallv, blocking and nonblocking calls: the choice of an
 * override, XCHG_NEIGHBOR_ALLTOALLV, a tuning rule or (XCHG_AGREE=never)
 * the fixed rule, with *automatic = 0; otherwise the cost model's, agreed
 * on `args` on the schedule of XCHG_AGREE (collective then: one
 * MPI_Allreduce) and between those calls the last agreed one, with
 * *automatic = 1. The model's or the fixed rule's `standard` comes back
 * as `mpi` (select_neighbor.c: library_for_standard). */
int xchg_select_neighbor_call(xchg_context *ctx, const xchg_args *args, xchg_choice *out,
                              int *automatic);

/* neighbor_alltoallv: the cost model's choice on every rank's pattern
 * `args` (its inputs agreed by one MPI_Allreduce on ctx->comm; collective),
 * remembered for the blocking calls that follow. */
int xchg_select_neighbor_agreed(xchg_context *ctx, const xchg_args *args, xchg_choice *out);

/* The choice for `coll` with blocks of `bytes` bytes (alltoallv: the mean
 * block; -1: unknown). Local: no messages. */
int xchg_select_local(xchg_context *ctx, xchg_coll coll, int64_t bytes, xchg_choice *out);

/* A size as the model sees it: rounded down to a quarter octave, 2^(k/4)
 * bytes (one search per bucket; the model is not finer than that). */
int64_t xchg_select_size_bucket(int64_t bytes);

/* The inputs of ctx's topology for `coll` with `bytes` (local). */
xchg_select_input xchg_select_input_of(const xchg_context *ctx, xchg_coll coll, int64_t bytes);

/* xchg_select_local, and in *source what decided, in words
 * ("XCHG_Comm_set_algorithm", "XCHG_ALLTOALLV", "a rule of the tuning file",
 * "the cost model", "the fixed rule"), for explanations (xchg-info). */
int xchg_select_explain(xchg_context *ctx, xchg_coll coll, int64_t bytes, xchg_choice *out,
                        const char **source);

/* The environment variable that chooses coll's algorithm ("XCHG_ALLTOALLV"). */
const char *xchg_select_env_name(xchg_coll coll);

/* Whether blocking alltoallv call number n (from 0) agrees under
 * XCHG_AGREE=sampled: 0 and the powers of 4 up to 256, then the multiples
 * of 1024 (inline: the fast path asks at every call). */
static inline int xchg_select_sampled_agrees_at(unsigned long n)
{
    /* 0x155: the bits of 1, 4, 16, 64 and 256 (a power of two there) */
    return n % 1024 == 0 || (n <= 256 && (n & (n - 1)) == 0 && (n & 0x155));
}

/* The platform constants the model uses: the tuning file's, or built in
 * (MPI_SUCCESS), or the tuning file's error. */
int xchg_select_platform(const xchg_platform **plat);

#endif
