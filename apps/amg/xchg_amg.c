/*
 * xchg-amg: the SpMV halo exchanges of a BoomerAMG hierarchy run through
 * xchg's persistent neighbourhood alltoallv (Collom, Li, Bienz, SC-W 2023,
 * section 4: per-level message counts, inter-region bytes and times).
 *
 * Problem: the rotated anisotropic diffusion -div(K grad u) on the unit
 * square, K = R(theta) diag(1, eps) R(theta)^T, on an n x n grid with zero
 * Dirichlet boundaries, discretised with the 7-point stencil of hypre's
 * GenerateRotate7pt (the paper's test problem, theta = 45, eps = 0.001):
 * with c = cos(theta), s = sin(theta),
 *     ac = -(c^2 + eps s^2), bc = 2 (1 - eps) s c, cc = -(s^2 + eps c^2)
 *     centre       -2 (2 ac + bc + 2 cc)
 *     west, east    2 ac + bc
 *     south, north  bc + 2 cc
 *     south-west, north-east  -bc
 * (not scaled by 1/h^2, as in hypre; a 7-point stencil with the mixed
 * derivative on the south-west/north-east diagonal only).
 * The matrix is assembled here through hypre's IJ interface; the grid is cut
 * into px x py boxes (rank r owns box (r mod px, r / px)) and numbered box
 * by box, as hypre's generator does, so each rank owns a contiguous block
 * of rows. The assembled matrix is checked against GenerateRotate7pt's
 * (same partition) by a matvec.
 *
 * Then BoomerAMG is set up (HMIS coarsening, extended+i interpolation,
 * P_max = 4, strong threshold 0.25 by default) and each level's matrix
 * A_l is read through hypre's internal headers: its ParCSR comm package
 * gives the halo exchange of y = A_l x (send procs and the local rows each
 * one needs, receive procs and how many values of the off-diagonal vector
 * come from each, in col_map_offd order). For every level and every
 * algorithm of --algos, the exchange runs as an XCHG_Topo and a persistent
 * request, started --warmup times, then --iters times timed (--reps
 * repetitions; the time is the minimum over repetitions of the maximum over
 * ranks of the mean per start, as in the paper).
 *
 * Besides the per-rank maxima of what each algorithm sends (inter/intra
 * messages and bytes, from XCHG_Neighbor_stats_get), each row carries two properties of the
 * level's pattern: the largest number of bytes that one ordered pair of
 * regions exchanges (pair_bytes_max, what standard and plain aggregation
 * move) and the same with each value counted once per destination region
 * (pair_unique_bytes_max, what duplicate removal moves; section 3.3).
 *
 * Checks (exit status 1 on any mismatch): the received halo equals x at
 * col_map_offd, x[g] = sin(g) + 2; y = diag x_local + offd x_halo equals
 * hypre's own HYPRE_ParCSRMatrixMatvec; for the standard algorithm,
 * XCHG_Neighbor_stats_get equals the counts computed here from the pattern
 * and the region map (a mismatch is a failed check, like a wrong value).
 *
 * Regions: xchg's nodes. XCHG_VIRTUAL_NODES / XCHG_VIRTUAL_PLACEMENT are
 * read here too (the same rules as src/core/topology.c), otherwise the
 * nodes of MPI_Comm_split_type(SHARED).
 *
 * Inits: with --init=auto (the default) the locality algorithms get the
 * duplicate-removal init with global indices (XCHG_Neighbor_alltoallv_topo_
 * init_ext: the global column of each halo value), the others the plain
 * one; --init=ext / plain use one for all (a "dedup=1" variant without the
 * _ext init is skipped: it would be dedup=0). "auto" sets no algorithm: xchg
 * chooses (measuring the candidates at init, src/select/online_init.c), and
 * its row says what ran ("auto[standard]"). The init time (init_s, max
 * over ranks) is reported next to the time per start. An algorithm that
 * xchg does not register is reported (xchg's message) and skipped.
 *
 * usage: mpirun -n P xchg-amg [--n=64] [--eps=0.001] [--theta=45]
 *          [--procgrid=PXxPY]
 *          [--algos=standard,mpi,locality,locality:balance=bytes,locality:dedup=1]
 *          [--iters=100] [--warmup=10] [--reps=3] [--init=auto|plain|ext]
 *          [--strong=0.25] [--coarsen=10] [--interp=6] [--pmax=4]
 *          [--agg-levels=0] [--max-levels=25] [--solve] [--csv=FILE]
 *          [--comm=graph|plain] [--no-header] [--inject-error]
 * --comm=graph (the default) runs each level's exchange on a distributed-
 * graph communicator of that level's neighbours (MPI_Dist_graph_create_
 * adjacent, made and first used by xchg before the timings), so that an
 * algorithm that needs one (the MPI library's own, "mpi") can run;
 * --comm=plain on a duplicate of MPI_COMM_WORLD. The XCHG_Topo is the same.
 * --inject-error corrupts one received value on the first level (the last
 * rank) before the check, to show that the check fails (exit status 1).
 * CSV on stdout (or FILE), one row per level and algorithm; notes on stderr.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h> /* ffs, used by hypre's headers */

#include <mpi.h>

#include "HYPRE.h"
#include "HYPRE_IJ_mv.h"
#include "HYPRE_parcsr_ls.h"
#include "_hypre_parcsr_ls.h"
#include "_hypre_parcsr_mv.h"

#include "xchg.h"

static int rank, nranks;

#define DIE(...)                                                           \
    do {                                                                   \
        fprintf(stderr, "xchg-amg: rank %d: ", rank);                      \
        fprintf(stderr, __VA_ARGS__);                                      \
        fprintf(stderr, "\n");                                             \
        MPI_Abort(MPI_COMM_WORLD, 3);                                      \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) DIE("out of memory (%zu bytes)", n);
    return p;
}

