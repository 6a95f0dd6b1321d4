/*
 * What nonblocking calls choose (src/select/online.h: a learned winner,
 * else `mpi`; src/persistent.c: posted at the call where the choice needs
 * no message; src/nonblocking_fast.c: the fast path of repeated `mpi`
 * calls), part of xchg-online. Every call's result is checked byte for
 * byte against PMPI's, the algorithm it ran the same on every rank:
 *   unlearned  on a communicator where no blocking call learned anything,
 *              every collective's XCHG_I... runs `mpi`, posted at the call
 *              (no task outstanding after the start), twice (the normal
 *              path, then alltoall's, allgather's and alltoallv's fast
 *              path), and alltoall and allgather in place;
 *   learned    blocking calls decided another algorithm for alltoall,
 *              alltoallv and allgather (forced times): the nonblocking
 *              call of that signature runs the winner; one of another size
 *              (alltoall, allgather) runs `mpi`;
 *   disarmed   nonblocking `mpi` calls armed the fast path; blocking calls
 *              of the same shape then decide another algorithm: the next
 *              nonblocking call runs it, not the fast path's `mpi`;
 *   set        likewise after XCHG_Comm_set_algorithm;
 *   behind     a nonblocking alltoallv that agrees its sizes (a task) still
 *              in flight on odd ranks, completed on even ones; then every
 *              rank starts a nonblocking alltoall, at once on even ranks,
 *              behind the task on odd ones: both right, the same algorithm.
 */
#include "online_common.h"

/* The algorithm the last call of coll on comm ran, checked the same on
 * every rank, into name. */
static void ran(MPI_Comm comm, const char *coll, const char *what, char *name)
{
    check_same_choice_on(comm, coll, what, name);
}

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
            ran(comm, colls[c], what, name);
            check(strcmp(name, "mpi") == 0, what, name);
            check(!started_with_task, what, "a task was outstanding after the start");
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
        if (g) CHECK_MPI(PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, want, 3, MPI_INT, comm));
        else CHECK_MPI(PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, want, 3, MPI_INT, comm));
        ok = err == MPI_SUCCESS && memcmp(got, want, (size_t)n * sizeof(int)) == 0;
        snprintf(what, sizeof what, "unlearned %s in place", g ? "allgather" : "alltoall");
        check(ok, what, err == MPI_SUCCESS ? "result differs from PMPI" : XCHG_Last_error());
        check(!pending, what, "a task was outstanding after the start");
        ran(comm, g ? "allgather" : "alltoall", what, name);
        check(strcmp(name, "mpi") == 0, what, name);
        free(got), free(want);
    }
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* Blocking calls of coll at `count` decide a winner other than `mpi`
 * (forced times) on comm; its name into winner. */
static void decide_another(MPI_Comm comm, const char *coll, int count, const char *what,
                           char *winner)
{
    setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=2000,*=100", 1);
    calls_until_decided(comm, coll, count, what);
    unsetenv("XCHG_TEST_ONLINE_TIMES");
    ran(comm, coll, what, winner);
    check(winner[0] && strcmp(winner, "mpi") != 0, what, winner);
}

static void learned(void)
{
    static const char *const learning[] = {"alltoall", "alltoallv", "allgather"};
    char what[256], winner[NAME_LEN], name[NAME_LEN];
    for (int c = 0; c < 3; c++) {
        MPI_Comm comm;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        snprintf(what, sizeof what, "learned %s: blocking calls decide", learning[c]);
        decide_another(comm, learning[c], 8, what, winner);
        nonblocking = 1;
        snprintf(what, sizeof what, "learned %s: the nonblocking call runs the winner",
                 learning[c]);
        calls_of(comm, learning[c], 8, 2, what);
        ran(comm, learning[c], what, name);
        check(strcmp(name, winner) == 0, what, name);
        if (c != 1) { /* alltoallv: a learned winner of any size makes it agree sizes */
            snprintf(what, sizeof what, "learned %s: another size runs mpi", learning[c]);
            calls_of(comm, learning[c], 100, 1, what);
            ran(comm, learning[c], what, name);
            check(strcmp(name, "mpi") == 0, what, name);
        }
        nonblocking = 0;
        CHECK_MPI(MPI_Comm_free(&comm));
    }
}

