/*
 * xchg-select: automatic selection (src/select/) must choose the same
 * algorithm on every rank, and what it chooses must be right.
 *
 * For alltoallv (counts that differ between ranks, zeros included, sizes
 * that change from call to call), alltoallw (the same blocks, a datatype per
 * peer), alltoall and allgather, with no
 * XCHG_<COLL> set, under XCHG_AGREE=sampled, always and never: every call's
 * result is compared byte for byte with the MPI library's own collective
 * (PMPI), and the algorithm it used (XCHG_Comm_get_algorithm, last_used)
 * is gathered and must be the same string on every rank. Persistent
 * alltoallv plans, MPI_IN_PLACE and a strided derived datatype too. All of
 * it on MPI_COMM_WORLD and on MPI_COMM_SELF (P = 1). Then XCHG_AGREE=bogus
 * must fail with MPI_ERR_ARG and leave the receive buffer untouched.
 * The neighbourhood alltoallv (no XCHG_NEIGHBOR_ALLTOALLV): on graphs whose
 * degree and block sizes differ between ranks (so each rank's own inputs
 * would choose differently), blocking (a new pattern, then the cached plan),
 * nonblocking and persistent calls must choose the same algorithm on every
 * rank and match PMPI_Neighbor_alltoallv; on nodes (XCHG_VIRTUAL_NODES,
 * P >= 4, no tuning file) the cost model must choose locality for a
 * multigraph with many off-node blocks per rank and standard for a ring,
 * and XCHG_AGREE=never must give standard (the fixed rule); patterns that
 * change on some ranks and come back must not pair plans of different
 * builds (select_neighbor.c).
 * Prints "N passed, N failed".
 *   usage: [XCHG_VIRTUAL_NODES=K] mpirun -n P xchg-select [--calls N]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "xchg.h"

static MPI_Comm comm; /* the communicator under test */
static int rank, size; /* in comm */

static void check_same_choice(const char *coll, const char *what)
{
    check_same_choice_on(comm, coll, what, NULL);
}

/* Block sizes (elements) of call `call` at scale `unit`: rank-dependent,
 * with zeros; `symmetric` gives from -> to the count of to -> from (what
 * MPI_IN_PLACE requires). */
static int count_of(int from, int to, int call, int unit, int symmetric)
{
    if (symmetric && from > to) {
        int t = from;
        from = to;
        to = t;
    }
    int k = (from * 7 + to * 3 + call) % 5;
    return k == 0 ? 0 : unit * k;
}

static void fill(double *buf, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++) buf[i] = salt * 1e6 + (double)i;
}

typedef enum { PLAIN, PERSISTENT, IN_PLACE, STRIDED, ALLTOALLW } alltoallv_kind;

