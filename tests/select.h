/* What the parts of xchg-select share (select.c, select_neighbor.c). */
#ifndef XCHG_TESTS_SELECT_H
#define XCHG_TESTS_SELECT_H

#include <mpi.h>
#include <stdio.h>

#define NAME_LEN 256

/* The test's own MPI calls: a failure ends the run (it is not what is tested). */
#define CHECK_MPI(call)                                                              \
    do {                                                                             \
        int check_rc_ = (call);                                                      \
        if (check_rc_ != MPI_SUCCESS) {                                              \
            fprintf(stderr, "FAIL select: %s returned %d\n", #call, check_rc_);      \
            MPI_Abort(MPI_COMM_WORLD, 1);                                            \
        }                                                                            \
    } while (0)

extern int world_rank;

/* Every rank of MPI_COMM_WORLD checks (they all run the same cases): one
 * pass or one failure, `detail` printed by the ranks where !ok. */
void check(int ok, const char *what, const char *detail);

/* The algorithm the last call of `coll` on `on` used must be the same on
 * every rank of it (a check); written to `chosen` (NAME_LEN) when not NULL. */
void check_same_choice_on(MPI_Comm on, const char *coll, const char *what, char *chosen);

/* The neighbourhood alltoallv's cases on `on` (select_neighbor.c). */
void neighbor_suite(MPI_Comm on, const char *name);

#endif
