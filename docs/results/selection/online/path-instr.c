/*
 * The call path in instructions (path-instr.sh runs it under valgrind's
 * callgrind): WARM calls of the collective through xchg (online selection
 * decides, plans are built), then N calls through `how`: "pmpi" (the MPI
 * library's own collective, PMPI_*) or "xchg" (XCHG_*, selection as the
 * environment says), in measured_loop, which callgrind alone counts
 * (--toggle-collect=measured_loop). Blocks of 64 B; alltoallv's counts
 * uniform.
 * With SET, XCHG_Comm_set_algorithm(MPI_COMM_WORLD, COLL, SET) first (as
 * xchg-bench selects its rows).
 *   usage: mpirun -n P path-instr COLL pmpi|xchg [N] [WARM] [SET]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

enum { BYTES = 64 };
static int P, *cnt, *dis;
static char *s, *r;

static int one(const char *coll, int pmpi)
{
    if (strcmp(coll, "alltoall") == 0)
        return pmpi ? PMPI_Alltoall(s, BYTES, MPI_BYTE, r, BYTES, MPI_BYTE, MPI_COMM_WORLD)
                    : XCHG_Alltoall(s, BYTES, MPI_BYTE, r, BYTES, MPI_BYTE, MPI_COMM_WORLD);
    if (strcmp(coll, "allgather") == 0)
        return pmpi ? PMPI_Allgather(s, BYTES, MPI_BYTE, r, BYTES, MPI_BYTE, MPI_COMM_WORLD)
                    : XCHG_Allgather(s, BYTES, MPI_BYTE, r, BYTES, MPI_BYTE, MPI_COMM_WORLD);
    return pmpi ? PMPI_Alltoallv(s, cnt, dis, MPI_BYTE, r, cnt, dis, MPI_BYTE, MPI_COMM_WORLD)
                : XCHG_Alltoallv(s, cnt, dis, MPI_BYTE, r, cnt, dis, MPI_BYTE, MPI_COMM_WORLD);
}

__attribute__((noinline)) int measured_loop(const char *coll, int pmpi, int n)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) rc = one(coll, pmpi);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 3) {
        fprintf(stderr, "usage: path-instr COLL pmpi|xchg [N] [WARM] [SET]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *coll = argv[1];
    int pmpi = strcmp(argv[2], "pmpi") == 0;
    int n = argc > 3 ? atoi(argv[3]) : 1000, warm = argc > 4 ? atoi(argv[4]) : 200;
    s = calloc((size_t)P, BYTES), r = calloc((size_t)P, BYTES);
    cnt = malloc((size_t)P * sizeof *cnt), dis = malloc((size_t)P * sizeof *dis);
    for (int i = 0; i < P; i++) cnt[i] = BYTES, dis[i] = i * BYTES;
    int rc = argc > 5 ? XCHG_Comm_set_algorithm(MPI_COMM_WORLD, coll, argv[5]) : MPI_SUCCESS;
    for (int i = 0; i < warm && rc == MPI_SUCCESS; i++) rc = one(coll, 0);
    if (rc == MPI_SUCCESS) rc = measured_loop(coll, pmpi, n);
    char used[256] = "";
    XCHG_Comm_get_algorithm(MPI_COMM_WORLD, coll, 1, 0, used, sizeof used);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("path-instr: P=%d %s %s n=%d: %s%s\n", P, coll, argv[2], n,
                          pmpi ? "PMPI" : used, rc == MPI_SUCCESS ? "" : " FAILED");
    MPI_Finalize();
    return rc != MPI_SUCCESS;
}
