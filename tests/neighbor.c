/*
 * xchg-neighbor: the neighbourhood alltoallv against the MPI library's own
 * PMPI_Neighbor_alltoallv on the same distributed-graph communicator, byte
 * for byte (gaps of the receive buffer included).
 *
 * Random graphs (seeded, the same on every rank): out-degrees 0..P-1,
 * asymmetric, self loops and repeated neighbours, one rank without
 * neighbours, one that only sends, one that only receives; counts with
 * zeros; datatypes with extent == size and a resized vector whose extent is
 * not its size; displacements in reverse order with gaps. Every
 * neighbourhood algorithm of the registry runs (with its defaults; locality
 * also with balance=bytes and with dedup=1, which without indices is
 * dedup=0), each graph under one of six virtual node layouts (nodes of 2,
 * "3,2,4" cyclic, "1,5" cyclic, one node, nodes of 3 cyclic, "3,2,4" block;
 * --layouts=N uses the first N; set
 * before the graph's communicators are made, since a context reads its
 * topology once): the blocking call, the nonblocking one (twice: the
 * second on the cached plan), a persistent request started several
 * times (send buffer changed between starts; completed by XCHG_Wait and by
 * polling XCHG_Test), and XCHG_Topo on a communicator without a graph (an
 * algorithm on MPI's own graph must refuse that with MPI_ERR_TOPOLOGY).
 *
 * The _ext inits (global indices from a global numbering: the value with
 * index g holds bytes that are a function of g): a dense graph (every rank
 * to every rank) under every layout and `--ext` random graphs, each with
 * distinct indices, heavy duplication (a pool of 3 values per rank) and the
 * same list on every edge, every algorithm, 3 starts with new values.
 * XCHG_Neighbor_stats_get against standard's: locality sends no more
 * messages between regions in total (on the dense graph on no rank either),
 * exactly one per region pair on the dense graph, the same bytes without
 * dedup and fewer with it where a region holds two ranks.
 * Then bad input: a clear error class and the receive buffer untouched
 * (indices that disagree on one rank's block fail the _ext init everywhere
 * with MPI_ERR_ARG).
 *
 * usage: mpirun -n P xchg-neighbor [--graphs=N] [--seed=S] [--starts=K]
 *        [--ext=N] [--layouts=N] [--all-types] [--verbose]
 * Each case runs one of the three datatypes in turn (--all-types: all).
 * The last line is "N passed, N failed"; the exit status is 1 on failure.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include "xchg.h"

/* From the library (src/core/topology.h): the node of each rank under a
 * virtual layout, to know how many regions a layout makes. */
int xchg_virtual_layout(const char *nodes_spec, const char *placement, int size,
                        int *node_of_rank);

static int rank, nranks;
static int passed, failed;
static long edges, self_loops, repeated, empty_blocks; /* what the graphs covered */
static char current[1536]; /* the case being checked, for FAIL lines */
static int verbose;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A case passes when it passes on every rank. */
static void record(int ok, const char *what)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (verbose && rank == 0) printf("%s: %s\n", all ? "ok" : "FAILED", current), fflush(stdout);
    if (all) passed++;
    else failed++;
    if (!ok) printf("FAIL rank %d: %s: %s (%s)\n", rank, current, what, XCHG_Last_error());
}

/* ---- graphs ------------------------------------------------------------ */

typedef struct graph {
    int indegree, outdegree;
    int *sources, *destinations;  /* this rank's lists */
    int *recvcounts, *sendcounts; /* per neighbour, elements */
    int *recvedge, *sendedge;     /* per neighbour, the edge's global number */
} graph;

/* Edges s->d of the whole graph, in a global order; counts per edge. Roles:
 * `lonely` has no edges, `sender` receives nothing, `receiver` sends nothing. */
