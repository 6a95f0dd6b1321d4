/*
 * xchg-bench --overlap: how much of an exchange a nonblocking collective
 * hides behind computation (issue 25, "Measured").
 *
 *   xchg-bench --overlap C[,C...] [--test-every US] [--overlap-persistent] ...
 *
 * C is a compute time: US microseconds, or Fx = F times MPI's own
 * nonblocking exchange alone at that size (median of the warm-up, so every
 * row computes for the same time). Per size and per round, for MPI's own
 * nonblocking collective (PMPI_Ialltoallv ...) and then every algorithm
 * (XCHG_Ialltoallv ... with the row's selection on the communicator), each
 * iteration is timed from a barrier, the slowest rank's time:
 *   comm   start, wait                            (the exchange alone)
 *   total  start, compute C, wait                 (per compute level)
 * and once per round and level the compute alone. With --test-every K the
 * compute stops every K us of work to test the request (XCHG_Test /
 * PMPI_Test) until it completes: without a progress thread, multi-round
 * algorithms advance only in tests. The test calls' own cost counts in
 * total (the compute is a fixed amount of work, not a clock).
 *   hidden = (comm + compute - total) / comm, clamped to [0, 1]
 * from the medians over every iteration of the interleaved rounds: 1 when
 * the whole exchange ran behind the compute, 0 when none of it did.
 * --overlap-persistent: xchg rows use one XCHG_*_init request per size and
 * XCHG_Start; the MPI row its persistent collective where it has one.
 * Compute: a dependent floating-point chain calibrated to this core (fastest
 * of five trials); under SimGrid SMPI, smpi_execute (simulated time).
 * Every row's received bytes are compared with MPI's blocking result before
 * the timing and after each round's overlapped iterations. Each xchg row
 * makes one blocking call before its first nonblocking one, so that its plan
 * is cached (see row_setup).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "xchg.h"

typedef struct overlap_row {
    char algorithm[256];
    int is_mpi;
    bench_status status;
    char message[256];
    double comm_us, total_us[BENCH_MAX_OVERLAP], hidden[BENCH_MAX_OVERLAP];
} overlap_row;

/* One row's request: MPI's or xchg's, nonblocking or persistent. */
typedef struct overlap_req {
    int is_mpi, persistent;
    MPI_Request mpi;
    XCHG_Request xchg;
} overlap_req;

/* ---- compute ---- */

static volatile double compute_sink = 1.0;
#ifndef SMPI_H /* under SMPI the compute is smpi_execute's simulated time */
static double units_per_us; /* calibrated work units per microsecond */

static void work(double units)
{
    double x = compute_sink;
    for (long i = 0; i < (long)units; i++) x = x * 1.0000001 + 1e-9;
    compute_sink = x;
}
#endif

static void calibrate(void)
{
#ifndef SMPI_H
    const double n = 2e6;
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
        double t0 = MPI_Wtime();
        work(n);
        double t = MPI_Wtime() - t0;
        if (t < best) best = t;
    }
    units_per_us = n / (best * 1e6);
#endif
}

/* us microseconds of work (simulated under SMPI). */
static void compute_for(double us)
{
#ifdef SMPI_H
    if (us > 0) smpi_execute(us * 1e-6);
#else
    work(us * units_per_us);
#endif
}

/* ---- requests ---- */

