/*
 * xchg-fft3d: a complex-to-complex double 3-D FFT with a pencil
 * decomposition whose two transposes are alltoallv exchanges run through
 * xchg, one row per algorithm: the non-uniform all-to-all pattern of the
 * parallel FFT (Fan, Domke, Ba, Kumar, "Configurable Non-uniform All-to-all
 * Algorithms", section 6.1; the pencil scheme is heFFTe's: Ayala, Tomov,
 * Haidar, Dongarra, "heFFTe: Highly Efficient FFT for Exascale", ICCS 2020).
 *
 * The N0 x N1 x N2 grid (x, y, z) is cut over a Pr x Pc process grid in
 * blocks, the first ranks of a dimension one value more (pencil.h): z-pencils
 * (x over Pr, y over Pc), FFT along z (FFTW, fftw_plan_many_dft), transpose
 * within the row communicator (Pc ranks) to y-pencils, FFT along y,
 * transpose within the column communicator (Pr ranks) to x-pencils, FFT
 * along x. Sizes that Pr and Pc do not divide (the default 31x29x27) give
 * blocks of different sizes: non-uniform alltoallv counts. Each transpose
 * packs into one contiguous block per peer and unpacks after (no derived
 * datatypes).
 *
 * Cost per transform and rank: 5 (N/P) log2 N flops of FFT, about 4 N/P
 * complex copies of pack/unpack, and two alltoallv of about N/P complex
 * values (16 bytes each) with Pc and Pr peers (N = N0 N1 N2). Memory: six
 * arrays of about N/P complex values per rank; with the serial check rank 0
 * also holds 2 N (reference, gathered result).
 *
 * Rows (CSV on stdout, notes on stderr):
 *   every xchg selection string of --algos ("auto": no choice set, xchg's
 *     automatic selection): the transposes through xchg,
 *     --exchange=persistent (default; XCHG_Alltoallv_init once per
 *     transpose and direction, XCHG_Start + XCHG_Wait each transform) or
 *     blocking (XCHG_Alltoallv each transform);
 *   MPI_Alltoallv: the same transform, MPI_Alltoallv called directly;
 *   fftw-mpi: FFTW's own fftw_mpi_plan_dft_3d (slab decomposition, its own
 *     transposes), time per transform only (built with libfftw3-mpi only).
 * Times: `--warmup` transforms, then `--iters` timed ones, each after a
 * barrier; per rank the median over the timed transforms of the total, of
 * the time inside the alltoallv calls (exchange_s) and of the rest (FFT +
 * pack/unpack, compute_s), then the maximum over ranks of each (so
 * exchange_s + compute_s need not equal total_s). init_s: the four
 * XCHG_Alltoallv_init calls (persistent), max over ranks.
 *
 * Checks (exit status 1 and a "FAIL ..." line on stderr on any mismatch): after each
 * row's timings one more forward transform of the deterministic
 * pseudo-random input is compared with a serial FFTW 3-D transform of the
 * whole grid on rank 0 (result gathered; for grids of at most --check-max
 * points), and the backward transform of it, divided by N, with the input
 * (always): relative norm-wise errors below --tol. The fftw-mpi row is
 * checked the same way. --inject-error adds 1 to one output value (the last
 * rank's first) before the checks of every row, which must then fail.
 *
 * usage: mpirun -n P xchg-fft3d [--n=31x29x27] [--grid=PrxPc]
 *          [--algos=auto,mpi,pairwise,scattered,parlogna,parlogna:radix=4,
 *                   parlinna_coalesced,node_aware]
 *          [--baselines=MPI_Alltoallv,fftw-mpi|none]
 *          [--exchange=persistent|blocking] [--iters=20] [--warmup=3]
 *          [--check-max=2097152] [--no-serial-check] [--tol=1e-10]
 *          [--fftw=estimate|measure] [--no-header] [--inject-error]
 * --n=N is an N x N x N grid; --grid defaults to MPI_Dims_create(P, 2). In
 * --algos, write the commas of one selection string as ';'
 * ("parlogna:radix=4;bounce=copy").
 * CSV columns: n,P,grid,algo,total_s,exchange_s,compute_s,checked,mode,
 * init_s (checked: serial+inverse, inverse (serial check skipped), FAIL).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft_check.h"
#include "fft_util.h"
#include "batch.h"
#include "fftw_mpi_baseline.h"
#include "pencil.h"

static int rank, nranks;

typedef struct options {
    int n[3], pr, pc;
    char algos[1024], baselines[256];
    enum fft_mode mode;
    int iters, warmup, header, inject;
    int serial; /* the serial check runs (N0 N1 N2 <= check_max) */
    long long check_max;
    double tol;
    unsigned fftw_flags;
    int pipeline;      /* --pipeline=B: batches of B fields, "batch" and "pipeline" rows */
    double sim_flops;  /* --sim-flops=F (SMPI): modelled FFT speed, flop/s */
} options;

