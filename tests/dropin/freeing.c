/*
 * MPI_Request_free and MPI_Comm_free with nonblocking and persistent
 * alltoalls in flight, in a plain MPI program (it knows nothing of xchg):
 *   1. MPI_Ialltoall, then MPI_Request_free at once. Rank 0 starts and frees
 *      before the others start (they wait for its message, sent after the
 *      free), so a free that waited for the exchange would hang (the
 *      watchdog, alarm(), ends the program). The data arrives later: each
 *      rank polls an MPI_Ibarrier with MPI_Test, started once its own data
 *      is there, until it completes;
 *   2. the same for a started persistent request (MPI_Alltoall_init, or
 *      Open MPI 4.1's MPIX_Alltoall_init);
 *   3. MPI_Comm_free of the communicator with an MPI_Ialltoall in flight,
 *      then MPI_Wait: the call completes normally;
 *   4. MPI_Request_free, then MPI_Comm_free, with the call in flight.
 * Every result is checked against values the program computes. Rank 0
 * prints PASS/FAIL lines, the calls it made per form ("calls alltoall=0
 * ialltoall=... alltoall_init=...") and "freeing: N passed, N failed".
 * The check, the data and rank 0 going first are ../freeing_scenarios.h's
 * (shared with tests/freeing.c; MPI alone there).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* MPIX_Alltoall_init */
#endif
#endif
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../freeing_scenarios.h"

#if MPI_VERSION >= 4
#define ALLTOALL_INIT MPI_Alltoall_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define ALLTOALL_INIT MPIX_Alltoall_init
#endif

static int n_ialltoall, n_alltoall_init; /* calls made, per form */

/* After a free in flight: poll with MPI_Test until this rank's data is
 * there, then until every rank's is (an MPI_Ibarrier). */
static int wait_arrival(const volatile int *recv, int salt)
{
    MPI_Request barrier = MPI_REQUEST_NULL;
    int done = 0;
    double until = MPI_Wtime() + 60;
    while (!done && MPI_Wtime() < until) {
        if (barrier == MPI_REQUEST_NULL && arrived((const int *)recv, salt))
            MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
        if (barrier != MPI_REQUEST_NULL) MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        else { /* any completion function advances the freed exchange */
            int flag;
            MPI_Request none = MPI_REQUEST_NULL;
            MPI_Test(&none, &flag, MPI_STATUS_IGNORE);
        }
    }
    return done;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    alarm(100); /* a free that waits would hang: the watchdog ends it */
    int *send = malloc(sizeof(int) * N * size), *recv = malloc(sizeof(int) * N * size);
    MPI_Request req;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);

    /* 1 */
    fill(send, recv, 1);
    wait_for_rank0();
    int rc = MPI_Ialltoall(send, N, MPI_INT, recv, N, MPI_INT, comm, &req);
    n_ialltoall++;
    rc |= MPI_Request_free(&req);
    release_others();
    check("MPI_Ialltoall, MPI_Request_free at once: the data arrives later", NULL,
          rc == MPI_SUCCESS && req == MPI_REQUEST_NULL && wait_arrival(recv, 1) &&
              arrived(recv, 1));

#ifdef ALLTOALL_INIT
    /* 2 */
    fill(send, recv, 2);
    rc = ALLTOALL_INIT(send, N, MPI_INT, recv, N, MPI_INT, comm, MPI_INFO_NULL, &req);
    n_alltoall_init++;
    wait_for_rank0();
    rc |= MPI_Start(&req);
    rc |= MPI_Request_free(&req);
    release_others();
    check("persistent alltoall started, MPI_Request_free at once: the data arrives later", NULL,
          rc == MPI_SUCCESS && req == MPI_REQUEST_NULL && wait_arrival(recv, 2) &&
              arrived(recv, 2));
#endif
    MPI_Comm_free(&comm);

    /* 3 */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    fill(send, recv, 3);
    rc = MPI_Ialltoall(send, N, MPI_INT, recv, N, MPI_INT, comm, &req);
    n_ialltoall++;
    rc |= MPI_Comm_free(&comm);
    rc |= MPI_Wait(&req, MPI_STATUS_IGNORE);
    check("MPI_Comm_free with MPI_Ialltoall in flight, then MPI_Wait", NULL,
          rc == MPI_SUCCESS && arrived(recv, 3));

    /* 4 */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    fill(send, recv, 4);
    wait_for_rank0();
    rc = MPI_Ialltoall(send, N, MPI_INT, recv, N, MPI_INT, comm, &req);
    n_ialltoall++;
    rc |= MPI_Request_free(&req);
    release_others();
    rc |= MPI_Comm_free(&comm);
    check("MPI_Request_free then MPI_Comm_free in flight: the data arrives later", NULL,
          rc == MPI_SUCCESS && wait_arrival(recv, 4) && arrived(recv, 4));

    if (rank == 0) {
        printf("calls alltoall=0 ialltoall=%d alltoall_init=%d\n", n_ialltoall, n_alltoall_init);
        printf("freeing: %d passed, %d failed\n", passed, failed);
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return failed > 0;
}
