/*
 * What a decided signature's timed call adds (goal/README.md, "The periodic
 * check"): a barrier, and at the next call an allreduce of one int64 (MAX),
 * against the collective itself. Mean time per call of the slowest rank,
 * in blocks of 1,000 back-to-back calls of each, the three interleaved, 20
 * blocks each after one not counted; prints the median block as a CSV line.
 *   mpicc -O2 check-cost.c -o check-cost && mpirun -n P ./check-cost S
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 20
#define CALLS 1000
#define CHECK(call)                                                                              \
    do {                                                                                         \
        int rc_ = (call);                                                                        \
        if (rc_ != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, rc_);                                   \
    } while (0)

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    CHECK(MPI_Init(&argc, &argv));
    int P, rank, size = argc > 1 ? atoi(argv[1]) : 16;
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &P));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    char *send = calloc((size_t)P * size + 1, 1), *recv = calloc((size_t)P * size + 1, 1);
    if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    double seconds[3][BLOCKS];
    long long mine = rank, largest;
    for (int block = 0; block <= BLOCKS; block++)
        for (int kind = 0; kind < 3; kind++) {
            CHECK(MPI_Barrier(MPI_COMM_WORLD));
            double start = MPI_Wtime();
            for (int i = 0; i < CALLS; i++)
                if (kind == 0)
                    CHECK(MPI_Alltoall(send, size, MPI_BYTE, recv, size, MPI_BYTE, MPI_COMM_WORLD));
                else if (kind == 1)
                    CHECK(MPI_Barrier(MPI_COMM_WORLD));
                else
                    CHECK(MPI_Allreduce(&mine, &largest, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD));
            double mean = (MPI_Wtime() - start) / CALLS, slowest;
            CHECK(MPI_Allreduce(&mean, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
            if (block > 0) seconds[kind][block - 1] = slowest;
        }
    for (int kind = 0; kind < 3; kind++) qsort(seconds[kind], BLOCKS, sizeof(double), by_value);
    if (rank == 0)
        printf("%d,%d,%.2f,%.2f,%.2f\n", P, size, seconds[0][BLOCKS / 2] * 1e6,
               seconds[1][BLOCKS / 2] * 1e6, seconds[2][BLOCKS / 2] * 1e6);
    free(send);
    free(recv);
    CHECK(MPI_Finalize());
    return 0;
}
