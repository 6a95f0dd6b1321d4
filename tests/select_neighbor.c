/*
 * xchg-select's neighbourhood part (select.h): automatic selection of the
 * neighbourhood alltoallv on graphs whose degree and block sizes differ
 * between ranks, so that each rank's own inputs would choose differently
 * and only the agreement (src/select/neighbor_inputs.c) makes the choice
 * common:
 *   heavy  a multigraph: even ranks send 6 blocks to every other rank, odd
 *          ranks one; many off-node messages per rank (the cost model
 *          chooses locality on virtual nodes);
 *   ring   both ring neighbours, and rank 0 also rank P/2 (standard, which
 *          runs as mpi: src/select/select_neighbor.c);
 *   toggle the ring plus 30 blocks from rank 0 to rank P-1 and 30 more
 *          from rank 1 to rank 2 (P >= 4), each set empty or not, in three
 *          blocking calls: both full, both empty, the first full: at the
 *          third call ranks 0 and P-1 find the plan built at the first call,
 *          ranks 1 and 2 the one built at the second, the others the second
 *          too; plans whose init communicates are only valid together with
 *          the plans the other ranks built at the same call (src/core/plan.h),
 *          so this must rebuild. Under XCHG_NEIGHBOR_ALLTOALLV=locality and
 *          under automatic selection (XCHG_AGREE=always and sampled).
 * Each: a blocking call on a new pattern, the same pattern again (the
 * cached plan, no agreement), a nonblocking and a persistent call, then a
 * nonblocking call under XCHG_ONLINE=0, every result against
 * PMPI_Neighbor_alltoallv and the algorithm gathered
 * (XCHG_Comm_get_algorithm) and compared across ranks, and with call 0's
 * (the persistent call's only under XCHG_ONLINE=0: it measures; the first
 * nonblocking call's only under XCHG_ONLINE=0 or a tuning file: else it
 * runs `mpi`, src/select/select.h); then heavy under XCHG_AGREE=never (the
 * fixed rule: standard, as mpi).
 */
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "xchg.h"

typedef enum { HEAVY, RING, TOGGLE } graph_kind;
static const char *const kind_names[] = {"heavy", "ring", "toggle"};
static int toggle_on[2]; /* TOGGLE: the extra blocks 0 -> P-1, 1 -> 2 are not empty */

/* Blocks from s to t. */
static int multiplicity(graph_kind kind, int s, int t, int P)
{
    if (s == t) return 0;
    if (kind == HEAVY) return s % 2 == 0 ? 6 : 1;
    int m = (t == (s + 1) % P) + (t == (s + P - 1) % P);
    if (kind == TOGGLE) return m + 30 * ((s == 0 && t == P - 1) || (s == 1 && t == 2));
    return m + (s == 0 && P >= 4 && t == P / 2 && m == 0);
}

/* Elements (doubles) of the k-th block from s to t. */
static int count_of_block(graph_kind kind, int s, int t, int k)
{
    if (kind == TOGGLE && k >= 1) return toggle_on[s] ? 1 : 0; /* the extra 30 of s = 0, 1 */
    return kind == HEAVY ? 1 + (s + 2 * t + k) % 3 : 1 + (3 * s + t + k) % 4;
}

typedef struct pattern {
    int in, out;
    int *sources, *dests, *sc, *sd, *rc, *rd; /* one allocation */
    int stotal, rtotal;
} pattern;

static void pattern_make(graph_kind kind, int me, int P, pattern *p)
{
    int in = 0, out = 0;
    for (int r = 0; r < P; r++) in += multiplicity(kind, r, me, P), out += multiplicity(kind, me, r, P);
    p->in = in, p->out = out;
    p->sources = malloc(3 * ((size_t)in + (size_t)out + 1) * sizeof(int));
    p->rc = p->sources + in, p->rd = p->rc + in;
    p->dests = p->rd + in, p->sc = p->dests + out, p->sd = p->sc + out;
    p->stotal = p->rtotal = 0;
    int i = 0, o = 0;
    for (int r = 0; r < P; r++) {
        for (int k = 0; k < multiplicity(kind, r, me, P); k++, i++) {
            p->sources[i] = r, p->rc[i] = count_of_block(kind, r, me, k);
            p->rd[i] = p->rtotal, p->rtotal += p->rc[i];
        }
        for (int k = 0; k < multiplicity(kind, me, r, P); k++, o++) {
            p->dests[o] = r, p->sc[o] = count_of_block(kind, me, r, k);
            p->sd[o] = p->stotal, p->stotal += p->sc[o];
        }
    }
}

