/*
 * The race of a persistent init (online_init.c says when and why): the
 * candidates measured as a start runs them, and the winner decided.
 *
 * Measuring. A run is what a start does: an algorithm with a post
 * function posts and waits (`mpi`: the library's nonblocking call, not its
 * blocking one; in Open MPI 4.1 the first took 1.4x the second), any other
 * runs its plan as a task. One run of each warms it up (agreed: the
 * slowest rank's); then ROUNDS rounds give each candidate a sample: after a
 * barrier, a burst of runs one after the other, their mean time on every
 * rank (as a solver's loop starts and completes its request again and
 * again; single runs after a barrier read the ranks' skew on an
 * oversubscribed machine: at 16 ranks on 2 cores 77-115 us where a loop's
 * start took 50, and chose `mpi`, 1.3x `standard` in the loop, at one level
 * of xchg-amg). A burst is BURST runs, fewer for a candidate whose agreed
 * warm-up took over BURST_SECONDS / BURST (as many as take BURST_SECONDS,
 * at least one): long runs need no averaging and would make init long.
 * After the first two rounds one MPI_Allreduce(MAX) agrees the times so
 * far (the slowest rank's) and online.c's DROP rule takes out a candidate
 * whose faster round took over 2x the fastest of any; one more agrees the
 * rest. Decisions use the agreed times only, so every rank keeps the same
 * winner (XCHG_TEST_ONLINE_TIMES forces rank-dependent times in
 * tests/online_init.c).
 *
 * Deciding, as online.c's incumbent rule: `mpi` where it is a candidate,
 * else the model's choice, is the incumbent; another candidate wins with a
 * median below the incumbent's by the larger spread of the two (slowest -
 * fastest over median), 1% to 5%, and faster in 80% of the rounds
 * (rounded down: 4 of 5); among those, the smallest median.
 *
 * Cost: the candidates' plans, at most 1 + ROUNDS x BURST = 21 runs a
 * candidate (a dropped one 9), 1 + ROUNDS barriers a candidate and four
 * small allreduces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "../core/plan.h"
#include "../core/task.h"
#include "../core/wait.h"
#include "online.h"
#include "online_state.h"

#define INIT_CANDIDATES XCHG_ONLINE_CANDIDATES
#define ROUNDS 5
#define BURST 4            /* runs per sample, one after the other, */
#define BURST_SECONDS 2e-3 /*   fewer where the warm-up took over BURST_SECONDS / BURST */
#define FAILED 1e30        /* a failed run's time: the MAX's largest */

/* ---- Measuring ----------------------------------------------------------------- */

/* A start's task body (persistent.c's, without its accounting). */
typedef struct started_run {
    xchg_context *ctx;
    const xchg_plan *plan;
    const xchg_args *args;
} started_run;

static int started_body(void *arg)
{
    const started_run *r = arg;
    return xchg_plan_run(r->ctx, r->plan, r->args);
}

/* One run of `plan` as XCHG_Start and XCHG_Wait run it (persistent.c): an
 * algorithm with a post function posts its messages and waits for them
 * (`mpi`: the library's nonblocking call; timed as its blocking one, `mpi`
 * read as fast as `standard` in xchg-amg under Open MPI 4.1, and its starts
 * then took 1.3-1.6x `standard`'s), any other runs as a task (a fiber,
 * progressed by the wait: in SMPI, whose MPI_Test costs simulated time,
 * such a start of `locality` took 3-7 ms where its run on the caller's
 * stack took 10 us). Not a call of the program: not accounted (plan.h).
 * reqs: room for the neighbours. */
