/*
 * The neighbourhood alltoallv against the MPI library's own, interleaved,
 * on a distributed-graph communicator: `ring` (the two ring neighbours; one
 * on 2 ranks) or `all` (every other rank), S bytes to and from each
 * neighbour. Rows: nonblocking calls started and waited for at once, MPI's
 * own (PMPI_Ineighbor_alltoallv + PMPI_Wait), the drop-in's
 * (MPI_Ineighbor_alltoallv + MPI_Wait: this program links libxchg-mpi
 * before the MPI library) and xchg's API (XCHG_Ineighbor_alltoallv +
 * XCHG_Wait); then blocking calls, MPI's own (PMPI_Neighbor_alltoallv) and
 * xchg's (XCHG_Neighbor_alltoallv). Per size: WARM calls of each row, then
 * ROUNDS rounds of ITERS calls of each row in turn, each call after a
 * barrier, timed from its start to its (wait's) return; the slowest rank's
 * time per call; the median over all calls. Every row's receive buffer is
 * checked against PMPI_Neighbor_alltoallv's after its warm-up (exit 1 on a
 * difference).
 *   usage: mpirun -n P neighbor ring|all MIN MAX ITERS ROUNDS WARM
 * Output: CSV lines graph,P,bytes,form,row,algorithm,median_us,ratio (ratio
 * to MPI's own of the same form; algorithm: what xchg's rows ran,
 * XCHG_Comm_get_algorithm).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

enum { NB_MPI, NB_DROPIN, NB_XCHG, B_MPI, B_XCHG, ROWS };
static const char *const row_names[ROWS] = {"MPI", "drop-in", "xchg", "MPI", "xchg"};

typedef struct {
    MPI_Comm graph;
    int degree, bytes;
    char *send, *recv;
    int *counts, *displs;
} exchange;

static int start(int row, exchange *x, MPI_Request *mreq, XCHG_Request *xreq)
{
    char *s = x->send, *r = x->recv;
    int *c = x->counts, *d = x->displs;
    MPI_Comm g = x->graph;
    switch (row) {
    case NB_MPI: return PMPI_Ineighbor_alltoallv(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, g, mreq);
    case NB_DROPIN: return MPI_Ineighbor_alltoallv(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, g, mreq);
    case NB_XCHG: return XCHG_Ineighbor_alltoallv(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, g, xreq);
    case B_MPI: return PMPI_Neighbor_alltoallv(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, g);
    default: return XCHG_Neighbor_alltoallv(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, g);
    }
}

static double one_call(int row, exchange *x)
{
    MPI_Request mreq;
    XCHG_Request xreq;
    PMPI_Barrier(x->graph);
    double t0 = MPI_Wtime();
    int rc = start(row, x, &mreq, &xreq);
    if (rc == MPI_SUCCESS && row == NB_XCHG) rc = XCHG_Wait(&xreq, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && row == NB_MPI) rc = PMPI_Wait(&mreq, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && row == NB_DROPIN) rc = MPI_Wait(&mreq, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
    return MPI_Wtime() - t0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Whether every rank's receive buffer after `row` equals PMPI's blocking result. */
static int correct(int row, exchange *x, char *expect)
{
    size_t total = (size_t)x->degree * x->bytes;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t i = 0; i < total; i++) x->send[i] = (char)(rank * 31 + i * 7 + row);
    PMPI_Neighbor_alltoallv(x->send, x->counts, x->displs, MPI_BYTE, expect, x->counts,
                            x->displs, MPI_BYTE, x->graph);
    memset(x->recv, 0, total);
    one_call(row, x);
    int bad = memcmp(x->recv, expect, total) != 0, any;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return !any;
}

/* The graph: ring (both ring neighbours, distinct) or all (every other rank). */
static MPI_Comm graph_of(const char *kind, int rank, int P, int *degree)
{
    int *peers = malloc((size_t)P * sizeof(int)), n = 0;
    if (strcmp(kind, "ring") == 0) {
        if (P > 1) peers[n++] = (rank + 1) % P;
        if (P > 2) peers[n++] = (rank + P - 1) % P;
    } else {
        for (int p = 1; p < P; p++) peers[n++] = (rank + p) % P;
    }
    MPI_Comm graph; /* weights: the peers (MPI_UNWEIGHTED makes GCC warn in Open MPI's mpi.h) */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, peers, peers, n, peers, peers,
                                   MPI_INFO_NULL, 0, &graph);
    free(peers);
    *degree = n;
    return graph;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 7) {
        fprintf(stderr, "usage: neighbor ring|all MIN MAX ITERS ROUNDS WARM\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int lo = atoi(argv[2]), hi = atoi(argv[3]), iters = atoi(argv[4]), rounds = atoi(argv[5]);
    int warm = atoi(argv[6]), rank, P, ok = 1;
    exchange x;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x.graph = graph_of(argv[1], rank, P, &x.degree);
    size_t most = (size_t)(x.degree > 0 ? x.degree : 1) * hi;
    x.send = malloc(most);
    x.recv = malloc(most);
    char *expect = malloc(most);
    x.counts = malloc((size_t)(x.degree + 1) * sizeof(int));
    x.displs = malloc((size_t)(x.degree + 1) * sizeof(int));
    double *t = malloc((size_t)iters * sizeof(double)), *times[ROWS];
    if (rank == 0) printf("graph,P,bytes,form,row,algorithm,median_us,ratio\n");
    for (x.bytes = lo; x.bytes <= hi; x.bytes *= 4) {
        for (int i = 0; i < x.degree; i++) x.counts[i] = x.bytes, x.displs[i] = i * x.bytes;
        char used[ROWS][64];
        double median[ROWS];
        for (int row = 0; row < ROWS; row++) {
            times[row] = malloc((size_t)iters * rounds * sizeof(double));
            for (int i = 0; i < warm; i++) one_call(row, &x);
            ok &= correct(row, &x, expect);
            snprintf(used[row], sizeof used[row], "-");
            if (row != NB_MPI && row != B_MPI) /* the drop-in's too: xchg's context */
                XCHG_Comm_get_algorithm(x.graph, "neighbor_alltoallv", 1, 0, used[row],
                                        (int)sizeof used[row]);
            for (char *c = used[row]; *c; c++) /* parameters: one CSV field */
                if (*c == ',') *c = ' ';
        }
        for (int r = 0; r < rounds; r++)
            for (int row = 0; row < ROWS; row++) {
                for (int i = 0; i < iters; i++) t[i] = one_call(row, &x);
                PMPI_Allreduce(MPI_IN_PLACE, t, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                memcpy(times[row] + (size_t)r * iters, t, (size_t)iters * sizeof(double));
            }
        for (int row = 0; row < ROWS; row++) {
            qsort(times[row], (size_t)iters * rounds, sizeof(double), cmp);
            median[row] = times[row][(size_t)iters * rounds / 2] * 1e6;
            free(times[row]);
        }
        for (int row = 0; rank == 0 && row < ROWS; row++) {
            int blocking = row >= B_MPI;
            printf("%s,%d,%d,%s,%s,%s,%.3f,%.3f\n", argv[1], P, x.bytes,
                   blocking ? "blocking" : "nonblocking", row_names[row], used[row], median[row],
                   median[row] / median[blocking ? B_MPI : NB_MPI]);
        }
    }
    if (rank == 0 && !ok) fprintf(stderr, "neighbor: a row's result differs from MPI's\n");
    MPI_Comm_free(&x.graph);
    free(x.send), free(x.recv), free(expect), free(x.counts), free(x.displs), free(t);
    MPI_Finalize();
    return ok ? 0 : 1;
}
