/* The pencil-decomposed 3-D FFT (pencil.h): setup, pack/unpack, transforms. */
#include "pencil.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fft_util.h"

/* ---- pack / unpack --------------------------------------------------------
 * Each function copies between a pencil and the per-peer blocks of an
 * alltoallv buffer: to_buf = 1 packs (pencil -> buffer), 0 unpacks. The
 * block layouts are those the other side expects, so the backward
 * transform uses the same functions with the direction reversed.
 * Displacements are in doubles: buf + displ / 2 is the block's first complex. */

/* Transpose 1, z-pencil side: a[x][y][z] <-> block q = [x][y][z in q's z] */
void fft3d_t1_zside(const fft3d *f, fftw_complex *a, fftw_complex *buf, const int *displ,
                    int to_buf)
{
    const int n2 = f->n[2];
    for (int q = 0; q < f->pc; q++) {
        int nzq, z0q;
        fft_block(n2, f->pc, q, &nzq, &z0q);
        fftw_complex *blk = buf + displ[q] / 2;
        size_t len = (size_t)nzq * sizeof(fftw_complex);
        for (size_t xy = 0; xy < (size_t)f->nx * f->ny; xy++) {
            fftw_complex *p = a + xy * n2 + z0q, *s = blk + xy * nzq;
            if (to_buf) memcpy(s, p, len);
            else memcpy(p, s, len);
        }
    }
}

/* Transpose 1, y-pencil side: b[x][z][y] <-> block q = [x][y in q's y][z] */
void fft3d_t1_yside(const fft3d *f, fftw_complex *b, fftw_complex *buf, const int *displ,
                    int to_buf)
{
    const int n1 = f->n[1], nz = f->nz;
    for (int q = 0; q < f->pc; q++) {
        int nyq, y0q;
        fft_block(n1, f->pc, q, &nyq, &y0q);
        fftw_complex *blk = buf + displ[q] / 2;
        for (int x = 0; x < f->nx; x++)
            for (int y = 0; y < nyq; y++) {
                fftw_complex *s = blk + ((size_t)x * nyq + y) * nz;
                fftw_complex *p = b + (size_t)x * nz * n1 + y0q + y;
                for (int z = 0; z < nz; z++, p += n1) {
                    if (to_buf) { s[z][0] = (*p)[0]; s[z][1] = (*p)[1]; }
                    else { (*p)[0] = s[z][0]; (*p)[1] = s[z][1]; }
                }
            }
    }
}

/* Transpose 2, y-pencil side: b[x][z][y] <-> block q = [x][z][y in q's my] */
void fft3d_t2_yside(const fft3d *f, fftw_complex *b, fftw_complex *buf, const int *displ,
                    int to_buf)
{
    const int n1 = f->n[1];
    for (int q = 0; q < f->pr; q++) {
        int myq, my0q;
        fft_block(n1, f->pr, q, &myq, &my0q);
        fftw_complex *blk = buf + displ[q] / 2;
        size_t len = (size_t)myq * sizeof(fftw_complex);
        for (size_t xz = 0; xz < (size_t)f->nx * f->nz; xz++) {
            fftw_complex *p = b + xz * n1 + my0q, *s = blk + xz * myq;
            if (to_buf) memcpy(s, p, len);
            else memcpy(p, s, len);
        }
    }
}

/* Transpose 2, x-pencil side: c[y][z][x] <-> block q = [x in q's x][z][y] */
void fft3d_t2_xside(const fft3d *f, fftw_complex *c, fftw_complex *buf, const int *displ,
                    int to_buf)
{
    const int n0 = f->n[0], nz = f->nz, my = f->my;
    for (int q = 0; q < f->pr; q++) {
        int nxq, x0q;
        fft_block(n0, f->pr, q, &nxq, &x0q);
        fftw_complex *blk = buf + displ[q] / 2;
        for (int x = 0; x < nxq; x++)
            for (int z = 0; z < nz; z++) {
                fftw_complex *s = blk + ((size_t)x * nz + z) * my;
                fftw_complex *p = c + (size_t)z * n0 + x0q + x;
                for (int y = 0; y < my; y++, p += (size_t)nz * n0) {
                    if (to_buf) { s[y][0] = (*p)[0]; s[y][1] = (*p)[1]; }
                    else { (*p)[0] = s[y][0]; (*p)[1] = s[y][1]; }
                }
            }
    }
}

/* ---- setup ---------------------------------------------------------------- */

/* Counts (doubles) of peer q for a block of `elems` complex values. */
static int dcount(size_t elems)
{
    if (elems > (size_t)INT_MAX / 2) fft_die("a block of %zu values overflows an int count", elems);
    return (int)(2 * elems);
}

static void counts_alloc(fft_exchange *e, MPI_Comm comm, int p)
{
    e->comm = comm;
    e->scount = fft_xmalloc(4 * (size_t)p * sizeof(int));
    e->sdispl = e->scount + p;
    e->rcount = e->scount + 2 * p;
    e->rdispl = e->scount + 3 * p;
    e->req = XCHG_REQUEST_NULL;
}