/* The test vector: exact to compare, not linear in g (a permutation shows). */
static double xval(int64_t g) { return sin((double)g) + 2.0; }

/* ---- options ------------------------------------------------------------ */

typedef struct options {
    long n;
    double eps, theta;
    int px, py;
    char algos[1024];
    int iters, warmup, reps;
    int init; /* 0 auto, 1 plain, 2 ext */
    double strong;
    int coarsen, interp, pmax, agg_levels, max_levels;
    int solve, header, inject, graph;
    const char *csv;
} options;

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr,
                "usage: xchg-amg [--n=64] [--eps=0.001] [--theta=45] [--procgrid=PXxPY]\n"
                "  [--algos=standard,mpi,locality,locality:balance=bytes,locality:dedup=1]\n"
                "  [--iters=100] [--warmup=10]\n"
                "  [--reps=3] [--init=auto|plain|ext] [--strong=0.25] [--coarsen=10]\n"
                "  [--interp=6] [--pmax=4] [--agg-levels=0] [--max-levels=25] [--solve]\n"
                "  [--comm=graph|plain] [--csv=FILE] [--no-header] [--inject-error]\n");
    MPI_Finalize();
    exit(2);
}

static long num_arg(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) usage();
    return v;
}

static double real_arg(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end) usage();
    return v;
}

static void parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->n = 64;
    o->eps = 0.001;
    o->theta = 45.0;
    snprintf(o->algos, sizeof o->algos, "%s",
             "standard,mpi,locality,locality:balance=bytes,locality:dedup=1");
    o->iters = 100;
    o->warmup = 10;
    o->reps = 3;
    o->strong = 0.25;
    o->coarsen = 10; /* HMIS */
    o->interp = 6;   /* extended+i */
    o->pmax = 4;
    o->max_levels = 25;
    o->header = 1;
    o->graph = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define OPT(name) (strncmp(a, name "=", sizeof name) == 0 ? a + sizeof name : NULL)
        const char *v;
        if ((v = OPT("--n"))) o->n = num_arg(v, 2, 1L << 20);
        else if ((v = OPT("--eps"))) o->eps = real_arg(v);
        else if ((v = OPT("--theta"))) o->theta = real_arg(v);
        else if ((v = OPT("--procgrid"))) {
            if (sscanf(v, "%dx%d", &o->px, &o->py) != 2 || o->px < 1 || o->py < 1) usage();
        } else if ((v = OPT("--algos"))) {
            if (!*v || strlen(v) >= sizeof o->algos) usage();
            snprintf(o->algos, sizeof o->algos, "%s", v);
        } else if ((v = OPT("--iters"))) o->iters = (int)num_arg(v, 1, 1000000);
        else if ((v = OPT("--warmup"))) o->warmup = (int)num_arg(v, 1, 1000000);
        else if ((v = OPT("--reps"))) o->reps = (int)num_arg(v, 1, 1000);
        else if ((v = OPT("--init"))) {
            if (!strcmp(v, "auto")) o->init = 0;
            else if (!strcmp(v, "plain")) o->init = 1;
            else if (!strcmp(v, "ext")) o->init = 2;
            else usage();
        } else if ((v = OPT("--strong"))) o->strong = real_arg(v);
        else if ((v = OPT("--coarsen"))) o->coarsen = (int)num_arg(v, 0, 100);
        else if ((v = OPT("--interp"))) o->interp = (int)num_arg(v, 0, 100);
        else if ((v = OPT("--pmax"))) o->pmax = (int)num_arg(v, 0, 1000);
        else if ((v = OPT("--agg-levels"))) o->agg_levels = (int)num_arg(v, 0, 100);
        else if ((v = OPT("--max-levels"))) o->max_levels = (int)num_arg(v, 1, 100);
        else if ((v = OPT("--csv"))) o->csv = v;
        else if ((v = OPT("--comm"))) {
            if (!strcmp(v, "graph")) o->graph = 1;
            else if (!strcmp(v, "plain")) o->graph = 0;
            else usage();
        }
        else if (!strcmp(a, "--solve")) o->solve = 1;
        else if (!strcmp(a, "--no-header")) o->header = 0;
        else if (!strcmp(a, "--inject-error")) o->inject = 1;
        else usage();
#undef OPT
    }
    if (!o->px) {
        int dims[2] = {0, 0};
        MPI_Dims_create(nranks, 2, dims);
        o->px = dims[0];
        o->py = dims[1];
    }
    if ((long)o->px * o->py != nranks) {
        if (rank == 0) fprintf(stderr, "xchg-amg: --procgrid %dx%d needs %d ranks, not %d\n",
                               o->px, o->py, o->px * o->py, nranks);
        usage();
    }
    if (o->px > o->n || o->py > o->n) {
        if (rank == 0) fprintf(stderr, "xchg-amg: the grid (%ld) is smaller than the "
                               "process grid\n", o->n);
        usage();
    }
}

/* ---- regions ------------------------------------------------------------ */

/* region_of[r] for every rank: XCHG_VIRTUAL_NODES (sizes, repeated, the last
 * cut short; block or cyclic placement) or the shared-memory nodes. */
