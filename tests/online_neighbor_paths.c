/*
 * What a neighbourhood alltoallv chooses and how it runs it, part of
 * xchg-online's nonblocking phase. Each result is checked byte for byte
 * against PMPI_Neighbor_alltoallv, the algorithm the same on every rank.
 * Nonblocking (src/select/select.h: xchg_select_nonblocking_now: `mpi` with
 * no explicit choice, no tuning rule and XCHG_ONLINE on; src/persistent.c:
 * posted at the call; src/nonblocking_fast.c: the fast path of the next):
 *   posted   on a ring graph with a chord from rank 0 to rank P/2, four
 *            calls: the first, a task (it sets the new communicator's
 *            context up, which needs messages), the normal path (posted at
 *            the call, no task after the start; it arms the fast path), the
 *            fast path, and the fast path with other counts and
 *            displacements (it takes any);
 *            then MPI_IN_PLACE is refused with MPI_ERR_BUFFER (the normal
 *            path's error; MPI does not allow it here), as in blocking calls;
 *   explicit XCHG_Comm_set_algorithm(`standard`) disarms the path: the next
 *            call runs `standard`, posted at the call too (one round);
 *   behind   a task of the graph's communicator ahead on odd ranks (a
 *            nonblocking alltoallv that a tuning rule makes agree its
 *            sizes), none on even ones: the neighbourhood call posts at
 *            once on even ranks and runs in a task behind it on odd ones,
 *            and both choose `mpi`.
 * Blocking (src/neighbor_fast.c: after a call ran `mpi`, the next goes to
 * the library; src/select/select_neighbor.c: the model's `standard` runs
 * as `mpi`):
 *   model    the ring's calls run `mpi`, each leaving the fast path armed
 *            (the last with other counts); MPI_IN_PLACE on call 5 (the
 *            path's: no agreement falls on it) gets the normal path's
 *            error; XCHG_Comm_set_algorithm(`standard`) disarms the path,
 *            and the next call runs `standard`;
 *   sampled  a tuning file's rules by the agreed bytes per message (`mpi`
 *            up to 63 B, `standard` above): calls 0-7 of 4-12 B, then of
 *            160-168 B; the agreements of XCHG_AGREE=sampled fall on calls
 *            0, 1, 4 and 16 whichever path the calls between take, so calls
 *            0-15 run `mpi` (8-15 on the fast path, on the choice agreed at
 *            call 4) and calls 16-19 `standard`, the path disarmed.
 */
#include <unistd.h>

#include "online_common.h"
#include "select/tuning.h"

/* The ring both ways, and 0 -> P/2 (P >= 4); a block between ranks a and b
 * has base + (a + b) % 3 ints, so sender and receiver agree on it. */
typedef struct ring {
    int in, out, sources[3], dests[3];
    int rc[3], rd[3], sc[3], sd[3], stotal, rtotal;
} ring;

static void ring_make(int me, int P, int base, ring *g)
{
    g->in = g->out = 0;
    for (int r = 0; r < P; r++) {
        int from = r == (me + 1) % P || r == (me + P - 1) % P || (me == P / 2 && r == 0 && P >= 4);
        int to = r == (me + 1) % P || r == (me + P - 1) % P || (me == 0 && r == P / 2 && P >= 4);
        if (from && r != me) g->sources[g->in++] = r;
        if (to && r != me) g->dests[g->out++] = r;
    }
    g->stotal = g->rtotal = 0;
    for (int i = 0; i < g->out; i++) /* what `me` sends its i-th destination */
        g->sc[i] = base + (me + g->dests[i]) % 3, g->sd[i] = g->stotal, g->stotal += g->sc[i];
    for (int i = 0; i < g->in; i++) /* what the source sends me: the same rule */
        g->rc[i] = base + (me + g->sources[i]) % 3, g->rd[i] = g->rtotal, g->rtotal += g->rc[i];
}

/* The graph, weighted by the counts (MPI_UNWEIGHTED makes GCC warn of a
 * read from a 0-byte region in Open MPI's mpi.h). */
static MPI_Comm graph_of(const ring *g)
{
    MPI_Comm graph;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, g->in, g->sources, g->rc, g->out,
                                             g->dests, g->sc, MPI_INFO_NULL, 0, &graph));
    CHECK_MPI(MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN));
    return graph;
}

/* A new communicator with the ring's graph (no xchg context yet). */
static MPI_Comm new_ring_graph(void)
{
    int me, P;
    ring g;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    ring_make(me, P, 1, &g);
    return graph_of(&g);
}

/* One call with `base`, nonblocking or blocking, against PMPI's; started:
 * whether a task was outstanding after a nonblocking call's start; ran:
 * the algorithm it ran. */
