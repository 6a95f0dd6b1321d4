/*
 * A batch of B forward 3-D transforms (fields), for xchg-fft3d --pipeline=B
 * (batch.c): either one after another (each exchange started and waited at
 * once: "batch") or software-pipelined, the exchanges of field k in flight
 * while the 1-D FFTs of fields k+1 and k-1 run ("pipeline").
 */
#ifndef XCHG_FFT_BATCH_H
#define XCHG_FFT_BATCH_H

#include "pencil.h"

typedef struct fft_batch {
    int count;                /* B */
    int direct;               /* exchanges by MPI_Ialltoallv (else XCHG_Ialltoallv) */
    double flops_per_s;       /* > 0 (SMPI only): model each 1-D FFT stage as 5 n log2 n
                                 flops per line at this speed (smpi_execute) */
    fftw_complex **in, **xpen; /* per field: input (the grid times k+1), output */
    fftw_complex **s1, **r1, **s2, **r2; /* per field: transpose 1 and 2 buffers */
} fft_batch;

/* Allocates B fields; field k's input is f->in times (k + 1). */
void fft_batch_setup(fft_batch *b, const fft3d *f, int count, int direct, double flops_per_s);
void fft_batch_free(fft_batch *b);

/* The B forward transforms, pipelined or not; adds the time spent waiting
 * for exchanges (start and wait calls) to *t_exchange. */
void fft_batch_forward(fft3d *f, fft_batch *b, int pipelined, double *t_exchange);

/* Field k's output divided by k + 1 into f->xpen, for the checks of a
 * single transform. */
void fft_batch_output(fft3d *f, const fft_batch *b, int k);

#endif
