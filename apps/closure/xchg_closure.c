/*
 * xchg-closure: the transitive closure of a generated graph by distributed
 * semi-naive evaluation, one non-uniform alltoallv per iteration, run once
 * per xchg algorithm (Fan, Domke, Ba, Kumar, "Parameterized Algorithms for
 * Non-uniform All-to-all", HPDC 2025, section 6.2: path finding with the
 * parallel relational algebra library of Kumar and Gilray, "Distributed
 * Relational Algebra at Scale", HiPC 2019).
 *
 * The program:   path(x, y) :- edge(x, y).
 *                path(x, z) :- path(x, y), edge(y, z).
 * Semi-naive evaluation joins only the tuples new in the last iteration
 * (delta) with edge, keeps the results not yet in path as the next delta,
 * and stops when delta is empty on every rank (MPI_Allreduce of its size).
 *
 * Partitioning (one exchange per iteration, as in the paper). Vertices are
 * owned by hash: owner(v) = mix64(v) mod P. edge(y, z) is stored at
 * owner(y), indexed by y (its join column), as an adjacency list. path(x, y)
 * is stored at owner(y), its *second* column, which is the join column of
 * the next iteration: so delta is already where it is joined, and the join
 * needs no communication. A joined tuple path(x, z) is sent to owner(z),
 * which both stores it (deduplication against the hash set of the path
 * tuples it owns: every tuple has exactly one owner, so the test is exact)
 * and joins it in the next iteration if it is new. The paper's library
 * likewise keys each relation on its join column and shuffles the join's
 * output with one MPI_Alltoallv per fixed-point iteration; partitioning path
 * by x or by the pair instead would need a second alltoallv per iteration
 * to bring delta to the owner of its join key y. Since a tuple's owner is
 * that of its target, the exchange is as skewed as the in-degrees: on the
 * power-law graph its counts are far from uniform.
 *
 * One iteration, at every rank: for each (x, y) in delta and each edge
 * (y, z): one tuple (x, z) for owner(z) (counted, then packed by
 * destination); MPI_Alltoall of the counts; the alltoallv of the tuples
 * (64-bit words, x << 32 | z) with the algorithm under test; each received
 * tuple inserted into the local path set, the new ones forming delta;
 * MPI_Allreduce of |delta|. Work: O(sum over new paths (x, y) of outdeg(y))
 * joins and hash-set probes over the whole run; traffic: 8 bytes per joined
 * tuple (duplicates are removed by the receiver, as in the paper's library).
 *
 * Graphs (graph_gen.h; generated identically on every rank from --seed,
 * each rank keeping its partition): random (Erdos-Renyi: n vertices, m
 * distinct edges), powerlaw (R-MAT, skewed degrees), chain (a path of n
 * vertices: n - 1 iterations with deltas of fewer than n tuples).
 *
 * Algorithms: each entry of --algos is an xchg selection string ("parlogna:
 * radix=4"; a parameter list continues after a comma: "parlogna:radix=4,
 * bounce=copy"), set with XCHG_Comm_set_algorithm on a fresh duplicate of
 * MPI_COMM_WORLD and used through XCHG_Alltoallv ("auto": no choice set,
 * xchg's automatic selection); "MPI_Alltoallv" is the
 * baseline that calls MPI_Alltoallv directly ("mpi" is the same library
 * collective reached through xchg). An algorithm xchg does not know is
 * reported and skipped. The whole closure is computed --reps times per
 * algorithm; the times reported are the minimum over repetitions of the
 * maximum over ranks of each rank's total time (total_s: the fixed-point
 * loop, from the initial delta to the empty one), of its time in the
 * alltoallv (exchange_s: waiting for slower ranks included) and in the
 * count exchange (counts_s). bytes_total: the tuple bytes sent to other
 * ranks over the run, summed over ranks.
 *
 * Check: every run's |path| and digest (the sum over its tuples of
 * tuple_digest, mod 2^64, reduced over ranks: independent of the order and
 * of the partition) must equal those of a serial closure of the whole graph
 * on rank 0 (a BFS from every vertex, serial_closure.h) when n (n + m) <=
 * --serial-max, otherwise those of the first algorithm's run. checked is
 * "serial" (equal to the serial closure), "agree" (no serial closure: equal
 * to the first algorithm's) or "FAIL"; a FAIL line goes to stderr and the
 * exit status is 1. --inject-error drops one tuple from the final path
 * relation of the last rank in the first algorithm's runs, which the check
 * must catch.
 *
 * usage: mpirun -n P xchg-closure [--graph=random,powerlaw,chain] [--n=N]
 *          [--m=M] [--seed=1] [--algos=MPI_Alltoallv,auto,mpi,scattered,...]
 *          [--reps=1] [--per-iteration[=FILE]] [--serial-max=2000000000]
 *          [--no-header] [--inject-error]
 * --n and --m apply to every graph of --graph; without them each graph has
 * its own size (see defaults[] below; m is the number of distinct edges
 * generated, which the CSV reports). CSV on stdout, one row per graph and
 * algorithm:
 *   graph,n,m,P,algo,iterations,paths,total_s,exchange_s,checked,counts_s,
 *   bytes_total,selection
 * (selection: what xchg ran, with every parameter). --per-iteration writes a
 * second CSV (to FILE, or to stdout after the first one and a blank line),
 * one row per graph, algorithm and iteration of the last repetition:
 *   graph,P,algo,iteration,delta,joined,new,bytes_max,bytes_total,
 *   alltoallv_s,counts_s
 * delta: tuples joined in the iteration (sum over ranks); joined: tuples
 * sent; new: those not yet known; bytes_max / bytes_total: tuple bytes one
 * rank sends to other ranks, maximum and sum over ranks; times: maximum over
 * ranks. Notes go to stderr.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "graph_gen.h"
#include "serial_closure.h"
#include "tuple_set.h"
#include "xchg.h"

static int rank, nranks;

#define DIE(...)                                                           \
    do {                                                                   \
        fprintf(stderr, "xchg-closure: rank %d: ", rank);                  \
        fprintf(stderr, __VA_ARGS__);                                      \
        fprintf(stderr, "\n");                                             \
        MPI_Abort(MPI_COMM_WORLD, 3);                                      \
        exit(3);                                                           \
    } while (0)

/* Every MPI call: on an error code, its message, and abort. */
#define MPI_CHECK(call)                                                    \
    do {                                                                   \
        int rc_ = (call);                                                  \
        if (rc_ != MPI_SUCCESS) {                                          \
            char msg_[MPI_MAX_ERROR_STRING];                               \
            int len_ = 0;                                                  \
            if (MPI_Error_string(rc_, msg_, &len_) != MPI_SUCCESS) len_ = 0; \
            msg_[len_] = '\0';                                             \
            DIE("%s (line %d): %s", #call, __LINE__, msg_);                \
        }                                                                  \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) DIE("out of memory (%zu bytes)", n);
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) DIE("out of memory (%zu bytes)", n);
    return p;
}

