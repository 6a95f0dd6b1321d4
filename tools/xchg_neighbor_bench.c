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
 * The patterns and their traffic between nodes are generated in
 * neighbor_patterns.c (neighbor_bench.h: what the two files share).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include "neighbor_bench.h"
#include "xchg.h"

int rank, nranks;

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