static void call_on(MPI_Comm graph, int base, int blocking, const char *what, int *started,
                    char *ran)
{
    int me, P;
    ring g;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    ring_make(me, P, base, &g);
    int *send = malloc(((size_t)g.stotal + 1) * sizeof(int));
    int *got = calloc((size_t)g.rtotal + 1, sizeof(int)), *want = calloc((size_t)g.rtotal + 1,
                                                                            sizeof(int));
    for (int i = 0; i < g.stotal; i++) send[i] = me * 1000 + base * 100 + i;
    XCHG_Request req;
    int err = blocking ? XCHG_Neighbor_alltoallv(send, g.sc, g.sd, MPI_INT, got, g.rc, g.rd,
                                                 MPI_INT, graph)
                       : XCHG_Ineighbor_alltoallv(send, g.sc, g.sd, MPI_INT, got, g.rc, g.rd,
                                                  MPI_INT, graph, &req);
    *started = xchg_tasks_outstanding();
    if (err == MPI_SUCCESS && !blocking) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
    CHECK_MPI(PMPI_Neighbor_alltoallv(send, g.sc, g.sd, MPI_INT, want, g.rc, g.rd, MPI_INT,
                                      graph));
    check(err == MPI_SUCCESS && memcmp(got, want, (size_t)g.rtotal * sizeof(int)) == 0, what,
          err == MPI_SUCCESS ? "result differs from PMPI_Neighbor_alltoallv" : XCHG_Last_error());
    check_same_choice_on(graph, "neighbor_alltoallv", what, ran);
    free(send), free(got), free(want);
}

/* call_on, nonblocking. */
static void neighbor_call(MPI_Comm graph, int base, const char *what, int *started, char *ran)
{
    call_on(graph, base, 0, what, started, ran);
}

/* The same, blocking (*started: 0). */
static void blocking_call(MPI_Comm graph, int base, const char *what, char *ran)
{
    int started;
    call_on(graph, base, 1, what, &started, ran);
}

static int armed(MPI_Comm graph, int blocking)
{
    xchg_context *ctx;
    CHECK_MPI(xchg_context_get(graph, &ctx));
    return blocking ? ctx->neighbor_fast.armed
                    : ctx->nonblocking_fast[XCHG_NEIGHBOR_ALLTOALLV].armed;
}

/* MPI_IN_PLACE, which MPI does not allow for a neighbourhood collective,
 * on a communicator whose fast paths are armed: the normal path's clear
 * error (MPI_ERR_BUFFER), not the library's reading of it. */
static void in_place_refused(MPI_Comm graph, int blocking, const char *what)
{
    int counts[3] = {1, 1, 1}, displs[3] = {0, 1, 2}, buf[3], cls = MPI_SUCCESS;
    XCHG_Request req = XCHG_REQUEST_NULL;
    int err = blocking ? XCHG_Neighbor_alltoallv(MPI_IN_PLACE, counts, displs, MPI_INT, buf,
                                                 counts, displs, MPI_INT, graph)
                       : XCHG_Ineighbor_alltoallv(MPI_IN_PLACE, counts, displs, MPI_INT, buf,
                                                  counts, displs, MPI_INT, graph, &req);
    if (err != MPI_SUCCESS) CHECK_MPI(MPI_Error_class(err, &cls));
    check(cls == MPI_ERR_BUFFER && req == XCHG_REQUEST_NULL &&
              strstr(XCHG_Last_error(), "MPI_IN_PLACE is not valid"),
          what, err == MPI_SUCCESS ? "MPI_IN_PLACE accepted" : XCHG_Last_error());
}

static void posted_and_explicit(void)
{
    int started;
    char what[128], ran[NAME_LEN];
    MPI_Comm graph = new_ring_graph();
    for (int call = 0; call < 4; call++) {
        snprintf(what, sizeof what, "neighbour posted, call %d", call);
        neighbor_call(graph, call < 3 ? 1 : 4, what, &started, ran);
        check(strcmp(ran, "mpi") == 0, what, ran);
        if (call == 0) continue; /* a task: the context's setup */
        check(!started, what, "a task was outstanding after the start");
        check(armed(graph, 0), what, "the fast path is not armed");
    }
    in_place_refused(graph, 0, "neighbour posted, MPI_IN_PLACE");
    CHECK_MPI(XCHG_Comm_set_algorithm(graph, "neighbor_alltoallv", "standard"));
    check(!armed(graph, 0), "neighbour explicit", "XCHG_Comm_set_algorithm left the path armed");
    neighbor_call(graph, 2, "neighbour explicit", &started, ran);
    check(strcmp(ran, "standard") == 0, "neighbour explicit", ran);
    check(!started, "neighbour explicit", "a task was outstanding after the start");
    check(!armed(graph, 0), "neighbour explicit", "standard armed the path of mpi");
    CHECK_MPI(MPI_Comm_free(&graph));
}

/* A nonblocking alltoallv on graph that agrees its sizes (a task: the
 * tuning file's rule reads them), waited for now on even ranks only. */
