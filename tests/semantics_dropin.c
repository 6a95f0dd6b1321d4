/*
 * The semantics test of tests/semantics.c written with MPI's own calls, for
 * the drop-in library (libxchg-mpi.so, run under tools/xchg-run): a program
 * that knows nothing of xchg. Without xchg it checks the MPI library; under
 * the drop-in it checks whatever serves MPI_Ialltoall and friends (xchg where
 * the drop-in routes the form, the MPI library where it passes it on), and
 * the environment's XCHG_ALLTOALLV=... choose xchg's algorithm.
 *
 * For alltoall, alltoallv, alltoallw, allgather, allgatherv (on a duplicate
 * of MPI_COMM_WORLD) and neighbor_alltoallv (on a ring distributed graph):
 *   scenario    rank 1 sends 4 MiB to rank 0 with a blocking MPI_Send BEFORE
 *               it starts the collective; rank 0 starts it, THEN receives,
 *               then waits. Nonblocking (MPI_Ialltoallv...) and persistent
 *               (MPI-4 MPI_Alltoallv_init..., Open MPI 4.1's MPIX_*_init),
 *               each on a fresh communicator and on a warm one (after a
 *               blocking call of the same shape).
 *   reverse     three nonblocking calls outstanding, completed in reverse
 *               order; three persistent ones likewise.
 *   persistent  one persistent request started --starts times (default 1000)
 *               with the data changed between starts.
 * Every result against PMPI's collective on the same data, byte for byte.
 * A watchdog (alarm) turns a hang into "HANG collective case" on stderr and
 * a failed job. Options: --only=COLL[,COLL...], --case=scenario|reverse|persistent,
 * --timeout=SECONDS (default 60), --starts=N. Last line:
 * "N passed, N failed" (what scripts/run-tests reads).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "semantics.h"

#if MPI_VERSION >= 4
#define HAVE_PERSISTENT 1
#define INIT(name) MPI_##name##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) || defined(OPEN_MPI)
#include <mpi-ext.h>
#endif
#if !defined(HAVE_PERSISTENT) && defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define HAVE_PERSISTENT 1
#define INIT(name) MPIX_##name##_init
#endif
#ifndef HAVE_PERSISTENT
#define HAVE_PERSISTENT 0
#endif

/* ---- MPI's calls ------------------------------------------------------------ */

#if HAVE_PERSISTENT
#define PERSISTENT(call) return call
#else
#define PERSISTENT(call) return MPI_ERR_OTHER
#endif

static int call_alltoall(const sem_layout *L, sem_form form, const void *s, void *r,
                         MPI_Comm comm, MPI_Info info, void *req)
{
    int n = L->count;
    (void)info;
    switch (form) {
    case FORM_BLOCKING: return MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, comm);
    case FORM_NONBLOCKING: return MPI_Ialltoall(s, n, MPI_INT, r, n, MPI_INT, comm, req);
    case FORM_INIT: PERSISTENT(INIT(Alltoall)(s, n, MPI_INT, r, n, MPI_INT, comm, info, req));
    default: return PMPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, comm);
    }
}

static int call_alltoallv(const sem_layout *L, sem_form form, const void *s, void *r,
                          MPI_Comm comm, MPI_Info info, void *req)
{
    const int *sc = L->scounts, *sd = L->sdispls, *rc = L->rcounts, *rd = L->rdispls;
    (void)info;
    switch (form) {
    case FORM_BLOCKING: return MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
    case FORM_NONBLOCKING:
        return MPI_Ialltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, req);
    case FORM_INIT:
        PERSISTENT(INIT(Alltoallv)(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, info, req));
    default: return PMPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
    }
}

static int call_alltoallw(const sem_layout *L, sem_form form, const void *s, void *r,
                          MPI_Comm comm, MPI_Info info, void *req)
{
    const int *sc = L->scounts, *sd = L->sdispls, *rc = L->rcounts, *rd = L->rdispls;
    const MPI_Datatype *st = L->stypes, *rt = L->rtypes;
    (void)info;
    switch (form) {
    case FORM_BLOCKING: return MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm);
    case FORM_NONBLOCKING: return MPI_Ialltoallw(s, sc, sd, st, r, rc, rd, rt, comm, req);
    case FORM_INIT: PERSISTENT(INIT(Alltoallw)(s, sc, sd, st, r, rc, rd, rt, comm, info, req));
    default: return PMPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm);
    }
}

