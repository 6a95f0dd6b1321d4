/*
 * xchg-online-explore: how online selection (src/select/online.c) decides a
 * signature. Exploration ends, with the same winner on every rank, and a
 * persistent request of the decided signature takes it; clear losers leave
 * early (on agreed times); alltoallv and alltoallw interleaved on one
 * communicator each decide from their own times; mpi is kept unless another
 * is faster by the margin, and a winner that later takes longer than mpi
 * did is checked again; short calls take more samples while their times
 * spread; on two ranks no composed algorithm is tried. What follows a
 * decision (the fast path, drift, XCHG_ONLINE, persistence) is
 * tests/online.c's.
 *
 * Times are forced per rank and per candidate by the test hook
 * XCHG_TEST_ONLINE_TIMES (online.c), including times where ranks would each
 * prefer another winner: the decision must follow the agreed (slowest
 * rank's) times only. Every call's result is compared byte for byte with the
 * MPI library's own collective (PMPI), and the algorithm it used must be the
 * same string on every rank (tests/online_common.c).
 *   usage: mpirun -n P xchg-online-explore
 * Prints "N passed, N failed".
 */
#include "online_common.h"

#include "core/registry.h"

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
        calls_until_decided(comm, colls[c], 16, what);
        int decided, exploring;
        unsigned long explored;
        counts_of(comm, &decided, &exploring, &explored);
        char detail[128];
        snprintf(detail, sizeof detail, "%d decided, %d exploring, %lu calls explored", decided,
                 exploring, explored);
        check(decided == 1 && exploring == 0 && explored >= 6 && explored <= 36,
              "exploration happened and ended", detail);
        check_same_choice_on(comm, colls[c], what, name);
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
            check_same_choice_on(comm, colls[c], "persistent", name);
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
        calls_until_decided(comm, colls[c], 100, what);
        check_same_choice_on(comm, colls[c], what, name);
        check(name[0] && strcmp(name, "mpi") != 0, "the slowest rank's times decide: not mpi",
              name);
        unsetenv("XCHG_TEST_ONLINE_TIMES");
        CHECK_MPI(MPI_Comm_free(&comm));
    }
}

/* Clear losers leave the race early, on agreed times: mpi 10x slower than
 * the others on the slowest rank (but fastest on rank 0 alone) is dropped
 * after its warm-up and one sample; the others 1.5x slower than mpi after
 * three (mpi, the incumbent, only ever by the 2x rule); the others 3x
 * slower after two where their first sample took under a quarter of their
 * warm-up (still warming up, not dropped on it). The calls explored must
 * say so exactly, and be the same on every rank: each candidate's warm-up,
 * then visits of 1, 2 and 2 samples, each a timed run after a switching
 * call (8 calls for the 5 samples of one that stays; a loser's run goes to
 * its end: 2 calls for one sample, 5 for two or three). */
