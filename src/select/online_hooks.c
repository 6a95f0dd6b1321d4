/*
 * Online selection's test hooks (online.c; tests/online.c). Tests only:
 *
 * XCHG_TEST_ONLINE_TIMES replaces each rank's measured time before the
 * agreement: "R:ALGO=US,ALGO=US;R:..." gives rank R of the communicator
 * (R "*": every rank not listed) the time US microseconds for candidates of
 * algorithm ALGO ("*": any other algorithm); a time not given stays
 * measured; "US-US2" gives every third timed call of that algorithm on
 * this rank US2 instead (a spread, as real times have, that leaves the
 * median of any 5 or more consecutive samples at US), "US-US2/N" every
 * N-th (a spread that falls in chosen visits); "US^US0" gives the
 * first one US0 (a warm-up call; the calls are counted from the last
 * change of the variable's value, so a test gives a new value before the
 * calls of a new communicator); "fail" reports the call as failed on this
 * rank (online_record.c: the candidate leaves the race). It is read at
 * every measured call, so a test may change it while running, and force
 * times under which the ranks would each prefer another winner: the
 * decisions must follow the agreed (slowest rank's) times only.
 *
 * XCHG_TEST_ONLINE_CHECK=N times one decided call in N instead of
 * CHECK_EVERY (or 10 ms of calls), so a drift shows after fewer calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "online_state.h"

#define NOT_GIVEN (-1.0)
#define FAILS (-2.0) /* "fail" */

/* The forced time of XCHG_TEST_ONLINE_TIMES for this rank and algorithm, in
 * seconds; `measured` when none is given. */
double xchg_online_test_time(const xchg_context *ctx, const char *algo, double measured)
{
    /* US-US2 counts per algorithm (round robin over the candidates would
     * give each one the same place in the cycle otherwise); every rank
     * times the same calls, so every rank counts alike */
    static struct {
        const char *algo; /* a registry name: lives as long as the library */
        unsigned long calls;
    } timed[32];
    static char counted_for[1024]; /* the value the counts are of */
    const char *spec = getenv("XCHG_TEST_ONLINE_TIMES");
    if (!spec || !*spec) return measured;
    if (strncmp(spec, counted_for, sizeof counted_for - 1) != 0) { /* a new value */
        memset(timed, 0, sizeof timed);
        snprintf(counted_for, sizeof counted_for, "%s", spec);
    }
    unsigned long timed_calls = 0;
    for (int i = 0; i < 32; i++)
        if (!timed[i].algo || timed[i].algo == algo) {
            timed[i].algo = algo;
            timed_calls = ++timed[i].calls;
            break;
        }
    double any_rank = NOT_GIVEN, own_rank = NOT_GIVEN;
    int own_found = 0;
    for (const char *group = spec; group && *group; group = strchr(group, ';')) {
        if (*group == ';') group++;
        int for_all = group[0] == '*';
        char *end;
        long r = for_all ? -1 : strtol(group, &end, 10);
        const char *colon = strchr(group, ':'), *stop = strchr(group, ';');
        if (!colon || (stop && colon > stop)) continue;
        if (!for_all && r != ctx->rank) continue;
        double given = NOT_GIVEN, other = NOT_GIVEN;
        for (const char *item = colon + 1; item && *item && item != stop;) {
            const char *eq = strchr(item, '=');
            if (!eq || (stop && eq > stop)) break;
            size_t len = (size_t)(eq - item);
            char *parsed;
            double us = strtod(eq + 1, &parsed);
            const char *after = parsed;
            if (strncmp(eq + 1, "fail", 4) == 0) {
                us = FAILS;
                after = eq + 5;
            }
            if (*after == '-') { /* US-US2, US-US2/N */
                char *every_at;
                double us2 = strtod(after + 1, &every_at);
                long every = *every_at == '/' ? strtol(every_at + 1, NULL, 10) : 3;
                if (every > 0 && timed_calls % (unsigned long)every == 0) us = us2;
            }
            if (*after == '^' && timed_calls == 1) us = strtod(after + 1, NULL);     /* US^US0 */
            if (len == 1 && item[0] == '*') other = us;
            else if (len == strlen(algo) && strncmp(item, algo, len) == 0) given = us;
            item = strchr(eq, ',');
            if (item && (!stop || item < stop)) item++;
            else break;
        }
        double t = given != NOT_GIVEN ? given : other;
        if (for_all) any_rank = t;
        else {
            own_rank = t;
            own_found = 1;
        }
    }
    double us = own_found ? own_rank : any_rank;
    if (us == FAILS) return XCHG_ONLINE_NO_TIME;
    return us >= 0 ? us * 1e-6 : measured;
}

/* A timed call costs a barrier and an agreement (an allreduce of one
 * int64, or a few more elements in alltoallv's agreement of sizes): on this
 * project's 2-core machine 4-6.5 us at 4 ranks and 18-19 us at 8, as much
 * as two 16 B alltoalls. One in every CHECK_SECONDS of calls, and at most
 * one in CHECK_EVERY, it costs at most about 0.3% of the calls' time there
 * (with 2 ms, the value before, 1.7% at 8 ranks and 16 B: a check every
 * 132 calls of 9 us; docs/results/selection/online/goal/).
 * XCHG_TEST_ONLINE_CHECK (tests only) sets the interval. */
unsigned long xchg_online_check_every(double winner_seconds)
{
    const char *env = getenv("XCHG_TEST_ONLINE_CHECK");
    long n = env && *env ? strtol(env, NULL, 10) : 0;
    if (n > 0) return (unsigned long)n;
    double calls = winner_seconds > 0 ? XCHG_ONLINE_CHECK_SECONDS / winner_seconds : 0;
    if (calls <= XCHG_ONLINE_CHECK_EVERY) return XCHG_ONLINE_CHECK_EVERY;
    return calls >= XCHG_ONLINE_CHECK_MAX ? XCHG_ONLINE_CHECK_MAX : (unsigned long)calls;
}
