/*
 * Workloads of xchg-bench: block sizes, buffers and the calls.
 *
 * All data is MPI_BYTE, so S is in bytes. For alltoallv the size of the block
 * that rank `from` sends to rank `to` is a deterministic function of (seed,
 * from, to, S), so sender and receiver agree on it without communication:
 *   uniform   uniform integer in [0, S] (ParLogNa paper sec. 5.1: mean S/2)
 *   normal    Gaussian with mean S*1000/1024 and sd S*240/1024, rounded and
 *             clipped to [0, S] (paper sec. 5.4: mean 1000, sd 240 at S = 1024)
 *   powerlaw  density ~ x^-0.95 on [1, S] (paper sec. 5.4, exponent 0.95):
 *             mostly small blocks, rare large ones
 *   sparse    a block is non-empty with probability 1/8, then uniform in [1, S]
 *   fft1      FFT pattern N1 (paper sec. 6.1): ranks below ceil(0.625 P) are
 *             workers and send 8 doubles (64 bytes) to each of the first
 *             ceil(0.78125 P) ranks; everything else is empty
 *   fft2      FFT pattern N2: every rank sends 64 doubles (512 bytes) to each
 *             rank except the last rank, which gets 16 doubles (128 bytes)
 * (normal: after clipping the mean is about 0.89 S.)
 * The fft patterns have fixed sizes: -m is ignored, and S in the report is
 * the largest block (64 or 512 bytes).
 * For alltoall and allgather S is the block size (sendcount bytes per peer).
 *
 * alltoallw: the blocks of the same --dist (rounded up to multiples of 8
 * bytes), each one element of a datatype of its own: a vector of 8-byte
 * runs at a stride of 16 (MPI_Type_vector(b/8, 8, 16, MPI_BYTE)), so every
 * peer has a different type on both sides and half of each buffer is
 * holes, as in the strided transposes of FFT codes.
 *
 * For allgatherv S is the largest contribution: rank p contributes the block
 * --dist gives for (p, p) (uniform: [0, S], sparse: mostly nothing, ...; the
 * fft patterns: their block from p to p), packed in rank order.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "xchg.h"

const char *const bench_coll_names[BENCH_NUM_COLLS] = {"alltoallv", "alltoall", "allgather",
                                                        "alltoallw", "allgatherv"};

const char *const bench_dist_names[DIST_COUNT] = {"uniform", "normal", "powerlaw",
                                                  "sparse", "fft1", "fft2"};

/* splitmix64: a good 64-bit mix of the inputs. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* A uniform number in [0, 1) for (seed, from, to, stream). */
static double uniform01(uint64_t seed, int from, int to, int64_t size, int stream)
{
    uint64_t h = mix(seed ^ mix((uint64_t)from * 0x100000001b3ULL + (uint64_t)to));
    h = mix(h ^ (uint64_t)size * 0x2545f4914f6cdd1dULL ^ (uint64_t)stream);
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Bytes that rank `from` sends to rank `to` for maximum block size S. */
static int64_t block_bytes(const bench_options *opt, int from, int to, int nranks, int64_t S)
{
    uint64_t seed = opt->seed;
    double u = uniform01(seed, from, to, S, 0);
    switch (opt->dist) {
    case DIST_UNIFORM:
        return clamp((int64_t)(u * (double)(S + 1)), 0, S);
    case DIST_NORMAL: {
        double u2 = uniform01(seed, from, to, S, 1);
        double z = sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * 3.14159265358979323846 * u2);
        double mean = (double)S * 1000.0 / 1024.0, sd = (double)S * 240.0 / 1024.0;
        return clamp(llround(mean + sd * z), 0, S);
    }
    case DIST_POWERLAW: {
        const double exponent = 0.95, e = 1.0 - exponent;
        double x = pow(1.0 + u * (pow((double)S, e) - 1.0), 1.0 / e);
        return clamp((int64_t)x, 1, S);
    }
    case DIST_SPARSE:
        if (u >= 0.125) return 0;
        return 1 + clamp((int64_t)(uniform01(seed, from, to, S, 1) * (double)S), 0, S - 1);
    case DIST_FFT1: {
        int workers = (int)ceil(0.625 * nranks), filled = (int)ceil(0.78125 * nranks);
        return (from < workers && to < filled) ? 8 * 8 : 0;
    }
    case DIST_FFT2:
        return to == nranks - 1 ? 16 * 8 : 64 * 8;
    default:
        return 0;
    }
}

int bench_sizes(const bench_options *opt, int nranks, int64_t *sizes, int max_sizes)
{
    (void)nranks;
    if ((bench_coll_is_v(opt->coll) || opt->coll == BENCH_ALLGATHERV) &&
        (opt->dist == DIST_FFT1 || opt->dist == DIST_FFT2)) {
        sizes[0] = opt->dist == DIST_FFT1 ? 64 : 512;
        return 1;
    }
    int n = 0;
    for (int64_t s = opt->min_size; s <= opt->max_size && n < max_sizes; s *= 2) sizes[n++] = s;
    return n;
}