static int req_start(const bench_options *o, bench_workload *w, MPI_Comm comm, overlap_req *r)
{
    if (r->persistent) return r->is_mpi ? PMPI_Start(&r->mpi) : XCHG_Start(&r->xchg);
    int m = r->is_mpi;
    switch (o->coll) {
    case BENCH_ALLTOALLV:
        return m ? PMPI_Ialltoallv(w->sendbuf, w->sendcounts, w->sdispls, MPI_BYTE, w->recvbuf,
                                   w->recvcounts, w->rdispls, MPI_BYTE, comm, &r->mpi)
                 : XCHG_Ialltoallv(w->sendbuf, w->sendcounts, w->sdispls, MPI_BYTE, w->recvbuf,
                                   w->recvcounts, w->rdispls, MPI_BYTE, comm, &r->xchg);
    case BENCH_ALLTOALLW:
        return m ? PMPI_Ialltoallw(w->sendbuf, w->sendcounts, w->sdispls, w->sendtypes,
                                   w->recvbuf, w->recvcounts, w->rdispls, w->recvtypes, comm,
                                   &r->mpi)
                 : XCHG_Ialltoallw(w->sendbuf, w->sendcounts, w->sdispls, w->sendtypes,
                                   w->recvbuf, w->recvcounts, w->rdispls, w->recvtypes, comm,
                                   &r->xchg);
    case BENCH_ALLTOALL:
        return m ? PMPI_Ialltoall(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count, MPI_BYTE,
                                  comm, &r->mpi)
                 : XCHG_Ialltoall(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count, MPI_BYTE,
                                  comm, &r->xchg);
    case BENCH_ALLGATHER:
        return m ? PMPI_Iallgather(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count,
                                   MPI_BYTE, comm, &r->mpi)
                 : XCHG_Iallgather(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count,
                                   MPI_BYTE, comm, &r->xchg);
    case BENCH_ALLGATHERV:
        return m ? PMPI_Iallgatherv(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->recvcounts,
                                    w->rdispls, MPI_BYTE, comm, &r->mpi)
                 : XCHG_Iallgatherv(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->recvcounts,
                                    w->rdispls, MPI_BYTE, comm, &r->xchg);
    default: return MPI_ERR_ARG;
    }
}

static int req_test(overlap_req *r, int *done)
{
    return r->is_mpi ? PMPI_Test(&r->mpi, done, MPI_STATUS_IGNORE)
                     : XCHG_Test(&r->xchg, done, MPI_STATUS_IGNORE);
}

static int req_wait(overlap_req *r)
{
    return r->is_mpi ? PMPI_Wait(&r->mpi, MPI_STATUS_IGNORE)
                     : XCHG_Wait(&r->xchg, MPI_STATUS_IGNORE);
}

/* One timed iteration: start, compute us (testing every o->test_every_us),
 * wait. Local time in *t. */
static int iteration(const bench_options *o, bench_workload *w, MPI_Comm comm, overlap_req *r,
                     double us, double *t)
{
    PMPI_Barrier(comm);
    double t0 = MPI_Wtime();
    int rc = req_start(o, w, comm, r), done = 0;
    double step = o->test_every_us > 0 ? o->test_every_us : us;
    for (double left = us; left > 0 && rc == MPI_SUCCESS; left -= step) {
        compute_for(left < step ? left : step);
        if (o->test_every_us > 0 && !done && left > step) rc = req_test(r, &done);
    }
    if (rc == MPI_SUCCESS && !done) rc = req_wait(r);
    *t = MPI_Wtime() - t0;
    return rc;
}

/* ---- one size ---- */

typedef struct overlap_size {
    const bench_options *o;
    bench_workload *w;
    MPI_Comm comm;
    int num_rows, levels;
    overlap_row *rows;
    overlap_req *reqs;
    const bench_algo_list *algos;
    double compute_us[BENCH_MAX_OVERLAP];  /* the level's compute time asked for */
    double compute_med[BENCH_MAX_OVERLAP]; /* measured, median */
} overlap_size;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Select row i's algorithm on comm (xchg rows). */
static int select_row(overlap_size *s, int i)
{
    if (s->rows[i].is_mpi) return MPI_SUCCESS;
    return XCHG_Comm_set_algorithm(s->comm, s->o->coll_name,
                                   bench_selection_string(s->algos->selection[i - 1]));
}

/* Whether every rank's receive buffer equals MPI's blocking result; sets the
 * row's status otherwise. */
static int row_correct(overlap_size *s, int i, int rc)
{
    overlap_row *r = &s->rows[i];
    int local[2] = {rc != MPI_SUCCESS,
                    rc == MPI_SUCCESS && memcmp(s->w->recvbuf, s->w->refbuf, s->w->recv_bytes)};
    int global[2];
    PMPI_Allreduce(local, global, 2, MPI_INT, MPI_SUM, s->comm);
    if (!global[0] && !global[1]) return 1;
    r->status = global[0] ? ROW_FAILED : ROW_WRONG;
    snprintf(r->message, sizeof r->message, global[0] ? "failed on %d rank(s): %s"
                                                       : "differs from MPI's on %d rank(s)%s",
             global[0] ? global[0] : global[1], global[0] && local[0] ? XCHG_Last_error() : "");
    return 0;
}

