/*
 * Online selection's timed calls and what becomes of their times (online.c's
 * header comment says why and when): a call timed after a barrier, a timed
 * run's calls on either path, the times kept until the collective's next
 * blocking call agrees them, and the agreed times recorded into the
 * signature (a sample, a warm-up, a drift sample), which the decision rules
 * of online_decide.c then read.
 */
#include <stdio.h>
#include <string.h>

#include "../core/error.h"
#include "../core/wait.h"
#include "online.h"
#include "online_state.h"

/* ---- Recording agreed times (the decision rules: online_decide.c) ----- */

/* A time as the agreement carries it: nanoseconds + 1, and a failed call's
 * "no time" the largest, so that the maximum over the ranks says on every
 * rank that the call failed somewhere. */
#define FAILED_NS INT64_MAX

static int64_t agreed_form(double seconds)
{
    return seconds == XCHG_ONLINE_NO_TIME ? FAILED_NS : (int64_t)(seconds * 1e9) + 1;
}

static int has_time(int64_t max_ns) { return max_ns != FAILED_NS; }

static double seconds_of(int64_t max_ns) { return (double)(max_ns - 1) * 1e-9; }

/* A sample of candidate c, in its current visit (up to samples_wanted). */
static void take_sample(xchg_online_signature *s, int c, double seconds)
{
    if (s->nsamples[c] >= s->samples_wanted) return;
    double *v = xchg_online_samples_of(s, c);
    xchg_online_visits_of(s, c)[s->nsamples[c]] = (unsigned char)(s->visits[c] - 1);
    v[s->nsamples[c]++] = seconds;
    s->medians[c] = xchg_online_median(v, s->nsamples[c]); /* one sort a sample */
}

/* The visit is over: the next candidate's, or the decision. */
static void end_visit(const xchg_context *ctx, xchg_online_signature *s)
{
    s->next = xchg_online_next_candidate(s);
    if (s->next < 0) xchg_online_decide(ctx, s);
}

/* The signature a time is of; NULL: evicted since. */
static xchg_online_signature *signature_of(xchg_context *ctx, int sig, unsigned long id)
{
    xchg_online *o = ctx->online;
    return o && sig >= 0 && sig < o->count && o->sig[sig].id == id ? &o->sig[sig] : NULL;
}

/* One more exploring call; the last of the warm-up round (one call of each
 * candidate) sets how many samples a candidate takes, from the fastest. */
static void count_exploring_call(xchg_online_signature *s)
{
    if (++s->recorded == xchg_online_warm_ups(s))
        s->samples_wanted = xchg_online_samples_wanted(s->fastest_warm_up);
}

/* A call of candidate `cand` failed on some rank (the agreed maximum says
 * so on every rank; the error went back to the program). Exploring: the
 * candidate leaves the race, its call counted without a time (a candidate
 * that fails is not tried again, and the others decide). Decided: the
 * winner's drift sample is none. */
static void record_failure(const xchg_context *ctx, xchg_online_signature *s, int cand)
{
    if (s->state != SIG_EXPLORING) return;
    if (cand >= 0 && cand < s->ncand) s->dropped[cand] = 1;
    count_exploring_call(s);
    end_visit(ctx, s);
}

