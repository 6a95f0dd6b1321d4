/*
 * Counting and the summary at MPI_Finalize (see stats.h).
 *
 * Counters are atomics, so threads calling collectives on different
 * communicators (MPI_THREAD_MULTIPLE) count correctly; the small table of
 * algorithm strings takes a spin lock, only while counting is on.
 *
 * The summary is a reduction over MPI_COMM_WORLD, so every rank must reach
 * it: the drop-in wraps MPI_Finalize (c_bindings.c; fortran.c for the Fortran
 * entry points that do not reach the C one), the one call every rank makes,
 * and reports before PMPI_Finalize. An attribute on MPI_COMM_SELF would also
 * run at MPI_Finalize, whatever the language, but a rank would set it only
 * once it counts something, and a rank that never called a collective would
 * then leave the others waiting in the reduction.
 */
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Atomic int xchg_ip_stats_state = -1;

static const char *const coll_names[XCHG_IP_NCOLL] = {
    [XCHG_IP_ALLTOALL] = "alltoall",
    [XCHG_IP_ALLTOALLV] = "alltoallv",
    [XCHG_IP_ALLGATHER] = "allgather",
    [XCHG_IP_NEIGHBOR_ALLTOALLV] = "neighbor_alltoallv",
    [XCHG_IP_ALLTOALLW] = "alltoallw",
    [XCHG_IP_ALLGATHERV] = "allgatherv",
    [XCHG_IP_IALLTOALL] = "ialltoall",
    [XCHG_IP_IALLTOALLV] = "ialltoallv",
    [XCHG_IP_IALLTOALLW] = "ialltoallw",
    [XCHG_IP_IALLGATHER] = "iallgather",
    [XCHG_IP_IALLGATHERV] = "iallgatherv",
    [XCHG_IP_ALLTOALL_INIT] = "alltoall_init",
    [XCHG_IP_ALLTOALLV_INIT] = "alltoallv_init",
    [XCHG_IP_ALLTOALLW_INIT] = "alltoallw_init",
    [XCHG_IP_ALLGATHER_INIT] = "allgather_init",
    [XCHG_IP_ALLGATHERV_INIT] = "allgatherv_init"};

/* Each form's collective: the blocking form of the same name. */
static const xchg_ip_coll blocking_form[XCHG_IP_NCOLL] = {
    [XCHG_IP_ALLTOALL] = XCHG_IP_ALLTOALL,
    [XCHG_IP_ALLTOALLV] = XCHG_IP_ALLTOALLV,
    [XCHG_IP_ALLGATHER] = XCHG_IP_ALLGATHER,
    [XCHG_IP_NEIGHBOR_ALLTOALLV] = XCHG_IP_NEIGHBOR_ALLTOALLV,
    [XCHG_IP_ALLTOALLW] = XCHG_IP_ALLTOALLW,
    [XCHG_IP_ALLGATHERV] = XCHG_IP_ALLGATHERV,
    [XCHG_IP_IALLTOALL] = XCHG_IP_ALLTOALL,
    [XCHG_IP_IALLTOALLV] = XCHG_IP_ALLTOALLV,
    [XCHG_IP_IALLTOALLW] = XCHG_IP_ALLTOALLW,
    [XCHG_IP_IALLGATHER] = XCHG_IP_ALLGATHER,
    [XCHG_IP_IALLGATHERV] = XCHG_IP_ALLGATHERV,
    [XCHG_IP_ALLTOALL_INIT] = XCHG_IP_ALLTOALL,
    [XCHG_IP_ALLTOALLV_INIT] = XCHG_IP_ALLTOALLV,
    [XCHG_IP_ALLTOALLW_INIT] = XCHG_IP_ALLTOALLW,
    [XCHG_IP_ALLGATHER_INIT] = XCHG_IP_ALLGATHER,
    [XCHG_IP_ALLGATHERV_INIT] = XCHG_IP_ALLGATHERV};

const char *xchg_ip_coll_name(xchg_ip_coll coll)
{
    return coll_names[coll];
}

const char *xchg_ip_coll_collective(xchg_ip_coll coll)
{
    return coll_names[blocking_form[coll]];
}

typedef struct {
    _Atomic long long calls, bytes, nanoseconds, errors, passed;
} counters;

static counters count[XCHG_IP_NCOLL];

#define MAX_ALGOS 16
#define ALGO_LEN 112
typedef struct {
    char name[ALGO_LEN];
    long long calls;
} algo_count;

