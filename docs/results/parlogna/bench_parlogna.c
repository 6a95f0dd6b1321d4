/*
 * Small stand-in benchmark for the ParLogNa/ParLinNa measurements (used
 * because tools/xchg-bench was not on main yet when these were taken).
 * Usage: bench_parlogna DIST ITERS S[,S...] SELECTION [SELECTION ...]
 *   DIST: uniform (block bytes uniform in [0, S], the paper's Section 5.1),
 *         normal (mean 1000 B, sd 240, S ignored), powerlaw (S * k^-0.95,
 *         k = 1 + (d - s) mod P: near peers get the big blocks)
 *   SELECTION: an xchg alltoallv selection string, or "mpi" for the MPI
 *              library's own MPI_Alltoallv.
 * Prints CSV: algo,P,nodes,dist,S,median_us,min_us,max_us, time of one call =
 * max over ranks, median/min/max over ITERS calls after 2 warm-up calls.
 * Blocks are MPI_DOUBLE vectors (sizes rounded down to 8 bytes), as in the paper.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

static unsigned long long rng_state;
static double uniform01(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static int block_doubles(const char *dist, int S, int s, int d, int P)
{
    rng_state = 0x9e3779b97f4a7c15ULL * (unsigned long long)(s * P + d + 1);
    uniform01();
    double bytes;
    if (!strcmp(dist, "normal")) {
        double u1 = uniform01() + 1e-12, u2 = uniform01();
        bytes = 1000.0 + 240.0 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
        if (bytes < 0) bytes = 0;
    } else if (!strcmp(dist, "powerlaw")) {
        bytes = S * pow(1.0 + (d - s + P) % P, -0.95);
    } else {
        bytes = S * uniform01();
    }
    return (int)(bytes / 8);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 5) {
        if (!me) fprintf(stderr, "usage: %s DIST ITERS S[,S...] SELECTION...\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *dist = argv[1];
    int iters = atoi(argv[2]);
    const char *nodes = getenv("XCHG_VIRTUAL_NODES");
    char *sizes = strdup(argv[3]);
    int *sc = malloc(P * sizeof(int)), *rc = malloc(P * sizeof(int));
    int *sd = malloc(P * sizeof(int)), *rd = malloc(P * sizeof(int));
    double *t = malloc((iters + 2) * sizeof(double));
    char *save = NULL;
    for (char *tok = strtok_r(sizes, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int S = atoi(tok), stot = 0, rtot = 0;
        for (int p = 0; p < P; p++) {
            sc[p] = block_doubles(dist, S, me, p, P), sd[p] = stot, stot += sc[p];
            rc[p] = block_doubles(dist, S, p, me, P), rd[p] = rtot, rtot += rc[p];
        }
        double *sbuf = calloc(stot + 1, 8), *rbuf = calloc(rtot + 1, 8);
        for (int a = 4; a < argc; a++) {
            int use_mpi = !strcmp(argv[a], "mpi");
            if (!use_mpi && XCHG_Comm_set_algorithm(MPI_COMM_WORLD, "alltoallv", argv[a])) {
                if (!me) fprintf(stderr, "bad selection %s: %s\n", argv[a], XCHG_Last_error());
                continue;
            }
            for (int it = 0; it < iters + 2; it++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                if (use_mpi)
                    MPI_Alltoallv(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
                else
                    XCHG_Alltoallv(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
                double mine = MPI_Wtime() - t0;
                MPI_Allreduce(&mine, &t[it], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            }
            qsort(t + 2, iters, sizeof(double), cmp);
            if (!me)
                printf("%s,%d,%s,%s,%d,%.2f,%.2f,%.2f\n", argv[a], P, nodes ? nodes : "1", dist,
                       S, 1e6 * t[2 + iters / 2], 1e6 * t[2], 1e6 * t[1 + iters]);
            fflush(stdout);
        }
        free(sbuf);
        free(rbuf);
    }
    MPI_Finalize();
    return 0;
}
