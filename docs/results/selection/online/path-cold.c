/*
 * The path around the MPI library's collective with cold caches, as in a
 * program that computes between its calls: every call (PMPI_Alltoall and
 * XCHG_Alltoall in turn, 64 B blocks) is preceded by a sweep of a 16 MiB
 * buffer, outside the timed part; the difference per call is what xchg's
 * path costs when the lines and pages it touches were evicted. Five
 * repetitions of N (default 2000) pairs, after 500 warm-up calls.
 *   usage: XCHG_TEST_ONLINE_TIMES='*:mpi=1,*=10' mpirun -n 1 path-cold [N]
 *   (auto decided for `mpi`; or XCHG_ALLTOALL=mpi), LD_LIBRARY_PATH picks
 *   the libxchg build to measure.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xchg.h"
static char *sweep_buf;
static volatile long sink;
static void sweep(void) { long s = 0; for (size_t i = 0; i < (16u << 20); i += 64) { sweep_buf[i]++; s += sweep_buf[i]; } sink = s; }
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int P, rank; MPI_Comm_size(MPI_COMM_WORLD, &P); MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 2000, bytes = 64;
    sweep_buf = calloc(16u << 20, 1);
    char *s = calloc(P, bytes), *r = calloc(P, bytes);
    for (int i = 0; i < 500; i++) XCHG_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
    for (int rep = 0; rep < 5; rep++) {
        double tp = 0, tx = 0;
        for (int i = 0; i < n; i++) {
            sweep(); double t0 = MPI_Wtime();
            PMPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
            double t1 = MPI_Wtime(); tp += t1 - t0;
            sweep(); t0 = MPI_Wtime();
            XCHG_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
            t1 = MPI_Wtime(); tx += t1 - t0;
        }
        char used[256]; XCHG_Comm_get_algorithm(MPI_COMM_WORLD, "alltoall", 1, 0, used, 256);
        if (rank == 0) printf("cold caches P=%d alltoall 64 B: PMPI %.3f us, XCHG %.3f us (+%.3f) [%s]\n", P, tp / n * 1e6, tx / n * 1e6, (tx - tp) / n * 1e6, used);
    }
    MPI_Finalize();
}
