/*
 * Output of xchg-bench: the aligned table (rows printed as they are
 * measured), a ratio summary (algorithms x sizes), CSV and JSON with every
 * field, and the progress line on stderr. Only rank 0 calls these.
 */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "xchg.h"

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
    if (o->coll == XCHG_ALLTOALLV)
        fprintf(out, ", dist=%s, seed=%" PRIu64, bench_dist_names[o->dist], o->seed);
    fprintf(out, ", P=%d on %d %s node(s)\n", info->size, info->num_nodes,
            info->topo_virtual ? "virtual" : "real");
    fprintf(out, "# MPI: %s\n", info->mpi_library);
    fprintf(out, "# S = %s, MPI_BYTE data\n",
            o->coll == XCHG_ALLTOALLV ? "maximum block size in bytes (blocks vary per --dist)"
                                      : "block size in bytes per peer");
    fprintf(out, "# %d iterations in %d interleaved rounds (MPI, then every algorithm, in turn),\n"
                 "# %d warm-up calls; barrier before each call; an iteration's time is the\n"
                 "# slowest rank's; median/min/max over iterations in microseconds\n",
            o->iterations, o->rounds < o->iterations ? o->rounds : o->iterations, o->warmup);
    fprintf(out, "# ratio = median / median of MPI's own MPI_%s in the same run:\n"
                 "#   ratio < 1.00 means xchg is faster than MPI, > 1.00 slower\n",
            o->coll == XCHG_ALLTOALLV ? "Alltoallv" : o->coll == XCHG_ALLTOALL ? "Alltoall"
                                                                               : "Allgather");
    fprintf(out, "# scratch = peak scratch memory of the call (bytes, max over ranks)\n#\n");
    fprintf(out, "%8s  %-*s %11s", "S", algo_width(info), "algorithm", "median_us");
    if (o->full) fprintf(out, " %11s %11s", "min_us", "max_us");
    fprintf(out, " %7s %10s\n", "ratio", "scratch");
    fflush(out);
}

void bench_report_row(const bench_run_info *info, const bench_result *r, FILE *out)
{
    fprintf(out, "%8" PRId64 "  %-*s ", r->size, algo_width(info), r->algorithm);
    if (r->status != ROW_OK) {
        fprintf(out, "%s: %s\n", status_name(r->status), r->message);
    } else {
        fprintf(out, "%11.2f", r->median_us);
        if (info->opt->full) fprintf(out, " %11.2f %11.2f", r->min_us, r->max_us);
        fprintf(out, " %7.2f %10lld\n", r->ratio, r->scratch_peak);
    }
    fflush(out);
}

static void format_size(int64_t s, char *buf, size_t len)
{
    if (s >= 1048576 && s % 1048576 == 0) snprintf(buf, len, "%" PRId64 "M", s / 1048576);
    else if (s >= 1024 && s % 1024 == 0) snprintf(buf, len, "%" PRId64 "K", s / 1024);
    else snprintf(buf, len, "%" PRId64, s);
}

/* Ratios, one line per algorithm and one column per size; '*' marks the
 * fastest xchg algorithm of each size. */
