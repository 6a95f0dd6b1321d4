/*
 * xchg-online: online selection (src/select/online.c) explores, ends, and
 * keeps the same winner on every rank; drops clear losers early (on agreed
 * times); keeps mpi unless another is faster by the margin, and checks a
 * winner again when it takes longer than mpi did; switches when the
 * winner's time drifts; XCHG_ONLINE=0 leaves the model's choice; an invalid XCHG_ONLINE is
 * an MPI error naming it; learned choices persist (XCHG_TUNING_OUT, read
 * back by XCHG_TUNING_FILE in a second run).
 *
 * Times are forced per rank and per candidate by the test hook
 * XCHG_TEST_ONLINE_TIMES (online.c), including times where ranks would each
 * prefer another winner: the decision must follow the agreed (slowest
 * rank's) times only. Every call's result is compared byte for byte with the
 * MPI library's own collective (PMPI), and the algorithm it used must be the
 * same string on every rank.
 *   usage: mpirun -n P xchg-online [--phase=all|write|read]
 *   write: decide alltoall, alltoallv, allgather, alltoallw and allgatherv
 *          at 64 B blocks (forced for mpi) and end; run with XCHG_TUNING_OUT=FILE.
 *   read:  with XCHG_TUNING_FILE=FILE, those calls must be decided for mpi
 *          from the first call, with no exploration.
 * Prints "N passed, N failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "select/online.h"
#include "xchg.h"

#define NAME_LEN 256
#define CHECK_MPI(call)                                                         \
    do {                                                                        \
        if ((call) != MPI_SUCCESS) {                                            \
            fprintf(stderr, "FAIL online: %s failed\n", #call);                 \
            MPI_Abort(MPI_COMM_WORLD, 1);                                       \
        }                                                                       \
    } while (0)

static int passed, failed, world_rank;
static int dense; /* alltoallv without empty blocks (a sparse one is not persisted) */

static void check(int ok, const char *what, const char *detail)
{
    int all_ok;
    CHECK_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    if (all_ok) {
        passed++;
    } else {
        failed++;
        if (!ok) printf("FAIL online rank %d: %s (%s)\n", world_rank, what, detail);
    }
}

/* The algorithm the last call of `coll` used, checked the same on every rank. */
static void used(MPI_Comm comm, const char *coll, const char *what, char *name)
{
    int n;
    CHECK_MPI(MPI_Comm_size(comm, &n));
    char mine[NAME_LEN] = {0}, *all = malloc((size_t)n * NAME_LEN);
    XCHG_Comm_get_algorithm(comm, coll, 1, 0, mine, NAME_LEN);
    CHECK_MPI(MPI_Allgather(mine, NAME_LEN, MPI_CHAR, all, NAME_LEN, MPI_CHAR, comm));
    int same = mine[0] != '\0';
    for (int r = 0; r < n; r++) same &= strcmp(all + (size_t)r * NAME_LEN, mine) == 0;
    char detail[2 * NAME_LEN + 64];
    snprintf(detail, sizeof detail, "%s used %s here, %s on rank 0", coll, mine, all);
    check(same, what, detail);
    if (name) memcpy(name, mine, NAME_LEN);
    free(all);
}

/* One call of `coll` with blocks of `count` ints, checked against PMPI.
 * alltoallv, alltoallw: rank-dependent counts up to count, a zero among them
 * unless `dense`; alltoallw's type per peer is MPI_INT or a pair of ints by
 * the parity of the two ranks (so blocks of the odd pairs are twice as
 * large), byte displacements. allgatherv: contributions count - p % 3 ints
 * (rank 3, 7, ... none unless `dense`), a gap of one int between blocks. */