/* Grow *buf (of *cap elements of size elem) to hold at least need. */
static void reserve(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    *buf = xrealloc(*buf, c * elem);
    *cap = c;
}

static int owner(uint32_t v) { return (int)(mix64(v ^ 0x2545f4914f6cdd1dULL) % (uint64_t)nranks); }

/* ---- options ------------------------------------------------------------ */

#define MAX_GRAPHS 8
#define MAX_ALGOS 64

static const struct {
    graph_kind kind;
    long n, m;
} defaults[] = {
    {GRAPH_RANDOM, 3000, 4500},   /* 36 iterations, 3.2 M paths */
    {GRAPH_POWERLAW, 4096, 8000}, /* 10 iterations, 2.5 M paths */
    {GRAPH_CHAIN, 1500, 1499},    /* 1499 iterations, 1.1 M paths */
};

typedef struct options {
    graph_kind graph[MAX_GRAPHS];
    int ngraphs;
    long n, m; /* 0: the graph's default */
    uint64_t seed;
    char *algo[MAX_ALGOS];
    int nalgos;
    int reps;
    int per_iteration;
    const char *iter_file; /* NULL: stdout */
    double serial_max;
    int header, inject;
} options;

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr,
                "usage: xchg-closure [--graph=random,powerlaw,chain] [--n=N] [--m=M] [--seed=1]\n"
                "  [--algos=MPI_Alltoallv,auto,mpi,scattered,pairwise,nonblocking,parlogna,\n"
                "           parlogna:radix=4,parlinna_coalesced,node_aware]\n"
                "  [--reps=1] [--per-iteration[=FILE]] [--serial-max=2e9] [--no-header]\n"
                "  [--inject-error]\n");
    MPI_Finalize();
    exit(2);
}

