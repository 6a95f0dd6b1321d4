/*
 * Output of xchg-bench: the aligned table (rows printed as they are
 * measured), a ratio summary (algorithms x sizes), CSV and JSON with every
 * field, and the progress line on stderr. Only rank 0 calls these.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "xchg.h"

const char *const bench_phase_names[BENCH_NUM_PHASES] = {"gather", "inter-node", "intra-node",
                                                          "scatter", "repack", "other"};

static const char *status_name(bench_status s)
{
    switch (s) {
    case ROW_OK: return "ok";
    case ROW_WRONG: return "wrong-result";
    case ROW_FAILED: return "error";
    default: return "not-applicable";
    }
}

static int algo_width(const bench_run_info *info)
{
    return info->algo_width > 9 ? info->algo_width : 9;
}

void bench_report_header(const bench_run_info *info, FILE *out)
{
    const bench_options *o = info->opt;
    fprintf(out, "# xchg-bench %d.%d.%d: %s", XCHG_VERSION_MAJOR, XCHG_VERSION_MINOR,
            XCHG_VERSION_PATCH, o->coll_name);
    if (bench_coll_is_v(o->coll) || o->coll == BENCH_ALLGATHERV)
        fprintf(out, ", dist=%s, seed=%" PRIu64, bench_dist_names[o->dist], o->seed);
    fprintf(out, ", P=%d on %d %s node(s)\n", info->size, info->num_nodes,
            info->topo_virtual ? "virtual" : "real");
    fprintf(out, "# MPI: %s\n", info->mpi_library);
    fprintf(out, "# S = %s, %s\n",
            bench_coll_is_v(o->coll)      ? "maximum block size in bytes (blocks vary per --dist)"
            : o->coll == BENCH_ALLGATHERV ? "largest contribution in bytes (contributions vary "
                                           "per --dist)"
                                         : "block size in bytes per peer",
            o->coll == BENCH_ALLTOALLW ? "a vector datatype per peer (8-byte runs, stride 16)"
                                      : "MPI_BYTE data");
    int rounds = o->rounds < o->iterations ? o->rounds : o->iterations;
    fprintf(out, "# %d iterations in %d interleaved rounds (MPI, then every algorithm, in turn),\n"
                 "# %d warm-up calls per row before its first round, %d before each later one;\n"
                 "# barrier before each call; an iteration's time is the slowest rank's;\n"
                 "# median/min/max over iterations in microseconds\n",
            o->iterations, rounds, o->warmup, rounds > 0 ? (o->warmup + rounds - 1) / rounds : 0);
    fprintf(out, "# ratio = median / median of MPI's own MPI_%s in the same run:\n"
                 "#   ratio < 1.00 means xchg is faster than MPI, > 1.00 slower\n",
            o->coll == BENCH_ALLTOALLV    ? "Alltoallv"
            : o->coll == BENCH_ALLTOALLW  ? "Alltoallw"
            : o->coll == BENCH_ALLTOALL   ? "Alltoall"
            : o->coll == BENCH_ALLGATHERV ? "Allgatherv"
                                         : "Allgather");
    fprintf(out, "# scratch = peak scratch memory of the call (bytes, max over ranks)\n");
    if (o->skew_mif > 0)
        fprintf(out, "# --skew %g, %s: after the barrier %s before the\n"
                     "#   call, T(S) = one S-byte message (ping-pong, msg_us); median_us is the\n"
                     "#   completion time (mean over ranks of exit - own arrival), span_us the last\n"
                     "#   exit - first arrival, medians over iterations (Qian & Afsahi, Sect. 3.2)\n",
                o->skew_mif, o->skew_dist == SKEW_ONE_LATE ? "one-late" : "uniform",
                o->skew_dist == SKEW_ONE_LATE ? "one seeded rank per call waits MIF x T(S)"
                                              : "each rank waits U[0, MIF x T(S))");
    if (o->breakdown)
        fprintf(out, "# --breakdown: per phase, the slowest rank's time in each iteration, median\n"
                     "#   over iterations (us); ranks wait inside phases, so phases need not add up\n");
    if (o->persistent)
        fprintf(out, "# --persistent %d: per round one request, init then %d starts (Start + Wait),\n"
                     "#   each timed like a blocking call; medians: init_us, start1_us (first start),\n"
                     "#   start_us (all starts), call_us = (init + %d starts) / %d per round;\n"
                     "#   call/blk = call_us / median_us (the blocking call with its cached plan);\n"
                     "#   MPI row: %s\n",
                o->persistent, o->persistent, o->persistent, o->persistent,
                bench_mpi_persistent_name());
    if (o->first_call)
        fprintf(out, "# --first-call: per round a fresh MPI_Comm_dup; medians: ctx_us (set the\n"
                     "#   algorithm: creates xchg's context), first_us (first call: builds the plan),\n"
                     "#   second_us (second call: cached plan)\n");
    fprintf(out, "#\n");
    fprintf(out, "%8s  %-*s %11s", "S", algo_width(info), "algorithm", "median_us");
    if (o->full) fprintf(out, " %11s %11s", "min_us", "max_us");
    fprintf(out, " %7s %10s", "ratio", "scratch");
    if (o->skew_mif > 0) fprintf(out, " %11s %9s", "span_us", "msg_us");
    if (o->persistent)
        fprintf(out, " %10s %10s %10s %10s %8s", "init_us", "start1_us", "start_us", "call_us",
                "call/blk");
    if (o->first_call) fprintf(out, " %10s %10s %10s", "ctx_us", "first_us", "second_us");
    fprintf(out, "\n");
    fflush(out);
}

/* The --persistent and --first-call columns of one row. */
static void report_setup(const bench_options *o, const bench_result *r, FILE *out)
{
    if (o->persistent && r->persist_status == ROW_OK)
        fprintf(out, " %10.2f %10.2f %10.2f %10.2f %8.2f", r->init_us, r->first_start_us,
                r->start_us, r->per_call_us, r->per_call_us / r->median_us);
    else if (o->persistent)
        fprintf(out, " %54s", r->persist_status == ROW_NOT_APPLICABLE ? "persistent: n/a"
                              : r->persist_status == ROW_WRONG        ? "persistent: WRONG"
                                                                      : "persistent: ERROR");
    if (o->first_call && r->first_status == ROW_OK) {
        if (isnan(r->ctx_us)) fprintf(out, " %10s", "-");
        else fprintf(out, " %10.2f", r->ctx_us);
        fprintf(out, " %10.2f %10.2f", r->first_us, r->second_us);
    } else if (o->first_call) {
        fprintf(out, " %32s", "first-call: ERROR");
    }
}