#define DEFAULT_ALGOS "auto,mpi,pairwise,scattered,parlogna,parlogna:radix=4,parlinna_coalesced,node_aware"

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr,
                "usage: xchg-fft3d [--n=N0xN1xN2] [--grid=PrxPc]\n"
                "  [--algos=" DEFAULT_ALGOS "]\n"
                "  [--baselines=MPI_Alltoallv,fftw-mpi|none] [--exchange=persistent|blocking]\n"
                "  [--iters=20] [--warmup=3] [--check-max=2097152] [--no-serial-check]\n"
                "  [--tol=1e-10] [--fftw=estimate|measure] [--no-header] [--inject-error]\n"
                "  [--pipeline=B [--sim-flops=F]]\n");
    MPI_Finalize();
    exit(2);
}

static long long num_arg(const char *s, long long lo, long long hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) usage();
    return v;
}

static void parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->n[0] = 31; /* odd: blocks of different sizes on 2, 4, 8, 16 ranks */
    o->n[1] = 29;
    o->n[2] = 27;
    snprintf(o->algos, sizeof o->algos, "%s", DEFAULT_ALGOS);
    snprintf(o->baselines, sizeof o->baselines, "%s", "MPI_Alltoallv,fftw-mpi");
    o->mode = FFT_PERSISTENT;
    o->iters = 20;
    o->warmup = 3;
    o->header = 1;
    o->check_max = 2097152;
    o->tol = 1e-10;
    o->fftw_flags = FFTW_ESTIMATE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
#define OPT(name) (strncmp(a, name "=", sizeof name) == 0 ? a + sizeof name : NULL)
        if ((v = OPT("--n"))) {
            int k = sscanf(v, "%dx%dx%d", &o->n[0], &o->n[1], &o->n[2]);
            if (k == 1) o->n[1] = o->n[2] = o->n[0];
            else if (k != 3) usage();
            if (o->n[0] < 1 || o->n[1] < 1 || o->n[2] < 1) usage();
        } else if ((v = OPT("--grid"))) {
            if (sscanf(v, "%dx%d", &o->pr, &o->pc) != 2 || o->pr < 1 || o->pc < 1) usage();
        } else if ((v = OPT("--algos"))) {
            if (strlen(v) >= sizeof o->algos) usage();
            snprintf(o->algos, sizeof o->algos, "%s", v);
        } else if ((v = OPT("--baselines"))) {
            if (strlen(v) >= sizeof o->baselines) usage();
            snprintf(o->baselines, sizeof o->baselines, "%s", strcmp(v, "none") ? v : "");
        } else if ((v = OPT("--exchange"))) {
            if (!strcmp(v, "persistent")) o->mode = FFT_PERSISTENT;
            else if (!strcmp(v, "blocking")) o->mode = FFT_BLOCKING;
            else usage();
        } else if ((v = OPT("--iters"))) o->iters = (int)num_arg(v, 1, 1000000);
        else if ((v = OPT("--warmup"))) o->warmup = (int)num_arg(v, 0, 1000000);
        else if ((v = OPT("--check-max"))) o->check_max = num_arg(v, 0, 1LL << 28);
        else if ((v = OPT("--pipeline"))) o->pipeline = (int)num_arg(v, 1, 4096);
        else if ((v = OPT("--sim-flops"))) {
            char *end;
            o->sim_flops = strtod(v, &end);
            if (end == v || *end || !(o->sim_flops > 0)) usage();
#ifndef SMPI_H
            if (rank == 0) fprintf(stderr, "xchg-fft3d: --sim-flops only under SMPI\n");
            usage();
#endif
        }
        else if ((v = OPT("--tol"))) {
            char *end;
            o->tol = strtod(v, &end);
            if (end == v || *end || !(o->tol > 0)) usage();
        } else if ((v = OPT("--fftw"))) {
            if (!strcmp(v, "estimate")) o->fftw_flags = FFTW_ESTIMATE;
            else if (!strcmp(v, "measure")) o->fftw_flags = FFTW_MEASURE;
            else usage();
        } else if (!strcmp(a, "--no-serial-check")) o->check_max = 0;
        else if (!strcmp(a, "--no-header")) o->header = 0;
        else if (!strcmp(a, "--inject-error")) o->inject = 1;
        else usage();
