/*
 * xchg-bench: time xchg's algorithms against MPI's own collective, OSU style.
 *
 *   mpirun -n 8 xchg-bench [-c alltoallv|alltoall|allgather|alltoallw] [-m MIN:MAX]
 *          [-i ITER] [-x WARMUP] [-f] [--algo SPEC]... [--dist D] [--seed N]
 *          [--csv FILE|-] [--json FILE|-] [--progress] [--breakdown]
 *          [--persistent N] [--first-call] [--skew MIF [--skew-dist uniform|one-late]]
 *          [--overlap C[,C...] [--test-every US] [--overlap-persistent]]
 *
 * For every size S: MPI's own collective (PMPI_*) first, as the reference
 * result and the reference time, then every selected algorithm. Each
 * algorithm's output is compared once per size with MPI's (memcmp of the whole
 * receive buffer, prefilled with a sentinel); a row that differs is reported
 * as wrong and gets no time. Timing: per iteration PMPI_Barrier, t0, the
 * call, t1; after the loop the per-iteration times are reduced with MAX over
 * ranks, and the median, min and max over iterations are reported.
 * --breakdown: after each timed call every rank reads the call's phase times
 * (XCHG_Comm_get_phase_times); per phase the slowest rank's time per
 * iteration, then the median over iterations (paper Figures 13-16 style).
 * --persistent N and --first-call add, per round and row, one persistent
 * request (init + N starts) or one fresh communicator (bench_setup.c).
 * --skew MIF: imbalanced process arrival patterns, as in Section 3.2 of
 * Qian & Afsahi (Int. J. Parallel Programming 39(4), 2011): after the
 * barrier each rank spins for a delay bounded by MIF x T(S), T(S) the time of
 * one message of S bytes (half the round trip of a ping-pong between ranks 0
 * and 1, fastest of 20, measured per size), then enters the collective. The
 * delays are seeded by (--seed, iteration, rank), so MPI and every algorithm
 * see the same arrival pattern. uniform: each rank U[0, MIF x T); one-late:
 * one rank per iteration (drawn from the seed) MIF x T late, the others on
 * time. median_us becomes the paper's completion time (mean over ranks of
 * exit minus own arrival, median over iterations) and span_us the last exit
 * minus the first arrival (times relative to each rank's barrier exit).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "xchg.h"

#define MAX_SIZES 64

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint64_t skew_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* --skew: this rank's delay (seconds) before call `index` of a row. */
static double skew_delay(const bench_options *o, const bench_workload *w, long index, int rank,
                         int nranks)
{
    double bound = o->skew_mif * w->message_us * 1e-6;
    uint64_t h = skew_mix(o->seed * 0x100000001b3ULL ^ (uint64_t)index);
    if (o->skew_dist == SKEW_ONE_LATE) return (int)(h % (uint64_t)nranks) == rank ? bound : 0;
    uint64_t r = skew_mix(h ^ ((uint64_t)(rank + 1) << 32));
    return bound * (double)(r >> 11) / 9007199254740992.0; /* U[0, bound) */
}

/* --skew: T(S), the time of one S-byte message (XCHG_Comm_message_time: half
 * the round trip of a ping-pong between ranks 0 and 1, fastest of 20),
 * broadcast. P = 1: a model of 1 us + S / (1 GB/s). */
static int measure_message_us(MPI_Comm comm, const bench_workload *w, double *us)
{
    double seconds;
    int rc = XCHG_Comm_message_time(comm, w->size, 20, &seconds);
    *us = seconds * 1e6;
    return rc;
}

/*
 * The timed loop: `warmup` untimed calls, then per iteration barrier, t0, the
 * call, t1, into times[0..count). The per-iteration times become the max over
 * ranks afterwards, so the loop itself has no extra communication.
 * With `phase_times` (--breakdown), the call's phase p goes to
 * phase_times[p * stride + iteration], also as the max over ranks, and
 * *phase_seen gets bit p when any rank reported phase p.
 * With --skew, each rank spins for its delay (seeded by the iteration's
 * index `first_index + it`, so every row sees the same pattern) between the
 * barrier and the call; times[] become the mean over ranks of exit minus own
 * arrival and spans[] the last exit minus the first arrival.
 */
