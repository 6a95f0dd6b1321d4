/*
 * xchg-neighbor-bench: persistent neighbourhood alltoallv on generated
 * sparse-matrix-like patterns: the setup cost (init) against the cost of
 * each start, per algorithm, with the traffic split by region.
 *
 * Patterns (every rank derives the same global pattern from the seed):
 *   stencil  a 2-D N x N grid in px x py blocks; a point needs every point
 *            within `--width` in both directions (a box stencil, 9 points
 *            for width 1): the halo exchange of a stencil SpMV. Corner and
 *            edge points go to several ranks, which may share a region.
 *   coarse   every rank owns `--count` values and exchanges with a fraction
 *            `--fraction` of all ranks (random, not symmetric), receiving a
 *            random subset of each source's values drawn from the first half
 *            of its range, so that ranks of one region need overlapping sets:
 *            the pattern of a coarse AMG level.
 * Each value is one double equal to a function of its global index, so every
 * received value is checked without a reference run. The neighbourhood is an
 * XCHG_Topo on MPI_COMM_WORLD (no graph communicator needed: the same binary
 * runs under SimGrid SMPI); the "mpi" selection gets a distributed-graph
 * communicator with the same lists. Selections that contain "dedup" use the
 * global-index init (XCHG_Neighbor_alltoallv_topo_init_ext).
 *
 * Per algorithm: init time (max over ranks), then --starts timed starts after
 * --warmup (time per start = max over ranks of the mean), the same number
 * of blocking XCHG_Neighbor_alltoallv calls on a distributed-graph
 * communicator with the same lists (plans cached by the pattern; -1 under
 * SMPI, which has no graph communicators), and the traffic of
 * one start from XCHG_Neighbor_stats_get (max over ranks of inter-region and
 * intra-region messages and inter-region bytes).
 * With --node-size Q (nodes of Q consecutive ranks, the placement of sim/'s
 * hostfiles) the pattern's own traffic per node is printed too, for a lower
 * bound: the most bytes a node sends to or receives from other nodes, with
 * every value counted once per destination rank (what `standard` moves) and
 * once per destination node (the least any algorithm moves, duplicates
 * removed).
 *
 * usage: mpirun -n P xchg-neighbor-bench [--pattern stencil|coarse] [--n N]
 *        [--width W] [--count C] [--fraction F] [--seed S] [--starts K]
 *        [--warmup K] [--node-size Q] [--csv FILE] [--no-header] SELECTION...
 * Exit status 1 if any received value is wrong.
 *
 * One file of about 500 lines, not split (yet): the pattern generator, the
 * timed run of one selection and the report read top to bottom as one
 * benchmark. The seam is the generator (mix .. pattern_traffic, about 220
 * lines), which shares the options and pattern structs and the rank with
 * the rest: the next change that grows this file should move it out.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include "xchg.h"

typedef struct options {
    const char *pattern;
    int n, width, count, starts, warmup, header, node_size;
    double fraction;
    uint64_t seed;
    const char *csv;
} options;

/* This rank's side of the pattern: per destination the global indices of
 * the values it sends (owned by this rank), per source those it receives. */
typedef struct pattern {
    int out, in;
    int *dst, *src;
    int *scount, *sdispl, *rcount, *rdispl;
    int64_t *sindex, *rindex; /* [stotal], [rtotal] */
    int stotal, rtotal;
} pattern;

static int rank, nranks;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double value_of(int64_t g) { return (double)g * 0.25 + 1.0; }

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ---- growable per-peer index lists -------------------------------------- */

typedef struct peer_lists { int64_t **idx; int *len, *cap; } peer_lists;

static void lists_init(peer_lists *l)
{
    l->idx = calloc(nranks, sizeof *l->idx);
    l->len = calloc(nranks, sizeof(int));
    l->cap = calloc(nranks, sizeof(int));
}

static void lists_add(peer_lists *l, int peer, int64_t g)
{
    if (l->len[peer] == l->cap[peer]) {
        l->cap[peer] = l->cap[peer] ? 2 * l->cap[peer] : 16;
        l->idx[peer] = realloc(l->idx[peer], l->cap[peer] * sizeof(int64_t));
    }
    l->idx[peer][l->len[peer]++] = g;
}

