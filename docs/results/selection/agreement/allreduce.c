/*
 * What xchg's size agreement costs by itself: one MPI_Allreduce(MAX) of
 * three int64 (src/select/select.c), timed on the slowest rank after a
 * barrier, best of 4. Under SimGrid SMPI (docs/results/selection/README.md,
 * section 3):
 *   smpicc -O2 allreduce.c -o allreduce
 *   sim/platforms.py dragonfly 64 16 /tmp/plat
 *   smpirun -np 1024 -platform /tmp/plat/dragonfly-64x16.xml \
 *     -hostfile /tmp/plat/dragonfly-64x16.hosts $(grep -v '^#' sim/smpi-flags) \
 *     --cfg=smpi/coll-selector:mpich ./allreduce
 */
#include <mpi.h>
#include <stdio.h>
#include <stdint.h>
/* MPI_COMM_WORLD's default handler aborts on an error; a code it returns
 * anyway (another handler) ends the run too. */
#define CHECK(call) do { if ((call) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1); } while (0)
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank; CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    int64_t in[3] = {rank, 2 * rank, 3}, out[3];
    double best = 1e9;
    for (int it = 0; it < 4; it++) {
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        CHECK(MPI_Allreduce(in, out, 3, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
        double t = MPI_Wtime() - t0, tmax = 0;
        CHECK(MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
        if (tmax < best) best = tmax;
    }
    if (!rank) printf("allreduce of 3 int64: %.3f us\n", best * 1e6);
    MPI_Finalize();
    return 0;
}
