/*
 * Checks that every rank of MPI_COMM_WORLD judges together, for the test
 * suites whose ranks all run the same cases (select.c, the online selection
 * tests): a check passes only where it passed on every rank, and the
 * algorithm a call used must be the same on every rank of its
 * communicator. Code in tests/agreed_check.c.
 */
#ifndef XCHG_TESTS_AGREED_CHECK_H
#define XCHG_TESTS_AGREED_CHECK_H

#include <mpi.h>

#define NAME_LEN 256

extern int world_rank;

/* MPI_Init; world_rank; `suite` names the suite in failure messages. */
void agreed_check_begin(int *argc, char ***argv, const char *suite);

/* One check, the same verdict on every rank (MPI_COMM_WORLD): passes only if
 * `ok` on all; a rank where it failed prints `what` and `detail`. */
void check(int ok, const char *what, const char *detail);

/* The algorithm the last call of `coll` on `on` used (XCHG_Comm_get_algorithm),
 * checked the same on every rank of it; written to `chosen` (NAME_LEN) when
 * not NULL. */
void check_same_choice_on(MPI_Comm on, const char *coll, const char *what, char *chosen);

/* Rank 0 prints "N passed, N failed"; MPI_Finalize. Returns the exit status. */
int agreed_check_end(void);

#endif
