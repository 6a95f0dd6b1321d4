/* Rank r sends r+1 ints to every peer with XCHG_Alltoallv and checks what
 * arrives: the smallest complete program that uses xchg. */
#include <stdio.h>
#include <stdlib.h>
#include <xchg.h>

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *sendcounts = malloc(4 * size * sizeof(int));
    int *sdispls = sendcounts + size, *recvcounts = sdispls + size, *rdispls = recvcounts + size;
    int send_total = 0, recv_total = 0;
    for (int p = 0; p < size; p++) {
        sendcounts[p] = rank + 1;                 /* what I send to p */
        recvcounts[p] = p + 1;                    /* what p sends to me */
        sdispls[p] = send_total;
        rdispls[p] = recv_total;
        send_total += sendcounts[p];
        recv_total += recvcounts[p];
    }
    int *sendbuf = malloc(send_total * sizeof(int)), *recvbuf = malloc(recv_total * sizeof(int));
    for (int p = 0; p < size; p++)
        for (int k = 0; k < sendcounts[p]; k++) sendbuf[sdispls[p] + k] = 1000 * rank + p;

    /* Optional: choose the algorithm (otherwise XCHG_ALLTOALLV or the default). */
    XCHG_Comm_set_algorithm(MPI_COMM_WORLD, "alltoallv", "scattered:batch=4");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = XCHG_Alltoallv(sendbuf, sendcounts, sdispls, MPI_INT, recvbuf, recvcounts, rdispls,
                            MPI_INT, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: XCHG_Alltoallv failed: %s\n", rank, XCHG_Last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int p = 0; p < size; p++)
        for (int k = 0; k < recvcounts[p]; k++) errors += recvbuf[rdispls[p] + k] != 1000 * p + rank;

    char used[256];
    XCHG_Comm_get_algorithm(MPI_COMM_WORLD, "alltoallv", 1, 0, used, sizeof used);
    int total_errors;
    MPI_Reduce(&errors, &total_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hello_alltoallv: %d ranks, algorithm %s, %s\n", size, used,
               total_errors ? "WRONG" : "correct");
    free(sendbuf);
    free(recvbuf);
    free(sendcounts);
    MPI_Finalize();
    return total_errors != 0;
}