static algo_count algos[XCHG_IP_NCOLL][MAX_ALGOS + 1]; /* last slot: "(other)" */
static int num_algos[XCHG_IP_NCOLL];
static atomic_flag algos_lock = ATOMIC_FLAG_INIT;

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

int xchg_ip_stats_init(void)
{
    int on = env_set("XCHG_VERBOSE") || env_set("XCHG_COUNT_FILE");
    atomic_store(&xchg_ip_stats_state, on);
    return on;
}

static void count_algorithm(xchg_ip_coll coll, const char *algorithm)
{
    if (!algorithm || !*algorithm) return;
    while (atomic_flag_test_and_set_explicit(&algos_lock, memory_order_acquire)) {
    }
    int i = 0;
    while (i < num_algos[coll] && strcmp(algos[coll][i].name, algorithm) != 0) i++;
    if (i == num_algos[coll]) {
        if (i < MAX_ALGOS) {
            snprintf(algos[coll][i].name, ALGO_LEN, "%s", algorithm);
            num_algos[coll]++;
        } else {
            i = MAX_ALGOS;
            snprintf(algos[coll][i].name, ALGO_LEN, "(other)");
        }
    }
    algos[coll][i].calls++;
    atomic_flag_clear_explicit(&algos_lock, memory_order_release);
}

void xchg_ip_stats_routed(xchg_ip_coll coll, int rc, double seconds, long long bytes,
                          const char *algorithm)
{
    counters *c = &count[coll];
    atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->nanoseconds, (long long)(seconds * 1e9), memory_order_relaxed);
    if (rc == MPI_SUCCESS)
        atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&c->errors, 1, memory_order_relaxed);
    if (rc == MPI_SUCCESS) count_algorithm(coll, algorithm);
}

void xchg_ip_stats_passed(xchg_ip_coll coll)
{
    atomic_fetch_add_explicit(&count[coll].passed, 1, memory_order_relaxed);
}

/* This rank's algorithm table as text, one "coll<TAB>algorithm<TAB>calls" line each. */
static char *algorithms_text(int *len)
{
    size_t cap = 1, used = 0;
    for (int c = 0; c < XCHG_IP_NCOLL; c++) cap += (size_t)(MAX_ALGOS + 1) * (ALGO_LEN + 48);
    char *text = malloc(cap);
    if (!text) {
        *len = 0;
        return NULL;
    }
    text[0] = '\0';
    for (int c = 0; c < XCHG_IP_NCOLL; c++)
        for (int i = 0; i <= MAX_ALGOS; i++)
            if (algos[c][i].calls > 0)
                used += (size_t)snprintf(text + used, cap - used, "%s\t%s\t%lld\n", coll_names[c],
                                         algos[c][i].name, algos[c][i].calls);
    *len = (int)used;
    return text;
}

typedef struct {
    int coll;
    char name[ALGO_LEN];
    long long calls;
} merged_algo;

/* Rank 0: add up the algorithm lines of all ranks. */
static int merge_algorithms(const char *all, int len, merged_algo *out, int max)
{
    int n = 0;
    const char *p = all, *end = all + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        char line[ALGO_LEN + 64];
        size_t l = (size_t)(nl - p) < sizeof line - 1 ? (size_t)(nl - p) : sizeof line - 1;
        memcpy(line, p, l);
        line[l] = '\0';
        p = nl + 1;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strrchr(line, '\t') : NULL;
        if (!t1 || t2 == t1) continue;
        *t1 = *t2 = '\0';
        int coll = -1;
        for (int c = 0; c < XCHG_IP_NCOLL; c++)
            if (strcmp(line, coll_names[c]) == 0) coll = c;
        if (coll < 0) continue;
        int i = 0;
        while (i < n && !(out[i].coll == coll && strcmp(out[i].name, t1 + 1) == 0)) i++;
        if (i == n) {
            if (n == max) continue;
            out[n].coll = coll;
            snprintf(out[n].name, ALGO_LEN, "%s", t1 + 1);
            out[n].calls = 0;
            n++;
        }
        out[i].calls += atoll(t2 + 1);
    }
    return n;
}

enum { F_CALLS, F_BYTES, F_ERRORS, F_PASSED, F_N };

