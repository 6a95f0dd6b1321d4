/*
 * Batched forward transforms with the exchange of one field overlapping the
 * 1-D FFTs of the next (batch.h).
 *
 * Each field's forward transform is five stages:
 *   A  FFT along z, pack transpose 1        E1  alltoallv in the row
 *   B  unpack, FFT along y, pack transpose 2 E2  alltoallv in the column
 *   C  unpack, FFT along x
 * Not pipelined, field k runs A E1 B E2 C before field k+1 starts (each
 * exchange started and waited at once). Pipelined, step s runs
 *   A(s), start E1(s);  wait E1(s-1), B(s-1), start E2(s-1);
 *   wait E2(s-2), C(s-2)
 * so E1(s) is in flight during B(s-1) and C(s-2), and E2(s-1) during C(s-2)
 * and A(s+1): the exchanges hide behind the FFTs of the neighbouring
 * fields. Each field has its own send and receive buffers (nonblocking
 * exchanges in flight must not share them); the pencils between stages
 * (zpen, ypen) are shared. The exchanges are nonblocking collectives:
 * XCHG_Ialltoallv with the communicators' selection, or MPI_Ialltoallv
 * (the baseline). Without a progress thread, a multi-round xchg algorithm
 * advances only inside xchg calls: here, the next start and the waits.
 * Under SimGrid SMPI the FFTs cost no simulated time (sim/smpi-flags); with
 * flops_per_s set, each FFT stage also runs smpi_execute for 5 n log2 n
 * flops per line of length n (the usual FFT operation count), so the
 * overlap is measured deterministically.
 */
#include "batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fft_util.h"

static fftw_complex *alloc_pencil(size_t n)
{
    fftw_complex *p = fftw_alloc_complex(n ? n : 1);
    if (!p) fft_die("fftw_alloc_complex(%zu) failed", n);
    memset(p, 0, (n ? n : 1) * sizeof(fftw_complex));
    return p;
}

void fft_batch_setup(fft_batch *b, const fft3d *f, int count, int direct, double flops_per_s)
{
    memset(b, 0, sizeof *b);
    b->count = count;
    b->direct = direct;
    b->flops_per_s = flops_per_s;
    fftw_complex ***arrays[] = {&b->in, &b->xpen, &b->s1, &b->r1, &b->s2, &b->r2};
    size_t sizes[] = {f->zsize, f->xsize, f->zsize, f->ysize, f->ysize, f->xsize};
    for (int a = 0; a < 6; a++) {
        *arrays[a] = fft_xmalloc((size_t)count * sizeof(fftw_complex *));
        for (int k = 0; k < count; k++) (*arrays[a])[k] = alloc_pencil(sizes[a]);
    }
    for (int k = 0; k < count; k++)
        for (size_t i = 0; i < f->zsize; i++) {
            b->in[k][i][0] = (k + 1) * f->in[i][0];
            b->in[k][i][1] = (k + 1) * f->in[i][1];
        }
}

void fft_batch_free(fft_batch *b)
{
    fftw_complex **arrays[] = {b->in, b->xpen, b->s1, b->r1, b->s2, b->r2};
    for (int a = 0; a < 6; a++) {
        for (int k = 0; arrays[a] && k < b->count; k++) fftw_free(arrays[a][k]);
        free(arrays[a]);
    }
    memset(b, 0, sizeof *b);
}

/* SMPI with flops_per_s: the modelled time of `lines` 1-D FFTs of length n. */
static void model(const fft_batch *b, int n, size_t lines)
{
#ifdef SMPI_H
    if (b->flops_per_s > 0 && n > 1 && lines)
        smpi_execute(5.0 * n * log2((double)n) * (double)lines / b->flops_per_s);
#else
    (void)b, (void)n, (void)lines;
#endif
}

