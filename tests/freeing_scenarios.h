/*
 * The scenario helpers shared by the freeing-in-flight tests:
 * tests/freeing.c (xchg's own calls, XCHG_Request_free) and
 * tests/dropin/freeing.c (MPI's calls under the drop-in library, compiled by
 * tests/dropin/run.sh with plain mpicc: so MPI alone here, no xchg.h). One
 * verdict per check, agreed over MPI_COMM_WORLD and printed by rank 0; the
 * values each rank sends and must receive; rank 0 going first while the
 * others wait. How a freed exchange is driven to its end differs (xchg's
 * XCHG_Progress; MPI_Test and an MPI_Ibarrier) and stays in each program.
 * Include it once, in the program's one source file; main sets `rank` and
 * `size` after MPI_Init.
 */
#ifndef XCHG_TESTS_FREEING_SCENARIOS_H
#define XCHG_TESTS_FREEING_SCENARIOS_H

#include <mpi.h>
#include <stdio.h>

enum { N = 3 }; /* ints per block */

static int rank, size, passed, failed;

/* One check: PASS only if `ok` on every rank. `label` (the algorithm, or
 * NULL for none) is printed after `what` in parentheses. */
static void check(const char *what, const char *label, int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) {
        if (label) printf("%s %s (%s)\n", all ? "PASS" : "FAIL", what, label);
        else printf("%s %s\n", all ? "PASS" : "FAIL", what);
    }
    if (all) passed++;
    else failed++;
}

static int value(int src, int dst, int i, int salt) { return salt * 1000000 + src * 1000 + dst * 10 + i; }

/* This rank's send blocks for `salt`; the receive buffer cleared to -1. */
static void fill(int *send, int *recv, int salt)
{
    for (int p = 0; p < size; p++)
        for (int i = 0; i < N; i++) {
            send[p * N + i] = value(rank, p, i, salt);
            recv[p * N + i] = -1;
        }
}

/* Whether every rank's block for `salt` is in recv. */
static int arrived(const int *recv, int salt)
{
    for (int p = 0; p < size; p++)
        for (int i = 0; i < N; i++)
            if (recv[p * N + i] != value(p, rank, i, salt)) return 0;
    return 1;
}

/* Ranks other than 0 wait here until rank 0 has passed `release_others`. */
static void wait_for_rank0(void)
{
    int token;
    if (rank != 0) MPI_Recv(&token, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void release_others(void)
{
    int token = 1;
    if (rank == 0)
        for (int p = 1; p < size; p++) MPI_Send(&token, 1, MPI_INT, p, 77, MPI_COMM_WORLD);
}

#endif
