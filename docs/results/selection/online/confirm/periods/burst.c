/* MPI's own alltoallv in bursts of k consecutive calls between bursts of a
 * hand-written nonblocking exchange (Irecv/Isend/Waitall on a duplicate)
 * and of xchg's `nonblocking` (XCHG_Alltoallv, set on a duplicate), against
 * each in a loop of its own; every call after a barrier, timed on
 * every rank, the slowest rank's time (MAX) kept. One line per (pattern, k):
 * the median per call. usage: mpirun -n 8 burst [block_bytes] [rounds] */
#include <mpi.h>
#include <stdio.h>
#include <xchg.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                          \
    do {                                                                     \
        if ((call) != MPI_SUCCESS) {                                         \
            fprintf(stderr, "burst: %s failed\n", #call);                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                    \
        }                                                                    \
    } while (0)

static int P, rank;
static MPI_Request *req; /* 2P: the hand-written exchange's */
static int *counts, *displs;
static char *sendbuf, *recvbuf;
static MPI_Comm dup;

static void library(void)
{
    CHECK(MPI_Alltoallv(sendbuf, counts, displs, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE,
                        MPI_COMM_WORLD));
}

static void handwritten(void)
{
    int n = 0;
    for (int i = 1; i <= P; i++) {
        int p = (rank + P - i) % P;
        CHECK(MPI_Irecv(recvbuf + displs[p], counts[p], MPI_BYTE, p, 7, dup, &req[n++]));
    }
    for (int i = 1; i <= P; i++) {
        int p = (rank + i) % P;
        CHECK(MPI_Isend(sendbuf + displs[p], counts[p], MPI_BYTE, p, 7, dup, &req[n++]));
    }
    CHECK(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
}

static MPI_Comm xcomm;

static void through_xchg(void)
{
    CHECK(XCHG_Alltoallv(sendbuf, counts, displs, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE,
                         xcomm));
}

static double timed(void (*f)(void))
{
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t = MPI_Wtime();
    f();
    t = MPI_Wtime() - t;
    double slowest;
    CHECK(MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return slowest;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &P));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &xcomm));
    CHECK(XCHG_Comm_set_algorithm(xcomm, "alltoallv", "nonblocking"));
    int block = argc > 1 ? atoi(argv[1]) : 16, rounds = argc > 2 ? atoi(argv[2]) : 400;
    counts = malloc(2 * (size_t)P * sizeof(int));
    req = malloc(2 * (size_t)P * sizeof *req);
    sendbuf = calloc((size_t)P, (size_t)block);
    recvbuf = calloc((size_t)P, (size_t)block);
    size_t most = (size_t)rounds + 32; /* a line's calls of each: (rounds / k + 1) k */
    double *lib = malloc(most * sizeof(double)), *hand = malloc(most * sizeof(double)),
           *xc = malloc(most * sizeof(double));
    if (!counts || !req || !sendbuf || !recvbuf || !lib || !hand || !xc) {
        fprintf(stderr, "burst: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    displs = counts + P; /* int displacements: P x block under 2 GiB */
    for (int p = 0; p < P; p++) counts[p] = block, displs[p] = p * block;
    for (int w = 0; w < 200; w++) library(), handwritten(), through_xchg();
    static const int ks[] = {1, 2, 4, 8, 32, 0}; /* 0: each in a loop of its own */
    for (int r = 0; r < 2; r++) /* the list twice: a drift over the run shows */
        for (int j = 0; j < (int)(sizeof ks / sizeof ks[0]); j++) {
            int k = ks[j], nl = 0, nh = 0, nx = 0;
            if (k == 0) {
                for (int i = 0; i < rounds; i++) lib[nl++] = timed(library);
                for (int i = 0; i < rounds; i++) hand[nh++] = timed(handwritten);
                for (int i = 0; i < rounds; i++) xc[nx++] = timed(through_xchg);
            } else {
                for (int i = 0; i < rounds / k + 1; i++) {
                    for (int c = 0; c < k; c++) lib[nl++] = timed(library);
                    for (int c = 0; c < k; c++) hand[nh++] = timed(handwritten);
                    for (int c = 0; c < k; c++) xc[nx++] = timed(through_xchg);
                }
            }
            if (rank == 0)
                printf("pass %d burst %s%d: library %.2f us, handwritten %.2f us, xchg %.2f us\n",
                       r, k ? "" : "loop ", k ? k : rounds, median(lib, nl) * 1e6,
                       median(hand, nh) * 1e6, median(xc, nx) * 1e6);
        }
    free(lib), free(hand), free(xc), free(sendbuf), free(recvbuf), free(counts), free(req);
    CHECK(MPI_Comm_free(&xcomm));
    CHECK(MPI_Comm_free(&dup));
    CHECK(MPI_Finalize());
    return 0;
}
