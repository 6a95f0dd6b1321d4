/* The checks of tests/agreed_check.h. */
#include "agreed_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

int world_rank;
static int passed, failed;
static const char *suite_name = "";

static void check_mpi(int rc, const char *what)
{
    if (rc == MPI_SUCCESS) return;
    fprintf(stderr, "FAIL %s: %s returned %d\n", suite_name, what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void agreed_check_begin(int *argc, char ***argv, const char *suite)
{
    suite_name = suite;
    check_mpi(MPI_Init(argc, argv), "MPI_Init");
    check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank");
}

void check(int ok, const char *what, const char *detail)
{
    int all_ok;
    check_mpi(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD), "MPI_Allreduce");
    if (all_ok) {
        passed++;
    } else {
        failed++;
        if (!ok) printf("FAIL %s rank %d: %s (%s)\n", suite_name, world_rank, what, detail);
    }
}

void check_same_choice_on(MPI_Comm on, const char *coll, const char *what, char *chosen)
{
    int n;
    check_mpi(MPI_Comm_size(on, &n), "MPI_Comm_size");
    char mine[NAME_LEN] = {0}, *all = malloc((size_t)n * NAME_LEN);
    if (!all) check_mpi(MPI_ERR_NO_MEM, "malloc");
    XCHG_Comm_get_algorithm(on, coll, 1, 0, mine, NAME_LEN);
    check_mpi(MPI_Allgather(mine, NAME_LEN, MPI_CHAR, all, NAME_LEN, MPI_CHAR, on),
              "MPI_Allgather");
    int same = mine[0] != '\0';
    for (int r = 0; r < n; r++) same &= strcmp(all + (size_t)r * NAME_LEN, mine) == 0;
    char detail[2 * NAME_LEN + 64];
    snprintf(detail, sizeof detail, "%s used %s here, %s on rank 0", coll, mine, all);
    check(same, what, detail);
    if (chosen) memcpy(chosen, mine, NAME_LEN);
    free(all);
}

int agreed_check_end(void)
{
    if (world_rank == 0) printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed != 0;
}
