/*
 * The fast path of blocking calls whose choice is decided (online.h). The
 * front of alltoall's, allgather's and alltoallv's, with their untimed
 * `mpi` case, is inline in their entry points (online_fast.h); here the
 * rest: kept choices, timed runs, alltoallw and allgatherv.
 *
 * The normal path of a call costs, around the MPI library's collective, the
 * normalization of its arguments into per-peer arrays (allocated and freed),
 * the selection (environment, tuning file, model memo, online signature),
 * the plan lookup and the accounting; a few hundred nanoseconds. When a call
 * ran `mpi` and the next has the same shape, none of that can change the
 * outcome, so the next call goes to PMPI directly:
 *   alltoall, allgather: the same counts, datatypes (handles) and
 *     MPI_IN_PLACE-ness as the call the normal path validated and ran;
 *   alltoallv, alltoallw: any counts (the library reads them), as long as
 *     the choice cannot change: an explicit choice, or (automatic: online
 *     selection or a tuning rule) no agreement falls on this call
 *     (XCHG_AGREE=sampled's schedule, select.c) and no time waits to be
 *     agreed: between agreements the signature is the last agreed one;
 *     alltoallw besides not in place and not on one rank (`mpi` works
 *     around MPICH's in-place and Open MPI's one-rank MPI_Alltoallw there:
 *     src/coll/mpi/mpi.c);
 *   allgatherv: the same datatypes, own count and MPI_IN_PLACE-ness, and
 *     recvcounts (the same on every rank, so no agreement) that give the
 *     same inputs of selection: the same size buckets as the decided
 *     signature and no tuning rule for them, or for a tuning rule's `mpi`
 *     the same exact sizes; not on one rank (MPICH's one-rank
 *     MPI_Allgatherv: src/coll/allgatherv/mpi.c).
 * An automatic decision also needs the signature still decided for the
 * same choice and neither a drift sample of the winner nor a re-exploration
 * due at this call: those go the normal path. The path counts down to
 * them in its own line and adds its calls to the signature when the
 * normal path next looks at signatures (xchg_online_fast_release), so a
 * call reads one line of online selection's state, not the signature's.
 * The same path takes the calls of a timed run (online.c: a short call's
 * visit while exploring, a drift sample): armed with `timed` by the run's
 * first call, it counts down the run's calls and times each after a
 * barrier, as the normal path times the run's calls it takes; the last
 * one's time leaves the run for the agreement of the next call, which goes
 * the normal path.
 *
 * A choice other than `mpi` (a decided signature of online selection, or
 * XCHG_Comm_set_algorithm's; not XCHG_<COLL>'s, not a tuning rule's) takes
 * the fast path too for alltoall, alltoallv and allgather, not in place, of
 * predefined datatypes: the call that armed it keeps its normalized
 * arguments (per-peer counts, offsets, bytes; one allocation per collective
 * and context, reused), and a next call with the same counts, datatypes and
 * (alltoallv) displacements runs the cached plan on them with its own
 * buffers: no normalization, allocation, environment, selection or
 * agreement (alltoallv's sampled agreements still go the normal path). Its
 * buffers are still checked for device memory (a device buffer goes the
 * normal path, which routes it to `mpi`: device.h); under
 * XCHG_DEVICE=agree, whose check is an agreement, it is never armed.
 *
 * Checks the fast path still makes itself: non-NULL buffers (and count and
 * displacement arrays); everything else (negative counts, invalid
 * datatypes, a communicator error) is what the MPI library checks of the
 * arguments it receives: the call is made on the user's own communicator
 * (src/coll/mpi/mpi.c), where the library raises its error itself, once,
 * and XCHG_Last_error names the call (xchg_library_error). What it does not
 * repeat is the normal path's own check that an alltoall's or allgather's
 * send and receive blocks have the same size: that was checked for these
 * (counts, datatypes) by the call that armed the path. A datatype freed and
 * its handle reused for another type in between would escape it (MPI
 * itself does not check type signatures either).
 * XCHG_Comm_set_algorithm disarms the path; the environment (XCHG_ALLTOALL
 * etc., XCHG_ONLINE) is read by the normal path, so changing it while a
 * program runs takes effect at the next call that goes that way; a timed
 * run's calls read it here too (run_still_automatic). Such a change, made
 * while the ranks' calls of one collective take different paths (a rank's
 * own datatype handles differ from the others'), can leave them choosing
 * differently for the calls between; the environment is meant to be set
 * before the program starts.
 * The arming (what decided, the kept arguments) is in online_arm.c.
 */