static void displs(const int *count, int *displ, int p)
{
    long long d = 0;
    for (int q = 0; q < p; q++) {
        if (d > INT_MAX) fft_die("alltoallv displacement overflows an int");
        displ[q] = (int)d;
        d += count[q];
    }
}

/* The backward exchange `b` of forward exchange `fw`: counts swapped. */
static void reverse(fft_exchange *b, const fft_exchange *fw, int p)
{
    counts_alloc(b, fw->comm, p);
    memcpy(b->scount, fw->rcount, p * sizeof(int));
    memcpy(b->sdispl, fw->rdispl, p * sizeof(int));
    memcpy(b->rcount, fw->scount, p * sizeof(int));
    memcpy(b->rdispl, fw->sdispl, p * sizeof(int));
}

static fftw_plan plan_lines(int n, int howmany, fftw_complex *in, fftw_complex *out, int sign,
                            unsigned flags)
{
    if (howmany == 0 || n == 0) return NULL;
    fftw_plan p = fftw_plan_many_dft(1, &n, howmany, in, NULL, 1, n, out, NULL, 1, n, sign,
                                     flags);
    if (!p) fft_die("fftw_plan_many_dft (n %d, howmany %d) failed", n, howmany);
    return p;
}

static fftw_complex *alloc_complex(size_t n)
{
    fftw_complex *p = fftw_alloc_complex(n ? n : 1);
    if (!p) fft_die("fftw_alloc_complex(%zu) failed", n);
    memset(p, 0, (n ? n : 1) * sizeof(fftw_complex));
    return p;
}

void fft3d_setup(fft3d *f, const int n[3], int pr, int pc, MPI_Comm world, unsigned fftw_flags)
{
    int rank;
    memset(f, 0, sizeof *f);
    memcpy(f->n, n, sizeof f->n);
    f->pr = pr;
    f->pc = pc;
    FFT_MPI(MPI_Comm_rank(world, &rank));
    f->r = rank / pc;
    f->c = rank % pc;
    FFT_MPI(MPI_Comm_split(world, f->r, f->c, &f->row));
    FFT_MPI(MPI_Comm_split(world, f->c, f->r, &f->col));
    FFT_MPI(MPI_Comm_set_errhandler(f->row, MPI_ERRORS_RETURN));
    FFT_MPI(MPI_Comm_set_errhandler(f->col, MPI_ERRORS_RETURN));

    fft_block(n[0], pr, f->r, &f->nx, &f->x0);
    fft_block(n[1], pc, f->c, &f->ny, &f->y0);
    fft_block(n[2], pc, f->c, &f->nz, &f->z0);
    fft_block(n[1], pr, f->r, &f->my, &f->my0);
    f->zsize = (size_t)f->nx * f->ny * n[2];
    f->ysize = (size_t)f->nx * f->nz * n[1];
    f->xsize = (size_t)f->my * f->nz * n[0];
    size_t big = f->zsize;
    if (f->ysize > big) big = f->ysize;
    if (f->xsize > big) big = f->xsize;
    f->in = alloc_complex(f->zsize);
    f->zpen = alloc_complex(f->zsize);
    f->ypen = alloc_complex(f->ysize);
    f->xpen = alloc_complex(f->xsize);
    f->sbuf = alloc_complex(big);
    f->rbuf = alloc_complex(big);

    /* Plans before the data (FFTW_MEASURE overwrites the arrays). The z
     * transform is out of place and keeps its input (in). */
    f->zf = plan_lines(n[2], f->nx * f->ny, f->in, f->zpen, FFTW_FORWARD,
                       fftw_flags | FFTW_PRESERVE_INPUT);
    f->zb = plan_lines(n[2], f->nx * f->ny, f->zpen, f->zpen, FFTW_BACKWARD, fftw_flags);
    f->yf = plan_lines(n[1], f->nx * f->nz, f->ypen, f->ypen, FFTW_FORWARD, fftw_flags);
    f->yb = plan_lines(n[1], f->nx * f->nz, f->ypen, f->ypen, FFTW_BACKWARD, fftw_flags);
    f->xf = plan_lines(n[0], f->my * f->nz, f->xpen, f->xpen, FFTW_FORWARD, fftw_flags);
    f->xb = plan_lines(n[0], f->my * f->nz, f->xpen, f->xpen, FFTW_BACKWARD, fftw_flags);

    /* Transpose 1 (row, Pc peers): send nx*ny*nz(q), receive nx*ny(q)*nz. */
    fft_exchange *t1 = &f->ex[FFT_T1F], *t2 = &f->ex[FFT_T2F];
    counts_alloc(t1, f->row, pc);
    for (int q = 0; q < pc; q++) {
        int cnt, start;
        fft_block(n[2], pc, q, &cnt, &start);
        t1->scount[q] = dcount((size_t)f->nx * f->ny * cnt);
        fft_block(n[1], pc, q, &cnt, &start);
        t1->rcount[q] = dcount((size_t)f->nx * cnt * f->nz);
    }
    displs(t1->scount, t1->sdispl, pc);
    displs(t1->rcount, t1->rdispl, pc);
    /* Transpose 2 (col, Pr peers): send nx*nz*my(q), receive nx(q)*nz*my. */
    counts_alloc(t2, f->col, pr);
    for (int q = 0; q < pr; q++) {
        int cnt, start;
        fft_block(n[1], pr, q, &cnt, &start);
        t2->scount[q] = dcount((size_t)f->nx * f->nz * cnt);
        fft_block(n[0], pr, q, &cnt, &start);
        t2->rcount[q] = dcount((size_t)cnt * f->nz * f->my);
    }
    displs(t2->scount, t2->sdispl, pr);
    displs(t2->rcount, t2->rdispl, pr);
    reverse(&f->ex[FFT_T1B], t1, pc);
    reverse(&f->ex[FFT_T2B], t2, pr);
}

