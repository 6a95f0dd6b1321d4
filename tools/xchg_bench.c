/*
 * xchg-bench: time xchg's algorithms against MPI's own collective, OSU style.
 *
 *   mpirun -n 8 xchg-bench [-c alltoallv|alltoall|allgather] [-m MIN:MAX]
 *          [-i ITER] [-x WARMUP] [-f] [--algo SPEC]... [--dist D] [--seed N]
 *          [--csv FILE|-] [--json FILE|-] [--progress]
 *
 * For every size S: MPI's own collective (PMPI_*) first, as the reference
 * result and the reference time, then every selected algorithm. Each
 * algorithm's output is compared once per size with MPI's (memcmp of the whole
 * receive buffer, prefilled with a sentinel); a row that differs is reported
 * as wrong and gets no time. Timing: per iteration PMPI_Barrier, t0, the
 * call, t1; after the loop the per-iteration times are reduced with MAX over
 * ranks, and the median, min and max over iterations are reported.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "core/context.h"
#include "xchg.h"

#define MAX_SIZES 64

static void usage(FILE *out)
{
    fprintf(out,
        "usage: mpirun -n P xchg-bench [options]\n"
        "  -c, --coll C         alltoallv (default), alltoall, allgather\n"
        "  -m, --message-size [MIN:]MAX\n"
        "                       sizes S in bytes, powers of two from MIN to MAX (16:16384);\n"
        "                       alltoall/allgather: block per peer; alltoallv: maximum block\n"
        "  -i, --iterations N   timed iterations per size and algorithm (500)\n"
        "  -x, --warmup N       untimed warm-up iterations (50)\n"
        "  -f, --full           also print min and max columns\n"
        "  -a, --algo SPEC      repeatable; default all. SPEC: all | name[:p=v,...] |\n"
        "                       name:p=all | name:p=A..B (B may be P) | name:p=A,B,C\n"
        "                       (p=all: every valid value; unbounded integers: min..P)\n"
        "  -d, --dist D         alltoallv block sizes: uniform (default), normal, powerlaw,\n"
        "                       sparse, fft1, fft2 (fixed sizes, -m ignored)\n"
        "      --seed N         seed of the block sizes (1)\n"
        "      --csv FILE|-     write every row as CSV\n"
        "      --json FILE|-    write every row as JSON\n"
        "      --progress       progress line on stderr (default: when stderr is a tty)\n"
        "  -h, --help\n"
        "ratio = median time / median time of MPI's own collective; < 1 means xchg is faster.\n");
}

static int parse_sizes(const char *text, bench_options *o)
{
    char *end;
    const char *colon = strchr(text, ':');
    if (colon) {
        o->min_size = strtoll(text, &end, 10);
        if (end != colon) return 1;
        text = colon + 1;
    }
    o->max_size = strtoll(text, &end, 10);
    return *end != '\0' || o->min_size < 1 || o->max_size < o->min_size;
}

/* 0: run, 1: exit successfully (help), 2: usage error. */
static int parse_options(int argc, char **argv, bench_options *o, int rank)
{
    enum { OPT_SEED = 256, OPT_CSV, OPT_JSON, OPT_PROGRESS };
    static const struct option longs[] = {
        {"coll", required_argument, 0, 'c'},       {"message-size", required_argument, 0, 'm'},
        {"iterations", required_argument, 0, 'i'}, {"warmup", required_argument, 0, 'x'},
        {"full", no_argument, 0, 'f'},             {"algo", required_argument, 0, 'a'},
        {"dist", required_argument, 0, 'd'},       {"seed", required_argument, 0, OPT_SEED},
        {"csv", required_argument, 0, OPT_CSV},    {"json", required_argument, 0, OPT_JSON},
        {"progress", no_argument, 0, OPT_PROGRESS}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    *o = (bench_options){.coll = XCHG_ALLTOALLV, .coll_name = "alltoallv", .min_size = 16,
                         .max_size = 16384, .iterations = 500, .warmup = 50, .dist = DIST_UNIFORM,
                         .seed = 1};
    opterr = rank == 0;
    int c, bad = 0;
    while ((c = getopt_long(argc, argv, "c:m:i:x:fa:d:h", longs, NULL)) != -1 && !bad) {
        switch (c) {
        case 'c':
            bad = xchg_coll_from_name(optarg, &o->coll) != MPI_SUCCESS;
            o->coll_name = optarg;
            break;
        case 'm': bad = parse_sizes(optarg, o); break;
        case 'i': o->iterations = atoi(optarg); bad = o->iterations < 1; break;
        case 'x': o->warmup = atoi(optarg); bad = o->warmup < 0; break;
        case 'f': o->full = 1; break;
        case 'a':
            bad = o->num_algo_specs >= 64;
            if (!bad) o->algo_specs[o->num_algo_specs++] = optarg;
            break;
        case 'd':
            bad = 1;
            for (int d = 0; d < DIST_COUNT; d++)
                if (strcmp(optarg, bench_dist_names[d]) == 0) o->dist = (bench_dist)d, bad = 0;
            break;
        case OPT_SEED: o->seed = strtoull(optarg, NULL, 10); break;
        case OPT_CSV: o->csv_path = optarg; break;
        case OPT_JSON: o->json_path = optarg; break;
        case OPT_PROGRESS: o->progress = 1; break;
        case 'h':
            if (rank == 0) usage(stdout);
            return 1;
        default: bad = 1;
        }
        if (bad && rank == 0 && c != '?')
            fprintf(stderr, "xchg-bench: bad value for -%c: %s\n", c < 256 ? c : '-', optarg);
    }
    if (!bad && optind < argc) {
        if (rank == 0) fprintf(stderr, "xchg-bench: unexpected argument '%s'\n", argv[optind]);
        bad = 1;
    }
    if (bad && rank == 0) usage(stderr);
    return bad ? 2 : 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
 * The timed loop: warm-up, then per iteration barrier, t0, call, t1. The
 * per-iteration times become the max over ranks afterwards, so the loop itself
 * has no extra communication. (--skew and --breakdown would hook in here.)
 */
static int bench_time_calls(const bench_options *o, bench_workload *w, int use_mpi,
                            MPI_Comm comm, double *times)
{
    int rc = MPI_SUCCESS;
    for (int it = 0; it < o->warmup + o->iterations && rc == MPI_SUCCESS; it++) {
        PMPI_Barrier(comm);
        double t0 = MPI_Wtime();
        rc = bench_call(o, w, use_mpi, comm);
        double t1 = MPI_Wtime();
        if (it >= o->warmup) times[it - o->warmup] = t1 - t0;
    }
    int failed = rc != MPI_SUCCESS, any_failed = 0;
    PMPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
    if (any_failed) return MPI_ERR_OTHER;
    PMPI_Allreduce(MPI_IN_PLACE, times, o->iterations, MPI_DOUBLE, MPI_MAX, comm);
    return MPI_SUCCESS;
}

static void summarize(const bench_options *o, double *times, bench_result *r)
{
    qsort(times, (size_t)o->iterations, sizeof *times, compare_doubles);
    int n = o->iterations;
    double median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    r->median_us = median * 1e6;
    r->min_us = times[0] * 1e6;
    r->max_us = times[n - 1] * 1e6;
}

/* Check one call of the selected algorithm against the reference; then time it. */
static void run_algorithm(const bench_options *o, bench_workload *w, const char *selection,
                          MPI_Comm comm, double *times, double mpi_median_us, bench_result *r)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    snprintf(r->algorithm, sizeof r->algorithm, "%s", selection);
    if (XCHG_Comm_set_algorithm(comm, o->coll_name, selection) != MPI_SUCCESS) {
        r->status = ROW_NOT_APPLICABLE; /* deterministic: the same on every rank */
        snprintf(r->message, sizeof r->message, "%s", XCHG_Last_error());
        return;
    }
    bench_clear_recv(w, w->recvbuf);
    int rc = bench_call(o, w, 0, comm);
    char used[256] = "";
    XCHG_Comm_get_algorithm(comm, o->coll_name, 1, 0, used, sizeof used);
    if (used[0]) snprintf(r->algorithm, sizeof r->algorithm, "%s", used);
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
    if (bench_time_calls(o, w, 0, comm, times) != MPI_SUCCESS) {
        r->status = ROW_FAILED;
        snprintf(r->message, sizeof r->message, "a timed call failed: %s", XCHG_Last_error());
        return;
    }
    summarize(o, times, r);
    r->ratio = r->median_us / mpi_median_us;
    long long peak = 0;
    XCHG_Comm_get_scratch_peak(comm, o->coll_name, &peak);
    PMPI_Allreduce(&peak, &r->scratch_peak, 1, MPI_LONG_LONG, MPI_MAX, comm);
}

int main(int argc, char **argv)
{
    int rank, nranks, exit_code = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    bench_options opt;
    int parsed = parse_options(argc, argv, &opt, rank);
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
    xchg_context *ctx;
    if (xchg_context_get(comm, &ctx) == MPI_SUCCESS) {
        info.num_nodes = ctx->topo.num_nodes;
        info.topo_virtual = ctx->topo.is_virtual;
    }

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
    int per_size = 1 + algos.count, num_rows = 0, total = num_sizes * per_size;
    bench_result *rows = calloc((size_t)total, sizeof *rows);
    double *times = malloc((size_t)opt.iterations * sizeof *times);
    int progress = rank == 0 && (opt.progress || isatty(STDERR_FILENO));
    if (rank == 0) bench_report_header(&info, stdout);

    for (int s = 0; s < num_sizes; s++) {
        bench_workload w;
        int rc = bench_workload_create(&opt, sizes[s], rank, nranks, &w), any_rc;
        PMPI_Allreduce(&rc, &any_rc, 1, MPI_INT, MPI_MAX, comm);
        if (any_rc != MPI_SUCCESS) {
            if (rank == 0) fprintf(stderr, "xchg-bench: cannot set up S=%" PRId64 "\n", sizes[s]);
            bench_workload_free(&w);
            exit_code = 1;
            break;
        }
        /* MPI's own collective: the reference result and time. */
        bench_result *mpi = &rows[num_rows++];
        *mpi = (bench_result){.size = sizes[s], .is_mpi = 1, .iterations = opt.iterations,
                              .warmup = opt.warmup, .ratio = 1.0};
        snprintf(mpi->algorithm, sizeof mpi->algorithm, "MPI");
        bench_progress(progress, s * per_size, total, sizes[s], "MPI");
        bench_clear_recv(&w, w.recvbuf);
        rc = bench_call(&opt, &w, 1, comm);
        memcpy(w.refbuf, w.recvbuf, w.recv_bytes);
        if (rc != MPI_SUCCESS || bench_time_calls(&opt, &w, 1, comm, times) != MPI_SUCCESS) {
            mpi->status = ROW_FAILED;
            snprintf(mpi->message, sizeof mpi->message, "MPI's own collective failed");
            exit_code = 1;
        } else {
            summarize(&opt, times, mpi);
        }
        if (rank == 0) {
            bench_progress(progress, total, total, 0, "");
            bench_report_row(&info, mpi, stdout);
        }
        for (int a = 0; a < algos.count && mpi->status == ROW_OK; a++) {
            bench_result *r = &rows[num_rows++];
            *r = (bench_result){.size = sizes[s], .iterations = opt.iterations,
                                .warmup = opt.warmup};
            bench_progress(progress, s * per_size + 1 + a, total, sizes[s], algos.selection[a]);
            run_algorithm(&opt, &w, algos.selection[a], comm, times, mpi->median_us, r);
            if (r->status == ROW_WRONG || r->status == ROW_FAILED) exit_code = 1;
            if (rank == 0) {
                bench_progress(progress, total, total, 0, "");
                bench_report_row(&info, r, stdout);
            }
        }
        if (rank == 0 && s + 1 < num_sizes) printf("\n");
        bench_workload_free(&w);
    }
    if (rank == 0) {
        if (num_sizes > 1 && algos.count > 0) bench_report_summary(&info, rows, num_rows, stdout);
        if (opt.csv_path && bench_report_csv(&info, rows, num_rows, opt.csv_path))
            fprintf(stderr, "xchg-bench: cannot write %s\n", opt.csv_path), exit_code = 1;
        if (opt.json_path && bench_report_json(&info, rows, num_rows, opt.json_path))
            fprintf(stderr, "xchg-bench: cannot write %s\n", opt.json_path), exit_code = 1;
    }
    free(rows);
    free(times);
    bench_algos_free(&algos);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return exit_code;
}
