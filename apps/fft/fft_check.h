/*
 * The checks of xchg-fft3d: a deterministic pseudo-random input, a serial
 * FFTW 3-D transform of the whole grid on rank 0 (the reference), the
 * norm-wise comparison of a distributed result with it, and the inverse
 * round trip. A "box" is one rank's block of the global N0 x N1 x N2 array:
 * start[d], count[d] for d = 0 (x), 1 (y), 2 (z), stored in memory with
 * dimension order[0] slowest and order[2] fastest.
 */
#ifndef XCHG_FFT_CHECK_H
#define XCHG_FFT_CHECK_H

#include <fftw3.h>
#include <mpi.h>
#include <stddef.h>

typedef struct fft_box {
    int start[3], count[3], order[3];
} fft_box;

/* Fill a box with the input: element (x, y, z) is a function of its global
 * index (x * N1 + y) * N2 + z only, uniform in [-1, 1) for both parts. */
void fft_fill_box(fftw_complex *local, const fft_box *box, const int n[3]);

/* The serial reference: on rank 0 of comm, the forward 3-D DFT of the
 * whole input (fftw_plan_dft_3d, FFTW_ESTIMATE); NULL elsewhere. */
fftw_complex *fft_reference(const int n[3], MPI_Comm comm);

/* Relative norm-wise error ||result - ref|| / ||ref|| of a distributed
 * result (each rank's box gathered on rank 0 and compared there with ref).
 * Collective; the value is returned on every rank. */
double fft_compare_box(const fftw_complex *ref, const fftw_complex *local, const fft_box *box,
                       const int n[3], MPI_Comm comm);

/* Relative norm-wise error ||back * scale - in|| / ||in|| over all ranks
 * (back and in: n local values in the same layout). Collective. */
double fft_compare_roundtrip(const fftw_complex *back, const fftw_complex *in, size_t n,
                             double scale, MPI_Comm comm);

/* --inject-error: the highest rank of comm that holds values adds 1 to the
 * real part of its first one. Collective. */
void fft_inject_error(fftw_complex *local, size_t n, MPI_Comm comm);

#endif
