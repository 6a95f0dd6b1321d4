/*
 * Helpers shared by the files of xchg-fft3d: error exits, allocation, the
 * block distribution with remainders.
 */
#ifndef XCHG_FFT_UTIL_H
#define XCHG_FFT_UTIL_H

#include <mpi.h>
#include <stddef.h>

/* Print "xchg-fft3d: rank R: ..." on stderr and MPI_Abort (status 3). */
void fft_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Every MPI / xchg call goes through FFT_MPI: on an error code it dies with
 * the call, MPI's error string and xchg's last error message. */
void fft_mpi_failed(const char *call, int rc, const char *file, int line)
    __attribute__((noreturn));
#define FFT_MPI(call)                                                   \
    do {                                                                \
        int fft_rc_ = (call);                                           \
        if (fft_rc_ != MPI_SUCCESS)                                     \
            fft_mpi_failed(#call, fft_rc_, __FILE__, __LINE__);         \
    } while (0)

void *fft_xmalloc(size_t n); /* dies when out of memory; never NULL */

/* Block distribution of n items over p parts, the first n % p parts one
 * more: part i gets *count items starting at *start. */
static inline void fft_block(int n, int p, int i, int *count, int *start)
{
    int base = n / p, rem = n % p;
    *count = base + (i < rem);
    *start = i * base + (i < rem ? i : rem);
}

/* The statistic of every time xchg-fft3d reports: the median of this
 * rank's n samples (sorted in place), then the maximum over comm. */
double fft_max_median(double *samples, int n, MPI_Comm comm);

#endif
