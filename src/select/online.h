/*
 * Online selection: a call signature that repeats is decided by measuring
 * its candidates where the program runs (online.c says how).
 *
 * Blocking calls of every collective but the neighbourhood alltoallv
 * (alltoall, alltoallv, alltoallw, allgather, allgatherv) explore and
 * decide a repeating signature (online.c). A nonblocking or persistent
 * call cannot agree on a time inside a start without blocking on the other
 * ranks, and its start-to-completion time is the program's. A persistent
 * request chooses once, at init, which MPI-4.1 makes nonlocal: the
 * signature's learned winner when blocking calls decided one, else it
 * measures its candidates on scratch buffers (online_init.c); every
 * collective, the neighbourhood one included. Its starts never agree or
 * time anything. A nonblocking call is a request started once
 * (nonblocking.c): it must not block, so it takes the MPI library's own
 * nonblocking collective (`mpi`), or the winner blocking calls of its
 * signature learned where that winner posts its messages in one round (a
 * post function: `nonblocking`, `linear`), so that it runs as it was
 * measured. The model predicts blocking calls, and a multi-round
 * algorithm runs in a task, advanced only inside xchg calls: a learned
 * `rma_direct` allgather took 1.3-1.4x MPI's own nonblocking one at
 * 1-2 KiB on 4 ranks here, 0.74-0.94x at 4-16 KiB
 * (docs/results/selection/online/nonblocking/): no measurement tells a
 * nonblocking call which. Alltoallv and alltoallw do not look a winner up
 * (its signature needs agreed sizes: select.c). XCHG_ONLINE=0: the model.
 * Blocking neighbourhood calls keep the model (their plans are cached by
 * pattern, looked up after the choice: a pattern that changes on some
 * ranks is found only then), its `standard` run as `mpi` (select_neighbor.c);
 * nonblocking ones run `mpi` like alltoallv's.
 *
 * The state hangs off the context (ctx->online) but belongs to this module.
 */
#ifndef XCHG_SELECT_ONLINE_H
#define XCHG_SELECT_ONLINE_H

#include "../core/context.h"
#include "inputs.h"

/* XCHG_ONLINE: 0 or 1 (default 1) into *on; MPI_ERR_ARG naming the variable
 * for anything else. */
int xchg_online_enabled(int *on);

/* The choice of the signature `in` (agreed inputs, the same on every rank)
 * for a blocking call whose automatic choice would be `model` (the cost
 * model's): the learned winner, a candidate to measure, or `model` itself.
 * When the call must be timed, xchg_online_start says so. `persistent`: only
 * a learned winner is used, nothing is measured. Local (no messages). */
int xchg_online_choose(xchg_context *ctx, const xchg_select_input *in, int persistent,
                       const xchg_choice *model, xchg_choice *out);

/* A persistent init whose automatic choice `*out` is the cost model's,
 * with the call's agreed inputs `in` (alltoallv, alltoallw: the agreed
 * sizes; the neighbourhood collective: its pattern's): a dense signature's
 * learned winner (xchg_online_learned), else the winner of measuring the
 * candidates now on scratch buffers (or of an earlier init of the same
 * inputs on this communicator) into *out. Collective (barriers,
 * allreduces, the candidates' plans and runs); unchanged when XCHG_ONLINE=0
 * or the call's extents are too large to copy (online_init.c). */
int xchg_online_init_choose(xchg_context *ctx, const xchg_args *args, const xchg_select_input *in,
                            xchg_choice *out);

/* The winner that blocking calls of the dense signature `in` (exact
 * inputs) learned, into *out: 1, else 0 and *out unchanged. Local. */
int xchg_online_learned(xchg_context *ctx, const xchg_select_input *in, xchg_choice *out);

/* Around a blocking call's run (call.c): xchg_online_start sets *start to
 * MPI_Wtime() when the selection asked for the call to be timed, else 0
 * (a timed call first lines the ranks up: xchg_online_timed_start);
 * xchg_online_finish, after the run of `choice` (`run_rc`: its result),
 * keeps the time for the agreement of the collective's next blocking call
 * (xchg_online_pending) and, after a successful run, arms or disarms the
 * fast path. A timed call that failed keeps "no time" (online_record.c):
 * the agreement is made all the same, so a rank whose call failed stays in
 * step with the others, and a time none of the ranks has is no sample. */
