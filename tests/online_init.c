/*
 * Online selection at a persistent neighbourhood init
 * (src/select/online_init.c), part of xchg-online: on a ring (both
 * neighbours, rank-dependent counts, one of them 0), each case an init, a
 * start and a wait, the result checked against PMPI_Neighbor_alltoallv on
 * the same distributed graph and the algorithm the start ran checked the
 * same on every rank and against what the forced times
 * (XCHG_TEST_ONLINE_TIMES) make the winner:
 *   agreed     rank 0 reads `mpi` fastest (40 us; `locality` 80,
 *              `standard` 100), the others `standard` (20; `locality` 50,
 *              `mpi` 90): the slowest ranks' times make `locality` the
 *              winner (80 against 90 and 100), which no rank's own
 *              would; on one rank `mpi`;
 *   remembered the same pattern initialized again on the same
 *              communicator under times that favour `mpi`: the first
 *              winner, not measured again;
 *   fresh      a new communicator under those times: `mpi`;
 *   no graph   an XCHG_Topo on a communicator without a graph: `mpi`
 *              cannot run there; `locality` forced fastest wins;
 *   strided    a derived datatype with holes (2 doubles 3 apart): the
 *              result, holes included, is PMPI's;
 *   off        XCHG_ONLINE=0: the model's choice, as a blocking call's (whose
 *              `standard` runs as `mpi`).
 * Every init leaves the receive buffer as it was until the start.
 */
#include "online_common.h"

typedef struct ring {
    int nbr[2], sc[2], sd[2], rc[2], rd[2], stotal, rtotal;
} ring;

/* Rank me's ring: blocks of 1 + (from + 2 to) % 3 doubles, none from rank
 * 1 to its right neighbour (P >= 3). */
static int ring_count(int from, int to, int P)
{
    return from == 1 && to == (from + 1) % P && P >= 3 ? 0 : 1 + (from + 2 * to) % 3;
}

static ring ring_of(int me, int P)
{
    ring g;
    g.nbr[0] = (me + P - 1) % P, g.nbr[1] = (me + 1) % P;
    g.stotal = g.rtotal = 0;
    for (int i = 0; i < 2; i++) {
        g.sc[i] = ring_count(me, g.nbr[i], P), g.sd[i] = g.stotal, g.stotal += g.sc[i];
        g.rc[i] = ring_count(g.nbr[i], me, P), g.rd[i] = g.rtotal, g.rtotal += g.rc[i];
    }
    return g;
}

static MPI_Comm graph_of(const ring *g)
{
    MPI_Comm graph;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, g->nbr, g->rc, 2, g->nbr, g->sc,
                                             MPI_INFO_NULL, 0, &graph));
    return graph;
}

/* One persistent request on `graph` (or on `topo`, over `on`, when not
 * NULL): init, start, wait, free; checked against PMPI on `graph`; the
 * algorithm it ran into chosen. */
static void one_request(MPI_Comm graph, XCHG_Topo topo, MPI_Comm on, const ring *g,
                        const char *what, char *chosen)
{
    double send[8], got[8], want[8], before[8];
    for (int i = 0; i < 8; i++) send[i] = world_rank * 100 + i, got[i] = before[i] = -1 - i;
    XCHG_Request req;
    int err = topo ? XCHG_Neighbor_alltoallv_topo_init(topo, send, g->sc, g->sd, MPI_DOUBLE, got,
                                                       g->rc, g->rd, MPI_DOUBLE, on,
                                                       MPI_INFO_NULL, &req)
                   : XCHG_Neighbor_alltoallv_init(send, g->sc, g->sd, MPI_DOUBLE, got, g->rc,
                                                  g->rd, MPI_DOUBLE, graph, MPI_INFO_NULL, &req);
    check(err == MPI_SUCCESS && memcmp(got, before, sizeof got) == 0, what,
          err == MPI_SUCCESS ? "the receive buffer changed at init" : XCHG_Last_error());
    if (err == MPI_SUCCESS) err = XCHG_Start(&req);
    if (err == MPI_SUCCESS) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS) err = XCHG_Request_free(&req);
    CHECK_MPI(PMPI_Neighbor_alltoallv(send, g->sc, g->sd, MPI_DOUBLE, want, g->rc, g->rd,
                                      MPI_DOUBLE, graph));
    check(err == MPI_SUCCESS && memcmp(got, want, (size_t)g->rtotal * sizeof(double)) == 0, what,
          err == MPI_SUCCESS ? "result differs from PMPI_Neighbor_alltoallv" : XCHG_Last_error());
    check_same_choice_on(topo ? on : graph, "neighbor_alltoallv", what, chosen);
}

static void expect(const char *chosen, const char *want, const char *what)
{
    char detail[2 * NAME_LEN];
    snprintf(detail, sizeof detail, "ran %s, expected %s", chosen, want);
    check(strncmp(chosen, want, strlen(want)) == 0, what, detail);
}

