/*
 * Edge cases of the drop-in library, written as a plain MPI program (it knows
 * nothing of xchg and runs the same with or without libxchg-mpi.so):
 *   - an inter-communicator: MPI_Alltoall, MPI_Alltoallv and MPI_Allgather on
 *     it must pass through to MPI and still be right (xchg does not serve
 *     inter-communicators);
 *   - MPI_Alltoallw on an intra-communicator reaches xchg and is right;
 *   - erroneous calls under MPI_ERRORS_RETURN (a negative count, negative
 *     alltoallv counts, MPI_COMM_NULL) return the MPI error class instead of
 *     crashing;
 *   - after an error, the communicator still works.
 * Rank 0 prints one PASS/FAIL line per check, the calls it made ("calls
 * alltoall=..." on intra-communicators, "to_mpi alltoall=..." the others) and
 * "edge: N passed, N failed";
 * exits 1 if anything failed. Needs at least 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int passed, failed, rank;
/* Calls this rank made: on intra-communicators (xchg's) and passed to MPI. */
static int routed_a2a, routed_a2av, routed_ag, routed_a2aw, to_mpi_a2a, to_mpi_a2av, to_mpi_ag;

static void check(const char *what, int ok)
{
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %s\n", all_ok ? "PASS" : "FAIL", what);
    if (all_ok) passed++; else failed++;
}

static int value(int src, int dst, int i) { return src * 10000 + dst * 100 + i; }

static void intercomm_checks(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Two groups, evens and odds; leaders world ranks 0 and 1. */
    int color = rank % 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
    int lrank, rsize, flag;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_test_inter(inter, &flag);
    check("inter-communicator created", flag);

    const int n = 3;
    int *sbuf = malloc(sizeof(int) * n * rsize), *rbuf = malloc(sizeof(int) * n * rsize);
    /* Global ids: color*1000 + local rank, so a value names its sender's group. */
    int me = color * 1000 + lrank;
    for (int p = 0; p < rsize; p++)
        for (int i = 0; i < n; i++) sbuf[p * n + i] = value(me, (1 - color) * 1000 + p, i);
    for (int i = 0; i < n * rsize; i++) rbuf[i] = -1;
    int rc = MPI_Alltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, inter);
    to_mpi_a2a++;
    int ok = rc == MPI_SUCCESS;
    for (int p = 0; p < rsize; p++)
        for (int i = 0; i < n; i++) ok &= rbuf[p * n + i] == value((1 - color) * 1000 + p, me, i);
    check("MPI_Alltoall on an inter-communicator", ok);

    /* Alltoallv: remote rank p gets (p % 3) + 1 ints, placed in reverse order. */
    int *sc = malloc(sizeof(int) * 4 * rsize), *sd = sc + rsize, *rc_ = sd + rsize, *rd = rc_ + rsize;
    int off = 0;
    for (int p = 0; p < rsize; p++) {
        sc[p] = (lrank + p) % 3; /* count from me to remote p: depends on both ranks */
        sd[p] = off;
        off += sc[p];
    }
    int *vs = malloc(sizeof(int) * (off + 1));
    for (int p = 0; p < rsize; p++)
        for (int i = 0; i < sc[p]; i++) vs[sd[p] + i] = value(me, p, i);
    off = 0;
    for (int p = rsize - 1; p >= 0; p--) {
        rc_[p] = (p + lrank) % 3;
        rd[p] = off;
        off += rc_[p];
    }
    int *vr = malloc(sizeof(int) * (off + 1));
    for (int i = 0; i < off; i++) vr[i] = -1;
    rc = MPI_Alltoallv(vs, sc, sd, MPI_INT, vr, rc_, rd, MPI_INT, inter);
    to_mpi_a2av++;
    ok = rc == MPI_SUCCESS;
    for (int p = 0; p < rsize; p++)
        for (int i = 0; i < rc_[p]; i++) ok &= vr[rd[p] + i] == value((1 - color) * 1000 + p, lrank, i);
    check("MPI_Alltoallv on an inter-communicator", ok);

    /* Allgather: every rank receives the remote group's blocks. */
    int mine[2] = {me, -me};
    int *ag = malloc(sizeof(int) * 2 * rsize);
    rc = MPI_Allgather(mine, 2, MPI_INT, ag, 2, MPI_INT, inter);
    to_mpi_ag++;
    ok = rc == MPI_SUCCESS;
    for (int p = 0; p < rsize; p++)
        ok &= ag[2 * p] == (1 - color) * 1000 + p && ag[2 * p + 1] == -((1 - color) * 1000 + p);
    check("MPI_Allgather on an inter-communicator", ok);

    free(sbuf); free(rbuf); free(sc); free(vs); free(vr); free(ag);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