static int run_as_started(xchg_context *ctx, const xchg_plan *plan, const xchg_args *scratch,
                          MPI_Request *reqs)
{
    int count = 0;
    if (!plan->choice.algo->post) {
        started_run run = {ctx, plan, scratch};
        xchg_task *task;
        int rc = xchg_task_start(ctx, started_body, &run, &task);
        return rc == MPI_SUCCESS ? xchg_task_free(task) : rc;
    }
    int rc = plan->choice.algo->post(ctx, scratch, plan, reqs, &count);
    int waited = count > 0 ? xchg_waitall(count, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    return rc != MPI_SUCCESS ? rc : waited;
}

/* `runs` runs of `plan` one after the other, after a barrier: this rank's
 * seconds per run (the test hook's when it forces one), FAILED when a run
 * failed. */
static int timed_burst(xchg_context *ctx, const xchg_plan *plan, const xchg_args *scratch,
                       MPI_Request *reqs, int runs, double *seconds)
{
    int rc = xchg_barrier(ctx->comm), run = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) return rc;
    double start = MPI_Wtime();
    for (int i = 0; i < runs && run == MPI_SUCCESS; i++)
        run = run_as_started(ctx, plan, scratch, reqs);
    double t = (MPI_Wtime() - start) / runs;
    *seconds = run == MPI_SUCCESS ? xchg_online_test_time(ctx, plan->choice.algo->name, t)
                                  : FAILED;
    if (*seconds < 0) *seconds = FAILED; /* the hook's "fail" */
    return MPI_SUCCESS;
}

/* Build every candidate's plan on the scratch arguments; those that failed
 * on any rank are left out everywhere (one allreduce). */
static int build_plans(xchg_context *ctx, const xchg_args *scratch, const xchg_choice *cand,
                       int ncand, xchg_plan **plans, int *usable)
{
    int failed[INIT_CANDIDATES], agreed[INIT_CANDIDATES];
    for (int c = 0; c < ncand; c++) {
        plans[c] = NULL;
        failed[c] = xchg_plan_create(ctx, &cand[c], scratch, &plans[c]) != MPI_SUCCESS;
    }
    int rc = xchg_allreduce(failed, agreed, ncand, MPI_INT, MPI_MAX, ctx->comm);
    for (int c = 0; c < ncand; c++) usable[c] = rc == MPI_SUCCESS && !agreed[c];
    return rc;
}

/* What the rounds of one measurement share. */
typedef struct race {
    xchg_context *ctx;
    const xchg_args *scratch; /* the call's arguments on scratch buffers */
    xchg_plan **plans;        /* [ncand] built on them */
    int *usable;              /* [ncand] still running */
    int ncand;
    int burst[INIT_CANDIDATES]; /* runs per sample (after the warm-up) */
    MPI_Request *reqs;        /* room for one run's messages */
    double local[INIT_CANDIDATES * (1 + ROUNDS)]; /* this rank's times */
    double *times;            /* the agreed ones (the slowest rank's) */
} race;

/* Runs first..last (0: the warm-up) of every usable candidate, this
 * rank's times into local[c * (1 + ROUNDS) + r]; then agreed into times,
 * those runs only. */
static int rounds(race *m, int first, int last)
{
    int rc = MPI_SUCCESS;
    for (int r = first; r <= last && rc == MPI_SUCCESS; r++)
        for (int c = 0; c < m->ncand && rc == MPI_SUCCESS; c++)
            if (m->usable[c])
                rc = timed_burst(m->ctx, m->plans[c], m->scratch, m->reqs,
                                 r == 0 ? 1 : m->burst[c], &m->local[c * (1 + ROUNDS) + r]);
    if (rc == MPI_SUCCESS)
        rc = xchg_allreduce(m->local, m->times, m->ncand * (1 + ROUNDS), MPI_DOUBLE, MPI_MAX,
                            m->ctx->comm);
    return rc;
}

/* Each candidate's runs per sample from its agreed warm-up: BURST, or as
 * many as take BURST_SECONDS, at least one (the same on every rank). */
static void size_bursts(race *m)
{
    for (int c = 0; c < m->ncand; c++) {
        double warm_up = m->times[c * (1 + ROUNDS)];
        m->burst[c] = BURST;
        if (warm_up * BURST > BURST_SECONDS)
            m->burst[c] = warm_up >= BURST_SECONDS ? 1 : (int)(BURST_SECONDS / warm_up);
    }
}

