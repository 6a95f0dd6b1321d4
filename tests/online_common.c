/*
 * The helpers of the online selection tests (tests/online_common.h says
 * what each does): the checks, one call of each collective against PMPI,
 * the library's counts of a communicator's explorations.
 */
#include "online_common.h"

int dense;
int nonblocking, started_with_task;

const char *const colls[NCOLLS] = {"alltoall", "alltoallv", "allgather", "alltoallw",
                                   "allgatherv"};

int one_call(MPI_Comm comm, const char *coll, int count, int call, const char *what)
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
    XCHG_Request req = XCHG_REQUEST_NULL, *nb = nonblocking ? &req : NULL;
    if (v) {
        err = nb ? XCHG_Ialltoallv(send, sc, sd, MPI_INT, got, rc, rd, MPI_INT, comm, nb)
                 : XCHG_Alltoallv(send, sc, sd, MPI_INT, got, rc, rd, MPI_INT, comm);
        CHECK_MPI(PMPI_Alltoallv(send, sc, sd, MPI_INT, want, rc, rd, MPI_INT, comm));
    } else if (w) {
        err = nb ? XCHG_Ialltoallw(send, sc, sd, st, got, rc, rd, rt, comm, nb)
                 : XCHG_Alltoallw(send, sc, sd, st, got, rc, rd, rt, comm);
        CHECK_MPI(PMPI_Alltoallw(send, sc, sd, st, want, rc, rd, rt, comm));
    } else if (g) {
        err = nb ? XCHG_Iallgather(send, count, MPI_INT, got, count, MPI_INT, comm, nb)
                 : XCHG_Allgather(send, count, MPI_INT, got, count, MPI_INT, comm);
        CHECK_MPI(PMPI_Allgather(send, count, MPI_INT, want, count, MPI_INT, comm));
    } else if (gv) {
        err = nb ? XCHG_Iallgatherv(send, rc[rank], MPI_INT, got, rc, rd, MPI_INT, comm, nb)
                 : XCHG_Allgatherv(send, rc[rank], MPI_INT, got, rc, rd, MPI_INT, comm);
        CHECK_MPI(PMPI_Allgatherv(send, rc[rank], MPI_INT, want, rc, rd, MPI_INT, comm));
    } else {
        err = nb ? XCHG_Ialltoall(send, count, MPI_INT, got, count, MPI_INT, comm, nb)
                 : XCHG_Alltoall(send, count, MPI_INT, got, count, MPI_INT, comm);
        CHECK_MPI(PMPI_Alltoall(send, count, MPI_INT, want, count, MPI_INT, comm));
    }
    if (nb) { /* PMPI's ran on comm, the start's messages on xchg's own */
        started_with_task = xchg_tasks_outstanding();
        if (err == MPI_SUCCESS) err = XCHG_Wait(nb, MPI_STATUS_IGNORE);
    }
    int ok = err == MPI_SUCCESS && memcmp(got, want, rn * sizeof(int)) == 0;
    if (!ok) check(0, what, err == MPI_SUCCESS ? "result differs from PMPI" : XCHG_Last_error());
    CHECK_MPI(MPI_Type_free(&pair));
    free(sc), free(st), free(send), free(got), free(want);
    return ok;
}
void calls_of(MPI_Comm comm, const char *coll, int count, int calls, const char *what)
{
    int ok = 1;
    for (int c = 0; c < calls; c++) ok &= one_call(comm, coll, count, c, what);
    check(ok, what, "a call differed from PMPI");
}

void calls_until_decided(MPI_Comm comm, const char *coll, int count, const char *what)
{
    int ok = 1, before = 0, decided, exploring;
    unsigned long explored;
    for (int c = 0; c < EXPLORE_CALLS; c++) {
        ok &= one_call(comm, coll, count, c, what);
        counts_of(comm, &decided, &exploring, &explored);
        if (c == 0) before = decided;
        else if (decided > before && !exploring) break;
    }
    check(ok, what, "a call differed from PMPI");
}

void counts_of(MPI_Comm comm, int *decided, int *exploring, unsigned long *explored)
{
    xchg_context *ctx;
    CHECK_MPI(xchg_context_get(comm, &ctx));
    xchg_online_counts(ctx, decided, exploring, explored);
}

explore_stats stats_of(MPI_Comm comm)
{
    xchg_context *ctx;
    explore_stats st;
    CHECK_MPI(xchg_context_get(comm, &ctx));
    xchg_online_explore_stats(ctx, &st.candidates, &st.dropped, &st.samples, &st.switches);
    return st;
}

void same_everywhere(long v, const char *what)
{
    long lo, hi;
    CHECK_MPI(MPI_Allreduce(&v, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(&v, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
    char detail[128];
    snprintf(detail, sizeof detail, "%ld here, %ld..%ld over the ranks", v, lo, hi);
    check(lo == hi, what, detail);
}

void online_begin(int *argc, char ***argv)
{
    agreed_check_begin(argc, argv, "online");
    unsetenv("XCHG_ALLTOALL"), unsetenv("XCHG_ALLTOALLV"), unsetenv("XCHG_ALLGATHER");
    unsetenv("XCHG_ALLTOALLW"), unsetenv("XCHG_ALLGATHERV");
}

int online_end(void)
{
    return agreed_check_end();
}