void bench_report_row(const bench_run_info *info, const bench_result *r, FILE *out)
{
    fprintf(out, "%8" PRId64 "  %-*s ", r->size, algo_width(info), r->algorithm);
    if (r->status != ROW_OK) {
        fprintf(out, "%s: %s\n", status_name(r->status), r->message);
    } else {
        fprintf(out, "%11.2f", r->median_us);
        if (info->opt->full) fprintf(out, " %11.2f %11.2f", r->min_us, r->max_us);
        fprintf(out, " %7.2f %10lld", r->ratio, r->scratch_peak);
        if (info->opt->skew_mif > 0) fprintf(out, " %11.2f %9.2f", r->span_us, r->message_us);
        report_setup(info->opt, r, out);
        for (int p = 0; info->opt->breakdown && p < BENCH_NUM_PHASES; p++)
            if (r->phase_seen & (1 << p))
                fprintf(out, " %s=%.2f", bench_phase_names[p], r->phase_us[p]);
        fprintf(out, "\n");
    }
    fflush(out);
}

static void format_size(int64_t s, char *buf, size_t len)
{
    if (s >= 1048576 && s % 1048576 == 0) snprintf(buf, len, "%" PRId64 "M", s / 1048576);
    else if (s >= 1024 && s % 1024 == 0) snprintf(buf, len, "%" PRId64 "K", s / 1024);
    else snprintf(buf, len, "%" PRId64, s);
}

static double blocking_ratio(const bench_result *r) { return r->ratio; }
static double call_ratio(const bench_result *r) { return r->per_call_us / r->median_us; }
static double start_ratio(const bench_result *r) { return r->start_us / r->median_us; }

/* The summary's cell for r: "WRONG", "ERROR", "n/a", or ok. */
static const char *cell_status(const bench_result *r, int persistent)
{
    bench_status st = r->status == ROW_OK && persistent ? r->persist_status : r->status;
    return st == ROW_OK ? NULL : st == ROW_WRONG ? "WRONG" : st == ROW_FAILED ? "ERROR" : "n/a";
}

/* Rows of one algorithm at different sizes; `auto` rows are one line
 * whatever they chose ("auto[mpi]", "auto[nonblocking]"). */
static int same_line(const char *a, const char *b)
{
    return strcmp(a, b) == 0 || (strncmp(a, "auto[", 5) == 0 && strncmp(b, "auto[", 5) == 0);
}

