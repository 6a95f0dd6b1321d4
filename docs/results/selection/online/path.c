/*
 * The path around the MPI library's collective: N calls of PMPI_Alltoall
 * (Alltoallv) against N calls of XCHG_Alltoall (Alltoallv) of 64 B blocks,
 * three times; the difference per call is what xchg adds. Run by path.sh
 * with `mpi` decided by online selection (forced: XCHG_TEST_ONLINE_TIMES),
 * chosen explicitly (XCHG_ALLTOALL=mpi), and for a fixed xchg algorithm
 * (the full path). At P = 1 the collective is a local copy, so the
 * difference is the path alone.
 *   usage: mpirun -n P path [N]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "xchg.h"
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int P, rank; MPI_Comm_size(MPI_COMM_WORLD, &P); MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 200000, bytes = 64;
    char *s = calloc(P, bytes), *r = calloc(P, bytes);
    int *cnt = malloc(P * sizeof(int)), *dis = malloc(P * sizeof(int));
    for (int i = 0; i < P; i++) { cnt[i] = bytes; dis[i] = i * bytes; }
    for (int rep = 0; rep < 3; rep++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) PMPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        for (int i = 0; i < n; i++) XCHG_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        for (int i = 0; i < n; i++) PMPI_Alltoallv(s, cnt, dis, MPI_BYTE, r, cnt, dis, MPI_BYTE, MPI_COMM_WORLD);
        double t3 = MPI_Wtime();
        for (int i = 0; i < n; i++) XCHG_Alltoallv(s, cnt, dis, MPI_BYTE, r, cnt, dis, MPI_BYTE, MPI_COMM_WORLD);
        double t4 = MPI_Wtime();
        char used[256]; XCHG_Comm_get_algorithm(MPI_COMM_WORLD, "alltoall", 1, 0, used, 256);
        char usedv[256]; XCHG_Comm_get_algorithm(MPI_COMM_WORLD, "alltoallv", 1, 0, usedv, 256);
        if (rank == 0) printf("P=%d alltoall: PMPI %.3f us, XCHG %.3f us (+%.3f) [%s]; alltoallv: PMPI %.3f, XCHG %.3f (+%.3f) [%s]\n", P,
            (t1-t0)/n*1e6, (t2-t1)/n*1e6, ((t2-t1)-(t1-t0))/n*1e6, used, (t3-t2)/n*1e6, (t4-t3)/n*1e6, ((t4-t3)-(t3-t2))/n*1e6, usedv);
    }
    MPI_Finalize();
}