/* One alltoallv of `kind` under automatic selection against PMPI's. */
static void alltoallv_case(int call, int unit, alltoallv_kind kind, const char *what)
{
    int *sc = malloc(4 * (size_t)size * sizeof(int)), *sd = sc + size, *rc = sd + size,
        *rd = rc + size;
    int stotal = 0, rtotal = 0, symmetric = kind == IN_PLACE;
    for (int p = 0; p < size; p++) {
        sc[p] = count_of(rank, p, call, unit, symmetric), sd[p] = stotal, stotal += sc[p];
        rc[p] = count_of(p, rank, call, unit, symmetric), rd[p] = rtotal, rtotal += rc[p];
    }
    /* STRIDED: one double every other slot (a type of extent 2 doubles) */
    MPI_Datatype type = MPI_DOUBLE;
    size_t stride = 1;
    if (kind == STRIDED) {
        CHECK_MPI(MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * (MPI_Aint)sizeof(double), &type));
        CHECK_MPI(MPI_Type_commit(&type));
        stride = 2;
    }
    /* ALLTOALLW: the same blocks, byte displacements, and a datatype per
     * peer: doubles, or a derived one-double type for odd peers. */
    MPI_Datatype one_double = MPI_DATATYPE_NULL, *wtypes = NULL;
    int *bd = NULL;
    if (kind == ALLTOALLW) {
        CHECK_MPI(MPI_Type_contiguous(1, MPI_DOUBLE, &one_double));
        CHECK_MPI(MPI_Type_commit(&one_double));
        wtypes = malloc((size_t)size * sizeof(MPI_Datatype));
        bd = malloc(2 * (size_t)size * sizeof(int));
        for (int p = 0; p < size; p++) {
            wtypes[p] = p % 2 ? one_double : MPI_DOUBLE;
            bd[p] = sd[p] * (int)sizeof(double);
            bd[size + p] = rd[p] * (int)sizeof(double);
        }
    }
    size_t sn = stride * ((size_t)stotal + 1), rn = stride * ((size_t)rtotal + 1);
    double *send = calloc(sn, sizeof(double)), *got = calloc(rn, sizeof(double)),
           *want = calloc(rn, sizeof(double));
    fill(send, sn, world_rank);
    if (kind == IN_PLACE) { /* the blocks to send are in the receive buffer */
        fill(got, rn, world_rank);
        memcpy(want, got, rn * sizeof(double));
    }
    int err;
    if (kind == PERSISTENT) {
        XCHG_Request req;
        err = XCHG_Alltoallv_init(send, sc, sd, type, got, rc, rd, type, comm, MPI_INFO_NULL,
                                  &req);
        if (err == MPI_SUCCESS) err = XCHG_Start(&req);
        if (err == MPI_SUCCESS) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
        if (err == MPI_SUCCESS) err = XCHG_Request_free(&req);
    } else if (kind == ALLTOALLW) {
        err = XCHG_Alltoallw(send, sc, bd, wtypes, got, rc, bd + size, wtypes, comm);
    } else if (kind == IN_PLACE) {
        err = XCHG_Alltoallv(MPI_IN_PLACE, NULL, NULL, type, got, rc, rd, type, comm);
        CHECK_MPI(PMPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, type, want, rc, rd, type, comm));
    } else {
        err = XCHG_Alltoallv(send, sc, sd, type, got, rc, rd, type, comm);
    }
    if (kind != IN_PLACE)
        CHECK_MPI(PMPI_Alltoallv(send, sc, sd, type, want, rc, rd, type, comm));
    check(err == MPI_SUCCESS && memcmp(got, want, rn * sizeof(double)) == 0, what,
          err == MPI_SUCCESS ? "result differs from PMPI_Alltoallv" : XCHG_Last_error());
    check_same_choice(kind == ALLTOALLW ? "alltoallw" : "alltoallv", what);
    if (kind == STRIDED) CHECK_MPI(MPI_Type_free(&type));
    if (kind == ALLTOALLW) CHECK_MPI(MPI_Type_free(&one_double));
    free(wtypes), free(bd);
    free(send), free(got), free(want), free(sc);
}

static void uniform_case(const char *coll, int count, const char *what)
{
    int gather = strcmp(coll, "allgather") == 0;
    size_t sn = (size_t)count * (gather ? 1 : (size_t)size), rn = (size_t)count * size;
    double *send = malloc((sn + 1) * sizeof(double)), *got = calloc(rn + 1, sizeof(double)),
           *want = calloc(rn + 1, sizeof(double));
    fill(send, sn, world_rank);
    int err = gather ? XCHG_Allgather(send, count, MPI_DOUBLE, got, count, MPI_DOUBLE, comm)
                     : XCHG_Alltoall(send, count, MPI_DOUBLE, got, count, MPI_DOUBLE, comm);
    if (gather)
        CHECK_MPI(PMPI_Allgather(send, count, MPI_DOUBLE, want, count, MPI_DOUBLE, comm));
    else
        CHECK_MPI(PMPI_Alltoall(send, count, MPI_DOUBLE, want, count, MPI_DOUBLE, comm));
    check(err == MPI_SUCCESS && memcmp(got, want, rn * sizeof(double)) == 0, what,
          err == MPI_SUCCESS ? "result differs from PMPI" : XCHG_Last_error());
    check_same_choice(coll, what);
    free(send), free(got), free(want);
}

/* XCHG_AGREE=bogus: MPI_ERR_ARG on every rank, receive buffer untouched.
 * On a communicator of its own: the environment is read by the normal
 * path, which the first call of a signature takes (online_fast.c). */