typedef enum { BLOCKING, NONBLOCKING, PERSISTENT } call_kind;
static const char *const call_names[] = {"blocking", "nonblocking", "persistent"};

/* Online selection is on: a persistent init measures its candidates
 * (src/select/online_init.c; tests/online_init.c), so it may choose other
 * than the model, whose choice the blocking and nonblocking calls keep. */
static int online_on(void)
{
    const char *env = getenv("XCHG_ONLINE");
    return !env || strcmp(env, "0") != 0;
}

/* A nonblocking call's choice is `mpi`, unless the model or a tuning rule
 * reads its pattern (select.h: xchg_select_nonblocking_now). */
static int nonblocking_runs_library(void)
{
    const char *file = getenv("XCHG_TUNING_FILE");
    return online_on() && !(file && *file);
}

/* One call of `how` on `graph` against PMPI's; the algorithm it used in
 * `chosen`. */
static void neighbor_call(MPI_Comm graph, const pattern *p, call_kind how, const char *what,
                          char *chosen)
{
    double *send = malloc(((size_t)p->stotal + 1) * sizeof(double));
    double *got = calloc((size_t)p->rtotal + 1, sizeof(double));
    double *want = calloc((size_t)p->rtotal + 1, sizeof(double));
    for (int i = 0; i < p->stotal; i++) send[i] = world_rank * 1e6 + i + 0.5 * how;
    int err;
    XCHG_Request req;
    if (how == BLOCKING) {
        err = XCHG_Neighbor_alltoallv(send, p->sc, p->sd, MPI_DOUBLE, got, p->rc, p->rd,
                                      MPI_DOUBLE, graph);
    } else {
        err = how == NONBLOCKING
                  ? XCHG_Ineighbor_alltoallv(send, p->sc, p->sd, MPI_DOUBLE, got, p->rc, p->rd,
                                             MPI_DOUBLE, graph, &req)
                  : XCHG_Neighbor_alltoallv_init(send, p->sc, p->sd, MPI_DOUBLE, got, p->rc,
                                                 p->rd, MPI_DOUBLE, graph, MPI_INFO_NULL, &req);
        if (err == MPI_SUCCESS && how == PERSISTENT) err = XCHG_Start(&req);
        if (err == MPI_SUCCESS) err = XCHG_Wait(&req, MPI_STATUS_IGNORE);
        if (err == MPI_SUCCESS && how == PERSISTENT) err = XCHG_Request_free(&req);
    }
    CHECK_MPI(PMPI_Neighbor_alltoallv(send, p->sc, p->sd, MPI_DOUBLE, want, p->rc, p->rd,
                                      MPI_DOUBLE, graph));
    check(err == MPI_SUCCESS && memcmp(got, want, (size_t)p->rtotal * sizeof(double)) == 0,
          what, err == MPI_SUCCESS ? "result differs from PMPI_Neighbor_alltoallv"
                                   : XCHG_Last_error());
    check_same_choice_on(graph, "neighbor_alltoallv", what, chosen);
    free(send), free(got), free(want);
}

/* The pattern's graph, weighted by the block sizes (MPI_UNWEIGHTED makes
 * GCC warn of a read from a 0-byte region in Open MPI's mpi.h). */
static MPI_Comm graph_of(MPI_Comm on, const pattern *p)
{
    MPI_Comm graph;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(on, p->in, p->sources, p->rc, p->out, p->dests,
                                             p->sc, MPI_INFO_NULL, 0, &graph));
    CHECK_MPI(MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN));
    return graph;
}

/* What the cost model must choose, or NULL when this run does not say:
 * only on virtual nodes (more than one), P >= 4, without a tuning file. */
static const char *expected(graph_kind kind, int P)
{
    const char *nodes = getenv("XCHG_VIRTUAL_NODES"), *file = getenv("XCHG_TUNING_FILE");
    if (!nodes || !*nodes || strcmp(nodes, "1") == 0 || (file && *file) || P < 4) return NULL;
    return kind == HEAVY ? "locality" : "mpi"; /* the model's standard runs as mpi */
}