/* The DROP rule of online.c after the warm-up and two rounds: a candidate
 * whose faster of the two rounds took over DROP (2x) the fastest of any
 * leaves the race (on this project's 2-core machine `locality` took 2-3x
 * `standard` on one node: 5 runs of it spared). Not on the warm-up: the
 * first runs on a new communicator took 4-5x the next ones in xchg-amg. */
static void cut_losers(race *m)
{
    double fastest[INIT_CANDIDATES], best = 0;
    for (int c = 0; c < m->ncand; c++) {
        const double *t = m->times + c * (1 + ROUNDS);
        fastest[c] = t[1] < t[2] ? t[1] : t[2];
        if (m->usable[c] && fastest[c] < FAILED && (best == 0 || fastest[c] < best))
            best = fastest[c];
    }
    for (int c = 0; c < m->ncand; c++)
        if (m->usable[c] && best > 0 && fastest[c] > XCHG_ONLINE_DROP * best) m->usable[c] = 0;
}

/* times[c * (1 + ROUNDS) + r]: candidate c's warm-up (r = 0) and rounds,
 * agreed (the slowest rank's); usable[c] cleared for a clear loser. */
static int measure(xchg_context *ctx, const xchg_args *scratch, xchg_plan **plans, int *usable,
                   int ncand, double *times)
{
    race m = {.ctx = ctx, .scratch = scratch, .plans = plans, .usable = usable,
              .ncand = ncand, .times = times};
    const xchg_neighbor_args *nbr = &scratch->neighbor;
    size_t slots = xchg_coll_is_dense(scratch->coll) /* as a request's (persistent.c) */
                       ? 2 * (size_t)scratch->size + 1
                       : (size_t)nbr->indegree + (size_t)nbr->outdegree + 1;
    if (!(m.reqs = malloc(slots * sizeof *m.reqs)))
        return xchg_error(MPI_ERR_NO_MEM, "out of memory for online selection at init");
    int rc = rounds(&m, 0, 0);
    if (rc == MPI_SUCCESS) {
        size_bursts(&m);
        rc = rounds(&m, 1, 2);
    }
    if (rc == MPI_SUCCESS) {
        cut_losers(&m);
        rc = rounds(&m, 3, ROUNDS);
    }
    free(m.reqs);
    return rc;
}

/* ---- Deciding ------------------------------------------------------------------ */

/* Candidate c's rounds: median and spread ((slowest - fastest) / median);
 * 0 when a run failed (its warm-up included). */
static int summarize(const double *runs, double *median, double *spread)
{
    const double *rounds = runs + 1;
    double lo = rounds[0], hi = rounds[0];
    for (int r = 1; r < ROUNDS; r++) {
        if (rounds[r] < lo) lo = rounds[r];
        if (rounds[r] > hi) hi = rounds[r];
    }
    *median = xchg_online_median(rounds, ROUNDS);
    *spread = *median > 0 ? (hi - lo) / *median : 0;
    return hi < FAILED && runs[0] < FAILED;
}

/* Whether candidate c beats o: a median below by the margin (the larger
 * spread, MARGIN_MIN to MARGIN), and faster in VISIT_WINS of the rounds. */
static int beats(const double *times, const double *med, const double *spread, int c, int o)
{
    double margin = xchg_online_margin(spread[c], spread[o]);
    int wins = 0;
    for (int r = 1; r <= ROUNDS; r++)
        wins += times[c * (1 + ROUNDS) + r] < times[o * (1 + ROUNDS) + r];
    return med[c] < med[o] * (1 - margin) && wins >= (int)(XCHG_ONLINE_VISIT_WINS * ROUNDS);
}