static int call_allgather(const sem_layout *L, sem_form form, const void *s, void *r,
                          MPI_Comm comm, MPI_Info info, void *req)
{
    int n = L->count;
    (void)info;
    switch (form) {
    case FORM_BLOCKING: return MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, comm);
    case FORM_NONBLOCKING: return MPI_Iallgather(s, n, MPI_INT, r, n, MPI_INT, comm, req);
    case FORM_INIT: PERSISTENT(INIT(Allgather)(s, n, MPI_INT, r, n, MPI_INT, comm, info, req));
    default: return PMPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, comm);
    }
}

static int call_allgatherv(const sem_layout *L, sem_form form, const void *s, void *r,
                           MPI_Comm comm, MPI_Info info, void *req)
{
    int n = L->sendcount;
    const int *rc = L->rcounts, *rd = L->rdispls;
    (void)info;
    switch (form) {
    case FORM_BLOCKING: return MPI_Allgatherv(s, n, MPI_INT, r, rc, rd, MPI_INT, comm);
    case FORM_NONBLOCKING: return MPI_Iallgatherv(s, n, MPI_INT, r, rc, rd, MPI_INT, comm, req);
    case FORM_INIT:
        PERSISTENT(INIT(Allgatherv)(s, n, MPI_INT, r, rc, rd, MPI_INT, comm, info, req));
    default: return PMPI_Allgatherv(s, n, MPI_INT, r, rc, rd, MPI_INT, comm);
    }
}

static int call_neighbor(const sem_layout *L, sem_form form, const void *s, void *r,
                         MPI_Comm comm, MPI_Info info, void *req)
{
    const int *sc = L->scounts, *sd = L->sdispls, *rc = L->rcounts, *rd = L->rdispls;
    (void)info;
    switch (form) {
    case FORM_BLOCKING:
        return MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
    case FORM_NONBLOCKING:
        return MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, req);
    case FORM_INIT:
        PERSISTENT(
            INIT(Neighbor_alltoallv)(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, info, req));
    default: return PMPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
    }
}

const sem_coll sem_colls[] = {
    {"alltoall", "", 0, sem_layout_alltoall, call_alltoall},
    {"alltoallv", "", 0, sem_layout_alltoallv, call_alltoallv},
    {"alltoallw", "", 0, sem_layout_alltoallw, call_alltoallw},
    {"allgather", "", 0, sem_layout_allgather, call_allgather},
    {"allgatherv", "", 0, sem_layout_allgatherv, call_allgatherv},
    {"neighbor_alltoallv", "", 1, sem_layout_neighbor, call_neighbor},
};
const int sem_num_colls = (int)(sizeof sem_colls / sizeof sem_colls[0]);

/* ---- the watchdog and checks ------------------------------------------------ */

static struct {
    const char *only_coll, *only_case;
    int timeout, starts;
} opt = {NULL, NULL, 60, 1000};
static int rank, passed, failed;
static const long big_bytes = 4L << 20;
static char hang_msg[256];

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(2, hang_msg, strlen(hang_msg));
    (void)w;
    _exit(124);
}

static void watch(const char *coll, const char *what)
{
    snprintf(hang_msg, sizeof hang_msg, "HANG %s %s (rank %d; no progress for %d s)\n", coll,
             what, rank, opt.timeout);
    alarm((unsigned)opt.timeout);
}

static int check(int ok, const char *coll, const char *what, const char *detail)
{
    if (!ok) printf("FAIL %s %s (rank %d): %s\n", coll, what, rank, detail);
    return ok;
}

static int same(const sem_layout *L, const char *got, int d)
{
    return memcmp(got, L->ref[d], L->recv_bytes) == 0;
}