static void graph_make(uint64_t seed, int max_count, graph *g)
{
    int P = nranks, lonely = (int)(seed % (uint64_t)P), sender = (lonely + 1) % P,
        receiver = (lonely + 2) % P;
    int cap = P * P + 1, n = 0;
    int *from = malloc((size_t)cap * sizeof(int)), *to = malloc((size_t)cap * sizeof(int));
    int *count = malloc((size_t)cap * sizeof(int));
    for (int s = 0; s < P; s++) {
        int degree = (int)(mix(seed ^ (uint64_t)s * 131) % (uint64_t)P); /* 0..P-1 */
        for (int k = 0; k < degree; k++) {
            uint64_t r = mix(seed + (uint64_t)s * 7919 + (uint64_t)k);
            int d = (int)(r % (uint64_t)P);
            if (k == 1 && degree > 2 && n > 0) d = to[n - 1]; /* a repeated neighbour */
            if (P > 3 && (s == lonely || s == receiver || d == lonely || d == sender)) continue;
            from[n] = s, to[n] = d;
            count[n++] = (r >> 20) % 4 == 0 ? 0 : (int)((r >> 24) % (uint64_t)max_count) + 1;
        }
    }
    for (int e = 0; e < n; e++) {
        edges++;
        self_loops += from[e] == to[e];
        empty_blocks += count[e] == 0;
        for (int f = 0; f < e; f++)
            if (from[f] == from[e] && to[f] == to[e]) {
                repeated++;
                break;
            }
    }
    memset(g, 0, sizeof *g);
    g->sources = malloc((size_t)(n + 1) * sizeof(int));
    g->destinations = malloc((size_t)(n + 1) * sizeof(int));
    g->recvcounts = malloc((size_t)(n + 1) * sizeof(int));
    g->sendcounts = malloc((size_t)(n + 1) * sizeof(int));
    g->recvedge = malloc((size_t)(n + 1) * sizeof(int));
    g->sendedge = malloc((size_t)(n + 1) * sizeof(int));
    for (int e = 0; e < n; e++)
        if (from[e] == rank) {
            g->destinations[g->outdegree] = to[e];
            g->sendedge[g->outdegree] = e;
            g->sendcounts[g->outdegree++] = count[e];
        }
    /* Sources by descending sender, edge order kept per sender (the order
     * in which repeated edges between one pair are matched). */
    for (int s = P - 1; s >= 0; s--)
        for (int e = 0; e < n; e++)
            if (to[e] == rank && from[e] == s) {
                g->sources[g->indegree] = s;
                g->recvedge[g->indegree] = e;
                g->recvcounts[g->indegree++] = count[e];
            }
    free(from), free(to), free(count);
}

static void graph_free(graph *g)
{
    free(g->sources), free(g->destinations), free(g->recvcounts), free(g->sendcounts);
    free(g->recvedge), free(g->sendedge);
}

/* ---- datatypes and buffers --------------------------------------------- */

typedef struct test_type {
    const char *name;
    MPI_Datatype type;
    MPI_Aint extent;
} test_type;

static int num_types;
static test_type types[3];

static void types_create(void)
{
    MPI_Datatype vec;
    types[0] = (test_type){"MPI_BYTE", MPI_BYTE, 1};
    types[1] = (test_type){"MPI_INT", MPI_INT, sizeof(int)};
    /* two ints 8 bytes apart, extent 20: size 8, extent 20 */
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 20, &types[2].type);
    MPI_Type_commit(&types[2].type);
    MPI_Type_free(&vec);
    types[2].name = "vector(2,1,2,int)/extent 20";
    types[2].extent = 20;
    num_types = 3;
}

/* Displacements in reverse neighbour order with a gap of one element. */
static size_t layout(int n, const int *counts, int *displs)
{
    int next = 1;
    for (int i = n - 1; i >= 0; i--) {
        displs[i] = next;
        next += counts[i] + 1;
    }
    return (size_t)next;
}

typedef struct buffers {
    int *sdispls, *rdispls;
    size_t send_bytes, recv_bytes;
    unsigned char *send, *recv, *ref, *before;
} buffers;

static void buffers_make(const graph *g, const test_type *t, buffers *b)
{
    b->sdispls = malloc((size_t)(g->outdegree + 1) * sizeof(int));
    b->rdispls = malloc((size_t)(g->indegree + 1) * sizeof(int));
    b->send_bytes = layout(g->outdegree, g->sendcounts, b->sdispls) * (size_t)t->extent;
    b->recv_bytes = layout(g->indegree, g->recvcounts, b->rdispls) * (size_t)t->extent;
    b->send = malloc(b->send_bytes);
    b->recv = malloc(b->recv_bytes);
    b->ref = malloc(b->recv_bytes);
    b->before = malloc(b->recv_bytes);
}

static void buffers_free(buffers *b)
{
    free(b->sdispls), free(b->rdispls), free(b->send), free(b->recv), free(b->ref), free(b->before);
}

static void fill_send(buffers *b, uint64_t salt)
{
    for (size_t i = 0; i < b->send_bytes; i++)
        b->send[i] = (unsigned char)mix(salt + (uint64_t)rank * 1000003 + i);
}

