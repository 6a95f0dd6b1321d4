/*
 * Freeing in flight (MPI's MPI_Request_free and MPI_Comm_free semantics for
 * xchg's requests; docs/design.md, "Tasks and progress"):
 *   1. XCHG_Ialltoall, then XCHG_Request_free at once: the call returns
 *      without waiting, the exchange completes under progress
 *      (XCHG_Progress until nothing is outstanding) and the data arrives.
 *      Rank 0 starts and frees before the others start: they wait for its
 *      message, sent after its XCHG_Request_free, so a free that waited for
 *      the exchange would hang (the watchdog, alarm(), ends the test);
 *   2. the same for a started persistent request (XCHG_Alltoall_init);
 *   3. MPI_Comm_free of a communicator with an XCHG_Ialltoall in flight,
 *      then XCHG_Wait: the call completes normally;
 *   4. MPI_Comm_free of a communicator with a persistent request started:
 *      XCHG_Wait, a second start with new data, XCHG_Request_free;
 *   5. XCHG_Request_free, then MPI_Comm_free, with the call in flight.
 * Each for several algorithms (multi-round bruck and parlogna, the
 * single-round nonblocking that posts its messages, the MPI library's own,
 * the default). Every result is checked against values the program
 * computes; under AddressSanitizer (build-asan) a request or context that
 * is never freed is a leak. Rank 0 prints PASS/FAIL lines and
 * "freeing: N passed, N failed"; exit status 1 if anything failed.
 * The check, the data and rank 0 going first are tests/freeing_scenarios.h's
 * (shared with the drop-in's tests/dropin/freeing.c).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "freeing_scenarios.h"
#include "xchg.h"

/* Progress until this rank has nothing outstanding (bounded: 60 s). */
static int progress_all(void)
{
    double until = MPI_Wtime() + 60;
    int pending = 1;
    while (pending && MPI_Wtime() < until) XCHG_Progress(&pending);
    return !pending;
}

static MPI_Comm fresh(const char *algo)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (algo) XCHG_Comm_set_algorithm(comm, "alltoall", algo);
    return comm;
}

static void run(const char *algo)
{
    const char *name = algo ? algo : "default";
    int *send = malloc(sizeof(int) * N * size), *recv = malloc(sizeof(int) * N * size);
    XCHG_Request req = XCHG_REQUEST_NULL;
    MPI_Comm comm = fresh(algo);

    /* 1. nonblocking, freed at once */
    fill(send, recv, 1);
    wait_for_rank0();
    int rc = XCHG_Ialltoall(send, N, MPI_INT, recv, N, MPI_INT, comm, &req);
    rc |= XCHG_Request_free(&req);
    release_others();
    int ok = rc == MPI_SUCCESS && req == XCHG_REQUEST_NULL && progress_all();
    check("XCHG_Ialltoall freed in flight: the data arrives", name, ok && arrived(recv, 1));

    /* 2. persistent, started, freed in flight */
    fill(send, recv, 2);
    rc = XCHG_Alltoall_init(send, N, MPI_INT, recv, N, MPI_INT, comm, MPI_INFO_NULL, &req);
    wait_for_rank0();
    rc |= XCHG_Start(&req);
    rc |= XCHG_Request_free(&req);
    release_others();
    ok = rc == MPI_SUCCESS && req == XCHG_REQUEST_NULL && progress_all();
    check("persistent request freed in flight: the data arrives", name, ok && arrived(recv, 2));
    MPI_Comm_free(&comm);

    /* 3. communicator freed with a nonblocking call in flight */
    comm = fresh(algo);
    fill(send, recv, 3);
    rc = XCHG_Ialltoall(send, N, MPI_INT, recv, N, MPI_INT, comm, &req);
    rc |= MPI_Comm_free(&comm);
    rc |= XCHG_Wait(&req, MPI_STATUS_IGNORE);
    check("MPI_Comm_free with XCHG_Ialltoall in flight, then XCHG_Wait", name,
          rc == MPI_SUCCESS && arrived(recv, 3));

    /* 4. communicator freed under a started persistent request */
    comm = fresh(algo);
    fill(send, recv, 4);
    rc = XCHG_Alltoall_init(send, N, MPI_INT, recv, N, MPI_INT, comm, MPI_INFO_NULL, &req);
    rc |= XCHG_Start(&req);
    rc |= MPI_Comm_free(&comm);
    rc |= XCHG_Wait(&req, MPI_STATUS_IGNORE);
    ok = rc == MPI_SUCCESS && arrived(recv, 4);
    fill(send, recv, 5);
    rc = XCHG_Start(&req);
    rc |= XCHG_Wait(&req, MPI_STATUS_IGNORE);
    rc |= XCHG_Request_free(&req);
    check("MPI_Comm_free under a started persistent request, then two completions", name,
          ok && rc == MPI_SUCCESS && arrived(recv, 5));

    /* 5. request freed, then its communicator, both in flight */
    comm = fresh(algo);
    fill(send, recv, 6);
    wait_for_rank0();
    rc = XCHG_Ialltoall(send, N, MPI_INT, recv, N, MPI_INT, comm, &req);
    rc |= XCHG_Request_free(&req);
    release_others();
    rc |= MPI_Comm_free(&comm);
    ok = rc == MPI_SUCCESS && progress_all();
    check("XCHG_Request_free then MPI_Comm_free in flight: the data arrives", name,
          ok && arrived(recv, 6));
    free(send);
    free(recv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    alarm(240); /* a free that waits would hang: the watchdog ends it */
    const char *algos[] = {NULL, "bruck", "parlogna", "nonblocking", "mpi"};
    for (int a = 0; a < (int)(sizeof algos / sizeof *algos); a++) run(algos[a]);
    if (rank == 0) printf("freeing: %d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed > 0;
}