/* Sort and deduplicate each list; flatten into (ranks, counts, displs, idx). */
static int lists_flatten(peer_lists *l, int **ranks, int **counts, int **displs,
                         int64_t **idx, int *total)
{
    int n = 0;
    *total = 0;
    for (int p = 0; p < nranks; p++) {
        if (!l->len[p]) continue;
        qsort(l->idx[p], l->len[p], sizeof(int64_t), cmp_i64);
        int k = 0;
        for (int i = 0; i < l->len[p]; i++)
            if (i == 0 || l->idx[p][i] != l->idx[p][k - 1]) l->idx[p][k++] = l->idx[p][i];
        l->len[p] = k;
        n++;
        *total += k;
    }
    *ranks = malloc((n + 1) * sizeof(int));
    *counts = malloc((n + 1) * sizeof(int));
    *displs = malloc((n + 1) * sizeof(int));
    *idx = malloc((*total + 1) * sizeof(int64_t));
    int i = 0, off = 0;
    for (int p = 0; p < nranks; p++) {
        if (!l->len[p]) continue;
        (*ranks)[i] = p;
        (*counts)[i] = l->len[p];
        (*displs)[i] = off;
        memcpy(*idx + off, l->idx[p], l->len[p] * sizeof(int64_t));
        off += l->len[p];
        i++;
        free(l->idx[p]);
    }
    free(l->idx);
    free(l->len);
    free(l->cap);
    return n;
}

/* ---- the patterns -------------------------------------------------------- */

static void grid_shape(int *px, int *py)
{
    *px = (int)sqrt((double)nranks);
    while (nranks % *px) (*px)--;
    *py = nranks / *px;
}

/* First row (column) of block b of `parts` blocks over n points. */
static int block_start(int n, int parts, int b) { return (int)((int64_t)b * n / parts); }

/* The block holding point i: the last b with block_start(b) <= i. */
static int block_of(int n, int parts, int i)
{
    int b = (int)((int64_t)i * parts / n);
    while (b + 1 < parts && block_start(n, parts, b + 1) <= i) b++;
    while (b > 0 && block_start(n, parts, b) > i) b--;
    return b;
}

/* Owner of grid point (i, j) in px x py blocks of an n x n grid. */
static int owner(int n, int px, int py, int i, int j)
{
    return block_of(n, px, i) * py + block_of(n, py, j);
}

static void make_stencil(const options *o, peer_lists *send, peer_lists *recv)
{
    int px, py, n = o->n, w = o->width;
    grid_shape(&px, &py);
    int bi = rank / py, bj = rank % py;
    int i0 = block_start(n, px, bi), i1 = block_start(n, px, bi + 1);
    int j0 = block_start(n, py, bj), j1 = block_start(n, py, bj + 1);
    for (int i = i0; i < i1; i++)
        for (int j = j0; j < j1; j++)
            for (int di = -w; di <= w; di++)
                for (int dj = -w; dj <= w; dj++) {
                    int a = i + di, b = j + dj;
                    if (a < 0 || b < 0 || a >= n || b >= n) continue;
                    int q = owner(n, px, py, a, b);
                    if (q == rank) continue;
                    lists_add(recv, q, (int64_t)a * n + b); /* I need (a, b) */
                    lists_add(send, q, (int64_t)i * n + j); /* q needs (i, j) */
                }
}

static int coarse_edge(const options *o, int s, int d)
{
    if (s == d) return 0;
    return (double)(mix(o->seed ^ ((uint64_t)s << 32 | (uint32_t)d)) % 1000000) <
           o->fraction * 1e6;
}

/* The values of s that d receives: a random subset of the first half of s's
 * range (so ranks of a region overlap). */
static void coarse_subset(const options *o, int s, int d, peer_lists *l, int peer)
{
    int m = o->count, half = m > 1 ? m / 2 : 1;
    uint64_t h = mix(o->seed * 31 + (uint64_t)s * 1000003 + (uint64_t)d);
    int k = 1 + (int)(h % (uint64_t)half);
    for (int t = 0; t < k; t++)
        lists_add(l, peer, (int64_t)s * m + (int64_t)(mix(h + t) % (uint64_t)half));
}

static void make_coarse(const options *o, peer_lists *send, peer_lists *recv)
{
    for (int q = 0; q < nranks; q++) {
        if (coarse_edge(o, rank, q)) coarse_subset(o, rank, q, send, q);
        if (coarse_edge(o, q, rank)) coarse_subset(o, q, rank, recv, q);
    }
}