int xchg_online_start(xchg_context *ctx, double *start);

/* The start of a timed call (exploring, or a decided signature's drift
 * sample): a barrier on ctx->comm, then *start = MPI_Wtime(), so every
 * candidate is timed from the same start on every rank (online.c). */
int xchg_online_timed_start(xchg_context *ctx, double *start);
int xchg_online_finish(xchg_context *ctx, const xchg_args *args, const xchg_choice *choice,
                       double start, int run_rc);

/* Whether measured times of `coll` wait to be agreed by the collective's
 * next blocking call (alltoallv, alltoallw: in the agreement of its sizes,
 * which that call then makes whatever XCHG_AGREE's schedule says): one
 * timed call's, or a timed run's (online.c). xchg_online_pending_ns puts
 * them, nanoseconds, into ns[XCHG_ONLINE_PENDING_MAX] for the agreement to
 * carry and returns how many (0: none; the same number on every rank). */
#define XCHG_ONLINE_PENDING_MAX 8
int xchg_online_pending(const xchg_context *ctx, xchg_coll coll);
int xchg_online_pending_ns(const xchg_context *ctx, xchg_coll coll, int64_t *ns);

/* The agreement's maximum of each pending time (as many as
 * xchg_online_pending_ns gave), nanoseconds. */
int xchg_online_agreed(xchg_context *ctx, xchg_coll coll, const int64_t *max_ns);

/* alltoall, allgather, allgatherv (no agreement of their own): agree the
 * pending times, if any, with one MPI_Allreduce(MAX) on ctx->comm. */
int xchg_online_agree_pending(xchg_context *ctx, xchg_coll coll);

/* ---- The fast path (api.c; online_fast.c) ---------------------------------
 * Once a blocking call ran `mpi` (decided by online selection, a tuning rule
 * or an explicit choice), the next calls of the same shape go to the MPI
 * library directly: no normalization, no selection, no plan (online_fast.c
 * says when). Returns 1 when it took the call (its result in *rc), 0 when
 * the normal path must run. alltoall's, allgather's and alltoallv's are
 * inline: online_fast.h. */
int xchg_online_fast_alltoallw(xchg_context *ctx, const void *sendbuf, const int *sendcounts,
                               const int *sdispls, const MPI_Datatype *sendtypes, void *recvbuf,
                               const int *recvcounts, const int *rdispls,
                               const MPI_Datatype *recvtypes, int *rc);
int xchg_online_fast_allgatherv(xchg_context *ctx, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                const int *displs, MPI_Datatype recvtype, int *rc);

/* The selection of `coll` was explicit (XCHG_Comm_set_algorithm, XCHG_<COLL>):
 * the fast path may serve it too when it is `mpi`. */
void xchg_online_note_explicit(xchg_context *ctx, xchg_coll coll, int by_environment);
/* ... or automatic without a signature of online selection (a tuning rule). */
void xchg_online_note_automatic(xchg_context *ctx, xchg_coll coll);
/* XCHG_Comm_set_algorithm changed `coll`'s selection: forget the fast path. */
void xchg_online_disarm(xchg_context *ctx, xchg_coll coll);
/* Internal (online.c to online_fast.c). */
void xchg_online_note_call(xchg_context *ctx, const xchg_args *args, const xchg_choice *choice);

/* For tests: signatures decided and exploring now, and the calls that
 * explored so far (every signature, every exploration). */
void xchg_online_counts(const xchg_context *ctx, int *decided, int *exploring,
                        unsigned long *explored_calls);
/* For tests: over every signature's last exploration, the candidates, those
 * dropped early as clear losers, the samples taken, and the calls that
 * switched to a candidate's visit and were not samples. */
void xchg_online_explore_stats(const xchg_context *ctx, int *candidates, int *dropped,
                               int *samples, int *switches);

/* For tests: the calls of `coll` the fast path took. */
unsigned long xchg_online_fast_calls(const xchg_context *ctx, xchg_coll coll);

/* The context goes away: its decisions are kept for XCHG_TUNING_OUT, the
 * state freed. */
void xchg_online_release(xchg_context *ctx);

/* MPI_Finalize: XCHG_TUNING_OUT written (rank 0 of MPI_COMM_WORLD), merged
 * with the file already there. Errors are printed, not raised. */
void xchg_online_write_out(void);

#endif