static long num_arg(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) usage();
    return v;
}

/* "a,b:p=1,q=2,c" -> a | b:p=1,q=2 | c: an entry with '=' and no ':' is a
 * further parameter of the previous selection. */
static void split_algos(options *o, const char *list)
{
    char *copy = xmalloc(strlen(list) + 1);
    strcpy(copy, list);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        if (strchr(tok, '=') && !strchr(tok, ':') && o->nalgos > 0) {
            char *prev = o->algo[o->nalgos - 1];
            size_t len = strlen(prev) + strlen(tok) + 2;
            prev = xrealloc(prev, len);
            strcat(prev, ",");
            strcat(prev, tok);
            o->algo[o->nalgos - 1] = prev;
        } else {
            if (o->nalgos == MAX_ALGOS) usage();
            o->algo[o->nalgos] = xmalloc(strlen(tok) + 1);
            strcpy(o->algo[o->nalgos++], tok);
        }
    }
    free(copy);
    if (!o->nalgos) usage();
}

static void parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->reps = 1;
    o->serial_max = 2e9;
    o->header = 1;
    const char *graphs = "random,powerlaw,chain";
    const char *algos = "MPI_Alltoallv,auto,mpi,scattered,pairwise,nonblocking,parlogna,"
                        "parlogna:radix=4,parlinna_coalesced,node_aware";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define OPT(name) (strncmp(a, name "=", sizeof name) == 0 ? a + sizeof name : NULL)
        const char *v;
        if ((v = OPT("--graph"))) graphs = v;
        else if ((v = OPT("--n"))) o->n = num_arg(v, 1, INT_MAX);
        else if ((v = OPT("--m"))) o->m = num_arg(v, 0, LONG_MAX / 64);
        else if ((v = OPT("--seed"))) o->seed = (uint64_t)num_arg(v, 0, LONG_MAX);
        else if ((v = OPT("--algos"))) algos = v;
        else if ((v = OPT("--reps"))) o->reps = (int)num_arg(v, 1, 1000);
        else if ((v = OPT("--per-iteration"))) {
            o->per_iteration = 1;
            o->iter_file = strcmp(v, "-") ? v : NULL;
        } else if (!strcmp(a, "--per-iteration")) o->per_iteration = 1;
        else if ((v = OPT("--serial-max"))) {
            char *end;
            o->serial_max = strtod(v, &end);
            if (end == v || *end || o->serial_max < 0) usage();
        } else if (!strcmp(a, "--no-header")) o->header = 0;
        else if (!strcmp(a, "--inject-error")) o->inject = 1;
        else usage();
#undef OPT
    }
    char copy[256];
    if (strlen(graphs) >= sizeof copy) usage();
    strcpy(copy, graphs);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        if (o->ngraphs == MAX_GRAPHS || graph_kind_parse(tok, &o->graph[o->ngraphs])) usage();
        o->ngraphs++;
    }
    if (!o->ngraphs) usage();
    split_algos(o, algos);
}

/* ---- the partitioned graph ------------------------------------------------ */

typedef struct graph_part {
    graph_kind kind;
    uint32_t n;
    long m;            /* edges of the whole graph */
    long *adj_start;   /* n + 1: the edges (y, z) this rank owns (owner(y)) */
    uint32_t *adj;     /* ... their targets z */
    int *adj_owner;    /* ... and owner(z) */
    uint64_t *init;    /* the edges (y, z) with owner(z) == rank: first path/delta */
    long ninit;
} graph_part;