static void reset_recv(buffers *b, unsigned char fill)
{
    memset(b->recv, fill, b->recv_bytes);
    memset(b->ref, fill, b->recv_bytes);
    memcpy(b->before, b->recv, b->recv_bytes);
}

/* The reference on the graph communicator. */
static int reference(MPI_Comm gcomm, const graph *g, const test_type *t, buffers *b)
{
    return PMPI_Neighbor_alltoallv(b->send, g->sendcounts, b->sdispls, t->type, b->ref,
                                   g->recvcounts, b->rdispls, t->type, gcomm);
}

static int same(const buffers *b)
{
    return memcmp(b->recv, b->ref, b->recv_bytes) == 0;
}

/* ---- the checks -------------------------------------------------------- */

/* The algorithms to run: every neighbourhood algorithm of the registry with
 * its defaults, and the locality algorithm's parameter variants (balance,
 * dedup, regions smaller than nodes). */
static int num_sels;
static char sels[16][64];

static void selections_make(void)
{
    int count = 0;
    XCHG_Algorithm_count("neighbor_alltoallv", &count);
    for (int i = 0; i < count && num_sels < 12; i++) {
        char name[64];
        XCHG_Algorithm_describe("neighbor_alltoallv", i, name, sizeof name, NULL, 0);
        snprintf(sels[num_sels++], sizeof sels[0], "%s", name);
        if (!strcmp(name, "locality")) {
            snprintf(sels[num_sels++], sizeof sels[0], "locality:balance=bytes");
            /* without indices dedup=1 is dedup=0 */
            snprintf(sels[num_sels++], sizeof sels[0], "locality:dedup=1");
            /* regions smaller than nodes: two per node, and the sockets */
            snprintf(sels[num_sels++], sizeof sels[0], "locality:regions=2");
            snprintf(sels[num_sels++], sizeof sels[0], "locality:regions=socket");
        }
    }
}

static int has_class(int rc, int expected);

/* An algorithm that needs the communicator's distributed graph: it says so
 * in its summary ("the MPI library's own"). */
static int must_refuse_topo(const char *sel)
{
    return strncmp(sel, "mpi", 3) == 0 && (sel[3] == '\0' || sel[3] == ':');
}

/* The algorithm name of a selection string. */
static int same_algo(const char *used, const char *sel)
{
    size_t n = strcspn(sel, ":");
    return strncmp(used, sel, n) == 0 && (used[n] == '\0' || used[n] == ':');
}

static void check_blocking(MPI_Comm gcomm, const graph *g, const test_type *t, buffers *b,
                           const char *sel)
{
    fill_send(b, 1);
    reset_recv(b, 0xA5);
    int ok = reference(gcomm, g, t, b) == MPI_SUCCESS;
    ok = ok && XCHG_Comm_set_algorithm(gcomm, "neighbor_alltoallv", sel) == MPI_SUCCESS;
    ok = ok && XCHG_Neighbor_alltoallv(b->send, g->sendcounts, b->sdispls, t->type, b->recv,
                                       g->recvcounts, b->rdispls, t->type, gcomm) == MPI_SUCCESS;
    char used[128] = "";
    XCHG_Comm_get_algorithm(gcomm, "neighbor_alltoallv", 1, 0, used, sizeof used);
    record(ok && same(b) && same_algo(used, sel), "blocking result differs");
    /* The nonblocking call, twice with new data (the second reuses the
     * cached plan of the pattern). */
    for (int k = 0; k < 2; k++) {
        fill_send(b, 2 + (uint64_t)k);
        reset_recv(b, 0xC3);
        XCHG_Request req = XCHG_REQUEST_NULL;
        int ref = reference(gcomm, g, t, b) == MPI_SUCCESS;
        int rc = XCHG_Ineighbor_alltoallv(b->send, g->sendcounts, b->sdispls, t->type, b->recv,
                                          g->recvcounts, b->rdispls, t->type, gcomm, &req);
        int done = rc == MPI_SUCCESS && XCHG_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        record(ref && done && req == XCHG_REQUEST_NULL && same(b), "nonblocking result differs");
    }
    XCHG_Comm_set_algorithm(gcomm, "neighbor_alltoallv", NULL);
}

/* A persistent request started `starts` times; `topo` selects the
 * XCHG_Topo form on `comm`. */