void fft3d_exchanges_init(fft3d *f, enum fft_mode mode)
{
    f->mode = mode;
    if (mode != FFT_PERSISTENT) return;
    for (int i = 0; i < FFT_NEX; i++) {
        fft_exchange *e = &f->ex[i];
        FFT_MPI(XCHG_Alltoallv_init(f->sbuf, e->scount, e->sdispl, MPI_DOUBLE, f->rbuf,
                                    e->rcount, e->rdispl, MPI_DOUBLE, e->comm, MPI_INFO_NULL,
                                    &e->req));
    }
}

void fft3d_exchanges_free(fft3d *f)
{
    for (int i = 0; i < FFT_NEX; i++)
        if (f->ex[i].req != XCHG_REQUEST_NULL) FFT_MPI(XCHG_Request_free(&f->ex[i].req));
}

void fft3d_free(fft3d *f)
{
    fft3d_exchanges_free(f);
    for (int i = 0; i < FFT_NEX; i++) free(f->ex[i].scount);
    fftw_plan plans[] = {f->zf, f->zb, f->yf, f->yb, f->xf, f->xb};
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++)
        if (plans[i]) fftw_destroy_plan(plans[i]);
    fftw_complex *bufs[] = {f->in, f->zpen, f->ypen, f->xpen, f->sbuf, f->rbuf};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) fftw_free(bufs[i]);
    FFT_MPI(MPI_Comm_free(&f->row));
    FFT_MPI(MPI_Comm_free(&f->col));
    memset(f, 0, sizeof *f);
}

/* ---- transforms ----------------------------------------------------------- */

static void run_exchange(fft3d *f, fft_exchange *e, double *t_exchange)
{
    double t0 = MPI_Wtime();
    switch (f->mode) {
    case FFT_PERSISTENT:
        FFT_MPI(XCHG_Start(&e->req));
        FFT_MPI(XCHG_Wait(&e->req, MPI_STATUS_IGNORE));
        break;
    case FFT_BLOCKING:
        FFT_MPI(XCHG_Alltoallv(f->sbuf, e->scount, e->sdispl, MPI_DOUBLE, f->rbuf, e->rcount,
                               e->rdispl, MPI_DOUBLE, e->comm));
        break;
    case FFT_DIRECT:
        FFT_MPI(MPI_Alltoallv(f->sbuf, e->scount, e->sdispl, MPI_DOUBLE, f->rbuf, e->rcount,
                              e->rdispl, MPI_DOUBLE, e->comm));
        break;
    }
    *t_exchange += MPI_Wtime() - t0;
}

static void execute(fftw_plan p)
{
    if (p) fftw_execute(p);
}

void fft3d_forward(fft3d *f, double *t_exchange)
{
    execute(f->zf);
    fft3d_t1_zside(f, f->zpen, f->sbuf, f->ex[FFT_T1F].sdispl, 1);
    run_exchange(f, &f->ex[FFT_T1F], t_exchange);
    fft3d_t1_yside(f, f->ypen, f->rbuf, f->ex[FFT_T1F].rdispl, 0);
    execute(f->yf);
    fft3d_t2_yside(f, f->ypen, f->sbuf, f->ex[FFT_T2F].sdispl, 1);
    run_exchange(f, &f->ex[FFT_T2F], t_exchange);
    fft3d_t2_xside(f, f->xpen, f->rbuf, f->ex[FFT_T2F].rdispl, 0);
    execute(f->xf);
}

void fft3d_backward(fft3d *f, double *t_exchange)
{
    execute(f->xb);
    fft3d_t2_xside(f, f->xpen, f->sbuf, f->ex[FFT_T2B].sdispl, 1);
    run_exchange(f, &f->ex[FFT_T2B], t_exchange);
    fft3d_t2_yside(f, f->ypen, f->rbuf, f->ex[FFT_T2B].rdispl, 0);
    execute(f->yb);
    fft3d_t1_yside(f, f->ypen, f->sbuf, f->ex[FFT_T1B].sdispl, 1);
    run_exchange(f, &f->ex[FFT_T1B], t_exchange);
    fft3d_t1_zside(f, f->zpen, f->rbuf, f->ex[FFT_T1B].rdispl, 0);
    execute(f->zb);
}