static void make_pattern(const options *o, pattern *p)
{
    peer_lists send, recv;
    lists_init(&send);
    lists_init(&recv);
    if (strcmp(o->pattern, "stencil") == 0) make_stencil(o, &send, &recv);
    else make_coarse(o, &send, &recv);
    p->out = lists_flatten(&send, &p->dst, &p->scount, &p->sdispl, &p->sindex, &p->stotal);
    p->in = lists_flatten(&recv, &p->src, &p->rcount, &p->rdispl, &p->rindex, &p->rtotal);
}

/* ---- the pattern's traffic between nodes ---------------------------------- */

typedef struct node_traffic { long long out, in, out_dedup, in_dedup; } node_traffic;

/* Maxima over nodes of the bytes crossing between nodes of q ranks. */
static node_traffic pattern_traffic(const pattern *p, int q)
{
    node_traffic t = {0, 0, 0, 0};
    if (q < 1) return t;
    int nodes = (nranks + q - 1) / q, me = rank / q;
    long long *v = calloc(4 * (size_t)nodes, sizeof(long long)), *sum = v + 2 * nodes;
    long long *out = v, *in = v + nodes; /* [out | in] of this rank, then the sums */
    for (int i = 0; i < p->out; i++) /* what leaves my node arrives at another */
        if (p->dst[i] / q != me) {
            out[me] += 8LL * p->scount[i];
            in[p->dst[i] / q] += 8LL * p->scount[i];
        }
    MPI_Allreduce(v, sum, 2 * nodes, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int n = 0; n < nodes; n++) {
        if (sum[n] > t.out) t.out = sum[n];
        if (sum[nodes + n] > t.in) t.in = sum[nodes + n];
    }
    /* Deduplicated: each value once per (destination node); this rank owns
     * every value it sends, so it counts them all. The sent lists are sorted
     * per destination; a value's destination nodes are found by a scan. */
    memset(v, 0, 4 * (size_t)nodes * sizeof(long long));
    int64_t *seen = malloc(((size_t)nodes + 1) * sizeof(int64_t));
    for (int n = 0; n < nodes; n++) seen[n] = -1;
    int64_t *all = malloc(((size_t)p->stotal + 1) * sizeof(int64_t));
    int *node_of = malloc(((size_t)p->stotal + 1) * sizeof(int));
    for (int i = 0, k = 0; i < p->out; i++)
        for (int j = 0; j < p->scount[i]; j++, k++) {
            all[k] = p->sindex[p->sdispl[i] + j];
            node_of[k] = p->dst[i] / q;
        }
    /* sort (value, node) pairs by value with an index sort */
    int *order = malloc(((size_t)p->stotal + 1) * sizeof(int));
    for (int k = 0; k < p->stotal; k++) order[k] = k;
    for (int gap = p->stotal / 2; gap > 0; gap /= 2) /* shell sort: no qsort context */
        for (int a = gap; a < p->stotal; a++)
            for (int b = a; b >= gap && all[order[b - gap]] > all[order[b]]; b -= gap) {
                int tmp = order[b];
                order[b] = order[b - gap];
                order[b - gap] = tmp;
            }
    for (int k = 0; k < p->stotal; k++) {
        int n = node_of[order[k]];
        int64_t g = all[order[k]];
        if (n == me || seen[n] == g) continue;
        seen[n] = g;
        out[me] += 8;
        in[n] += 8;
    }
    MPI_Allreduce(v, sum, 2 * nodes, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int n = 0; n < nodes; n++) {
        if (sum[n] > t.out_dedup) t.out_dedup = sum[n];
        if (sum[nodes + n] > t.in_dedup) t.in_dedup = sum[nodes + n];
    }
    free(order);
    free(node_of);
    free(all);
    free(seen);
    free(v);
    return t;
}

/* ---- one algorithm ------------------------------------------------------- */

typedef struct row {
    double init_us, start_us, blocking_us; /* blocking_us < 0: not measured */
    XCHG_Neighbor_stats stats; /* maxima over ranks */
    int wrong, failed;
} row;

