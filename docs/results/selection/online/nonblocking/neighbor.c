/*
 * The nonblocking neighbourhood alltoallv against the MPI library's own, as
 * a gap measured (README, "What is left"): a distributed-graph
 * communicator where every rank exchanges with its two ring neighbours
 * (one on 2 ranks), C doubles each way; per size, 400 calls of each row
 * alternating (PMPI_Ineighbor_alltoallv + PMPI_Wait, XCHG_Ineighbor_alltoallv
 * + XCHG_Wait), each after a barrier, start to wait's return, the slowest
 * rank's time, the median.
 *   build: mpicc -O2 -Iinclude neighbor.c -Lbuild -lxchg -Wl,-rpath,$PWD/build
 *   run:   mpirun -n P ./a.out
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "xchg.h"

enum { CALLS = 400, WARM = 50 };

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int degree = P > 2 ? 2 : 1;
    int neighbours[2] = {(rank + 1) % P, (rank + P - 1) % P};
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, neighbours, MPI_UNWEIGHTED, degree,
                                   neighbours, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    static double t[2][CALLS];
    for (int c = 2; c <= 8192; c *= 4) {
        int counts[2] = {c, c}, displs[2] = {0, c};
        double *send = calloc(2 * (size_t)c, sizeof(double)),
               *recv = calloc(2 * (size_t)c, sizeof(double));
        for (int it = 0; it < CALLS + WARM; it++)
            for (int row = 0; row < 2; row++) {
                PMPI_Barrier(graph);
                double t0 = MPI_Wtime();
                if (row == 0) {
                    MPI_Request q;
                    PMPI_Ineighbor_alltoallv(send, counts, displs, MPI_DOUBLE, recv, counts, displs,
                                             MPI_DOUBLE, graph, &q);
                    PMPI_Wait(&q, MPI_STATUS_IGNORE);
                } else {
                    XCHG_Request q;
                    XCHG_Ineighbor_alltoallv(send, counts, displs, MPI_DOUBLE, recv, counts, displs,
                                             MPI_DOUBLE, graph, &q);
                    XCHG_Wait(&q, MPI_STATUS_IGNORE);
                }
                if (it >= WARM) t[row][it - WARM] = MPI_Wtime() - t0;
            }
        PMPI_Allreduce(MPI_IN_PLACE, t, 2 * CALLS, MPI_DOUBLE, MPI_MAX, graph);
        qsort(t[0], CALLS, sizeof(double), cmp);
        qsort(t[1], CALLS, sizeof(double), cmp);
        char used[128] = "";
        XCHG_Comm_get_algorithm(graph, "neighbor_alltoallv", 1, 0, used, (int)sizeof used);
        if (rank == 0)
            printf("P=%d %6d B per neighbour: MPI %.2f us, xchg %.2f us (%.2fx) [%s]\n", P,
                   c * 8, t[0][CALLS / 2] * 1e6, t[1][CALLS / 2] * 1e6,
                   t[1][CALLS / 2] / t[0][CALLS / 2], used);
        free(send), free(recv);
    }
    MPI_Comm_free(&graph);
    MPI_Finalize();
    return 0;
}