static void graph_part_build(graph_part *g, const uint64_t *edges)
{
    g->adj_start = xmalloc(((size_t)g->n + 1) * sizeof *g->adj_start);
    memset(g->adj_start, 0, ((size_t)g->n + 1) * sizeof *g->adj_start);
    long nadj = 0;
    g->ninit = 0;
    for (long i = 0; i < g->m; i++) {
        uint32_t y = (uint32_t)(edges[i] >> 32), z = (uint32_t)edges[i];
        if (owner(y) == rank) {
            g->adj_start[y + 1]++;
            nadj++;
        }
        if (owner(z) == rank) g->ninit++;
    }
    for (uint32_t v = 0; v < g->n; v++) g->adj_start[v + 1] += g->adj_start[v];
    g->adj = xmalloc((size_t)nadj * sizeof *g->adj);
    g->adj_owner = xmalloc((size_t)nadj * sizeof *g->adj_owner);
    g->init = xmalloc((size_t)g->ninit * sizeof *g->init);
    long k = 0, j = 0;
    for (long i = 0; i < g->m; i++) { /* sorted by source: adjacency in order */
        uint32_t y = (uint32_t)(edges[i] >> 32), z = (uint32_t)edges[i];
        if (owner(y) == rank) {
            g->adj[k] = z;
            g->adj_owner[k++] = owner(z);
        }
        if (owner(z) == rank) g->init[j++] = edges[i];
    }
}

static void graph_part_free(graph_part *g)
{
    free(g->adj_start);
    free(g->adj);
    free(g->adj_owner);
    free(g->init);
}

/* ---- one closure ------------------------------------------------------------ */

/* Per iteration, this rank's values (reduced over ranks after the run). */
typedef struct iter_log {
    size_t len, cap;
    uint64_t (*v)[4]; /* delta, joined, new, off-rank bytes */
    double (*t)[2];   /* alltoallv, counts */
} iter_log;

typedef struct result {
    long iterations;
    uint64_t paths, digest, bytes; /* reduced over ranks */
    double total_s, exchange_s, counts_s; /* max over ranks */
} result;