#include <stddef.h>
#include <stdlib.h>

#include "../core/device.h"
#include "../core/error.h"
#include "../core/hot.h"
#include "../core/plan.h"
#include "online.h"
#include "online_fast.h"
#include "select.h"
#include "tuning.h"

/* What a call of the path reads: one line of its record, one of the context. */
_Static_assert(offsetof(xchg_online_fast, last_use) + sizeof(unsigned long) <= 64,
               "the fast path's fields of xchg_online_fast fit one cache line");
_Static_assert(offsetof(xchg_context, online_clock) + sizeof(unsigned long) <= 64,
               "the fast path's fields of xchg_context fit one cache line");

/* A call of a timed run takes the fast path only while the normal path
 * would time it too: the environment that the normal path reads at every
 * call (XCHG_ONLINE, XCHG_<COLL>, alltoallv's and alltoallw's XCHG_AGREE)
 * still leaves the choice to online selection, on its schedule of
 * agreements. A program may change it while it runs (on every rank), and
 * a rank whose call goes the normal path then must not be left waiting at
 * the others' barrier. A run's calls are few: the lookups cost nothing
 * beside the barrier. */
int xchg_online_run_still_automatic(xchg_coll coll)
{
    int on;
    const char *env = getenv(xchg_select_env_name(coll));
    return xchg_online_enabled(&on) == MPI_SUCCESS && on && !(env && *env) &&
           (!xchg_coll_is_v(coll) || xchg_online_agree_sampled());
}

/* A call of a timed run (f->timed): lined up and timed as the normal path
 * times its calls (online.c), its time kept for the run's agreement. */
static int run_begin(xchg_context *ctx, xchg_coll coll, const xchg_online_fast *f,
                     double *start)
{
    *start = 0;
    int rc = f->timed ? xchg_online_timed_start(ctx, start) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) xchg_online_run_call(ctx, coll, f->sig, XCHG_ONLINE_NO_TIME);
    return rc;
}

static void run_end(xchg_context *ctx, xchg_coll coll, const xchg_online_fast *f, double start,
                    int rc)
{
    if (f->timed) /* a failed call too: the run ends on every rank at the same call */
        xchg_online_run_call(ctx, coll, f->sig,
                             rc == MPI_SUCCESS ? MPI_Wtime() - start : XCHG_ONLINE_NO_TIME);
}

/* The first byte a side touches (device.c's first_byte), or NULL. */
static const void *first_byte(const xchg_side *side, int blocks)
{
    for (int p = 0; p < blocks; p++)
        if (side->bytes[p] > 0)
            return side->buf + side->offsets[p] + side->type.true_lb;
    return NULL;
}

/* A choice other than `mpi`: the kept arguments take this call's buffers
 * (f is this communicator's: MPI runs no two of its collectives at once),
 * when both are host memory (a device buffer goes the normal path, which
 * routes it to `mpi`: device.h). Local: the path arms only under
 * XCHG_DEVICE=auto or off, where the normal path's check is local too. */
static int kept_on_host(xchg_online_fast *f, const void *sendbuf, void *recvbuf)
{
    xchg_memory send_kind, recv_kind;
    xchg_args *a = &f->args;
    a->send.buf = (char *)sendbuf;
    a->recv.buf = recvbuf;
    return xchg_device_memory(first_byte(&a->send, a->size), &send_kind) == MPI_SUCCESS &&
           xchg_device_memory(first_byte(&a->recv, a->size), &recv_kind) == MPI_SUCCESS &&
           send_kind == XCHG_MEMORY_HOST && recv_kind == XCHG_MEMORY_HOST;
}

