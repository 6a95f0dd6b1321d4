/*
 * Online selection's decision rules (online.c's header comment: the DROP
 * and LOSING cuts, the incumbent rule with its MARGIN, the re-check):
 * computed from agreed times only, so every rank decides alike. online.c
 * records the samples and calls these.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "online_state.h"
#include "select.h"

double xchg_online_median(const double *v, int n)
{
    double s[XCHG_ONLINE_SAMPLES_MAX > XCHG_ONLINE_DRIFT_WINDOW ? XCHG_ONLINE_SAMPLES_MAX
                                                                : XCHG_ONLINE_DRIFT_WINDOW];
    memcpy(s, v, (size_t)n * sizeof *v);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void report(const xchg_context *ctx, const xchg_online_signature *s, const double *med,
                   int switched)
{
    if (ctx->rank != 0 || !xchg_online_verbose()) return;
    char name[256], line[2048];
    int len = snprintf(line, sizeof line, "xchg: online %s, P=%d, %lld B", xchg_coll_name(s->in.coll),
                       s->in.comm_size, (long long)s->in.bytes);
    if (xchg_coll_is_v(s->in.coll))
        len += snprintf(line + len, sizeof line - (size_t)len, " (largest %lld B, %d peers)",
                        (long long)s->in.max_block_bytes, s->in.max_peers);
    else if (s->in.coll == XCHG_ALLGATHERV)
        len += snprintf(line + len, sizeof line - (size_t)len, " (largest %lld B)",
                        (long long)s->in.max_block_bytes);
    len += snprintf(line + len, sizeof line - (size_t)len,
                    s->confirming ? ": confirming against mpi" : ": tried");
    for (int c = 0, shown = 0; c < s->ncand && len < (int)sizeof line - 1; c++) {
        if (s->confirming && s->dropped[c] && !s->nsamples[c]) continue; /* left out */
        xchg_choice_format(&s->cand[c], name, sizeof name);
        len += snprintf(line + len, sizeof line - (size_t)len, "%s %s %.2f us", shown++ ? "," : "",
                        name, med[c] * 1e6);
        if (s->dropped[c] && len < (int)sizeof line - 1)
            len += snprintf(line + len, sizeof line - (size_t)len, " (dropped after %d)",
                            s->nsamples[c]);
    }
    xchg_choice_format(&s->cand[s->winner], name, sizeof name);
    double extra = s->explore_seconds - s->recorded * med[s->winner];
    snprintf(line + len, sizeof line - (size_t)len,
             " (median of up to %d, slowest rank) -> %s%s; exploring: %d calls, %.1f us more "
             "than the winner's",
             s->samples_wanted, name,
             switched < 0 ? "" : switched ? " (switched)" : " (kept)", s->recorded, extra * 1e6);
    fprintf(stderr, "%s\n", line);
}

static double fastest(const double *v, int n)
{
    double best = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < best) best = v[i];
    return best;
}

/* Clear losers leave the race (the header comment's DROP and LOSING rules).
 * Never the candidate with the fastest sample, nor the one with the smallest
 * median of LOSING_AFTER samples or more, so one always remains. `mpi`, the
 * incumbent whose median the others must beat, only for what it does
 * twice: by DROP when its warm-up is over 2x as well (the others leave on
 * one sample: a call of a slow one may cost a hundred of the winner's), by
 * LOSING only after SAMPLES samples. Nor, by DROP, one whose only sample
 * took under 1 / WARMING of its warm-up: still warming up (at 8 ranks on
 * this project's 2-core machine `rma_direct`'s allgather of 1 KiB took
 * 3631, 747, 285 and then 33-43 us in its first calls, where `mpi` took
 * 50: its window's first epochs; dropped on the 285 it never ran in a
 * program). Agreed times only: every rank drops the same candidates at the
 * same call. */