static int one_call(MPI_Comm comm, const char *coll, int count, int call, const char *what)
{
    int rank, P;
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    CHECK_MPI(MPI_Comm_size(comm, &P));
    int *sc = malloc(4 * (size_t)P * sizeof(int)), *sd = sc + P, *rc = sd + P, *rd = rc + P;
    MPI_Datatype *st = malloc(2 * (size_t)P * sizeof(MPI_Datatype)), *rt = st + P, pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    int v = strcmp(coll, "alltoallv") == 0, w = strcmp(coll, "alltoallw") == 0,
        g = strcmp(coll, "allgather") == 0, gv = strcmp(coll, "allgatherv") == 0;
    for (int p = 0, so = 0, ro = 0; p < P; p++) {
        /* the same counts at every call: one signature (sizes bucketed) */
        int per_peer = v || w, width = w && (rank + p) % 2 ? 2 : 1;
        sc[p] = per_peer ? (rank + p) % 3 == 0 && !dense ? 0 : count - (rank + 2 * p) % 3 : count;
        rc[p] = per_peer ? (p + rank) % 3 == 0 && !dense ? 0 : count - (p + 2 * rank) % 3 : count;
        if (gv) rc[p] = p % 4 == 3 && !dense ? 0 : count - p % 3;
        st[p] = rt[p] = width == 2 ? pair : MPI_INT;
        sd[p] = w ? so * (int)sizeof(int) : so, rd[p] = w ? ro * (int)sizeof(int) : ro;
        so += sc[p] * width, ro += rc[p] * width + gv;
    }
    size_t sn = 2 * (size_t)P * (size_t)count + (size_t)P, rn = sn;
    int *send = malloc(sn * sizeof(int)), *got = malloc(rn * sizeof(int)),
        *want = malloc(rn * sizeof(int));
    for (size_t i = 0; i < sn; i++) send[i] = (int)(rank * 100003 + call * 17 + (int)i);
    memset(got, 0xab, rn * sizeof(int));
    memset(want, 0xab, rn * sizeof(int));
    int err;
    if (v) {
        err = XCHG_Alltoallv(send, sc, sd, MPI_INT, got, rc, rd, MPI_INT, comm);
        CHECK_MPI(PMPI_Alltoallv(send, sc, sd, MPI_INT, want, rc, rd, MPI_INT, comm));
    } else if (w) {
        err = XCHG_Alltoallw(send, sc, sd, st, got, rc, rd, rt, comm);
        CHECK_MPI(PMPI_Alltoallw(send, sc, sd, st, want, rc, rd, rt, comm));
    } else if (g) {
        err = XCHG_Allgather(send, count, MPI_INT, got, count, MPI_INT, comm);
        CHECK_MPI(PMPI_Allgather(send, count, MPI_INT, want, count, MPI_INT, comm));
    } else if (gv) {
        err = XCHG_Allgatherv(send, rc[rank], MPI_INT, got, rc, rd, MPI_INT, comm);
        CHECK_MPI(PMPI_Allgatherv(send, rc[rank], MPI_INT, want, rc, rd, MPI_INT, comm));
    } else {
        err = XCHG_Alltoall(send, count, MPI_INT, got, count, MPI_INT, comm);
        CHECK_MPI(PMPI_Alltoall(send, count, MPI_INT, want, count, MPI_INT, comm));
    }
    int ok = err == MPI_SUCCESS && memcmp(got, want, rn * sizeof(int)) == 0;
    if (!ok) check(0, what, err == MPI_SUCCESS ? "result differs from PMPI" : XCHG_Last_error());
    CHECK_MPI(MPI_Type_free(&pair));
    free(sc), free(st), free(send), free(got), free(want);
    return ok;
}

/* Enough calls to decide a signature: 2 on the model, then up to 6
 * candidates of one warm-up and 5 samples each (of one call at the forced
 * times of at least 20 us used here), one more whose agreement carries
 * alltoallv's last time. */
#define EXPLORE_CALLS (2 + 6 * (1 + 5) + 1)

/* `calls` calls, each checked; the result of all of them as one check. */
static void calls_of(MPI_Comm comm, const char *coll, int count, int calls, const char *what)
{
    int ok = 1;
    for (int c = 0; c < calls; c++) ok &= one_call(comm, coll, count, c, what);
    check(ok, what, "a call differed from PMPI");
}

static void counts_of(MPI_Comm comm, int *decided, int *exploring, unsigned long *explored)
{
    xchg_context *ctx;
    CHECK_MPI(xchg_context_get(comm, &ctx));
    xchg_online_counts(ctx, decided, exploring, explored);
}