#undef OPT
    }
    if (!o->pr) {
        int dims[2] = {0, 0};
        FFT_MPI(MPI_Dims_create(nranks, 2, dims));
        o->pr = dims[0];
        o->pc = dims[1];
    }
    if ((long long)o->pr * o->pc != nranks) {
        if (rank == 0)
            fprintf(stderr, "xchg-fft3d: --grid=%dx%d needs %d ranks, not %d\n", o->pr, o->pc,
                    o->pr * o->pc, nranks);
        usage();
    }
}

/* ---- one row ---------------------------------------------------------------- */

typedef struct row {
    const char *algo, *mode;
    double total, exchange, compute, init;
    const char *checked;
} row;

static void print_row(const options *o, const row *r)
{
    if (rank != 0) return;
    char t[3][32] = {"", "", ""}, init[32] = "";
    snprintf(t[0], sizeof t[0], "%.6e", r->total);
    if (r->exchange >= 0) snprintf(t[1], sizeof t[1], "%.6e", r->exchange);
    if (r->compute >= 0) snprintf(t[2], sizeof t[2], "%.6e", r->compute);
    if (r->init >= 0) snprintf(init, sizeof init, "%.6e", r->init);
    printf("%dx%dx%d,%d,%dx%d,%s,%s,%s,%s,%s,%s,%s\n", o->n[0], o->n[1], o->n[2], nranks, o->pr,
           o->pc, r->algo, t[0], t[1], t[2], r->checked, r->mode, init);
    fflush(stdout);
}

/* Compare the errors with the tolerance; FAIL lines on rank 0. Returns the
 * `checked` column and counts failures. */
static const char *judge(const options *o, const char *algo, double err_serial,
                         double err_inverse, int *failures)
{
    int bad = 0;
    if (err_serial >= 0 && !(err_serial <= o->tol)) {
        if (rank == 0)
            fprintf(stderr, "FAIL xchg-fft3d %s: forward transform vs serial FFTW: "
                    "relative error %.3e > %.1e\n", algo, err_serial, o->tol);
        bad = 1;
    }
    if (!(err_inverse <= o->tol)) {
        if (rank == 0)
            fprintf(stderr, "FAIL xchg-fft3d %s: inverse round trip: relative error %.3e > %.1e\n",
                    algo, err_inverse, o->tol);
        bad = 1;
    }
    if (rank == 0) {
        char es[32] = "skipped";
        if (err_serial >= 0) snprintf(es, sizeof es, "%.3e", err_serial);
        fprintf(stderr, "xchg-fft3d: %s: relative errors: vs serial %s, round trip %.3e\n", algo,
                es, err_inverse);
    }
    *failures += bad;
    return bad ? "FAIL" : err_serial >= 0 ? "serial+inverse" : "inverse";
}