static int bench_time_calls(const bench_options *o, bench_workload *w, int use_mpi,
                            MPI_Comm comm, int warmup, int count, double *times,
                            double *phase_times, int stride, int *phase_seen, long first_index,
                            double *spans)
{
    int rc = MPI_SUCCESS, seen = 0, rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    double *arrive = NULL, *leave = NULL;
    if (o->skew_mif > 0) {
        arrive = malloc(2 * (size_t)(count + 1) * sizeof *arrive);
        if (!arrive) return MPI_ERR_NO_MEM;
        leave = arrive + count + 1;
    }
    for (int it = 0; it < warmup + count && rc == MPI_SUCCESS; it++) {
        PMPI_Barrier(comm);
        double t0 = MPI_Wtime(), tb = t0;
        if (arrive) { /* the arrival pattern: spin (a "random computation") */
            double d = skew_delay(o, w, it < warmup ? -1 - it : first_index + it - warmup, rank,
                                  nranks);
            while ((t0 = MPI_Wtime()) - tb < d) {
            }
        }
        rc = bench_call(o, w, use_mpi, comm);
        double t1 = MPI_Wtime();
        if (it >= warmup) times[it - warmup] = t1 - t0;
        if (it >= warmup && arrive) {
            arrive[it - warmup] = t0 - tb;
            leave[it - warmup] = t1 - tb;
        }
        if (it >= warmup && phase_times) {
            const char *names[16];
            double seconds[16];
            int n = 0;
            if (!use_mpi) XCHG_Comm_get_phase_times(comm, 16, names, seconds, &n);
            for (int p = 0; p < BENCH_NUM_PHASES; p++) phase_times[p * stride + it - warmup] = 0;
            for (int k = 0; k < n; k++) {
                int p = BENCH_NUM_PHASES - 1; /* "other" */
                for (int q = 0; q < BENCH_NUM_PHASES - 1; q++)
                    if (strcmp(names[k], bench_phase_names[q]) == 0) p = q;
                phase_times[p * stride + it - warmup] += seconds[k];
                seen |= 1 << p;
            }
        }
    }
    int failed = rc != MPI_SUCCESS, any_failed = 0;
    PMPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
    if (any_failed) {
        free(arrive);
        return MPI_ERR_OTHER;
    }
    if (arrive) {
        PMPI_Allreduce(MPI_IN_PLACE, times, count, MPI_DOUBLE, MPI_SUM, comm);
        for (int i = 0; i < count; i++) times[i] /= nranks;
        PMPI_Allreduce(MPI_IN_PLACE, arrive, count, MPI_DOUBLE, MPI_MIN, comm);
        PMPI_Allreduce(MPI_IN_PLACE, leave, count, MPI_DOUBLE, MPI_MAX, comm);
        for (int i = 0; i < count; i++) spans[i] = leave[i] - arrive[i];
        free(arrive);
    } else {
        PMPI_Allreduce(MPI_IN_PLACE, times, count, MPI_DOUBLE, MPI_MAX, comm);
    }
    if (phase_times) {
        for (int p = 0; p < BENCH_NUM_PHASES; p++)
            PMPI_Allreduce(MPI_IN_PLACE, phase_times + p * stride, count, MPI_DOUBLE, MPI_MAX, comm);
        PMPI_Allreduce(MPI_IN_PLACE, &seen, 1, MPI_INT, MPI_BOR, comm);
        *phase_seen |= seen;
    }
    return MPI_SUCCESS;
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void summarize(const bench_options *o, double *times, bench_result *r)
{
    qsort(times, (size_t)o->iterations, sizeof *times, compare_doubles);
    int n = o->iterations;
    double median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    r->median_us = median * 1e6;
    r->min_us = times[0] * 1e6;
    r->max_us = times[n - 1] * 1e6;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += times[i];
    r->mean_us = sum / n * 1e6;
}

/* Select the algorithm, run it once and compare with MPI's result; record the
 * full selection string and the scratch peak. Leaves r->status. */
static void check_algorithm(const bench_options *o, bench_workload *w, const char *selection,
                            MPI_Comm comm, bench_result *r)
{
    snprintf(r->algorithm, sizeof r->algorithm, "%s", selection);
    if (XCHG_Comm_set_algorithm(comm, o->coll_name, bench_selection_string(selection)) !=
        MPI_SUCCESS) {
        r->status = ROW_NOT_APPLICABLE; /* deterministic: the same on every rank */
        snprintf(r->message, sizeof r->message, "%s", XCHG_Last_error());
        return;
    }
    bench_clear_recv(w, w->recvbuf);
    int rc = bench_call(o, w, 0, comm);
    char used[256] = "";
    XCHG_Comm_get_algorithm(comm, o->coll_name, 1, 0, used, sizeof used);
    if (used[0] && strcmp(selection, "auto") == 0)
        snprintf(r->algorithm, sizeof r->algorithm, "auto[%s]", used);
    else if (used[0])
        snprintf(r->algorithm, sizeof r->algorithm, "%s", used);
    int local[2] = {rc != MPI_SUCCESS, rc == MPI_SUCCESS &&
                                           memcmp(w->recvbuf, w->refbuf, w->recv_bytes) != 0};
    int global[2];
    PMPI_Allreduce(local, global, 2, MPI_INT, MPI_SUM, comm);
    if (global[0] || global[1]) {
        r->status = global[0] ? ROW_FAILED : ROW_WRONG;
        if (global[0] && local[0])
            snprintf(r->message, sizeof r->message, "on %d rank(s): %s", global[0],
                     XCHG_Last_error());
        else if (global[0])
            snprintf(r->message, sizeof r->message, "the call failed on %d rank(s)", global[0]);
        else
            snprintf(r->message, sizeof r->message,
                     "result differs from MPI's on %d rank(s); no time reported", global[1]);
        return;
    }
    long long peak = 0;
    XCHG_Comm_get_scratch_peak(comm, o->coll_name, &peak);
    PMPI_Allreduce(&peak, &r->scratch_peak, 1, MPI_LONG_LONG, MPI_MAX, comm);
}

/*
 * One size: MPI's own collective gives the reference result; every algorithm
 * is checked against it; then `rounds` rounds each time a slice of the
 * iterations of MPI and of every correct algorithm in turn, so that a change
 * of machine load during the run affects all rows alike (--persistent and
 * --first-call trials join each row's slice). Fills rows[0] (MPI) and
 * rows[1..num_algos].
 */
static int bench_one_size(const bench_options *o, bench_workload *w, const bench_algo_list *algos,
                          MPI_Comm comm, int progress, int progress_base, int progress_total,
                          bench_result *rows)
{
    int num_rows = 1 + algos->count, nranks;
    MPI_Comm_size(comm, &nranks);
    double *times = malloc((size_t)num_rows * (size_t)o->iterations * sizeof *times);
    double *phases = NULL; /* --breakdown: [row][phase][iteration] */
    double *spans = NULL;  /* --skew: [row][iteration] */
    if (o->skew_mif > 0) {
        spans = malloc((size_t)num_rows * (size_t)o->iterations * sizeof *spans);
        if (!spans) {
            free(times);
            return MPI_ERR_NO_MEM;
        }
        int rc = measure_message_us(comm, w, &w->message_us);
        if (rc != MPI_SUCCESS) {
            free(times);
            free(spans);
            return rc;
        }
        int rank;
        MPI_Comm_rank(comm, &rank);
        if (rank == 0)
            fprintf(stderr, "xchg-bench: S=%lld: T(S) = %.2f us, arrival delays up to %g x T = %.3f ms\n",
                    (long long)w->size, w->message_us, o->skew_mif,
                    o->skew_mif * w->message_us * 1e-3);
    }
    if (o->breakdown)
        phases = malloc((size_t)num_rows * BENCH_NUM_PHASES * (size_t)o->iterations * sizeof *phases);
    if (!times || (o->breakdown && !phases)) {
        free(times);
        free(phases);
        free(spans);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < num_rows; i++)
        rows[i] = (bench_result){.size = w->size, .iterations = o->iterations,
                                 .warmup = o->warmup, .is_mpi = i == 0};
    snprintf(rows[0].algorithm, sizeof rows[0].algorithm, "MPI");
    if (!bench_mpi_persistent_available()) {
        rows[0].persist_status = ROW_NOT_APPLICABLE; /* this MPI has none */
    }
    bench_clear_recv(w, w->recvbuf);
    int rc = bench_call(o, w, 1, comm), any_rc;
    PMPI_Allreduce(&rc, &any_rc, 1, MPI_INT, MPI_MAX, comm);
    if (any_rc != MPI_SUCCESS) {
        rows[0].status = ROW_FAILED;
        snprintf(rows[0].message, sizeof rows[0].message, "MPI's own collective failed");
        free(times);
        free(phases);
        free(spans);
        return MPI_ERR_OTHER;
    }
    memcpy(w->refbuf, w->recvbuf, w->recv_bytes);
    long long sent_total = 0;
    PMPI_Allreduce(&w->total_bytes, &sent_total, 1, MPI_LONG_LONG, MPI_SUM, comm);
    for (int i = 0; i < num_rows; i++) rows[i].send_bytes_per_rank = (double)sent_total / nranks;
    for (int a = 0; a < algos->count; a++)
        check_algorithm(o, w, algos->selection[a], comm, &rows[1 + a]);

    int rounds = o->rounds < o->iterations ? o->rounds : o->iterations, done = 0, step = 0;
    /* each row's whole warm-up comes before its first timed call (auto's
     * exploration is over, plans are built); a later round re-warms a row
     * with a share of it after the other rows ran */
    int rewarm = (o->warmup + rounds - 1) / rounds;
    bench_setup setup;
    if (bench_setup_alloc(o, num_rows, rounds, &setup) != MPI_SUCCESS) {
        free(times);
        free(phases);
        free(spans);
        return MPI_ERR_NO_MEM;
    }
    for (int round = 0; round < rounds; round++) {
        int count = o->iterations / rounds + (round < o->iterations % rounds);
        for (int i = 0; i < num_rows; i++, step++) {
            bench_result *r = &rows[i];
            bench_progress(progress, progress_base + step * 1000 / (rounds * num_rows),
                           progress_total, w->size, r->algorithm);
            if (r->status != ROW_OK) continue;
            if (!r->is_mpi) XCHG_Comm_set_algorithm(comm, o->coll_name,
                                                    bench_selection_string(algos->selection[i - 1]));
            double *row_phases =
                phases ? phases + (size_t)i * BENCH_NUM_PHASES * (size_t)o->iterations + done
                       : NULL;
            if (bench_time_calls(o, w, r->is_mpi, comm, round ? rewarm : o->warmup, count,
                                 times + (size_t)i * (size_t)o->iterations + done, row_phases,
                                 o->iterations, &r->phase_seen, done,
                                 spans ? spans + (size_t)i * (size_t)o->iterations + done
                                       : NULL) != MPI_SUCCESS) {
                r->status = ROW_FAILED;
                snprintf(r->message, sizeof r->message, "a timed call failed");
                continue;
            }
            bench_setup_round(o, w, r->is_mpi ? NULL : algos->selection[i - 1], comm, &setup, i,
                              round, r);
            if (!r->is_mpi && strcmp(algos->selection[i - 1], "auto") == 0) {
                /* online selection may have changed it since the check: the last used */
                char used[256] = "";
                XCHG_Comm_get_algorithm(comm, o->coll_name, 1, 0, used, sizeof used);
                if (used[0]) snprintf(r->algorithm, sizeof r->algorithm, "auto[%s]", used);
            }
        }
        done += count;
    }
    for (int i = 0; i < num_rows; i++) {
        if (rows[i].status != ROW_OK) continue;
        summarize(o, times + (size_t)i * (size_t)o->iterations, &rows[i]);
        for (int p = 0; phases && p < BENCH_NUM_PHASES; p++)
            rows[i].phase_us[p] = 1e6 * median_of(phases + ((size_t)i * BENCH_NUM_PHASES + p) *
                                                               (size_t)o->iterations,
                                                  o->iterations);
        rows[i].ratio = rows[0].status == ROW_OK ? rows[i].median_us / rows[0].median_us : 0;
        if (spans) {
            rows[i].span_us = 1e6 * median_of(spans + (size_t)i * (size_t)o->iterations,
                                              o->iterations);
            rows[i].message_us = w->message_us;
        }
        bench_setup_summarize(o, &setup, i, &rows[i]);
    }
    bench_setup_free(&setup);
    free(times);
    free(phases);
    free(spans);
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, nranks, exit_code = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    bench_options opt;
    int parsed = bench_parse_options(argc, argv, &opt, rank);
    if (parsed) {
        MPI_Finalize();
        return parsed == 1 ? 0 : 2;
    }
    MPI_Comm comm;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    bench_run_info info = {.opt = &opt, .size = nranks};
    static char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(library, &len);
    library[strcspn(library, ",\n")] = '\0';
    for (char *c = library; *c; c++)
        if (*c == '\t') *c = ' ';
    snprintf(info.mpi_library, sizeof info.mpi_library, "%.*s",
             (int)sizeof info.mpi_library - 1, library);
    XCHG_Comm_get_topology(comm, &info.num_nodes, &info.topo_virtual, NULL);

    bench_algo_list algos;
    int64_t sizes[MAX_SIZES];
    int num_sizes = bench_sizes(&opt, nranks, sizes, MAX_SIZES);
    if (bench_algos_expand(&opt, nranks, rank, &algos)) {
        MPI_Finalize();
        return 2;
    }
    for (int a = 0; a < algos.count; a++) {
        int w = (int)strlen(algos.selection[a]);
        if (w > info.algo_width) info.algo_width = w;
    }
    if (opt.overlap_levels) {
        exit_code = bench_overlap_main(&opt, &algos, sizes, num_sizes, comm, &info);
        num_sizes = 0; /* no blocking rows */
    }
    int per_size = 1 + algos.count, num_rows = 0;
    bench_result *rows = calloc((size_t)(num_sizes * per_size), sizeof *rows);
    int progress = rank == 0 && (opt.progress || isatty(STDERR_FILENO));
    if (rank == 0 && !opt.overlap_levels) bench_report_header(&info, stdout);

    for (int s = 0; s < num_sizes; s++) {
        bench_workload w;
        int rc = bench_workload_create(&opt, sizes[s], rank, nranks, &w), any_rc;
        PMPI_Allreduce(&rc, &any_rc, 1, MPI_INT, MPI_MAX, comm);
        if (any_rc == MPI_SUCCESS)
            rc = bench_one_size(&opt, &w, &algos, comm, progress, s * 1000, num_sizes * 1000,
                                rows + num_rows);
        bench_workload_free(&w);
        if (any_rc != MPI_SUCCESS || rc != MPI_SUCCESS) {
            if (rank == 0) fprintf(stderr, "xchg-bench: S=%" PRId64 ": %s\n", sizes[s],
                                   any_rc ? "cannot set up the buffers" : "MPI's call failed");
            exit_code = 1;
            break;
        }
        bench_progress(progress, 1, 0, 0, "");
        for (int i = 0; i < per_size; i++, num_rows++) {
            const bench_result *r = &rows[num_rows];
            if (r->status == ROW_WRONG || r->status == ROW_FAILED) exit_code = 1;
            if (r->status == ROW_OK && (r->persist_status == ROW_WRONG ||
                                        r->persist_status == ROW_FAILED ||
                                        r->first_status == ROW_FAILED))
                exit_code = 1;
            if (rank == 0) bench_report_row(&info, &rows[num_rows], stdout);
        }
        if (rank == 0 && s + 1 < num_sizes) printf("\n");
    }
    if (rank == 0 && !opt.overlap_levels) {
        if (num_sizes > 1 && algos.count > 0) bench_report_summary(&info, rows, num_rows, stdout);
        if (opt.persistent) bench_report_persistent_summary(&info, rows, num_rows, stdout);
        if (opt.csv_path && bench_report_csv(&info, rows, num_rows, opt.csv_path))
            fprintf(stderr, "xchg-bench: cannot write %s\n", opt.csv_path), exit_code = 1;
        if (opt.json_path && bench_report_json(&info, rows, num_rows, opt.json_path))
            fprintf(stderr, "xchg-bench: cannot write %s\n", opt.json_path), exit_code = 1;
    }
    free(rows);
    bench_algos_free(&algos);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return exit_code;
}
