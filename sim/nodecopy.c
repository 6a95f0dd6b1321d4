/*
 * Node copy probe for the simulator's node model (sim/calibrate runs it with
 * Open MPI on this machine; sim/README.md, "An honest node").
 * Prints CSV lines "test,active,bytes,gbps" (payload gigabytes per second,
 * best of REPS timed repetitions), for
 *   memcpy   every active rank copies a private buffer of BIG bytes
 *   stream   active ranks in pairs (r, r+1): r sends WINDOW messages of the
 *            given size to r+1 at a time, ROUNDS times; one direction
 *   duplex   as stream, both directions at once (every active rank sends and
 *            receives)
 * with `active` = 1 (memcpy) or 2 (one pair), then every rank of the job.
 * Buffers are far larger than the caches, so memory, not cache, is measured.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (64L << 20)
#define REPS 5
#define WINDOW 8
#define ROUNDS 8

static double best_of(double (*fn)(int, long, char *, char *), int active, long bytes, char *a, char *b)
{
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = fn(active, bytes, a, b), slowest;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (slowest < best) best = slowest;
    }
    return best;
}

static double run_memcpy(int active, long bytes, char *a, char *b)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    if (rank < active) memcpy(b, a, (size_t)bytes);
    return rank < active ? MPI_Wtime() - t0 : 0.0;
}

/* WINDOW x ROUNDS messages of `bytes` from even to odd ranks (duplex: also
 * back), spread over the big buffers so that no message hits the cache. */
static double run_messages(int active, long bytes, char *a, char *b, int duplex)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank >= active) return 0.0;
    int peer = rank ^ 1, sends = duplex || rank % 2 == 0, recvs = duplex || rank % 2 == 1;
    long slots = BIG / bytes < WINDOW ? 1 : BIG / bytes / WINDOW * WINDOW;
    MPI_Request reqs[2 * WINDOW];
    double t0 = MPI_Wtime();
    for (long round = 0, slot = 0; round < ROUNDS; round++) {
        int n = 0;
        for (int w = 0; w < WINDOW; w++, slot = (slot + 1) % slots) {
            if (recvs) MPI_Irecv(b + slot * bytes, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[n++]);
            if (sends) MPI_Isend(a + slot * bytes, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[n++]);
        }
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    }
    return MPI_Wtime() - t0;
}

static double run_stream(int active, long bytes, char *a, char *b) { return run_messages(active, bytes, a, b, 0); }
static double run_duplex(int active, long bytes, char *a, char *b) { return run_messages(active, bytes, a, b, 1); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *a = malloc(BIG), *b = malloc(BIG);
    if (!a || !b) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(a, rank + 1, BIG);
    memset(b, 0, BIG);
    if (!rank) printf("test,active,bytes,gbps\n");
    int everyone = size - size % 2;
    int copiers[2] = {1, size};
    for (int i = 0; i < 2; i++) {
        double t = best_of(run_memcpy, copiers[i], BIG, a, b);
        if (!rank) printf("memcpy,%d,%ld,%.2f\n", copiers[i], BIG, copiers[i] * BIG / t / 1e9);
    }
    const long sizes[] = {16384, 262144, 1L << 20, 4L << 20};
    int pairs[2] = {2, everyone};
    for (int p = 0; p < 2 && everyone >= 2; p++) {
        if (p == 1 && everyone == 2) break;
        for (int k = 0; k < 4; k++) {
            long moved = (long)WINDOW * ROUNDS * sizes[k];
            double t = best_of(run_stream, pairs[p], sizes[k], a, b);
            if (!rank) printf("stream,%d,%ld,%.2f\n", pairs[p], sizes[k], pairs[p] / 2 * moved / t / 1e9);
            t = best_of(run_duplex, pairs[p], sizes[k], a, b);
            if (!rank) printf("duplex,%d,%ld,%.2f\n", pairs[p], sizes[k], pairs[p] * moved / t / 1e9);
        }
    }
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