static void early_drops(void)
{
    static const struct {
        const char *times;
        int calls_of_loser; /* a loser's calls after its warm-up, switching ones too */
    } cases[] = {{"0:mpi=100,*=1000;*:mpi=10000,*=1000", 2}, {"*:mpi=1000,*=1500", 5},
                 {"*:mpi=1000,*=3000^20000", 5}};
    char what[256], name[NAME_LEN];
    int P;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    for (int c = 0; c < NCOLLS; c++)
        for (int k = 0; k < 3; k++) {
            MPI_Comm comm;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            setenv("XCHG_TEST_ONLINE_TIMES", cases[k].times, 1); /* a new value: US^US0 */
            snprintf(what, sizeof what, "%s: clear loser %s", colls[c], cases[k].times);
            calls_until_decided(comm, colls[c], 16, what);
            int decided, exploring;
            unsigned long explored;
            counts_of(comm, &decided, &exploring, &explored);
            explore_stats st = stats_of(comm);
            int cands = st.candidates, dropped = st.dropped;
            /* P = 1: rank 0's times are the slowest rank's; in case 0 every
             * xchg candidate is 10x mpi there, dropped after one sample */
            int solo = P == 1 && k == 0;
            int want_dropped = solo || k > 0 ? cands - 1 : 1;
            int want = cands + 8 * (cands - want_dropped) +
                       want_dropped * (solo ? 2 : cases[k].calls_of_loser);
            char detail[160];
            snprintf(detail, sizeof detail, "%d candidates, %d dropped, %lu calls explored (want %d "
                     "dropped, %d calls)", cands, dropped, explored, want_dropped, want);
            check(decided == 1 && exploring == 0 && cands >= 2 && dropped == want_dropped &&
                  explored == (unsigned long)want, what, detail);
            same_everywhere((long)explored, "every rank explored as many calls");
            check_same_choice_on(comm, colls[c], what, name);
            check(solo || k > 0 ? strcmp(name, "mpi") == 0 : name[0] && strcmp(name, "mpi") != 0,
                  "a dropped candidate does not win", name);
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
    for (int call = 0; call < EXPLORE_CALLS; call++) {
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
    check_same_choice_on(comm, "alltoallv", "interleaved alltoallv", name);
    check(strcmp(name, "mpi") == 0, "interleaved: alltoallv decided by its own times", name);
    check_same_choice_on(comm, "alltoallw", "interleaved alltoallw", name);
    check(name[0] && strcmp(name, "mpi") != 0, "interleaved: alltoallw decided by its own times",
          name);
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* mpi is the incumbent (online_decide.c, the margin): another candidate
 * displaces it only when faster by more than their samples' spread, at
 * least 1% and at most 5%. Steady times: 0.5% faster does not, 3% does.
 * Times that spread by 6% (every third call 6% slower): 3% and 4% faster
 * do not, 20% does. A median 10% faster that wins only 1 of the 3 visits
 * (mpi 1000 us, every third call 600) does not; one that wins 2 of them
 * (the others 900 us, their fifth timed call 1200: the third visit's
 * first sample) does. An mpi dropped as a clear loser (1500 us, over 1.25x
 * the others' median of 1000) is no incumbent: the others win without
 * winning its visits (every third call of theirs 2000 us). And a
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
                 {"*:mpi=1000-1060,*=800-850", 0},  {"*:mpi=1000,*=1000", 1},
                 {"*:mpi=1000-600,*=900", 1},      {"*:mpi=1000,*=900-1200/5", 0},
                 {"*:mpi=1500,*=1000-2000", 0}};
    char what[256], name[NAME_LEN];
    for (int c = 0; c < NCOLLS; c++)
        for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++) {
            MPI_Comm comm;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            setenv("XCHG_TEST_ONLINE_TIMES", cases[k].times, 1);
            snprintf(what, sizeof what, "%s: margin, %s", colls[c], cases[k].times);
            calls_until_decided(comm, colls[c], 16, what);
            int decided, exploring;
            unsigned long explored;
            counts_of(comm, &decided, &exploring, &explored);
            check(decided == 1 && exploring == 0, what, "decided");
            check_same_choice_on(comm, colls[c], what, name);
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
        calls_until_decided(comm, colls[c], 8, what);
        calls_of(comm, colls[c], 8, 3 * 16 + 10, what); /* baseline set */
        check_same_choice_on(comm, colls[c], what, name);
        check(name[0] && strcmp(name, "mpi") != 0, "decided for another before the re-check", name);
        int decided, exploring;
        unsigned long before, after;
        counts_of(comm, &decided, &exploring, &before);
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=1000,*=1030", 1);
        snprintf(what, sizeof what, "%s: the winner now within the margin of mpi", colls[c]);
        calls_of(comm, colls[c], 8, 4 * 16, what);
        counts_of(comm, &decided, &exploring, &after);
        check_same_choice_on(comm, colls[c], what, name);
        check(name[0] && strcmp(name, "mpi") != 0 && after == before && exploring == 0,
              "within the margin: kept, not explored again", name);
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=1000,*=1100", 1);
        snprintf(what, sizeof what, "%s: the winner now slower than mpi was", colls[c]);
        calls_of(comm, colls[c], 8, 3 * 16 + EXPLORE_CALLS, what);
        check_same_choice_on(comm, colls[c], what, name);
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
 * call, but the times spread: up to 10 of any call) mpi takes 10, the
 * others 3, in visits of 1 and 2 (and mpi 2, 2, 2 and 1 more).
 * Every rank counts the same calls; the decision follows the forced times. */
static void short_calls(void)
{
    char what[256], name[NAME_LEN];
    static const struct {
        const char *times;
        int mpi_samples, visit; /* visit: samples per visit */
    } cases[] = {{"*:mpi=2-2.2,*=3-3.2", 40, 8}, {"*:mpi=2,*=3", 5, 8},
                 {"*:mpi=1000-1100,*=2000", 10, 2}};
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
                      samples <= mine + (v > 3 ? v : 3) * others &&
                      switches >= (mine + v - 1) / v + others &&
                      explored == (unsigned long)(candidates + samples + switches),
                  what, detail);
            same_everywhere((long)explored, "the same calls explored on every rank");
            check_same_choice_on(comm, colls[c], what, name);
            check(strcmp(name, "mpi") == 0, "the forced times decide: mpi", name);
            unsetenv("XCHG_TEST_ONLINE_TIMES");
            CHECK_MPI(MPI_Comm_free(&comm));
        }
}