/* The content of byte k of the block from `from` to `to`: checkable. */
static char pattern_byte(int from, int to, int64_t k)
{
    return (char)(from * 131 + to * 31 + k * 7 + 1);
}

void bench_clear_recv(bench_workload *w, char *buf)
{
    memset(buf, 0xA5, w->recv_bytes);
}

static int alloc_buffers(bench_workload *w)
{
    w->sendbuf = malloc(w->send_bytes ? w->send_bytes : 1);
    w->recvbuf = malloc(w->recv_bytes ? w->recv_bytes : 1);
    w->refbuf = malloc(w->recv_bytes ? w->recv_bytes : 1);
    return w->sendbuf && w->recvbuf && w->refbuf ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* One vector type of `bytes` bytes (8-byte runs, stride 16) into *type. */
static int strided_type(int64_t bytes, MPI_Datatype *type)
{
    int rc = MPI_Type_vector((int)(bytes / 8), 8, 16, MPI_BYTE, type);
    return rc == MPI_SUCCESS ? MPI_Type_commit(type) : rc;
}

/* alltoallw from alltoallv's counts (bytes): blocks rounded up to 8 bytes,
 * one strided element each, byte displacements over twice the bytes. */
static int alltoallw_workload(bench_workload *w, int rank, int nranks)
{
    w->sendtypes = malloc(2 * (size_t)nranks * sizeof(MPI_Datatype));
    if (!w->sendtypes) return MPI_ERR_NO_MEM;
    w->recvtypes = w->sendtypes + nranks;
    w->ntypes = 2 * nranks;
    int64_t send_off = 0, recv_off = 0;
    for (int p = 0; p < 2 * nranks; p++) w->sendtypes[p] = MPI_DATATYPE_NULL;
    for (int peer = 0; peer < nranks; peer++) {
        int64_t out = (w->sendcounts[peer] + 7) / 8 * 8, in = (w->recvcounts[peer] + 7) / 8 * 8;
        if (send_off + 2 * out > INT_MAX || recv_off + 2 * in > INT_MAX) return MPI_ERR_COUNT;
        int rc = strided_type(out ? out : 8, &w->sendtypes[peer]);
        if (rc == MPI_SUCCESS) rc = strided_type(in ? in : 8, &w->recvtypes[peer]);
        if (rc != MPI_SUCCESS) return rc;
        w->sendcounts[peer] = out > 0;
        w->recvcounts[peer] = in > 0;
        w->sdispls[peer] = (int)send_off;
        w->rdispls[peer] = (int)recv_off;
        send_off += 2 * out;
        recv_off += 2 * in;
    }
    w->send_bytes = (size_t)send_off;
    w->recv_bytes = (size_t)recv_off;
    w->total_bytes = send_off / 2;
    if (alloc_buffers(w) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    for (int64_t k = 0; k < send_off; k++) /* the holes too */
        w->sendbuf[k] = pattern_byte(rank, (int)(k % nranks), k);
    return MPI_SUCCESS;
}

/* Allgatherv: rank p's contribution from --dist, packed in rank order. */
static int allgatherv_workload(const bench_options *opt, int64_t size, int rank, int nranks,
                               bench_workload *w)
{
    int *arrays = malloc(4 * (size_t)nranks * sizeof(int));
    if (!arrays) return MPI_ERR_NO_MEM;
    w->sendcounts = arrays; /* unused; owns the allocation (bench_workload_free) */
    w->sdispls = arrays + nranks;
    w->recvcounts = arrays + 2 * nranks;
    w->rdispls = arrays + 3 * nranks;
    int64_t offset = 0;
    for (int p = 0; p < nranks; p++) {
        int64_t bytes = block_bytes(opt, p, p, nranks, size);
        if (offset + bytes > INT_MAX) return MPI_ERR_COUNT;
        w->recvcounts[p] = (int)bytes;
        w->rdispls[p] = (int)offset;
        w->sendcounts[p] = w->sdispls[p] = 0;
        offset += bytes;
    }
    w->count = w->recvcounts[rank];
    w->send_bytes = (size_t)w->count;
    w->recv_bytes = (size_t)offset;
    w->total_bytes = w->count;
    if (alloc_buffers(w) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    for (int64_t k = 0; k < w->count; k++) w->sendbuf[k] = pattern_byte(rank, rank, k);
    return MPI_SUCCESS;
}

int bench_workload_create(const bench_options *opt, int64_t size, int rank, int nranks,
                          bench_workload *w)
{
    memset(w, 0, sizeof *w);
    w->size = size;
    if (opt->coll == BENCH_ALLGATHERV) return allgatherv_workload(opt, size, rank, nranks, w);
    if (!bench_coll_is_v(opt->coll)) {
        if (size > INT_MAX || size * nranks > INT_MAX) return MPI_ERR_COUNT;
        w->count = (int)size;
        w->send_bytes = (size_t)size * (opt->coll == BENCH_ALLGATHER ? 1 : (size_t)nranks);
        w->recv_bytes = (size_t)size * (size_t)nranks;
        w->total_bytes = (long long)w->send_bytes;
        if (alloc_buffers(w) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        for (int to = 0; to < nranks; to++)
            for (int64_t k = 0; k < size; k++) {
                if (opt->coll == BENCH_ALLGATHER && to > 0) break;
                w->sendbuf[(size_t)to * (size_t)size + (size_t)k] = pattern_byte(rank, to, k);
            }
        return MPI_SUCCESS;
    }
    int *arrays = malloc(4 * (size_t)nranks * sizeof(int));
    if (!arrays) return MPI_ERR_NO_MEM;
    w->sendcounts = arrays;
    w->sdispls = arrays + nranks;
    w->recvcounts = arrays + 2 * nranks;
    w->rdispls = arrays + 3 * nranks;
    int64_t send_off = 0, recv_off = 0;
    for (int peer = 0; peer < nranks; peer++) {
        int64_t out = block_bytes(opt, rank, peer, nranks, size);
        int64_t in = block_bytes(opt, peer, rank, nranks, size);
        if (send_off + out > INT_MAX || recv_off + in > INT_MAX) return MPI_ERR_COUNT;
        w->sendcounts[peer] = (int)out;
        w->sdispls[peer] = (int)send_off;
        w->recvcounts[peer] = (int)in;
        w->rdispls[peer] = (int)recv_off;
        send_off += out;
        recv_off += in;
    }
    w->send_bytes = (size_t)send_off;
    w->recv_bytes = (size_t)recv_off;
    w->total_bytes = send_off;
    if (opt->coll == BENCH_ALLTOALLW) return alltoallw_workload(w, rank, nranks);
    if (alloc_buffers(w) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
    for (int to = 0; to < nranks; to++)
        for (int64_t k = 0; k < w->sendcounts[to]; k++)
            w->sendbuf[w->sdispls[to] + k] = pattern_byte(rank, to, k);
    return MPI_SUCCESS;
}

void bench_workload_free(bench_workload *w)
{
    for (int p = 0; p < w->ntypes; p++)
        if (w->sendtypes[p] != MPI_DATATYPE_NULL) MPI_Type_free(&w->sendtypes[p]);
    free(w->sendtypes);
    free(w->sendcounts);
    free(w->sendbuf);
    free(w->recvbuf);
    free(w->refbuf);
    memset(w, 0, sizeof *w);
}

int bench_call(const bench_options *opt, bench_workload *w, int use_mpi, MPI_Comm comm)
{
    switch (opt->coll) {
    case BENCH_ALLTOALLV:
        if (use_mpi)
            return PMPI_Alltoallv(w->sendbuf, w->sendcounts, w->sdispls, MPI_BYTE, w->recvbuf,
                                  w->recvcounts, w->rdispls, MPI_BYTE, comm);
        return XCHG_Alltoallv(w->sendbuf, w->sendcounts, w->sdispls, MPI_BYTE, w->recvbuf,
                              w->recvcounts, w->rdispls, MPI_BYTE, comm);
    case BENCH_ALLTOALLW:
        if (use_mpi)
            return PMPI_Alltoallw(w->sendbuf, w->sendcounts, w->sdispls, w->sendtypes, w->recvbuf,
                                  w->recvcounts, w->rdispls, w->recvtypes, comm);
        return XCHG_Alltoallw(w->sendbuf, w->sendcounts, w->sdispls, w->sendtypes, w->recvbuf,
                              w->recvcounts, w->rdispls, w->recvtypes, comm);
    case BENCH_ALLTOALL:
        if (use_mpi)
            return PMPI_Alltoall(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count, MPI_BYTE,
                                 comm);
        return XCHG_Alltoall(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count, MPI_BYTE,
                             comm);
    case BENCH_ALLGATHER:
        if (use_mpi)
            return PMPI_Allgather(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count, MPI_BYTE,
                                  comm);
        return XCHG_Allgather(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count, MPI_BYTE,
                              comm);
    case BENCH_ALLGATHERV:
        if (use_mpi)
            return PMPI_Allgatherv(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->recvcounts,
                                   w->rdispls, MPI_BYTE, comm);
        return XCHG_Allgatherv(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->recvcounts,
                               w->rdispls, MPI_BYTE, comm);
    default:
        return MPI_ERR_ARG;
    }
}