/* One grid: a line per algorithm (the MPI row too when `persistent`), a
 * column per size, value(r) in the cells; '*' marks the smallest value of
 * each size when `mark`. */
static void summary_grid(const bench_run_info *info, const bench_result *rows, int num_rows,
                         int persistent, double (*value)(const bench_result *), int mark,
                         FILE *out)
{
    int64_t sizes[64];
    int num_sizes = 0;
    for (int i = 0; i < num_rows; i++)
        if (num_sizes == 0 || sizes[num_sizes - 1] != rows[i].size)
            if (num_sizes < 64) sizes[num_sizes++] = rows[i].size;
    fprintf(out, "%-*s", algo_width(info), "algorithm \\ S");
    for (int s = 0; s < num_sizes; s++) {
        char label[32];
        format_size(sizes[s], label, sizeof label);
        fprintf(out, " %7s", label);
    }
    fprintf(out, "\n");
    for (int i = 0; i < num_rows; i++) {
        if (rows[i].size != sizes[0] || (rows[i].is_mpi && !persistent)) continue;
        fprintf(out, "%-*s", algo_width(info),
                strncmp(rows[i].algorithm, "auto[", 5) == 0 ? "auto" : rows[i].algorithm);
        for (int s = 0; s < num_sizes; s++) {
            const bench_result *r = NULL, *best = NULL;
            for (int j = 0; j < num_rows; j++) {
                if (rows[j].size != sizes[s] || (rows[j].is_mpi && !persistent)) continue;
                if (same_line(rows[j].algorithm, rows[i].algorithm)) r = &rows[j];
                if (!cell_status(&rows[j], persistent) && (!best || value(&rows[j]) < value(best)))
                    best = &rows[j];
            }
            if (!r) fprintf(out, " %7s", "-");
            else if (cell_status(r, persistent)) fprintf(out, " %7s", cell_status(r, persistent));
            else fprintf(out, " %6.2f%c", value(r), mark && r == best ? '*' : ' ');
        }
        fprintf(out, "\n");
    }
}

/* Ratios, one line per algorithm and one column per size; '*' marks the
 * fastest xchg algorithm of each size. */
void bench_report_summary(const bench_run_info *info, const bench_result *rows, int num_rows,
                          FILE *out)
{
    fprintf(out, "\n# Summary: ratio to MPI's own %s (< 1.00: xchg faster; * fastest per S)\n",
            info->opt->coll_name);
    summary_grid(info, rows, num_rows, 0, blocking_ratio, 1, out);
    /* auto against MPI's own and against the fastest row (MPI's included) */
    double worst_mpi = 0, worst_best = 0;
    int64_t at_mpi = 0, at_best = 0;
    for (int i = 0; i < num_rows; i++) {
        if (strncmp(rows[i].algorithm, "auto[", 5) != 0 || cell_status(&rows[i], 0)) continue;
        double best = 0;
        for (int j = 0; j < num_rows; j++)
            if (rows[j].size == rows[i].size && !cell_status(&rows[j], 0) &&
                (best == 0 || rows[j].median_us < best))
                best = rows[j].median_us;
        if (rows[i].ratio > worst_mpi) worst_mpi = rows[i].ratio, at_mpi = rows[i].size;
        if (best > 0 && rows[i].median_us / best > worst_best)
            worst_best = rows[i].median_us / best, at_best = rows[i].size;
    }
    if (worst_mpi > 0)
        fprintf(out, "# auto: at most %.2fx MPI's own (S=%lld), at most %.2fx the fastest row "
                     "(S=%lld)\n", worst_mpi, (long long)at_mpi, worst_best, (long long)at_best);
    fflush(out);
}

/* --persistent: per-call time and start time over the blocking median. */
void bench_report_persistent_summary(const bench_run_info *info, const bench_result *rows,
                                     int num_rows, FILE *out)
{
    fprintf(out, "\n# Persistent: call_us / blocking median_us, call_us = (init + %d starts) / %d\n"
                 "#   (< 1.00: the request pays off over %d calls)\n",
            info->opt->persistent, info->opt->persistent, info->opt->persistent);
    summary_grid(info, rows, num_rows, 1, call_ratio, 0, out);
    fprintf(out, "\n# Persistent: median start_us / blocking median_us (start alone vs the call)\n");
    summary_grid(info, rows, num_rows, 1, start_ratio, 0, out);
    fflush(out);
}

static FILE *open_output(const char *path)
{
    return strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
}

static void close_output(FILE *f)
{
    if (f == stdout) fflush(f);
    else fclose(f);
}