static void check_persistent(MPI_Comm gcomm, MPI_Comm comm, XCHG_Topo topo, const graph *g,
                             const test_type *t, buffers *b, int starts, const char *sel)
{
    XCHG_Request req = XCHG_REQUEST_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "xchg_algorithm", sel);
    reset_recv(b, 0x5A);
    int rc = topo ? XCHG_Neighbor_alltoallv_topo_init(topo, b->send, g->sendcounts, b->sdispls,
                                                      t->type, b->recv, g->recvcounts,
                                                      b->rdispls, t->type, comm, info, &req)
                  : XCHG_Neighbor_alltoallv_init(b->send, g->sendcounts, b->sdispls, t->type,
                                                 b->recv, g->recvcounts, b->rdispls, t->type,
                                                 comm, info, &req);
    MPI_Info_free(&info);
    if (topo && comm != gcomm && must_refuse_topo(sel)) {
        /* an algorithm that runs on the communicator's graph (MPI's own)
         * refuses a neighbourhood without one, clearly, on every rank */
        record(has_class(rc, MPI_ERR_TOPOLOGY) && req == XCHG_REQUEST_NULL,
               "XCHG_Topo without a graph: not refused with MPI_ERR_TOPOLOGY");
        return;
    }
    int ok = rc == MPI_SUCCESS;
    for (int s = 0; s < starts; s++) { /* the reference is collective: every start */
        fill_send(b, 100 + (uint64_t)s); /* new data, same request */
        int ref = reference(gcomm, g, t, b) == MPI_SUCCESS;
        /* every rank starts and completes (a rank that skipped would
         * leave the others waiting), then judges */
        int done = req != XCHG_REQUEST_NULL && XCHG_Start(&req) == MPI_SUCCESS;
        if (done && s % 2 == 0) {
            done = XCHG_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        } else if (done) {
            int flag = 0;
            while (done && !flag) done = XCHG_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        }
        ok = ok && ref && done;
        ok = ok && same(b);
    }
    if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
    record(ok && req == XCHG_REQUEST_NULL, "persistent result differs");
}

/* ---- virtual node layouts ---------------------------------------------- */

/* Read when a communicator's context is first made: set before creating the
 * communicators of a case. */
static const char *const layouts[][2] = {
    {"2", "block"}, {"3,2,4", "cyclic"}, {"1,5", "cyclic"}, {"", ""}, {"3", "cyclic"},
    {"3,2,4", "block"},
};
/* --layouts=N: the first N (the ones that split 3 ranks come first) */
static int num_layouts = (int)(sizeof layouts / sizeof layouts[0]);
#define NUM_LAYOUTS num_layouts

static void layout_set(int k)
{
    if (layouts[k][0][0]) {
        setenv("XCHG_VIRTUAL_NODES", layouts[k][0], 1);
        setenv("XCHG_VIRTUAL_PLACEMENT", layouts[k][1], 1);
    } else {
        unsetenv("XCHG_VIRTUAL_NODES");
        unsetenv("XCHG_VIRTUAL_PLACEMENT");
    }
}

static const char *layout_name(int k)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%s%s%s", layouts[k][0][0] ? layouts[k][0] : "one node",
             layouts[k][1][0] ? "/" : "", layouts[k][1]);
    return buf;
}

/* The datatypes of case number `index`: all with --all-types, else one,
 * in turn (the cases cover every type several times). */
static int all_types;
static int type_first(int index) { return all_types ? 0 : index % num_types; }
static int type_end(int index) { return all_types ? num_types : index % num_types + 1; }

static void check_graph(uint64_t seed, int starts, int lay, int index)
{
    graph g;
    graph_make(seed, 40, &g);
    layout_set(lay);
    MPI_Comm gcomm, plain; /* plain: no graph, for XCHG_Topo */
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, g.indegree, g.sources, MPI_UNWEIGHTED,
                                   g.outdegree, g.destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &gcomm);
    XCHG_Topo topo;
    int ok = XCHG_Topo_create(plain, g.indegree, g.sources, g.outdegree, g.destinations, &topo) ==
             MPI_SUCCESS;
    for (int k = type_first(index); k < type_end(index); k++) {
        const test_type *t = &types[k];
        buffers b;
        buffers_make(&g, t, &b);
        for (int a = 0; a < num_sels; a++) {
            snprintf(current, sizeof current, "graph seed=%llu type=%s in=%d out=%d algo=%s "
                     "layout=%s", (unsigned long long)seed, t->name, g.indegree, g.outdegree,
                     sels[a], layout_name(lay));
            check_blocking(gcomm, &g, t, &b, sels[a]);
            check_persistent(gcomm, gcomm, NULL, &g, t, &b, starts, sels[a]);
            if (ok) {
                check_persistent(gcomm, plain, topo, &g, t, &b, starts, sels[a]); /* no graph */
                check_persistent(gcomm, gcomm, topo, &g, t, &b, 1, sels[a]); /* graph agrees */
            }
        }
        buffers_free(&b);
    }
    snprintf(current, sizeof current, "XCHG_Topo_create seed=%llu", (unsigned long long)seed);
    record(ok, "XCHG_Topo_create failed");
    if (ok) XCHG_Topo_free(&topo);
    MPI_Comm_free(&gcomm);
    MPI_Comm_free(&plain);
    graph_free(&g);
}