/* Set up row i: selection, persistent request, one checked exchange. */
static void row_setup(overlap_size *s, int i)
{
    const bench_options *o = s->o;
    overlap_row *r = &s->rows[i];
    overlap_req *q = &s->reqs[i];
    *q = (overlap_req){.is_mpi = r->is_mpi, .mpi = MPI_REQUEST_NULL, .xchg = XCHG_REQUEST_NULL};
    int rc = select_row(s, i);
    if (rc != MPI_SUCCESS) {
        r->status = ROW_NOT_APPLICABLE;
        snprintf(r->message, sizeof r->message, "%s", XCHG_Last_error());
        return;
    }
    if (o->overlap_persistent && r->is_mpi) {
        rc = bench_mpi_init(o, s->w, s->comm, &q->mpi);
        q->persistent = rc == MPI_SUCCESS; /* else MPI's nonblocking call */
        if (q->persistent) snprintf(r->algorithm, sizeof r->algorithm, "MPI(persistent)");
        rc = MPI_SUCCESS;
    } else if (o->overlap_persistent) {
        MPI_Info info = MPI_INFO_NULL;
        const char *sel = bench_selection_string(s->algos->selection[i - 1]);
        if (sel[0]) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "xchg_algorithm", sel);
        }
        rc = bench_xchg_init(o, s->w, s->comm, info, &q->xchg);
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
        q->persistent = rc == MPI_SUCCESS;
    }
    double t;
    /* One blocking call first: it builds and caches the plan. Inside a task
     * (the nonblocking start) an algorithm whose plan building blocks
     * (sub-communicators: node_aware, hierarchical, ...) runs the `mpi`
     * fallback until a plan is cached (src/core/plan.c); the label shows
     * what the nonblocking call ran ("asked[ran]"). */
    if (rc == MPI_SUCCESS && !r->is_mpi && !q->persistent) rc = bench_call(o, s->w, 0, s->comm);
    bench_clear_recv(s->w, s->w->recvbuf);
    if (rc == MPI_SUCCESS) rc = iteration(o, s->w, s->comm, q, 0, &t);
    if (!r->is_mpi && !q->persistent) {
        char used[256] = "";
        XCHG_Comm_get_algorithm(s->comm, o->coll_name, 1, 0, used, sizeof used);
        const char *sel = s->algos->selection[i - 1];
        if (used[0] && strcmp(used, sel) != 0) /* the selection, then what ran */
            snprintf(r->algorithm, sizeof r->algorithm, "%.120s[%.120s]", sel, used);
    }
    row_correct(s, i, rc);
}

/* count iterations of row i computing us each; slowest rank's times. */
static int time_row(overlap_size *s, int i, int warmup, int count, double us, double *times)
{
    int rc = MPI_SUCCESS;
    for (int it = 0; it < warmup + count && rc == MPI_SUCCESS; it++) {
        double t;
        rc = iteration(s->o, s->w, s->comm, &s->reqs[i], us, &t);
        if (it >= warmup) times[it - warmup] = t;
    }
    int failed = rc != MPI_SUCCESS, any = 0;
    PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, s->comm);
    if (any) return MPI_ERR_OTHER;
    PMPI_Allreduce(MPI_IN_PLACE, times, count, MPI_DOUBLE, MPI_MAX, s->comm);
    return MPI_SUCCESS;
}

/* The compute alone: count times, slowest rank's. */
static void time_compute(overlap_size *s, int count, double us, double *times)
{
    for (int it = 0; it < count; it++) {
        PMPI_Barrier(s->comm);
        double t0 = MPI_Wtime();
        compute_for(us);
        times[it] = MPI_Wtime() - t0;
    }
    PMPI_Allreduce(MPI_IN_PLACE, times, count, MPI_DOUBLE, MPI_MAX, s->comm);
}

/* The levels' compute times: absolute, or factors of MPI's exchange alone. */
static int resolve_levels(overlap_size *s, int warmup)
{
    const bench_options *o = s->o;
    double base = 0;
    int n = warmup > 5 ? warmup : 5, need = 0;
    for (int l = 0; l < s->levels; l++) need |= o->overlap_factor[l] > 0;
    if (need) {
        double *t = malloc((size_t)n * sizeof *t);
        if (!t) return MPI_ERR_NO_MEM;
        int rc = time_row(s, 0, 0, n, 0, t);
        base = rc == MPI_SUCCESS ? median(t, n) * 1e6 : 0;
        free(t);
        if (rc != MPI_SUCCESS) return rc;
    }
    for (int l = 0; l < s->levels; l++)
        s->compute_us[l] = o->overlap_factor[l] > 0 ? o->overlap_factor[l] * base
                                                    : o->overlap_us[l];
    return MPI_SUCCESS;
}

