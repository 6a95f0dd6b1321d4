/*
 * Small timing driver for the node-aware family (until xchg-bench is on
 * main): alltoall of `bytes` per peer (MPI_BYTE), for each selection on the
 * command line ("mpi" is MPI's own MPI_Alltoall). Per iteration the time is
 * the maximum over ranks; printed: the median over iterations, and for each
 * phase reported by XCHG_Comm_get_phase_times the median of the per-iteration
 * maximum over ranks.
 * Usage: bench_nodeaware -s 4,64,1024,4096 -i 50 -w 5 sel1 sel2 ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "xchg.h"

#define MAXPH 8
/* Phases in a fixed order, so that the maximum over ranks matches names. */
static const char *const canon[] = {"gather", "inter-node", "intra-node", "scatter", "repack"};
#define NCANON 5

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iters = 50, warm = 5, nsizes = 0;
    long sizes[32];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a += 2) {
        if (!strcmp(argv[a], "-i")) iters = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-w")) warm = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-s"))
            for (char *t = strtok(argv[a + 1], ","); t && nsizes < 32; t = strtok(NULL, ","))
                sizes[nsizes++] = atol(t);
    }
    if (rank == 0)
        printf("# P=%d nodes=%s placement=%s iters=%d\n# %-52s %8s %10s  phases (median of max over ranks, us)\n",
               size, getenv("XCHG_VIRTUAL_NODES") ? getenv("XCHG_VIRTUAL_NODES") : "(real)",
               getenv("XCHG_VIRTUAL_PLACEMENT") ? getenv("XCHG_VIRTUAL_PLACEMENT") : "block",
               iters, "algorithm", "bytes", "median_us");
    double *t = malloc(sizeof(double) * (size_t)iters);
    double *ph = malloc(sizeof(double) * (size_t)iters * MAXPH);
    for (int si = 0; si < nsizes; si++) {
        long m = sizes[si];
        char *sb = malloc((size_t)m * size + 1), *rb = malloc((size_t)m * size + 1);
        memset(sb, rank, (size_t)m * size);
        for (int s = a; s < argc; s++) {
            int is_mpi = !strcmp(argv[s], "mpi");
            if (!is_mpi && XCHG_Comm_set_algorithm(MPI_COMM_WORLD, "alltoall", argv[s]) != MPI_SUCCESS) {
                if (rank == 0) printf("# %s: %s\n", argv[s], XCHG_Last_error());
                continue;
            }
            const char *names[MAXPH] = {0};
            int nph = 0, seen[NCANON] = {0};
            for (int it = -warm; it < iters; it++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                if (is_mpi) MPI_Alltoall(sb, (int)m, MPI_BYTE, rb, (int)m, MPI_BYTE, MPI_COMM_WORLD);
                else XCHG_Alltoall(sb, (int)m, MPI_BYTE, rb, (int)m, MPI_BYTE, MPI_COMM_WORLD);
                double dt = MPI_Wtime() - t0, got[MAXPH], sec[MAXPH] = {0}, maxsec[MAXPH];
                if (!is_mpi) XCHG_Comm_get_phase_times(MPI_COMM_WORLD, MAXPH, names, got, &nph);
                for (int p = 0; p < nph; p++)
                    for (int c = 0; c < NCANON; c++)
                        if (!strcmp(names[p], canon[c])) sec[c] = got[p], seen[c] = 1;
                MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                MPI_Allreduce(sec, maxsec, MAXPH, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (it >= 0) {
                    t[it] = dt;
                    for (int p = 0; p < MAXPH; p++) ph[p * iters + it] = maxsec[p];
                }
            }
            if (rank == 0) {
                printf("%-54s %8ld %10.2f ", argv[s], m, median(t, iters) * 1e6);
                for (int c = 0; c < NCANON; c++)
                    if (seen[c]) printf(" %s=%.2f", canon[c], median(ph + c * iters, iters) * 1e6);
                printf("\n");
                fflush(stdout);
            }
        }
        free(sb), free(rb);
    }
    free(t), free(ph);
    MPI_Finalize();
    return 0;
}
