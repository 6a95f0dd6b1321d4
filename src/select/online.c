/*
 * Online selection (online.h): measure the candidates of a repeating call
 * signature where the program runs, and keep the fastest.
 *
 * A signature is (collective, communicator, size bucket): the context is the
 * communicator; the sizes are the agreed inputs of selection (inputs.h)
 * rounded to quarter octaves (xchg_select_size_bucket): alltoall and
 * allgather's block; alltoallv's and alltoallw's agreed mean block, largest
 * block and non-empty peers; allgatherv's mean and largest contribution
 * (every rank passes the same recvcounts: no agreement). Every input is the
 * same on every rank, so every rank finds the same signature at the same
 * call.
 *
 * Life of a signature:
 *   seen       its first REPEATS calls use the model (a signature that never
 *              repeats is never measured);
 *   exploring  the next calls try the candidates: up to MODEL_CANDIDATES of
 *              the model's (its choice, its best of the other kind, flat or
 *              composed, and its next best with another prediction; on two
 *              ranks no composed one: one peer, nothing to combine), up to
 *              OUTSIDE_CANDIDATES it ranks badly or cannot rank (`node_aware`
 *              on several nodes, `rma_direct` from 1 KiB blocks on one node:
 *              online_candidates.c) and `mpi`, the MPI library's own collective.
 *              One round runs each once to warm it up (a plan's first run,
 *              cold caches; on this project's loaded machine it took 2-3x
 *              the next ones; not a sample); then rounds over the candidates
 *              still in the race, SAMPLES samples each, and more while a
 *              candidate's samples spread over more than MARGIN of their
 *              median: up to as many as make SAMPLES x 20 us at the
 *              fastest warm-up's speed, at least SAMPLES_SPREAD (10) and
 *              at most SAMPLES_MAX (40): one call of a few
 *              microseconds varies by more than the margin below, and so
 *              did a call of 20-40 us at 8 ranks on this project's 2-core
 *              machine (with 5 samples, 6 of 12 runs of alltoall 256 B
 *              decided for a candidate that then ran at 1.05-1.17x MPI's
 *              own; with 10, none); where times do not vary, as in a
 *              simulation, SAMPLES settle it. A candidate runs in visits
 *              of consecutive calls (wanted / SAMPLES samples, 2 to 8,
 *              after one call that is not one: it pays for the switch from
 *              another algorithm). A
 *              call's time is the slowest rank's: each rank times the
 *              algorithm's run (plan building excluded) and the maximum is
 *              agreed by the collective's next blocking call, before it
 *              selects: for alltoall, allgather and allgatherv one
 *              xchg_allreduce(MAX) of int64s, for alltoallv and
 *              alltoallw more elements in the agreement of sizes that
 *              call makes anyway (select.c; a pending time makes it agree
 *              whatever XCHG_AGREE's schedule says).
 *              Every visit is a timed run (start_run): its
 *              first call, the switch, is not timed; its samples, the next
 *              calls, up to the visit's and no further than its 1st and
 *              SAMPLES-th sample (where a rule below may end the
 *              candidate's visit: run_length), are timed
 *              wherever each call runs: on the fast path (online_fast.c)
 *              when its shape lets it, as the winner will run once decided,
 *              else on the normal path; each rank keeps its times until
 *              the run's last call, and the collective's next blocking call
 *              agrees them all in one MAX (up to RUN_MAX int64s). On this
 *              project's 2-core machine the normal path read a timed `mpi`
 *              alltoallv 9-11% slower than the fast path did, about half of
 *              it in the path around the library's call and half in what
 *              comes before the barrier (issue 26, explore-bias/): more
 *              than the margin, so candidates no faster than `mpi` won.
 *              Every rank times the same calls, whichever path each takes:
 *              a run's calls are counted on both paths, and a run goes
 *              ahead of the signature's other schedule (drift samples,
 *              re-exploration). Only the warm-ups are timed one at a time,
 *              on the normal path. Calls of 10 us or more (5-9 samples
 *              wanted: visits of one) were too, until issue 26's 8-rank
 *              runs: alone on the
 *              normal path `mpi`'s alltoallv of 4 KiB read 12-24% slower
 *              than its benchmark row, `nonblocking` within 2%, and
 *              exploration chose `nonblocking` at 1.02-1.08x MPI's own.
 *              Agreed not right after the
 *              call: the call then returns into the program as an untimed
 *              one does (issue 26: agreed at once, `rma_direct`'s
 *              exploring samples read 5-10% faster against `mpi`'s than in
 *              a benchmark's loop of calls, on this project's 2-core
 *              machine). Clear losers leave the race early (cut_losers): a
 *              candidate whose fastest sample is over DROP (2x) the fastest
 *              sample of any, after one sample (`mpi`: and its warm-up too,
 *              two calls, not one hiccup); one whose fastest of
 *              LOSING_AFTER (3; `mpi`: SAMPLES) samples is over LOSING
 *              (1.25x) the median of another's as many, after those (a
 *              run a rule ends goes on to its last call, no longer a
 *              sample: every rank counts the same calls).
 *              `mpi` is the incumbent: the winner is `mpi` unless a
 *              candidate's median of at least SWITCH_SAMPLES (5) samples
 *              beats mpi's by the margin: the larger spread of the two
 *              candidates' samples, MARGIN_MIN (1%) to MARGIN (5%), and it
 *              was faster in VISIT_WINS (80%, rounded down: 4 of 5, 2 of 3)
 *              of the visits both made (on an oversubscribed machine a
 *              burst of load slows a whole visit, and one slow visit of mpi
 *              moved its median); among those that do, the smallest median
 *              (ties to the earlier candidate, the model's order). A
 *              dropped `mpi` is no incumbent: the smallest median of the
 *              others wins. A difference within the
 *              samples' spread is noise on a real machine (issue 26's
 *              16-core run: a 4-rank 16 B alltoall decided for
 *              `nonblocking`, which then ran at 2x MPI's own), and `mpi` is
 *              never slower than the MPI library's own;
 *   decided    the winner runs; one call in CHECK_EVERY (128), or in as
 *              many as take CHECK_SECONDS (10 ms) for short calls, opens a
 *              timed run of one call, the next (agreed like a visit's).
 *              The median of the last
 *              DRIFT_WINDOW such times explores again (keeping the winner
 *              as incumbent: a re-check switches only by MARGIN, and to a
 *              candidate that also beats mpi by MARGIN) when it is over
 *              `mpi`'s median of the last exploration by MARGIN (the winner
 *              lost the edge it won by) or DRIFT (50%) over the first
 *              window's (the machine changed); and after REEXPLORE_EVERY
 *              calls anyway. A winner other than `mpi` is confirmed: 128
 *              calls after its decision (CONFIRM_AFTER; at its first check
 *              if that comes sooner), then at every CONFIRM_CHECKS-th (8th)
 *              check, the check explores the winner and `mpi` again, no
 *              warm-up, in visits as above, and keeps the faster median of
 *              the two: the first exploration read `mpi` once, and a
 *              winner whose edge goes away later (while its own time stays,
 *              so that the drift rule does not see it) gives way. Not the
 *              incumbent rule again: the winner passed it once, and asked
 *              to pass it again it lost 17 of 159 confirmations on this
 *              project's 2-core machine, 16 of them where it was the faster
 *              by the benchmark's rows (docs/results/selection/online/
 *              confirm/). Not where mpi took over DROP (2x) the winner's
 *              median: a clear loser.
 * Every timed call, exploring or decided, starts after a barrier, as the
 * calls of a benchmark (and of most programs' loops) do. Timed right after
 * the agreement of the call before, `mpi` read up to 17% slower in
 * exploration than between barriers on this project's 2-core machine, and
 * a one-sided candidate not at all, so exploration chose it where it was
 * 1.16-1.28x MPI's own (4 ranks, 1 KiB alltoall).
 * Every decision is computed from agreed times only (and from the number
 * of calls, the same everywhere), so every rank takes the same algorithm
 * whatever its own clock says. A timed call that fails (its error goes
 * back to the program) is agreed too, as "failed", the largest value of
 * the MAX: every rank then takes its candidate out of the race at the same
 * call (online_record.c).
 *
 * Cost of exploring: at most CANDIDATES (6) x (1 + SAMPLES + 3) = 54 calls
 * where times settle (the 3: the switching calls of runs of 1, 2 and 2
 * samples), and where they spread, for calls of 10 us or more,
 * 6 x (1 + SAMPLES_SPREAD + 6) = 102 (runs of 1, 2, 2, 2, 2 and 1), for
 * shorter ones up to
 * 6 x (1 + SAMPLES_MAX + 7) = 288 short ones (runs of 1, 4, 8, 8, 8, 8 and
 * 3 samples), run candidates that may be slower than the
 * winner; a candidate over 2x the best only 3 of them (its warm-up, the
 * run's switch and one sample; a run more where the first took under a
 * quarter of its warm-up), one within 2x but over 1.25x at most 6 (short
 * calls 8; `mpi`: 9, short calls 8). Each timed call adds a barrier, and
 * each timed call or run an agreement at the next call (a
 * small allreduce; for alltoallv and alltoallw a few more elements of
 * theirs, which they then make off their schedule), neither of which the
 * reported cost counts. Afterwards one timed call (a barrier, and an
 * agreement at the next call) per CHECK_EVERY calls or 10 ms of them,
 * whichever is more calls. A confirmation runs mpi instead of the winner
 * in at most 47 calls (short calls whose times spread: 40 samples in runs
 * of 1, 4, 8, 8, 8, 8 and 3), 16 for calls of 10 us or more, 8 where mpi
 * loses by LOSING; each takes under 1.25x the winner's (else LOSING cuts
 * mpi after 8) and under 2x (DROP): at most about 12 calls of the winner's
 * time more, once 128 calls after a decision and then every 8th check
 * (1,024 calls apart at least, twice as far after each that kept it).
 * XCHG_VERBOSE=1 prints the exploration's cost (the sum of its calls'
 * times minus as many calls of the winner). In SMPI (docs/results/selection/online/) the 2x cut took the
 * worst case, where `mpi` took 10x the direct exchange, from 4.7% of 1,000
 * calls to below 3%. The samples live only while a signature explores.
 *
 * The test hooks (XCHG_TEST_ONLINE_TIMES, XCHG_TEST_ONLINE_CHECK) are in
 * online_hooks.c; timing, runs and the agreement of times in
 * online_record.c; the decision rules in online_decide.c.
 */
