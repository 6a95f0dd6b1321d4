/*
 * The arrival-pattern profiler (see profile.h).
 *
 * Metrics of one call on a communicator of n ranks (Section 3.1 of Qian &
 * Afsahi 2011): a-bar = mean of a_i, d-bar = mean of |a_i - a-bar| (average-
 * case imbalance time), theta = max a_i - min a_i (worst-case imbalance time).
 * Clocks: arrival times are taken relative to the exit of a PMPI_Barrier that
 * every rank of the communicator makes at its first profiled call there (the
 * paper synchronizes once in MPI_Init; a drop-in that does not wrap MPI_Init
 * aligns per communicator instead); drift after that is ignored.
 * The metrics are computed on every rank after a PMPI_Allgather of the
 * arrival times, and counted on the communicator's rank 0 only, so each call
 * counts once. At MPI_Finalize the sums are reduced over MPI_COMM_WORLD and T
 * (the time of one message of the collective's average block size) is
 * measured with a ping-pong between world ranks 0 and 1 (fastest of 10 round
 * trips, halved); the imbalance factors are d-bar / T and theta / T averaged
 * over the calls. With one rank in the world T is a model, 1 us + S / (1 GB/s).
 * Not thread safe (the counters are plain): profile single-threaded callers.
 */
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/pingpong.h"

_Atomic int xchg_ip_profile_state = -1;

typedef struct {
    double calls, bytes, dbar, theta, theta_max;
} prof_sums;

static prof_sums sums[XCHG_IP_NCOLL];
static int keyval = MPI_KEYVAL_INVALID;

int xchg_ip_profile_init(void)
{
    const char *v = getenv("XCHG_PROFILE");
    int on = v && *v && strcmp(v, "0") != 0;
    atomic_store(&xchg_ip_profile_state, on);
    return on;
}

static int free_origin(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm; (void)key; (void)extra;
    free(value);
    return MPI_SUCCESS;
}

/* The communicator's clock origin: its first profiled call's barrier exit. */
static double origin_of(MPI_Comm comm)
{
    if (keyval == MPI_KEYVAL_INVALID)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_origin, &keyval, NULL);
    double *origin;
    int found = 0;
    PMPI_Comm_get_attr(comm, keyval, &origin, &found);
    if (found) return *origin;
    origin = malloc(sizeof *origin);
    if (!origin) return 0;
    PMPI_Barrier(comm);
    *origin = PMPI_Wtime();
    PMPI_Comm_set_attr(comm, keyval, origin);
    return *origin;
}

void xchg_ip_profile_record(xchg_ip_coll coll, MPI_Comm comm, double arrival, double exit,
                            long long block_bytes)
{
    (void)exit; /* the exit times define the completion time, not the imbalance */
    int n, rank;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &rank);
    double origin = origin_of(comm), mine = arrival - origin;
    double *all = malloc((size_t)n * sizeof *all);
    if (!all) return;
    /* A rank that arrived before the first call's barrier (the barrier is
     * made after that call) has a negative arrival: still consistent. */
    PMPI_Allgather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, comm);
    if (rank == 0) {
        double mean = 0, lo = all[0], hi = all[0], dbar = 0;
        for (int i = 0; i < n; i++) {
            mean += all[i];
            if (all[i] < lo) lo = all[i];
            if (all[i] > hi) hi = all[i];
        }
        mean /= n;
        for (int i = 0; i < n; i++) dbar += all[i] > mean ? all[i] - mean : mean - all[i];
        dbar /= n;
        prof_sums *s = &sums[coll];
        s->calls += 1;
        s->bytes += (double)block_bytes;
        s->dbar += dbar;
        s->theta += hi - lo;
        if (hi - lo > s->theta_max) s->theta_max = hi - lo;
    }
    free(all);
}

/* T(S) on MPI_COMM_WORLD (src/core/pingpong.h, fastest of 10); the model
 * 1 us + S / (1 GB/s) if it cannot be measured. */
static double message_time(long long bytes)
{
    double t;
    if (xchg_message_time(MPI_COMM_WORLD, bytes, 10, &t) != MPI_SUCCESS)
        t = 1e-6 + (double)bytes / 1e9;
    return t;
}

void xchg_ip_profile_report(void)
{
    if (!xchg_ip_profile_on()) return;
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    prof_sums tot[XCHG_IP_NCOLL];
    double local[XCHG_IP_NCOLL][4], global[XCHG_IP_NCOLL][4], lmax[XCHG_IP_NCOLL], gmax[XCHG_IP_NCOLL];
    for (int c = 0; c < XCHG_IP_NCOLL; c++) {
        local[c][0] = sums[c].calls;
        local[c][1] = sums[c].bytes;
        local[c][2] = sums[c].dbar;
        local[c][3] = sums[c].theta;
        lmax[c] = sums[c].theta_max;
    }
    PMPI_Allreduce(local, global, 4 * XCHG_IP_NCOLL, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Allreduce(lmax, gmax, XCHG_IP_NCOLL, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    FILE *out = NULL;
    if (rank == 0) {
        const char *path = getenv("XCHG_PROFILE_FILE");
        out = path && *path ? fopen(path, "w") : stderr;
        if (!out) out = stderr;
        fprintf(out, "xchg profile (process arrival pattern, Qian & Afsahi 2011 Table 1; "
                     "factors = imbalance time / T(message), averaged over calls)\n");
        fprintf(out, "%-10s %8s %14s %12s %14s %14s %12s %12s\n", "collective", "calls",
                "avg_msg_bytes", "T_us", "avg_imbalance", "worst_imbal", "avg_dbar_us",
                "max_theta_us");
    }
    for (int c = 0; c < XCHG_IP_NCOLL; c++) {
        tot[c].calls = global[c][0];
        if (tot[c].calls == 0) continue; /* the same on every rank */
        double avg_bytes = global[c][1] / tot[c].calls;
        double t = message_time((long long)(avg_bytes + 0.5));
        if (rank == 0)
            fprintf(out, "%-10s %8.0f %14.0f %12.3f %14.2f %14.2f %12.3f %12.3f\n",
                    xchg_ip_coll_name((xchg_ip_coll)c), tot[c].calls, avg_bytes, t * 1e6,
                    global[c][2] / tot[c].calls / t, global[c][3] / tot[c].calls / t,
                    global[c][2] / tot[c].calls * 1e6, gmax[c] * 1e6);
    }
    if (rank == 0 && out != stderr) fclose(out);
    if (rank == 0 && out == stderr) fflush(stderr);
}