/* Its plan (cached by choice) on those arguments. */
static int run_kept(xchg_context *ctx, const xchg_online_fast *f)
{
    xchg_plan *plan;
    int rc = xchg_plan_get(ctx, &f->choice, &plan);
    return rc == MPI_SUCCESS ? xchg_plan_execute(plan, &f->args) : rc;
}

unsigned long xchg_online_fast_calls(const xchg_context *ctx, xchg_coll coll)
{
    return ctx->online ? ctx->online->fast[coll].fast_calls : 0;
}

void xchg_online_account_mpi(xchg_context *ctx, xchg_coll coll, xchg_online_fast *f)
{
    ctx->phases.count = 0; /* mpi reports no phases */
    ctx->last[coll] = f->choice;
    ctx->has_last[coll] = 1;
    ctx->last_scratch_peak[coll] = 0;
    f->accounted = ctx->accounted_calls;
}

/* alltoallv: the counts, displacements and datatypes of the kept arguments. */
static int same_v_shape(const xchg_args *a, const int *sendcounts, const int *sdispls,
                        MPI_Datatype sendtype, const int *recvcounts, const int *rdispls,
                        MPI_Datatype recvtype)
{
    if (a->send.type.type != sendtype || a->recv.type.type != recvtype) return 0;
    int64_t se = a->send.type.extent, re = a->recv.type.extent;
    for (int p = 0; p < a->size; p++)
        if (a->send.counts[p] != sendcounts[p] || a->recv.counts[p] != recvcounts[p] ||
            a->send.offsets[p] != (int64_t)sdispls[p] * se ||
            a->recv.offsets[p] != (int64_t)rdispls[p] * re)
            return 0;
    return 1;
}

/* alltoall, allgather after the front's checks (online_fast.h): a kept
 * choice, or a timed run's call. */
int xchg_online_fast_uniform_rest(xchg_context *ctx, xchg_coll coll, xchg_online_fast *f,
                                  const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int *rc)
{
    int is_kept = !f->is_mpi;
    if (is_kept && !kept_on_host(f, sendbuf, recvbuf)) return 0;
    if (f->sig >= 0 && !xchg_online_take_decided(ctx, f, coll)) return 0; /* automatic */
    double start;
    if ((*rc = run_begin(ctx, coll, f, &start)) != MPI_SUCCESS) return 1;
    if (is_kept) {
        *rc = run_kept(ctx, f);
    } else if (coll == XCHG_ALLTOALL) {
        *rc = xchg_library_result(MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                               recvtype, ctx->user_comm),
                                  "MPI_Alltoall");
    } else {
        *rc = xchg_library_result(MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                recvtype, ctx->user_comm),
                                  "MPI_Allgather");
    }
    run_end(ctx, coll, f, start, *rc);
    xchg_online_account(ctx, coll, f);
    return 1;
}

/* alltoallv after the front's checks (online_fast.h): a kept choice, or a
 * timed run's call. */
int xchg_online_fast_alltoallv_rest(xchg_context *ctx, xchg_online_fast *f, const void *sendbuf,
                                    const int *sendcounts, const int *sdispls,
                                    MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                    const int *rdispls, MPI_Datatype recvtype, int *rc)
{
    int is_kept = !f->is_mpi;
    if (is_kept && (!same_v_shape(&f->args, sendcounts, sdispls, sendtype, recvcounts, rdispls,
                                  recvtype) ||
                    !kept_on_host(f, sendbuf, recvbuf)))
        return 0;
    if (!xchg_online_is_explicit(f->sig) && !xchg_online_v_decided(ctx, f, XCHG_ALLTOALLV))
        return 0; /* automatic: only between agreements */
    double start;
    if ((*rc = run_begin(ctx, XCHG_ALLTOALLV, f, &start)) != MPI_SUCCESS) return 1;
    if (is_kept) {
        *rc = run_kept(ctx, f);
    } else {
        *rc = xchg_library_result(MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                recvcounts, rdispls, recvtype, ctx->user_comm),
                                  "MPI_Alltoallv");
    }
    run_end(ctx, XCHG_ALLTOALLV, f, start, *rc);
    xchg_online_account(ctx, XCHG_ALLTOALLV, f);
    return 1;
}