/* The interleaved rounds: per round, every row's exchange alone, then each
 * level (compute alone, then every row overlapped, checked). */
static int overlap_one_size(overlap_size *s)
{
    const bench_options *o = s->o;
    const int n = o->iterations, L = s->levels, R = s->num_rows;
    int rounds = o->rounds < n ? o->rounds : n;
    int warmup = (o->warmup + rounds - 1) / rounds;
    /* [row][level 0 = comm alone, 1..L][iteration]; compute: [level][iteration] */
    double *times = malloc((size_t)R * (size_t)(L + 1) * (size_t)n * sizeof *times);
    double *comp = malloc((size_t)L * (size_t)n * sizeof *comp);
    if (!times || !comp) {
        free(times);
        free(comp);
        return MPI_ERR_NO_MEM;
    }
#define T(row, level) (times + ((size_t)(row) * (size_t)(L + 1) + (size_t)(level)) * (size_t)n)
    int rc = resolve_levels(s, warmup);
    for (int round = 0, done = 0; round < rounds && rc == MPI_SUCCESS; round++) {
        int count = n / rounds + (round < n % rounds);
        for (int i = 0; i < R; i++) {
            if (s->rows[i].status != ROW_OK) continue;
            select_row(s, i);
            if (time_row(s, i, warmup, count, 0, T(i, 0) + done) != MPI_SUCCESS) {
                s->rows[i].status = ROW_FAILED;
                snprintf(s->rows[i].message, sizeof s->rows[i].message, "a timed call failed");
            }
        }
        for (int l = 0; l < L; l++) {
            time_compute(s, count, s->compute_us[l], comp + (size_t)l * (size_t)n + done);
            for (int i = 0; i < R; i++) {
                if (s->rows[i].status != ROW_OK) continue;
                select_row(s, i);
                bench_clear_recv(s->w, s->w->recvbuf);
                int trc = time_row(s, i, warmup, count, s->compute_us[l], T(i, 1 + l) + done);
                row_correct(s, i, trc);
            }
        }
        done += count;
    }
    for (int l = 0; l < L && rc == MPI_SUCCESS; l++)
        s->compute_med[l] = 1e6 * median(comp + (size_t)l * (size_t)n, n);
    for (int i = 0; i < R && rc == MPI_SUCCESS; i++) {
        overlap_row *r = &s->rows[i];
        if (r->status != ROW_OK) continue;
        r->comm_us = 1e6 * median(T(i, 0), n);
        for (int l = 0; l < L; l++) {
            r->total_us[l] = 1e6 * median(T(i, 1 + l), n);
            double h = (r->comm_us + s->compute_med[l] - r->total_us[l]) / r->comm_us;
            r->hidden[l] = h < 0 ? 0 : h > 1 ? 1 : h;
        }
    }
#undef T
    free(times);
    free(comp);
    return rc;
}

/* ---- report ---- */

static void print_header(const bench_options *o, const bench_run_info *info)
{
    printf("# xchg-bench --overlap: %s, P=%d, %d node(s)%s, %s; %s, test every %s",
           o->coll_name, info->size, info->num_nodes, info->topo_virtual ? " (virtual)" : "",
           info->mpi_library, o->overlap_persistent ? "persistent (init + start)" : "nonblocking",
           o->test_every_us > 0 ? "" : "never");
    if (o->test_every_us > 0) printf("%g us", o->test_every_us);
    printf("\n# %d iterations in %d rounds; hidden = (comm + compute - total) / comm in [0,1]\n",
           o->iterations, o->rounds);
}

static void print_size(const overlap_size *s, int64_t size, int width)
{
    printf("\n# S=%lld B; compute:", (long long)size);
    for (int l = 0; l < s->levels; l++)
        printf(" %.2f us (asked %.2f)", s->compute_med[l], s->compute_us[l]);
    printf("\n%-*s %12s", width, "# algorithm", "comm_us");
    for (int l = 0; l < s->levels; l++) printf("   total%d_us hidden%d", l + 1, l + 1);
    printf("\n");
    for (int i = 0; i < s->num_rows; i++) {
        const overlap_row *r = &s->rows[i];
        printf("%-*s ", width, r->algorithm);
        if (r->status != ROW_OK) {
            printf("%s: %s\n", r->status == ROW_NOT_APPLICABLE ? "n/a" : "FAILED", r->message);
            continue;
        }
        printf("%12.2f", r->comm_us);
        for (int l = 0; l < s->levels; l++) printf(" %12.2f %7.3f", r->total_us[l], r->hidden[l]);
        printf("\n");
    }
    fflush(stdout);
}