static void regions_build(int *region_of, char *label, size_t labellen)
{
    const char *spec = getenv("XCHG_VIRTUAL_NODES");
    if (spec && *spec) {
        int pattern[256], np = 0;
        for (const char *p = spec; *p;) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p || v <= 0 || np == 256 || (*end != ',' && *end))
                DIE("XCHG_VIRTUAL_NODES='%s': expected sizes like 4 or 3,2,4", spec);
            pattern[np++] = (int)v;
            p = *end ? end + 1 : end;
        }
        int *sizes = xmalloc((size_t)nranks * sizeof(int)), num = 0;
        for (int assigned = 0; assigned < nranks; num++) {
            int s = pattern[num % np];
            if (s > nranks - assigned) s = nranks - assigned;
            sizes[num] = s;
            assigned += s;
        }
        const char *pl = getenv("XCHG_VIRTUAL_PLACEMENT");
        if (pl && !strcmp(pl, "cyclic")) {
            for (int r = 0, node = 0; r < nranks; r++) {
                while (sizes[node] == 0) node = (node + 1) % num;
                region_of[r] = node;
                sizes[node]--;
                node = (node + 1) % num;
            }
        } else {
            for (int n = 0, r = 0; n < num; n++)
                for (int i = 0; i < sizes[n]; i++) region_of[r++] = n;
        }
        free(sizes);
        snprintf(label, labellen, "vnodes=%s%s", spec, pl && !strcmp(pl, "cyclic") ? "/cyclic" : "");
        for (char *c = label; *c; c++)
            if (*c == ',') *c = '+'; /* a CSV field */
    } else {
        MPI_Comm shared;
        int lowest;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
        MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, shared);
        MPI_Comm_free(&shared);
        int *low = xmalloc((size_t)nranks * sizeof(int));
        MPI_Allgather(&lowest, 1, MPI_INT, low, 1, MPI_INT, MPI_COMM_WORLD);
        int next = 0;
        for (int r = 0; r < nranks; r++)
            if (low[r] == r) {
                for (int s = r; s < nranks; s++)
                    if (low[s] == r) region_of[s] = next;
                next++;
            }
        free(low);
        snprintf(label, labellen, "nodes");
    }
}

/* ---- the matrix ----------------------------------------------------------- */

/* hypre_GeneratePartitioning: n split into P parts, the first n mod P one larger. */
static long part_start(long n, int P, int i)
{
    long size = n / P, rest = n % P;
    return i * size + (i < rest ? i : rest);
}
static int part_of(long n, int P, long i)
{
    long size = n / P, rest = n % P;
    if (i < rest * (size + 1)) return (int)(i / (size + 1));
    return (int)(rest + (i - rest * (size + 1)) / size);
}

/* Global row of grid point (ix, iy): boxes in rank order, each box row-major. */
static int64_t grid_index(const options *o, long ix, long iy)
{
    int p = part_of(o->n, o->px, ix), q = part_of(o->n, o->py, iy);
    long x0 = part_start(o->n, o->px, p), x1 = part_start(o->n, o->px, p + 1);
    long y0 = part_start(o->n, o->py, q), y1 = part_start(o->n, o->py, q + 1);
    return (int64_t)y0 * o->n + (int64_t)x0 * (y1 - y0) + (iy - y0) * (x1 - x0) + (ix - x0);
}

static HYPRE_ParCSRMatrix assemble(const options *o, HYPRE_IJMatrix *ij)
{
    int p = rank % o->px, q = rank / o->px;
    long x0 = part_start(o->n, o->px, p), x1 = part_start(o->n, o->px, p + 1);
    long y0 = part_start(o->n, o->py, q), y1 = part_start(o->n, o->py, q + 1);
    HYPRE_BigInt lo = (HYPRE_BigInt)grid_index(o, x0, y0);
    HYPRE_Int nrows = (HYPRE_Int)((x1 - x0) * (y1 - y0));
    HYPRE_BigInt hi = lo + nrows - 1;

    double pi = 4.0 * atan(1.0), t = pi * o->theta / 180.0;
    double c = cos(t), s = sin(t);
    double ac = -(c * c + o->eps * s * s), bc = 2.0 * (1.0 - o->eps) * s * c,
           cc = -(s * s + o->eps * c * c);
    double centre = -2.0 * (2.0 * ac + bc + 2.0 * cc), we = 2.0 * ac + bc, sn = bc + 2.0 * cc,
           diag = -bc;
    static const int off[7][2] = {{0, 0}, {-1, -1}, {0, -1}, {-1, 0}, {1, 0}, {0, 1}, {1, 1}};
    double coef[7] = {centre, diag, sn, we, we, sn, diag};

    HYPRE_Int *ncols = xmalloc((size_t)nrows * sizeof(HYPRE_Int));
    HYPRE_BigInt *rows = xmalloc((size_t)nrows * sizeof(HYPRE_BigInt));
    HYPRE_BigInt *cols = xmalloc((size_t)nrows * 7 * sizeof(HYPRE_BigInt));
    HYPRE_Complex *vals = xmalloc((size_t)nrows * 7 * sizeof(HYPRE_Complex));
    long k = 0, r = 0;
    for (long iy = y0; iy < y1; iy++)
        for (long ix = x0; ix < x1; ix++, r++) {
            rows[r] = lo + r;
            ncols[r] = 0;
            for (int e = 0; e < 7; e++) {
                long jx = ix + off[e][0], jy = iy + off[e][1];
                if (jx < 0 || jy < 0 || jx >= o->n || jy >= o->n) continue;
                cols[k] = (HYPRE_BigInt)grid_index(o, jx, jy);
                vals[k++] = coef[e];
                ncols[r]++;
            }
        }
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, lo, hi, lo, hi, ij);
    HYPRE_IJMatrixSetObjectType(*ij, HYPRE_PARCSR);
    HYPRE_IJMatrixSetRowSizes(*ij, ncols);
    HYPRE_IJMatrixInitialize(*ij);
    HYPRE_IJMatrixSetValues(*ij, nrows, ncols, rows, cols, vals);
    HYPRE_IJMatrixAssemble(*ij);
    HYPRE_ParCSRMatrix A;
    HYPRE_IJMatrixGetObject(*ij, (void **)&A);
    free(ncols);
    free(rows);
    free(cols);
    free(vals);
    return A;
}