static XCHG_Request task_ahead(MPI_Comm graph, int *buf, int *counts, int *displs)
{
    int rank, P;
    CHECK_MPI(MPI_Comm_rank(graph, &rank));
    CHECK_MPI(MPI_Comm_size(graph, &P));
    for (int p = 0; p < P; p++) {
        counts[p] = 2, displs[p] = 2 * p;
        buf[2 * p] = buf[2 * p + 1] = rank;
    }
    XCHG_Request v;
    CHECK_MPI(XCHG_Ialltoallv(buf, counts, displs, MPI_INT, buf + 2 * P, counts, displs, MPI_INT,
                              graph, &v));
    if (rank % 2 == 0) CHECK_MPI(XCHG_Wait(&v, MPI_STATUS_IGNORE));
    return v;
}

/* Load a tuning file of `rules` (into path, removed by rules_unload);
 * 0 when this build reads none (without Jansson). */
static int rules_load(const char *rules, char *path, const char *what)
{
    int fd = mkstemp(path);
    int written = fd >= 0 && write(fd, rules, strlen(rules)) == (ssize_t)strlen(rules);
    if (fd >= 0) close(fd);
    if (written && xchg_tuning_load(path) == MPI_SUCCESS) return 1;
    check(1, what, "skipped (no tuning file)");
    unlink(path);
    return 0;
}

static void rules_unload(const char *path)
{
    CHECK_MPI(xchg_tuning_load(NULL));
    unlink(path);
}

static void behind(void)
{
    int me, P, started;
    char ran[NAME_LEN], path[] = "/tmp/xchg-online-neighbor-XXXXXX";
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    const char *rules = "{\"xchg_tuning\": 1, \"rules\": {\"alltoallv\": "
                        "[{\"bytes\": [0, 1000000000], \"algorithm\": \"mpi\"}]}}\n";
    if (!rules_load(rules, path, "neighbour behind")) return;
    MPI_Comm graph = new_ring_graph();
    int *buf = malloc(8 * (size_t)P * sizeof(int)), *counts = buf + 4 * P, *displs = counts + P;
    XCHG_Request v = task_ahead(graph, buf, counts, displs);
    int ahead = xchg_tasks_outstanding();
    neighbor_call(graph, 3, "neighbour behind", &started, ran);
    if (me % 2) CHECK_MPI(XCHG_Wait(&v, MPI_STATUS_IGNORE));
    check(strcmp(ran, "mpi") == 0, "neighbour behind: ran mpi", ran);
    check(me % 2 == 0 ? !ahead : P == 1 || ahead, "neighbour behind: a task ahead on odd ranks",
          ahead ? "a task ahead" : "none ahead");
    free(buf);
    rules_unload(path);
    CHECK_MPI(MPI_Comm_free(&graph));
}

static void blocking_model(void)
{
    char what[128], ran[NAME_LEN];
    MPI_Comm graph = new_ring_graph();
    for (int call = 0; call < 5; call++) { /* XCHG_AGREE=sampled agrees at 0, 1, 4 */
        snprintf(what, sizeof what, "neighbour blocking, call %d", call);
        blocking_call(graph, call < 3 ? 1 : 5, what, ran);
        check(strcmp(ran, "mpi") == 0, what, ran);
        check(armed(graph, 1), what, "the blocking fast path is not armed");
    }
    in_place_refused(graph, 1, "neighbour blocking, MPI_IN_PLACE"); /* call 5: the path's */
    CHECK_MPI(XCHG_Comm_set_algorithm(graph, "neighbor_alltoallv", "standard"));
    check(!armed(graph, 1), "neighbour blocking explicit", "set_algorithm left the path armed");
    blocking_call(graph, 2, "neighbour blocking explicit", ran);
    check(strcmp(ran, "standard") == 0, "neighbour blocking explicit", ran);
    CHECK_MPI(MPI_Comm_free(&graph));
}

static void blocking_sampled(void)
{
    int P;
    char what[128], ran[NAME_LEN], path[] = "/tmp/xchg-online-neighbor-XXXXXX";
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &P));
    const char *rules = "{\"xchg_tuning\": 1, \"rules\": {\"neighbor_alltoallv\": ["
                        "{\"bytes\": [0, 63], \"algorithm\": \"mpi\"},"
                        "{\"bytes\": [64, null], \"algorithm\": \"standard\"}]}}\n";
    if (P == 1 || !rules_load(rules, path, "neighbour blocking sampled")) return;
    MPI_Comm graph = new_ring_graph();
    for (int call = 0; call < 20; call++) {
        snprintf(what, sizeof what, "neighbour blocking sampled, call %d", call);
        blocking_call(graph, call < 8 ? 1 : 40, what, ran);
        const char *want = call < 16 ? "mpi" : "standard";
        check(strcmp(ran, want) == 0, what, ran);
        check(armed(graph, 1) == (call < 16), what, call < 16 ? "the path is not armed"
                                                             : "the path is still armed");
    }
    rules_unload(path);
    CHECK_MPI(MPI_Comm_free(&graph));
}

void nonblocking_neighbor_choice(void)
{
    posted_and_explicit();
    behind();
    blocking_model();
    blocking_sampled();
}