static int new_comm(const sem_coll *c, MPI_Comm *comm)
{
    return c->neighbor ? sem_ring_create(MPI_COMM_WORLD, comm) : MPI_Comm_dup(MPI_COMM_WORLD, comm);
}

/* ---- the cases -------------------------------------------------------------- */

static int scenario(const sem_coll *c, const sem_layout *L, MPI_Comm side, char *big,
                    sem_form form, int fresh, const char *what)
{
    MPI_Comm comm;
    MPI_Request req = MPI_REQUEST_NULL;
    int d = fresh ? 1 : 2, ok = 1;
    char *recv = malloc(L->recv_bytes);
    new_comm(c, &comm);
    if (!fresh) {
        memset(recv, SEM_SENTINEL, L->recv_bytes);
        ok = check(c->call(L, FORM_BLOCKING, L->data[4], recv, comm, MPI_INFO_NULL, NULL) ==
                           MPI_SUCCESS && same(L, recv, 4), c->name, what, "the blocking call");
    }
    memset(recv, SEM_SENTINEL, L->recv_bytes);
    if (form == FORM_INIT)
        ok = ok && check(c->call(L, FORM_INIT, L->data[d], recv, comm, MPI_INFO_NULL, &req) ==
                         MPI_SUCCESS, c->name, what, "init");
    if (rank == 1) {
        memset(big, 0x5A, (size_t)big_bytes);
        MPI_Send(big, (int)big_bytes, MPI_BYTE, 0, 25, side);
    }
    int rc = form == FORM_INIT ? (ok ? MPI_Start(&req) : MPI_ERR_REQUEST)
                               : c->call(L, form, L->data[d], recv, comm, MPI_INFO_NULL, &req);
    ok = check(rc == MPI_SUCCESS, c->name, what, "the start") && ok;
    if (rank == 0) {
        MPI_Recv(big, (int)big_bytes, MPI_BYTE, 1, 25, side, MPI_STATUS_IGNORE);
        ok = check(big[0] == 0x5A && big[big_bytes - 1] == 0x5A, c->name, what,
                   "the side message") && ok;
    }
    if (ok) ok = check(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, c->name, what, "MPI_Wait");
    if (ok) ok = check(same(L, recv, d), c->name, what, "result differs from PMPI's");
    if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
    MPI_Comm_free(&comm);
    free(recv);
    return ok;
}

static int reverse(const sem_coll *c, const sem_layout *L, sem_form form, const char *what)
{
    MPI_Comm comm;
    MPI_Request req[3];
    char *recv[3];
    int ok = 1;
    new_comm(c, &comm);
    for (int k = 0; k < 3; k++) {
        recv[k] = malloc(L->recv_bytes);
        memset(recv[k], SEM_SENTINEL, L->recv_bytes);
        req[k] = MPI_REQUEST_NULL;
        ok = ok && check(c->call(L, form, L->data[k], recv[k], comm, MPI_INFO_NULL, &req[k]) ==
                         MPI_SUCCESS, c->name, what, "the call");
    }
    if (ok && form == FORM_INIT)
        for (int k = 0; k < 3 && ok; k++)
            ok = check(MPI_Start(&req[k]) == MPI_SUCCESS, c->name, what, "MPI_Start");
    for (int k = 2; k >= 0 && ok; k--)
        ok = check(MPI_Wait(&req[k], MPI_STATUS_IGNORE) == MPI_SUCCESS, c->name, what, "MPI_Wait");
    for (int k = 0; k < 3 && ok; k++)
        ok = check(same(L, recv[k], k), c->name, what, "result differs from PMPI's");
    for (int k = 0; k < 3; k++) {
        if (req[k] != MPI_REQUEST_NULL) MPI_Request_free(&req[k]);
        free(recv[k]);
    }
    MPI_Comm_free(&comm);
    return ok;
}

