/*
 * Calibration probe for the SMPI per-message overheads (sim/calibrate runs it
 * with Open MPI on this machine and under SMPI, 2 ranks on one node).
 * Prints, per message size, minima over REPS repetitions (microseconds):
 *   pingpong  half round trip of MPI_Send/MPI_Recv
 *   isend     cost of posting one MPI_Isend (receives pre-posted)   -> smpi/ois
 *   send      cost of one blocking eager MPI_Send (receives pre-posted) -> smpi/os
 *   recv      cost of one MPI_Recv whose message has already arrived -> smpi/or
 *   alltoall  one MPI_Alltoall on 2 ranks, that size per peer
 *   pack      MPI_Pack of a strided vector of that many bytes (ints, stride 2)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BURST 64
#define REPS 200

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (!rank) fprintf(stderr, "calibrate: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = 1 - rank;
    const int sizes[] = {0, 16, 64, 256, 1024, 4096, 16384};
    const int nsizes = sizeof sizes / sizeof sizes[0];
    char *sbuf = calloc(BURST, 65536), *rbuf = calloc(BURST, 65536);
    int *vec = calloc(2 * 65536, 1);
    char *packed = malloc(65536);
    MPI_Request reqs[BURST];
    if (!rank) printf("bytes,pingpong_us,isend_us,send_us,recv_us,alltoall_us,pack_us\n");
    for (int k = 0; k < nsizes; k++) {
        int n = sizes[k];
        double best[6] = {1e9, 1e9, 1e9, 1e9, 1e9, n ? 1e9 : 0};
        for (int rep = 0; rep < REPS; rep++) {
            double t;
            /* ping-pong */
            MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime();
            for (int i = 0; i < 10; i++) {
                if (!rank) {
                    MPI_Send(sbuf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                    MPI_Recv(rbuf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(rbuf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(sbuf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                }
            }
            t = (MPI_Wtime() - t) / 20;
            if (t < best[0]) best[0] = t;
            /* isend / send posting cost; receiver pre-posts its receives */
            for (int blocking = 0; blocking < 2; blocking++) {
                if (rank == 1)
                    for (int i = 0; i < BURST; i++)
                        MPI_Irecv(rbuf + (size_t)i * n, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[i]);
                MPI_Barrier(MPI_COMM_WORLD);
                if (rank == 0) {
                    t = MPI_Wtime();
                    for (int i = 0; i < BURST; i++) {
                        if (blocking) MPI_Send(sbuf + (size_t)i * n, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                        else MPI_Isend(sbuf + (size_t)i * n, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &reqs[i]);
                    }
                    t = (MPI_Wtime() - t) / BURST;
                    if (t < best[1 + blocking]) best[1 + blocking] = t;
                    if (!blocking) MPI_Waitall(BURST, reqs, MPI_STATUSES_IGNORE);
                } else {
                    MPI_Waitall(BURST, reqs, MPI_STATUSES_IGNORE);
                }
            }
            /* receive of messages that have already arrived (eager sizes) */
            if (n <= 4096) {
                if (rank == 0)
                    for (int i = 0; i < BURST; i++)
                        MPI_Isend(sbuf + (size_t)i * n, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[i]);
                MPI_Barrier(MPI_COMM_WORLD);
                if (rank == 1) {
                    MPI_Status st;
                    MPI_Probe(0, 2, MPI_COMM_WORLD, &st); /* make sure the data is there */
                    MPI_Barrier(MPI_COMM_WORLD);
                    t = MPI_Wtime();
                    for (int i = 0; i < BURST; i++)
                        MPI_Recv(rbuf + (size_t)i * n, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    t = (MPI_Wtime() - t) / BURST;
                    if (t < best[3]) best[3] = t;
                } else {
                    MPI_Barrier(MPI_COMM_WORLD);
                    MPI_Waitall(BURST, reqs, MPI_STATUSES_IGNORE);
                }
            }
            /* alltoall */
            MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime();
            MPI_Alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD);
            t = MPI_Wtime() - t;
            if (t < best[4]) best[4] = t;
            /* pack of a strided vector (n bytes of ints, every other int) */
            if (n == 0) continue; /* SMPI: MPI_Type_vector(0, ...) raises SIGFPE */
            MPI_Datatype strided;
            MPI_Type_vector(n / 4, 1, 2, MPI_INT, &strided);
            MPI_Type_commit(&strided);
            int pos = 0;
            t = MPI_Wtime();
            MPI_Pack(vec, 1, strided, packed, 65536, &pos, MPI_COMM_SELF);
            t = MPI_Wtime() - t;
            if (t < best[5]) best[5] = t;
            MPI_Type_free(&strided);
        }
        double all[6];
        if (rank == 1) best[1] = best[2] = 0;
        else best[3] = 0;
        MPI_Reduce(best, all, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        /* isend/send are measured on rank 0, recv on rank 1: MAX picks them */
        if (!rank)
            printf("%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", n, all[0] * 1e6, all[1] * 1e6,
                   all[2] * 1e6, n <= 4096 ? all[3] * 1e6 : -1.0, all[4] * 1e6, all[5] * 1e6);
    }
    free(sbuf); free(rbuf); free(vec); free(packed);
    MPI_Finalize();
    return 0;
}
