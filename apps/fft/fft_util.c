/* Error exits and allocation for xchg-fft3d (fft_util.h). */
#include "fft_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "xchg.h"

static int my_rank(void)
{
    int init = 0, rank = -1;
    MPI_Initialized(&init);
    if (init) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

void fft_die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "xchg-fft3d: rank %d: ", my_rank());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3); /* MPI_Abort does not return */
}

void fft_mpi_failed(const char *call, int rc, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    const char *detail = XCHG_Last_error();
    fft_die("%s:%d: %s failed: %s%s%s", file, line, call, msg,
            detail && *detail ? ": " : "", detail ? detail : "");
}

void *fft_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) fft_die("out of memory (%zu bytes)", n);
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double fft_max_median(double *samples, int n, MPI_Comm comm)
{
    double med = 0.0, max;
    if (n > 0) {
        qsort(samples, (size_t)n, sizeof *samples, cmp_double);
        med = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    }
    FFT_MPI(MPI_Allreduce(&med, &max, 1, MPI_DOUBLE, MPI_MAX, comm));
    return max;
}