static int persistent(const sem_coll *c, const sem_layout *L, const char *what)
{
    MPI_Comm comm;
    MPI_Request req = MPI_REQUEST_NULL;
    char *send = malloc(L->send_bytes), *recv = malloc(L->recv_bytes);
    new_comm(c, &comm);
    int ok = check(c->call(L, FORM_INIT, send, recv, comm, MPI_INFO_NULL, &req) == MPI_SUCCESS,
                   c->name, what, "init");
    for (int i = 0; i < opt.starts && ok; i++) {
        int d = i % SEM_NDATA;
        alarm((unsigned)opt.timeout);
        memcpy(send, L->data[d], L->send_bytes);
        memset(recv, SEM_SENTINEL, L->recv_bytes);
        ok = check(MPI_Start(&req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) ==
                   MPI_SUCCESS, c->name, what, "start and wait");
        ok = ok && check(same(L, recv, d), c->name, what, "result differs from PMPI's");
    }
    if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
    MPI_Comm_free(&comm);
    free(send);
    free(recv);
    return ok;
}

/* ---- driving ---------------------------------------------------------------- */

static int wanted(const char *coll, const char *step)
{
    size_t n = opt.only_case ? strlen(opt.only_case) : 0;
    size_t c = strlen(coll);
    const char *at = opt.only_coll ? strstr(opt.only_coll, coll) : NULL;
    while (at && !((at == opt.only_coll || at[-1] == ',') && (at[c] == '\0' || at[c] == ',')))
        at = strstr(at + 1, coll);
    return (!opt.only_coll || at) &&
           (!n || (strncmp(step, opt.only_case, n) == 0 && (step[n] == '\0' || step[n] == '/')));
}

static void verdict(const char *coll, const char *what, int ok)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    alarm(0);
    if (all) passed++;
    else failed++;
    if (rank == 0) printf("%s %s %s\n", all ? "PASS" : "FAIL", coll, what);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--only=", 7) == 0) opt.only_coll = argv[i] + 7;
        else if (strncmp(argv[i], "--case=", 7) == 0) opt.only_case = argv[i] + 7;
        else if (strncmp(argv[i], "--timeout=", 10) == 0) opt.timeout = atoi(argv[i] + 10);
        else if (strncmp(argv[i], "--starts=", 9) == 0) opt.starts = atoi(argv[i] + 9);
        else size = 0;
    }
    if (size < 2 || opt.timeout <= 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -n P (P >= 2) semantics-dropin [--only=COLL,...] "
                            "[--case=scenario|reverse|persistent] [--timeout=S] [--starts=N]\n");
        MPI_Finalize();
        return 2;
    }
    signal(SIGALRM, on_alarm);
    MPI_Comm side;
    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    char *big = malloc((size_t)big_bytes);
    static const char *const names[] = {"scenario/nonblocking-fresh", "scenario/nonblocking-warm",
                                        "scenario/persistent-fresh", "scenario/persistent-warm",
                                        "reverse/nonblocking", "reverse/persistent", "persistent"};
    for (int k = 0; k < sem_num_colls; k++) {
        const sem_coll *c = &sem_colls[k];
        sem_layout L;
        memset(&L, 0, sizeof L);
        L.pair = MPI_DATATYPE_NULL;
        L.P = size, L.rank = rank;
        c->layout(&L, size, rank, 1);
        MPI_Comm refcomm;
        new_comm(c, &refcomm);
        sem_layout_prepare(c, &L, refcomm);
        MPI_Comm_free(&refcomm);
        for (int s = 0; s < 7; s++) {
            if (!wanted(c->name, names[s])) continue;
            if (!HAVE_PERSISTENT && strstr(names[s], "persistent")) continue;
            watch(c->name, names[s]);
            PMPI_Barrier(MPI_COMM_WORLD);
            int ok = s < 4   ? scenario(c, &L, side, big, s < 2 ? FORM_NONBLOCKING : FORM_INIT,
                                        s % 2 == 0, names[s])
                     : s < 6 ? reverse(c, &L, s == 4 ? FORM_NONBLOCKING : FORM_INIT, names[s])
                             : persistent(c, &L, names[s]);
            verdict(c->name, names[s], ok);
        }
        sem_layout_free(&L);
    }
    free(big);
    MPI_Comm_free(&side);
    if (rank == 0)
        printf("persistent collectives: %s\n%d passed, %d failed\n",
               HAVE_PERSISTENT ? "tested" : "not in this MPI (skipped)", passed, failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