/* The --persistent and --first-call columns of one CSV row. */
static void csv_setup(const bench_options *o, const bench_result *r, FILE *f)
{
    int ok = r->status == ROW_OK;
    if (o->persistent) {
        fprintf(f, ",%d,%s", o->persistent, status_name(ok ? r->persist_status : r->status));
        if (ok && r->persist_status == ROW_OK)
            fprintf(f, ",%.3f,%.3f,%.3f,%.3f,%.4f,%.4f", r->init_us, r->first_start_us,
                    r->start_us, r->per_call_us, r->per_call_us / r->median_us,
                    r->start_us / r->median_us);
        else fprintf(f, ",,,,,,");
        if (ok) fprintf(f, ",%.3f", r->mean_us);
        else fprintf(f, ",");
    }
    if (o->first_call) {
        fprintf(f, ",%s", status_name(ok ? r->first_status : r->status));
        if (ok && r->first_status == ROW_OK) {
            if (isnan(r->ctx_us)) fprintf(f, ",");
            else fprintf(f, ",%.3f", r->ctx_us);
            fprintf(f, ",%.3f,%.3f", r->first_us, r->second_us);
        } else fprintf(f, ",,,");
    }
}

int bench_report_csv(const bench_run_info *info, const bench_result *rows, int num_rows,
                     const char *path)
{
    FILE *f = open_output(path);
    if (!f) return 1;
    const bench_options *o = info->opt;
    fprintf(f, "coll,dist,seed,P,nodes,virtual_nodes,S_bytes,algorithm,status,median_us,min_us,"
               "max_us,ratio,iterations,warmup,scratch_peak_bytes,send_bytes_per_rank,message,mpi_library");
    for (int p = 0; o->breakdown && p < BENCH_NUM_PHASES; p++)
        fprintf(f, ",%s_us", bench_phase_names[p]);
    if (o->persistent)
        fprintf(f, ",persistent_starts,persistent_status,init_us,first_start_us,start_us,"
                   "per_call_us,per_call_ratio,start_ratio,blocking_mean_us");
    if (o->first_call) fprintf(f, ",first_call_status,context_us,first_call_us,second_call_us");
    if (o->skew_mif > 0) fprintf(f, ",skew_mif,skew_dist,message_us,span_us");
    fprintf(f, "\n");
    for (int i = 0; i < num_rows; i++) {
        const bench_result *r = &rows[i];
        fprintf(f, "%s,%s,%" PRIu64 ",%d,%d,%d,%" PRId64 ",\"%s\",%s,", o->coll_name,
                bench_coll_is_v(o->coll) || o->coll == BENCH_ALLGATHERV ? bench_dist_names[o->dist] : "",
                o->seed, info->size,
                info->num_nodes, info->topo_virtual, r->size, r->algorithm, status_name(r->status));
        if (r->status == ROW_OK)
            fprintf(f, "%.3f,%.3f,%.3f,%.4f,", r->median_us, r->min_us, r->max_us, r->ratio);
        else fprintf(f, ",,,,");
        fprintf(f, "%d,%d,%lld,%.1f,\"", r->iterations, r->warmup, r->scratch_peak,
                r->send_bytes_per_rank);
        for (const char *c = r->message; *c; c++) fprintf(f, *c == '"' ? "\"\"" : "%c", *c);
        fprintf(f, "\",\"%s\"", info->mpi_library);
        for (int p = 0; o->breakdown && p < BENCH_NUM_PHASES; p++)
            if (r->status == ROW_OK && (r->phase_seen & (1 << p))) fprintf(f, ",%.3f", r->phase_us[p]);
            else fprintf(f, ",");
        csv_setup(o, r, f);
        if (o->skew_mif > 0) {
            fprintf(f, ",%g,%s", o->skew_mif, o->skew_dist == SKEW_ONE_LATE ? "one-late" : "uniform");
            if (r->status == ROW_OK) fprintf(f, ",%.3f,%.3f", r->message_us, r->span_us);
            else fprintf(f, ",,");
        }
        fprintf(f, "\n");
    }
    close_output(f);
    return 0;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned char)*s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