/* ---- global indices (the _ext inits, duplicate removal) ---------------- */

/* Every rank to every rank (itself included), `count` values per edge. */
static void graph_dense(int count, graph *g)
{
    int P = nranks;
    memset(g, 0, sizeof *g);
    g->sources = malloc((size_t)P * sizeof(int));
    g->destinations = malloc((size_t)P * sizeof(int));
    g->recvcounts = malloc((size_t)P * sizeof(int));
    g->sendcounts = malloc((size_t)P * sizeof(int));
    g->recvedge = malloc((size_t)P * sizeof(int));
    g->sendedge = malloc((size_t)P * sizeof(int));
    for (int r = 0; r < P; r++) {
        g->destinations[r] = r, g->sendcounts[r] = count, g->sendedge[r] = rank * P + r;
        g->sources[r] = r, g->recvcounts[r] = count, g->recvedge[r] = r * P + rank;
    }
    g->indegree = g->outdegree = P;
}

/* The global index of value k on edge e from rank `from`: with `dup`, a
 * pool of 3 values per rank that every edge draws from (heavy
 * duplication), else distinct per (edge, k); `same` gives every edge of a
 * rank the same list (the most duplication a region can remove). */
static int64_t gindex(int from, int e, int k, int dup, int same, uint64_t seed)
{
    if (same) return (int64_t)from * 1000003 + k;
    if (dup) return (int64_t)from * 1000003 + (int64_t)(mix(seed ^ ((uint64_t)e << 20) ^
                                                            (uint64_t)k) % 3);
    return (int64_t)from * 1000003 + 100 + (int64_t)e * 64 + k;
}

/* The bytes of the value with index gi: a function of the index (a value
 * with one index is one value), changed by `salt` between starts. */
static void value_bytes(int64_t gi, uint64_t salt, unsigned char *dst, MPI_Aint extent)
{
    for (MPI_Aint i = 0; i < extent; i++)
        dst[i] = (unsigned char)mix(salt * 7777 + (uint64_t)gi * 131 + (uint64_t)i);
}

typedef struct ext_case {
    int64_t *sidx, *ridx;
} ext_case;

static void ext_make(const graph *g, const buffers *b, const test_type *t, int dup, int same,
                     uint64_t seed, ext_case *x)
{
    size_t ns = b->send_bytes / (size_t)t->extent, nr = b->recv_bytes / (size_t)t->extent;
    x->sidx = malloc((ns + 1) * sizeof(int64_t));
    x->ridx = malloc((nr + 1) * sizeof(int64_t));
    for (size_t i = 0; i < ns; i++) x->sidx[i] = -1;
    for (size_t i = 0; i < nr; i++) x->ridx[i] = -1;
    for (int i = 0; i < g->outdegree; i++)
        for (int k = 0; k < g->sendcounts[i]; k++)
            x->sidx[b->sdispls[i] + k] = gindex(rank, g->sendedge[i], k, dup, same, seed);
    for (int i = 0; i < g->indegree; i++)
        for (int k = 0; k < g->recvcounts[i]; k++)
            x->ridx[b->rdispls[i] + k] = gindex(g->sources[i], g->recvedge[i], k, dup, same, seed);
}

static void ext_fill(const ext_case *x, const test_type *t, buffers *b, uint64_t salt)
{
    size_t ns = b->send_bytes / (size_t)t->extent;
    fill_send(b, salt); /* gaps */
    for (size_t i = 0; i < ns; i++)
        if (x->sidx[i] >= 0) value_bytes(x->sidx[i], salt, b->send + i * (size_t)t->extent,
                                         t->extent);
}