static void closure(const graph_part *g, MPI_Comm comm, int baseline, int inject,
                    result *res, iter_log *log)
{
    int *scount = xmalloc((size_t)nranks * sizeof(int)), *sdispl = xmalloc((size_t)nranks * sizeof(int));
    int *rcount = xmalloc((size_t)nranks * sizeof(int)), *rdispl = xmalloc((size_t)nranks * sizeof(int));
    int *pos = xmalloc((size_t)nranks * sizeof(int));
    uint64_t *delta = NULL, *sendbuf = NULL, *recvbuf = NULL;
    size_t delta_cap = 0, send_cap = 0, recv_cap = 0;
    tuple_set path;
    double exch = 0, counts = 0;
    uint64_t bytes = 0;
    log->len = 0;

    MPI_CHECK(MPI_Barrier(comm));
    double start = MPI_Wtime();
    if (tuple_set_init(&path, 4 * (size_t)g->ninit)) DIE("out of memory (path set)");
    reserve((void **)&delta, &delta_cap, (size_t)g->ninit, sizeof *delta);
    size_t ndelta = 0;
    for (long i = 0; i < g->ninit; i++) /* distinct edges: all new */
        if (tuple_set_insert(&path, g->init[i]) > 0) delta[ndelta++] = g->init[i];
    long long global = (long long)ndelta, mine;
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &global, 1, MPI_LONG_LONG, MPI_SUM, comm));
    long iterations = 0;
    while (global > 0) {
        iterations++;
        /* The join, at the owner of y: count per destination, then pack. */
        memset(scount, 0, (size_t)nranks * sizeof(int));
        size_t nsend = 0;
        for (size_t i = 0; i < ndelta; i++) {
            uint32_t y = (uint32_t)delta[i];
            for (long e = g->adj_start[y]; e < g->adj_start[y + 1]; e++) {
                if (scount[g->adj_owner[e]] == INT_MAX) DIE("more than INT_MAX tuples for one rank");
                scount[g->adj_owner[e]]++;
            }
            nsend += (size_t)(g->adj_start[y + 1] - g->adj_start[y]);
        }
        if (nsend > INT_MAX) DIE("%zu tuples to send: more than INT_MAX", nsend);
        for (int r = 0, d = 0; r < nranks; r++) {
            sdispl[r] = pos[r] = d;
            d += scount[r];
        }
        reserve((void **)&sendbuf, &send_cap, nsend, sizeof *sendbuf);
        for (size_t i = 0; i < ndelta; i++) {
            uint32_t x = (uint32_t)(delta[i] >> 32), y = (uint32_t)delta[i];
            for (long e = g->adj_start[y]; e < g->adj_start[y + 1]; e++)
                sendbuf[pos[g->adj_owner[e]]++] = tuple_pack(x, g->adj[e]);
        }
        /* The exchange: counts, then the tuples. */
        double t0 = MPI_Wtime();
        MPI_CHECK(MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm));
        double t1 = MPI_Wtime();
        size_t nrecv = 0;
        for (int r = 0; r < nranks; r++) {
            if (nrecv + (size_t)rcount[r] > INT_MAX) DIE("more than INT_MAX tuples to receive");
            rdispl[r] = (int)nrecv;
            nrecv += (size_t)rcount[r];
        }
        reserve((void **)&recvbuf, &recv_cap, nrecv, sizeof *recvbuf);
        if (baseline) {
            MPI_CHECK(MPI_Alltoallv(sendbuf, scount, sdispl, MPI_UINT64_T, recvbuf, rcount,
                                    rdispl, MPI_UINT64_T, comm));
        } else if (XCHG_Alltoallv(sendbuf, scount, sdispl, MPI_UINT64_T, recvbuf, rcount,
                                  rdispl, MPI_UINT64_T, comm) != MPI_SUCCESS) {
            DIE("XCHG_Alltoallv (iteration %ld): %s", iterations, XCHG_Last_error());
        }
        double t2 = MPI_Wtime();
        counts += t1 - t0;
        exch += t2 - t1;
        uint64_t off = 8 * (uint64_t)(nsend - (size_t)scount[rank]);
        bytes += off;
        /* Deduplication at the owner of z: the new tuples are the next delta. */
        reserve((void **)&delta, &delta_cap, nrecv, sizeof *delta);
        size_t old = ndelta;
        ndelta = 0;
        for (size_t i = 0; i < nrecv; i++) {
            int fresh = tuple_set_insert(&path, recvbuf[i]);
            if (fresh < 0) DIE("out of memory (path set of %zu tuples)", path.count);
            if (fresh) delta[ndelta++] = recvbuf[i];
        }
        mine = (long long)ndelta;
        MPI_CHECK(MPI_Allreduce(&mine, &global, 1, MPI_LONG_LONG, MPI_SUM, comm));
        if (log->len == log->cap) {
            reserve((void **)&log->v, &log->cap, log->len + 1, sizeof *log->v);
            log->t = xrealloc(log->t, log->cap * sizeof *log->t);
        }
        log->v[log->len][0] = old;
        log->v[log->len][1] = nsend;
        log->v[log->len][2] = ndelta;
        log->v[log->len][3] = off;
        log->t[log->len][0] = t2 - t1;
        log->t[log->len][1] = t1 - t0;
        log->len++;
    }
    double total = MPI_Wtime() - start;

    /* |path| and its digest, this rank's part; --inject-error drops one. */
    uint64_t sums[3] = {path.count, 0, bytes};
    int dropped = 0;
    for (size_t i = 0; i <= path.mask; i++) {
        uint64_t t = path.slot[i];
        if (t == TUPLE_SET_EMPTY) continue;
        if (inject && rank == nranks - 1 && !dropped) {
            dropped = 1;
            sums[0]--;
            continue;
        }
        sums[1] += tuple_digest(t);
    }
    if (inject && rank == nranks - 1 && !dropped)
        fprintf(stderr, "xchg-closure: --inject-error: rank %d holds no tuple to drop\n", rank);
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_UINT64_T, MPI_SUM, comm));
    double times[3] = {total, exch, counts};
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, times, 3, MPI_DOUBLE, MPI_MAX, comm));
    res->iterations = iterations;
    res->paths = sums[0];
    res->digest = sums[1];
    res->bytes = sums[2];
    res->total_s = times[0];
    res->exchange_s = times[1];
    res->counts_s = times[2];

    tuple_set_free(&path);
    free(delta);
    free(sendbuf);
    free(recvbuf);
    free(scount);
    free(sdispl);
    free(rcount);
    free(rdispl);
    free(pos);
}

/* ---- output ------------------------------------------------------------------ */

/* A CSV field: quoted when it holds a comma. */
static void field(FILE *f, const char *s)
{
    if (strchr(s, ',') || strchr(s, '"')) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"') fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
}