void bench_report_summary(const bench_run_info *info, const bench_result *rows, int num_rows,
                          FILE *out)
{
    int64_t sizes[64];
    int num_sizes = 0;
    for (int i = 0; i < num_rows; i++)
        if (num_sizes == 0 || sizes[num_sizes - 1] != rows[i].size)
            if (num_sizes < 64) sizes[num_sizes++] = rows[i].size;
    fprintf(out, "\n# Summary: ratio to MPI's own %s (< 1.00: xchg faster; * fastest per S)\n",
            info->opt->coll_name);
    fprintf(out, "%-*s", algo_width(info), "algorithm \\ S");
    for (int s = 0; s < num_sizes; s++) {
        char label[32];
        format_size(sizes[s], label, sizeof label);
        fprintf(out, " %7s", label);
    }
    fprintf(out, "\n");
    for (int i = 0; i < num_rows; i++) {
        if (rows[i].size != sizes[0] || rows[i].is_mpi) continue;
        fprintf(out, "%-*s", algo_width(info), rows[i].algorithm);
        for (int s = 0; s < num_sizes; s++) {
            const bench_result *r = NULL, *best = NULL;
            for (int j = 0; j < num_rows; j++) {
                if (rows[j].size != sizes[s] || rows[j].is_mpi) continue;
                if (strcmp(rows[j].algorithm, rows[i].algorithm) == 0) r = &rows[j];
                if (rows[j].status == ROW_OK && (!best || rows[j].ratio < best->ratio))
                    best = &rows[j];
            }
            if (!r) fprintf(out, " %7s", "-");
            else if (r->status == ROW_OK)
                fprintf(out, " %6.2f%c", r->ratio, r == best ? '*' : ' ');
            else fprintf(out, " %7s", r->status == ROW_WRONG ? "WRONG" : r->status == ROW_FAILED
                                                                           ? "ERROR" : "n/a");
        }
        fprintf(out, "\n");
    }
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

int bench_report_csv(const bench_run_info *info, const bench_result *rows, int num_rows,
                     const char *path)
{
    FILE *f = open_output(path);
    if (!f) return 1;
    const bench_options *o = info->opt;
    fprintf(f, "coll,dist,seed,P,nodes,virtual_nodes,S_bytes,algorithm,status,median_us,min_us,"
               "max_us,ratio,iterations,warmup,scratch_peak_bytes,send_bytes_per_rank,message,mpi_library\n");
    for (int i = 0; i < num_rows; i++) {
        const bench_result *r = &rows[i];
        fprintf(f, "%s,%s,%" PRIu64 ",%d,%d,%d,%" PRId64 ",\"%s\",%s,", o->coll_name,
                o->coll == XCHG_ALLTOALLV ? bench_dist_names[o->dist] : "", o->seed, info->size,
                info->num_nodes, info->topo_virtual, r->size, r->algorithm, status_name(r->status));
        if (r->status == ROW_OK)
            fprintf(f, "%.3f,%.3f,%.3f,%.4f,", r->median_us, r->min_us, r->max_us, r->ratio);
        else fprintf(f, ",,,,");
        fprintf(f, "%d,%d,%lld,%.1f,\"", r->iterations, r->warmup, r->scratch_peak,
                r->send_bytes_per_rank);
        for (const char *c = r->message; *c; c++) fprintf(f, *c == '"' ? "\"\"" : "%c", *c);
        fprintf(f, "\",\"%s\"\n", info->mpi_library);
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

int bench_report_json(const bench_run_info *info, const bench_result *rows, int num_rows,
                      const char *path)
{
    FILE *f = open_output(path);
    if (!f) return 1;
    const bench_options *o = info->opt;
    fprintf(f, "{\n  \"tool\": \"xchg-bench\",\n  \"coll\": \"%s\",\n  \"dist\": ", o->coll_name);
    json_string(f, o->coll == XCHG_ALLTOALLV ? bench_dist_names[o->dist] : "");
    fprintf(f, ",\n  \"seed\": %" PRIu64 ",\n  \"P\": %d,\n  \"nodes\": %d,\n"
               "  \"virtual_nodes\": %s,\n  \"iterations\": %d,\n  \"warmup\": %d,\n  \"rounds\": %d,\n"
               "  \"mpi_library\": ",
            o->seed, info->size, info->num_nodes, info->topo_virtual ? "true" : "false",
            o->iterations, o->warmup, o->rounds);
    json_string(f, info->mpi_library);
    fprintf(f, ",\n  \"results\": [\n");
    for (int i = 0; i < num_rows; i++) {
        const bench_result *r = &rows[i];
        fprintf(f, "    {\"coll\": \"%s\", \"dist\": ", o->coll_name);
        json_string(f, o->coll == XCHG_ALLTOALLV ? bench_dist_names[o->dist] : "");
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