static double max_over_ranks(double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static int check(const pattern *p, const double *recv)
{
    int wrong = 0;
    for (int i = 0; i < p->rtotal; i++) wrong += recv[i] != value_of(p->rindex[i]);
    return wrong;
}

/* The blocking call on the graph communicator: the first call builds the
 * plan of the pattern (plan cache), the timed ones find it. */
static double time_blocking(const options *o, const pattern *p, MPI_Comm graph,
                            const char *selection, const double *send, double *recv, int *wrong)
{
    XCHG_Comm_set_algorithm(graph, "neighbor_alltoallv",
                            strcmp(selection, "auto") == 0 ? NULL : selection);
    for (int s = 0; s < 1 + o->warmup; s++)
        XCHG_Neighbor_alltoallv(send, p->scount, p->sdispl, MPI_DOUBLE, recv, p->rcount,
                                p->rdispl, MPI_DOUBLE, graph);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int s = 0; s < o->starts; s++)
        XCHG_Neighbor_alltoallv(send, p->scount, p->sdispl, MPI_DOUBLE, recv, p->rcount,
                                p->rdispl, MPI_DOUBLE, graph);
    double us = max_over_ranks((MPI_Wtime() - t0) * 1e6 / (o->starts ? o->starts : 1));
    int bad = check(p, recv), all_bad;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    *wrong += all_bad;
    XCHG_Comm_set_algorithm(graph, "neighbor_alltoallv", NULL);
    return us;
}

static void run_one(const options *o, const pattern *p, MPI_Comm graph, const char *selection,
                    row *r)
{
    double *send = malloc((p->stotal + 1) * sizeof(double));
    double *recv = malloc((p->rtotal + 1) * sizeof(double));
    for (int i = 0; i < p->stotal; i++) send[i] = value_of(p->sindex[i]);
    for (int i = 0; i < p->rtotal; i++) recv[i] = -1.0;
    MPI_Info info;
    MPI_Info_create(&info);
    if (strcmp(selection, "auto") != 0) /* auto: xchg chooses (online_init.c measures) */
        MPI_Info_set(info, "xchg_algorithm", selection);
    XCHG_Topo topo = XCHG_TOPO_NULL;
    XCHG_Request req = XCHG_REQUEST_NULL;
    int use_graph = strncmp(selection, "mpi", 3) == 0;
    MPI_Comm comm = use_graph ? graph : MPI_COMM_WORLD;
    memset(r, 0, sizeof *r);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc;
    if (use_graph) {
        rc = XCHG_Neighbor_alltoallv_init(send, p->scount, p->sdispl, MPI_DOUBLE, recv,
                                          p->rcount, p->rdispl, MPI_DOUBLE, comm, info, &req);
    } else {
        rc = XCHG_Topo_create(comm, p->in, p->src, p->out, p->dst, &topo);
        if (rc == MPI_SUCCESS && strstr(selection, "dedup"))
            rc = XCHG_Neighbor_alltoallv_topo_init_ext(topo, send, p->scount, p->sdispl,
                                                       p->sindex, MPI_DOUBLE, recv, p->rcount,
                                                       p->rdispl, p->rindex, MPI_DOUBLE, comm,
                                                       info, &req);
        else if (rc == MPI_SUCCESS)
            rc = XCHG_Neighbor_alltoallv_topo_init(topo, send, p->scount, p->sdispl, MPI_DOUBLE,
                                                   recv, p->rcount, p->rdispl, MPI_DOUBLE, comm,
                                                   info, &req);
    }
    r->init_us = max_over_ranks((MPI_Wtime() - t0) * 1e6);
    int ok = rc == MPI_SUCCESS, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0) fprintf(stderr, "%s: init failed: %s\n", selection, XCHG_Last_error());
        r->failed = 1;
    } else {
        for (int s = 0; s < o->warmup; s++) {
            XCHG_Start(&req);
            XCHG_Wait(&req, MPI_STATUS_IGNORE);
        }
        r->wrong = check(p, recv) || o->warmup == 0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int s = 0; s < o->starts; s++) {
            XCHG_Start(&req);
            XCHG_Wait(&req, MPI_STATUS_IGNORE);
        }
        r->start_us = max_over_ranks((MPI_Wtime() - t0) * 1e6 / (o->starts ? o->starts : 1));
        r->wrong += check(p, recv);
        XCHG_Neighbor_stats mine = {0};
        XCHG_Neighbor_stats_get(req, &mine);
        int msgs[2] = {mine.inter_messages, mine.intra_messages}, msgs_max[2];
        long long bytes = mine.inter_bytes, bytes_max;
        MPI_Allreduce(msgs, msgs_max, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&bytes, &bytes_max, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        r->stats.inter_messages = msgs_max[0];
        r->stats.intra_messages = msgs_max[1];
        r->stats.inter_bytes = bytes_max;
        int wrong = r->wrong;
        MPI_Allreduce(&wrong, &r->wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        XCHG_Request_free(&req);
        r->blocking_us = graph == MPI_COMM_NULL ? -1.0 : time_blocking(o, p, graph, selection,
                                                                       send, recv, &r->wrong);
    }
    if (topo) XCHG_Topo_free(&topo);
    MPI_Info_free(&info);
    free(send);
    free(recv);
}

