/*
 * What nonblocking calls choose (src/select/online.h: a learned
 * single-round winner, else `mpi`; src/persistent.c: posted at the call where the choice needs
 * no message; src/nonblocking_fast.c: the fast path of repeated `mpi`
 * calls), part of xchg-online. Every call's result is checked byte for
 * byte against PMPI's, the algorithm it ran the same on every rank:
 *   unlearned  on a communicator where no blocking call learned anything,
 *              every collective's XCHG_I... runs `mpi`, posted at the call
 *              (no task outstanding after the start), twice (the normal
 *              path, which arms alltoall's, allgather's and alltoallv's
 *              fast path, then that path), and alltoall and allgather in
 *              place;
 *   learned    blocking calls decided a winner for alltoall, alltoallv and
 *              allgather (forced times: `nonblocking` and `linear` the
 *              fastest, or the slowest): the nonblocking call of
 *              that signature runs a single-round winner, `mpi` for a
 *              multi-round one, and for alltoallv always `mpi` (it looks
 *              nothing up by its sizes); one of another size runs `mpi`;
 *   disarmed   nonblocking `mpi` alltoalls armed the fast path; blocking
 *              calls of the same shape then decide `nonblocking` or
 *              `linear` (P > 2; on fewer ranks neither is a candidate): the
 *              next nonblocking call runs it, not the fast path's `mpi`;
 *   set        likewise after XCHG_Comm_set_algorithm;
 *   behind     a nonblocking alltoallv that agrees its sizes (a task: a
 *              tuning file's alltoallv rule reads them) still
 *              in flight on odd ranks, completed on even ones; then every
 *              rank starts a nonblocking alltoall, at once on even ranks,
 *              behind the task on odd ones: both right, the same algorithm.
 */
#include <unistd.h>

#include "online_common.h"
#include "select/tuning.h"