static int decide(const double *times, int *usable, const xchg_choice *cand, int ncand,
                  double *med)
{
    double spread[INIT_CANDIDATES];
    int incumbent = 0; /* the model's choice, or mpi where it could run */
    for (int c = 0; c < ncand; c++) {
        if (!summarize(times + c * (1 + ROUNDS), &med[c], &spread[c])) usable[c] = 0;
        if (!usable[c]) continue;
        if (strcmp(cand[c].algo->name, "mpi") == 0) incumbent = c;
    }
    if (!usable[incumbent])
        for (int c = 0; c < ncand; c++)
            if (usable[c] && (!usable[incumbent] || med[c] < med[incumbent])) incumbent = c;
    int winner = incumbent;
    for (int c = 0; c < ncand; c++)
        if (usable[c] && c != incumbent && beats(times, med, spread, c, incumbent) &&
            med[c] < med[winner])
            winner = c;
    return usable[winner] ? winner : -1;
}

static void report(const xchg_context *ctx, const xchg_select_input *in, const xchg_choice *cand,
                   const int *usable, int ncand, const double *times, const double *med,
                   int winner, double seconds)
{
    if (ctx->rank != 0 || !xchg_online_verbose()) return;
    char name[256], line[2048];
    int len = snprintf(line, sizeof line, "xchg: online %s at a persistent init, P=%d, ",
                       xchg_coll_name(in->coll), in->comm_size);
    if (in->coll == XCHG_NEIGHBOR_ALLTOALLV)
        len += snprintf(line + len, sizeof line - (size_t)len, "pattern %lld,%lld,%lld,%lld,%lld",
                        (long long)in->nbr.remote_msgs, (long long)in->nbr.local_msgs,
                        (long long)in->nbr.remote_bytes, (long long)in->nbr.local_bytes,
                        (long long)in->nbr.remote_nodes);
    else
        len += snprintf(line + len, sizeof line - (size_t)len, "%lld B per block",
                        (long long)in->bytes);
    len += snprintf(line + len, sizeof line - (size_t)len, ": measured");
    for (int c = 0; c < ncand && len < (int)sizeof line - 1; c++) {
        xchg_choice_format(&cand[c], name, sizeof name);
        const double *t = times + c * (1 + ROUNDS);
        if (usable[c])
            len += snprintf(line + len, sizeof line - (size_t)len, "%s %s %.2f us", c ? "," : "",
                            name, med[c] * 1e6);
        else if (t[1] > 0 && t[1] < FAILED && t[2] < FAILED) /* cut after two rounds */
            len += snprintf(line + len, sizeof line - (size_t)len, "%s %s %.2f us (dropped)",
                            c ? "," : "", name, (t[1] < t[2] ? t[1] : t[2]) * 1e6);
        else
            len += snprintf(line + len, sizeof line - (size_t)len, "%s %s (cannot run)",
                            c ? "," : "", name);
    }
    if (winner >= 0) xchg_choice_format(&cand[winner], name, sizeof name);
    snprintf(line + len, sizeof line - (size_t)len,
             " (median of %d, slowest rank) -> %s; measuring took %.1f us", ROUNDS,
             winner >= 0 ? name : "the model's choice (none ran)", seconds * 1e6);
    fprintf(stderr, "%s\n", line);
}

/* ---- Entry ----------------------------------------------------------------------- */

int xchg_online_init_race(xchg_context *ctx, const xchg_args *scratch, const xchg_select_input *in,
                          const xchg_choice *cand, int ncand, int *winner)
{
    xchg_plan *plans[INIT_CANDIDATES] = {NULL};
    int usable[INIT_CANDIDATES] = {0};
    double times[INIT_CANDIDATES * (1 + ROUNDS)], med[INIT_CANDIDATES];
    double start = MPI_Wtime();
    int rc = build_plans(ctx, scratch, cand, ncand, plans, usable);
    if (rc == MPI_SUCCESS) rc = measure(ctx, scratch, plans, usable, ncand, times);
    *winner = rc == MPI_SUCCESS ? decide(times, usable, cand, ncand, med) : -1;
    if (rc == MPI_SUCCESS)
        report(ctx, in, cand, usable, ncand, times, med, *winner, MPI_Wtime() - start);
    for (int c = 0; c < ncand; c++) xchg_plan_free(plans[c]);
    return rc;
}
