/*
 * The pencil-decomposed 3-D FFT of xchg-fft3d: an N0 x N1 x N2 complex grid
 * (x, y, z; z fastest in the global row-major order) on a Pr x Pc process
 * grid, rank = r * Pc + c. Block distribution with remainders (fft_block).
 *
 *   z-pencils  x over Pr (nx), y over Pc (ny), z whole    local [x][y][z]
 *   y-pencils  x over Pr (nx), z over Pc (nz), y whole    local [x][z][y]
 *   x-pencils  y over Pr (my), z over Pc (nz), x whole    local [y][z][x]
 *
 * Forward: FFT along z (in -> zpen), transpose 1 within the row
 * communicator (same r, Pc ranks) to y-pencils (ypen), FFT along y,
 * transpose 2 within the column communicator (same c, Pr ranks) to
 * x-pencils (xpen), FFT along x.
 * Each transpose packs the local pencil into one contiguous block per peer
 * (sbuf), runs one alltoallv (counts in MPI_DOUBLE, two per complex), and
 * unpacks the received blocks (rbuf) into the next pencil: explicit
 * pack/unpack, no derived datatypes. The backward transform runs the same
 * steps in reverse (xpen -> zpen, unnormalised), with the two transposes' counts
 * swapped (two more alltoallv plans).
 */
#ifndef XCHG_FFT_PENCIL_H
#define XCHG_FFT_PENCIL_H

#include <fftw3.h>
#include <mpi.h>

#include "xchg.h"

/* How the transposes run. */
enum fft_mode {
    FFT_PERSISTENT, /* XCHG_Alltoallv_init once, XCHG_Start/XCHG_Wait each time */
    FFT_BLOCKING,   /* XCHG_Alltoallv each time */
    FFT_DIRECT      /* MPI_Alltoallv each time (the baseline) */
};

/* One alltoallv: counts and displacements in doubles, its communicator
 * and, in persistent mode, its request. */
typedef struct fft_exchange {
    MPI_Comm comm;
    int *scount, *sdispl, *rcount, *rdispl;
    XCHG_Request req;
} fft_exchange;

enum { FFT_T1F, FFT_T2F, FFT_T2B, FFT_T1B, FFT_NEX };

typedef struct fft3d {
    int n[3];        /* N0 (x), N1 (y), N2 (z) */
    int pr, pc, r, c;
    MPI_Comm row;    /* same r: Pc ranks, rank c */
    MPI_Comm col;    /* same c: Pr ranks, rank r */
    int nx, x0;      /* x over Pr */
    int ny, y0;      /* y over Pc (z-pencils) */
    int nz, z0;      /* z over Pc (y- and x-pencils) */
    int my, my0;     /* y over Pr (x-pencils) */
    size_t zsize, ysize, xsize; /* complex elements of each pencil */
    fftw_complex *in, *zpen, *ypen, *xpen, *sbuf, *rbuf;
    fftw_plan zf, yf, xf, zb, yb, xb; /* NULL where the pencil is empty */
    fft_exchange ex[FFT_NEX];
    enum fft_mode mode;
} fft3d;

/* Collective over world: splits the row and column communicators (error
 * handler MPI_ERRORS_RETURN), allocates the buffers, plans the 1-D FFTs
 * (fftw_flags: FFTW_ESTIMATE or FFTW_MEASURE) and the exchanges' counts. */
void fft3d_setup(fft3d *f, const int n[3], int pr, int pc, MPI_Comm world,
                 unsigned fftw_flags);
void fft3d_free(fft3d *f);

/* Collective: prepare the four exchanges for `mode` (persistent: the four
 * XCHG_Alltoallv_init, with the algorithm set on row and col). */
void fft3d_exchanges_init(fft3d *f, enum fft_mode mode);
void fft3d_exchanges_free(fft3d *f);

/* Forward transform in -> xpen; adds the time spent in the two exchanges
 * (the alltoallv calls only) to *t_exchange. */
void fft3d_forward(fft3d *f, double *t_exchange);
/* Backward transform xpen -> zpen (destroys xpen), unnormalised. */
void fft3d_backward(fft3d *f, double *t_exchange);

/* Pack (to_buf = 1) or unpack (0) between a pencil and the per-peer blocks
 * of an alltoallv buffer at displacements displ (doubles): transpose 1 on
 * its z-pencil side (a[x][y][z]) and y-pencil side (b[x][z][y]), transpose 2
 * on its y-pencil side and x-pencil side (c[y][z][x]). For batch.c. */
void fft3d_t1_zside(const fft3d *f, fftw_complex *a, fftw_complex *buf, const int *displ,
                    int to_buf);
void fft3d_t1_yside(const fft3d *f, fftw_complex *b, fftw_complex *buf, const int *displ,
                    int to_buf);
void fft3d_t2_yside(const fft3d *f, fftw_complex *b, fftw_complex *buf, const int *displ,
                    int to_buf);
void fft3d_t2_xside(const fft3d *f, fftw_complex *c, fftw_complex *buf, const int *displ,
                    int to_buf);

#endif
