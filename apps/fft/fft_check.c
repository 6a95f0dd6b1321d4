/* The checks of xchg-fft3d (fft_check.h). */
#include "fft_check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fft_util.h"

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static void input_value(uint64_t g, double v[2])
{
    uint64_t h = splitmix64(2 * g), k = splitmix64(2 * g + 1);
    v[0] = (double)(h >> 11) * 0x1p-52 - 1.0;
    v[1] = (double)(k >> 11) * 0x1p-52 - 1.0;
}

/* Global index of the local element at memory offset i of a box. */
static uint64_t global_index(const fft_box *box, const int n[3], size_t i)
{
    int g[3];
    for (int k = 2; k >= 0; k--) {
        int d = box->order[k];
        g[d] = box->start[d] + (int)(i % (size_t)box->count[d]);
        i /= (size_t)box->count[d];
    }
    return ((uint64_t)g[0] * n[1] + g[1]) * n[2] + g[2];
}

static size_t box_size(const fft_box *box)
{
    return (size_t)box->count[0] * box->count[1] * box->count[2];
}

void fft_fill_box(fftw_complex *local, const fft_box *box, const int n[3])
{
    size_t len = box_size(box);
    for (size_t i = 0; i < len; i++) input_value(global_index(box, n, i), local[i]);
}

fftw_complex *fft_reference(const int n[3], MPI_Comm comm)
{
    int rank;
    FFT_MPI(MPI_Comm_rank(comm, &rank));
    if (rank != 0) return NULL;
    size_t len = (size_t)n[0] * n[1] * n[2];
    fftw_complex *in = fftw_alloc_complex(len), *out = fftw_alloc_complex(len);
    if (!in || !out) fft_die("fftw_alloc_complex(%zu) for the reference failed", len);
    fftw_plan p = fftw_plan_dft_3d(n[0], n[1], n[2], in, out, FFTW_FORWARD, FFTW_ESTIMATE);
    if (!p) fft_die("fftw_plan_dft_3d for the reference failed");
    for (size_t i = 0; i < len; i++) input_value(i, in[i]);
    fftw_execute(p);
    fftw_destroy_plan(p);
    fftw_free(in);
    return out;
}

double fft_compare_box(const fftw_complex *ref, const fftw_complex *local, const fft_box *box,
                       const int n[3], MPI_Comm comm)
{
    int rank, p;
    FFT_MPI(MPI_Comm_rank(comm, &rank));
    FFT_MPI(MPI_Comm_size(comm, &p));
    int mine[9];
    memcpy(mine, box->start, sizeof box->start);
    memcpy(mine + 3, box->count, sizeof box->count);
    memcpy(mine + 6, box->order, sizeof box->order);
    int *boxes = rank == 0 ? fft_xmalloc(9 * (size_t)p * sizeof(int)) : NULL;
    int *counts = rank == 0 ? fft_xmalloc(2 * (size_t)p * sizeof(int)) : NULL;
    int *displs = counts ? counts + p : NULL;
    FFT_MPI(MPI_Gather(mine, 9, MPI_INT, boxes, 9, MPI_INT, 0, comm));
    double *all = NULL;
    if (rank == 0) {
        long long d = 0;
        for (int q = 0; q < p; q++) {
            long long c = 2LL * boxes[9 * q + 3] * boxes[9 * q + 4] * boxes[9 * q + 5];
            if (d + c > 0x7fffffff) fft_die("the result is too large to gather (--check-max)");
            counts[q] = (int)c;
            displs[q] = (int)d;
            d += c;
        }
        all = fft_xmalloc((size_t)d * sizeof(double));
    }
    FFT_MPI(MPI_Gatherv(local, (int)(2 * box_size(box)), MPI_DOUBLE, all, counts, displs,
                        MPI_DOUBLE, 0, comm));
    double err[2] = {0.0, 0.0}; /* sum |diff|^2, sum |ref|^2 */
    if (rank == 0) {
        size_t total = 0;
        for (int q = 0; q < p; q++) {
            fft_box bq;
            memcpy(bq.start, boxes + 9 * q, sizeof bq.start);
            memcpy(bq.count, boxes + 9 * q + 3, sizeof bq.count);
            memcpy(bq.order, boxes + 9 * q + 6, sizeof bq.order);
            const double *v = all + displs[q];
            size_t len = box_size(&bq);
            for (size_t i = 0; i < len; i++) {
                const double *r = ref[global_index(&bq, n, i)];
                double dr = v[2 * i] - r[0], di = v[2 * i + 1] - r[1];
                err[0] += dr * dr + di * di;
            }
            total += len;
        }
        size_t want = (size_t)n[0] * n[1] * n[2];
        for (size_t i = 0; i < want; i++) err[1] += ref[i][0] * ref[i][0] + ref[i][1] * ref[i][1];
        if (total != want) err[0] = INFINITY; /* the boxes do not cover the grid */
    }
    free(all);
    free(counts);
    free(boxes);
    FFT_MPI(MPI_Bcast(err, 2, MPI_DOUBLE, 0, comm));
    return err[1] > 0 ? sqrt(err[0] / err[1]) : sqrt(err[0]);
}

double fft_compare_roundtrip(const fftw_complex *back, const fftw_complex *in, size_t n,
                             double scale, MPI_Comm comm)
{
    double sum[2] = {0.0, 0.0}, all[2];
    for (size_t i = 0; i < n; i++) {
        double dr = back[i][0] * scale - in[i][0], di = back[i][1] * scale - in[i][1];
        sum[0] += dr * dr + di * di;
        sum[1] += in[i][0] * in[i][0] + in[i][1] * in[i][1];
    }
    FFT_MPI(MPI_Allreduce(sum, all, 2, MPI_DOUBLE, MPI_SUM, comm));
    return all[1] > 0 ? sqrt(all[0] / all[1]) : sqrt(all[0]);
}

void fft_inject_error(fftw_complex *local, size_t n, MPI_Comm comm)
{
    int rank, mine, last;
    FFT_MPI(MPI_Comm_rank(comm, &rank));
    mine = n > 0 ? rank : -1;
    FFT_MPI(MPI_Allreduce(&mine, &last, 1, MPI_INT, MPI_MAX, comm));
    if (rank == last) local[0][0] += 1.0;
}