static int record(xchg_context *ctx, int sig, unsigned long id, int cand, double seconds)
{
    xchg_online_signature *s = signature_of(ctx, sig, id);
    if (!s) return MPI_SUCCESS;
    if (s->state == SIG_EXPLORING) {
        /* the warm-up round's call of candidate `cand` (its plan's first
         * run, cold caches): not a sample; the fastest of them sets how
         * many samples a candidate takes. Every sample is a timed run's
         * (record_run). */
        if (cand >= 0 && cand < s->ncand) s->warm_up[cand] = seconds;
        if (s->fastest_warm_up <= 0 || seconds < s->fastest_warm_up) s->fastest_warm_up = seconds;
        count_exploring_call(s);
        s->explore_seconds += seconds;
        end_visit(ctx, s);
    } else if (s->state == SIG_DECIDED && cand == s->winner) {
        if (s->ndrift == XCHG_ONLINE_DRIFT_WINDOW) {
            memmove(s->drift, s->drift + 1, (XCHG_ONLINE_DRIFT_WINDOW - 1) * sizeof *s->drift);
            s->ndrift--;
        }
        s->drift[s->ndrift++] = seconds;
        if (s->ndrift < XCHG_ONLINE_DRIFT_WINDOW) return MPI_SUCCESS;
        double now = xchg_online_median(s->drift, s->ndrift);
        int mpi = xchg_online_mpi_candidate(s);
        if (mpi >= 0 && mpi != s->winner && s->nsamples[mpi] &&
            now > s->medians[mpi] * (1 + XCHG_ONLINE_MARGIN)) {
            /* the winner now takes longer than mpi did, by the margin that
             * let it replace mpi: check again */
            if (ctx->rank == 0 && xchg_online_verbose())
                fprintf(stderr, "xchg: online %s, P=%d, %lld B: the winner took %.2f us, mpi "
                                "%.2f us when explored: exploring again\n",
                        xchg_coll_name(s->in.coll), s->in.comm_size, (long long)s->in.bytes,
                        now * 1e6, s->medians[mpi] * 1e6);
            return xchg_online_start_exploring(s, 1);
        } else if (s->baseline <= 0) { /* the first window: what a drift sample takes */
            s->baseline = now;
            s->ndrift = 0;
        } else if (now > s->baseline * (1 + XCHG_ONLINE_DRIFT)) {
            if (ctx->rank == 0 && xchg_online_verbose())
                fprintf(stderr, "xchg: online %s, P=%d, %lld B: the winner's time drifted "
                                "(%.2f us, was %.2f us): exploring again\n",
                        xchg_coll_name(s->in.coll), s->in.comm_size, (long long)s->in.bytes,
                        now * 1e6, s->baseline * 1e6);
            return xchg_online_start_exploring(s, 1);
        }
    }
    return MPI_SUCCESS;
}

int xchg_online_timed_start(xchg_context *ctx, double *start)
{
    int rc = xchg_barrier(ctx->comm);
    if (rc != MPI_SUCCESS) return xchg_error(rc, "lining the ranks up for a timed call");
    *start = MPI_Wtime();
    return MPI_SUCCESS;
}

int xchg_online_start(xchg_context *ctx, double *start)
{
    xchg_online *o = ctx->online;
    *start = 0;
    if (!o || !o->measure_now) return MPI_SUCCESS;
    return xchg_online_timed_start(ctx, start);
}

/* The collective's next blocking call agrees what `p` holds now (the
 * header comment); that call goes the normal path. */
static void arm_pending(xchg_online *o, xchg_coll coll, xchg_online_pending_time *p)
{
    p->armed = 1;
    o->pending[coll] = *p;
    xchg_online_fast_release(o, coll, 1);
}

void xchg_online_run_call(xchg_context *ctx, xchg_coll coll, int sig, double seconds)
{
    xchg_online *o = ctx->online;
    xchg_online_signature *s = &o->sig[sig];
    s->run_seconds[s->run_n++] =
        seconds == XCHG_ONLINE_NO_TIME
            ? seconds
            : xchg_online_test_time(ctx, s->cand[s->run_cand].algo->name, seconds);
    if (--s->run_left > 0) return;
    xchg_online_pending_time p = {.sig = sig, .id = s->id, .cand = s->run_cand, .run = 1,
                                  .count = s->run_n};
    for (int j = 0; j < s->run_n; j++) p.ns[j] = agreed_form(s->run_seconds[j]);
    arm_pending(o, coll, &p);
}

static void measured(xchg_context *ctx, xchg_coll coll, double seconds)
{
    xchg_online *o = ctx->online;
    if (o->measuring_run) {
        xchg_online_run_call(ctx, coll, o->measuring_sig, seconds);
        return;
    }
    const xchg_online_signature *s = &o->sig[o->measuring_sig];
    if (seconds != XCHG_ONLINE_NO_TIME)
        seconds = xchg_online_test_time(ctx, s->cand[o->measuring_cand].algo->name, seconds);
    xchg_online_pending_time p = {.sig = o->measuring_sig, .id = o->measuring_id,
                                  .cand = o->measuring_cand, .count = 1};
    p.ns[0] = agreed_form(seconds);
    arm_pending(o, coll, &p);
}