/* The fast path armed by nonblocking `mpi` calls gives way to what changed
 * the choice since: blocking calls that decided (disarmed) or
 * XCHG_Comm_set_algorithm (set). */
static void disarmed(int by_set)
{
    static const char *const armed[] = {"alltoall", "alltoallv", "allgather"};
    char what[256], winner[NAME_LEN], name[NAME_LEN];
    for (int c = 0; c < 3; c++) {
        MPI_Comm comm;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        calls_of(comm, armed[c], 8, 1, "a blocking call sets the context up");
        nonblocking = 1;
        snprintf(what, sizeof what, "%s %s: nonblocking mpi arms the fast path",
                 by_set ? "set" : "disarmed", armed[c]);
        calls_of(comm, armed[c], 8, 3, what);
        ran(comm, armed[c], what, name);
        check(strcmp(name, "mpi") == 0, what, name);
        nonblocking = 0;
        snprintf(what, sizeof what, "%s %s: then another choice", by_set ? "set" : "disarmed",
                 armed[c]);
        if (by_set) {
            snprintf(winner, sizeof winner, "%s", c == 2 ? "ring" : "pairwise");
            CHECK_MPI(XCHG_Comm_set_algorithm(comm, armed[c], winner));
        } else {
            decide_another(comm, armed[c], 8, what, winner);
        }
        nonblocking = 1;
        calls_of(comm, armed[c], 8, 2, what);
        ran(comm, armed[c], what, name);
        size_t len = strlen(winner); /* set: the name, its parameters filled in */
        check(strncmp(name, winner, len) == 0 && (!name[len] || name[len] == ':'), what, name);
        nonblocking = 0;
        CHECK_MPI(MPI_Comm_free(&comm));
    }
}

/* Odd ranks still have a task of comm in flight when every rank starts a
 * nonblocking `mpi` alltoall: even ranks post it at once, odd ones queue
 * it behind the task; the two must match. The task: a nonblocking
 * alltoallv on a communicator where blocking alltoallv calls learned a
 * winner, so it agrees its sizes first (MPI_Iallreduce) and only then
 * posts its exchange (`mpi`: MPI_Ialltoallv): posted ahead of it, the
 * alltoall would meet the alltoallv's collective on odd ranks. */
static void behind(void)
{
    int rank, P, n = 5;
    char name[NAME_LEN];
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    CHECK_MPI(MPI_Comm_size(comm, &P));
    setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=100,*=2000", 1);
    calls_until_decided(comm, "alltoallv", 8, "behind: blocking alltoallv calls decide");
    unsetenv("XCHG_TEST_ONLINE_TIMES");
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
    if (err == MPI_SUCCESS) err = XCHG_Ialltoallv(vsend, counts, displs, MPI_INT, vgot, counts, displs, MPI_INT, comm,
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
    ran(comm, "alltoall", "behind: the alltoall", name);
    check(strcmp(name, "mpi") == 0, "behind: the alltoall ran mpi", name);
    /* the situation tested: a task ahead on odd ranks (P > 1), none on even ones */
    check(rank % 2 == 0 ? !queued : P == 1 || queued, "behind: a task ahead on odd ranks only",
          queued ? "a task ahead" : "none ahead");
    free(counts), free(vsend), free(vgot), free(vwant), free(asend), free(agot), free(awant);
    CHECK_MPI(MPI_Comm_free(&comm));
}

void nonblocking_choice(void)
{
    unlearned();
    learned();
    disarmed(0);
    disarmed(1);
    behind();
}