/* One alltoall of `count` ints sent and received as `type` (MPI_INT, or a
 * type of one int: the same type signature), checked against PMPI. */
static int alltoall_as(MPI_Comm comm, int count, MPI_Datatype type, int in_place, int call)
{
    int P, rank;
    CHECK_MPI(MPI_Comm_size(comm, &P));
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    size_t n = (size_t)P * (size_t)count;
    int *send = malloc(3 * n * sizeof(int)), *got = send + n, *want = got + n;
    for (size_t i = 0; i < n; i++) send[i] = rank * 1000003 + call * 31 + (int)i;
    if (in_place)
        memcpy(got, send, n * sizeof(int));
    else
        memset(got, 0xab, n * sizeof(int));
    int err = XCHG_Alltoall(in_place ? MPI_IN_PLACE : send, count, type, got, count, type, comm);
    CHECK_MPI(PMPI_Alltoall(send, count, MPI_INT, want, count, MPI_INT, comm));
    int ok = err == MPI_SUCCESS && memcmp(got, want, n * sizeof(int)) == 0;
    free(send);
    return ok;
}

/* One nonblocking alltoallv of `count` ints per peer (every block the
 * same: a signature of its own), completed at once, checked against PMPI. */
static int ialltoallv_call(MPI_Comm comm, int count, int call)
{
    int P, rank;
    CHECK_MPI(MPI_Comm_size(comm, &P));
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    size_t n = (size_t)P * (size_t)count;
    int *counts = malloc(2 * (size_t)P * sizeof(int)), *displs = counts + P;
    int *send = malloc(3 * n * sizeof(int)), *got = send + n, *want = got + n;
    for (int p = 0; p < P; p++) counts[p] = count, displs[p] = p * count;
    for (size_t i = 0; i < n; i++) send[i] = rank * 1000003 + call * 31 + (int)i;
    memset(got, 0xab, n * sizeof(int));
    XCHG_Request req;
    int err = XCHG_Ialltoallv(send, counts, displs, MPI_INT, got, counts, displs, MPI_INT, comm,
                              &req);
    if (err == MPI_SUCCESS) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
    CHECK_MPI(PMPI_Alltoallv(send, counts, displs, MPI_INT, want, counts, displs, MPI_INT, comm));
    int ok = err == MPI_SUCCESS && memcmp(got, want, n * sizeof(int)) == 0;
    free(counts), free(send);
    return ok;
}

/* Short calls time a visit's samples in a run (online.c): its calls take
 * the fast path where their shape lets them and the normal path elsewhere,
 * and their times are agreed after the last. Four ways to mix them up:
 *   mixed        rank 0 passes a derived type of one int at every other
 *                alltoall, which its fast path does not take, while the
 *                other ranks' fast paths take them: the ranks time the same
 *                calls on different paths; and a few calls here and there
 *                are made with XCHG_ONLINE=0, which the fast paths must
 *                heed too (a timed call's barrier on some ranks only would
 *                hang);
 *   alternating  two sizes of alltoall alternate, so the runs of two
 *                signatures interleave (on the normal path);
 *   nonblocking  blocking alltoallv with a nonblocking one every fourth
 *                call, whose agreement of sizes carries whatever times
 *                wait (a run's, when one just ended) and must not break
 *                the runs around it;
 *   in_place     every third alltoall is MPI_IN_PLACE: the same signature,
 *                another shape, so the runs' calls change paths (the fast
 *                path is armed for the shape of the call before).
 * Every blocking signature must be decided, for the forced winner, with
 * the same calls explored on every rank; with `mixed`, the runs' calls must
 * have gone the fast path on the ranks whose shapes let them. */