/* The --persistent and --first-call objects of one JSON row. */
static void json_setup(const bench_options *o, const bench_result *r, FILE *f)
{
    int ok = r->status == ROW_OK;
    if (o->persistent) {
        fprintf(f, ", \"persistent\": {\"starts\": %d, \"status\": \"%s\"", o->persistent,
                status_name(ok ? r->persist_status : r->status));
        if (ok && r->persist_status == ROW_OK)
            fprintf(f, ", \"init_us\": %.3f, \"first_start_us\": %.3f, \"start_us\": %.3f, "
                       "\"per_call_us\": %.3f, \"per_call_ratio\": %.4f, \"start_ratio\": %.4f",
                    r->init_us, r->first_start_us, r->start_us, r->per_call_us,
                    r->per_call_us / r->median_us, r->start_us / r->median_us);
        if (ok) fprintf(f, ", \"blocking_mean_us\": %.3f", r->mean_us);
        fprintf(f, "}");
    }
    if (o->first_call) {
        fprintf(f, ", \"first_call\": {\"status\": \"%s\"",
                status_name(ok ? r->first_status : r->status));
        if (ok && r->first_status == ROW_OK) {
            if (!isnan(r->ctx_us)) fprintf(f, ", \"context_us\": %.3f", r->ctx_us);
            fprintf(f, ", \"first_call_us\": %.3f, \"second_call_us\": %.3f", r->first_us,
                    r->second_us);
        }
        fprintf(f, "}");
    }
}

int bench_report_json(const bench_run_info *info, const bench_result *rows, int num_rows,
                      const char *path)
{
    FILE *f = open_output(path);
    if (!f) return 1;
    const bench_options *o = info->opt;
    fprintf(f, "{\n  \"tool\": \"xchg-bench\",\n  \"coll\": \"%s\",\n  \"dist\": ", o->coll_name);
    json_string(f, bench_coll_is_v(o->coll) || o->coll == BENCH_ALLGATHERV ? bench_dist_names[o->dist]
                                                                         : "");
    fprintf(f, ",\n  \"seed\": %" PRIu64 ",\n  \"P\": %d,\n  \"nodes\": %d,\n"
               "  \"virtual_nodes\": %s,\n  \"iterations\": %d,\n  \"warmup\": %d,\n  \"rounds\": %d,\n"
               "  \"persistent_starts\": %d,\n  \"mpi_persistent\": \"%s\",\n  \"mpi_library\": ",
            o->seed, info->size, info->num_nodes, info->topo_virtual ? "true" : "false",
            o->iterations, o->warmup, o->rounds, o->persistent, bench_mpi_persistent_name());
    json_string(f, info->mpi_library);
    fprintf(f, ",\n  \"results\": [\n");
    for (int i = 0; i < num_rows; i++) {
        const bench_result *r = &rows[i];
        fprintf(f, "    {\"coll\": \"%s\", \"dist\": ", o->coll_name);
        json_string(f, bench_coll_is_v(o->coll) || o->coll == BENCH_ALLGATHERV
                           ? bench_dist_names[o->dist]
                           : "");
        fprintf(f, ", \"P\": %d, \"nodes\": %d, \"S\": %" PRId64 ", \"algorithm\": ", info->size,
                info->num_nodes, r->size);
        json_string(f, r->algorithm);
        fprintf(f, ", \"status\": \"%s\", ", status_name(r->status));
        if (r->status == ROW_OK)
            fprintf(f, "\"median_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f, \"ratio\": %.4f, ",
                    r->median_us, r->min_us, r->max_us, r->ratio);
        else
            fprintf(f, "\"median_us\": null, \"min_us\": null, \"max_us\": null, \"ratio\": null, ");
        fprintf(f, "\"iterations\": %d, \"warmup\": %d, \"scratch_peak_bytes\": %lld, "
                   "\"send_bytes_per_rank\": %.1f, \"message\": ",
                r->iterations, r->warmup, r->scratch_peak, r->send_bytes_per_rank);
        json_string(f, r->message);
        if (o->breakdown && r->status == ROW_OK) {
            fprintf(f, ", \"phases_us\": {");
            for (int p = 0, first = 1; p < BENCH_NUM_PHASES; p++)
                if (r->phase_seen & (1 << p)) {
                    fprintf(f, "%s\"%s\": %.3f", first ? "" : ", ", bench_phase_names[p], r->phase_us[p]);
                    first = 0;
                }
            fprintf(f, "}");
        }
        json_setup(o, r, f);
        fprintf(f, "}%s\n", i + 1 < num_rows ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    close_output(f);
    return 0;
}

/* `done` of `total` work units; done >= total clears the line. */
void bench_progress(int enabled, int done, int total, int64_t size, const char *algo)
{
    if (!enabled) return;
    if (done >= total)
        fprintf(stderr, "\r%-79s\r", "");
    else
        fprintf(stderr, "\r[%3d%%] S=%-8" PRId64 " %-55.55s", (int)(100LL * done / total), size,
                algo);
    fflush(stderr);
}