/* --pipeline=B: B fields per forward transform, not pipelined ("batch")
 * and pipelined (batch.c), interleaved per iteration; one row each, times
 * per field; every field of both checked like a single transform. */
static void run_batch(const options *o, fft3d *f, const fftw_complex *ref, const char *label,
                      int direct, int *failures)
{
    fft_batch b;
    const int n = o->iters, B = o->pipeline;
    fft3d_exchanges_init(f, direct ? FFT_DIRECT : FFT_BLOCKING); /* the check's backward */
    fft_batch_setup(&b, f, B, direct, o->sim_flops);
    double *s = fft_xmalloc(4 * (size_t)n * sizeof(double));
    for (int i = 0; i < o->warmup + n; i++)
        for (int p = 0; p < 2; p++) {
            double te = 0.0;
            FFT_MPI(MPI_Barrier(MPI_COMM_WORLD));
            double t1 = MPI_Wtime();
            fft_batch_forward(f, &b, p, &te);
            double t2 = MPI_Wtime();
            if (i >= o->warmup) {
                s[(2 * p) * n + i - o->warmup] = (t2 - t1) / B;
                s[(2 * p + 1) * n + i - o->warmup] = te / B;
            }
        }
    for (int p = 0; p < 2; p++) {
        row r = {label, p ? "pipeline" : "batch", 0, 0, 0, -1, ""};
        double *c = fft_xmalloc((size_t)n * sizeof(double));
        for (int i = 0; i < n; i++) c[i] = s[2 * p * n + i] - s[(2 * p + 1) * n + i];
        r.total = fft_max_median(s + 2 * p * n, n, MPI_COMM_WORLD);
        r.exchange = fft_max_median(s + (2 * p + 1) * n, n, MPI_COMM_WORLD);
        r.compute = fft_max_median(c, n, MPI_COMM_WORLD);
        free(c);
        /* the check: every field of one more batch */
        double te = 0.0, es_worst = o->serial ? 0.0 : -1.0, ei_worst = 0.0;
        for (int k = 0; k < B; k++) memset(b.xpen[k], 0, f->xsize * sizeof(fftw_complex));
        fft_batch_forward(f, &b, p, &te);
        for (int k = 0; k < B; k++) {
            fft_batch_output(f, &b, k);
            if (o->inject) fft_inject_error(f->xpen, f->xsize, MPI_COMM_WORLD);
            fft_box xbox = {{0, f->my0, f->z0}, {f->n[0], f->my, f->nz}, {1, 2, 0}};
            double es = o->serial ? fft_compare_box(ref, f->xpen, &xbox, f->n, MPI_COMM_WORLD)
                                  : -1.0;
            fft3d_backward(f, &te);
            double ei = fft_compare_roundtrip(f->zpen, f->in, f->zsize,
                                              1.0 / ((double)f->n[0] * f->n[1] * f->n[2]),
                                              MPI_COMM_WORLD);
            /* the worst field; a NaN (es != es) stays */
            if (es_worst == es_worst && !(es <= es_worst)) es_worst = es;
            if (ei_worst == ei_worst && !(ei <= ei_worst)) ei_worst = ei;
        }
        char what[300];
        snprintf(what, sizeof what, "%s (%s of %d)", label, r.mode, B);
        r.checked = judge(o, what, es_worst, ei_worst, failures);
        print_row(o, &r);
    }
    free(s);
    fft_batch_free(&b);
    fft3d_exchanges_free(f);
}

/* The pencil transform with the transposes of `mode` (algo: the xchg
 * selection string, or NULL for MPI_Alltoallv). */