static void bad_agree_mode(void)
{
    MPI_Comm fresh;
    CHECK_MPI(MPI_Comm_dup(comm, &fresh));
    CHECK_MPI(MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN));
    setenv("XCHG_AGREE", "bogus", 1);
    int *counts = malloc(2 * (size_t)size * sizeof(int)), *displs = counts + size;
    for (int p = 0; p < size; p++) counts[p] = 1, displs[p] = p;
    double *send = calloc((size_t)size, sizeof(double)), *recv = malloc((size_t)size * sizeof(double));
    for (int p = 0; p < size; p++) recv[p] = -1;
    int err = XCHG_Alltoallv(send, counts, displs, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE,
                             fresh);
    int untouched = 1;
    for (int p = 0; p < size; p++) untouched &= recv[p] == -1;
    int cls = MPI_SUCCESS;
    if (err != MPI_SUCCESS) MPI_Error_class(err, &cls);
    check(cls == MPI_ERR_ARG && untouched && strstr(XCHG_Last_error(), "XCHG_AGREE"),
          "XCHG_AGREE=bogus", XCHG_Last_error());
    unsetenv("XCHG_AGREE");
    CHECK_MPI(MPI_Comm_free(&fresh));
    free(counts), free(send), free(recv);
}

/* Every case on `on` (named `name` in the messages). */
static void run_suite(MPI_Comm on, const char *name, int calls)
{
    comm = on;
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    CHECK_MPI(MPI_Comm_size(comm, &size));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    static const char *const modes[] = {"sampled", "always", "never"};
    static const int units[] = {1, 3, 40, 700, 5000}; /* doubles: 8 B .. 40 KB blocks */
    const int nunits = (int)(sizeof units / sizeof units[0]);
    char what[160];
    for (int m = 0; m < 3; m++) {
        setenv("XCHG_AGREE", modes[m], 1);
        for (int call = 0; call < calls; call++) {
            /* sizes change every few calls: a sampled agreement goes stale */
            int unit = units[(call / 3) % nunits];
            snprintf(what, sizeof what, "%s: alltoallv XCHG_AGREE=%s call %d unit %d", name,
                     modes[m], call, unit);
            alltoallv_case(call, unit, PLAIN, what);
            if (call % 2) continue; /* alltoallw: every other call, its own schedule */
            snprintf(what, sizeof what, "%s: alltoallw XCHG_AGREE=%s call %d unit %d", name,
                     modes[m], call, unit);
            alltoallv_case(call, unit, ALLTOALLW, what);
        }
    }
    unsetenv("XCHG_AGREE");
    for (int u = 0; u < nunits; u++) {
        snprintf(what, sizeof what, "%s: persistent alltoallv unit %d", name, units[u]);
        alltoallv_case(u, units[u], PERSISTENT, what);
        snprintf(what, sizeof what, "%s: alltoallv MPI_IN_PLACE unit %d", name, units[u]);
        alltoallv_case(u, units[u], IN_PLACE, what);
        snprintf(what, sizeof what, "%s: alltoallv strided type unit %d", name, units[u]);
        alltoallv_case(u, units[u], STRIDED, what);
        snprintf(what, sizeof what, "%s: alltoall %d doubles", name, units[u]);
        uniform_case("alltoall", units[u], what);
        snprintf(what, sizeof what, "%s: allgather %d doubles", name, units[u]);
        uniform_case("allgather", units[u], what);
    }
    bad_agree_mode();
    neighbor_suite(comm, name);
}

int main(int argc, char **argv)
{
    int calls = 40;
    agreed_check_begin(&argc, &argv, "select");
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--calls=", 8) == 0) calls = atoi(argv[i] + 8);
    unsetenv("XCHG_ALLTOALL"), unsetenv("XCHG_ALLTOALLV"), unsetenv("XCHG_ALLGATHER");
    unsetenv("XCHG_ALLTOALLW");
    unsetenv("XCHG_NEIGHBOR_ALLTOALLV");

    run_suite(MPI_COMM_WORLD, "world", calls);
    run_suite(MPI_COMM_SELF, "self (P=1)", calls / 4 + 1);
    return agreed_check_end();
}