void xchg_online_cut_losers(xchg_online_signature *s)
{
    double best = 0, best_median = 0;
    int have_best = 0, have_median = 0;
    const double *med = s->medians;
    double first[XCHG_ONLINE_CANDIDATES];
    for (int c = 0; c < s->ncand; c++) {
        if (s->nsamples[c] == 0) continue;
        first[c] = fastest(xchg_online_samples_of(s, c), s->nsamples[c]);
        if (!have_best || first[c] < best) best = first[c], have_best = 1;
    }
    int mpi = xchg_online_mpi_candidate(s);
    for (int c = 0; c < s->ncand; c++) { /* mpi: two calls over 2x, not one hiccup */
        if (s->dropped[c] || s->nsamples[c] == 0) continue;
        double quickest = c == mpi && s->warm_up[c] < first[c] ? s->warm_up[c] : first[c];
        int warming = s->nsamples[c] == 1 && first[c] * XCHG_ONLINE_WARMING < s->warm_up[c];
        if (quickest > XCHG_ONLINE_DROP * best && !warming) s->dropped[c] = 1;
    }
    for (int c = 0; c < s->ncand; c++) { /* mpi, the incumbent: judged on SAMPLES */
        int after = c == mpi ? XCHG_ONLINE_SAMPLES : XCHG_ONLINE_LOSING_AFTER;
        if (s->dropped[c] || s->nsamples[c] < after) continue;
        have_median = 0;
        for (int o = 0; o < s->ncand; o++) /* the best median of the others */
            if (o != c && s->nsamples[o] >= XCHG_ONLINE_LOSING_AFTER &&
                (!have_median || med[o] < best_median))
                best_median = med[o], have_median = 1;
        if (have_median && first[c] > XCHG_ONLINE_LOSING * best_median) s->dropped[c] = 1;
    }
}