/* A persistent _ext request of `sel`, started `starts` times with new
 * values each time; its stats in *st. */
static int run_ext(MPI_Comm gcomm, const graph *g, const test_type *t, buffers *b,
                   const ext_case *x, const char *sel, int starts, XCHG_Neighbor_stats *st)
{
    XCHG_Request req = XCHG_REQUEST_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "xchg_algorithm", sel);
    reset_recv(b, 0x3C);
    int ok = XCHG_Neighbor_alltoallv_init_ext(b->send, g->sendcounts, b->sdispls, x->sidx,
                                              t->type, b->recv, g->recvcounts, b->rdispls,
                                              x->ridx, t->type, gcomm, info, &req) ==
             MPI_SUCCESS;
    MPI_Info_free(&info);
    ok = ok && XCHG_Neighbor_stats_get(req, st) == MPI_SUCCESS;
    if (!ok) memset(st, 0, sizeof *st);
    /* The reference is collective: every rank runs every start. */
    for (int s = 0; s < starts; s++) {
        ext_fill(x, t, b, 500 + (uint64_t)s);
        int ref = reference(gcomm, g, t, b) == MPI_SUCCESS;
        int run = req != XCHG_REQUEST_NULL && XCHG_Start(&req) == MPI_SUCCESS &&
                  XCHG_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        ok = ok && ref && run && same(b);
    }
    if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
    return ok;
}

static void check_ext(uint64_t seed, int lay, int dense, int index)
{
    graph g;
    if (dense) graph_dense(5, &g);
    else graph_make(seed, 12, &g);
    layout_set(lay);
    MPI_Comm gcomm;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, g.indegree, g.sources, MPI_UNWEIGHTED,
                                   g.outdegree, g.destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &gcomm);
    for (int k = type_first(index); k < type_end(index); k++) {
        const test_type *t = &types[k];
        buffers b;
        buffers_make(&g, t, &b);
        for (int dup = 0; dup < 3; dup++) { /* none, heavy, every edge the same list */
            ext_case x;
            ext_make(&g, &b, t, dup == 1, dup == 2, seed, &x);
            XCHG_Neighbor_stats st[16];
            for (int a = 0; a < num_sels; a++) {
                char sel[80];
                snprintf(sel, sizeof sel, "%s", sels[a]);
                snprintf(current, sizeof current, "_ext %s seed=%llu type=%s dup=%d algo=%s "
                         "layout=%s", dense ? "dense" : "graph", (unsigned long long)seed,
                         t->name, dup, sel, layout_name(lay));
                record(run_ext(gcomm, &g, t, &b, &x, sel, 3, &st[a]), "_ext result differs");
            }
            /* The stats: against standard's (sels[0]), summed over ranks. */
            long long sum[16][4];
            for (int a = 0; a < num_sels; a++) {
                long long v[4] = {st[a].inter_messages, st[a].inter_bytes,
                                  st[a].intra_messages, st[a].intra_bytes};
                MPI_Allreduce(v, sum[a], 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            }
            int std_i = -1, loc_i = -1, dd_i = -1;
            for (int a = 0; a < num_sels; a++) {
                if (!strcmp(sels[a], "standard")) std_i = a;
                if (!strcmp(sels[a], "locality")) loc_i = a;
                if (!strcmp(sels[a], "locality:dedup=1")) dd_i = a;
            }
            if (std_i >= 0 && loc_i >= 0) {
                snprintf(current, sizeof current, "stats %s seed=%llu type=%s dup=%d layout=%s",
                         dense ? "dense" : "graph", (unsigned long long)seed, t->name, dup,
                         layout_name(lay));
                /* never more inter-region messages than standard (on the
                 * dense graph not on any rank either; on a random graph a
                 * rank may aggregate for others), the same
                 * inter-region bytes without dedup, at most as many with */
                int ok = (!dense || st[loc_i].inter_messages <= st[std_i].inter_messages) &&
                         sum[loc_i][0] <= sum[std_i][0] && sum[loc_i][1] == sum[std_i][1] &&
                         sum[dd_i][1] <= sum[loc_i][1] && sum[dd_i][0] == sum[loc_i][0];
                if (dense && layouts[lay][0][0]) {
                    /* every region pair exchanges exactly one message; with
                     * the same list on every edge, dedup removes copies
                     * wherever a region holds two ranks */
                    int *node = malloc((size_t)nranks * sizeof(int)), R = 0;
                    xchg_virtual_layout(layouts[lay][0], layouts[lay][1], nranks, node);
                    for (int r = 0; r < nranks; r++) R = node[r] + 1 > R ? node[r] + 1 : R;
                    free(node);
                    ok = ok && sum[loc_i][0] == (long long)R * (R - 1);
                    if (dup == 2 && R > 1 && nranks > R) ok = ok && sum[dd_i][1] < sum[loc_i][1];
                    if (dup == 2 && R > 1 && nranks > R) ok = ok && sum[loc_i][0] < sum[std_i][0];
                }
                record(ok, "stats: locality sends more between regions than it may");
            }
            free(x.sidx), free(x.ridx);
        }
        buffers_free(&b);
    }
    MPI_Comm_free(&gcomm);
    graph_free(&g);
}