/* ---- main ---------------------------------------------------------------- */

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: xchg-neighbor-bench [--pattern stencil|coarse] [--n N] "
                        "[--width W] [--count C] [--fraction F] [--seed S] [--starts K] "
                        "[--warmup K] [--csv FILE] [--no-header] SELECTION...\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    options o = {.pattern = "stencil", .n = 256, .width = 1, .count = 64, .starts = 100,
                 .warmup = 5, .header = 1, .fraction = 0.25, .seed = 1};
    const char *selections[32];
    int nsel = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (strcmp(a, name) == 0 && v && ++i)
        if (OPT("--pattern")) o.pattern = v;
        else if (OPT("--n")) o.n = atoi(v);
        else if (OPT("--width")) o.width = atoi(v);
        else if (OPT("--count")) o.count = atoi(v);
        else if (OPT("--fraction")) o.fraction = atof(v);
        else if (OPT("--seed")) o.seed = strtoull(v, NULL, 10);
        else if (OPT("--starts")) o.starts = atoi(v);
        else if (OPT("--warmup")) o.warmup = atoi(v);
        else if (OPT("--csv")) o.csv = v;
        else if (OPT("--node-size")) o.node_size = atoi(v);
        else if (strcmp(a, "--no-header") == 0) o.header = 0;
        else if (a[0] == '-' || nsel == 32) usage();
        else selections[nsel++] = a;
#undef OPT
    }
    if (nsel == 0 || o.n < 1 || o.width < 1 || o.count < 1 || o.starts < 0 || o.warmup < 0 ||
        (strcmp(o.pattern, "stencil") && strcmp(o.pattern, "coarse")))
        usage();
    pattern p;
    make_pattern(&o, &p);
    MPI_Comm graph = MPI_COMM_NULL; /* for `mpi` and the blocking calls */
#ifndef SMPI_H /* SimGrid SMPI has no graph communicators */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, p.in, p.src, MPI_UNWEIGHTED, p.out, p.dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
#endif
    node_traffic traffic = pattern_traffic(&p, o.node_size);
    row warm; /* the first xchg call on a communicator creates its context:
                 not any algorithm's setup, so it is paid here, untimed */
    options once = o;
    once.starts = once.warmup = 0;
    run_one(&once, &p, graph, "standard", &warm);
    int degree = p.out, max_degree;
    MPI_Allreduce(&degree, &max_degree, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

    FILE *out = stdout;
    if (rank == 0 && o.csv && strcmp(o.csv, "-") != 0) out = fopen(o.csv, "a");
    if (rank == 0 && !out) {
        perror(o.csv);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *nodes = getenv("XCHG_VIRTUAL_NODES");
    if (rank == 0 && o.header)
        fprintf(out, "pattern,P,nodes,n,width,count,fraction,max_degree,algorithm,init_us,"
                     "start_us,init_over_start,blocking_us,max_inter_msgs,max_intra_msgs,"
                     "max_inter_bytes,node_size,max_node_out,max_node_in,max_node_out_dedup,"
                     "max_node_in_dedup,correct\n");
    int wrong = 0;
    for (int s = 0; s < nsel; s++) {
        row r;
        run_one(&o, &p, graph, selections[s], &r);
        wrong += r.wrong || r.failed;
        if (rank == 0)
            fprintf(out, "%s,%d,%s,%d,%d,%d,%g,%d,%s,%.1f,%.2f,%.1f,%.2f,%d,%d,%lld,%d,%lld,%lld,"
                    "%lld,%lld,%s\n", o.pattern,
                    nranks, nodes ? nodes : "host", o.n, o.width, o.count, o.fraction,
                    max_degree, selections[s], r.init_us, r.start_us,
                    r.start_us > 0 ? r.init_us / r.start_us : 0.0, r.blocking_us,
                    r.stats.inter_messages,
                    r.stats.intra_messages, r.stats.inter_bytes, o.node_size, traffic.out,
                    traffic.in, traffic.out_dedup, traffic.in_dedup, r.failed ? "failed" : r.wrong ? "WRONG" : "yes");
    }
    if (rank == 0 && out != stdout) fclose(out);
    if (graph != MPI_COMM_NULL) MPI_Comm_free(&graph);
    free(p.dst); free(p.scount); free(p.sdispl); free(p.sindex);
    free(p.src); free(p.rcount); free(p.rdispl); free(p.rindex);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