#include "online.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "../core/wait.h"
#include "online_state.h"
#include "select.h"

/* ---- Environment ---------------------------------------------------------- */

int xchg_online_enabled(int *on)
{
    const char *env = getenv("XCHG_ONLINE");
    *on = 1;
    if (!env || !*env || strcmp(env, "1") == 0) return MPI_SUCCESS;
    if (strcmp(env, "0") == 0) {
        *on = 0;
        return MPI_SUCCESS;
    }
    return xchg_error(MPI_ERR_ARG, "XCHG_ONLINE=%s: expected 0 (off) or 1 (on)", env);
}

int xchg_online_verbose(void)
{
    const char *v = getenv("XCHG_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

/* ---- Signatures ----------------------------------------------------------- */

xchg_online *xchg_online_state(xchg_context *ctx)
{
    /* aligned: the fast path's line of each collective (online_state.h) */
    if (!ctx->online &&
        (ctx->online = xchg_zalloc_aligned(_Alignof(xchg_online), sizeof(xchg_online))))
        for (int c = 0; c < XCHG_NUM_COLL; c++) ctx->online->fast_ready[c] = FAST_NONE;
    return ctx->online;
}

static int same_inputs(const xchg_select_input *a, const xchg_select_input *b)
{
    return a->coll == b->coll && a->bytes == b->bytes && a->max_block_bytes == b->max_block_bytes &&
           a->max_peers == b->max_peers;
}

int xchg_online_find(const xchg_online *o, const xchg_select_input *in)
{
    for (int i = 0; i < o->count; i++)
        if (same_inputs(&o->sig[i].in, in)) return i;
    return -1;
}

/* A new signature for `in`: a free slot, else the least recently used one
 * that is not exploring (the same on every rank: the calls are). */
static int insert(xchg_online *o, const xchg_select_input *in)
{
    int slot = -1;
    if (o->count < XCHG_ONLINE_SIGNATURES) {
        slot = o->count++;
    } else {
        for (int i = 0; i < o->count; i++)
            if (o->sig[i].state != SIG_EXPLORING &&
                (slot < 0 || o->sig[i].last_use < o->sig[slot].last_use))
                slot = i;
        if (slot < 0) return -1; /* everything explores: use the model */
    }
    for (int c = 0; c < XCHG_NUM_COLL; c++) /* a fast path of the one replaced */
        if (o->fast[c].armed && o->fast[c].sig == slot) xchg_online_fast_release(o, c, 1);
    xchg_online_signature *s = &o->sig[slot];
    memset(s, 0, sizeof *s);
    s->in = *in;
    s->id = ++o->next_id;
    return slot;
}

/* Exploring from the start: every candidate, each warmed up first
 * (keep_incumbent: a re-check, the winner the incumbent); or a confirmation
 * (the header comment): the winner, the incumbent, and mpi only, in visits
 * from the first call, as many samples wanted as the last exploration's;
 * the other candidates out as dropped, their last medians kept. */
static int begin_exploring(xchg_online_signature *s, int keep_incumbent, int confirm)
{
    size_t n = (size_t)s->ncand * XCHG_ONLINE_SAMPLES_MAX;
    s->samples = malloc(n * (sizeof *s->samples + sizeof *s->sample_visit));
    if (!s->samples) return xchg_error(MPI_ERR_NO_MEM, "out of memory for online selection");
    s->sample_visit = (unsigned char *)(s->samples + n);
    int mpi = xchg_online_mpi_candidate(s);
    s->has_incumbent = keep_incumbent && s->state == SIG_DECIDED;
    s->incumbent = s->winner;
    s->state = SIG_EXPLORING;
    s->confirming = confirm;
    if (!confirm) { /* a confirmation keeps the last exploration's */
        s->samples_wanted = XCHG_ONLINE_SAMPLES;
        s->fastest_warm_up = 0;
    }
    s->recorded = 0;
    s->switch_calls = 0;
    s->explore_seconds = 0;
    s->ndrift = 0;
    s->run_left = 0;
    memset(s->nsamples, 0, sizeof s->nsamples);
    memset(s->visits, 0, sizeof s->visits);
    memset(s->dropped, 0, sizeof s->dropped);
    for (int c = 0; c < s->ncand; c++) {
        if (confirm && c != s->winner && c != mpi) s->dropped[c] = 1;
        else s->medians[c] = 0;
    }
    s->next = xchg_online_next_candidate(s);
    return MPI_SUCCESS;
}

int xchg_online_start_exploring(xchg_online_signature *s, int keep_incumbent)
{
    return begin_exploring(s, keep_incumbent, 0);
}

int xchg_online_start_confirming(xchg_online_signature *s)
{
    return begin_exploring(s, 1, 1);
}

/* A decided signature's call n is a check (one in check_every); whether it
 * is the one that confirms the winner against mpi (checks_to_confirm counts
 * them down; the others take a drift sample). */
static int confirmation_due(xchg_online_signature *s, unsigned long n)
{
    if (s->state != SIG_DECIDED || s->run_left > 0 || n < s->next_check ||
        s->checks_to_confirm <= 0)
        return 0;
    return --s->checks_to_confirm == 0;
}

/* The samples of candidate k's next visit: up to visit_length, and no
 * further than its first sample (DROP may end it there: a clear loser's
 * calls may cost tens of the winner's) or its SAMPLES-th (settled where
 * times do not spread). A run's length is fixed when it starts, so it stops
 * there; LOSING (at LOSING_AFTER) ends it within, where at most two more
 * of a candidate under 2x the best are taken and not counted. */
static int run_length(const xchg_online_signature *s, int k)
{
    static const int rules[] = {1, XCHG_ONLINE_SAMPLES};
    int have = s->nsamples[k], left = s->samples_wanted - have;
    int visit = xchg_online_visit_length(s);
    if (left > visit) left = visit;
    for (int r = 0; r < (int)(sizeof rules / sizeof rules[0]); r++)
        if (have < rules[r]) return rules[r] - have < left ? rules[r] - have : left;
    return left;
}

/* An exploring call of candidate k that opens a visit of several calls
 * (short calls: xchg_online_visit_length) opens a timed run: this call pays
 * for the switch from another algorithm and is not timed; the visit's
 * samples are the next calls, timed where each runs (the fast path, when
 * their shape lets it), and agreed together after the last (the header
 * comment). 0: not such a call. */
static int start_run(xchg_online_signature *s, int k)
{
    if (s->recorded < xchg_online_warm_ups(s)) return 0; /* the warm-up round: single calls */
    int left = run_length(s, k);
    s->visits[k]++;
    s->switch_calls++;
    s->recorded++; /* a call of the exploration (its time: the run's first) */
    s->run_cand = k;
    s->run_left = left;
    s->run_n = 0;
    return 1;
}

/* The bucketed inputs of a dense signature, as its table keys them. */
static xchg_select_input signature_of(const xchg_select_input *exact)
{
    xchg_select_input in = *exact;
    in.bytes = xchg_select_size_bucket(in.bytes);
    in.max_block_bytes = xchg_select_size_bucket(in.max_block_bytes);
    return in;
}

int xchg_online_learned(xchg_context *ctx, const xchg_select_input *exact, xchg_choice *out)
{
    const xchg_online *o = ctx->online;
    if (!o || exact->bytes < 0 || exact->coll == XCHG_NEIGHBOR_ALLTOALLV) return 0;
    xchg_select_input in = signature_of(exact);
    int i = xchg_online_find(o, &in);
    if (i < 0 || o->sig[i].explorations == 0) return 0;
    *out = o->sig[i].cand[o->sig[i].winner];
    return 1;
}

int xchg_online_choose(xchg_context *ctx, const xchg_select_input *exact, int persistent,
                       const xchg_choice *model, xchg_choice *out)
{
    int on, rc = xchg_online_enabled(&on);
    *out = *model;
    if (ctx->online) {
        ctx->online->fast_ready[exact->coll] = FAST_NONE;
        ctx->online->measure_now = 0;
        /* a blocking call: the calls the fast paths took count first
         * (online_state.h); this collective's path is armed again after the
         * call (note_call). A persistent or nonblocking one reads no counts
         * and may run in a task on another thread: it leaves them alone. */
        for (int c = 0; c < XCHG_NUM_COLL && !persistent; c++)
            xchg_online_fast_release(ctx->online, (xchg_coll)c, c == (int)exact->coll);
    }
    xchg_online *o = on && rc == MPI_SUCCESS ? xchg_online_state(ctx) : NULL;
    if (!o || exact->bytes < 0 || exact->coll == XCHG_NEIGHBOR_ALLTOALLV) return rc;
    if (persistent) { /* a learned single-round winner, else the MPI's own (online.h) */
        xchg_choice learned;
        if (xchg_online_learned(ctx, exact, &learned) && learned.algo->post) *out = learned;
        else rc = xchg_choice_library(ctx, exact->coll, out);
        return rc;
    }
    xchg_select_input in = signature_of(exact);
    int i = xchg_online_find(o, &in);
    if (i < 0 && (i = insert(o, &in)) < 0) return MPI_SUCCESS;
    xchg_online_signature *s = &o->sig[i];
    unsigned long n = s->calls++;
    s->last_use = ++ctx->online_clock;
    if (s->state == SIG_SEEN && n + 1 > XCHG_ONLINE_REPEATS) {
        rc = xchg_online_pick_candidates(ctx, &s->in, model, s->cand, &s->ncand);
        if (rc != MPI_SUCCESS || (rc = xchg_online_start_exploring(s, 0)) != MPI_SUCCESS)
            return rc;
    } else if (s->state == SIG_DECIDED && n >= s->reexplore_at && s->run_left == 0) {
        if ((rc = xchg_online_start_exploring(s, 1)) != MPI_SUCCESS) return rc;
    } else if (confirmation_due(s, n)) {
        if ((rc = xchg_online_start_confirming(s)) != MPI_SUCCESS) return rc;
    }
    if (s->state == SIG_SEEN) return MPI_SUCCESS;
    int k = -1, timed = 1;
    if (s->run_left > 0) { /* a timed run goes on (ahead of any schedule) */
        k = s->run_cand;
    } else if (s->state == SIG_EXPLORING) {
        k = s->next;
        timed = !start_run(s, k);
    } else if (n >= s->next_check) { /* a drift sample of the winner: the next call */
        s->next_check = n + s->check_every;
        s->run_cand = s->winner;
        s->run_left = 1;
        s->run_n = 0;
        timed = 0;
    }
    *out = s->cand[k >= 0 ? k : s->winner];
    if (k >= 0 && timed) {
        o->measure_now = 1;
        o->measuring_sig = i;
        o->measuring_id = s->id;
        o->measuring_cand = k;
        o->measuring_run = s->run_left > 0;
    }
    if (s->run_left > 0 || k < 0) o->fast_ready[exact->coll] = i; /* note_call may arm it */
    return MPI_SUCCESS;
}

void xchg_online_counts(const xchg_context *ctx, int *decided, int *exploring,
                        unsigned long *explored_calls)
{
    *decided = *exploring = 0;
    *explored_calls = 0;
    const xchg_online *o = ctx->online;
    for (int i = 0; o && i < o->count; i++) {
        *decided += o->sig[i].state == SIG_DECIDED;
        *exploring += o->sig[i].state == SIG_EXPLORING;
        *explored_calls += o->sig[i].explored_calls +
                           (o->sig[i].state == SIG_EXPLORING ? (unsigned long)o->sig[i].recorded : 0);
    }
}

void xchg_online_explore_stats(const xchg_context *ctx, int *candidates, int *dropped,
                               int *samples, int *switches)
{
    *candidates = *dropped = *samples = *switches = 0;
    const xchg_online *o = ctx->online;
    for (int i = 0; o && i < o->count; i++) {
        *switches += o->sig[i].switch_calls;
        for (int c = 0; c < o->sig[i].ncand; c++) {
            (*candidates)++;
            *dropped += o->sig[i].dropped[c];
            *samples += o->sig[i].nsamples[c];
        }
    }
}