static void print_summary(FILE *f, const char *prefix, int nranks, const long long *sum,
                          const double *tmax, const double *tsum, const merged_algo *m, int nm)
{
    fprintf(f,
            "%sdrop-in summary, %d ranks (calls, bytes: sum over ranks; time: the longest a "
            "rank spent in the collective, and the mean over ranks)\n",
            prefix, nranks);
    fprintf(f, "%s%-18s %10s %16s %12s %12s %8s %8s\n", prefix, "collective", "calls", "bytes",
            "max_time_s", "mean_time_s", "to_mpi", "errors");
    for (int c = 0; c < XCHG_IP_NCOLL; c++) {
        const long long *v = sum + c * F_N;
        if (v[F_CALLS] == 0 && v[F_PASSED] == 0) continue;
        fprintf(f, "%s%-18s %10lld %16lld %12.6f %12.6f %8lld %8lld\n", prefix, coll_names[c],
                v[F_CALLS], v[F_BYTES], tmax[c], tsum[c] / nranks, v[F_PASSED], v[F_ERRORS]);
    }
    for (int i = 0; i < nm; i++)
        fprintf(f, "%s%-10s algorithm %s: %lld calls\n", prefix, coll_names[m[i].coll],
                m[i].name, m[i].calls);
}

/* The machine-readable form for XCHG_COUNT_FILE. */
static void write_count_file(const char *path, int nranks, const long long *sum, const double *tmax,
                             const merged_algo *m, int nm)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "xchg: cannot write XCHG_COUNT_FILE=%s\n", path);
        return;
    }
    fprintf(f, "ranks %d\n", nranks);
    for (int c = 0; c < XCHG_IP_NCOLL; c++) {
        const long long *v = sum + c * F_N;
        fprintf(f, "%s calls=%lld bytes=%lld to_mpi=%lld errors=%lld max_time_s=%.6f\n",
                coll_names[c], v[F_CALLS], v[F_BYTES], v[F_PASSED], v[F_ERRORS], tmax[c]);
    }
    for (int i = 0; i < nm; i++)
        fprintf(f, "algorithm %s %s calls=%lld\n", coll_names[m[i].coll], m[i].name, m[i].calls);
    fclose(f);
}

void xchg_ip_stats_report(void)
{
    if (!xchg_ip_stats_on()) return;
    MPI_Comm world = MPI_COMM_WORLD;
    int rank, nranks;
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &nranks);

    long long local[XCHG_IP_NCOLL * F_N], sum[XCHG_IP_NCOLL * F_N];
    double t[XCHG_IP_NCOLL], tmax[XCHG_IP_NCOLL], tsum[XCHG_IP_NCOLL];
    for (int c = 0; c < XCHG_IP_NCOLL; c++) {
        local[c * F_N + F_CALLS] = atomic_load(&count[c].calls);
        local[c * F_N + F_BYTES] = atomic_load(&count[c].bytes);
        local[c * F_N + F_ERRORS] = atomic_load(&count[c].errors);
        local[c * F_N + F_PASSED] = atomic_load(&count[c].passed);
        t[c] = (double)atomic_load(&count[c].nanoseconds) * 1e-9;
    }
    PMPI_Reduce(local, sum, XCHG_IP_NCOLL * F_N, MPI_LONG_LONG, MPI_SUM, 0, world);
    PMPI_Reduce(t, tmax, XCHG_IP_NCOLL, MPI_DOUBLE, MPI_MAX, 0, world);
    PMPI_Reduce(t, tsum, XCHG_IP_NCOLL, MPI_DOUBLE, MPI_SUM, 0, world);

    int len;
    char *text = algorithms_text(&len);
    int *lens = rank == 0 ? calloc((size_t)nranks, sizeof *lens) : NULL;
    int *displs = rank == 0 ? calloc((size_t)nranks, sizeof *displs) : NULL;
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, world);
    char *all = NULL;
    int total = 0;
    if (rank == 0) {
        for (int r = 0; r < nranks; r++) {
            displs[r] = total;
            total += lens[r];
        }
        all = malloc((size_t)total + 1);
    }
    PMPI_Gatherv(text, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, world);
    if (rank == 0) {
        merged_algo m[XCHG_IP_NCOLL * (MAX_ALGOS + 1)];
        int nm = all ? merge_algorithms(all, total, m, (int)(sizeof m / sizeof m[0])) : 0;
        if (env_set("XCHG_VERBOSE")) {
            print_summary(stderr, "xchg: ", nranks, sum, tmax, tsum, m, nm);
            fflush(stderr);
        }
        const char *path = getenv("XCHG_COUNT_FILE");
        if (path && *path && strcmp(path, "0") != 0) write_count_file(path, nranks, sum, tmax, m, nm);
    }
    free(all);
    free(lens);
    free(displs);
    free(text);
}