static void timed_runs(void)
{
    MPI_Datatype one_int;
    CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &one_int));
    CHECK_MPI(MPI_Type_commit(&one_int));
    int rank, P;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    static const char *const variants[] = {"ranks on different paths",
                                           "two signatures interleaved",
                                           "alltoallv with nonblocking calls between",
                                           "MPI_IN_PLACE calls between"};
    for (int v = 0; v < 4; v++) {
        int mixed = v == 0, alternating = v == 1, nonblocking = v == 2, in_place = v == 3;
        int signatures = 1 + alternating, ok = 1;
        const char *coll = nonblocking ? "alltoallv" : "alltoall";
        char what[160], detail[160], name[NAME_LEN];
        snprintf(what, sizeof what, "timed runs: %s", variants[v]);
        MPI_Comm comm;
        xchg_context *ctx;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        CHECK_MPI(xchg_context_get(comm, &ctx));
        setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=2-2.2,*=3-3.2", 1); /* visits of 8 */
        int calls = signatures * (2 + 6 * (1 + 40 + 5) + 1) * (nonblocking ? 2 : 1), call,
            decided = 0, exploring;
        unsigned long explored;
        for (call = 0; call < calls && decided < signatures; call++) { /* until decided */
            MPI_Datatype type = mixed && rank == 0 && call % 2 ? one_int : MPI_INT;
            if (mixed && call % 13 >= 10) setenv("XCHG_ONLINE", "0", 1);
            if (nonblocking)
                ok &= call % 4 == 3 ? ialltoallv_call(comm, 16, call)
                                    : one_call(comm, "alltoallv", 16, call, what);
            else
                ok &= alltoall_as(comm, alternating && call % 2 ? 64 : 16, type,
                                  in_place && call % 3 == 1, call);
            unsetenv("XCHG_ONLINE");
            counts_of(comm, &decided, &exploring, &explored);
        }
        check(ok, what, "a call differed from PMPI");
        snprintf(detail, sizeof detail, "%d of %d signatures decided", decided, signatures);
        check(decided == signatures && exploring == 0, what, detail);
        same_everywhere((long)explored, "timed runs: the same calls explored on every rank");
        unsigned long fast = xchg_online_fast_calls(ctx, XCHG_ALLTOALL);
        /* mixed: the other ranks' calls; in_place: a third of them, those
         * after a call of the same shape */
        int fast_wanted = (mixed && rank != 0 && P > 1) || in_place;
        snprintf(detail, sizeof detail, "%lu of the %d calls that explored took the fast path",
                 fast, call);
        check(!fast_wanted || fast >= (unsigned long)(in_place ? call / 5 : 20), what, detail);
        /* the winner runs at the signature's next blocking call (the last
         * call may have been a nonblocking alltoallv: a signature of its
         * own, on the model, whose agreement ended the exploration) */
        ok = nonblocking ? one_call(comm, "alltoallv", 16, call, what)
                         : alltoall_as(comm, 16, MPI_INT, 0, call);
        check(ok, what, "the call after the decision differed from PMPI");
        check_same_choice_on(comm, coll, what, name);
        check(strcmp(name, "mpi") == 0, "timed runs: the forced times decide: mpi", name);
        unsetenv("XCHG_TEST_ONLINE_TIMES");
        CHECK_MPI(MPI_Comm_free(&comm));
    }
    CHECK_MPI(MPI_Type_free(&one_int));
}

/* A candidate whose timed call fails on some rank (the error goes back to
 * the program; the agreement of times says so on every rank) leaves the
 * race. Every candidate but `mpi` is forced faster than mpi (2 against
 * 3 us; 200 against 300) and fails on rank 0 (the test hook's "fail"):
 * from its warm-up (short calls: timed runs; long calls: one call a
 * visit), or from the 12th call on, in the middle of the runs. Without
 * the agreement of failures, rank 0 would leave a candidate that the others
 * keep measuring (and they would wait for it at a barrier); with nothing
 * but the others' times, the failing candidates would win. Every blocking
 * collective: alltoall and allgather agree a time in an allreduce of their
 * own, alltoallv, alltoallw and allgatherv in the agreement of sizes
 * (select.c), where a failure rides in the same MAX. */