static void unlearned(void)
{
    char what[256], name[NAME_LEN];
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    calls_of(comm, "alltoall", 4, 1, "unlearned: a blocking call sets the context up");
    nonblocking = 1;
    for (int c = 0; c < NCOLLS; c++)
        for (int call = 0; call < 2; call++) {
            snprintf(what, sizeof what, "unlearned %s, call %d", colls[c], call);
            calls_of(comm, colls[c], 6, 1, what);
            check_same_choice_on(comm, colls[c], what, name);
            check(strcmp(name, "mpi") == 0, what, name);
            check(!started_with_task, what, "a task was outstanding after the start");
            xchg_context *ctx;
            xchg_coll coll;
            CHECK_MPI(xchg_context_get(comm, &ctx));
            CHECK_MPI(xchg_coll_from_name(colls[c], &coll));
            int fast = coll == XCHG_ALLTOALL || coll == XCHG_ALLGATHER || coll == XCHG_ALLTOALLV;
            check(ctx->nonblocking_fast[coll].armed == fast, what,
                  fast ? "the fast path is not armed" : "a fast path is armed");
        }
    nonblocking = 0;
    int rank, P;
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    CHECK_MPI(MPI_Comm_size(comm, &P));
    for (int g = 0; g < 2; g++) { /* in place: alltoall, allgather */
        int n = 3 * P, ok;
        int *got = malloc((size_t)n * sizeof(int)), *want = malloc((size_t)n * sizeof(int));
        for (int i = 0; i < n; i++) got[i] = rank * 1000 + i;
        memcpy(want, got, (size_t)n * sizeof(int));
        XCHG_Request req;
        int err = g ? XCHG_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, 3, MPI_INT, comm,
                                      &req)
                    : XCHG_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, 3, MPI_INT, comm,
                                     &req);
        int pending = xchg_tasks_outstanding();
        if (err == MPI_SUCCESS) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
        if (g)
            CHECK_MPI(PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, want, 3, MPI_INT, comm));
        else CHECK_MPI(PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, want, 3, MPI_INT, comm));
        ok = err == MPI_SUCCESS && memcmp(got, want, (size_t)n * sizeof(int)) == 0;
        snprintf(what, sizeof what, "unlearned %s in place", g ? "allgather" : "alltoall");
        check(ok, what, err == MPI_SUCCESS ? "result differs from PMPI" : XCHG_Last_error());
        check(!pending, what, "a task was outstanding after the start");
        check_same_choice_on(comm, g ? "allgather" : "alltoall", what, name);
        check(strcmp(name, "mpi") == 0, what, name);
        free(got), free(want);
    }
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* Blocking calls of coll at `count` decide under times that favour the
 * single-round algorithms (`nonblocking`, `linear`: the winners a
 * nonblocking call runs) on comm; the winner's name into winner. Whether
 * one of them won: on 1 and 2 ranks neither is among alltoall's candidates
 * at these sizes (the model's choices are others; online.c). */
static int decide_single_round(MPI_Comm comm, const char *coll, int count, const char *what,
                               char *winner)
{
    setenv("XCHG_TEST_ONLINE_TIMES", "*:nonblocking=100,linear=100,*=2000", 1);
    calls_until_decided(comm, coll, count, what);
    unsetenv("XCHG_TEST_ONLINE_TIMES");
    check_same_choice_on(comm, coll, what, winner);
    return strncmp(winner, "nonblocking", 11) == 0 || strncmp(winner, "linear", 6) == 0;
}

/* Whether the named algorithm posts its messages in one round. */
static int single_round(const char *name)
{
    static const char *const posting[] = {"nonblocking", "linear", "mpi"};
    for (int i = 0; i < 3; i++) {
        size_t len = strlen(posting[i]);
        if (strncmp(name, posting[i], len) == 0 && (!name[len] || name[len] == ':')) return 1;
    }
    return 0;
}

static void learned(void)
{
    static const char *const learning[] = {"alltoall", "alltoallv", "allgather"};
    static const char *const times[] = {"*:nonblocking=100,linear=100,*=2000",
                                        "*:mpi=2000,nonblocking=2000,linear=2000,*=100"};
    char what[1024], winner[NAME_LEN], name[NAME_LEN];
    int single_seen = 0, multi_seen = 0;
    for (int c = 0; c < 3; c++)
        for (int t = 0; t < 2; t++) {
            MPI_Comm comm;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            snprintf(what, sizeof what, "learned %s (%s): blocking calls decide", learning[c],
                     times[t]);
            setenv("XCHG_TEST_ONLINE_TIMES", times[t], 1);
            calls_until_decided(comm, learning[c], 8, what);
            unsetenv("XCHG_TEST_ONLINE_TIMES");
            check_same_choice_on(comm, learning[c], what, winner);
            int single = single_round(winner) && strcmp(winner, "mpi") != 0;
            const char *want = single && c != 1 ? winner : "mpi";
            single_seen += single && c != 1, multi_seen += !single_round(winner);
            nonblocking = 1;
            snprintf(what, sizeof what, "learned %s: winner %s, the nonblocking call runs %s",
                     learning[c], winner, want);
            calls_of(comm, learning[c], 8, 2, what);
            check_same_choice_on(comm, learning[c], what, name);
            check(strcmp(name, want) == 0, what, name);
            if (c != 1) { /* another size: nothing learned */
                snprintf(what, sizeof what, "learned %s: another size runs mpi", learning[c]);
                calls_of(comm, learning[c], 100, 1, what);
                check_same_choice_on(comm, learning[c], what, name);
                check(strcmp(name, "mpi") == 0, what, name);
            }
            nonblocking = 0;
            CHECK_MPI(MPI_Comm_free(&comm));
        }
    int P;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    char seen[64];
    snprintf(seen, sizeof seen, "%d single-round, %d multi-round winners", single_seen,
             multi_seen);
    check((P <= 2 || single_seen > 0) && multi_seen > 0, "learned: both kinds of winner tried",
          seen); /* P <= 2: see decide_single_round */
}

/* The fast path armed by nonblocking `mpi` calls gives way to what changed
 * the choice since: blocking calls that decided `nonblocking` (disarmed:
 * alltoall, the collective with a single-round algorithm besides `mpi`)
 * or XCHG_Comm_set_algorithm (set: alltoall, alltoallv, allgather). */
static void disarmed(int by_set)
{
    static const char *const armed[] = {"alltoall", "alltoallv", "allgather"};
    char what[256], winner[NAME_LEN], name[NAME_LEN];
    for (int c = 0; c < (by_set ? 3 : 1); c++) {
        MPI_Comm comm;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        calls_of(comm, armed[c], 8, 1, "a blocking call sets the context up");
        nonblocking = 1;
        snprintf(what, sizeof what, "%s %s: nonblocking mpi arms the fast path",
                 by_set ? "set" : "disarmed", armed[c]);
        calls_of(comm, armed[c], 8, 3, what);
        check_same_choice_on(comm, armed[c], what, name);
        check(strcmp(name, "mpi") == 0, what, name);
        nonblocking = 0;
        snprintf(what, sizeof what, "%s %s: then another choice", by_set ? "set" : "disarmed",
                 armed[c]);
        if (by_set) {
            snprintf(winner, sizeof winner, "%s", c == 2 ? "ring" : "pairwise");
            CHECK_MPI(XCHG_Comm_set_algorithm(comm, armed[c], winner));
        } else if (!decide_single_round(comm, armed[c], 8, what, winner)) {
            int P;
            CHECK_MPI(MPI_Comm_size(comm, &P));
            check(P <= 2, "disarmed: a single-round winner decided", winner);
            snprintf(winner, sizeof winner, "mpi"); /* what the nonblocking call runs then */
        }
        nonblocking = 1;
        calls_of(comm, armed[c], 8, 2, what);
        check_same_choice_on(comm, armed[c], what, name);
        size_t len = strlen(winner); /* set: the name, its parameters filled in */
        check(strncmp(name, winner, len) == 0 && (!name[len] || name[len] == ':'), what, name);
        nonblocking = 0;
        CHECK_MPI(MPI_Comm_free(&comm));
    }
}

/* Odd ranks still have a task of comm in flight when every rank starts a
 * nonblocking `mpi` alltoall: even ranks post it at once, odd ones queue
 * it behind the task; the two must match. The task: a nonblocking
 * alltoallv under a tuning file with an alltoallv rule (`mpi` at every
 * size), so it agrees its sizes first (MPI_Iallreduce) and only then posts
 * its exchange (MPI_Ialltoallv): posted ahead of it, the alltoall would
 * meet the alltoallv's collective on odd ranks. */
static void behind(void)
{
    int rank, P, n = 5;
    char name[NAME_LEN];
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    CHECK_MPI(MPI_Comm_size(comm, &P));
    char path[] = "/tmp/xchg-online-nonblocking-XXXXXX";
    int fd = mkstemp(path);
    const char *rule = "{\"xchg_tuning\": 1, \"rules\": {\"alltoallv\": "
                       "[{\"bytes\": [0, 1000000000], \"algorithm\": \"mpi\"}]}}\n";
    int written = fd >= 0 && write(fd, rule, strlen(rule)) == (ssize_t)strlen(rule);
    if (fd >= 0) close(fd);
    if (!written || xchg_tuning_load(path) != MPI_SUCCESS) { /* built without Jansson */
        check(1, "behind: skipped (no tuning file)", XCHG_Last_error());
        unlink(path);
        CHECK_MPI(MPI_Comm_free(&comm));
        return;
    }
    int *counts = malloc(2 * (size_t)P * sizeof(int)), *displs = counts + P;
    int *vsend = malloc((size_t)P * n * sizeof(int)), *vgot = malloc((size_t)P * n * sizeof(int)),
        *vwant = malloc((size_t)P * n * sizeof(int));
    int *asend = malloc((size_t)P * n * sizeof(int)), *agot = malloc((size_t)P * n * sizeof(int)),
        *awant = malloc((size_t)P * n * sizeof(int));
    for (int p = 0; p < P; p++) counts[p] = n, displs[p] = p * n;
    for (int i = 0; i < P * n; i++) vsend[i] = rank * 7 + i, asend[i] = rank * 1000 + i;
    XCHG_Request v, a; /* a first alltoall arms its fast path, which must wait its turn too */
    int err = XCHG_Ialltoall(asend, n, MPI_INT, agot, n, MPI_INT, comm, &a);
    if (err == MPI_SUCCESS) err = XCHG_Wait(&a, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS)
        err = XCHG_Ialltoallv(vsend, counts, displs, MPI_INT, vgot, counts, displs, MPI_INT, comm,
                              &v);
    if (err == MPI_SUCCESS && rank % 2 == 0) err = XCHG_Wait(&v, MPI_STATUS_IGNORE);
    int queued = xchg_tasks_outstanding();
    if (err == MPI_SUCCESS) err = XCHG_Ialltoall(asend, n, MPI_INT, agot, n, MPI_INT, comm, &a);
    if (err == MPI_SUCCESS && rank % 2) err = XCHG_Wait(&v, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS) err = XCHG_Wait(&a, MPI_STATUS_IGNORE);
    CHECK_MPI(PMPI_Alltoallv(vsend, counts, displs, MPI_INT, vwant, counts, displs, MPI_INT, comm));
    CHECK_MPI(PMPI_Alltoall(asend, n, MPI_INT, awant, n, MPI_INT, comm));
    int ok = err == MPI_SUCCESS && memcmp(vgot, vwant, (size_t)P * n * sizeof(int)) == 0 &&
             memcmp(agot, awant, (size_t)P * n * sizeof(int)) == 0;
    check(ok, "behind: both calls right", err == MPI_SUCCESS ? "differs from PMPI"
                                                               : XCHG_Last_error());
    check_same_choice_on(comm, "alltoall", "behind: the alltoall", name);
    check(strcmp(name, "mpi") == 0, "behind: the alltoall ran mpi", name);
    /* the situation tested: a task ahead on odd ranks (P > 1), none on even ones */
    check(rank % 2 == 0 ? !queued : P == 1 || queued, "behind: a task ahead on odd ranks only",
          queued ? "a task ahead" : "none ahead");
    free(counts), free(vsend), free(vgot), free(vwant), free(asend), free(agot), free(awant);
    CHECK_MPI(xchg_tuning_load(NULL));
    unlink(path);
    CHECK_MPI(MPI_Comm_free(&comm));
}

void nonblocking_choice(void)
{
    unlearned();
    learned();
    disarmed(0);
    disarmed(1);
    behind();
    nonblocking_neighbor_choice();
}