/* A strided datatype (2 doubles 3 apart: a hole in every element and
 * between elements): the scratch buffers follow its extents, and the
 * request, whichever candidate won, gives PMPI's bytes, holes included. */
static void derived_request(MPI_Comm graph, const ring *g)
{
    enum { LEN = 64 };
    double send[LEN], got[LEN], want[LEN], before[LEN];
    for (int i = 0; i < LEN; i++)
        send[i] = world_rank * 1000 + i, got[i] = want[i] = before[i] = -1 - i;
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    const char *what = "neighbour init: a strided datatype";
    XCHG_Request req;
    int err = XCHG_Neighbor_alltoallv_init(send, g->sc, g->sd, strided, got, g->rc, g->rd, strided,
                                           graph, MPI_INFO_NULL, &req);
    check(err == MPI_SUCCESS && memcmp(got, before, sizeof got) == 0, what,
          err == MPI_SUCCESS ? "the receive buffer changed at init" : XCHG_Last_error());
    if (err == MPI_SUCCESS) err = XCHG_Start(&req);
    if (err == MPI_SUCCESS) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS) err = XCHG_Request_free(&req);
    CHECK_MPI(PMPI_Neighbor_alltoallv(send, g->sc, g->sd, strided, want, g->rc, g->rd, strided,
                                      graph));
    check(err == MPI_SUCCESS && memcmp(got, want, sizeof got) == 0, what,
          err == MPI_SUCCESS ? "result differs from PMPI_Neighbor_alltoallv" : XCHG_Last_error());
    CHECK_MPI(MPI_Type_free(&strided));
}

void persistent_neighbor_init(void)
{
    int P;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    ring g = ring_of(world_rank, P);
    char chosen[NAME_LEN], model[NAME_LEN];
    MPI_Comm graph = graph_of(&g);

    setenv("XCHG_TEST_ONLINE_TIMES", "0:mpi=40,locality=80,*=100;*:standard=20,locality=50,mpi=90", 1);
    one_request(graph, NULL, graph, &g, "neighbour init: agreed", chosen);
    expect(chosen, P == 1 ? "mpi" : "locality", "neighbour init: agreed");

    setenv("XCHG_TEST_ONLINE_TIMES", "*:mpi=10,*=100", 1);
    one_request(graph, NULL, graph, &g, "neighbour init: remembered", chosen);
    expect(chosen, P == 1 ? "mpi" : "locality", "neighbour init: remembered");
    CHECK_MPI(MPI_Comm_free(&graph));

    graph = graph_of(&g);
    one_request(graph, NULL, graph, &g, "neighbour init: fresh", chosen);
    expect(chosen, "mpi", "neighbour init: fresh");
    CHECK_MPI(MPI_Comm_free(&graph));

    XCHG_Topo topo;
    MPI_Comm plain;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &plain));
    CHECK_MPI(XCHG_Topo_create(plain, 2, g.nbr, 2, g.nbr, &topo));
    graph = graph_of(&g); /* PMPI's reference only */
    setenv("XCHG_TEST_ONLINE_TIMES", "*:locality=10,standard=100,*=5", 1);
    one_request(graph, topo, plain, &g, "neighbour init: no graph", chosen);
    expect(chosen, "locality", "neighbour init: no graph");
    CHECK_MPI(XCHG_Topo_free(&topo));
    CHECK_MPI(MPI_Comm_free(&plain));
    CHECK_MPI(MPI_Comm_free(&graph));

    graph = graph_of(&g);
    derived_request(graph, &g);
    CHECK_MPI(MPI_Comm_free(&graph));

    setenv("XCHG_ONLINE", "0", 1);
    graph = graph_of(&g);
    one_request(graph, NULL, graph, &g, "neighbour init: XCHG_ONLINE=0", chosen);
    double send[8] = {0}, got[8];
    CHECK_MPI(XCHG_Neighbor_alltoallv(send, g.sc, g.sd, MPI_DOUBLE, got, g.rc, g.rd, MPI_DOUBLE,
                                      graph));
    check_same_choice_on(graph, "neighbor_alltoallv", "neighbour init: XCHG_ONLINE=0", model);
    /* a blocking call runs the model's `standard` as `mpi`
     * (src/select/select_neighbor.c), an init keeps it (it may serve an
     * XCHG_Topo without the graph) */
    expect(chosen, strcmp(model, "mpi") == 0 ? "standard" : model,
           "neighbour init: XCHG_ONLINE=0 (the model's, as a blocking call's)");
    CHECK_MPI(MPI_Comm_free(&graph));
    unsetenv("XCHG_ONLINE");
    unsetenv("XCHG_TEST_ONLINE_TIMES");
}