/* A hypre vector on A's rows with x[g] = xval(g). */
static hypre_ParVector *vector_on(hypre_ParCSRMatrix *A, int fill)
{
    hypre_ParVector *v = hypre_ParVectorCreate(hypre_ParCSRMatrixComm(A),
                                               hypre_ParCSRMatrixGlobalNumRows(A),
                                               hypre_ParCSRMatrixRowStarts(A));
    hypre_ParVectorInitialize(v);
    double *d = hypre_VectorData(hypre_ParVectorLocalVector(v));
    HYPRE_Int m = hypre_VectorSize(hypre_ParVectorLocalVector(v));
    HYPRE_BigInt first = hypre_ParCSRMatrixFirstRowIndex(A);
    for (HYPRE_Int i = 0; i < m; i++) d[i] = fill ? xval((int64_t)first + i) : 0.0;
    return v;
}

/* y = A x with hypre; returns the local values (caller frees). */
static double *hypre_spmv(hypre_ParCSRMatrix *A)
{
    hypre_ParVector *x = vector_on(A, 1), *y = vector_on(A, 0);
    HYPRE_ParCSRMatrixMatvec(1.0, (HYPRE_ParCSRMatrix)A, (HYPRE_ParVector)x, 0.0,
                             (HYPRE_ParVector)y);
    HYPRE_Int m = hypre_VectorSize(hypre_ParVectorLocalVector(y));
    double *out = xmalloc((size_t)m * sizeof(double));
    if (m) memcpy(out, hypre_VectorData(hypre_ParVectorLocalVector(y)), (size_t)m * sizeof(double));
    hypre_ParVectorDestroy(x);
    hypre_ParVectorDestroy(y);
    return out;
}

/* The assembled matrix against hypre's GenerateRotate7pt (same boxes). */
static void check_generator(const options *o, hypre_ParCSRMatrix *A)
{
    int p = rank % o->px, q = rank / o->px;
    HYPRE_ParCSRMatrix B = GenerateRotate7pt(MPI_COMM_WORLD, o->n, o->n, o->px, o->py, p, q,
                                             o->theta, o->eps);
    hypre_ParCSRMatrix *b = (hypre_ParCSRMatrix *)B;
    int bad = hypre_ParCSRMatrixFirstRowIndex(b) != hypre_ParCSRMatrixFirstRowIndex(A) ||
              hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(b)) !=
                  hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(A)) ||
              hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(b)) +
                      hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(b)) !=
                  hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(A)) +
                      hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(A));
    if (!bad) {
        double *ya = hypre_spmv(A), *yb = hypre_spmv(b);
        HYPRE_Int m = hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(A));
        for (HYPRE_Int i = 0; i < m; i++)
            if (fabs(ya[i] - yb[i]) > 1e-12 * (1.0 + fabs(yb[i]))) bad = 1;
        free(ya);
        free(yb);
    } else {
        /* the matvecs are collective: every rank must still take part */
        double *ya = hypre_spmv(A), *yb = hypre_spmv(b);
        free(ya);
        free(yb);
    }
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    HYPRE_ParCSRMatrixDestroy(B);
    if (anybad) DIE("the assembled matrix differs from hypre's GenerateRotate7pt");
    if (rank == 0) fprintf(stderr, "xchg-amg: matrix equals GenerateRotate7pt(%ld, %ld, %dx%d, "
                           "theta=%g, eps=%g)\n", o->n, o->n, o->px, o->py, o->theta, o->eps);
}

/* ---- one level's exchange ------------------------------------------------ */

typedef struct pattern {
    int nsend, nrecv;
    int *send_procs, *recv_procs;
    int *sendcounts, *sdispls, *recvcounts, *rdispls;
    int64_t *sindices, *rindices;
    double *sendbuf, *recvbuf, *x_local;
    int nsendvals, nrecvvals, local_rows;
    int64_t *col_map; /* global index of each halo value */
    int64_t sindices_first; /* the global index of local row 0 */
} pattern;

typedef struct stats {
    long long inter_msgs, intra_msgs, inter_bytes, intra_bytes;
} stats;

static void pattern_build(hypre_ParCSRMatrix *A, pattern *pt)
{
    hypre_ParCSRCommPkg *pkg = hypre_ParCSRMatrixCommPkg(A);
    if (!pkg) {
        hypre_MatvecCommPkgCreate(A);
        pkg = hypre_ParCSRMatrixCommPkg(A);
    }
    memset(pt, 0, sizeof *pt);
    hypre_CSRMatrix *offd = hypre_ParCSRMatrixOffd(A);
    HYPRE_BigInt first = hypre_ParCSRMatrixFirstRowIndex(A);
    HYPRE_BigInt *cmap = hypre_ParCSRMatrixColMapOffd(A);
    pt->local_rows = hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(A));
    pt->sindices_first = (int64_t)first;
    pt->nsend = hypre_ParCSRCommPkgNumSends(pkg);
    pt->nrecv = hypre_ParCSRCommPkgNumRecvs(pkg);
    HYPRE_Int *sstarts = hypre_ParCSRCommPkgSendMapStarts(pkg);
    HYPRE_Int *elmts = hypre_ParCSRCommPkgSendMapElmts(pkg);
    HYPRE_Int *rstarts = hypre_ParCSRCommPkgRecvVecStarts(pkg);
    pt->nsendvals = pt->nsend ? sstarts[pt->nsend] : 0;
    pt->nrecvvals = pt->nrecv ? rstarts[pt->nrecv] : 0;
    if (pt->nrecvvals != hypre_CSRMatrixNumCols(offd))
        DIE("comm package receives %d values, the off-diagonal block has %d columns",
            pt->nrecvvals, (int)hypre_CSRMatrixNumCols(offd));

    pt->send_procs = xmalloc((size_t)(pt->nsend + 1) * sizeof(int));
    pt->sendcounts = xmalloc((size_t)(pt->nsend + 1) * sizeof(int));
    pt->sdispls = xmalloc((size_t)(pt->nsend + 1) * sizeof(int));
    for (int i = 0; i < pt->nsend; i++) {
        pt->send_procs[i] = hypre_ParCSRCommPkgSendProc(pkg, i);
        pt->sdispls[i] = sstarts[i];
        pt->sendcounts[i] = sstarts[i + 1] - sstarts[i];
    }
    pt->recv_procs = xmalloc((size_t)(pt->nrecv + 1) * sizeof(int));
    pt->recvcounts = xmalloc((size_t)(pt->nrecv + 1) * sizeof(int));
    pt->rdispls = xmalloc((size_t)(pt->nrecv + 1) * sizeof(int));
    for (int i = 0; i < pt->nrecv; i++) {
        pt->recv_procs[i] = hypre_ParCSRCommPkgRecvProc(pkg, i);
        pt->rdispls[i] = rstarts[i];
        pt->recvcounts[i] = rstarts[i + 1] - rstarts[i];
    }
    pt->x_local = xmalloc((size_t)pt->local_rows * sizeof(double));
    for (int i = 0; i < pt->local_rows; i++) pt->x_local[i] = xval((int64_t)first + i);
    pt->sendbuf = xmalloc((size_t)pt->nsendvals * sizeof(double));
    pt->sindices = xmalloc((size_t)pt->nsendvals * sizeof(int64_t));
    for (int k = 0; k < pt->nsendvals; k++) {
        if (elmts[k] < 0 || elmts[k] >= pt->local_rows) DIE("send element %d out of range", k);
        pt->sendbuf[k] = pt->x_local[elmts[k]];
        pt->sindices[k] = (int64_t)first + elmts[k];
    }
    pt->recvbuf = xmalloc((size_t)pt->nrecvvals * sizeof(double));
    pt->rindices = xmalloc((size_t)pt->nrecvvals * sizeof(int64_t));
    pt->col_map = pt->rindices;
    for (int k = 0; k < pt->nrecvvals; k++) pt->rindices[k] = (int64_t)cmap[k];
}