static void alltoallw_check(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *s = malloc(sizeof(int) * size), *r = malloc(sizeof(int) * size);
    int *cnt = malloc(sizeof(int) * size * 2), *dis = cnt + size;
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
    for (int p = 0; p < size; p++) {
        s[p] = value(rank, p, 0);
        r[p] = -1;
        cnt[p] = 1;
        dis[p] = p * (int)sizeof(int);
        types[p] = MPI_INT;
    }
    int rc = MPI_Alltoallw(s, cnt, dis, types, r, cnt, dis, types, MPI_COMM_WORLD);
    routed_a2aw++;
    int ok = rc == MPI_SUCCESS;
    for (int p = 0; p < size; p++) ok &= r[p] == value(p, rank, 0);
    check("MPI_Alltoallw", ok);
    free(s); free(r); free(cnt); free(types);
}

static void error_checks(void)
{
    int size, cls;
    MPI_Comm comm;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *s = calloc((size_t)size * 4, sizeof(int)), *r = calloc((size_t)size * 4, sizeof(int));
    int *counts = malloc(sizeof(int) * size * 2), *displs = counts + size;

    int rc = MPI_Alltoall(s, -1, MPI_INT, r, -1, MPI_INT, comm);
    routed_a2a++;
    MPI_Error_class(rc, &cls);
    check("MPI_Alltoall with a negative count returns MPI_ERR_COUNT", rc != MPI_SUCCESS && cls == MPI_ERR_COUNT);

    for (int p = 0; p < size; p++) {
        counts[p] = p == 0 ? -2 : 1;
        displs[p] = p;
    }
    rc = MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, comm);
    routed_a2av++;
    MPI_Error_class(rc, &cls);
    check("MPI_Alltoallv with a negative count returns MPI_ERR_COUNT", rc != MPI_SUCCESS && cls == MPI_ERR_COUNT);

    rc = MPI_Allgather(s, -3, MPI_INT, r, -3, MPI_INT, comm);
    routed_ag++;
    MPI_Error_class(rc, &cls);
    check("MPI_Allgather with a negative count returns MPI_ERR_COUNT", rc != MPI_SUCCESS && cls == MPI_ERR_COUNT);

    rc = MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_NULL);
    to_mpi_a2a++;
    MPI_Error_class(rc, &cls);
    check("MPI_Alltoall on MPI_COMM_NULL returns MPI_ERR_COMM", rc != MPI_SUCCESS && cls == MPI_ERR_COMM);

    /* The communicator still works after the errors. */
    for (int p = 0; p < size; p++) s[p] = value(rank, p, 1);
    rc = MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, comm);
    routed_a2a++;
    int ok = rc == MPI_SUCCESS;
    for (int p = 0; p < size; p++) ok &= r[p] == value(p, rank, 1);
    check("MPI_Alltoall after the errors", ok);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(s); free(r); free(counts);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "edge: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    intercomm_checks();
    alltoallw_check();
    error_checks();
    if (rank == 0) {
        printf("calls alltoall=%d alltoallv=%d allgather=%d alltoallw=%d (per rank, "
               "intra-communicators; errors: 1 each)\n", routed_a2a, routed_a2av, routed_ag,
               routed_a2aw);
        printf("to_mpi alltoall=%d alltoallv=%d allgather=%d (per rank: inter-communicator, "
               "MPI_COMM_NULL)\n", to_mpi_a2a, to_mpi_a2av, to_mpi_ag);
        printf("edge: %d passed, %d failed\n", passed, failed);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