int xchg_online_finish(xchg_context *ctx, const xchg_args *args, const xchg_choice *choice,
                       double start, int run_rc)
{
    xchg_online *o = ctx->online;
    if (!o) return MPI_SUCCESS;
    if (run_rc == MPI_SUCCESS) xchg_online_note_call(ctx, args, choice);
    if (!o->measure_now) return MPI_SUCCESS;
    o->measure_now = 0;
    measured(ctx, args->coll, run_rc == MPI_SUCCESS ? MPI_Wtime() - start : XCHG_ONLINE_NO_TIME);
    return MPI_SUCCESS;
}

int xchg_online_pending(const xchg_context *ctx, xchg_coll coll)
{
    return ctx->online && ctx->online->pending[coll].armed;
}

int xchg_online_pending_ns(const xchg_context *ctx, xchg_coll coll, int64_t *ns)
{
    if (!xchg_online_pending(ctx, coll)) return 0;
    const xchg_online_pending_time *p = &ctx->online->pending[coll];
    memcpy(ns, p->ns, (size_t)p->count * sizeof *ns);
    return p->count;
}

/* A timed run's agreed times (max_ns, as many as its calls). Exploring: the
 * samples of the visit that its first, untimed call opened (start_run),
 * until the candidate leaves the race (a rule of online_decide.c, or a
 * failed call) or has its samples; then the visit is over. A drift sample:
 * as a single timed call's. */
static int record_run(xchg_context *ctx, const xchg_online_pending_time *p, const int64_t *max_ns)
{
    xchg_online_signature *s = signature_of(ctx, p->sig, p->id);
    int rc = MPI_SUCCESS;
    if (!s) return MPI_SUCCESS;
    if (s->state != SIG_EXPLORING) {
        for (int j = 0; j < p->count && rc == MPI_SUCCESS; j++)
            if (has_time(max_ns[j]))
                rc = record(ctx, p->sig, p->id, p->cand, seconds_of(max_ns[j]));
        return rc;
    }
    int live = 1;
    for (int j = 0; j < p->count; j++) {
        double seconds = has_time(max_ns[j]) ? seconds_of(max_ns[j]) : 0;
        s->explore_seconds += j == 0 ? 2 * seconds : seconds; /* and the untimed first call */
        s->recorded++;
        if (live && !has_time(max_ns[j])) { /* it failed: out of the race */
            s->dropped[p->cand] = 1;
            live = 0;
        }
        if (!live) continue; /* a call of the run, no longer a sample */
        take_sample(s, p->cand, seconds);
        xchg_online_cut_losers(s);
        live = !s->dropped[p->cand] && xchg_online_unsettled(s, p->cand);
    }
    end_visit(ctx, s);
    return MPI_SUCCESS;
}

int xchg_online_agreed(xchg_context *ctx, xchg_coll coll, const int64_t *max_ns)
{
    xchg_online *o = ctx->online;
    if (!xchg_online_pending(ctx, coll)) return MPI_SUCCESS;
    xchg_online_pending_time p = o->pending[coll];
    o->pending[coll].armed = 0;
    xchg_online_fast_release(o, coll, 1); /* its calls counted before the decision */
    if (p.sig < 0 || p.sig >= o->count) return MPI_SUCCESS;
    if (p.run) return record_run(ctx, &p, max_ns);
    if (has_time(max_ns[0])) return record(ctx, p.sig, p.id, p.cand, seconds_of(max_ns[0]));
    xchg_online_signature *s = signature_of(ctx, p.sig, p.id);
    if (s) record_failure(ctx, s, p.cand);
    return MPI_SUCCESS;
}

int xchg_online_agree_pending(xchg_context *ctx, xchg_coll coll)
{
    int64_t ns[XCHG_ONLINE_PENDING_MAX], slowest[XCHG_ONLINE_PENDING_MAX];
    int count = xchg_online_pending_ns(ctx, coll, ns);
    if (!count) return MPI_SUCCESS;
    int rc = xchg_allreduce(ns, slowest, count, MPI_INT64_T, MPI_MAX, ctx->comm);
    if (rc != MPI_SUCCESS) return xchg_error(rc, "agreeing on measured times");
    return xchg_online_agreed(ctx, coll, slowest);
}
