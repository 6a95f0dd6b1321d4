/*
 * MPI_Allgatherv as a program that knows nothing of xchg calls it (run with
 * and without libxchg-mpi.so by tests/dropin/run.sh): uneven contributions,
 * ranks that contribute nothing, a call where every rank contributes
 * nothing, displacements in reverse rank order with gaps, MPI_IN_PLACE, a
 * strided (vector) receive datatype, and a few repeated calls. Every result
 * is checked against values the program computes itself (and the gaps must
 * keep their sentinel). Rank 0 prints one PASS/FAIL line per check, the calls
 * each rank made ("calls alltoall=0 ... allgatherv=N") and
 * "allgatherv: N passed, N failed"; exits 1 on any failure.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int passed, failed, rank, size, calls;

static void check(const char *what, int ok)
{
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %s\n", all_ok ? "PASS" : "FAIL", what);
    if (all_ok) passed++;
    else failed++;
}

static int value(int src, int i, int call) { return src * 100000 + i * 10 + call; }

/* Rank p contributes count_of(p, shape) ints. */
static int count_of(int p, int shape)
{
    switch (shape) {
    case 0: return 1 + (p * 7) % 5;          /* uneven, none empty */
    case 1: return p % 3 == 1 ? 0 : 2 * p + 1; /* some ranks contribute nothing */
    case 2: return 0;                          /* nobody contributes */
    default: return p == size - 1 ? 3000 : p % 2; /* one large, the rest tiny or none */
    }
}

/* One call: contiguous ints, blocks in reverse rank order with a gap of 2
 * ints after each; MPI_IN_PLACE when asked. */
static int one_call(int shape, int in_place, int call)
{
    int *counts = malloc(2 * (size_t)size * sizeof(int)), *displs = counts + size, total = 0;
    for (int p = size - 1; p >= 0; p--) {
        counts[p] = count_of(p, shape);
        displs[p] = total;
        total += counts[p] + 2;
    }
    int *recv = malloc(((size_t)total + 1) * sizeof(int)), *send = malloc(3001 * sizeof(int));
    for (int i = 0; i < total; i++) recv[i] = -1;
    for (int i = 0; i < counts[rank]; i++) {
        send[i] = value(rank, i, call);
        if (in_place) recv[displs[rank] + i] = value(rank, i, call);
    }
    int rc = MPI_Allgatherv(in_place ? MPI_IN_PLACE : send, counts[rank], MPI_INT, recv, counts,
                            displs, MPI_INT, MPI_COMM_WORLD);
    calls++;
    int ok = rc == MPI_SUCCESS;
    for (int p = 0; p < size && ok; p++) {
        for (int i = 0; i < counts[p]; i++) ok = ok && recv[displs[p] + i] == value(p, i, call);
        ok = ok && recv[displs[p] + counts[p]] == -1 && recv[displs[p] + counts[p] + 1] == -1;
    }
    free(counts);
    free(recv);
    free(send);
    return ok;
}

/* A strided receive datatype: every other int (vector(1,1,2) resized to 2
 * ints); the blocks packed in rank order. */
static int strided_call(void)
{
    MPI_Datatype every_other;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other);
    MPI_Type_commit(&every_other);
    int *counts = malloc(2 * (size_t)size * sizeof(int)), *displs = counts + size, total = 0;
    for (int p = 0; p < size; p++) {
        counts[p] = count_of(p, 1);
        displs[p] = total;
        total += counts[p];
    }
    int *recv = malloc((2 * (size_t)total + 1) * sizeof(int)), send[64];
    for (int i = 0; i < 2 * total; i++) recv[i] = -1;
    for (int i = 0; i < counts[rank]; i++) send[i] = value(rank, i, 7);
    int rc = MPI_Allgatherv(send, counts[rank], MPI_INT, recv, counts, displs, every_other,
                            MPI_COMM_WORLD);
    calls++;
    int ok = rc == MPI_SUCCESS;
    for (int p = 0; p < size && ok; p++)
        for (int i = 0; i < counts[p]; i++)
            ok = ok && recv[2 * (displs[p] + i)] == value(p, i, 7) &&
                 recv[2 * (displs[p] + i) + 1] == -1;
    MPI_Type_free(&every_other);
    free(counts);
    free(recv);
    return ok;
}

int main(int argc, char **argv)
{
    char what[128];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const char *const shapes[] = {"uneven", "some zero", "all zero", "one large"};
    for (int shape = 0; shape < 4; shape++)
        for (int in_place = 0; in_place < 2; in_place++) {
            int ok = 1;
            for (int call = 0; call < 3; call++) ok = one_call(shape, in_place, call) && ok;
            snprintf(what, sizeof what, "MPI_Allgatherv %s counts%s, 3 calls", shapes[shape],
                     in_place ? ", MPI_IN_PLACE" : "");
            check(what, ok);
        }
    check("MPI_Allgatherv into a strided receive datatype", strided_call());
    if (rank == 0) {
        printf("calls alltoall=0 alltoallv=0 allgather=0 allgatherv=%d\n", calls);
        printf("allgatherv: %d passed, %d failed\n", passed, failed);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
