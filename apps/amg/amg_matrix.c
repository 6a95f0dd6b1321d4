/*
 * xchg-amg's matrix (amg.h): the rotated anisotropic diffusion problem of
 * xchg_amg.c's header comment, assembled through hypre's IJ interface box by
 * box, and checked against hypre's GenerateRotate7pt by a matvec.
 */
#include "amg.h"

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

HYPRE_ParCSRMatrix assemble(const options *o, HYPRE_IJMatrix *ij)
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
hypre_ParVector *vector_on(hypre_ParCSRMatrix *A, int fill)
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
double *hypre_spmv(hypre_ParCSRMatrix *A)
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
void check_generator(const options *o, hypre_ParCSRMatrix *A)
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