XCHG_HOT
int xchg_online_fast_alltoallw(xchg_context *ctx, const void *sendbuf, const int *sendcounts,
                               const int *sdispls, const MPI_Datatype *sendtypes, void *recvbuf,
                               const int *recvcounts, const int *rdispls,
                               const MPI_Datatype *recvtypes, int *rc)
{
    xchg_online *o = ctx->online;
    if (!o || ctx->task_head) return 0; /* tasks first, in MPI's order */
    xchg_online_fast *f = &o->fast[XCHG_ALLTOALLW];
    if (!f->armed || sendbuf == MPI_IN_PLACE || !sendbuf || !sendcounts || !sdispls ||
        !sendtypes || !recvbuf || !recvcounts || !rdispls || !recvtypes)
        return 0;
    if (!xchg_online_is_explicit(f->sig) && !xchg_online_v_decided(ctx, f, XCHG_ALLTOALLW))
        return 0; /* automatic: only between agreements */
    double start;
    if ((*rc = run_begin(ctx, XCHG_ALLTOALLW, f, &start)) != MPI_SUCCESS) return 1;
    *rc = xchg_library_result(MPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                            recvcounts, rdispls, recvtypes, ctx->user_comm),
                              "MPI_Alltoallw");
    run_end(ctx, XCHG_ALLTOALLW, f, start, *rc);
    xchg_online_account(ctx, XCHG_ALLTOALLW, f);
    return 1;
}

XCHG_HOT
int xchg_online_fast_allgatherv(xchg_context *ctx, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                const int *displs, MPI_Datatype recvtype, int *rc)
{
    xchg_online *o = ctx->online;
    if (!o || ctx->task_head) return 0; /* tasks first, in MPI's order */
    xchg_online_fast *f = &o->fast[XCHG_ALLGATHERV];
    int in_place = sendbuf == MPI_IN_PLACE;
    if (!f->armed || f->in_place != in_place || f->recvtype != recvtype || !recvbuf ||
        !recvcounts || !displs || recvcounts[ctx->rank] != f->recvcount ||
        (!in_place && (f->sendcount != sendcount || f->sendtype != sendtype || !sendbuf)))
        return 0;
    if (!xchg_online_is_explicit(f->sig)) { /* the sizes decide: the same inputs of selection */
        xchg_select_input in = xchg_select_input_of(ctx, XCHG_ALLGATHERV, 0);
        xchg_online_allgatherv_sizes(recvcounts, ctx->size, f->recv_type_size, &in.bytes,
                                     &in.max_block_bytes);
        if (f->sig == FAST_AUTOMATIC) { /* a tuning rule: the same sizes */
            if (in.bytes != f->bytes || in.max_block_bytes != f->max_block_bytes) return 0;
        } else {
            const xchg_select_input *decided = &o->sig[f->sig].in;
            const char *tuned;
            if (xchg_select_size_bucket(in.bytes) != decided->bytes ||
                xchg_select_size_bucket(in.max_block_bytes) != decided->max_block_bytes ||
                xchg_tuning_lookup(&in, &tuned) != MPI_SUCCESS || tuned)
                return 0;
        }
        if (!xchg_online_take_decided(ctx, f, XCHG_ALLGATHERV)) return 0;
    }
    double start;
    if ((*rc = run_begin(ctx, XCHG_ALLGATHERV, f, &start)) != MPI_SUCCESS) return 1;
    *rc = xchg_library_result(MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                             displs, recvtype, ctx->user_comm),
                              "MPI_Allgatherv");
    run_end(ctx, XCHG_ALLGATHERV, f, start, *rc);
    xchg_online_account(ctx, XCHG_ALLGATHERV, f);
    return 1;
}
