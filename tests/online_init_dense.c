/*
 * Online selection at a persistent init of the dense collectives
 * (src/select/online_init.c), part of xchg-online. Each case makes a
 * request on a communicator where no blocking call taught the signature
 * anything: init, start, wait, free; the result checked byte for byte
 * against PMPI's blocking collective, the receive buffer checked unchanged
 * by the init, the algorithm the start ran checked the same on every rank
 * and against what the forced times (XCHG_TEST_ONLINE_TIMES) make the
 * winner:
 *   model       XCHG_ONLINE=0: the cost model's choice (what the others
 *               are compared with);
 *   agreed      rank 0 reads `mpi` fastest (40 us; the model's choice
 *               100, every other 80), the others the model's choice (20;
 *               `mpi` 90, every other 50): the slowest ranks' times make a
 *               third candidate win (80 against 90 and 100), which no
 *               rank's own would; on one rank `mpi`;
 *   remembered  the same call again on that communicator under times
 *               that favour `mpi`: the first winner, not measured again;
 *   fresh       a new communicator under those times: `mpi`;
 *   learned     blocking calls decided `mpi` on a communicator (forced);
 *               an init there under times that favour every other takes
 *               `mpi`, as the signature learned;
 *   strided     an alltoall of a derived datatype with holes;
 *   forms       each collective (alltoallv with empty blocks, alltoallw
 *               with a type per peer, allgatherv with gaps), each also in
 *               place.
 */
#include "online_common.h"

enum { COUNT = 6 };

/* One persistent request of `coll` (blocks of up to COUNT ints, as
 * online_common.c's one_call lays them out) on comm, checked; the
 * algorithm it ran into chosen. */
static void one_request(MPI_Comm comm, const char *coll, int in_place, const char *what,
                        char *chosen)
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
    for (int p = 0, so = 0, ro = 0; p < P; p++) { /* in place: symmetric counts */
        int per_peer = v || w, width = w && (rank + p) % 2 ? 2 : 1;
        sc[p] = per_peer ? (rank + p) % 3 == 0 ? 0 : COUNT - (rank + p) % 2 : COUNT;
        rc[p] = sc[p];
        if (gv) rc[p] = p % 4 == 3 ? 0 : COUNT - p % 3;
        st[p] = rt[p] = width == 2 ? pair : MPI_INT;
        sd[p] = w ? so * (int)sizeof(int) : so, rd[p] = w ? ro * (int)sizeof(int) : ro;
        so += sc[p] * width, ro += rc[p] * width + gv;
    }
    size_t n = 2 * (size_t)P * COUNT + (size_t)P;
    int *send = malloc(n * sizeof(int)), *got = malloc(n * sizeof(int)),
        *want = malloc(n * sizeof(int)), *before = malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++) send[i] = (int)(rank * 100003 + (int)i), got[i] = -1 - (int)i;
    if (in_place && (g || gv)) /* the own block where the result puts it */
        for (int i = 0; i < rc[rank]; i++) got[(g ? rank * COUNT : rd[rank]) + i] = send[i];
    else if (in_place)
        memcpy(got, send, n * sizeof(int));
    memcpy(want, got, n * sizeof(int));
    memcpy(before, got, n * sizeof(int));
    const void *sbuf = in_place ? MPI_IN_PLACE : send;
    XCHG_Request req;
    int err;
    if (v) {
        err = XCHG_Alltoallv_init(sbuf, sc, sd, MPI_INT, got, rc, rd, MPI_INT, comm, MPI_INFO_NULL,
                                  &req);
        CHECK_MPI(PMPI_Alltoallv(sbuf, sc, sd, MPI_INT, want, rc, rd, MPI_INT, comm));
    } else if (w) {
        err = XCHG_Alltoallw_init(sbuf, sc, sd, st, got, rc, rd, rt, comm, MPI_INFO_NULL, &req);
        CHECK_MPI(PMPI_Alltoallw(sbuf, sc, sd, st, want, rc, rd, rt, comm));
    } else if (g) {
        err = XCHG_Allgather_init(sbuf, COUNT, MPI_INT, got, COUNT, MPI_INT, comm, MPI_INFO_NULL,
                                  &req);
        CHECK_MPI(PMPI_Allgather(sbuf, COUNT, MPI_INT, want, COUNT, MPI_INT, comm));
    } else if (gv) {
        err = XCHG_Allgatherv_init(sbuf, rc[rank], MPI_INT, got, rc, rd, MPI_INT, comm,
                                   MPI_INFO_NULL, &req);
        CHECK_MPI(PMPI_Allgatherv(sbuf, rc[rank], MPI_INT, want, rc, rd, MPI_INT, comm));
    } else {
        err = XCHG_Alltoall_init(sbuf, COUNT, MPI_INT, got, COUNT, MPI_INT, comm, MPI_INFO_NULL,
                                 &req);
        CHECK_MPI(PMPI_Alltoall(sbuf, COUNT, MPI_INT, want, COUNT, MPI_INT, comm));
    }
    check(err == MPI_SUCCESS && memcmp(got, before, n * sizeof(int)) == 0, what,
          err == MPI_SUCCESS ? "the receive buffer changed at init" : XCHG_Last_error());
    if (err == MPI_SUCCESS) err = XCHG_Start(&req);
    if (err == MPI_SUCCESS) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS) err = XCHG_Request_free(&req);
    check(err == MPI_SUCCESS && memcmp(got, want, n * sizeof(int)) == 0, what,
          err == MPI_SUCCESS ? "result differs from PMPI" : XCHG_Last_error());
    check_same_choice_on(comm, coll, what, chosen);
    CHECK_MPI(MPI_Type_free(&pair));
    free(sc), free(st), free(send), free(got), free(want), free(before);
}