static void pattern_free(pattern *pt)
{
    free(pt->send_procs);
    free(pt->recv_procs);
    free(pt->sendcounts);
    free(pt->sdispls);
    free(pt->recvcounts);
    free(pt->rdispls);
    free(pt->sindices);
    free(pt->rindices);
    free(pt->sendbuf);
    free(pt->recvbuf);
    free(pt->x_local);
}

/* What the standard algorithm sends from this rank: one message per send proc. */
static stats pattern_stats(const pattern *pt, const int *region_of)
{
    stats s = {0, 0, 0, 0};
    for (int i = 0; i < pt->nsend; i++) {
        int d = pt->send_procs[i];
        long long bytes = (long long)pt->sendcounts[i] * (long long)sizeof(double);
        if (d == rank) continue;
        if (region_of[d] != region_of[rank]) {
            s.inter_msgs++;
            s.inter_bytes += bytes;
        } else {
            s.intra_msgs++;
            s.intra_bytes += bytes;
        }
    }
    return s;
}

/* Bytes between regions, per ordered pair of different regions (R -> S),
 * summed over the ranks of R: every value sent (what standard and
 * aggregation move) and each value once per destination region (what
 * duplicate removal moves). Their maxima over the pairs, on every rank. */
static void region_pair_bytes(const pattern *pt, const int *region_of, int nregions,
                              long long *all_max, long long *unique_max)
{
    size_t nn = (size_t)nregions * nregions;
    long long *loc = xmalloc(2 * nn * sizeof(long long)), *sum = xmalloc(2 * nn * sizeof(long long));
    memset(loc, 0, 2 * nn * sizeof(long long));
    int *stamp = xmalloc((size_t)pt->local_rows * sizeof(int));
    for (int i = 0; i < pt->local_rows; i++) stamp[i] = -1;
    int me = region_of[rank];
    for (int S = 0; S < nregions; S++) {
        if (S == me) continue;
        for (int i = 0; i < pt->nsend; i++) {
            if (region_of[pt->send_procs[i]] != S) continue;
            for (int k = pt->sdispls[i]; k < pt->sdispls[i] + pt->sendcounts[i]; k++) {
                int e = (int)(pt->sindices[k] - pt->sindices_first);
                loc[(size_t)me * nregions + S] += (long long)sizeof(double);
                if (stamp[e] != S) {
                    stamp[e] = S;
                    loc[nn + (size_t)me * nregions + S] += (long long)sizeof(double);
                }
            }
        }
    }
    MPI_Allreduce(loc, sum, (int)(2 * nn), MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    *all_max = *unique_max = 0;
    for (size_t i = 0; i < nn; i++) {
        if (sum[i] > *all_max) *all_max = sum[i];
        if (sum[nn + i] > *unique_max) *unique_max = sum[nn + i];
    }
    free(loc);
    free(sum);
    free(stamp);
}

/* Halo values and the SpMV against hypre's; returns the number of bad values. */
static long check_exchange(hypre_ParCSRMatrix *A, const pattern *pt, const double *yref)
{
    long bad = 0;
    for (int k = 0; k < pt->nrecvvals; k++)
        if (pt->recvbuf[k] != xval(pt->col_map[k])) {
            if (bad < 3)
                fprintf(stderr, "xchg-amg: rank %d: halo value %d (global %lld) is %.17g, "
                        "expected %.17g\n", rank, k, (long long)pt->col_map[k], pt->recvbuf[k],
                        xval(pt->col_map[k]));
            bad++;
        }
    hypre_CSRMatrix *diag = hypre_ParCSRMatrixDiag(A), *offd = hypre_ParCSRMatrixOffd(A);
    HYPRE_Int *di = hypre_CSRMatrixI(diag), *dj = hypre_CSRMatrixJ(diag);
    HYPRE_Int *oi = hypre_CSRMatrixI(offd), *oj = hypre_CSRMatrixJ(offd);
    HYPRE_Complex *dv = hypre_CSRMatrixData(diag), *ov = hypre_CSRMatrixData(offd);
    int have_offd = hypre_CSRMatrixNumCols(offd) > 0;
    for (int i = 0; i < pt->local_rows; i++) {
        double y = 0.0, scale = 0.0;
        for (HYPRE_Int k = di[i]; k < di[i + 1]; k++) {
            y += dv[k] * pt->x_local[dj[k]];
            scale += fabs(dv[k] * pt->x_local[dj[k]]);
        }
        if (have_offd)
            for (HYPRE_Int k = oi[i]; k < oi[i + 1]; k++) {
                y += ov[k] * pt->recvbuf[oj[k]];
                scale += fabs(ov[k] * pt->recvbuf[oj[k]]);
            }
        if (!(fabs(y - yref[i]) <= 1e-12 * scale + 1e-300)) {
            if (bad < 3)
                fprintf(stderr, "xchg-amg: rank %d: (A x)[%d] is %.17g, hypre says %.17g\n",
                        rank, i, y, yref[i]);
            bad++;
        }
    }
    return bad;
}

/* ---- algorithms ----------------------------------------------------------- */

/* Is the name before ':' a registered neighbourhood algorithm? */
static int registered(const char *sel)
{
    char name[128], params[512];
    size_t len = strcspn(sel, ":");
    int count = 0;
    XCHG_Algorithm_count("neighbor_alltoallv", &count);
    for (int i = 0; i < count; i++) {
        if (XCHG_Algorithm_describe("neighbor_alltoallv", i, name, sizeof name, params,
                                    sizeof params) != MPI_SUCCESS)
            continue;
        if (strlen(name) == len && !strncmp(name, sel, len)) return 1;
    }
    return 0;
}

static int is_standard(const char *sel) { return !strncmp(sel, "standard", 8) &&
                                                 (sel[8] == '\0' || sel[8] == ':'); }

static int init_request(const options *o, MPI_Comm comm, XCHG_Topo topo, pattern *pt,
                        const char *sel, int use_ext, XCHG_Request *req)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (strcmp(sel, "auto") != 0) /* auto: xchg chooses, as for a program that does not say */
        MPI_Info_set(info, "xchg_algorithm", sel);
    int rc;
    (void)o;
    if (use_ext)
        rc = XCHG_Neighbor_alltoallv_topo_init_ext(
            topo, pt->sendbuf, pt->sendcounts, pt->sdispls, pt->sindices, MPI_DOUBLE,
            pt->recvbuf, pt->recvcounts, pt->rdispls, pt->rindices, MPI_DOUBLE, comm, info, req);
    else
        rc = XCHG_Neighbor_alltoallv_topo_init(topo, pt->sendbuf, pt->sendcounts, pt->sdispls,
                                               MPI_DOUBLE, pt->recvbuf, pt->recvcounts,
                                               pt->rdispls, MPI_DOUBLE, comm, info, req);
    MPI_Info_free(&info);
    return rc;
}