static void failing_candidates(void)
{
    static const char *const variants[] = {"short calls, failing from the warm-up",
                                           "long calls, failing from the warm-up",
                                           "short calls, failing from the 12th call"};
    for (int c = 0; c < NCOLLS; c++) {
        for (int v = 0; v < 3; v++) {
            char what[160], name[NAME_LEN];
            snprintf(what, sizeof what, "failing candidates: %s, %s", colls[c], variants[v]);
            const char *failing = v == 1 ? "0:mpi=300,*=fail;*:mpi=300,*=200"
                                         : "0:mpi=3,*=fail;*:mpi=3,*=2";
            MPI_Comm comm;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            setenv("XCHG_TEST_ONLINE_TIMES", v == 2 ? "*:mpi=3,*=2" : failing, 1);
            int decided = 0, exploring, ok = 1, call;
            unsigned long explored;
            for (call = 0; call < 2 + 6 * (1 + 40 + 7) && !decided; call++) {
                if (v == 2 && call == 12) setenv("XCHG_TEST_ONLINE_TIMES", failing, 1);
                ok &= one_call(comm, colls[c], 16, call, what);
                counts_of(comm, &decided, &exploring, &explored);
            }
            check(ok, what, "a call differed from PMPI");
            check(decided == 1 && exploring == 0, what, "the signature decided");
            same_everywhere((long)explored,
                            "failing candidates: the same calls explored everywhere");
            ok = one_call(comm, colls[c], 16, call, what);
            check(ok, what, "the call after the decision differed from PMPI");
            check_same_choice_on(comm, colls[c], what, name);
            check(strcmp(name, "mpi") == 0, "failing candidates: the only one left: mpi", name);
            unsetenv("XCHG_TEST_ONLINE_TIMES");
            CHECK_MPI(MPI_Comm_free(&comm));
        }
    }
}

/* On two ranks (one peer) no composed algorithm is a candidate: forced
 * 10x faster than mpi, it would win if tried. Pairs of ranks of
 * MPI_COMM_WORLD (a rank left over alone: one rank, the same). The
 * one-sided direct exchanges (rma_direct, shm_direct: not flat, but not
 * composed either) are candidates of their own (online.c) and take the
 * 2000 us of every algorithm not named here. */
static void two_ranks_flat_only(void)
{
    char what[256], name[NAME_LEN], times[4096];
    MPI_Comm pair;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, world_rank / 2, world_rank, &pair));
    for (int c = 0; c < 2; c++) { /* alltoall, alltoallv */
        xchg_coll coll;
        CHECK_MPI(xchg_coll_from_name(colls[c], &coll));
        int len = snprintf(times, sizeof times, "*:mpi=1000");
        for (int i = 0; i < xchg_registry_count(coll); i++) {
            const xchg_algorithm *a = xchg_registry_get(coll, i);
            if (!a->is_flat && !strstr(a->name, "_direct") && strcmp(a->name, "mpi") != 0 &&
                len < (int)sizeof times - 64)
                len += snprintf(times + len, sizeof times - (size_t)len, ",%s=100", a->name);
        }
        snprintf(times + len, sizeof times - (size_t)len, ",*=2000");
        MPI_Comm comm;
        CHECK_MPI(MPI_Comm_dup(pair, &comm));
        setenv("XCHG_TEST_ONLINE_TIMES", times, 1);
        snprintf(what, sizeof what, "%s on two ranks: composed ones forced fastest", colls[c]);
        calls_until_decided(comm, colls[c], 1 << 19, what); /* 2 MiB blocks */
        check_same_choice_on(comm, colls[c], what, name);
        check(strcmp(name, "mpi") == 0, "on two ranks no composed candidate: mpi", name);
        unsetenv("XCHG_TEST_ONLINE_TIMES");
        CHECK_MPI(MPI_Comm_free(&comm));
    }
    CHECK_MPI(MPI_Comm_free(&pair));
}

int main(int argc, char **argv)
{
    online_begin(&argc, &argv);
    exploration();
    early_drops();
    interleaved();
    margin();
    short_calls();
    timed_runs();
    failing_candidates();
    two_ranks_flat_only();
    return online_end();
}