/* chosen against want: the same algorithm (up to its parameters). */
static void expect(const char *chosen, const char *want, int same, const char *what)
{
    char detail[3 * NAME_LEN];
    size_t len = strcspn(want, ":");
    int equal = strncmp(chosen, want, len) == 0 && (chosen[len] == '\0' || chosen[len] == ':');
    snprintf(detail, sizeof detail, "ran %s, expected %s%s", chosen, same ? "" : "neither mpi nor ",
             want);
    check(same ? equal : !equal && strncmp(chosen, "mpi", 4) != 0, what, detail);
}

/* The cost model's choice for `coll` on a fresh communicator (XCHG_ONLINE=0). */
static void model_choice(const char *coll, char *model)
{
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    setenv("XCHG_ONLINE", "0", 1);
    one_request(comm, coll, 0, "dense init: XCHG_ONLINE=0", model);
    unsetenv("XCHG_ONLINE");
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* agreed, remembered and fresh for alltoall (online.c's test hook reads
 * the registry name, before any ':'). */
static void measured(int P)
{
    char model[NAME_LEN], chosen[NAME_LEN], first[NAME_LEN], times[3 * NAME_LEN];
    MPI_Comm comm;
    model_choice("alltoall", model);
    model[strcspn(model, ":")] = '\0';
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    snprintf(times, sizeof times, "0:mpi=40,%s=100,*=80;*:%s=20,mpi=90,*=50", model, model);
    setenv("XCHG_TEST_ONLINE_TIMES", times, 1);
    one_request(comm, "alltoall", 0, "dense init: agreed", chosen);
    expect(chosen, P == 1 ? "mpi" : model, P == 1, "dense init: agreed (slowest ranks' times)");
    setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=10,*=100", 1);
    snprintf(first, sizeof first, "%s", chosen);
    one_request(comm, "alltoall", 0, "dense init: remembered", chosen);
    expect(chosen, first, 1, "dense init: remembered");
    CHECK_MPI(MPI_Comm_free(&comm));

    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    one_request(comm, "alltoall", 0, "dense init: fresh", chosen);
    expect(chosen, "mpi", 1, "dense init: fresh");
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* What blocking calls learned is taken as it is. */
static void learned(void)
{
    char chosen[NAME_LEN];
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=100,*=2000", 1);
    calls_until_decided(comm, "alltoall", COUNT, "dense init: blocking calls decide mpi");
    setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=2000,*=100", 1);
    one_request(comm, "alltoall", 0, "dense init: learned", chosen);
    expect(chosen, "mpi", 1, "dense init: the winner blocking calls learned");
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* A strided datatype (2 doubles 3 apart: a hole in every element and
 * between elements) through the measured init of an alltoall: the scratch
 * buffers follow its extents, and the request, whichever candidate won,
 * gives PMPI's bytes, holes included. */
static void strided_request(int P)
{
    size_t n = 6 * (size_t)P + 8;
    double *send = malloc(n * sizeof(double)), *got = malloc(n * sizeof(double)),
           *want = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        send[i] = world_rank * 1000 + (double)i, got[i] = want[i] = -1 - (double)i;
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    const char *what = "dense init: a strided datatype";
    XCHG_Request req;
    int err = XCHG_Alltoall_init(send, 1, strided, got, 1, strided, comm, MPI_INFO_NULL, &req);
    if (err == MPI_SUCCESS) err = XCHG_Start(&req);
    if (err == MPI_SUCCESS) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS) err = XCHG_Request_free(&req);
    CHECK_MPI(PMPI_Alltoall(send, 1, strided, want, 1, strided, comm));
    check(err == MPI_SUCCESS && memcmp(got, want, n * sizeof(double)) == 0, what,
          err == MPI_SUCCESS ? "result differs from PMPI_Alltoall" : XCHG_Last_error());
    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Type_free(&strided));
    free(send), free(got), free(want);
}

void persistent_dense_init(void)
{
    int P;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    measured(P);
    learned();
    strided_request(P);
    unsetenv("XCHG_TEST_ONLINE_TIMES");
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    char what[NAME_LEN];
    for (int c = 0; c < NCOLLS; c++)
        for (int in_place = 0; in_place < 2; in_place++) {
            snprintf(what, sizeof what, "dense init: %s%s", colls[c], in_place ? " in place" : "");
            one_request(comm, colls[c], in_place, what, NULL);
        }
    CHECK_MPI(MPI_Comm_free(&comm));
}