static long long max_ll(long long v)
{
    long long m;
    MPI_Allreduce(&v, &m, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    options o;
    parse(argc, argv, &o);
    HYPRE_Init();

    /* The algorithms, in order; a skipped one is marked. */
    char *algo[64];
    int nalgo = 0, skip[64] = {0}, ext[64] = {0};
    for (char *tok = strtok(o.algos, ","); tok && nalgo < 64; tok = strtok(NULL, ","))
        algo[nalgo++] = tok;
    /* The _ext init: for every algorithm with --init=ext, none with
     * --init=plain; by default for the locality algorithms. */
    for (int a = 0; a < nalgo; a++)
        ext[a] = o.init == 2 || (o.init == 0 && !strncmp(algo[a], "locality", 8));
    for (int a = 0; a < nalgo; a++)
        if (strstr(algo[a], "dedup=1") && !ext[a]) {
            skip[a] = 1;
            if (rank == 0) fprintf(stderr, "xchg-amg: %s skipped: it needs the global indices "
                                   "of XCHG_Neighbor_alltoallv_topo_init_ext "
                                   "(--init=plain)\n", algo[a]);
        }

    int *region_of = xmalloc((size_t)nranks * sizeof(int));
    char region_label[128];
    regions_build(region_of, region_label, sizeof region_label);
    int nregions = 0;
    for (int r = 0; r < nranks; r++)
        if (region_of[r] + 1 > nregions) nregions = region_of[r] + 1;

    FILE *csv = stdout;
    if (rank == 0 && o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) DIE("cannot write %s: %s", o.csv, strerror(errno));
    }
    if (rank == 0 && o.header)
        fprintf(csv, "ranks,regions,nregions,n,level,rows,nnz,active_ranks,algo,init,"
                     "inter_msgs,intra_msgs,inter_bytes,intra_bytes,stats_source,init_s,"
                     "time_s,check,pair_bytes_max,pair_unique_bytes_max,comm\n");

    /* The fine matrix and the hierarchy. */
    HYPRE_IJMatrix ij;
    HYPRE_ParCSRMatrix A0 = assemble(&o, &ij);
    check_generator(&o, (hypre_ParCSRMatrix *)A0);
    hypre_ParVector *b = vector_on((hypre_ParCSRMatrix *)A0, 0),
                    *x = vector_on((hypre_ParCSRMatrix *)A0, 0);
    {
        double *bd = hypre_VectorData(hypre_ParVectorLocalVector(b));
        for (HYPRE_Int i = 0; i < hypre_VectorSize(hypre_ParVectorLocalVector(b)); i++)
            bd[i] = 1.0;
    }
    HYPRE_Solver amg;
    HYPRE_BoomerAMGCreate(&amg);
    HYPRE_BoomerAMGSetPrintLevel(amg, 0);
    HYPRE_BoomerAMGSetCoarsenType(amg, o.coarsen);
    HYPRE_BoomerAMGSetInterpType(amg, o.interp);
    HYPRE_BoomerAMGSetPMaxElmts(amg, o.pmax);
    HYPRE_BoomerAMGSetStrongThreshold(amg, o.strong);
    HYPRE_BoomerAMGSetAggNumLevels(amg, o.agg_levels);
    HYPRE_BoomerAMGSetMaxLevels(amg, o.max_levels);
    HYPRE_BoomerAMGSetRelaxType(amg, 18); /* l1-Jacobi: the same on any rank count */
    HYPRE_BoomerAMGSetTol(amg, 1e-8);
    HYPRE_BoomerAMGSetMaxIter(amg, 100);
    HYPRE_BoomerAMGSetup(amg, A0, (HYPRE_ParVector)b, (HYPRE_ParVector)x);
    if (o.solve) {
        HYPRE_BoomerAMGSolve(amg, A0, (HYPRE_ParVector)b, (HYPRE_ParVector)x);
        HYPRE_Int its;
        HYPRE_Real res;
        HYPRE_BoomerAMGGetNumIterations(amg, &its);
        HYPRE_BoomerAMGGetFinalRelativeResidualNorm(amg, &res);
        if (rank == 0) fprintf(stderr, "xchg-amg: BoomerAMG solve: %d iterations, relative "
                               "residual %.3e\n", (int)its, res);
    }

    hypre_ParAMGData *amg_data = (hypre_ParAMGData *)amg;
    int nlevels = hypre_ParAMGDataNumLevels(amg_data);
    hypre_ParCSRMatrix **A_array = hypre_ParAMGDataAArray(amg_data);
    if (rank == 0) fprintf(stderr, "xchg-amg: %d ranks, %s (%d regions), grid %ldx%ld, %d "
                           "levels\n", nranks, region_label, nregions, o.n, o.n, nlevels);

    /* xchg's communicator (--comm=plain): errors come back as codes; xchg's
     * first use of it (a collective duplicate) before the timings. */
    MPI_Comm wcomm;
    MPI_Comm_dup(MPI_COMM_WORLD, &wcomm);
    MPI_Comm_set_errhandler(wcomm, MPI_ERRORS_RETURN);
    if (XCHG_Comm_set_algorithm(wcomm, "neighbor_alltoallv", NULL) != MPI_SUCCESS)
        DIE("XCHG_Comm_set_algorithm: %s", XCHG_Last_error());

    long total_bad = 0;
    int ran = 0;
    for (int l = 0; l < nlevels; l++) {
        hypre_ParCSRMatrix *A = A_array[l];
        pattern pt;
        pattern_build(A, &pt);
        long long nnz_local = hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(A)) +
                              hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(A)), nnz;
        MPI_Allreduce(&nnz_local, &nnz, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        int active = pt.local_rows > 0, nactive;
        MPI_Allreduce(&active, &nactive, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        long long rows = (long long)hypre_ParCSRMatrixGlobalNumRows(A);
        double *yref = hypre_spmv(A);
        stats mine = pattern_stats(&pt, region_of);
        long long pair_max, pair_unique_max;
        region_pair_bytes(&pt, region_of, nregions, &pair_max, &pair_unique_max);

        MPI_Comm comm = wcomm;
        if (o.graph) {
/* Open MPI's MPI_UNWEIGHTED is a sentinel address: gcc >= 11 takes it for
 * an empty array that MPI reads (a false positive). */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, pt.nrecv, pt.recv_procs,
                                           MPI_UNWEIGHTED, pt.nsend, pt.send_procs,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
            /* xchg's first call on a communicator duplicates it: not in the timings */
            if (XCHG_Comm_set_algorithm(comm, "neighbor_alltoallv", NULL) != MPI_SUCCESS)
                DIE("XCHG_Comm_set_algorithm: %s", XCHG_Last_error());
        }
        XCHG_Topo topo;
        int rc = XCHG_Topo_create(comm, pt.nrecv, pt.recv_procs, pt.nsend, pt.send_procs, &topo);
        if (rc != MPI_SUCCESS) DIE("XCHG_Topo_create on level %d: %s", l, XCHG_Last_error());

        for (int a = 0; a < nalgo; a++) {
            if (skip[a]) continue;
            XCHG_Request req = XCHG_REQUEST_NULL;
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            rc = init_request(&o, comm, topo, &pt, algo[a], ext[a], &req);
            double tinit = MPI_Wtime() - t0, tinit_max;
            int failed = rc != MPI_SUCCESS, anyfailed;
            MPI_Allreduce(&failed, &anyfailed, 1, MPI_INT, MPI_MAX, comm);
            MPI_Allreduce(&tinit, &tinit_max, 1, MPI_DOUBLE, MPI_MAX, comm);
            if (anyfailed) {
                int cls = 0, anycls;
                if (failed) MPI_Error_class(rc, &cls);
                MPI_Allreduce(&cls, &anycls, 1, MPI_INT, MPI_MAX, comm);
                if (rank == 0) {
                    if (failed)
                        fprintf(stderr, "xchg-amg: %s: init failed on level %d (class %d): %s\n",
                                algo[a], l, cls, XCHG_Last_error());
                    else
                        fprintf(stderr, "xchg-amg: %s: init failed on another rank (level %d)\n",
                                algo[a], l);
                }
                if (!failed) XCHG_Request_free(&req);
                if (!registered(algo[a])) {
                    if (rank == 0) fprintf(stderr, "xchg-amg: %s is not registered in this "
                                           "libxchg: skipped\n", algo[a]);
                    skip[a] = 1;
                    continue;
                }
                if (anycls == MPI_ERR_TOPOLOGY) { /* e.g. "mpi" without a graph */
                    if (rank == 0) fprintf(stderr, "xchg-amg: %s cannot run on this "
                                           "communicator: skipped\n", algo[a]);
                    skip[a] = 1;
                    continue;
                }
                DIE("%s failed on level %d: %s", algo[a], l, XCHG_Last_error());
            }

            /* Warm-up, then the checks. */
            for (int k = 0; k < pt.nrecvvals; k++) pt.recvbuf[k] = -1.0;
            for (int it = 0; it < o.warmup; it++) {
                if ((rc = XCHG_Start(&req)) != MPI_SUCCESS ||
                    (rc = XCHG_Wait(&req, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                    DIE("%s, level %d: start/wait: %s", algo[a], l, XCHG_Last_error());
            }
            /* --inject-error: the checker must see one wrong halo value. */
            if (o.inject && l == 0 && a == 0 && pt.nrecvvals > 0 && rank == nranks - 1)
                pt.recvbuf[pt.nrecvvals / 2] += 1.0;
            long bad = check_exchange(A, &pt, yref);

            /* What this rank sends per start, from xchg; for standard, it
             * must equal the count from the pattern (a failed check if not). */
            XCHG_Neighbor_stats xs;
            if ((rc = XCHG_Neighbor_stats_get(req, &xs)) != MPI_SUCCESS)
                DIE("XCHG_Neighbor_stats_get: %s", XCHG_Last_error());
            stats st = {xs.inter_messages, xs.intra_messages, xs.inter_bytes, xs.intra_bytes};
            if (is_standard(algo[a]) &&
                (st.inter_msgs != mine.inter_msgs || st.intra_msgs != mine.intra_msgs ||
                 st.inter_bytes != mine.inter_bytes || st.intra_bytes != mine.intra_bytes)) {
                fprintf(stderr, "FAIL xchg-amg: rank %d, level %d: XCHG_Neighbor_stats_get "
                        "says inter %lld msgs %lld B, intra %lld msgs %lld B; the pattern "
                        "says %lld, %lld, %lld, %lld\n", rank, l, st.inter_msgs,
                        st.inter_bytes, st.intra_msgs, st.intra_bytes, mine.inter_msgs,
                        mine.inter_bytes, mine.intra_msgs, mine.intra_bytes);
                bad++;
            }

            /* Timed starts: min over reps of (max over ranks of the mean). */
            double best = INFINITY;
            for (int r = 0; r < o.reps; r++) {
                MPI_Barrier(comm);
                t0 = MPI_Wtime();
                int err = MPI_SUCCESS;
                for (int it = 0; it < o.iters; it++) {
                    err |= XCHG_Start(&req);
                    err |= XCHG_Wait(&req, MPI_STATUS_IGNORE);
                }
                double mean = (MPI_Wtime() - t0) / o.iters, worst;
                if (err != MPI_SUCCESS)
                    DIE("%s, level %d: a timed start/wait failed: %s", algo[a], l,
                        XCHG_Last_error());
                MPI_Allreduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
                if (worst < best) best = worst;
            }
            for (int k = 0; k < pt.nrecvvals; k++) pt.recvbuf[k] = -1.0;
            XCHG_Start(&req);
            if ((rc = XCHG_Wait(&req, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                DIE("%s, level %d: wait: %s", algo[a], l, XCHG_Last_error());
            bad += check_exchange(A, &pt, yref);
            XCHG_Request_free(&req);
            /* auto: what xchg chose (the algorithm the last start ran) */
            char label[320], ran_algo[256];
            snprintf(label, sizeof label, "%s", algo[a]);
            if (strcmp(algo[a], "auto") == 0 &&
                XCHG_Comm_get_algorithm(comm, "neighbor_alltoallv", 1, 0, ran_algo,
                                        sizeof ran_algo) == MPI_SUCCESS)
                snprintf(label, sizeof label, "auto[%.*s]", (int)strcspn(ran_algo, ":"),
                         ran_algo); /* the name: its parameters hold commas */

            long allbad;
            MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, comm);
            total_bad += allbad;
            ran++;
            long long imsg = max_ll(st.inter_msgs), amsg = max_ll(st.intra_msgs),
                      ib = max_ll(st.inter_bytes), ab = max_ll(st.intra_bytes);
            if (rank == 0) {
                fprintf(csv, "%d,%s,%d,%ld,%d,%lld,%lld,%d,%s,%s,", nranks, region_label,
                        nregions, o.n, l, rows, nnz, nactive, label, ext[a] ? "ext" : "plain");
                fprintf(csv, "%lld,%lld,%lld,%lld,", imsg, amsg, ib, ab);
                fprintf(csv, "%s,%.9f,%.9f,%s,%lld,%lld,%s\n", "xchg", tinit_max, best,
                        allbad ? "FAIL" : "ok", pair_max, pair_unique_max,
                        o.graph ? "graph" : "plain");
                fflush(csv);
            }
            if (allbad && rank == 0)
                fprintf(stderr, "FAIL xchg-amg: %s, level %d: %ld mismatches\n", algo[a], l,
                        allbad);
        }
        XCHG_Topo_free(&topo);
        if (comm != wcomm) MPI_Comm_free(&comm);
        free(yref);
        pattern_free(&pt);
    }

    if (rank == 0) {
        fprintf(stderr, "xchg-amg: %d level x algorithm runs, %s\n", ran,
                total_bad ? "MISMATCHES" : ran ? "all halos and SpMVs equal hypre's"
                                                : "nothing ran (exit status 1)");
        if (csv != stdout) fclose(csv);
    }
    MPI_Comm_free(&wcomm);
    HYPRE_BoomerAMGDestroy(amg);
    hypre_ParVectorDestroy(b);
    hypre_ParVectorDestroy(x);
    HYPRE_IJMatrixDestroy(ij);
    free(region_of);
    HYPRE_Finalize();
    MPI_Finalize();
    int ok = total_bad == 0 && ran > 0;
    return ok ? 0 : 1;
}