static void start(fft3d *f, const fft_batch *b, const fft_exchange *e, fftw_complex *s,
                  fftw_complex *r, MPI_Request *mreq, XCHG_Request *xreq)
{
    if (b->direct)
        FFT_MPI(MPI_Ialltoallv(s, e->scount, e->sdispl, MPI_DOUBLE, r, e->rcount, e->rdispl,
                               MPI_DOUBLE, e->comm, mreq));
    else
        FFT_MPI(XCHG_Ialltoallv(s, e->scount, e->sdispl, MPI_DOUBLE, r, e->rcount, e->rdispl,
                                MPI_DOUBLE, e->comm, xreq));
    (void)f;
}

static void finish(const fft_batch *b, MPI_Request *mreq, XCHG_Request *xreq)
{
    if (b->direct) FFT_MPI(MPI_Wait(mreq, MPI_STATUS_IGNORE));
    else FFT_MPI(XCHG_Wait(xreq, MPI_STATUS_IGNORE));
}

/* The requests in flight: [0] transpose 1, [1] transpose 2, per field. */
typedef struct inflight {
    MPI_Request m[2];
    XCHG_Request x[2];
} inflight;

static void stage_a(fft3d *f, fft_batch *b, int k)
{
    if (f->zf) fftw_execute_dft(f->zf, b->in[k], f->zpen);
    model(b, f->n[2], (size_t)f->nx * f->ny);
    fft3d_t1_zside(f, f->zpen, b->s1[k], f->ex[FFT_T1F].sdispl, 1);
}

static void stage_b(fft3d *f, fft_batch *b, int k)
{
    fft3d_t1_yside(f, f->ypen, b->r1[k], f->ex[FFT_T1F].rdispl, 0);
    if (f->yf) fftw_execute(f->yf);
    model(b, f->n[1], (size_t)f->nx * f->nz);
    fft3d_t2_yside(f, f->ypen, b->s2[k], f->ex[FFT_T2F].sdispl, 1);
}

static void stage_c(fft3d *f, fft_batch *b, int k)
{
    fft3d_t2_xside(f, b->xpen[k], b->r2[k], f->ex[FFT_T2F].rdispl, 0);
    if (f->xf) fftw_execute_dft(f->xf, b->xpen[k], b->xpen[k]);
    model(b, f->n[0], (size_t)f->my * f->nz);
}

void fft_batch_forward(fft3d *f, fft_batch *b, int pipelined, double *t_exchange)
{
    const int n = b->count;
    inflight *q = fft_xmalloc((size_t)n * sizeof *q);
    const fft_exchange *e1 = &f->ex[FFT_T1F], *e2 = &f->ex[FFT_T2F];
    double t;
    for (int s = 0; s < n + 2; s++) {
        /* not pipelined: one field per step, all five stages */
        int a = pipelined ? s : (s < n ? s : -1);
        int bb = pipelined ? s - 1 : a, c = pipelined ? s - 2 : a;
        if (a >= 0 && a < n) {
            stage_a(f, b, a);
            t = MPI_Wtime();
            start(f, b, e1, b->s1[a], b->r1[a], &q[a].m[0], &q[a].x[0]);
            if (!pipelined) finish(b, &q[a].m[0], &q[a].x[0]);
            *t_exchange += MPI_Wtime() - t;
        }
        if (bb >= 0 && bb < n) {
            t = MPI_Wtime();
            if (pipelined) finish(b, &q[bb].m[0], &q[bb].x[0]);
            *t_exchange += MPI_Wtime() - t;
            stage_b(f, b, bb);
            t = MPI_Wtime();
            start(f, b, e2, b->s2[bb], b->r2[bb], &q[bb].m[1], &q[bb].x[1]);
            if (!pipelined) finish(b, &q[bb].m[1], &q[bb].x[1]);
            *t_exchange += MPI_Wtime() - t;
        }
        if (c >= 0 && c < n) {
            t = MPI_Wtime();
            if (pipelined) finish(b, &q[c].m[1], &q[c].x[1]);
            *t_exchange += MPI_Wtime() - t;
            stage_c(f, b, c);
        }
    }
    free(q);
}

void fft_batch_output(fft3d *f, const fft_batch *b, int k)
{
    for (size_t i = 0; i < f->xsize; i++) {
        f->xpen[i][0] = b->xpen[k][i][0] / (k + 1);
        f->xpen[i][1] = b->xpen[k][i][1] / (k + 1);
    }
}