/* What the last explorations on comm did (xchg_online_explore_stats). */
typedef struct explore_stats {
    int candidates, dropped, samples, switches;
} explore_stats;

static explore_stats stats_of(MPI_Comm comm)
{
    xchg_context *ctx;
    explore_stats st;
    CHECK_MPI(xchg_context_get(comm, &ctx));
    xchg_online_explore_stats(ctx, &st.candidates, &st.dropped, &st.samples, &st.switches);
    return st;
}

static const char *const colls[] = {"alltoall", "alltoallv", "allgather", "alltoallw",
                                    "allgatherv"};
#define NCOLLS 5

/* Exploration ends, on the agreed winner, even where ranks disagree. */
static void exploration(void)
{
    char what[256], name[NAME_LEN];
    for (int c = 0; c < NCOLLS; c++) {
        MPI_Comm comm;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        /* rank 0 prefers any xchg algorithm, rank 1 mpi; the slowest rank's
         * times: mpi 1000 us, the others 2000 us -> mpi */
        setenv("XCHG_TEST_ONLINE_TIMES", "0:mpi=1000,*=100;1:mpi=100,*=2000;*:mpi=200,*=200", 1);
        snprintf(what, sizeof what, "%s: exploring, ranks disagree locally", colls[c]);
        calls_of(comm, colls[c], 16, EXPLORE_CALLS, what);
        int decided, exploring;
        unsigned long explored;
        counts_of(comm, &decided, &exploring, &explored);
        char detail[128];
        snprintf(detail, sizeof detail, "%d decided, %d exploring, %lu calls explored", decided,
                 exploring, explored);
        check(decided == 1 && exploring == 0 && explored >= 6 && explored <= 36,
              "exploration happened and ended", detail);
        used(comm, colls[c], what, name);
        int P, want_mpi; /* P = 1: rank 0's own times are the slowest rank's */
        CHECK_MPI(MPI_Comm_size(comm, &P));
        want_mpi = P > 1;
        check((strcmp(name, "mpi") == 0) == want_mpi, "the slowest rank's times decide", name);
        /* a persistent request of the decided signature takes the winner
         * (alltoallv, alltoallw: a persistent init agrees sizes of its own) */
        if (c == 0 || c == 2 || c == 4) {
            size_t n = (size_t)P * 17;
            int *send = calloc(n, sizeof(int)), *got = calloc(n, sizeof(int)),
                *want = calloc(n, sizeof(int)), *counts = malloc(2 * (size_t)P * sizeof(int)),
                *displs = counts + P;
            for (size_t i = 0; i < n; i++) send[i] = world_rank * 1000 + (int)i;
            for (int p = 0, off = 0; p < P; p++) { /* allgatherv: as one_call's */
                counts[p] = p % 4 == 3 && !dense ? 0 : 16 - p % 3;
                displs[p] = off;
                off += counts[p] + 1;
            }
            int rank;
            CHECK_MPI(MPI_Comm_rank(comm, &rank));
            XCHG_Request req;
            int err = c == 0   ? XCHG_Alltoall_init(send, 16, MPI_INT, got, 16, MPI_INT, comm,
                                                    MPI_INFO_NULL, &req)
                      : c == 2 ? XCHG_Allgather_init(send, 16, MPI_INT, got, 16, MPI_INT, comm,
                                                     MPI_INFO_NULL, &req)
                               : XCHG_Allgatherv_init(send, counts[rank], MPI_INT, got, counts,
                                                      displs, MPI_INT, comm, MPI_INFO_NULL, &req);
            if (err == MPI_SUCCESS) err = XCHG_Start(&req);
            if (err == MPI_SUCCESS) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
            if (c == 0) CHECK_MPI(PMPI_Alltoall(send, 16, MPI_INT, want, 16, MPI_INT, comm));
            else if (c == 2) CHECK_MPI(PMPI_Allgather(send, 16, MPI_INT, want, 16, MPI_INT, comm));
            else CHECK_MPI(PMPI_Allgatherv(send, counts[rank], MPI_INT, want, counts, displs,
                                           MPI_INT, comm));
            check(err == MPI_SUCCESS && memcmp(got, want, n * sizeof(int)) == 0,
                  "persistent request of a decided signature", XCHG_Last_error());
            used(comm, colls[c], "persistent", name);
            check((strcmp(name, "mpi") == 0) == want_mpi, "a persistent init takes the learned winner",
                  name);
            if (err == MPI_SUCCESS) XCHG_Request_free(&req);
            free(send), free(got), free(want), free(counts);
        }
        /* the other way round: mpi slowest on rank 0 -> an xchg algorithm (on
         * a new communicator: alltoallv's agreement would see the new sizes
         * only at its next scheduled call, 64) */
        CHECK_MPI(MPI_Comm_free(&comm));
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        setenv("XCHG_TEST_ONLINE_TIMES", "0:mpi=3000,*=100;*:mpi=100,*=300", 1);
        snprintf(what, sizeof what, "%s: exploring, mpi slowest on rank 0", colls[c]);
        calls_of(comm, colls[c], 100, EXPLORE_CALLS, what);
        used(comm, colls[c], what, name);
        check(name[0] && strcmp(name, "mpi") != 0, "the slowest rank's times decide: not mpi",
              name);
        unsetenv("XCHG_TEST_ONLINE_TIMES");
        CHECK_MPI(MPI_Comm_free(&comm));
    }
}