static void check_expected(const char *want, const char *chosen, const char *what)
{
    if (!want) return;
    char detail[NAME_LEN + 64];
    snprintf(detail, sizeof detail, "chose %s, expected %s", chosen, want);
    check(strncmp(chosen, want, strlen(want)) == 0, what, detail);
}

/* TOGGLE (P >= 4): three blocking calls, extra blocks (0 -> P-1, 1 -> 2)
 * full and full, empty and empty, full and empty. */
static void toggle_case(MPI_Comm on, int me, int P, const char *name, const char *mode)
{
    static const int full[3][2] = {{1, 1}, {0, 0}, {1, 0}};
    char what[200];
    pattern p[3];
    for (int c = 0; c < 3; c++) {
        toggle_on[0] = full[c][0], toggle_on[1] = full[c][1];
        pattern_make(TOGGLE, me, P, &p[c]);
    }
    MPI_Comm graph = graph_of(on, &p[0]);
    for (int c = 0; c < 3; c++) {
        snprintf(what, sizeof what, "%s: neighbor_alltoallv toggle graph, %s, call %d", name,
                 mode, c);
        neighbor_call(graph, &p[c], BLOCKING, what, NULL);
    }
    CHECK_MPI(MPI_Comm_free(&graph));
    for (int c = 0; c < 3; c++) free(p[c].sources);
}

void neighbor_suite(MPI_Comm on, const char *name)
{
    int me, P;
    CHECK_MPI(MPI_Comm_rank(on, &me));
    CHECK_MPI(MPI_Comm_size(on, &P));
    char what[200], chosen[NAME_LEN], first[NAME_LEN];
    for (graph_kind kind = HEAVY; kind <= RING; kind++) {
        pattern p;
        pattern_make(kind, me, P, &p);
        MPI_Comm graph = graph_of(on, &p);
        int turned_off = 0; /* call 4: XCHG_ONLINE=0 set here */
        for (int c = 0; c < 5; c++) { /* blocking twice (a new pattern, then cached) */
            call_kind how = c < 2 ? BLOCKING : c == 4 ? NONBLOCKING : (call_kind)(c - 1);
            if (c == 4 && online_on()) { /* the model's choice, agreed */
                setenv("XCHG_ONLINE", "0", 1); /* read as constant once the fast path */
                turned_off = 1;                /* is armed: a new communicator */
                CHECK_MPI(MPI_Comm_free(&graph));
                graph = graph_of(on, &p);
            }
            snprintf(what, sizeof what, "%s: neighbor_alltoallv %s graph, %s call %d%s", name,
                     kind_names[kind], call_names[how], c, c == 4 ? " XCHG_ONLINE=0" : "");
            neighbor_call(graph, &p, how, what, c == 0 ? first : chosen);
            int library = how == NONBLOCKING && nonblocking_runs_library();
            if (library)
                check(strcmp(chosen, "mpi") == 0, what, "a nonblocking call did not run mpi");
            else if (c > 0 && (how != PERSISTENT || !online_on()))
                check(strcmp(chosen, first) == 0, what, "another choice than call 0");
        }
        if (turned_off) unsetenv("XCHG_ONLINE");
        check_expected(expected(kind, P), first, what);
        CHECK_MPI(MPI_Comm_free(&graph));
        if (kind == HEAVY) { /* no agreement: the fixed rule */
            setenv("XCHG_AGREE", "never", 1);
            graph = graph_of(on, &p);
            snprintf(what, sizeof what, "%s: neighbor_alltoallv heavy graph, XCHG_AGREE=never",
                     name);
            neighbor_call(graph, &p, BLOCKING, what, chosen);
            check_expected(expected(kind, P) ? "mpi" : NULL, chosen, what);
            CHECK_MPI(MPI_Comm_free(&graph));
            unsetenv("XCHG_AGREE");
        }
        free(p.sources);
    }
    if (P < 4) return;
    setenv("XCHG_NEIGHBOR_ALLTOALLV", "locality", 1);
    toggle_case(on, me, P, name, "XCHG_NEIGHBOR_ALLTOALLV=locality");
    unsetenv("XCHG_NEIGHBOR_ALLTOALLV");
    setenv("XCHG_AGREE", "always", 1);
    toggle_case(on, me, P, name, "XCHG_AGREE=always");
    unsetenv("XCHG_AGREE");
    toggle_case(on, me, P, name, "XCHG_AGREE=sampled");
}
