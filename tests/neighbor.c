/*
 * xchg-neighbor: the neighbourhood alltoallv against the MPI library's own
 * PMPI_Neighbor_alltoallv on the same distributed-graph communicator, byte
 * for byte (gaps of the receive buffer included).
 *
 * Random graphs (seeded, the same on every rank): out-degrees 0..P-1,
 * asymmetric, self loops and repeated neighbours, one rank without
 * neighbours, one that only sends, one that only receives; counts with
 * zeros; datatypes with extent == size and a resized vector whose extent is
 * not its size; displacements in reverse order with gaps. Each graph runs
 * the blocking call, a persistent request started several times (send
 * buffer changed between starts; completed by XCHG_Wait and by polling
 * XCHG_Test), and XCHG_Topo on a communicator without a graph. Then bad
 * input: a clear error class and the receive buffer untouched.
 *
 * usage: mpirun -n P xchg-neighbor [--graphs=N] [--seed=S] [--starts=K]
 * The last line is "N passed, N failed"; the exit status is 1 on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include "xchg.h"

static int rank, nranks;
static int passed, failed;
static long edges, self_loops, repeated, empty_blocks; /* what the graphs covered */
static char current[256];

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
    if (all) passed++;
    else failed++;
    if (!ok) printf("FAIL rank %d: %s: %s (%s)\n", rank, current, what, XCHG_Last_error());
}

/* ---- graphs ------------------------------------------------------------ */

typedef struct graph {
    int indegree, outdegree;
    int *sources, *destinations;  /* this rank's lists */
    int *recvcounts, *sendcounts; /* per neighbour, elements */
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
            if (k == 1 && degree > 2) d = to[n - 1]; /* a repeated neighbour */
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
    for (int e = 0; e < n; e++)
        if (from[e] == rank) {
            g->destinations[g->outdegree] = to[e];
            g->sendcounts[g->outdegree++] = count[e];
        }
    /* Sources by descending sender, edge order kept per sender (the order
     * in which repeated edges between one pair are matched). */
    for (int s = P - 1; s >= 0; s--)
        for (int e = 0; e < n; e++)
            if (to[e] == rank && from[e] == s) {
                g->sources[g->indegree] = s;
                g->recvcounts[g->indegree++] = count[e];
            }
    free(from), free(to), free(count);
}

static void graph_free(graph *g)
{
    free(g->sources), free(g->destinations), free(g->recvcounts), free(g->sendcounts);
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

static void check_blocking(MPI_Comm gcomm, const graph *g, const test_type *t, buffers *b)
{
    fill_send(b, 1);
    reset_recv(b, 0xA5);
    int ok = reference(gcomm, g, t, b) == MPI_SUCCESS;
    ok = ok && XCHG_Neighbor_alltoallv(b->send, g->sendcounts, b->sdispls, t->type, b->recv,
                                       g->recvcounts, b->rdispls, t->type, gcomm) == MPI_SUCCESS;
    char used[128] = "";
    XCHG_Comm_get_algorithm(gcomm, "neighbor_alltoallv", 1, 0, used, sizeof used);
    record(ok && same(b) && strcmp(used, "standard") == 0, "blocking result differs");
}

/* A persistent request started `starts` times; `topo` selects the
 * XCHG_Topo form on `comm`. */
static void check_persistent(MPI_Comm gcomm, MPI_Comm comm, XCHG_Topo topo, const graph *g,
                             const test_type *t, buffers *b, int starts)
{
    XCHG_Request req = XCHG_REQUEST_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "xchg_algorithm", "standard");
    reset_recv(b, 0x5A);
    int rc = topo ? XCHG_Neighbor_alltoallv_topo_init(topo, b->send, g->sendcounts, b->sdispls,
                                                      t->type, b->recv, g->recvcounts,
                                                      b->rdispls, t->type, comm, info, &req)
                  : XCHG_Neighbor_alltoallv_init(b->send, g->sendcounts, b->sdispls, t->type,
                                                 b->recv, g->recvcounts, b->rdispls, t->type,
                                                 comm, info, &req);
    MPI_Info_free(&info);
    int ok = rc == MPI_SUCCESS;
    for (int s = 0; s < starts && ok; s++) {
        fill_send(b, 100 + (uint64_t)s); /* new data, same request */
        ok = reference(gcomm, g, t, b) == MPI_SUCCESS && XCHG_Start(&req) == MPI_SUCCESS;
        if (s % 2 == 0) {
            ok = ok && XCHG_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        } else {
            int flag = 0;
            while (ok && !flag) ok = XCHG_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        }
        ok = ok && same(b);
    }
    if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
    record(ok && req == XCHG_REQUEST_NULL, "persistent result differs");
}

static void check_graph(MPI_Comm plain, uint64_t seed, int starts)
{
    graph g;
    graph_make(seed, 40, &g);
    MPI_Comm gcomm;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, g.indegree, g.sources, MPI_UNWEIGHTED,
                                   g.outdegree, g.destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &gcomm);
    XCHG_Topo topo;
    int ok = XCHG_Topo_create(plain, g.indegree, g.sources, g.outdegree, g.destinations, &topo) ==
             MPI_SUCCESS;
    for (int k = 0; k < num_types; k++) {
        const test_type *t = &types[k];
        buffers b;
        buffers_make(&g, t, &b);
        snprintf(current, sizeof current, "graph seed=%llu type=%s in=%d out=%d",
                 (unsigned long long)seed, t->name, g.indegree, g.outdegree);
        check_blocking(gcomm, &g, t, &b);
        check_persistent(gcomm, gcomm, NULL, &g, t, &b, starts);
        if (ok) {
            check_persistent(gcomm, plain, topo, &g, t, &b, starts); /* no graph */
            check_persistent(gcomm, gcomm, topo, &g, t, &b, 1);      /* graph agrees */
        }
        buffers_free(&b);
    }
    snprintf(current, sizeof current, "XCHG_Topo_create seed=%llu", (unsigned long long)seed);
    record(ok, "XCHG_Topo_create failed");
    if (ok) XCHG_Topo_free(&topo);
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

    /* The ring itself works (and is compared with MPI too). */
    snprintf(current, sizeof current, "ring");
    rc = XCHG_Neighbor_alltoallv(out_sbuf, &one, &zero, MPI_INT, recv, &one, &zero, MPI_INT, ring);
    record(rc == MPI_SUCCESS && recv[0] == 1 && recv[1] == 7, "ring result");
    MPI_Comm_free(&ring);
}

int main(int argc, char **argv)
{
    int ngraphs = 12, starts = 4;
    unsigned long long seed = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--graphs=", 9)) ngraphs = atoi(argv[i] + 9);
        else if (!strncmp(argv[i], "--seed=", 7)) seed = strtoull(argv[i] + 7, NULL, 10);
        else if (!strncmp(argv[i], "--starts=", 9)) starts = atoi(argv[i] + 9);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm plain; /* no graph: for XCHG_Topo */
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    types_create();
    for (int i = 0; i < ngraphs; i++) check_graph(plain, mix(seed * 1000 + (uint64_t)i), starts);
    check_bad_input(plain);
    MPI_Type_free(&types[2].type);
    MPI_Comm_free(&plain);
    if (rank == 0) {
        printf("%d graphs on %d ranks: %ld edges, %ld self loops, %ld repeated, %ld empty\n",
               ngraphs, nranks, edges, self_loops, repeated, empty_blocks);
        printf("%d passed, %d failed\n", passed, failed);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