/* How far candidate c's samples spread: slowest - fastest, in seconds. */
static double range_of(const xchg_online_signature *s, int c)
{
    const double *v = xchg_online_samples_of(s, c);
    double lo = v[0], hi = v[0];
    for (int i = 1; i < s->nsamples[c]; i++) {
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    return hi - lo;
}

/* Whether candidate c needs another sample: fewer than SAMPLES, or fewer
 * than samples_wanted while its samples spread over more than MARGIN of
 * their median (its median is not yet known to within the margin; in a
 * simulation, where a candidate takes the same time at every call, SAMPLES
 * settle it). */
int xchg_online_unsettled(const xchg_online_signature *s, int c)
{
    int n = s->nsamples[c];
    if (n < XCHG_ONLINE_SAMPLES) return 1;
    return n < s->samples_wanted && range_of(s, c) > XCHG_ONLINE_MARGIN * s->medians[c];
}

/* Samples a candidate takes per visit: one per SAMPLES it wants (2-8: it
 * wants SAMPLES_SPREAD to SAMPLES_MAX), in a run of consecutive calls after
 * one that is not counted (online.c). A call right after another algorithm's pays for the
 * switch (caches, the MPI library's state): on 16 real cores, round robin
 * had `nonblocking` beat `mpi` by more than the margin at 4 ranks, 64 B,
 * where in runs of its own, as a program calls it, it took 1.13x mpi's
 * time. And a run's samples are timed where the winner will run (the fast
 * path): a call of 10 us or more timed alone, on the normal path, read
 * `mpi` 12-24% slower than its benchmark row at 8 ranks (alltoallv 4 KiB)
 * and xchg's own algorithms within 2%, so exploration chose `nonblocking`
 * where it then ran at 1.04x MPI's own (issue 26). */
int xchg_online_visit_length(const xchg_online_signature *s)
{
    return s->samples_wanted / XCHG_ONLINE_SAMPLES;
}

/* The candidate the next exploring call runs: the warm-up round in order
 * (none in a confirmation),
 * then the unsettled one still in the race with the fewest samples (the
 * earliest on a tie: round robin); -1 when every one is done. */
int xchg_online_next_candidate(const xchg_online_signature *s)
{
    if (s->recorded < xchg_online_warm_ups(s)) return s->recorded;
    int next = -1;
    for (int c = 0; c < s->ncand; c++)
        if (!s->dropped[c] && xchg_online_unsettled(s, c) &&
            (next < 0 || s->nsamples[c] < s->nsamples[next]))
            next = c;
    return next;
}

/* Samples a candidate takes while they spread (xchg_online_unsettled; 5
 * settle it where they do not): as many as make SAMPLES x SHORT_SECONDS at
 * the speed of the fastest warm-up (an agreed time: the same on every
 * rank), at least SAMPLES_SPREAD and at most SAMPLES_MAX. A call of a few
 * microseconds varies by more than the margin between candidates: five of
 * them decided for algorithms that a benchmark's median then put
 * 1.1-1.25x behind MPI's own (issue 26's 16-core run); so did calls of
 * 20-40 us on 8 ranks of a 2-core machine with 5 samples
 * (docs/results/selection/online/long-runs/). */
int xchg_online_samples_wanted(double fastest_warm_up)
{
    double wanted = XCHG_ONLINE_SAMPLES * XCHG_ONLINE_SHORT_SECONDS /
                    (fastest_warm_up > 0 ? fastest_warm_up : XCHG_ONLINE_SHORT_SECONDS);
    return wanted >= XCHG_ONLINE_SAMPLES_MAX ? XCHG_ONLINE_SAMPLES_MAX
           : wanted <= XCHG_ONLINE_SAMPLES_SPREAD ? XCHG_ONLINE_SAMPLES_SPREAD
                                             : (int)wanted;
}

/* The index of `mpi` among the candidates of `s`, or -1. */
int xchg_online_mpi_candidate(const xchg_online_signature *s)
{
    for (int c = 0; c < s->ncand; c++)
        if (strcmp(s->cand[c].algo->name, "mpi") == 0) return c;
    return -1;
}

/* The median of candidate c's samples taken in its visit k; 0: none. */
static double visit_median(const xchg_online_signature *s, int c, int k)
{
    double v[XCHG_ONLINE_SAMPLES_MAX];
    int n = 0;
    const unsigned char *visit = xchg_online_visits_of(s, c);
    for (int i = 0; i < s->nsamples[c]; i++)
        if (visit[i] == k) v[n++] = xchg_online_samples_of(s, c)[i];
    return n ? xchg_online_median(v, n) : 0;
}

/* Whether c was faster than o in VISIT_WINS of the visits both made with
 * samples, rounded down (4 of 5, 2 of 3; their k-th visits are of the same
 * round: the next candidate is always the one with the fewest samples). On
 * a machine whose load comes in bursts longer than a visit (an
 * oversubscribed one), the samples of one visit vary together: one slow
 * visit of `mpi` can move its median by more than the margin, but it does
 * not make another candidate win visit after visit. Rounded up, a call of
 * 20 us or more (three visits: 1, 2 and 2 samples) had to win all three:
 * at 8 ranks on this project's 2-core machine (alltoallv 16-256 B, where
 * `nonblocking` takes 0.83x MPI's own) `mpi` then stayed in 15 of 50
 * explorations, 12 of them against a candidate 8-54% faster by the median
 * (issue 26). In a simulation every visit says the same. */
static int wins_visits(const xchg_online_signature *s, int c, int o)
{
    int both = 0, won = 0;
    int visits = s->visits[c] < s->visits[o] ? s->visits[c] : s->visits[o];
    for (int k = 0; k < visits; k++) {
        double mc = visit_median(s, c, k), mo = visit_median(s, o, k);
        if (mc <= 0 || mo <= 0) continue;
        both++;
        won += mc < mo;
    }
    return won >= (int)(XCHG_ONLINE_VISIT_WINS * both);
}

/* Whether candidate c beats candidate o, on enough samples (the header
 * comment's incumbent rule): its median by the margin, and visit by visit
 * (wins_visits). The margin is the larger spread (range_of / median) of the
 * two candidates' samples, at least MARGIN_MIN (1%) and at most MARGIN
 * (5%): a difference beyond what their own samples vary by is real. Where
 * times do not vary (a simulation) a 5% margin would keep `mpi` against a
 * candidate 4.7% faster (SMPI's fat tree, P = 128, 16 KiB). */
static int beats(const xchg_online_signature *s, const double *med, const double *spread, int c,
                 int o)
{
    double margin = xchg_online_margin(spread[c], spread[o]);
    return s->nsamples[c] >= XCHG_ONLINE_SWITCH_SAMPLES && med[c] * (1 + margin) < med[o] &&
           wins_visits(s, c, o);
}

/* Whether and when a decided winner other than `mpi` is timed against mpi
 * again (a confirmation: online.c's header comment; it keeps the faster
 * median of the two, xchg_online_decide): CONFIRM_AFTER calls
 * after its decision (at its first check if that comes sooner), then at
 * every CONFIRM_CHECKS-th check, as long as it keeps winning; never where
 * mpi was a clear loser (over DROP, 2x, the winner's median: no burst of
 * load explains that) or took no sample. */
static void plan_confirmation(xchg_online_signature *s, int mpi, const double *med)
{
    s->checks_to_confirm = 0;
    if (mpi < 0 || s->winner == mpi || !(med[mpi] > 0) ||
        med[mpi] > XCHG_ONLINE_DROP * med[s->winner])
        return;
    s->checks_to_confirm = s->confirming ? XCHG_ONLINE_CONFIRM_CHECKS : 1;
    if (!s->confirming && s->check_every > XCHG_ONLINE_CONFIRM_AFTER)
        s->next_check = s->calls + XCHG_ONLINE_CONFIRM_AFTER;
}

void xchg_online_decide(const xchg_context *ctx, xchg_online_signature *s)
{
    double med[XCHG_ONLINE_CANDIDATES], spread[XCHG_ONLINE_CANDIDATES];
    int mpi = xchg_online_mpi_candidate(s), best = -1;
    for (int c = 0; c < s->ncand; c++) {
        med[c] = s->medians[c];
        spread[c] = s->nsamples[c] && med[c] > 0 ? range_of(s, c) / med[c] : 0;
    }
    /* `mpi` is the incumbent: another candidate takes its place only when
     * its median beats mpi's by the margin; a dropped mpi was a clear loser
     * (over 2x, or its fastest over 1.25x another's median) and is none */
    int mpi_stands = mpi >= 0 && s->nsamples[mpi] && !s->dropped[mpi];
    for (int c = 0; c < s->ncand; c++)
        if (c != mpi && !s->dropped[c] && s->nsamples[c] &&
            (!mpi_stands || beats(s, med, spread, c, mpi)) && (best < 0 || med[c] < med[best]))
            best = c;
    if (best < 0) best = mpi >= 0 ? mpi : 0; /* nothing beat mpi */
    int switched = -1;
    if (s->confirming) { /* the faster median of the two now */
        int w = s->incumbent;
        int winner_stands = !s->dropped[w] && s->nsamples[w] > 0;
        best = mpi_stands && (!winner_stands || med[mpi] < med[w]) ? mpi : w;
        switched = best != w;
    } else if (s->has_incumbent && best != s->incumbent) { /* a re-check: by a margin */
        int incumbent_stands =
            s->incumbent == mpi || !mpi_stands || beats(s, med, spread, s->incumbent, mpi);
        switched = !incumbent_stands || !s->nsamples[s->incumbent] ||
                   beats(s, med, spread, best, s->incumbent);
        if (!switched) best = s->incumbent;
    } else if (s->has_incumbent) {
        switched = 0;
    }
    free(s->samples); /* the medians are what a decided signature keeps */
    s->samples = NULL;
    s->sample_visit = NULL;
    s->winner = best;
    s->winner_seconds = med[best];
    s->state = SIG_DECIDED;
    s->explorations++;
    s->explored_calls += (unsigned long)s->recorded;
    s->explore_cost += s->explore_seconds - s->recorded * med[best];
    /* a re-check that kept the winner checks half as often next time */
    unsigned long every = xchg_online_check_every(med[best]);
    if (switched == 0 && 2 * s->check_every > every)
        every = 2 * s->check_every < XCHG_ONLINE_CHECK_MAX ? 2 * s->check_every
                                                           : XCHG_ONLINE_CHECK_MAX;
    s->check_every = every;
    s->baseline = 0;
    s->next_check = s->calls + s->check_every;
    s->reexplore_at = s->calls + XCHG_ONLINE_REEXPLORE_EVERY;
    plan_confirmation(s, mpi, med);
    report(ctx, s, med, switched);
}