/* ---- bad input --------------------------------------------------------- */

static int has_class(int rc, int expected)
{
    int cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls == expected && XCHG_Last_error()[0] != '\0';
}

/* On a ring (every rank one source and one destination), so that every rank
 * detects the error and nobody sends. */
static void check_bad_input(MPI_Comm plain)
{
    int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
    int neg = -1, one = 1, zero = 0, out_sbuf[4] = {1, 2, 3, 4}, recv[4] = {7, 7, 7, 7};
    const int untouched[4] = {7, 7, 7, 7};
    MPI_Comm ring;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, MPI_UNWEIGHTED, 1, &next,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
    XCHG_Request req = XCHG_REQUEST_NULL;

    snprintf(current, sizeof current, "bad input: negative send count, blocking");
    int rc = XCHG_Neighbor_alltoallv(out_sbuf, &neg, &zero, MPI_INT, recv, &one, &zero, MPI_INT,
                                     ring);
    record(has_class(rc, MPI_ERR_COUNT) && !memcmp(recv, untouched, sizeof recv), "wrong error");

    snprintf(current, sizeof current, "bad input: negative receive count, persistent");
    rc = XCHG_Neighbor_alltoallv_init(out_sbuf, &one, &zero, MPI_INT, recv, &neg, &zero, MPI_INT,
                                      ring, MPI_INFO_NULL, &req);
    record(has_class(rc, MPI_ERR_COUNT) && req == XCHG_REQUEST_NULL, "wrong error");

    snprintf(current, sizeof current, "bad input: NULL request");
    rc = XCHG_Neighbor_alltoallv_init(out_sbuf, &one, &zero, MPI_INT, recv, &one, &zero, MPI_INT,
                                      ring, MPI_INFO_NULL, NULL);
    record(has_class(rc, MPI_ERR_ARG), "wrong error");

    snprintf(current, sizeof current, "bad input: communicator without a graph");
    rc = XCHG_Neighbor_alltoallv(out_sbuf, &one, &zero, MPI_INT, recv, &one, &zero, MPI_INT,
                                 plain);
    record(has_class(rc, MPI_ERR_TOPOLOGY) && !memcmp(recv, untouched, sizeof recv),
           "wrong error");

    snprintf(current, sizeof current, "bad input: topology disagrees with the graph");
    XCHG_Topo empty;
    XCHG_Topo_create(plain, 0, NULL, 0, NULL, &empty);
    rc = XCHG_Neighbor_alltoallv_topo_init(empty, out_sbuf, &one, &zero, MPI_INT, recv, &one,
                                           &zero, MPI_INT, ring, MPI_INFO_NULL, &req);
    record(has_class(rc, MPI_ERR_TOPOLOGY) && req == XCHG_REQUEST_NULL, "wrong error");
    XCHG_Topo_free(&empty);

    snprintf(current, sizeof current, "bad input: topology with a rank out of range");
    XCHG_Topo bad = XCHG_TOPO_NULL;
    rc = XCHG_Topo_create(plain, 1, &nranks, 0, NULL, &bad);
    record(has_class(rc, MPI_ERR_RANK) && bad == XCHG_TOPO_NULL, "wrong error");

    snprintf(current, sizeof current, "bad input: MPI_IN_PLACE");
    rc = XCHG_Neighbor_alltoallv(MPI_IN_PLACE, &one, &zero, MPI_INT, recv, &one, &zero, MPI_INT,
                                 ring);
    record(has_class(rc, MPI_ERR_BUFFER) && !memcmp(recv, untouched, sizeof recv),
           "wrong error");

    /* The _ext inits: indices that disagree on one edge fail everywhere. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "xchg_algorithm", "locality:dedup=1");
    int64_t sidx = (int64_t)rank * 10, ridx = (int64_t)prev * 10 + (rank == 0);
    snprintf(current, sizeof current, "bad input: _ext indices disagree (rank 0's block)");
    rc = XCHG_Neighbor_alltoallv_init_ext(out_sbuf, &one, &zero, &sidx, MPI_INT, recv, &one,
                                          &zero, &ridx, MPI_INT, ring, info, &req);
    record(has_class(rc, MPI_ERR_ARG) && req == XCHG_REQUEST_NULL &&
           !memcmp(recv, untouched, sizeof recv), "wrong error");
    snprintf(current, sizeof current, "bad input: _ext without indices");
    rc = XCHG_Neighbor_alltoallv_init_ext(out_sbuf, &one, &zero, NULL, MPI_INT, recv, &one,
                                          &zero, NULL, MPI_INT, ring, info, &req);
    record(has_class(rc, MPI_ERR_ARG) && req == XCHG_REQUEST_NULL, "wrong error");
    snprintf(current, sizeof current, "bad input: stats of a NULL request");
    XCHG_Neighbor_stats stats;
    record(has_class(XCHG_Neighbor_stats_get(XCHG_REQUEST_NULL, &stats), MPI_ERR_REQUEST),
           "wrong error");
    snprintf(current, sizeof current, "_ext ring");
    ridx = (int64_t)prev * 10;
    rc = XCHG_Neighbor_alltoallv_init_ext(out_sbuf, &one, &zero, &sidx, MPI_INT, recv, &one,
                                          &zero, &ridx, MPI_INT, ring, info, &req);
    int ok = rc == MPI_SUCCESS && XCHG_Start(&req) == MPI_SUCCESS &&
             XCHG_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS && recv[0] == 1 && recv[1] == 7;
    if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
    record(ok, "_ext ring result");
    recv[0] = 7;
    MPI_Info_free(&info);

    /* The ring itself works (and is compared with MPI too). */
    snprintf(current, sizeof current, "ring");
    rc = XCHG_Neighbor_alltoallv(out_sbuf, &one, &zero, MPI_INT, recv, &one, &zero, MPI_INT, ring);
    record(rc == MPI_SUCCESS && recv[0] == 1 && recv[1] == 7, "ring result");
    MPI_Comm_free(&ring);
}

