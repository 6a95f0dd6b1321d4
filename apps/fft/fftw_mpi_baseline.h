/*
 * The fftw-mpi baseline of xchg-fft3d: FFTW's own distributed transform
 * (fftw_mpi_plan_dft_3d, slab decomposition: x split over all ranks in
 * FFTW's blocks, y and z whole; its transposes are FFTW's), timed as a
 * whole and checked like the pencil transform. Built only with
 * libfftw3-mpi (XCHG_FFT_HAVE_FFTW_MPI).
 */
#ifndef XCHG_FFT_FFTW_MPI_BASELINE_H
#define XCHG_FFT_FFTW_MPI_BASELINE_H

#include <fftw3.h>
#include <mpi.h>

typedef struct fft_mpi_result {
    double total_s;       /* max over ranks of the per-rank median per transform */
    double err_serial;    /* vs the reference; < 0 when not compared */
    double err_roundtrip; /* backward(forward(in)) / N vs in */
} fft_mpi_result;

/* 1 when this build has the baseline. */
int fft_mpi_available(void);
void fft_mpi_init(void);    /* after MPI_Init */
void fft_mpi_cleanup(void); /* before MPI_Finalize */

/* Collective over comm: plan, run `warmup` then `iters` timed forward
 * transforms, check (with serial: against ref, fft_reference's), with
 * inject: perturb one output value first. */
void fft_mpi_baseline(const int n[3], MPI_Comm comm, unsigned fftw_flags, int warmup,
                      int iters, int serial, const fftw_complex *ref, int inject,
                      fft_mpi_result *res);

#endif
