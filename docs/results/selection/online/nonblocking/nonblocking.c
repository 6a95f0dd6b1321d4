/*
 * A nonblocking collective started and waited for at once, three ways,
 * interleaved: the MPI library's own (PMPI_Ialltoall + PMPI_Wait), the
 * drop-in's (MPI_Ialltoall + MPI_Wait: this program links libxchg-mpi
 * before the MPI library) and xchg's API (XCHG_Ialltoall + XCHG_Wait), for
 * alltoall, alltoallv (uniform counts) and allgather with S-byte blocks.
 * Per size: LEARN blocking calls of the same shape through xchg first
 * (XCHG_Alltoall, ...: online selection decides the signature, whose winner
 * the nonblocking calls then run; 0: nothing learned, they run `mpi`), WARM
 * calls of each row, then ROUNDS rounds of ITERS calls of
 * each row in turn, each call after a barrier, timed from its start to
 * its wait's return; the slowest rank's time per call; the median over all
 * calls. Every row's receive buffer is checked against MPI's blocking
 * result after its first round (exit 1 on a difference).
 *   usage: mpirun -n P nonblocking MIN MAX ITERS ROUNDS WARM [LEARN]
 * Output: CSV lines coll,P,bytes,learn,blocking,row,algorithm,median_us,ratio
 * (ratio to MPI's own; blocking: what the last blocking call ran, its
 * signature's winner; algorithm: what xchg's rows ran,
 * XCHG_Comm_get_algorithm).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

enum { ROW_MPI, ROW_DROPIN, ROW_XCHG, ROWS };
static const char *const row_names[ROWS] = {"MPI", "drop-in", "xchg"};
enum { ALLTOALL, ALLTOALLV, ALLGATHER, COLLS };
static const char *const coll_names[COLLS] = {"alltoall", "alltoallv", "allgather"};

typedef struct {
    int P, bytes;
    char *send, *recv;
    int *counts, *displs;
} exchange;

static int start(int coll, int row, exchange *x, MPI_Request *mreq, XCHG_Request *xreq)
{
    int n = x->bytes;
    MPI_Comm c = MPI_COMM_WORLD;
    if (row == ROW_XCHG) {
        if (coll == ALLTOALL) return XCHG_Ialltoall(x->send, n, MPI_BYTE, x->recv, n, MPI_BYTE, c, xreq);
        if (coll == ALLGATHER) return XCHG_Iallgather(x->send, n, MPI_BYTE, x->recv, n, MPI_BYTE, c, xreq);
        return XCHG_Ialltoallv(x->send, x->counts, x->displs, MPI_BYTE, x->recv, x->counts,
                               x->displs, MPI_BYTE, c, xreq);
    }
    if (row == ROW_MPI) {
        if (coll == ALLTOALL) return PMPI_Ialltoall(x->send, n, MPI_BYTE, x->recv, n, MPI_BYTE, c, mreq);
        if (coll == ALLGATHER) return PMPI_Iallgather(x->send, n, MPI_BYTE, x->recv, n, MPI_BYTE, c, mreq);
        return PMPI_Ialltoallv(x->send, x->counts, x->displs, MPI_BYTE, x->recv, x->counts,
                               x->displs, MPI_BYTE, c, mreq);
    }
    if (coll == ALLTOALL) return MPI_Ialltoall(x->send, n, MPI_BYTE, x->recv, n, MPI_BYTE, c, mreq);
    if (coll == ALLGATHER) return MPI_Iallgather(x->send, n, MPI_BYTE, x->recv, n, MPI_BYTE, c, mreq);
    return MPI_Ialltoallv(x->send, x->counts, x->displs, MPI_BYTE, x->recv, x->counts, x->displs,
                          MPI_BYTE, c, mreq);
}

static double one_call(int coll, int row, exchange *x)
{
    MPI_Request mreq;
    XCHG_Request xreq;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (start(coll, row, x, &mreq, &xreq) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
    int rc = row == ROW_XCHG ? XCHG_Wait(&xreq, MPI_STATUS_IGNORE)
             : row == ROW_MPI ? PMPI_Wait(&mreq, MPI_STATUS_IGNORE)
                              : MPI_Wait(&mreq, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
    return MPI_Wtime() - t0;
}

/* `calls` blocking calls of the shape through xchg (online selection learns). */
static void learn(int coll, exchange *x, int calls)
{
    int n = x->bytes, rc = MPI_SUCCESS;
    for (int i = 0; i < calls && rc == MPI_SUCCESS; i++)
        rc = coll == ALLTOALL    ? XCHG_Alltoall(x->send, n, MPI_BYTE, x->recv, n, MPI_BYTE,
                                                 MPI_COMM_WORLD)
             : coll == ALLGATHER ? XCHG_Allgather(x->send, n, MPI_BYTE, x->recv, n, MPI_BYTE,
                                                  MPI_COMM_WORLD)
                                 : XCHG_Alltoallv(x->send, x->counts, x->displs, MPI_BYTE,
                                                  x->recv, x->counts, x->displs, MPI_BYTE,
                                                  MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Whether every rank's receive buffer after `row` equals MPI's blocking result. */
static int correct(int coll, int row, exchange *x, char *expect)
{
    size_t total = (size_t)x->P * x->bytes;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t i = 0; i < total; i++) x->send[i] = (char)(rank * 31 + i * 7 + row);
    if (coll == ALLGATHER)
        PMPI_Allgather(x->send, x->bytes, MPI_BYTE, expect, x->bytes, MPI_BYTE, MPI_COMM_WORLD);
    else
        PMPI_Alltoall(x->send, x->bytes, MPI_BYTE, expect, x->bytes, MPI_BYTE, MPI_COMM_WORLD);
    memset(x->recv, 0, total);
    one_call(coll, row, x);
    int bad = memcmp(x->recv, expect, total) != 0, any;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return !any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 6) {
        fprintf(stderr, "usage: nonblocking MIN MAX ITERS ROUNDS WARM\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int lo = atoi(argv[1]), hi = atoi(argv[2]), iters = atoi(argv[3]), rounds = atoi(argv[4]);
    int warm = atoi(argv[5]), calls = argc > 6 ? atoi(argv[6]) : 0, rank, ok = 1;
    exchange x;
    MPI_Comm_size(MPI_COMM_WORLD, &x.P);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x.send = malloc((size_t)x.P * hi);
    x.recv = malloc((size_t)x.P * hi);
    char *expect = malloc((size_t)x.P * hi);
    x.counts = malloc(x.P * sizeof(int));
    x.displs = malloc(x.P * sizeof(int));
    double *t = malloc((size_t)iters * rounds * sizeof(double));
    if (rank == 0) printf("coll,P,bytes,learn,blocking,row,algorithm,median_us,ratio\n");
    for (int coll = 0; coll < COLLS; coll++)
        for (x.bytes = lo; x.bytes <= hi; x.bytes *= 2) {
            for (int p = 0; p < x.P; p++) x.counts[p] = x.bytes, x.displs[p] = p * x.bytes;
            double median[ROWS];
            double *times[ROWS];
            char used[ROWS][64], learned[64] = "-";
            learn(coll, &x, calls);
            if (calls > 0) /* what the blocking calls ran last: their winner */
                XCHG_Comm_get_algorithm(MPI_COMM_WORLD, coll_names[coll], 1, 0, learned,
                                        (int)sizeof learned);
            for (char *c = learned; *c; c++)
                if (*c == ',') *c = ' ';
            for (int row = 0; row < ROWS; row++) {
                times[row] = malloc((size_t)iters * rounds * sizeof(double));
                for (int i = 0; i < warm; i++) one_call(coll, row, &x);
                ok &= correct(coll, row, &x, expect);
                snprintf(used[row], sizeof used[row], "%s", row == ROW_MPI ? "-" : "?");
                if (row != ROW_MPI) /* the drop-in's too: it reaches xchg on this context */
                    XCHG_Comm_get_algorithm(MPI_COMM_WORLD, coll_names[coll], 1, 0, used[row],
                                            (int)sizeof used[row]);
                for (char *c = used[row]; *c; c++) /* parameters: "a=1 b=2", one CSV field */
                    if (*c == ',') *c = ' ';
            }
            for (int r = 0; r < rounds; r++)
                for (int row = 0; row < ROWS; row++) {
                    for (int i = 0; i < iters; i++) t[i] = one_call(coll, row, &x);
                    PMPI_Allreduce(MPI_IN_PLACE, t, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                    memcpy(times[row] + (size_t)r * iters, t, iters * sizeof(double));
                }
            for (int row = 0; row < ROWS; row++) {
                qsort(times[row], (size_t)iters * rounds, sizeof(double), cmp);
                median[row] = times[row][(size_t)iters * rounds / 2] * 1e6;
                free(times[row]);
            }
            for (int row = 0; rank == 0 && row < ROWS; row++)
                printf("%s,%d,%d,%d,%s,%s,%s,%.3f,%.3f\n", coll_names[coll], x.P, x.bytes, calls,
                       learned, row_names[row], used[row], median[row], median[row] / median[ROW_MPI]);
        }
    if (rank == 0 && !ok) fprintf(stderr, "nonblocking: a row's result differs from MPI's\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