int main(int argc, char **argv)
{
    int ngraphs = 12, starts = 4, next = 3;
    unsigned long long seed = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--graphs=", 9)) ngraphs = atoi(argv[i] + 9);
        else if (!strncmp(argv[i], "--seed=", 7)) seed = strtoull(argv[i] + 7, NULL, 10);
        else if (!strncmp(argv[i], "--starts=", 9)) starts = atoi(argv[i] + 9);
        else if (!strncmp(argv[i], "--ext=", 6)) next = atoi(argv[i] + 6);
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else if (!strcmp(argv[i], "--all-types")) all_types = 1;
        else if (!strncmp(argv[i], "--layouts=", 10)) {
            int n = atoi(argv[i] + 10), all = (int)(sizeof layouts / sizeof layouts[0]);
            num_layouts = n < 1 ? 1 : n > all ? all : n;
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    types_create();
    selections_make();
    /* Graph i under layout i mod the layouts; the _ext cases: the dense
     * graph under every layout, then `next` random graphs. */
    for (int i = 0; i < ngraphs; i++)
        check_graph(mix(seed * 1000 + (uint64_t)i), starts, i % NUM_LAYOUTS, i);
    for (int l = 0; l < NUM_LAYOUTS; l++) check_ext(seed, l, 1, l + 2);
    for (int i = 0; i < next; i++)
        check_ext(mix(seed * 2000 + (uint64_t)i), (i + 1) % NUM_LAYOUTS, 0, i + 1);
    layout_set(3); /* one node */
    MPI_Comm plain;
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    check_bad_input(plain);
    MPI_Type_free(&types[2].type);
    MPI_Comm_free(&plain);
    if (rank == 0) {
        printf("%d graphs on %d ranks (%d algorithms x %d layouts): %ld edges, %ld self loops, "
               "%ld repeated, %ld empty\n", ngraphs, nranks, num_sels, NUM_LAYOUTS, edges,
               self_loops, repeated, empty_blocks);
        printf("%d passed, %d failed\n", passed, failed);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