static void run_pencil(const options *o, fft3d *f, const fftw_complex *ref, const char *label,
                       const char *algo, enum fft_mode mode, int *failures)
{
    if (algo) {
        /* "auto": no choice on the communicators, xchg selects by itself */
        const char *selection = strcmp(algo, "auto") ? algo : "";
        int bad = XCHG_Comm_set_algorithm(f->row, "alltoallv", selection) != MPI_SUCCESS ||
                  XCHG_Comm_set_algorithm(f->col, "alltoallv", selection) != MPI_SUCCESS;
        int any;
        FFT_MPI(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        if (any) {
            if (rank == 0)
                fprintf(stderr, "xchg-fft3d: algorithm \"%s\" skipped: %s\n", algo,
                        bad ? XCHG_Last_error() : "refused on another rank");
            return;
        }
    }
    if (o->pipeline) {
        run_batch(o, f, ref, label, algo == NULL, failures);
        return;
    }
    row r = {label, mode == FFT_PERSISTENT ? "persistent" : mode == FFT_BLOCKING ? "blocking"
                                                                              : "direct",
             0, 0, 0, -1, ""};
    FFT_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    fft3d_exchanges_init(f, mode);
    double init = MPI_Wtime() - t0;
    if (mode == FFT_PERSISTENT) r.init = fft_max_median(&init, 1, MPI_COMM_WORLD);

    double *s = fft_xmalloc(3 * (size_t)o->iters * sizeof(double));
    double *tot = s, *ex = s + o->iters, *comp = s + 2 * o->iters;
    for (int i = 0; i < o->warmup + o->iters; i++) {
        double te = 0.0;
        FFT_MPI(MPI_Barrier(MPI_COMM_WORLD));
        double t1 = MPI_Wtime();
        fft3d_forward(f, &te);
        double t2 = MPI_Wtime();
        if (i >= o->warmup) {
            tot[i - o->warmup] = t2 - t1;
            ex[i - o->warmup] = te;
            comp[i - o->warmup] = t2 - t1 - te;
        }
    }
    r.total = fft_max_median(tot, o->iters, MPI_COMM_WORLD);
    r.exchange = fft_max_median(ex, o->iters, MPI_COMM_WORLD);
    r.compute = fft_max_median(comp, o->iters, MPI_COMM_WORLD);
    free(s);

    /* The check: one more forward transform, then the round trip. */
    double te = 0.0;
    fft3d_forward(f, &te);
    if (o->inject) fft_inject_error(f->xpen, f->xsize, MPI_COMM_WORLD);
    fft_box xbox = {{0, f->my0, f->z0}, {f->n[0], f->my, f->nz}, {1, 2, 0}};
    double es = o->serial ? fft_compare_box(ref, f->xpen, &xbox, f->n, MPI_COMM_WORLD) : -1.0;
    fft3d_backward(f, &te);
    double ei = fft_compare_roundtrip(f->zpen, f->in, f->zsize,
                                      1.0 / ((double)f->n[0] * f->n[1] * f->n[2]),
                                      MPI_COMM_WORLD);
    if (algo && rank == 0) {
        char used_row[256] = "", used_col[256] = "";
        FFT_MPI(XCHG_Comm_get_algorithm(f->row, "alltoallv", 1, 0, used_row, sizeof used_row));
        FFT_MPI(XCHG_Comm_get_algorithm(f->col, "alltoallv", 1, 0, used_col, sizeof used_col));
        fprintf(stderr, "xchg-fft3d: %s: rank 0 ran \"%s\" in its row, \"%s\" in its column\n",
                algo, used_row, used_col);
    }
    r.checked = judge(o, label, es, ei, failures);
    fft3d_exchanges_free(f);
    print_row(o, &r);
}

static void run_fftw_mpi(const options *o, const fftw_complex *ref, int *failures)
{
    if (!fft_mpi_available()) {
        if (rank == 0)
            fprintf(stderr, "xchg-fft3d: fftw-mpi skipped: built without libfftw3-mpi\n");
        return;
    }
    fft_mpi_result res;
    fft_mpi_baseline(o->n, MPI_COMM_WORLD, o->fftw_flags, o->warmup, o->iters, o->serial, ref,
                     o->inject, &res);
    row r = {"fftw-mpi", "fftw", res.total_s, -1, -1, -1, ""};
    r.checked = judge(o, "fftw-mpi", res.err_serial, res.err_roundtrip, failures);
    print_row(o, &r);
}

/* Notes: the blocks of each dimension and whether the exchanges are uniform. */
static void describe(const options *o)
{
    if (rank != 0) return;
    const char *dim[] = {"x (N0) over Pr", "y (N1) over Pc", "z (N2) over Pc", "y (N1) over Pr"};
    int nn[] = {o->n[0], o->n[1], o->n[2], o->n[1]}, pp[] = {o->pr, o->pc, o->pc, o->pr};
    fprintf(stderr, "xchg-fft3d: %dx%dx%d on %d ranks, grid %dx%d\n", o->n[0], o->n[1], o->n[2],
            nranks, o->pr, o->pc);
    for (int d = 0; d < 4; d++) {
        int lo, hi, s;
        fft_block(nn[d], pp[d], pp[d] - 1, &lo, &s);
        fft_block(nn[d], pp[d], 0, &hi, &s);
        fprintf(stderr, "xchg-fft3d:   %s: blocks of %d..%d%s\n", dim[d], lo, hi,
                lo == hi ? "" : " (non-uniform)");
    }
}

int main(int argc, char **argv)
{
    options o;
    int failures = 0;
    FFT_MPI(MPI_Init(&argc, &argv));
    FFT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    FFT_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    FFT_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
    parse(argc, argv, &o);
    describe(&o);
    fft_mpi_init();

    long long npoints = (long long)o.n[0] * o.n[1] * o.n[2];
    fftw_complex *ref = NULL;
    o.serial = npoints <= o.check_max;
    if (o.serial) ref = fft_reference(o.n, MPI_COMM_WORLD);
    else if (rank == 0)
        fprintf(stderr, "xchg-fft3d: %lld points > --check-max=%lld: serial check skipped\n",
                npoints, o.check_max);

    fft3d f;
    fft3d_setup(&f, o.n, o.pr, o.pc, MPI_COMM_WORLD, o.fftw_flags);
    fft_box zbox = {{f.x0, f.y0, 0}, {f.nx, f.ny, o.n[2]}, {0, 1, 2}};
    fft_fill_box(f.in, &zbox, o.n);

    if (o.header && rank == 0) {
        printf("n,P,grid,algo,total_s,exchange_s,compute_s,checked,mode,init_s\n");
        fflush(stdout);
    }
    char list[sizeof o.baselines];
    int want_fftw_mpi = 0;
    snprintf(list, sizeof list, "%s", o.baselines);
    for (char *save = NULL, *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
        if (!strcmp(b, "MPI_Alltoallv")) run_pencil(&o, &f, ref, b, NULL, FFT_DIRECT, &failures);
        else if (!strcmp(b, "fftw-mpi")) want_fftw_mpi = 1;
        else if (rank == 0) fprintf(stderr, "xchg-fft3d: unknown baseline \"%s\" skipped\n", b);
    }
    char algos[sizeof o.algos];
    snprintf(algos, sizeof algos, "%s", o.algos);
    for (char *save = NULL, *a = strtok_r(algos, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        /* a selection string's own commas ("name:p=1,q=2") are written ';' in
         * --algos (and in the CSV's algo column) */
        char sel[sizeof o.algos];
        snprintf(sel, sizeof sel, "%s", a);
        for (char *c = sel; *c; c++)
            if (*c == ';') *c = ',';
        run_pencil(&o, &f, ref, a, sel, o.mode, &failures);
    }
    if (want_fftw_mpi && o.pipeline) {
        if (rank == 0)
            fprintf(stderr, "xchg-fft3d: fftw-mpi skipped: no batched form (--pipeline)\n");
    } else if (want_fftw_mpi) {
        run_fftw_mpi(&o, ref, &failures);
    }

    fft3d_free(&f);
    fftw_free(ref);
    fft_mpi_cleanup();
    fftw_cleanup();
    int all;
    FFT_MPI(MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (rank == 0)
        fprintf(stderr, "xchg-fft3d: %s\n", all ? "FAILED" : "all checks passed");
    FFT_MPI(MPI_Finalize());
    return all ? 1 : 0;
}