/* Reduce the last run's per-iteration values over ranks and append them (rank 0). */
static void iterations_write(FILE *f, const char *graph, const char *algo, const iter_log *log,
                             MPI_Comm comm)
{
    size_t len = log->len;
    uint64_t *sum = xmalloc(4 * len * sizeof *sum), *bmax = xmalloc(len * sizeof *bmax);
    uint64_t *mine = xmalloc(len * sizeof *mine);
    double *tmax = xmalloc(2 * len * sizeof *tmax);
    for (size_t i = 0; i < len; i++) mine[i] = log->v[i][3];
    MPI_CHECK(MPI_Reduce(len ? &log->v[0][0] : NULL, sum, (int)(4 * len), MPI_UINT64_T,
                         MPI_SUM, 0, comm));
    MPI_CHECK(MPI_Reduce(mine, bmax, (int)len, MPI_UINT64_T, MPI_MAX, 0, comm));
    MPI_CHECK(MPI_Reduce(len ? &log->t[0][0] : NULL, tmax, (int)(2 * len), MPI_DOUBLE,
                         MPI_MAX, 0, comm));
    if (rank == 0 && f)
        for (size_t i = 0; i < len; i++) {
            fprintf(f, "%s,%d,", graph, nranks);
            field(f, algo);
            fprintf(f, ",%zu,%llu,%llu,%llu,%llu,%llu,%.9f,%.9f\n", i + 1,
                    (unsigned long long)sum[4 * i], (unsigned long long)sum[4 * i + 1],
                    (unsigned long long)sum[4 * i + 2], (unsigned long long)bmax[i],
                    (unsigned long long)sum[4 * i + 3], tmax[2 * i], tmax[2 * i + 1]);
        }
    free(sum);
    free(bmax);
    free(mine);
    free(tmax);
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "xchg-closure: MPI_Init failed\n");
        return 3;
    }
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
    options o;
    parse(argc, argv, &o);

    /* Per-iteration rows: to a file, or kept in memory for stdout. */
    FILE *iters = NULL;
    char *iter_text = NULL;
    size_t iter_len = 0;
    if (o.per_iteration && rank == 0) {
        iters = o.iter_file ? fopen(o.iter_file, "w") : open_memstream(&iter_text, &iter_len);
        if (!iters) DIE("cannot open %s: %s", o.iter_file ? o.iter_file : "a memory stream",
                        strerror(errno));
        fprintf(iters, "graph,P,algo,iteration,delta,joined,new,bytes_max,bytes_total,"
                       "alltoallv_s,counts_s\n");
    }
    if (o.header && rank == 0)
        printf("graph,n,m,P,algo,iterations,paths,total_s,exchange_s,checked,counts_s,"
               "bytes_total,selection\n");

    int failed = 0;
    iter_log log = {0, 0, NULL, NULL};
    for (int gi = 0; gi < o.ngraphs; gi++) {
        graph_part g;
        memset(&g, 0, sizeof g);
        g.kind = o.graph[gi];
        long n = 0, m = 0;
        for (size_t d = 0; d < sizeof defaults / sizeof defaults[0]; d++)
            if (defaults[d].kind == g.kind) {
                n = defaults[d].n;
                m = defaults[d].m;
            }
        if (o.n) n = o.n;
        if (o.m) m = o.m;
        const char *gname = graph_kind_name(g.kind);
        g.n = (uint32_t)n;
        uint64_t *edges;
        int rc = graph_generate(g.kind, g.n, m, o.seed, &edges, &g.m);
        if (rc == -2) DIE("%s graph: m = %ld > n (n - 1) with n = %ld", gname, m, n);
        if (rc) DIE("out of memory generating the %s graph", gname);

        /* The reference: the serial closure on rank 0. */
        uint64_t ref[3] = {0, 0, 0}; /* have, paths, digest */
        if ((double)n * ((double)n + (double)g.m) <= o.serial_max) {
            if (rank == 0) {
                double t = MPI_Wtime();
                if (serial_closure(g.n, edges, g.m, &ref[1], &ref[2]))
                    DIE("out of memory (serial closure)");
                ref[0] = 1;
                fprintf(stderr, "xchg-closure: %s n=%ld m=%ld: serial closure %llu paths "
                        "(%.2f s)\n", gname, n, g.m, (unsigned long long)ref[1],
                        MPI_Wtime() - t);
            }
            MPI_CHECK(MPI_Bcast(ref, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD));
        } else if (rank == 0) {
            fprintf(stderr, "xchg-closure: %s n=%ld m=%ld: no serial closure "
                    "(n (n + m) > --serial-max): algorithms checked against each other\n",
                    gname, n, g.m);
        }
        graph_part_build(&g, edges);
        free(edges);

        int have_first = 0;
        uint64_t first[2] = {0, 0};
        for (int a = 0; a < o.nalgos; a++) {
            const char *algo = o.algo[a];
            int baseline = !strcmp(algo, "MPI_Alltoallv");
            MPI_Comm comm;
            MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
            MPI_CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
            /* "auto": no choice on comm, xchg selects by itself */
            const char *selection = strcmp(algo, "auto") ? algo : "";
            if (!baseline &&
                XCHG_Comm_set_algorithm(comm, "alltoallv", selection) != MPI_SUCCESS) {
                if (rank == 0)
                    fprintf(stderr, "xchg-closure: algorithm '%s' skipped: %s\n", algo,
                            XCHG_Last_error());
                MPI_CHECK(MPI_Comm_free(&comm));
                continue;
            }
            result best = {0, 0, 0, 0, 0, 0, 0}, r;
            const char *checked = ref[0] ? "serial" : "agree";
            for (int rep = 0; rep < o.reps; rep++) {
                closure(&g, comm, baseline, o.inject && a == 0, &r, &log);
                if (rep == 0) best = r; /* the counts of the last, the fastest times */
                best.iterations = r.iterations;
                best.paths = r.paths;
                best.digest = r.digest;
                best.bytes = r.bytes;
                if (r.total_s < best.total_s) best.total_s = r.total_s;
                if (r.exchange_s < best.exchange_s) best.exchange_s = r.exchange_s;
                if (r.counts_s < best.counts_s) best.counts_s = r.counts_s;
                const char *why = NULL;
                uint64_t want_p = 0, want_d = 0;
                if (ref[0] && (r.paths != ref[1] || r.digest != ref[2])) {
                    why = "the serial closure";
                    want_p = ref[1];
                    want_d = ref[2];
                } else if (!ref[0] && have_first && (r.paths != first[0] || r.digest != first[1])) {
                    why = "the first algorithm";
                    want_p = first[0];
                    want_d = first[1];
                }
                if (why) {
                    checked = "FAIL";
                    failed = 1;
                    if (rank == 0)
                        fprintf(stderr, "FAIL closure %s n=%ld P=%d algo=%s rep %d: %llu paths, "
                                "digest %016llx; %s has %llu, %016llx\n", gname, n, nranks,
                                algo, rep + 1, (unsigned long long)r.paths,
                                (unsigned long long)r.digest, why,
                                (unsigned long long)want_p, (unsigned long long)want_d);
                }
                if (!have_first) {
                    have_first = 1;
                    first[0] = r.paths;
                    first[1] = r.digest;
                }
            }
            char sel[256] = "MPI_Alltoallv (direct)";
            if (!baseline &&
                XCHG_Comm_get_algorithm(comm, "alltoallv", 1, 0, sel, (int)sizeof sel) !=
                    MPI_SUCCESS)
                DIE("XCHG_Comm_get_algorithm: %s", XCHG_Last_error());
            if (rank == 0) {
                printf("%s,%ld,%ld,%d,", gname, n, g.m, nranks);
                field(stdout, algo);
                printf(",%ld,%llu,%.6f,%.6f,%s,%.6f,%llu,", best.iterations,
                       (unsigned long long)best.paths, best.total_s, best.exchange_s, checked,
                       best.counts_s, (unsigned long long)best.bytes);
                field(stdout, sel);
                printf("\n");
                fflush(stdout);
            }
            if (o.per_iteration) iterations_write(iters, gname, algo, &log, comm);
            MPI_CHECK(MPI_Comm_free(&comm));
        }
        graph_part_free(&g);
    }
    free(log.v);
    free(log.t);
    for (int a = 0; a < o.nalgos; a++) free(o.algo[a]);
    if (iters) {
        if (fclose(iters)) DIE("writing the per-iteration CSV: %s", strerror(errno));
        if (iter_text) {
            printf("\n%s", iter_text);
            free(iter_text);
        }
    }
    int any = failed;
    MPI_CHECK(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Finalize());
    return any ? 1 : 0;
}