/* The same value on every rank (the state of online selection must be). */
static void same_everywhere(long v, const char *what)
{
    long lo, hi;
    CHECK_MPI(MPI_Allreduce(&v, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(&v, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
    char detail[128];
    snprintf(detail, sizeof detail, "%ld here, %ld..%ld over the ranks", v, lo, hi);
    check(lo == hi, what, detail);
}

/* Clear losers leave the race early, on agreed times: mpi 10x slower than
 * the others on the slowest rank (but fastest on rank 0 alone) is dropped
 * after its warm-up and one sample; the others 1.5x slower than mpi after
 * three (mpi, the incumbent, only ever by the 2x rule). The calls explored
 * must say so exactly, and be the same on every rank. */
static void early_drops(void)
{
    static const struct {
        const char *times;
        int samples_of_loser; /* the samples a loser takes before it is dropped */
    } cases[] = {{"0:mpi=100,*=1000;*:mpi=10000,*=1000", 1}, {"*:mpi=1000,*=1500", 3}};
    char what[256], name[NAME_LEN];
    int P;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    for (int c = 0; c < NCOLLS; c++)
        for (int k = 0; k < 2; k++) {
            MPI_Comm comm;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            setenv("XCHG_TEST_ONLINE_TIMES", cases[k].times, 1);
            snprintf(what, sizeof what, "%s: clear loser %s", colls[c], cases[k].times);
            calls_of(comm, colls[c], 16, EXPLORE_CALLS, what);
            int decided, exploring;
            unsigned long explored;
            counts_of(comm, &decided, &exploring, &explored);
            explore_stats st = stats_of(comm);
            int cands = st.candidates, dropped = st.dropped;
            /* P = 1: rank 0's times are the slowest rank's; in case 0 every
             * xchg candidate is 10x mpi there, dropped after one sample */
            int solo = P == 1 && k == 0;
            int want_dropped = solo || k == 1 ? cands - 1 : 1;
            int want = cands + 5 * (cands - want_dropped) +
                       want_dropped * (solo ? 1 : cases[k].samples_of_loser);
            char detail[160];
            snprintf(detail, sizeof detail, "%d candidates, %d dropped, %lu calls explored (want %d "
                     "dropped, %d calls)", cands, dropped, explored, want_dropped, want);
            check(decided == 1 && exploring == 0 && cands >= 2 && dropped == want_dropped &&
                  explored == (unsigned long)want, what, detail);
            same_everywhere((long)explored, "every rank explored as many calls");
            used(comm, colls[c], what, name);
            check(solo || k == 1 ? strcmp(name, "mpi") == 0 : name[0] && strcmp(name, "mpi") != 0,
                  "a dropped candidate does not win", name);
            unsetenv("XCHG_TEST_ONLINE_TIMES");
            CHECK_MPI(MPI_Comm_free(&comm));
        }
}

/* A signature decided for mpi: the next calls of the same shape go the fast
 * path straight to the library (online_fast.c), checked against PMPI like
 * every call; one of another size goes the normal path. Not alltoallw and
 * allgatherv on one rank (their `mpi` works around MPI bugs there). Decided
 * for another algorithm (or chosen by XCHG_Comm_set_algorithm): alltoall,
 * alltoallv and allgather take the fast path on the kept arguments, with
 * every call's new buffers; alltoallv with other counts goes the normal
 * path; alltoallw and allgatherv never take it. */
static void fast_path(void)
{
    char what[256], detail[160];
    int P;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    for (int kind = 0; kind < 3; kind++) /* mpi decided, another decided, another set */
        for (int c = 0; c < NCOLLS; c++) {
            MPI_Comm comm;
            xchg_context *ctx;
            xchg_coll coll;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            CHECK_MPI(xchg_context_get(comm, &ctx));
            CHECK_MPI(xchg_coll_from_name(colls[c], &coll));
            if (kind < 2) setenv("XCHG_TEST_ONLINE_TIMES", kind ? "*:mpi=2000,*=100" : "*:mpi=100,*=2000", 1);
            else CHECK_MPI(XCHG_Comm_set_algorithm(comm, colls[c],
                                                   c == 2 || c == 4 ? "ring" : "pairwise"));
            snprintf(what, sizeof what, "%s: %s, then the fast path", colls[c],
                     kind == 0 ? "decided for mpi" : kind == 1 ? "decided for another" : "set");
            calls_of(comm, colls[c], 16, EXPLORE_CALLS, what);
            unsigned long before = xchg_online_fast_calls(ctx, coll);
            calls_of(comm, colls[c], 16, 20, what);
            unsigned long fast = xchg_online_fast_calls(ctx, coll) - before;
            int want = kind == 0 ? P > 1 || c < 3 : c < 3;
            snprintf(detail, sizeof detail, "%lu of 20 calls took the fast path", fast);
            check(want ? fast >= 10 : fast == 0, what, detail);
            /* another shape (alltoallv's counts: all 0 on one rank, whatever `count`) */
            if (c == 0 || c == 2 || c == 4 || (kind > 0 && c == 1 && P > 1)) {
                before = xchg_online_fast_calls(ctx, coll);
                snprintf(what, sizeof what, "%s: another shape goes the normal path", colls[c]);
                calls_of(comm, colls[c], c == 1 ? 15 : 100, 1, what);
                fast = xchg_online_fast_calls(ctx, coll) - before;
                snprintf(detail, sizeof detail, "%lu calls took the fast path", fast);
                check(fast == 0, what, detail);
            }
            unsetenv("XCHG_TEST_ONLINE_TIMES");
            CHECK_MPI(MPI_Comm_free(&comm));
        }
}

/* alltoallv and alltoallw interleaved on one communicator: each carries its
 * measured time into its own next agreement, so both explore to the end and
 * decide from their own times (mpi for alltoallv, not mpi for alltoallw). */
static void interleaved(void)
{
    MPI_Comm comm;
    char name[NAME_LEN];
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    int ok = 1;
    for (int call = 0; call < 30; call++) {
        /* the forced times name the collective through the test hook's
         * algorithm names: mpi fastest while alltoallv runs, slowest while
         * alltoallw runs */
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=100,*=2000", 1);
        ok &= one_call(comm, "alltoallv", 16, call, "interleaved alltoallv");
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=5000,*=2000", 1);
        ok &= one_call(comm, "alltoallw", 16, call, "interleaved alltoallw");
    }
    unsetenv("XCHG_TEST_ONLINE_TIMES");
    check(ok, "alltoallv and alltoallw interleaved", "a call differed from PMPI");
    int decided, exploring;
    unsigned long explored;
    counts_of(comm, &decided, &exploring, &explored);
    char detail[128];
    snprintf(detail, sizeof detail, "%d decided, %d exploring", decided, exploring);
    check(decided == 2 && exploring == 0, "interleaved: both signatures decided", detail);
    used(comm, "alltoallv", "interleaved alltoallv", name);
    check(strcmp(name, "mpi") == 0, "interleaved: alltoallv decided by its own times", name);
    used(comm, "alltoallw", "interleaved alltoallw", name);
    check(name[0] && strcmp(name, "mpi") != 0, "interleaved: alltoallw decided by its own times",
          name);
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* The winner's forced time drifts: the signature explores again and switches. */
static void drift(void)
{
    char what[256], name[NAME_LEN];
    setenv("XCHG_TEST_ONLINE_CHECK", "16", 1); /* one call in 16 timed, not 128 */
    for (int c = 0; c < NCOLLS; c++) {
        MPI_Comm comm;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=1000,*=2000", 1);
        snprintf(what, sizeof what, "%s: before the drift", colls[c]);
        calls_of(comm, colls[c], 8, EXPLORE_CALLS + 3 * 16 + 10, what); /* decided, baseline set */
        used(comm, colls[c], what, name);
        check(strcmp(name, "mpi") == 0, "decided for mpi before the drift", name);
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=10000,*=2000", 1);
        snprintf(what, sizeof what, "%s: after the drift", colls[c]);
        calls_of(comm, colls[c], 8, 3 * 16 + EXPLORE_CALLS, what);
        used(comm, colls[c], what, name);
        check(name[0] && strcmp(name, "mpi") != 0, "switched away from mpi after its drift", name);
        unsetenv("XCHG_TEST_ONLINE_TIMES");
        CHECK_MPI(MPI_Comm_free(&comm));
    }
    unsetenv("XCHG_TEST_ONLINE_CHECK");
}

/* mpi is the incumbent (online_decide.c, the margin): another candidate
 * displaces it only when faster by more than their samples' spread, at
 * least 1% and at most 5%. Steady times: 0.5% faster does not, 3% does.
 * Times that spread by 6% (every third call 6% slower): 3% and 4% faster
 * do not, 20% does. And a
 * decided winner that later takes longer than mpi did (below the 50%
 * drift) is checked again and gives way to mpi. On one rank as on many:
 * the forced times are every rank's. */
static void margin(void)
{
    static const struct {
        const char *times;
        int want_mpi;
    } cases[] = {{"*:mpi=1000,*=995", 1},           {"*:mpi=1000,*=970", 0},
                 {"*:mpi=1000-1060,*=970-1030", 1}, {"*:mpi=1040-1100,*=1000-1060", 1},
                 {"*:mpi=1000-1060,*=800-850", 0},  {"*:mpi=1000,*=1000", 1}};
    char what[256], name[NAME_LEN];
    for (int c = 0; c < NCOLLS; c++)
        for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++) {
            MPI_Comm comm;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            setenv("XCHG_TEST_ONLINE_TIMES", cases[k].times, 1);
            snprintf(what, sizeof what, "%s: margin, %s", colls[c], cases[k].times);
            calls_of(comm, colls[c], 16, EXPLORE_CALLS, what);
            int decided, exploring;
            unsigned long explored;
            counts_of(comm, &decided, &exploring, &explored);
            check(decided == 1 && exploring == 0, what, "decided");
            used(comm, colls[c], what, name);
            check((strcmp(name, "mpi") == 0) == cases[k].want_mpi,
                  cases[k].want_mpi ? "within the margin: mpi stays" : "beyond the margin: not mpi",
                  name);
            unsetenv("XCHG_TEST_ONLINE_TIMES");
            CHECK_MPI(MPI_Comm_free(&comm));
        }
    /* the re-check: decided for another (800 us against mpi's 1000), which
     * then takes 1030 us (within the margin of mpi's: kept, nothing
     * explored), then 1100 us (under 1.5x its own 800: no drift), over
     * mpi's by more than the margin */
    setenv("XCHG_TEST_ONLINE_CHECK", "16", 1);
    for (int c = 0; c < NCOLLS; c++) {
        MPI_Comm comm;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=1000,*=800", 1);
        snprintf(what, sizeof what, "%s: decided against mpi", colls[c]);
        calls_of(comm, colls[c], 8, EXPLORE_CALLS + 3 * 16 + 10, what);
        used(comm, colls[c], what, name);
        check(name[0] && strcmp(name, "mpi") != 0, "decided for another before the re-check", name);
        int decided, exploring;
        unsigned long before, after;
        counts_of(comm, &decided, &exploring, &before);
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=1000,*=1030", 1);
        snprintf(what, sizeof what, "%s: the winner now within the margin of mpi", colls[c]);
        calls_of(comm, colls[c], 8, 4 * 16, what);
        counts_of(comm, &decided, &exploring, &after);
        used(comm, colls[c], what, name);
        check(name[0] && strcmp(name, "mpi") != 0 && after == before && exploring == 0,
              "within the margin: kept, not explored again", name);
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=1000,*=1100", 1);
        snprintf(what, sizeof what, "%s: the winner now slower than mpi was", colls[c]);
        calls_of(comm, colls[c], 8, 3 * 16 + EXPLORE_CALLS, what);
        used(comm, colls[c], what, name);
        check(strcmp(name, "mpi") == 0, "re-checked: back to mpi", name);
        unsetenv("XCHG_TEST_ONLINE_TIMES");
        CHECK_MPI(MPI_Comm_free(&comm));
    }
    unsetenv("XCHG_TEST_ONLINE_CHECK");
}

/* Short calls take more samples while their times spread: as many as make
 * 5 x 20 us at the fastest warm-up call's speed, 40 at most (online.c), in
 * visits of wanted / 5 consecutive calls after one that switches to the
 * candidate and is not a sample. At forced times of 2-2.2 us (every third
 * 2.2: a 10% spread, over the 5% margin) mpi takes 40 samples; at a steady 2 us
 * it settles at 5; the others (3 us, over 1.25x) leave after 3 to 8 (a
 * visit may run before mpi has 3). At 1000-1100 us (5 x 20 us take one
 * call) mpi takes 5, the others 3, one call at a time, no switching calls.
 * Every rank counts the same calls; the decision follows the forced times. */
static void short_calls(void)
{
    char what[256], name[NAME_LEN];
    static const struct {
        const char *times;
        int mpi_samples, visit; /* visit: samples per visit */
    } cases[] = {{"*:mpi=2-2.2,*=3-3.2", 40, 8}, {"*:mpi=2,*=3", 5, 8},
                 {"*:mpi=1000-1100,*=2000", 5, 1}};
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 2; c++) { /* alltoall; alltoallv (its time agreed a call later) */
            MPI_Comm comm;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            setenv("XCHG_TEST_ONLINE_TIMES", cases[k].times, 1);
            snprintf(what, sizeof what, "%s: %d samples of mpi", colls[c], cases[k].mpi_samples);
            calls_of(comm, colls[c], 16, 2 + 6 * (1 + 40 + 5) + 1, what);
            int decided, exploring;
            unsigned long explored;
            counts_of(comm, &decided, &exploring, &explored);
            explore_stats st = stats_of(comm);
            int candidates = st.candidates, dropped = st.dropped, samples = st.samples,
                switches = st.switches;
            int others = candidates - 1, v = cases[k].visit;
            char detail[160];
            snprintf(detail, sizeof detail, "%lu calls explored: %d candidates, %d samples, %d "
                     "switching", explored, candidates, samples, switches);
            int mine = cases[k].mpi_samples; /* mpi's samples, then switching calls: a visit's */
            check(decided == 1 && dropped == others && samples >= mine + 3 * others &&
                      samples <= mine + (v > 1 ? v : 3) * others &&
                      (v == 1 ? switches == 0 : switches >= (mine + v - 1) / v + others) &&
                      explored == (unsigned long)(candidates + samples + switches),
                  what, detail);
            same_everywhere((long)explored, "the same calls explored on every rank");
            used(comm, colls[c], what, name);
            check(strcmp(name, "mpi") == 0, "the forced times decide: mpi", name);
            unsetenv("XCHG_TEST_ONLINE_TIMES");
            CHECK_MPI(MPI_Comm_free(&comm));
        }
}

/* XCHG_ONLINE=0: the model's choice, nothing explored. XCHG_ONLINE=bogus:
 * an error naming the variable, the receive buffer untouched. */
static void switched_off(void)
{
    char what[256], name[NAME_LEN], model[NAME_LEN];
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    setenv("XCHG_ONLINE", "0", 1);
    setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=100,*=2000", 1);
    for (int c = 0; c < NCOLLS; c++) {
        snprintf(what, sizeof what, "%s: XCHG_ONLINE=0", colls[c]);
        calls_of(comm, colls[c], 16, EXPLORE_CALLS, what);
        used(comm, colls[c], what, name);
        XCHG_Comm_get_algorithm(comm, colls[c], 0, 16 * (long long)sizeof(int), model, NAME_LEN);
        check(c == 1 || c >= 3 || strcmp(name, model) == 0, "XCHG_ONLINE=0: the model's choice",
              name);
        check(strcmp(name, "mpi") != 0, "XCHG_ONLINE=0: not the forced mpi", name);
    }
    int decided, exploring;
    unsigned long explored;
    counts_of(comm, &decided, &exploring, &explored);
    check(decided == 0 && exploring == 0 && explored == 0, "XCHG_ONLINE=0 explores nothing", "");
    unsetenv("XCHG_TEST_ONLINE_TIMES");
    setenv("XCHG_ONLINE", "bogus", 1);
    int P;
    CHECK_MPI(MPI_Comm_size(comm, &P));
    int *send = calloc((size_t)P, sizeof(int)), *recv = malloc((size_t)P * sizeof(int));
    for (int p = 0; p < P; p++) recv[p] = -1;
    int err = XCHG_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, comm), cls = MPI_SUCCESS;
    int untouched = 1;
    for (int p = 0; p < P; p++) untouched &= recv[p] == -1;
    if (err != MPI_SUCCESS) MPI_Error_class(err, &cls);
    check(cls == MPI_ERR_ARG && untouched && strstr(XCHG_Last_error(), "XCHG_ONLINE"),
          "XCHG_ONLINE=bogus is an error naming it", XCHG_Last_error());
    unsetenv("XCHG_ONLINE");
    free(send), free(recv);
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* Persistence: decide the five collectives for mpi (write), or find them
 * decided without exploring (read). */
static void persistence(int reading)
{
    char what[256], name[NAME_LEN];
    dense = 1;
    if (!reading) setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=100,*=2000", 1);
    for (int c = 0; c < NCOLLS; c++) {
        snprintf(what, sizeof what, "%s: %s", colls[c], reading ? "read back" : "to be written");
        calls_of(MPI_COMM_WORLD, colls[c], 16, reading ? 1 : EXPLORE_CALLS, what);
        used(MPI_COMM_WORLD, colls[c], what, name);
        check(strcmp(name, "mpi") == 0, reading ? "the next run starts decided" : "decided", name);
        if (reading) calls_of(MPI_COMM_WORLD, colls[c], 16, EXPLORE_CALLS, what);
    }
    int decided, exploring;
    unsigned long explored;
    counts_of(MPI_COMM_WORLD, &decided, &exploring, &explored);
    char detail[128];
    snprintf(detail, sizeof detail, "%d decided, %lu calls explored", decided, explored);
    if (reading) check(explored == 0 && decided == 0, "read back: nothing explored", detail);
    else check(decided == NCOLLS && exploring == 0, "every collective's signature decided", detail);
    unsetenv("XCHG_TEST_ONLINE_TIMES");
}

int main(int argc, char **argv)
{
    const char *phase = "all";
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--phase=", 8) == 0) phase = argv[i] + 8;
    unsetenv("XCHG_ALLTOALL"), unsetenv("XCHG_ALLTOALLV"), unsetenv("XCHG_ALLGATHER");
    unsetenv("XCHG_ALLTOALLW"), unsetenv("XCHG_ALLGATHERV");
    if (strcmp(phase, "all") == 0) {
        exploration();
        early_drops();
        fast_path();
        interleaved();
        drift();
        margin();
        short_calls();
        switched_off();
    } else {
        persistence(strcmp(phase, "read") == 0);
    }
    if (world_rank == 0) printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed != 0;
}
