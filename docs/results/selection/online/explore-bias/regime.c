/*
 * What comes before a timed call, and whether it changes MPI's
 * MPI_Alltoallv more than a linear exchange of the same blocks (Irecv and
 * Isend to every rank, Waitall): per iteration, optionally an allreduce
 * (as online selection's agreement makes), a barrier and an allreduce (the
 * benchmark's barrier, then the agreement) or a sweep of KIB KiB of memory,
 * then a barrier, then the timed call; the slowest rank's time (an
 * allreduce after every call), median over N iterations in 10 interleaved
 * rounds.
 *   usage: mpirun -n P regime S N KIB     (S bytes per block)
 * Prints one CSV line per mode: mode,exchange,median_us
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MODES 4 /* what comes before the barrier: nothing, allreduce, barrier+allreduce, sweep */
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
static void linear(char *sb, int *sc, int *sd, char *rb, int *rc, int *rd, int P, int rank, MPI_Comm c)
{
    MPI_Request rq[64]; int n = 0;
    for (int i = 0; i < P; i++) { int p = i; MPI_Irecv(rb + rd[p], rc[p], MPI_BYTE, p, 7, c, &rq[n++]); }
    for (int i = 0; i < P; i++) { int p = i; MPI_Isend(sb + sd[p], sc[p], MPI_BYTE, p, 7, c, &rq[n++]); }
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P, S = atoi(argv[1]), N = atoi(argv[2]);
    MPI_Comm c; MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_rank(c, &rank); MPI_Comm_size(c, &P);
    int sc[64], sd[64], rc[64], rd[64];
    for (int p = 0; p < P; p++) { sc[p] = rc[p] = S; sd[p] = rd[p] = p * S; }
    char *sb = malloc((size_t)P * S), *rb = malloc((size_t)P * S);
    double *t = malloc(sizeof(double) * N);
    size_t polln = (size_t)atoi(argv[3]) * 1024; char *poll = calloc(polln + 1, 1);
    const char *names[2 * MODES] = {
        "barrier,MPI_Alltoallv", "allreduce+barrier,MPI_Alltoallv",
        "barrier+allreduce+barrier,MPI_Alltoallv", "sweep+barrier,MPI_Alltoallv",
        "barrier,linear", "allreduce+barrier,linear", "barrier+allreduce+barrier,linear",
        "sweep+barrier,linear"};
    double med[2 * MODES] = {0};
    for (int round = 0; round < 10; round++)
        for (int mode = 0; mode < 2 * MODES; mode++) {
            for (int i = 0; i < N / 10; i++) {
                int before = mode % MODES;
                if (before == 2) MPI_Barrier(c);
                if (before == 1 || before == 2) {
                    long v = i, w;
                    MPI_Allreduce(&v, &w, 1, MPI_LONG, MPI_MAX, c);
                }
                if (before == 3) for (size_t k = 0; k < polln; k += 64) poll[k]++;
                MPI_Barrier(c);
                double t0 = MPI_Wtime();
                if (mode < MODES) MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, c);
                else linear(sb, sc, sd, rb, rc, rd, P, rank, c);
                double d = MPI_Wtime() - t0, m;
                MPI_Allreduce(&d, &m, 1, MPI_DOUBLE, MPI_MAX, c);
                t[i] = m;
            }
            qsort(t, N / 10, sizeof *t, cmp);
            med[mode] += t[N / 20] / 10;
        }
    if (!rank) for (int m = 0; m < 2 * MODES; m++) printf("%s,%.3f\n", names[m], med[m] * 1e6);
    MPI_Finalize();
    return 0;
}
