/* What the parts of xchg-select share (select.c, select_neighbor.c). */
#ifndef XCHG_TESTS_SELECT_H
#define XCHG_TESTS_SELECT_H

#include <mpi.h>
#include <stdio.h>

#include "agreed_check.h" /* check, check_same_choice_on, world_rank, NAME_LEN */

/* The test's own MPI calls: a failure ends the run (it is not what is tested). */
#define CHECK_MPI(call)                                                              \
    do {                                                                             \
        int check_rc_ = (call);                                                      \
        if (check_rc_ != MPI_SUCCESS) {                                              \
            fprintf(stderr, "FAIL select: %s returned %d\n", #call, check_rc_);      \
            MPI_Abort(MPI_COMM_WORLD, 1);                                            \
        }                                                                            \
    } while (0)

/* The neighbourhood alltoallv's cases on `on` (select_neighbor.c). */
void neighbor_suite(MPI_Comm on, const char *name);

#endif
