/* The fftw-mpi baseline of xchg-fft3d (fftw_mpi_baseline.h). */
#include "fftw_mpi_baseline.h"

#include <stdlib.h>

#include "fft_check.h"
#include "fft_util.h"

#ifdef XCHG_FFT_HAVE_FFTW_MPI
#include <fftw3-mpi.h>

int fft_mpi_available(void) { return 1; }
void fft_mpi_init(void) { fftw_mpi_init(); }
void fft_mpi_cleanup(void) { fftw_mpi_cleanup(); }

void fft_mpi_baseline(const int n[3], MPI_Comm comm, unsigned fftw_flags, int warmup,
                      int iters, int serial, const fftw_complex *ref, int inject,
                      fft_mpi_result *res)
{
    ptrdiff_t local_n0, local_0_start;
    ptrdiff_t alloc = fftw_mpi_local_size_3d(n[0], n[1], n[2], comm, &local_n0, &local_0_start);
    fftw_complex *in = fftw_alloc_complex(alloc > 0 ? alloc : 1);
    fftw_complex *out = fftw_alloc_complex(alloc > 0 ? alloc : 1);
    fftw_complex *orig = fftw_alloc_complex(alloc > 0 ? alloc : 1);
    if (!in || !out || !orig) fft_die("fftw_alloc_complex(%td) failed", alloc);
    fftw_plan fw = fftw_mpi_plan_dft_3d(n[0], n[1], n[2], in, out, comm, FFTW_FORWARD, fftw_flags);
    fftw_plan bw = fftw_mpi_plan_dft_3d(n[0], n[1], n[2], out, in, comm, FFTW_BACKWARD, fftw_flags);
    if (!fw || !bw) fft_die("fftw_mpi_plan_dft_3d failed");
    fft_box box = {{(int)local_0_start, 0, 0}, {(int)local_n0, n[1], n[2]}, {0, 1, 2}};
    size_t len = (size_t)local_n0 * n[1] * n[2];
    fft_fill_box(orig, &box, n);
    double *t = fft_xmalloc((size_t)iters * sizeof(double));
    for (int i = 0; i < warmup + iters; i++) {
        /* out-of-place MPI transforms may overwrite their input */
        for (size_t k = 0; k < len; k++) { in[k][0] = orig[k][0]; in[k][1] = orig[k][1]; }
        FFT_MPI(MPI_Barrier(comm));
        double t0 = MPI_Wtime();
        fftw_execute(fw);
        double t1 = MPI_Wtime();
        if (i >= warmup) t[i - warmup] = t1 - t0;
    }
    res->total_s = fft_max_median(t, iters, comm);
    free(t);
    if (inject) fft_inject_error(out, len, comm);
    res->err_serial = serial ? fft_compare_box(ref, out, &box, n, comm) : -1.0;
    fftw_execute(bw);
    res->err_roundtrip = fft_compare_roundtrip(in, orig, len, 1.0 / ((double)n[0] * n[1] * n[2]),
                                               comm);
    fftw_destroy_plan(fw);
    fftw_destroy_plan(bw);
    fftw_free(in);
    fftw_free(out);
    fftw_free(orig);
}

#else

int fft_mpi_available(void) { return 0; }
void fft_mpi_init(void) {}
void fft_mpi_cleanup(void) {}
void fft_mpi_baseline(const int n[3], MPI_Comm comm, unsigned fftw_flags, int warmup,
                      int iters, int serial, const fftw_complex *ref, int inject,
                      fft_mpi_result *res)
{
    (void)n; (void)comm; (void)fftw_flags; (void)warmup; (void)iters; (void)serial; (void)ref; (void)inject;
    (void)res;
    fft_die("xchg-fft3d was built without libfftw3-mpi");
}

#endif