static void csv_rows(FILE *f, const overlap_size *s, int64_t size, const bench_run_info *info)
{
    const bench_options *o = s->o;
    for (int i = 0; i < s->num_rows; i++)
        for (int l = 0; l < s->levels; l++) {
            const overlap_row *r = &s->rows[i];
            const char *st = r->status == ROW_OK ? "ok" : r->status == ROW_NOT_APPLICABLE ? "n/a"
                                                                                           : "FAIL";
            fprintf(f, "%s,%d,%lld,\"%s\",%s,%g,%g,%.3f,%.3f,%.3f,%.4f,%s\n", o->coll_name,
                    info->size, (long long)size, r->algorithm,
                    o->overlap_persistent ? "persistent" : "nonblocking", o->test_every_us,
                    o->overlap_factor[l], s->compute_med[l], r->comm_us, r->total_us[l],
                    r->hidden[l], st);
        }
}

int bench_overlap_main(const bench_options *o, const bench_algo_list *algos,
                       const int64_t *sizes, int num_sizes, MPI_Comm comm,
                       const bench_run_info *info)
{
    int rank, nranks, exit_code = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    calibrate();
    FILE *csv = NULL;
    if (rank == 0 && o->csv_path) {
        csv = strcmp(o->csv_path, "-") == 0 ? stdout : fopen(o->csv_path, "w");
        if (!csv) fprintf(stderr, "xchg-bench: cannot write %s\n", o->csv_path), exit_code = 1;
        else fprintf(csv, "coll,P,size,algorithm,mode,test_every_us,compute_factor,compute_us,"
                          "comm_us,total_us,hidden,status\n");
    }
    if (rank == 0 && csv != stdout) print_header(o, info);
    int width = 24;
    for (int a = 0; a < algos->count; a++)
        if ((int)strlen(algos->selection[a]) + 8 > width)
            width = (int)strlen(algos->selection[a]) + 8;
    overlap_size s = {.o = o, .comm = comm, .num_rows = 1 + algos->count,
                      .levels = o->overlap_levels, .algos = algos};
    s.rows = calloc((size_t)s.num_rows, sizeof *s.rows);
    s.reqs = calloc((size_t)s.num_rows, sizeof *s.reqs);
    for (int z = 0; z < num_sizes && s.rows && s.reqs; z++) {
        bench_workload w;
        int rc = bench_workload_create(o, sizes[z], rank, nranks, &w), any;
        PMPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, comm);
        if (any == MPI_SUCCESS) rc = bench_call(o, &w, 1, comm); /* the reference */
        PMPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, comm);
        if (any != MPI_SUCCESS) {
            if (rank == 0) fprintf(stderr, "xchg-bench: S=%lld: setup or MPI's call failed\n",
                                   (long long)sizes[z]);
            bench_workload_free(&w);
            exit_code = 1;
            break;
        }
        memcpy(w.refbuf, w.recvbuf, w.recv_bytes);
        s.w = &w;
        for (int i = 0; i < s.num_rows; i++) {
            s.rows[i] = (overlap_row){.is_mpi = i == 0};
            snprintf(s.rows[i].algorithm, sizeof s.rows[i].algorithm, "%s",
                     i ? algos->selection[i - 1] : "MPI");
            row_setup(&s, i);
        }
        if (overlap_one_size(&s) != MPI_SUCCESS) exit_code = 1;
        for (int i = 0; i < s.num_rows; i++) {
            if (s.rows[i].status == ROW_WRONG || s.rows[i].status == ROW_FAILED) exit_code = 1;
            if (s.reqs[i].persistent && s.reqs[i].is_mpi) PMPI_Request_free(&s.reqs[i].mpi);
            else if (s.reqs[i].persistent) XCHG_Request_free(&s.reqs[i].xchg);
        }
        if (rank == 0 && csv != stdout) print_size(&s, sizes[z], width);
        if (csv) csv_rows(csv, &s, sizes[z], info);
        bench_workload_free(&w);
    }
    if (!s.rows || !s.reqs) exit_code = 1;
    free(s.rows);
    free(s.reqs);
    if (csv && csv != stdout) fclose(csv);
    return exit_code;
}
